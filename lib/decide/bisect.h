/*
 * The bisection engine: finds the commit that made a metric slower, under noise, with
 * commits that do not build and boots that hang. A state machine with no I/O: it says
 * what to measure next, its caller builds and boots and reports back.
 *
 * The method is a Bayesian single change point on log values: commits before the culprit
 * share one level, the culprit and after another, both levels and the common noise
 * integrated out; probes are chosen for information per cost; it stops when one set of
 * commits (a culprit, or a run of unbuildable commits ending in one) holds 1 - eps of the
 * posterior. See docs/design/noise.md for the constants and how they were measured.
 */
#ifndef BG_BISECT_H
#define BG_BISECT_H

#include "util/compat.h"

struct bg_bisect_config {
	int commits;            /* commits 0..commits-1: 0 known good, commits-1 known bad */
	double sigma;           /* noise of ln(metric) known from history; 0 if unknown */
	double threshold;       /* smallest ln shift worth reporting (e.g. ln 1.05) */
	unsigned workers;       /* probes measured in parallel per round (k) */
	double build_cost;      /* cost of a build in boots, for choosing probes */
	double eps;             /* stop at posterior >= 1 - eps */
	unsigned n0;            /* first boots of each endpoint */
	unsigned min_edge;      /* boots both edges of an answer need (3; 1 for exact values) */
	unsigned max_boots;     /* budget (hung boots count) */
	unsigned max_builds;    /* budget; 0: 3 * ceil(log2 N) + 30 */
	unsigned confirm_max;   /* endpoint boots allowed to confirm the regression */
	bool confirm;           /* re-check the endpoints before bisecting */
	enum {
		BG_BISECT_ONE_STEP,     /* stop at the first culprit */
		BG_BISECT_STEPS_GATED,  /* look for more when one clearly explains < 80% */
		BG_BISECT_ALL_STEPS,    /* always check the ranges beside every culprit */
	} steps;
	double min_frac;        /* smallest step looked for, as a share of the whole shift */
	/*
	 * For boots that are not normal about one level per commit (a share of them in a
	 * slow mode, heavy tails): outliers dropped around the endpoints' main modes, a
	 * metric that still spreads wider than its noise modelled with that spread, and
	 * before a culprit is reported its own boots tested against its parent's (the new
	 * ones only, unless the noise comes from history and fits): a step the model is sure
	 * of but the two commits' boots do not show gets more boots on both, and at the last
	 * look is reported unknown, at most 0.9. Off: the model alone, as before.
	 */
	bool robust;
};

/*
 * The defaults: eps 0.005, n0 3, min_edge 3, 4000 boots, confirmation up to 96 boots per endpoint,
 * further steps of at least 25% of the shift looked for, robust on.
 */
void bg_bisect_config_init(struct bg_bisect_config *cfg, int commits);

enum bg_bisect_status {
	BG_BISECT_MEASURE,      /* perform the requests, report, call bg_bisect_next again */
	BG_BISECT_DONE,
};

/*
 * Build commit (if build is set) and boot it until it gave `values` values or
 * `max_boots` boots were tried, reporting every build and boot.
 */
struct bg_bisect_request {
	int commit;
	bool build;
	unsigned values;
	unsigned max_boots;
};

enum bg_bisect_outcome {
	BG_BISECT_FOUND,            /* first..last: one culprit, or a skip set ending in one */
	BG_BISECT_UNKNOWN,          /* budget spent, or the edge test failed: first..last is
				       the most likely set, its probability at most 0.9 when
				       the edge test failed */
	BG_BISECT_NOT_REPRODUCIBLE, /* the endpoints do not differ by the threshold */
	BG_BISECT_INFRA,            /* more than a third of the boots hung or failed */
};

#define BG_BISECT_MAX_CULPRITS 16

struct bg_bisect_culprit {
	int first, last;            /* one culprit, or a skip set ending in one */
	double probability;
	double step, step_se;       /* ln level after minus before */
};

struct bg_bisect_result {
	enum bg_bisect_outcome outcome;
	int first, last;            /* the reported set of commits (the first step found) */
	double probability;         /* posterior mass of the set */
	double step;                /* ln level after minus before the set */
	double step_se;
	double endpoint_shift;      /* ln level of the last commit minus the first */
	/* every step found, the first one included, in the order found */
	struct bg_bisect_culprit culprits[BG_BISECT_MAX_CULPRITS];
	unsigned nculprits;
	double unexplained;         /* ln shift no step found accounts for */
};

struct bg_bisect;

struct bg_bisect *bg_bisect_new(const struct bg_bisect_config *cfg);
void bg_bisect_free(struct bg_bisect *b);

/*
 * The next requests, at most max of them (the workers), into req[0..*n). Returns
 * BG_BISECT_DONE when the result is known (bg_bisect_result).
 */
enum bg_bisect_status bg_bisect_next(struct bg_bisect *b, struct bg_bisect_request *req,
				     size_t max, size_t *n);

/* Reports: a build (ok = false is "git bisect skip": the commit never builds). */
void bg_bisect_built(struct bg_bisect *b, int commit, bool ok);
/* One boot's value, as ln of the metric (any common offset is fine). */
void bg_bisect_value(struct bg_bisect *b, int commit, double ln_value);
/* One boot that hung or failed for the lab's reasons: never counted as a value. */
void bg_bisect_infra(struct bg_bisect *b, int commit);

const struct bg_bisect_result *bg_bisect_result(const struct bg_bisect *b);
/* The most likely set so far, for progress: first..last and its posterior (0 before any). */
void bg_bisect_leading(const struct bg_bisect *b, int *first, int *last, double *p);

struct bg_bisect_counts {
	unsigned boots, hung, builds, failed_builds, rounds;
};
void bg_bisect_counts(const struct bg_bisect *b, struct bg_bisect_counts *c);
const char *bg_bisect_outcome_name(enum bg_bisect_outcome o);
/*
 * The outcome a found culprit gets instead when the bad tip with it reverted was
 * measured and took nothing back: kept and shown, never mailed.
 */
#define BG_BISECT_UNCONFIRMED "unconfirmed"

#endif
