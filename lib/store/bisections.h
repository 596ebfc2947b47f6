/*
 * A bisection's own rows while it runs: its first-parent chain, the metric it chose, and
 * what its engine was told, in order, so that a bisection run again replays them and
 * goes on. What it found is written when it ends (results.h).
 */
#ifndef BG_STORE_BISECTIONS_H
#define BG_STORE_BISECTIONS_H

#include "util/compat.h"
#include "store/store.h"

/* What names a bisection: the same key finds the same one again. */
struct bg_bisection_key {
	int64_t tree_id;
	const char *good, *bad, *board, *mode, *console_mode;
	const char *asked_metric;     /* NULL: the endpoints choose */
};

/* The latest bisection of that key that did not fail: *id, 0 when none. */
int bg_store_bisection_find(struct bg_store *s, const struct bg_bisection_key *k, int64_t *id);
/* A new one, with its chain of commits (good first, bad last), in one transaction. */
int bg_store_bisection_make(struct bg_store *s, const struct bg_bisection_key *k,
			    char *const *chain, size_t n, int64_t *id);
/* Its chain: idx, sha, in order. */
int bg_store_bisection_chain(struct bg_store *s, int64_t id, bg_store_row_fn fn, void *data);
/* Its state and metric (owned by the caller), NULL when not known. */
int bg_store_bisection_state(struct bg_store *s, int64_t id, char **state);
int bg_store_bisection_metric(struct bg_store *s, int64_t id, char **metric);
int bg_store_bisection_set_metric(struct bg_store *s, int64_t id, const char *metric);
/* It ends, failed, with why. */
int bg_store_bisection_fail(struct bg_store *s, int64_t id, const char *error);
/* inner bisects the branch a merge of outer brought. */
int bg_store_bisection_set_outer(struct bg_store *s, int64_t inner, int64_t outer);

/* What its engine was told: idx, kind, boot_id, value, seq, in order. */
int bg_store_bisection_report_rows(struct bg_store *s, int64_t id, bg_store_row_fn fn,
				   void *data);
/* One more report (build and boot 0: none; value NAN: none). */
int bg_store_bisection_report_add(struct bg_store *s, int64_t id, int64_t seq, int idx,
				  const char *kind, int64_t build, int64_t boot, double value);
/*
 * A stored boot of an image (on the board, in the mode and console mode) that bisection
 * id has not yet used for commit idx: *boot, 0 when none.
 */
int bg_store_bisection_unused_boot(struct bg_store *s, int64_t id, int idx,
				   const char *image_sha256, const char *board, const char *mode,
				   const char *console_mode, int64_t *boot);

#endif
