/*
 * The store: one SQLite file in WAL mode that the daemon, the CLI and the bisections
 * share. Its migrations (schemas/NNN-*.sql) are applied in order at open, each in a
 * transaction. This is the one file of lib/ that includes sqlite3.h. The other files of
 * lib/store/ write the SQL, bind values through a small type string and read rows through
 * a callback; no SQL is written outside lib/store/: the rest of bootgate calls their
 * functions, which fill named structs (results.h) or hand rows to a callback whose
 * columns they name.
 */
#ifndef BG_STORE_H
#define BG_STORE_H

#include "util/compat.h"

struct bg_store;
struct bg_store_row;

/*
 * Opens (creating it and its migrations when needed) the store at path. -1 with why:
 * not a SQLite file, a schema newer than this program, a migration that failed, no
 * directory to make it in (a mistyped path: directories are never made here).
 */
int bg_store_open(const char *path, struct bg_store **out);
/*
 * For readers (status, show, log): an existing store opened read-only, never made nor
 * migrated, so that any user who can read it can look. -1 when there is none, or its
 * schema is not this program's.
 */
int bg_store_open_ro(const char *path, struct bg_store **out);
void bg_store_close(struct bg_store *s);
/* The schema version: the number of migrations applied. */
int bg_store_version(struct bg_store *s);
/* $BOOTGATE_STATE/bootgate.db, else /var/lib/bootgate/bootgate.db; owned by the caller. */
char *bg_store_default_path(void);

/* BEGIN IMMEDIATE (waits for other writers), COMMIT, ROLLBACK. */
int bg_store_begin(struct bg_store *s);
/*
 * BEGIN (deferred): one snapshot for what follows, taken at the first read, and no
 * writer waits for it (the export, which may take a while, on a store the daemon writes).
 */
int bg_store_begin_read(struct bg_store *s);
int bg_store_commit(struct bg_store *s);
void bg_store_rollback(struct bg_store *s);

/*
 * Binds: one character per '?' of sql, then the values: 'i' int64_t, 'd' double,
 * 's' const char * (NULL binds NULL), 'n' nothing (NULL). Statements are prepared once
 * per store. exec runs sql to the end; query calls fn for each row (a non-zero return
 * stops and is returned). -1 with why on an SQL error.
 */
int bg_store_exec(struct bg_store *s, const char *sql, const char *types, ...);
typedef int (*bg_store_row_fn)(const struct bg_store_row *row, void *data);
int bg_store_query(struct bg_store *s, bg_store_row_fn fn, void *data, const char *sql,
		   const char *types, ...);
/* The first column of the first row as a number; def when there is no row or it is NULL. */
int bg_store_int(struct bg_store *s, int64_t def, int64_t *out, const char *sql,
		 const char *types, ...);
int bg_store_double(struct bg_store *s, double def, double *out, const char *sql,
		    const char *types, ...);
/* The same as a string, owned by the caller; *out NULL when no row or NULL. */
int bg_store_text(struct bg_store *s, char **out, const char *sql, const char *types, ...);
int64_t bg_store_last_id(struct bg_store *s);
/* Rows the last exec changed. */
int64_t bg_store_changes(struct bg_store *s);

int bg_row_columns(const struct bg_store_row *r);
const char *bg_row_name(const struct bg_store_row *r, int col);
/* Whether the column holds a number (integer or real), not text or NULL. */
bool bg_row_number(const struct bg_store_row *r, int col);
bool bg_row_null(const struct bg_store_row *r, int col);
int64_t bg_row_int(const struct bg_store_row *r, int col);
double bg_row_double(const struct bg_store_row *r, int col);
/* Borrowed for the callback; "" for NULL. */
const char *bg_row_text(const struct bg_store_row *r, int col);

/* The wall clock as the store keeps it: Unix seconds. */
double bg_store_now(void);

#endif
