/* The one file that includes yaml.h: libyaml's event parser behind a small reader. */
#include <yaml.h>

#include "parse/yaml-event.h"
#include "util/error.h"
#include "util/xmalloc.h"

struct bg_yaml_reader {
	yaml_parser_t parser;
	yaml_event_t event;
	bool have_event;
	bool done;
	ssize_t (*read_fn)(void *, char *, size_t);
	void *data;
};

static int read_handler(void *data, unsigned char *buffer, size_t size, size_t *size_read)
{
	struct bg_yaml_reader *r = data;
	ssize_t n = r->read_fn(r->data, (char *)buffer, size);

	if (n < 0)
		return 0;
	*size_read = (size_t)n;
	return 1;
}

struct bg_yaml_reader *bg_yaml_reader_new(ssize_t (*read_fn)(void *, char *, size_t), void *data)
{
	struct bg_yaml_reader *r = xcalloc(1, sizeof(*r));

	if (!yaml_parser_initialize(&r->parser)) {
		free(r);
		return NULL;
	}
	r->read_fn = read_fn;
	r->data = data;
	yaml_parser_set_input(&r->parser, read_handler, r);
	return r;
}

struct bg_yaml_reader *bg_yaml_reader_new_mem(const char *s, size_t len)
{
	struct bg_yaml_reader *r = xcalloc(1, sizeof(*r));

	if (!yaml_parser_initialize(&r->parser)) {
		free(r);
		return NULL;
	}
	yaml_parser_set_input_string(&r->parser, (const unsigned char *)s, len);
	return r;
}

void bg_yaml_reader_free(struct bg_yaml_reader *r)
{
	if (!r)
		return;
	if (r->have_event)
		yaml_event_delete(&r->event);
	yaml_parser_delete(&r->parser);
	free(r);
}

int bg_yaml_next(struct bg_yaml_reader *r, struct bg_yaml_event *ev)
{
	for (;;) {
		if (r->have_event) {
			yaml_event_delete(&r->event);
			r->have_event = false;
		}
		memset(ev, 0, sizeof(*ev));
		if (r->done) {
			ev->type = BG_YAML_END;
			return 0;
		}
		if (!yaml_parser_parse(&r->parser, &r->event)) {
			const yaml_mark_t *m = r->parser.context ? &r->parser.context_mark
								 : &r->parser.problem_mark;

			if (r->parser.problem_mark.line || r->parser.problem_mark.column)
				m = &r->parser.problem_mark;
			r->done = true;
			return bg_error("%zu:%zu: %s%s%s", m->line + 1, m->column + 1,
					r->parser.problem ? r->parser.problem : "malformed YAML",
					r->parser.context ? " " : "",
					r->parser.context ? r->parser.context : "");
		}
		r->have_event = true;
		ev->line = r->event.start_mark.line + 1;
		ev->column = r->event.start_mark.column + 1;
		switch (r->event.type) {
		case YAML_STREAM_END_EVENT:
			r->done = true;
			ev->type = BG_YAML_END;
			return 0;
		case YAML_SCALAR_EVENT:
			ev->type = BG_YAML_SCALAR;
			ev->value = (const char *)r->event.data.scalar.value;
			ev->len = r->event.data.scalar.length;
			return 0;
		case YAML_MAPPING_START_EVENT:
			ev->type = BG_YAML_MAP_BEGIN;
			return 0;
		case YAML_MAPPING_END_EVENT:
			ev->type = BG_YAML_MAP_END;
			return 0;
		case YAML_SEQUENCE_START_EVENT:
			ev->type = BG_YAML_SEQ_BEGIN;
			return 0;
		case YAML_SEQUENCE_END_EVENT:
			ev->type = BG_YAML_SEQ_END;
			return 0;
		case YAML_ALIAS_EVENT:
			ev->type = BG_YAML_ALIAS;
			return 0;
		default:
			continue;   /* stream/document starts and ends say nothing */
		}
	}
}

int bg_yaml_skip(struct bg_yaml_reader *r)
{
	struct bg_yaml_event ev;
	int depth = 1;

	while (depth > 0) {
		if (bg_yaml_next(r, &ev) < 0)
			return -1;
		switch (ev.type) {
		case BG_YAML_MAP_BEGIN:
		case BG_YAML_SEQ_BEGIN:
			depth++;
			break;
		case BG_YAML_MAP_END:
		case BG_YAML_SEQ_END:
			depth--;
			break;
		case BG_YAML_END:
			return bg_error("%zu:%zu: unexpected end of YAML", ev.line, ev.column);
		default:
			break;
		}
	}
	return 0;
}
