/*
 * A growable string buffer, always NUL-terminated, with an optional size cap for
 * untrusted input (git's strbuf, curl's dynbuf).
 */
#ifndef BG_STRBUF_H
#define BG_STRBUF_H

#include "util/compat.h"

struct bg_strbuf {
	char *buf;        /* always NUL-terminated, never NULL */
	size_t len;
	size_t alloc;
	size_t max;       /* 0: no cap; else appends past max bytes are refused */
	bool truncated;   /* an append was cut at max */
};

extern char bg_strbuf_empty[];
#define BG_STRBUF_INIT { bg_strbuf_empty, 0, 0, 0, false }

/* No allocation; max 0 means unlimited. */
void bg_strbuf_init(struct bg_strbuf *sb, size_t max);
void bg_strbuf_release(struct bg_strbuf *sb);
/* Returns the buffer, owned by the caller, and leaves sb empty. */
char *bg_strbuf_detach(struct bg_strbuf *sb, size_t *len);
void bg_strbuf_reset(struct bg_strbuf *sb);
void bg_strbuf_grow(struct bg_strbuf *sb, size_t extra);

/* The add functions return 0, or -1 when the cap cut the data (what fits is kept). */
int bg_strbuf_add(struct bg_strbuf *sb, const void *data, size_t len);
int bg_strbuf_addstr(struct bg_strbuf *sb, const char *s);
int bg_strbuf_addch(struct bg_strbuf *sb, int c);
int bg_strbuf_addf(struct bg_strbuf *sb, const char *fmt, ...) BG_PRINTF(2, 3);
int bg_strbuf_vaddf(struct bg_strbuf *sb, const char *fmt, va_list ap);
void bg_strbuf_setlen(struct bg_strbuf *sb, size_t len);

#endif
