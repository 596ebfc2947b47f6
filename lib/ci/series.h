/*
 * A patch series measured patch by patch: each patch applied on the tree before it (git
 * am's commit, kept under refs/bootgate/series/ID/M), the base and every applied patch
 * built and booted (reuse.h: what the store has is not made again), each patch compared
 * with the tree before it and the last with the base, the series as a whole. The verdicts,
 * the series' final state and its one outbox row are written in one transaction: a kill
 * before it loses no build or boot, and a rerun after it changes nothing.
 */
#ifndef BG_SERIES_H
#define BG_SERIES_H

#include "util/compat.h"
#include "util/log.h"
#include "util/json.h"
#include "decide/verdict.h"
#include "parse/mbox.h"
#include "lab/workers.h"
#include "store/store.h"

struct bg_series_opts {
	const char *tree;          /* the repository the builds read */
	const char *tree_name;     /* its row in the store; NULL: the series' tree, else its path's
	                              identity */
	const char *base;          /* used when no patch has a base-commit: line; NULL: the tip */
	const char *board, *lab;   /* a board or an arch; NULL lab: bg_lab_dir() */
	const struct bg_build_config *config;   /* NULL: the board's */
	bool deterministic;
	enum bg_console console;   /* zero: verbose */
	unsigned boots;            /* per commit; 0: 2 deterministic, 5 timing */
	const struct bg_compare_config *compare;   /* NULL: the defaults */
	bg_progress_fn progress;
	void *progress_data;
};

/*
 * The rows of a series found among mails (msgs, as bg_mbox_parse gave them from buf):
 * series (source: "cli", "drop:FILE", "inbox:NAME") and series_patches, the cover letter as
 * idx 0, each with its message as it came. A series whose message id the store has is not
 * added again: 1 with its id; 0 with the new one; -1 on errors.
 */
int bg_series_add(struct bg_store *s, const struct bg_series_msgs *sm,
		  const struct bg_msg *msgs, size_t nmsgs, const char *buf, size_t len,
		  const char *source, int64_t tree_id, int64_t *id);

/*
 * Runs series id (or continues it). 0 when it ended, done or failed (a patch that does not
 * apply, a base that is not in the tree or does not build: series.error says why, the
 * outbox has its row); 1 when it had already ended or was superseded (nothing done); -1
 * with why when it could not go on (the machine failed): running it again continues.
 */
int bg_series_run(struct bg_store *s, const struct bg_series_opts *o, int64_t id);


#endif
