/*
 * Results in the store as rows with columns (schemas/005-results.sql), written and read
 * here alone into typed structs: comparisons with every metric's verdict, a bisection's
 * range, work, steps and confirmations, a series and its patches. Nothing is read back
 * from a JSON document: the JSON of --json, the site and the export is written from these
 * structs (publish/results-json.h).
 */
#ifndef BG_STORE_RESULTS_H
#define BG_STORE_RESULTS_H

#include "util/compat.h"
#include "decide/verdict.h"
#include "store/store.h"

/* ---- comparisons ---- */

/*
 * Why a comparison was made: a gate (a tip against the last good commit), a series (a
 * patch against the tree before it, or the whole series), a bisection's step (its
 * culprit against its parent, in the bisection's mode), its timing confirmation (the
 * same in timing mode), its revert (the bad tip with the culprit reverted as the base,
 * the bad tip as the candidate: what the revert takes back is the candidate's excess).
 */
enum bg_role { BG_ROLE_GATE, BG_ROLE_SERIES, BG_ROLE_STEP, BG_ROLE_TIMING, BG_ROLE_REVERT };
const char *bg_role_name(enum bg_role r);

enum bg_side { BG_BASE, BG_CAND };

struct bg_comparison_boot {
	enum bg_side side;
	int64_t boot_id;          /* 0 when the boot was not stored */
};

struct bg_stored_comparison {
	int64_t id;
	int64_t tree_id, bisection_id, job_id;   /* 0: none */
	enum bg_role role;
	char *tree;               /* the tree's name (read only), or NULL */
	char *base, *cand;        /* commits */
	char *board, *mode, *console;
	char *verdict;            /* the gate's or the series' word: regression, pass, same, ... */
	char *metric;             /* the metric that decided it, or NULL */
	double delta;             /* its change, µs (NAN: none) */
	double created;
	unsigned boots[2];        /* boots that counted, [BG_BASE] and [BG_CAND] */
	unsigned excluded[2];     /* boots left out: they never reached init */
	struct bg_comparison cmp; /* every metric's verdict, and what explains boot.init */
	struct bg_comparison_boot *boot;   /* in the order they ran */
	size_t nboot, alloc_boot;
};

void bg_stored_comparison_init(struct bg_stored_comparison *c);
void bg_stored_comparison_release(struct bg_stored_comparison *c);
/* Adds one boot to c->boot. */
void bg_stored_comparison_add_boot(struct bg_stored_comparison *c, enum bg_side side,
				   int64_t boot_id);
/*
 * Writes c with its verdicts, attributions and boots (in the caller's transaction, if it
 * has one) and sets c->id. -1 with why.
 */
int bg_store_comparison_add(struct bg_store *s, struct bg_stored_comparison *c);
/*
 * Reads comparison id into out, made anew (release it after, found or not): 1 found,
 * 0 none, -1 with why. The same for the _get of boots, bisections and series.
 */
int bg_store_comparison_get(struct bg_store *s, int64_t id, struct bg_stored_comparison *out);
/* The latest comparison of a bisection in a role, as _get: 1, 0 when it has none, -1. */
int bg_store_comparison_of_bisection(struct bg_store *s, int64_t bisection, enum bg_role role,
				     struct bg_stored_comparison *out);
/*
 * Where the first boot of a side of comparison id that gave metric a console line has it:
 * *console (owned by the caller) and *line; 1 found, 0 none, -1 with why.
 */
int bg_store_comparison_line(struct bg_store *s, int64_t id, enum bg_side side,
			     const char *metric, char **console, uint64_t *line);
/* The ids of every comparison, in order (owned by the caller). */
int bg_store_comparison_ids(struct bg_store *s, int64_t **ids, size_t *n);

/* ---- boots ---- */

struct bg_stored_boot {
	int64_t id;
	char *image_sha256, *board, *mode, *console_mode, *outcome;
	char *console;            /* the console log's path, or NULL */
	char *job_url;            /* the lab's page of the boot, or NULL */
	char *kernel, *cmdline;   /* as the boot said them, or NULL */
	double wall_s, created;
	double init_us;           /* its boot.init sample, NAN when it has none */
};

/* One sample of a boot, in its order. */
struct bg_stored_sample {
	char *metric;
	double value;
	double start_us, end_us;  /* when it ran (printk time), NAN when unknown */
	uint64_t line;            /* the console's line that gave it, 0 when unknown */
};

struct bg_stored_samples {
	struct bg_stored_sample *v;
	size_t n, alloc;
};

void bg_stored_boot_init(struct bg_stored_boot *b);
void bg_stored_boot_release(struct bg_stored_boot *b);
/* 1 found, 0 none, -1 with why. */
int bg_store_boot_get(struct bg_store *s, int64_t id, struct bg_stored_boot *out);
/* The samples of boot id whose metric starts with prefix ("" for all), in order. */
int bg_store_boot_samples(struct bg_store *s, int64_t id, const char *prefix,
			  struct bg_stored_samples *out);
void bg_stored_samples_release(struct bg_stored_samples *l);

/* ---- bisections ---- */

