/*
 * The verdict: given boots of a base and of a candidate kernel, for every metric
 * (initcall.*, probe.*, boot.init, boot.userspace) say same, different or unknown, with
 * the effect, its interval, p, the sample sizes and how many more boots would settle it;
 * when boot.init moved, name the initcalls and probes that explain it.
 */
#ifndef BG_VERDICT_H
#define BG_VERDICT_H

#include "util/compat.h"
#include "util/strmap.h"

struct bg_series {
	char *metric;
	double *v;               /* µs */
	size_t n, alloc;
	unsigned added_in;       /* private: 1 + the boot that added the last value, or 0 */
	size_t boot_first;       /* private: where that boot's values begin (a metric may repeat) */
};

/* The values of every metric over a set of boots. */
struct bg_sample_set {
	struct bg_series *s;
	size_t n, alloc;
	struct bg_strmap index;  /* metric -> position in s */
	unsigned boots;          /* boots that counted (init reached) */
	unsigned excluded;       /* boots that did not: panic, hang, cut log, lab failure */
	size_t hint;             /* where the boot being added expects its next metric */
	bool refused;            /* the boot being added had a value refused */
};

void bg_sample_set_init(struct bg_sample_set *set);
void bg_sample_set_release(struct bg_sample_set *set);
/*
 * One boot's metrics: boot_begin, boot_add for each (names as parse/metrics.h makes
 * them), boot_end. Initcalls and probes a boot did not print count as 0 µs of work in
 * it; milestones it did not reach are missing. boot_add refuses NaN, negative or absurd
 * values (-1, bg_error_last says why); a boot with a refused value is left out whole at
 * boot_end, which then returns -1 and counts it excluded: never a value taken as 0.
 */
void bg_sample_set_boot_begin(struct bg_sample_set *set);
int bg_sample_set_boot_add(struct bg_sample_set *set, const char *metric, double usecs);
int bg_sample_set_boot_end(struct bg_sample_set *set);
/* A boot that never reached init: counted, never a value. */
void bg_sample_set_exclude(struct bg_sample_set *set);
/* One value on its own (no boot bookkeeping); -1 for NaN, negative or absurd values. */
int bg_sample_set_add(struct bg_sample_set *set, const char *metric, double usecs);
const struct bg_series *bg_sample_set_find(const struct bg_sample_set *set, const char *metric);

/* A practical threshold: a change must be at least pct of the base and abs_us. */
struct bg_threshold {
	char *pattern;           /* a metric name, or a prefix ending in '*' */
	double pct;              /* fraction: 0.05 is 5% */
	double abs_us;
};

struct bg_compare_config {
	struct bg_threshold *thresholds;   /* the most specific match wins; then the defaults */
	size_t nthresholds;
	double alpha;            /* false discovery rate over the metrics, before the looks */
	double beta;             /* miss rate for "same" */
	/*
	 * Deterministic boots (QEMU -icount): a metric that reads the same in every boot of
	 * each side is different past its threshold, same below it, with no statistics.
	 */
	bool deterministic;
};

void bg_compare_config_init(struct bg_compare_config *cfg);
void bg_compare_config_release(struct bg_compare_config *cfg);
/* dst becomes a copy of src, its own thresholds included (release it). */
void bg_compare_config_copy(struct bg_compare_config *dst,
			    const struct bg_compare_config *src);
/* "PATTERN=PCT%[:ABS_US]", e.g. "initcall.*=10%:2000"; -1 with a message when malformed. */
int bg_compare_config_add_threshold(struct bg_compare_config *cfg, const char *spec);
/* The same with the pattern and "PCT%[:ABS_US]" apart, as a configuration file gives them. */
int bg_compare_config_add_threshold_pair(struct bg_compare_config *cfg, const char *pattern,
					 const char *value);
/*
 * 0 when pattern can match metric names: not empty, no space or control character, and
 * '*' only at its end (there is no suffix match); else -1 with why, not naming it.
 */
int bg_threshold_pattern_check(const char *pattern);
/*
 * The threshold that applies to a metric: a pattern naming it exactly, else the longest
 * prefix pattern that matches it (the first given, among equals), else the default.
 */
