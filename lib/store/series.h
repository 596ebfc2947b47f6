/*
 * Patches that come by mail: a series as its mails name it, its patches, and what the
 * inbox reader keeps between runs (each patch mail until its series is whole, and where
 * it stopped in each epoch). The results of a series' run are typed rows too (results.h
 * reads them back).
 */
#ifndef BG_STORE_SERIES_H
#define BG_STORE_SERIES_H

#include "util/compat.h"
#include "store/store.h"

/* ---- a series as it arrives ---- */

struct bg_series_new {
	int64_t tree_id;               /* 0: none yet */
	const char *message_id;        /* the row's key */
	unsigned version, total;
	const char *subject;           /* NOT NULL in the store: "" where the mail has none */
	const char *author, *title, *addr, *source;
	const char *base;              /* the base its mails name, or NULL */
	const char *patchset_hash;     /* or NULL */
	int64_t superseded_by;         /* a newer version there already: 0 none */
	const char *error;             /* why it will not run, with superseded_by */
};

/* The series of this message id, 0 when none. */
int bg_store_series_find(struct bg_store *s, const char *message_id, int64_t *id);
/* A new series (queued, or superseded when superseded_by); *id its row. */
int bg_store_series_insert(struct bg_store *s, const struct bg_series_new *n, int64_t *id);
/* One of its mails, idx 1..total (0: the cover letter), kept as it came. */
int bg_store_series_patch_add(struct bg_store *s, int64_t series, unsigned idx,
			      const char *message_id, const char *subject, const char *author,
			      const char *mbox);

struct bg_series_version {
	int64_t id, version;
	bool ended;             /* done or failed: its result stands */
};
/*
 * The series of this title and author not superseded, the newest version first; *v owned
 * by the caller.
 */
int bg_store_series_versions(struct bg_store *s, const char *title, const char *addr,
			     struct bg_series_version **v, size_t *n);
/* old gives way to by: superseded, and its queued job done with why. */
int bg_store_series_supersede(struct bg_store *s, int64_t old, int64_t by, const char *why);

/* ---- a series' run ---- */

/* It runs: where, on what base (NULL when none was found), on which board and mode. */
int bg_store_series_start(struct bg_store *s, int64_t id, int64_t tree_id, const char *base,
			  const char *board, const char *mode);

/* One patch's result (the fields of results.h's struct bg_stored_patch it fills). */
struct bg_series_patch_result {
	const char *commit;            /* the tree after it, when it applied */
	const char *status, *error;
	int64_t comparison_id;         /* 0: not compared */
	const char *verdict, *metric;
	double delta;                  /* NAN without a metric */
	const char *image_sha256;
	int64_t boots;
};
int bg_store_series_patch_result(struct bg_store *s, int64_t series, unsigned idx,
				 const struct bg_series_patch_result *p);

/* How it ended (done, or failed with error; a superseded series stays so). */
struct bg_series_end {
	const char *error;             /* NULL: done */
	const char *base_from, *base_image_sha256;
	int64_t base_boots, boots_per_commit;
	int64_t whole_comparison_id;   /* 0: none */
};
int bg_store_series_end(struct bg_store *s, int64_t id, const struct bg_series_end *e);

/* ---- the inbox reader's mails ---- */

struct bg_inbox_message {
	const char *message_id, *inbox, *in_reply_to, *thread;
	unsigned version, idx, total;
	const char *subject, *author;
	const char *mbox, *sha256;
	unsigned epoch;
	const char *commit;            /* the inbox's commit that carried it */
};
/* Kept unless its Message-ID is there already: *added says which. */
int bg_store_inbox_message_add(struct bg_store *s, const struct bg_inbox_message *m,
			       bool *added);
/*
 * How many mails of this id there are: of this inbox, version and total, or of any when
 * inbox is NULL.
 */
int bg_store_inbox_message_count(struct bg_store *s, const char *message_id, const char *inbox,
				 unsigned version, unsigned total, int64_t *n);
/* The thread the mail of this id hangs from (owned by the caller), NULL when none. */
int bg_store_inbox_thread(struct bg_store *s, const char *message_id, char **thread);

/* The mails of one thread, version and total that are not yet part of a series. */
struct bg_inbox_group {
	const char *inbox, *thread;
	unsigned version, total;
};
/* The mails of the group that hung from another thread now hang from this one. */
int bg_store_inbox_rethread(struct bg_store *s, const struct bg_inbox_group *g,
			    const char *from);
/* How many of its patches (idx 1..) are there, each counted once. */
int bg_store_inbox_group_patches(struct bg_store *s, const struct bg_inbox_group *g,
				 int64_t *n);
/* Its mails in the order they came: message_id, mbox. */
int bg_store_inbox_group_rows(struct bg_store *s, const struct bg_inbox_group *g,
			      bg_store_row_fn fn, void *data);
/* Its mails are now part of this series. */
int bg_store_inbox_group_assign(struct bg_store *s, const struct bg_inbox_group *g,
				int64_t series);

/* The last commit read in an epoch (owned by the caller), NULL before the first. */
int bg_store_inbox_cursor(struct bg_store *s, const char *inbox, unsigned epoch, char **commit);
int bg_store_inbox_cursor_set(struct bg_store *s, const char *inbox, unsigned epoch,
			      const char *commit);

#endif
