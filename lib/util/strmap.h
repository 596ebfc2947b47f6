/*
 * A hash table from strings to indexes (of the caller's own array): finding one of
 * 50 000 metric names must not scan 50 000 names.
 */
#ifndef BG_STRMAP_H
#define BG_STRMAP_H

#include "util/compat.h"

struct bg_strmap_slot;

struct bg_strmap {
	struct bg_strmap_slot *slots;
	size_t size, used;
};

#define BG_STRMAP_INIT { NULL, 0, 0 }

/* The index stored for key, or -1. */
ssize_t bg_strmap_get(const struct bg_strmap *m, const char *key);
/*
 * Stores key -> index; key is borrowed and must live as long as the map (point it at
 * the string the indexed element owns). A key already there keeps its first index,
 * which is returned; else index is.
 */
size_t bg_strmap_put(struct bg_strmap *m, const char *key, size_t index);
void bg_strmap_release(struct bg_strmap *m);

#endif
