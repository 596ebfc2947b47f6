/*
 * The service's own rows: the trees it watches and the jobs it runs, as the daemon and
 * the CLI that talks to it read and change them. A job's life is a state table (queued,
 * running, done, failed) kept here, so that a restart resumes it.
 */
#ifndef BG_STORE_SERVICE_H
#define BG_STORE_SERVICE_H

#include "util/compat.h"
#include "store/store.h"

/* ---- trees ---- */

/* The tree of this name, made or its path, URL and branch updated; *id its row. */
int bg_store_tree_configure(struct bg_store *s, const char *name, const char *path,
			    const char *url, const char *branch, int64_t *id);
/* The tree of this name made if it is not there (nothing changed if it is); *id its row. */
int bg_store_tree_ensure(struct bg_store *s, const char *name, const char *path,
			 const char *url, const char *branch, int64_t *id);
/* The id of the tree of this name, 0 when none. */
int bg_store_tree_id(struct bg_store *s, const char *name, int64_t *id);
/* The one tree with a URL (what the daemon watches) when there is exactly one, else 0. */
int bg_store_tree_only(struct bg_store *s, int64_t *id);
/* Its path and last tip (owned by the caller; NULL when none). */
int bg_store_tree_path(struct bg_store *s, int64_t id, char **path);
int bg_store_tree_last_tip(struct bg_store *s, int64_t id, char **tip);
/*
 * A tree's URL (NULL when it has none) and branch ("" when it has none), owned by the
 * caller; NULL when there is no such tree.
 */
int bg_store_tree_url(struct bg_store *s, int64_t id, char **url);
int bg_store_tree_branch(struct bg_store *s, int64_t id, char **branch);
/* The commit new tips are gated against (owned by the caller), NULL before the first. */
int bg_store_tree_last_good(struct bg_store *s, int64_t id, char **sha);
int bg_store_tree_set_last_good(struct bg_store *s, int64_t id, const char *sha);
/*
 * The commit board's next gate of the tree is measured against (owned by the caller):
 * the board's own (*own), else the tree's (a board new to the tree starts there); NULL
 * before the first.
 */
int bg_store_board_last_good(struct bg_store *s, int64_t tree, const char *board, char **sha,
			     bool *own);
/*
 * The metric the last gate of rev on the tree's board called a regression (owned by the
 * caller; NULL when none did): the one its bisection bisects.
 */
int bg_store_gate_metric(struct bg_store *s, int64_t tree, const char *board, const char *rev,
			 char **metric);
/* The board's last good commit, and the tree's (the last any board passed). */
int bg_store_board_set_last_good(struct bg_store *s, int64_t tree, const char *board,
				 const char *sha);
/* A fetch that worked: when, and no failure. */
int bg_store_tree_fetched(struct bg_store *s, int64_t id);
/* A fetch that failed: how many in a row, and why. */
int bg_store_tree_fetch_failed(struct bg_store *s, int64_t id, unsigned failures,
			       const char *error);
/*
 * A new tip seen by a fetch, in one transaction: the tree's last tip, and a gate of it
 * queued on each of the nboards boards; a gate a fetch queued on a board that was never
 * tried takes the newer tip instead (one a person asked for stays theirs). One waiting to
 * try again ends ("done", superseded): the new commit gets a job of its own, none of the
 * old one's tries or backoff.
 */
int bg_store_tree_new_tip(struct bg_store *s, int64_t id, const char *tip,
			  const char *const *boards, size_t nboards);

/* ---- jobs ---- */

struct bg_job_row {
	int64_t id, tree_id, series_id;   /* series_id 0: none */
	char kind[16];                    /* gate, bisect, series */
	char rev[41], base[41];           /* commit ids, "" when none */
	char board[65];                   /* "" when the job names none */
};

/*
 * The next job to run: queued, due (not_before at most now, or further than longest
 * ahead: set by a clock that has since stepped back), of a (tree, board) with no job
 * running (a job without a board stands for all of its tree's), and one fit says there
 * is room for (fit NULL: any); bisections and series before gates, the oldest first. 1
 * with it, 0 when none is.
 */
int bg_store_job_next(struct bg_store *s, double now, double longest,
		      bool (*fit)(const struct bg_job_row *j, void *data), void *data,
		      struct bg_job_row *out);
/* The job starts: running, one more attempt; then its process. */
int bg_store_job_running(struct bg_store *s, int64_t id);
int bg_store_job_pid(struct bg_store *s, int64_t id, int64_t pid);
int bg_store_job_attempts(struct bg_store *s, int64_t id, int64_t *attempts);
/* A queued run of a series that came by mail, on base (NULL: found when it runs). */
int bg_store_job_series(struct bg_store *s, int64_t tree, const char *base, int64_t series);
/* Whether the job runs a series that has ended (done, failed or superseded). */
int bg_store_job_series_ended(struct bg_store *s, int64_t id, bool *ended);
/* Back in the queue, due at not_before; giving back its attempt when not its fault. */
int bg_store_job_requeue(struct bg_store *s, int64_t id, double not_before, bool give_back);
/* Done (error: why it did nothing, or NULL). */
int bg_store_job_done(struct bg_store *s, int64_t id, const char *error);
/* Failed for good, and the bisection it began with it (a rerun starts afresh). */
int bg_store_job_failed(struct bg_store *s, int64_t id, const char *error);
/* Every job left running by a daemon that was killed, queued again: how many. */
int bg_store_jobs_interrupted(struct bg_store *s, int64_t *n);
/* The bisection of a regression a gate found on board, bad..good, queued on that board. */
int bg_store_job_bisect(struct bg_store *s, int64_t tree, const char *bad, const char *good,
			const char *board);
/*
 * A queued job that names no board (a gate asked for by hand, a row from before boards)
 * becomes one queued job per board of its tree, each a copy of it on that board: the
 * first keeps its id, the others are new. 0, or -1 with why.
 */
int bg_store_job_per_board(struct bg_store *s, int64_t id, const char *const *boards,
			   size_t nboards);
/*
 * A gate of rev queued by hand (origin rerun); *id the new job: 0, or the one queued
 * already: 1.
 */
int bg_store_job_gate(struct bg_store *s, int64_t tree, const char *rev, int64_t *id);
/*
 * Job id queued again by hand, as a new job; *id the new one: 0, job itself when it is
 * still queued (nothing is added): 1, 0 when there was no such job (*id 0).
 */
int bg_store_job_rerun(struct bg_store *s, int64_t job, int64_t *id);
/* A series' state (owned by the caller), NULL when there is no such series. */
int bg_store_series_state(struct bg_store *s, int64_t id, char **state);

#endif
