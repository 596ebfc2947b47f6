/* The one file that includes yaml.h: libyaml's event parser behind a small reader. */
#include <yaml.h>

#include "parse/yaml-event.h"
#include "util/error.h"
#include "util/strbuf.h"
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
			ev->quoted = r->event.data.scalar.style != YAML_PLAIN_SCALAR_STYLE;
			return 0;
		case YAML_MAPPING_START_EVENT:
			ev->type = BG_YAML_MAP_BEGIN;
			ev->flow = r->event.data.mapping_start.style == YAML_FLOW_MAPPING_STYLE;
			return 0;
		case YAML_MAPPING_END_EVENT:
			ev->type = BG_YAML_MAP_END;
			return 0;
		case YAML_SEQUENCE_START_EVENT:
			ev->type = BG_YAML_SEQ_BEGIN;
			ev->flow = r->event.data.sequence_start.style == YAML_FLOW_SEQUENCE_STYLE;
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

/* ---- writing ---- */

struct bg_yaml_writer {
	yaml_emitter_t emitter;
	struct bg_strbuf *out;
	int depth;
};

static int write_handler(void *data, unsigned char *buffer, size_t size)
{
	struct bg_yaml_writer *w = data;

	bg_strbuf_add(w->out, buffer, size);
	return 1;
}

static int emit(struct bg_yaml_writer *w, yaml_event_t *e, bool made)
{
	if (!made)
		return bg_error("cannot make a YAML event");
	if (!yaml_emitter_emit(&w->emitter, e))   /* it deletes e, emitted or not */
		return bg_error("cannot write YAML: %s",
				w->emitter.problem ? w->emitter.problem : "emitter error");
	return 0;
}

struct bg_yaml_writer *bg_yaml_writer_new(struct bg_strbuf *out)
{
	struct bg_yaml_writer *w = xcalloc(1, sizeof(*w));
	yaml_event_t e;

	if (!yaml_emitter_initialize(&w->emitter)) {
		free(w);
		return NULL;
	}
	w->out = out;
	yaml_emitter_set_output(&w->emitter, write_handler, w);
	yaml_emitter_set_unicode(&w->emitter, 1);
	yaml_emitter_set_width(&w->emitter, -1);   /* no folding of long values */
	if (emit(w, &e, yaml_stream_start_event_initialize(&e, YAML_UTF8_ENCODING)) < 0 ||
	    emit(w, &e, yaml_document_start_event_initialize(&e, NULL, NULL, NULL, 1)) < 0) {
		bg_yaml_writer_free(w);
		return NULL;
	}
	return w;
}

int bg_yaml_write(struct bg_yaml_writer *w, const struct bg_yaml_event *ev)
{
	yaml_event_t e;

	switch (ev->type) {
	case BG_YAML_SCALAR:
		return emit(w, &e, yaml_scalar_event_initialize(&e, NULL, NULL,
				(yaml_char_t *)ev->value, (int)ev->len, !ev->quoted, 1,
				ev->quoted ? YAML_DOUBLE_QUOTED_SCALAR_STYLE : YAML_ANY_SCALAR_STYLE));
	case BG_YAML_MAP_BEGIN:
		w->depth++;
		return emit(w, &e, yaml_mapping_start_event_initialize(&e, NULL, NULL, 1,
				ev->flow ? YAML_FLOW_MAPPING_STYLE : YAML_BLOCK_MAPPING_STYLE));
	case BG_YAML_SEQ_BEGIN:
		w->depth++;
		return emit(w, &e, yaml_sequence_start_event_initialize(&e, NULL, NULL, 1,
				ev->flow ? YAML_FLOW_SEQUENCE_STYLE : YAML_BLOCK_SEQUENCE_STYLE));
	case BG_YAML_MAP_END:
	case BG_YAML_SEQ_END:
		if (w->depth == 0)
			return bg_error("cannot write YAML: an end without a beginning");
		w->depth--;
		return emit(w, &e, ev->type == BG_YAML_MAP_END ?
			    yaml_mapping_end_event_initialize(&e) :
			    yaml_sequence_end_event_initialize(&e));
	default:
		return bg_error("cannot write YAML: no aliases, and the document ends once");
	}
}

int bg_yaml_writer_finish(struct bg_yaml_writer *w)
{
	yaml_event_t e;

	if (w->depth)
		return bg_error("cannot write YAML: %d collection%s left open", w->depth,
				w->depth == 1 ? "" : "s");
	if (emit(w, &e, yaml_document_end_event_initialize(&e, 1)) < 0 ||
	    emit(w, &e, yaml_stream_end_event_initialize(&e)) < 0)
		return -1;
	if (!yaml_emitter_flush(&w->emitter))
		return bg_error("cannot write YAML: flush failed");
	return 0;
}

void bg_yaml_writer_free(struct bg_yaml_writer *w)
{
	if (!w)
		return;
	yaml_emitter_delete(&w->emitter);
	free(w);
}
