/*
 * Boots on a LAVA board: each boot is one LAVA job, as many in flight as the board's
 * limit, followed until it ends, its log streamed to a file as it grows. The outcome is
 * read from the console, not from LAVA's verdict alone: the marker is complete, a panic is
 * a panic, a kernel that spoke but never reached the marker hung, and a job in which no
 * kernel spoke (a download that failed, a lab error, a cancelled queue) is the lab's
 * failure, resubmitted up to the board's lava_retries times with a growing pause.
 */
#ifndef BG_LAVA_RUN_H
#define BG_LAVA_RUN_H

#include "util/compat.h"
#include "util/strbuf.h"
#include "lab/board.h"
#include "lab/result.h"

struct bg_lava_run {
	const struct bg_board *board;
	const char *images[2];     /* [1] NULL for one image */
	const char *initrd;
	const char *cmdline;
	bool deterministic;
	unsigned boots;            /* per image, interleaved A B A B */
	unsigned parallel;         /* at most; the board's lava_limit caps it */
	const char *out;           /* where the logs go */
	const char *cache;         /* whose artifacts/ the server serves */
};

/*
 * The job of the first boot, as it would be sent (nothing is sent). -1 with why.
 */
int bg_lava_run_print(const struct bg_lava_run *o, struct bg_strbuf *job);
/* Why a run ended before its boots did. */
enum {
	BG_LAVA_RUN_CONFIG = -1,    /* the token refused, a job the server refuses */
	BG_LAVA_RUN_MACHINE = -2,   /* an image not stored where the server serves it, a log
				       that cannot be written */
};

/*
 * Runs every boot into res (records with log, outcome, wall times and job_url). 0, or
 * BG_LAVA_RUN_CONFIG or BG_LAVA_RUN_MACHINE with why; the jobs already sent are then
 * cancelled first. A server that does not answer ends no run: its boots end infra (with
 * no job sent when it did not answer at the start). Each record's parsed is left to the
 * caller.
 */
int bg_lava_run_boots(const struct bg_lava_run *o, struct bg_boot_run *res);

#endif
