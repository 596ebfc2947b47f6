/*
 * A bisection of real kernels: the engine of decide/bisect.h driving the workers, every
 * build, boot and report kept in the store. Nothing of the engine is saved: a bisection
 * run again (after a kill) replays what the store says it was told, in order, and goes
 * on from there, building no commit twice and counting no boot twice.
 */
#ifndef BG_BISECTION_H
#define BG_BISECTION_H

#include "util/compat.h"
#include "util/log.h"
#include "util/json.h"
#include "decide/verdict.h"
#include "lab/workers.h"
#include "store/store.h"

/* The longest first-parent chain taken: far past any tree's merge window. */
#define BG_BISECTION_MAX_CHAIN 100000

struct bg_bisection_opts {
	const char *tree;         /* the repository */
	const char *tree_name;    /* its name in the store; NULL: its path's identity */
	const char *good, *bad;
	const char *board;        /* a board, or an arch for qemu-ARCH */
	const char *lab;          /* NULL: bg_lab_dir() */
	const struct bg_build_config *config;   /* NULL: the board's */
	bool deterministic;
	enum bg_console console;  /* zero: verbose */
	const char *metric;       /* NULL: the endpoints' largest standardised regression */
	unsigned parallel;        /* probes per round */
	const struct bg_compare_config *compare;   /* NULL: the defaults */
	bool no_confirm;          /* skip the timing confirmation and the revert */
	bool inner;               /* inside the branch a merge brought: reported by its outer */
	bg_progress_fn progress;
	void *progress_data;
};

/*
 * Runs (or continues) the bisection of good..bad; *id is its row. 0 when it ended, with
 * a culprit or not (its result says which: outcome "found", or "unconfirmed" when the
 * bad tip with the culprit reverted was measured and took nothing back, or none); -1
 * with why when it could not go on (the machine failed, an input is wrong): running it
 * again continues it.
 */
int bg_bisection_run(struct bg_store *s, const struct bg_bisection_opts *o, int64_t *id);

#endif