struct bg_threshold bg_compare_threshold(const struct bg_compare_config *cfg, const char *metric);
bool bg_threshold_matches(const char *pattern, const char *metric);

enum bg_verdict_kind { BG_SAME, BG_DIFFERENT, BG_UNKNOWN };

struct bg_verdict {
	char *metric;
	enum bg_verdict_kind verdict;
	double base_median, cand_median;
	double mad_base, mad_cand;   /* each side's spread: median absolute deviation, µs */
	double delta, delta_pct;  /* Hodges-Lehmann shift (µs) and its share of the base */
	double ci_lo, ci_hi;      /* 95% interval of delta */
	double p, q;              /* Welch's t on log values; q after Benjamini-Hochberg */
	size_t n_base, n_cand;
	unsigned more_boots;      /* per side, to settle an unknown (0 at the cap) */
	bool exact;               /* decided on repeatable values, not by a test */
};

struct bg_attribution {
	char *metric;
	double delta;             /* µs */
	double share;             /* of the boot.init shift */
};

struct bg_comparison {
	struct bg_verdict *v;     /* sorted: different, unknown, same; by |delta| within */
	size_t n;
	struct bg_attribution *a;
	size_t na;
};

int bg_compare(const struct bg_sample_set *base, const struct bg_sample_set *cand,
	       const struct bg_compare_config *cfg, struct bg_comparison *out);
void bg_comparison_release(struct bg_comparison *c);
const char *bg_verdict_name(enum bg_verdict_kind v);
/* The verdict of metric in c, or NULL. */
const struct bg_verdict *bg_comparison_find(const struct bg_comparison *c, const char *metric);

/* ---- the figures every output prints, each computed here once ---- */

/*
 * The one percentage bootgate gives for a change: delta as a share of the good (base)
 * side, in percent, whichever way it goes; NAN when the base is not above zero.
 */
double bg_change_pct(double delta_us, double base_us);

/* The share of a regression a revert must take back to confirm its culprit. */
#define BG_REVERT_MIN_SHARE 0.5

/*
 * A revert's comparison has the bad tip with the culprit reverted as its base (the good
 * side: percentages are of it) and the bad tip as its candidate, so that its delta is
 * what the revert takes back. dst becomes src with metric's threshold made the share
 * BG_REVERT_MIN_SHARE of regression_us (bad minus good), and no percentage of either
 * side: a revert is judged by what it restores of the regression, not by how large that
 * is against the tip. With no regression known (NAN or not above zero), dst is src.
 */
void bg_compare_config_for_revert(struct bg_compare_config *dst,
				  const struct bg_compare_config *src, const char *metric,
				  double regression_us);

struct bg_restore {
	double restored_us;       /* what the revert took back: the comparison's delta */
	double regression_us;     /* bad minus good, NAN when unknown */
	double share;             /* restored of regression, NAN when that is unknown */
	bool restores;            /* the revert confirms its culprit */
	bool contradicts;         /* the revert is evidence against it */
};

/*
 * v: the metric's verdict in a revert's comparison (as above). It restores when v is
 * different and the revert is faster; it contradicts when v is the same, slower, or
 * unknown when no more boots can settle it (decided: the caller's last look); a revert
 * of deterministic boots that did not repeat (unknown) is no evidence either way.
 */
void bg_revert_judge(const struct bg_verdict *v, double regression_us, bool decided,
		     struct bg_restore *out);

/*
 * The figure a report leads with: what a real boot pays. step: the culprit against its
 * parent in the bisection's mode; timing: the same in timing mode, when a deterministic
 * bisection was confirmed (NULL when not). When both are there, the timing figure leads
 * and the deterministic one is the exact evidence of where; ratio is exact's delta over
 * paid's (NAN when either is not a number, or paid's is zero).
 */
struct bg_headline {
	const struct bg_verdict *paid;
	const struct bg_verdict *exact;   /* NULL when paid is the step itself */
	double ratio;
};
void bg_headline_pick(const struct bg_verdict *step, bool step_deterministic,
		      const struct bg_verdict *timing, struct bg_headline *out);

/* Boots per side at the looks: 5, 10, 20, ... 320. */
#define BG_VERDICT_FIRST_LOOK 5
#define BG_VERDICT_LOOKS 7

#endif
