/*
 * Configuration files: YAML mappings of keys to scalars or lists of scalars (board files),
 * or, read as nested, also to mappings and lists of mappings (the service's file). Every
 * key must be known to its reader; errors say "file:line:col: what".
 */
#ifndef BG_CONF_H
#define BG_CONF_H

#include "util/compat.h"

/* The largest configuration file the readers take, in bytes. */
#define BG_CONF_FILE_MAX ((size_t)1 << 20)

/* How deep mappings may nest in a nested file: the root is 0. */
#define BG_CONF_MAX_DEPTH 8

/*
 * The most keys one file holds, in all its mappings: the service's own file has a few
 * hundred, and a file of a megabyte of keys is refused at once, not read to its end.
 */
#define BG_CONF_MAX_KEYS 10000

enum bg_conf_shape {
	BG_CONF_VALUE,        /* one value */
	BG_CONF_LIST,         /* a list of values; also an empty list */
	BG_CONF_MAP,          /* a mapping (nested files) */
	BG_CONF_MAP_LIST,     /* a list of mappings (nested files) */
};

struct bg_conf_entry {
	char *key;
	enum bg_conf_shape shape;
	char **values;        /* one for a value; a list's items */
	size_t (*pos)[2];     /* line and column of each value */
	size_t nvalues;
	struct bg_conf *maps; /* one for a mapping; a list's items */
	size_t nmaps;
	size_t line, column;  /* of the key */
	bool used;
};

struct bg_conf {
	char *file;
	struct bg_conf_entry *e;
	size_t n, alloc;
	size_t line, column;  /* of the mapping: where a missing key is reported */
};

/* 0, or -1 with bg_error_last() = "file:line:col: what". */
int bg_conf_load(const char *path, struct bg_conf *c);
int bg_conf_load_mem(const char *name, const char *text, size_t len, struct bg_conf *c);
/* The same, taking mappings and lists of mappings as values, BG_CONF_MAX_DEPTH deep. */
int bg_conf_load_nested(const char *path, struct bg_conf *c);
int bg_conf_load_nested_mem(const char *name, const char *text, size_t len, struct bg_conf *c);
void bg_conf_release(struct bg_conf *c);

/*
 * Getters mark the key used. A missing key gives def (or -1 from the _req forms); a key
 * of the wrong shape or a number that is not one is an error with its position.
 */
int bg_conf_str(struct bg_conf *c, const char *key, const char *def, const char **out);
int bg_conf_str_req(struct bg_conf *c, const char *key, const char **out);
int bg_conf_long(struct bg_conf *c, const char *key, long def, long min, long max, long *out);
int bg_conf_list(struct bg_conf *c, const char *key, char ***out, size_t *n);
/* A mapping (*out NULL when absent); borrowed from c, with getters of its own. */
int bg_conf_map(struct bg_conf *c, const char *key, struct bg_conf **out);
/* A list of mappings (none when absent); borrowed from c. */
int bg_conf_maps(struct bg_conf *c, const char *key, struct bg_conf **out, size_t *n);
/* The entry of key, for its shape and position, or NULL; it is not marked used. */
const struct bg_conf_entry *bg_conf_find(const struct bg_conf *c, const char *key);
/*
 * -1 naming the first key no getter asked for, in c and in every mapping of a key that
 * was asked for: a typo must not pass silently.
 */
int bg_conf_check_unused(const struct bg_conf *c);
/*
 * Sets the error "file:line:col: MESSAGE" at a key's value (its item-th for a list), or
 * at the mapping when the key is absent, and returns -1: for the readers' own checks.
 */
int bg_conf_error_at(const struct bg_conf *c, const char *key, size_t item, const char *fmt, ...)
	BG_PRINTF(4, 5);

#endif
