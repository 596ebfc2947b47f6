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
#include "conf/board.h"
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

/* What a job's log says of its boot; only the console's lines (target, feedback) count. */
struct bg_lava_console {
	bool kernel;               /* "Linux version": a kernel spoke */
	bool marker, panic;        /* it reached userspace; it panicked */
	double first_dt, marker_dt;   /* the lab's clock (s, UTC) at the first console line
					 and at the marker; NAN until read */
};

void bg_lava_console_init(struct bg_lava_console *c);
/*
 * Reads the log lines of LAVA's YAML log (len bytes, each line ended by '\n', as
 * bg_lava_log gives them) into c; each '\n' is overwritten with a NUL, and a last line
 * without one is not read.
 */
void bg_lava_console_scan(struct bg_lava_console *c, char *lines, size_t len);
/*
 * Seconds from the first console line to the marker, by the lab's clock; NAN when either
 * is unknown or the marker's time is the earlier.
 */
double bg_lava_console_userspace(const struct bg_lava_console *c);

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
