/*
 * A streaming YAML event reader (wraps libyaml): constant memory whatever the input
 * size, errors translated to "line:col: what".
 */
#ifndef BG_YAML_EVENT_H
#define BG_YAML_EVENT_H

#include "util/compat.h"

enum bg_yaml_type {
	BG_YAML_END,          /* the stream is over */
	BG_YAML_SCALAR,
	BG_YAML_MAP_BEGIN,
	BG_YAML_MAP_END,
	BG_YAML_SEQ_BEGIN,
	BG_YAML_SEQ_END,
	BG_YAML_ALIAS,
};

struct bg_yaml_event {
	enum bg_yaml_type type;
	const char *value;    /* scalars: borrowed until the next bg_yaml_next */
	size_t len;
	size_t line, column;  /* 1-based position of the event's start */
	bool quoted;          /* scalars: written in quotes or as a block */
	bool flow;            /* collections: written in flow style, {a: 1} or [1, 2] */
};

struct bg_yaml_reader;

/* read_fn returns the bytes read, 0 at the end, -1 on error (errno set). */
struct bg_yaml_reader *bg_yaml_reader_new(ssize_t (*read_fn)(void *data, char *buf, size_t size),
					  void *data);
/* The same over s[0..len), which is borrowed and must outlive the reader. */
struct bg_yaml_reader *bg_yaml_reader_new_mem(const char *s, size_t len);
void bg_yaml_reader_free(struct bg_yaml_reader *r);
/* 0 and the next event, or -1 with bg_error_last() = "line:col: problem". */
int bg_yaml_next(struct bg_yaml_reader *r, struct bg_yaml_event *ev);
/* Skips the rest of the collection whose BEGIN event was just read. */
int bg_yaml_skip(struct bg_yaml_reader *r);

/*
 * A YAML writer (libyaml's emitter) into a string buffer: one document, block style unless
 * an event asks for flow. Every scalar is written as libyaml judges safe, so that no value
 * can change the document's shape; a quoted one stays quoted.
 */
struct bg_yaml_writer;
struct bg_strbuf;

struct bg_yaml_writer *bg_yaml_writer_new(struct bg_strbuf *out);
/* Writes one event (BG_YAML_ALIAS is refused); -1 with why. */
int bg_yaml_write(struct bg_yaml_writer *w, const struct bg_yaml_event *ev);
/* Ends the document (the collections must be closed); -1 with why. */
int bg_yaml_writer_finish(struct bg_yaml_writer *w);
void bg_yaml_writer_free(struct bg_yaml_writer *w);

#endif
