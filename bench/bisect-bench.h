/*
 * The bisection benchmark: corpora of simulated histories (.bb files), samples drawn so
 * that the j-th boot of commit i is the same for every algorithm, plain git bisect as the
 * baseline, and the figures that compare them.
 */
#ifndef BG_BISECT_BENCH_H
#define BG_BISECT_BENCH_H

#include "util/compat.h"

struct bg_bb_level {
	int from, to;
	double median;          /* ms */
};

struct bg_bb_history {
	char *id;
	int commits;            /* 0..commits-1: 0 good, commits-1 bad */
	uint64_t seed;
	int *truth;             /* first bad commit of every step */
	size_t ntruth;
	struct bg_bb_level *levels;
	size_t nlevels, alloc_levels;
	double sigma;           /* of ln(t) */
	double p_slow, slow;    /* bimodal noise: p_slow of boots are slow x slower */
	unsigned df;            /* heavy tails: Student's t of df degrees, scaled by sigma; 0 none */
	double hang;            /* probability that a boot hangs */
	bool *fail;             /* commits that never build */
	bool have_noise, have_hang;
	bool flat;              /* "truth none": no regression to find */
	size_t line;            /* where the history starts in its file */
};

struct bg_bb_corpus {
	char *file;
	char *scenario;
	struct bg_bb_history *h;
	size_t n, alloc;
};

/* 0, or -1 with bg_error_last() = "file:line: why". */
int bg_bb_parse(const char *path, struct bg_bb_corpus *c);
int bg_bb_parse_mem(const char *name, const char *text, size_t len, struct bg_bb_corpus *c);
void bg_bb_corpus_release(struct bg_bb_corpus *c);

double bg_bb_level(const struct bg_bb_history *h, int commit);
/* Boot j of commit i: 0 and its time in *ms, or -1 when the boot hangs. */
int bg_bb_sample(const struct bg_bb_history *h, int commit, uint64_t j, double *ms);
/* The answer a perfect bisector gives: (last buildable good, first buildable bad]. */
void bg_bb_ideal(const struct bg_bb_history *h, int culprit, int *first, int *last);

struct bg_bb_gen {
	int N;                  /* commits 0..N */
	double d, cv, hang, bf, base;
	unsigned histories;
	uint64_t seed;
	double steps[8];        /* fractions of d for a regression made of several commits */
	unsigned nsteps;        /* 0: one step */
	double p_slow, slow;    /* bimodal: p_slow of boots slow x slower; p_slow 0: none */
	unsigned df;            /* heavy tails: Student's t noise of df degrees; 0: lognormal */
};

void bg_bb_gen_init(struct bg_bb_gen *g);
/* Writes a corpus; -1 on a write error. */
int bg_bb_generate(FILE *out, const struct bg_bb_gen *g);

/* bootgate's engine; the same without cfg.robust (the model alone); git bisect */
enum bg_bb_algo { BG_BB_BOOTGATE, BG_BB_MODEL_ONLY, BG_BB_GIT_BISECT };

struct bg_bb_score {
	enum bg_bb_algo algo;
	unsigned k;
	/*
	 * correct: a found culprit, exactly the ideal set of the culprit, or for a regression
	 * made of several commits, exactly the ideal sets of all its steps (an unknown is
	 * never correct); in_set: the (first) reported set holds a culprit.
	 */
	size_t histories, correct, in_set, unknown;
	size_t confident_wrong; /* a found culprit claimed above 0.9 that is not the truth */
	size_t steps, steps_found, false_culprits;   /* several steps: recall, extras */
	double set_size, boots, builds, rounds, hung, failed_builds;
	unsigned *boot_counts;  /* per history, for percentiles */
};

struct bg_bisect_config;
struct bg_bisect_result;
struct bg_bisect_counts;

/*
 * Bisects one history with bootgate's engine configured by cfg (its commits set from
 * the history), serving the history's samples; fills the result and the counts.
 */
void bg_bb_bisect(const struct bg_bb_history *h, const struct bg_bisect_config *cfg,
		  struct bg_bisect_result *res, struct bg_bisect_counts *counts);

struct bg_bb_opts {
	unsigned k;             /* bootgate's parallel workers */
	bool all_steps;         /* check the ranges beside every culprit for further steps */
	bool no_history;        /* the noise from the boots alone, as the service bisects */
};

/* Runs one algorithm over every history of a corpus. */
void bg_bb_run(const struct bg_bb_corpus *c, enum bg_bb_algo algo, const struct bg_bb_opts *o,
	       struct bg_bb_score *s);
void bg_bb_score_release(struct bg_bb_score *s);
/* The boots at percentile q: the nearest rank, sorted[ceil(q n) - 1]. */
unsigned bg_bb_score_boots_quantile(const struct bg_bb_score *s, double q);
const char *bg_bb_algo_name(enum bg_bb_algo a);

#endif
