/* YAML configuration files, flat or nested, read through the YAML event reader. */
#include "conf/conf.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/num.h"
#include "util/strbuf.h"
#include "util/strmap.h"
#include "util/xmalloc.h"
#include "parse/yaml-event.h"

void bg_conf_release(struct bg_conf *c)
{
	for (size_t i = 0; i < c->n; i++) {
		for (size_t k = 0; k < c->e[i].nvalues; k++)
			free(c->e[i].values[k]);
		free(c->e[i].values);
		free(c->e[i].pos);
		for (size_t k = 0; k < c->e[i].nmaps; k++)
			bg_conf_release(&c->e[i].maps[k]);
		free(c->e[i].maps);
		free(c->e[i].key);
	}
	free(c->e);
	free(c->file);
	memset(c, 0, sizeof(*c));
}

struct loader {
	struct bg_yaml_reader *r;
	const char *name;
	int max_depth;        /* 0: a flat file */
	size_t *keys;         /* read so far, in every mapping (BG_CONF_MAX_KEYS) */
};

static int verror_at(const char *file, size_t line, size_t column, const char *fmt, va_list ap)
{
	struct bg_strbuf msg = BG_STRBUF_INIT;

	bg_strbuf_vaddf(&msg, fmt, ap);
	bg_error("%s:%zu:%zu: %s", file, line, column, msg.buf);
	bg_strbuf_release(&msg);
	return -1;
}

static int fail_at(const struct loader *l, const struct bg_yaml_event *ev, const char *fmt, ...)
	BG_PRINTF(3, 4);

static int fail_at(const struct loader *l, const struct bg_yaml_event *ev, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verror_at(l->name, ev->line, ev->column, fmt, ap);
	va_end(ap);
	return -1;
}

/* The next event; libyaml's own errors are "line:col: what", the file is named here. */
static int next(const struct loader *l, struct bg_yaml_event *ev)
{
	if (bg_yaml_next(l->r, ev) < 0)
		return bg_error("%s:%s", l->name, bg_error_last());
	/*
	 * a C string would end at it: "a\0b" would be read as the key or value "a"; the text
	 * has no backslash, which the terminal's escaping would show doubled
	 */
	if (ev->type == BG_YAML_SCALAR && memchr(ev->value, '\0', ev->len))
		return fail_at(l, ev, "a NUL character (an escaped zero) in a key or value is not taken");
	return 0;
}

static void add_value(struct bg_conf_entry *e, const struct bg_yaml_event *ev)
{
	e->values = xreallocarray(e->values, e->nvalues + 1, sizeof(*e->values));
	e->pos = xreallocarray(e->pos, e->nvalues + 1, sizeof(*e->pos));
	e->values[e->nvalues] = xstrndup(ev->value, ev->len);
	e->pos[e->nvalues][0] = ev->line;
	e->pos[e->nvalues][1] = ev->column;
	e->nvalues++;
}

static int read_map(const struct loader *l, const struct bg_yaml_event *begin, int depth,
		    struct bg_conf *c);

/* A mapping as a value or a list item: one level deeper than the mapping holding it. */
static int add_map(const struct loader *l, struct bg_conf_entry *e,
		   const struct bg_yaml_event *begin, int depth)
{
	if (depth + 1 > l->max_depth)
		return fail_at(l, begin, "'%s': mappings nest deeper than %d levels", e->key,
			       l->max_depth);
	e->maps = xreallocarray(e->maps, e->nmaps + 1, sizeof(*e->maps));
	/* counted before it is read: a failure half-way is released with the rest */
	return read_map(l, begin, depth + 1, &e->maps[e->nmaps++]);
}

static int read_list(const struct loader *l, struct bg_conf_entry *e, int depth)
{
	struct bg_yaml_event ev;

	e->shape = BG_CONF_LIST;
	for (;;) {
		if (next(l, &ev) < 0)
			return -1;
		if (ev.type == BG_YAML_SEQ_END)
			return 0;
		if (!l->max_depth && ev.type != BG_YAML_SCALAR)
			return fail_at(l, &ev, "'%s': list items must be plain values", e->key);
		if (ev.type == BG_YAML_SCALAR && !e->nmaps) {
			add_value(e, &ev);
		} else if (ev.type == BG_YAML_MAP_BEGIN && !e->nvalues) {
			e->shape = BG_CONF_MAP_LIST;
			if (add_map(l, e, &ev, depth) < 0)
				return -1;
		} else if (ev.type == BG_YAML_SCALAR || ev.type == BG_YAML_MAP_BEGIN) {
			return fail_at(l, &ev, "'%s': list items must be all plain values or all "
				       "mappings", e->key);
		} else {
			return fail_at(l, &ev, "'%s': list items must be plain values or mappings",
				       e->key);
		}
	}
}

