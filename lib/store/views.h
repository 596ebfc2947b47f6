/*
 * What the CLI and the site list from the store for people to read: status sections,
 * the event log, a commit's builds and boots, a bisection's reports, the site's index
 * and trends. Each hands rows to a callback (store.h) whose columns are the ones named
 * here, in that order: displays of rows, not results (those are typed: results.h).
 */
#ifndef BG_STORE_VIEWS_H
#define BG_STORE_VIEWS_H

#include "util/compat.h"
#include "store/store.h"

/* ---- bootgate status and log: named columns, shown as they are ---- */

enum bg_status_section {
	BG_STATUS_TREES,        /* name, branch, tip, last_good, fetched_at, fetch_failures,
				   fetch_error */
	BG_STATUS_BOARDS,       /* tree, board, last_good: each board a tree was gated on */
	BG_STATUS_JOBS,         /* id, kind, tree, board, rev, base, state, attempts, pid,
				   not_before, started: the queued and running ones */
	BG_STATUS_VERDICTS,     /* id, cand, base, board, mode, verdict, metric, delta_us,
				   created: the last 10 gates and series */
	BG_STATUS_BISECTIONS,   /* id, tree, board, state, metric, outcome, culprit,
				   confidence, created, finished: the last 10 */
	BG_STATUS_BOOTS,        /* id, commit, board, mode, outcome, wall_s, job_url, created:
				   the last 10 */
};
#define BG_STATUS_SECTIONS 6
extern const char *const bg_status_section_names[BG_STATUS_SECTIONS];
int bg_store_status_rows(struct bg_store *s, enum bg_status_section section,
			 bg_store_row_fn fn, void *data);
/* The last lines events (of tree, or of all when NULL), oldest first: id, at, level, tree,
 * job, message. */
int bg_store_event_rows(struct bg_store *s, const char *tree, int64_t lines, bg_store_row_fn fn,
			void *data);

/* ---- boards ---- */

struct bg_strbuf;
/*
 * What commit's gates of the tree said on its boards other than board, "BOARD VERDICT"
 * joined by ", " into out (nothing added when there is none), each board's newest: its
 * gate's verdict (pass, regression, unknown), unbuildable when it did not build there,
 * infra when its build failed for the machine's reasons or the lab failed every boot of
 * its image there.
 * One text for the mail, show and the site alike.
 */
int bg_store_other_boards(struct bg_store *s, int64_t tree, const char *commit,
			  const char *board, struct bg_strbuf *out);

/* ---- commits ---- */

/* A commit's subject and author as the store noted them (owned by the caller), or NULL. */
int bg_store_commit_subject(struct bg_store *s, const char *sha, char **subject);
int bg_store_commit_author(struct bg_store *s, const char *sha, char **author);
/*
 * The commits built whose id starts with prefix (hex: LIKE is safe with it): how many,
 * and one of them (owned by the caller).
 */
int bg_store_commit_find(struct bg_store *s, const char *prefix, int64_t *n, char **sha);
/* A commit's builds: id, board, status, reused, seconds, image (or log). */
int bg_store_commit_builds(struct bg_store *s, const char *sha, bg_store_row_fn fn, void *data);
/* The boots of a commit's images, per image and mode: image, mode, complete, total. */
int bg_store_commit_boots(struct bg_store *s, const char *sha, bg_store_row_fn fn, void *data);
/* The bisections that measured or named it: id, outcome, "the culprit" or "". */
int bg_store_commit_bisections(struct bg_store *s, const char *sha, bg_store_row_fn fn,
			       void *data);

/* ---- bisections ---- */

/* What its engine was told, in order: seq, commit, kind, value (µs or NULL). */
int bg_store_bisection_reports(struct bg_store *s, int64_t id, bg_store_row_fn fn, void *data);
/* The boots it was told of, in order: commit, board, outcome, wall_s, job_url. */
int bg_store_bisection_boots(struct bg_store *s, int64_t id, bg_store_row_fn fn, void *data);

/* ---- the site ---- */

/* Each tree: name, branch, last_good, last_tip, gated, regressions. */
int bg_store_index_trees(struct bg_store *s, bg_store_row_fn fn, void *data);
/* The newest gates and series comparisons: id, tree, cand, subject, verdict, metric,
 * delta, created. */
int bg_store_index_commits(struct bg_store *s, int64_t limit, bg_store_row_fn fn, void *data);
/* The newest bisections: id, tree, metric, state (or "unconfirmed"), culprit, subject,
 * confidence. */
int bg_store_index_bisections(struct bg_store *s, int64_t limit, bg_store_row_fn fn,
			      void *data);
/* The newest series: id, tree, subject, version, total, state. */
int bg_store_index_series(struct bg_store *s, int64_t limit, bg_store_row_fn fn, void *data);
/* Every tree: id, name. */
int bg_store_tree_rows(struct bg_store *s, bg_store_row_fn fn, void *data);
/* A tree's commits in the order they were gated: sha, board, mode, comparison, subject. */
int bg_store_trend_commits(struct bg_store *s, int64_t tree, bg_store_row_fn fn, void *data);
/* boot.init and every initcall of a commit's complete boots: metric, value. */
int bg_store_trend_samples(struct bg_store *s, const char *sha, const char *board,
			   const char *mode, bg_store_row_fn fn, void *data);

#endif
