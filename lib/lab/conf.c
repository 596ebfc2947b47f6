/* Flat YAML configuration files read through the YAML event reader. */
#include "lab/conf.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/num.h"
#include "util/strbuf.h"
#include "util/xmalloc.h"
#include "parse/yaml-event.h"

void bg_conf_release(struct bg_conf *c)
{
	for (size_t i = 0; i < c->n; i++) {
		for (size_t k = 0; k < c->e[i].nvalues; k++)
			free(c->e[i].values[k]);
		free(c->e[i].values);
		free(c->e[i].pos);
		free(c->e[i].key);
	}
	free(c->e);
	free(c->file);
	memset(c, 0, sizeof(*c));
}

#define FAIL_AT(ev, ...) do { \
	char msg_[512]; \
	snprintf(msg_, sizeof(msg_), __VA_ARGS__); \
	ret = bg_error("%s:%zu:%zu: %s", name, (ev).line, (ev).column, msg_); \
	goto out; \
} while (0)

static void add_value(struct bg_conf_entry *e, const struct bg_yaml_event *ev)
{
	e->values = xreallocarray(e->values, e->nvalues + 1, sizeof(*e->values));
	e->pos = xreallocarray(e->pos, e->nvalues + 1, sizeof(*e->pos));
	e->values[e->nvalues] = xstrndup(ev->value, ev->len);
	e->pos[e->nvalues][0] = ev->line;
	e->pos[e->nvalues][1] = ev->column;
	e->nvalues++;
}

int bg_conf_load_mem(const char *name, const char *text, size_t len, struct bg_conf *c)
{
	struct bg_yaml_reader *r = bg_yaml_reader_new_mem(text, len);
	struct bg_yaml_event ev;
	int ret = 0;

	memset(c, 0, sizeof(*c));
	if (!r)
		return bg_error("%s: cannot set up the YAML parser", name);
	if (memchr(text, '\0', len)) {
		bg_yaml_reader_free(r);
		return bg_error("%s:1:1: binary data, not YAML", name);
	}
	c->file = xstrdup(name);
	c->line = c->column = 1;
	if (bg_yaml_next(r, &ev) < 0)
		goto yaml_error;
	if (ev.type == BG_YAML_END)
		goto out;                       /* an empty file: every key takes its default */
	if (ev.type != BG_YAML_MAP_BEGIN)
		FAIL_AT(ev, "expected a mapping of keys to values");
	c->line = ev.line;
	c->column = ev.column;
	for (;;) {
		struct bg_conf_entry *e;

		if (bg_yaml_next(r, &ev) < 0)
			goto yaml_error;
		if (ev.type == BG_YAML_MAP_END)
			break;
		if (ev.type != BG_YAML_SCALAR)
			FAIL_AT(ev, "expected a key");
		for (size_t i = 0; i < c->n; i++)
			if (!strcmp(c->e[i].key, ev.value))
				FAIL_AT(ev, "'%s' is given twice (first at line %zu)", ev.value,
					c->e[i].line);
		ALLOC_GROW(c->e, c->n + 1, c->alloc);
		e = &c->e[c->n++];
		memset(e, 0, sizeof(*e));
		e->key = xstrndup(ev.value, ev.len);
		e->line = ev.line;
		e->column = ev.column;
		if (bg_yaml_next(r, &ev) < 0)
			goto yaml_error;
		if (ev.type == BG_YAML_SCALAR) {
			add_value(e, &ev);
		} else if (ev.type == BG_YAML_SEQ_BEGIN) {
			e->list = true;
			for (;;) {
				if (bg_yaml_next(r, &ev) < 0)
					goto yaml_error;
				if (ev.type == BG_YAML_SEQ_END)
					break;
				if (ev.type != BG_YAML_SCALAR)
					FAIL_AT(ev, "'%s': list items must be plain values", e->key);
				add_value(e, &ev);
			}
		} else {
			FAIL_AT(ev, "'%s': expected a value or a list of values", e->key);
		}
	}
	if (bg_yaml_next(r, &ev) < 0)
		goto yaml_error;
	if (ev.type != BG_YAML_END)
		FAIL_AT(ev, "one mapping per file");
	goto out;
yaml_error:
	ret = bg_error("%s:%s", name, bg_error_last());
out:
	bg_yaml_reader_free(r);
	if (ret < 0) {
		char *msg = xstrdup(bg_error_last());

		bg_conf_release(c);
		bg_error("%s", msg);
		free(msg);
	}
	return ret;
}

int bg_conf_load(const char *path, struct bg_conf *c)
{
	size_t len;
	char *text;
	int ret;

	memset(c, 0, sizeof(*c));
	if (!(text = bg_read_file(path, 1 << 20, &len)))
		return -1;
	ret = bg_conf_load_mem(path, text, len, c);
	free(text);
	return ret;
}

static struct bg_conf_entry *find(struct bg_conf *c, const char *key)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->e[i].key, key)) {
			c->e[i].used = true;
			return &c->e[i];
		}
	return NULL;
}

int bg_conf_str(struct bg_conf *c, const char *key, const char *def, const char **out)
{
	struct bg_conf_entry *e = find(c, key);

	if (!e) {
		*out = def;
		return 0;
	}
	if (e->list)
		return bg_error("%s:%zu:%zu: '%s' takes one value, not a list", c->file, e->line,
				e->column, key);
	*out = e->values[0];
	return 0;
}

int bg_conf_str_req(struct bg_conf *c, const char *key, const char **out)
{
	if (bg_conf_str(c, key, NULL, out) < 0)
		return -1;
	if (!*out)
		return bg_conf_error_at(c, key, 0, "'%s' is missing", key);
	return 0;
}

int bg_conf_long(struct bg_conf *c, const char *key, long def, long min, long max, long *out)
{
	const char *s = NULL;

	if (bg_conf_str(c, key, NULL, &s) < 0)
		return -1;
	if (!s) {
		*out = def;
		return 0;
	}
	if (bg_num_parse_long(s, min, max, out) < 0)
		return bg_conf_error_at(c, key, 0, "'%s' must be a whole number from %ld to %ld, "
					"not '%s'", key, min, max, s);
	return 0;
}

int bg_conf_list(struct bg_conf *c, const char *key, char ***out, size_t *n)
{
	struct bg_conf_entry *e = find(c, key);

	*out = NULL;
	*n = 0;
	if (!e)
		return 0;
	if (!e->list)
		return bg_error("%s:%zu:%zu: '%s' takes a list: [a, b]", c->file, e->line,
				e->column, key);
	*out = e->values;
	*n = e->nvalues;
	return 0;
}

int bg_conf_check_unused(const struct bg_conf *c)
{
	for (size_t i = 0; i < c->n; i++)
		if (!c->e[i].used)
			return bg_error("%s:%zu:%zu: unknown key '%s'", c->file, c->e[i].line,
					c->e[i].column, c->e[i].key);
	return 0;
}

int bg_conf_error_at(const struct bg_conf *c, const char *key, size_t item, const char *fmt, ...)
{
	struct bg_strbuf msg = BG_STRBUF_INIT;
	size_t line = c->line, column = c->column;
	va_list ap;

	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->e[i].key, key)) {
			line = c->e[i].line;
			column = c->e[i].column;
			if (item < c->e[i].nvalues) {
				line = c->e[i].pos[item][0];
				column = c->e[i].pos[item][1];
			}
		}
	va_start(ap, fmt);
	bg_strbuf_vaddf(&msg, fmt, ap);
	va_end(ap);
	bg_error("%s:%zu:%zu: %s", c->file, line, column, msg.buf);
	bg_strbuf_release(&msg);
	return -1;
}