static int read_value(const struct loader *l, struct bg_conf_entry *e, int depth)
{
	struct bg_yaml_event ev;

	if (next(l, &ev) < 0)
		return -1;
	switch (ev.type) {
	case BG_YAML_SCALAR:
		e->shape = BG_CONF_VALUE;
		add_value(e, &ev);
		return 0;
	case BG_YAML_SEQ_BEGIN:
		return read_list(l, e, depth);
	case BG_YAML_MAP_BEGIN:
		if (!l->max_depth)
			break;
		e->shape = BG_CONF_MAP;
		return add_map(l, e, &ev, depth);
	case BG_YAML_ALIAS:
		/* a value would then be two places at once: the one read and the one meant */
		return fail_at(l, &ev, "'%s': aliases (*name) are not taken; write the value out",
			       e->key);
	default:
		break;
	}
	return fail_at(l, &ev, "'%s': expected a value%s", e->key,
		       l->max_depth ? ", a list or a mapping" : " or a list of values");
}

/*
 * The entries of the mapping that begin opened, up to its end. A key given twice is
 * found by a hash of the keys read, not by comparing each key with all before it.
 */
static int read_map(const struct loader *l, const struct bg_yaml_event *begin, int depth,
		    struct bg_conf *c)
{
	struct bg_strmap seen = BG_STRMAP_INIT;
	struct bg_yaml_event ev;
	int ret = -1;

	memset(c, 0, sizeof(*c));
	c->file = xstrdup(l->name);
	c->line = begin->line;
	c->column = begin->column;
	for (;;) {
		struct bg_conf_entry *e;
		size_t first;

		if (next(l, &ev) < 0)
			goto out;
		if (ev.type == BG_YAML_MAP_END)
			break;
		if (ev.type != BG_YAML_SCALAR) {
			fail_at(l, &ev, "expected a key");
			goto out;
		}
		if (++*l->keys > BG_CONF_MAX_KEYS) {
			fail_at(l, &ev, "more than %d keys in one file", BG_CONF_MAX_KEYS);
			goto out;
		}
		ALLOC_GROW(c->e, c->n + 1, c->alloc);
		e = &c->e[c->n];
		memset(e, 0, sizeof(*e));
		e->key = xstrndup(ev.value, ev.len);
		e->line = ev.line;
		e->column = ev.column;
		/* the map points at the keys each entry owns: they stay where c->e moves */
		if ((first = bg_strmap_put(&seen, e->key, c->n)) != c->n) {
			fail_at(l, &ev, "'%s' is given twice (first at line %zu)", e->key,
				c->e[first].line);
			free(e->key);
			goto out;
		}
		c->n++;
		if (read_value(l, e, depth) < 0)
			goto out;
	}
	ret = 0;
out:
	bg_strmap_release(&seen);
	return ret;
}

static int load_mem(const char *name, const char *text, size_t len, int max_depth,
		    struct bg_conf *c)
{
	size_t keys = 0;
	struct loader l = { bg_yaml_reader_new_mem(text, len), name, max_depth, &keys };
	struct bg_yaml_event ev;
	const char *nul;
	int ret = -1;

	memset(c, 0, sizeof(*c));
	if (!l.r)
		return bg_error("%s: cannot set up the YAML parser", name);
	if ((nul = memchr(text, '\0', len))) {
		unsigned line = 1, column = 1;

		/* where the NUL is, as an editor counts it */
		for (const char *p = text; p < nul; p++, column++)
			if (*p == '\n')
				line++, column = 0;
		bg_yaml_reader_free(l.r);
		return bg_error("%s:%u:%u: binary data, not YAML", name, line, column);
	}
	if (next(&l, &ev) < 0)
		goto out;
	if (ev.type == BG_YAML_END) {
		/* an empty file: every key takes its default */
		c->file = xstrdup(name);
		c->line = c->column = 1;
		ret = 0;
		goto out;
	}
	if (ev.type != BG_YAML_MAP_BEGIN) {
		fail_at(&l, &ev, "expected a mapping of keys to values");
		goto out;
	}
	if (read_map(&l, &ev, 0, c) < 0 || next(&l, &ev) < 0)
		goto out;
	if (ev.type != BG_YAML_END) {
		fail_at(&l, &ev, "one mapping per file");
		goto out;
	}
	ret = 0;
out:
	bg_yaml_reader_free(l.r);
	if (ret < 0) {
		char *msg = xstrdup(bg_error_last());

		bg_conf_release(c);
		bg_error("%s", msg);
		free(msg);
	}
	return ret;
}

