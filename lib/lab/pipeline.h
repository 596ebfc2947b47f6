/*
 * The build -> boot -> read -> compare pipeline that "bootgate measure" runs and the
 * daemon will: it drives the workers (bootgate-build, bootgate-boot) as programs, reads
 * their result files (lab/result.h), parses every console and judges the boots.
 */
#ifndef BG_PIPELINE_H
#define BG_PIPELINE_H

#include "util/compat.h"
#include "util/log.h"
#include "util/json.h"
#include "parse/bootlog.h"
#include "decide/verdict.h"
#include "net/git.h"
#include "lab/result.h"
#include "conf/tree.h"
#include "lab/workers.h"
#include "store/results.h"

struct bg_measure_opts {
	const char *tree;
	const char *commit;       /* the candidate */
	const char *against;      /* the base; NULL: measure commit alone */
	const char *board;        /* a board name, or an arch for qemu-ARCH */
	const char *lab;          /* NULL: bg_lab_dir() */
	const struct bg_build_config *config;   /* NULL: the board's */
	bool deterministic;
	enum bg_console console;  /* zero: verbose */
	unsigned boots;           /* per commit */
	unsigned parallel;        /* boots at once; 0: the cores */
	const struct bg_compare_config *compare;   /* NULL: the defaults */
	/* one line of progress ("building ..."), for stderr or a log; may be NULL */
	bg_progress_fn progress;
	void *progress_data;
};

struct bg_measure_boot {
	int side;                 /* 0: the commit, 1: against */
	enum bg_outcome outcome;
	double wall_seconds;
	char *log;
	char *job_url;            /* the lab's page of the boot (LAVA); NULL on QEMU */
	struct bg_boot *parsed;   /* the console's boot, when it was read */
};

enum { BG_SIDE_COMMIT, BG_SIDE_AGAINST };

struct bg_measure {
	struct bg_tree tree;
	char rev[2][BG_OID_HEX];              /* the commit and against, resolved */
	struct bg_build_result build[2];
	struct bg_boot_run run;
	struct bg_measure_boot *boots;
	size_t nboots;
	struct bg_sample_set set[2];
	bool compared;
	struct bg_comparison cmp;
	bool boots_failed;        /* a boot did not reach userspace: panic, hang or the lab */
};

/* No allocation; bg_measure_release frees what check, run and more filled in. */
void bg_measure_init(struct bg_measure *m);
/*
 * Checks every input before any work: the tree is a git repository, the revisions are
 * commits of it, the board loads, the --config and --fragment files are there. -1 with
 * why: the caller's mistake, not the machine's.
 */
int bg_measure_check(const struct bg_measure_opts *o, struct bg_measure *m);
/*
 * Builds (one at a time), boots both commits interleaved, reads every console and, with
 * against, compares. 0 when measured (m->boots_failed says whether a boot did not reach
 * userspace); -1 with why when a build or the boot worker failed (m->build[i].status
 * tells a commit that does not build from a machine that failed), or when a side has no
 * boot to compare.
 */
int bg_measure_run(const struct bg_measure_opts *o, struct bg_measure *m);
/*
 * After a bg_measure_run with against: boots each side n more times, reads them and
 * compares again over every boot, the earlier ones kept (a later look of a sequential
 * test). -1 with why when the boot worker failed (the earlier boots then stay as they
 * were) or the values cannot be compared; the earlier comparison stays in both cases.
 */
int bg_measure_more(const struct bg_measure_opts *o, struct bg_measure *m, unsigned n);
void bg_measure_release(struct bg_measure *m);
/*
 * Whether m booted and the lab failed every boot (infra): nothing of the kernels was
 * seen, so no verdict may come of it, only another try.
 */
bool bg_measure_all_infra(const struct bg_measure *m);
/*
 * Every build and boot of a measure into the store, so that a bisection or a gate later
 * starts from them; the boots' ids go to boot_ids (m->nboots of them) when it is given.
 */
int bg_measure_record(struct bg_store *s, const struct bg_measure_opts *o,
		      const struct bg_measure *m, int64_t *boot_ids);
/*
 * The comparison of a measure with against, as the store keeps it, into out (which it
 * initialises): the commits, board, mode, console, the boots of each side (boot_ids[i]
 * the stored id of m->boots[i], or NULL for none) and the verdicts, which stay m's: out's
 * release must not free them (zero out->cmp first).
 */
void bg_measure_stored_comparison(const struct bg_measure_opts *o, const struct bg_measure *m,
				  const int64_t *boot_ids, struct bg_stored_comparison *out);
/*
 * {"mode", "console", "board", "commit": build, "against": build|null, "boots": [{"side",
 * "outcome", "wall_seconds", "job_url", "parsed"}], "comparison"}
 */
void bg_measure_write_json(struct bg_json *j, const struct bg_measure_opts *o,
			   const struct bg_measure *m);

#endif
