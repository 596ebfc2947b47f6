/*
 * A streaming JSON writer: results are written as they are produced, in constant memory,
 * always valid UTF-8 (invalid bytes become U+FFFD). Reading JSON is left to jansson.
 */
#ifndef BG_JSON_H
#define BG_JSON_H

#include "util/compat.h"
#include "util/strbuf.h"

#define BG_JSON_MAX_DEPTH 32

struct bg_json {
	struct bg_strbuf out;
	int fd;                 /* flushed there when the buffer fills; -1: keep in out */
	int depth;
	int pretty_depth;       /* containers up to this depth put members on their own lines */
	bool first[BG_JSON_MAX_DEPTH];
	bool after_key;
	int err;                /* errno of a failed write, or 0 */
};

/* fd -1 keeps the document in j->out. pretty_depth 0 writes one line. */
void bg_json_init(struct bg_json *j, int fd, int pretty_depth);
/* Flushes and frees; returns -1 if any write failed (bg_error_last says why). */
int bg_json_finish(struct bg_json *j);
int bg_json_flush(struct bg_json *j);

void bg_json_object_begin(struct bg_json *j);
void bg_json_object_end(struct bg_json *j);
void bg_json_array_begin(struct bg_json *j);
void bg_json_array_end(struct bg_json *j);
void bg_json_key(struct bg_json *j, const char *key);
void bg_json_str(struct bg_json *j, const char *s);          /* NULL writes null */
void bg_json_strn(struct bg_json *j, const char *s, size_t len);
void bg_json_int(struct bg_json *j, int64_t v);
void bg_json_double(struct bg_json *j, double v);             /* non-finite writes null */
void bg_json_bool(struct bg_json *j, bool v);
void bg_json_null(struct bg_json *j);

/*
 * For writers of their own hot objects: raw_begin writes what must precede the next value
 * and reserves room bytes, the caller appends valid JSON to j->out, then calls raw_end.
 */
void bg_json_raw_begin(struct bg_json *j, size_t room);
void bg_json_raw_end(struct bg_json *j);

/*
 * Appends s[0..len) to sb as the body of a JSON string (no quotes): C0 and C1 controls,
 * DEL and the bidirectional formatting characters as \uXXXX (nothing a terminal acts on
 * stays raw), each byte that is not valid UTF-8 as U+FFFD.
 */
void bg_json_escape(struct bg_strbuf *sb, const char *s, size_t len);
/* Appends the decimal form of v; faster than printf in hot loops. */
void bg_strbuf_addint(struct bg_strbuf *sb, int64_t v);

#endif