int bg_conf_load_mem(const char *name, const char *text, size_t len, struct bg_conf *c)
{
	return load_mem(name, text, len, 0, c);
}

int bg_conf_load_nested_mem(const char *name, const char *text, size_t len, struct bg_conf *c)
{
	return load_mem(name, text, len, BG_CONF_MAX_DEPTH, c);
}

static int load(const char *path, int max_depth, struct bg_conf *c)
{
	size_t len;
	char *text;
	int ret;

	memset(c, 0, sizeof(*c));
	if (!(text = bg_read_file(path, BG_CONF_FILE_MAX, &len)))
		return -1;
	ret = load_mem(path, text, len, max_depth, c);
	free(text);
	return ret;
}

int bg_conf_load(const char *path, struct bg_conf *c)
{
	return load(path, 0, c);
}

int bg_conf_load_nested(const char *path, struct bg_conf *c)
{
	return load(path, BG_CONF_MAX_DEPTH, c);
}

const struct bg_conf_entry *bg_conf_find(const struct bg_conf *c, const char *key)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->e[i].key, key))
			return &c->e[i];
	return NULL;
}

static struct bg_conf_entry *find(struct bg_conf *c, const char *key)
{
	struct bg_conf_entry *e = (struct bg_conf_entry *)bg_conf_find(c, key);

	if (e)
		e->used = true;
	return e;
}

/* A key of the wrong shape, named at the key. */
static int shape_error(const struct bg_conf *c, const struct bg_conf_entry *e, const char *fmt,
		       ...) BG_PRINTF(3, 4);

static int shape_error(const struct bg_conf *c, const struct bg_conf_entry *e, const char *fmt,
		       ...)
{
	va_list ap;

	va_start(ap, fmt);
	verror_at(c->file, e->line, e->column, fmt, ap);
	va_end(ap);
	return -1;
}

int bg_conf_str(struct bg_conf *c, const char *key, const char *def, const char **out)
{
	struct bg_conf_entry *e = find(c, key);

	if (!e) {
		*out = def;
		return 0;
	}
	if (e->shape != BG_CONF_VALUE)
		return shape_error(c, e, "'%s' takes one value, not a %s", key,
				   e->shape == BG_CONF_MAP ? "mapping" : "list");
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
	if (e->shape == BG_CONF_MAP_LIST)
		return shape_error(c, e, "'%s' takes a list of plain values, not of mappings", key);
	if (e->shape != BG_CONF_LIST)
		return shape_error(c, e, "'%s' takes a list: [a, b]", key);
	*out = e->values;
	*n = e->nvalues;
	return 0;
}

int bg_conf_map(struct bg_conf *c, const char *key, struct bg_conf **out)
{
	struct bg_conf_entry *e = find(c, key);

	*out = NULL;
	if (!e)
		return 0;
	if (e->shape != BG_CONF_MAP)
		return shape_error(c, e, "'%s' takes a mapping of keys to values", key);
	*out = e->maps;
	return 0;
}

int bg_conf_maps(struct bg_conf *c, const char *key, struct bg_conf **out, size_t *n)
{
	struct bg_conf_entry *e = find(c, key);

	*out = NULL;
	*n = 0;
	if (!e)
		return 0;
	/* an empty list reads as a list of values: it is as well an empty list of mappings */
	if (e->shape != BG_CONF_MAP_LIST && !(e->shape == BG_CONF_LIST && !e->nvalues))
		return shape_error(c, e, "'%s' takes a list of mappings", key);
	*out = e->maps;
	*n = e->nmaps;
	return 0;
}

int bg_conf_check_unused(const struct bg_conf *c)
{
	for (size_t i = 0; i < c->n; i++) {
		const struct bg_conf_entry *e = &c->e[i];

		if (!e->used)
			return bg_error("%s:%zu:%zu: unknown key '%s'", c->file, e->line, e->column,
					e->key);
		for (size_t k = 0; k < e->nmaps; k++)
			if (bg_conf_check_unused(&e->maps[k]) < 0)
				return -1;
	}
	return 0;
}

int bg_conf_error_at(const struct bg_conf *c, const char *key, size_t item, const char *fmt, ...)
{
	const struct bg_conf_entry *e = bg_conf_find(c, key);
	size_t line = c->line, column = c->column;
	va_list ap;

	if (e) {
		line = e->line;
		column = e->column;
		if (item < e->nvalues) {
			line = e->pos[item][0];
			column = e->pos[item][1];
		}
	}
	va_start(ap, fmt);
	verror_at(c->file, line, column, fmt, ap);
	va_end(ap);
	return -1;
}