struct bg_stored_bisection {
	int64_t id, tree_id;
	int64_t parent_id;        /* the bisection of a merge's branch: its outer one, or 0 */
	int64_t inner_id;         /* the bisection of the culprit merge's branch, or 0 */
	char *tree;               /* its name */
	char *good, *bad, *board, *mode, *console;
	char *asked_metric, *metric;
	char *state, *outcome, *culprit, *error;
	char *culprit_subject, *culprit_author;   /* as the store noted the commit, or NULL */
	double confidence;        /* the posterior of the culprit, NAN when none */
	double created, finished; /* finished NAN while it runs */
	int ncommits;             /* of the first-parent chain, both ends counted */
	int range_first, range_last;   /* the commits it narrowed to (indexes), -1 when none */
	int64_t builds, boots;    /* the work it did, -1 until it ends */
	double wall_s;            /* NAN until it ends */
	bool exact;               /* its metric repeated exactly: one boot a probe */
	char *merge_commit;       /* the culprit was this merge, its branch bisected (inner_id) */
	int revert_applies;       /* -1 not tried, 0 did not apply, 1 applied */
	char *revert_commit;
	double regression_us;     /* bad minus good, what its revert is judged against; NAN */
};

/* One commit the bisection measured, in the order of the range. */
struct bg_bisection_step {
	int idx;
	char *commit;
	bool built;
	double *values;           /* µs, one per boot, in the order they were reported */
	size_t nvalues;
	const char *verdict;      /* good, bad, culprit, skip (did not build), unknown */
};

struct bg_bisection_steps {
	struct bg_bisection_step *v;
	size_t n, alloc;
};

void bg_stored_bisection_init(struct bg_stored_bisection *b);
void bg_stored_bisection_release(struct bg_stored_bisection *b);
/* 1 found, 0 none, -1 with why. */
int bg_store_bisection_get(struct bg_store *s, int64_t id, struct bg_stored_bisection *out);
/* The commits b measured, with their values (b read by bg_store_bisection_get). */
int bg_store_bisection_steps(struct bg_store *s, const struct bg_stored_bisection *b,
			     struct bg_bisection_steps *out);
void bg_bisection_steps_release(struct bg_bisection_steps *st);
int bg_store_bisection_ids(struct bg_store *s, int64_t **ids, size_t *n);
/*
 * The comparisons a report of bisection b gives: [0] the step (its culprit against its
 * parent), [1] the timing confirmation, [2] the revert, each init'ed by the caller and
 * left with id 0 when there is none. A bisection whose culprit is the branch of a merge
 * speaks with its inner bisection's figures. -1 with why.
 */
int bg_store_bisection_comparisons(struct bg_store *s, const struct bg_stored_bisection *b,
				   struct bg_stored_comparison out[3]);
/* The commits of b's range, in order (owned by the caller, each and the array). */
int bg_store_bisection_range(struct bg_store *s, const struct bg_stored_bisection *b,
			     char ***range, size_t *n);

/* What a bisection found, written when it ends (with its state, in one transaction). */
struct bg_bisection_conclusion {
	const char *outcome;      /* found, unconfirmed, not_reproducible, ... */
	const char *culprit;      /* or NULL */
	double confidence;
	int range_first, range_last;   /* -1 when no range */
	bool exact;
	const char *merge_commit; /* or NULL */
	int revert_applies;       /* -1 not tried */
	const char *revert_commit;
	double regression_us;
};
/*
 * Ends bisection id: state done, its conclusion, the builds and boots it used counted
 * from its reports, its wall time from its creation.
 */
int bg_store_bisection_conclude(struct bg_store *s, int64_t id,
				const struct bg_bisection_conclusion *c);

/* ---- series ---- */

struct bg_stored_series {
	int64_t id, tree_id;
	int64_t superseded_by;    /* 0: none */
	char *tree, *tree_path;   /* its tree's name and repository, or NULL */
	char *message_id, *subject, *author, *title, *addr, *source;
	int64_t version, total;
	char *base, *base_from, *base_image_sha256;
	int64_t base_boots;       /* boots of the base that counted, -1 unknown */
	char *patchset_hash, *board, *mode, *state, *error;
	int64_t boots_per_commit; /* -1 unknown */
	int64_t whole_comparison_id;   /* the last patch against the base, 0: none */
	double created, finished; /* finished NAN while it runs */
};

/* One patch of a series (idx 0: the cover letter). */
struct bg_stored_patch {
	int idx;
	char *message_id, *subject, *author;
	char *mbox;               /* the message as it came, when asked for */
	char *commit;             /* the tree after it, when it applied */
	char *status, *error;     /* applied, failed, skipped; why it did not apply */
	int64_t comparison_id;    /* against the tree before it, 0: none */
	char *verdict;            /* regression, improvement, same, unknown; NULL: not judged */
	char *metric;             /* the metric that moved most */
	double delta;             /* its change, µs, NAN */
	char *image_sha256;
	int64_t boots;            /* boots that counted, -1 unknown */
};

struct bg_stored_patches {
	struct bg_stored_patch *v;
	size_t n, alloc;
};

void bg_stored_series_init(struct bg_stored_series *se);
void bg_stored_series_release(struct bg_stored_series *se);
/* 1 found, 0 none, -1 with why. */
int bg_store_series_get(struct bg_store *s, int64_t id, struct bg_stored_series *out);
/* Its patches in order, each with its mail (mbox) when with_mbox. */
int bg_store_series_patches(struct bg_store *s, int64_t id, bool with_mbox,
			    struct bg_stored_patches *out);
void bg_stored_patches_release(struct bg_stored_patches *p);
int bg_store_series_ids(struct bg_store *s, int64_t **ids, size_t *n);

/* ---- reports ---- */

/*
 * A report to make (the mail of a bisection or a series), in the caller's transaction:
 * the outbox row names what it is about; the mailer reads that from the store.
 */
int bg_store_outbox_add(struct bg_store *s, const char *kind, int64_t ref);
/* The same unless there is one about it already (a series run again). */
int bg_store_outbox_add_once(struct bg_store *s, const char *kind, int64_t ref);

#endif
