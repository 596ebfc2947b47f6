/*
 * A bump allocator for many small strings with one lifetime (a parsed boot's names and
 * lines): pointers stay valid until bg_arena_reset or bg_arena_release.
 */
#ifndef BG_ARENA_H
#define BG_ARENA_H

#include "util/compat.h"

struct bg_arena_block;

struct bg_arena {
	struct bg_arena_block *head;   /* newest block first */
	size_t used;                   /* bytes used in head */
	size_t total;                  /* bytes handed out since the last reset */
};

#define BG_ARENA_INIT { NULL, 0, 0 }

void *bg_arena_alloc(struct bg_arena *a, size_t size);
/* A NUL-terminated copy of s[0..len). */
char *bg_arena_strndup(struct bg_arena *a, const char *s, size_t len);
/* Frees every block but the first, which is kept for reuse. */
void bg_arena_reset(struct bg_arena *a);
void bg_arena_release(struct bg_arena *a);

#endif
