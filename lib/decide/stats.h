/*
 * Statistics for noisy boot timings: robust summaries, Welch's t on log values,
 * Mann-Whitney U (exact for small samples, ties included), the Hodges-Lehmann shift with
 * its distribution-free interval, Benjamini-Hochberg, Wilson's interval. Pure functions:
 * no I/O, no global state.
 */
#ifndef BG_STATS_H
#define BG_STATS_H

#include "util/compat.h"

/* Largest sample value accepted (µs): about 28 hours. */
#define BG_STATS_MAX_VALUE 1e11

/* qsort's comparison of doubles, ascending. */
int bg_stats_cmp_double(const void *a, const void *b);

/* 0, or -1 with bg_error_last() naming the first NaN, negative or absurd value of what. */
int bg_stats_check(const double *x, size_t n, const char *what);

/* Sort-based summaries of x[0..n) (x is not modified); NaN for n == 0. */
double bg_stats_median(const double *x, size_t n);
/* Quantile q in [0,1], linear interpolation between order statistics (type 7). */
double bg_stats_quantile(const double *x, size_t n, double q);
/* Median absolute deviation, scaled by 1.4826 to estimate a normal sigma. */
double bg_stats_mad(const double *x, size_t n);
double bg_stats_mean(const double *x, size_t n);
/* Unbiased variance; 0 for n < 2. */
double bg_stats_var(const double *x, size_t n);

double bg_norm_cdf(double x);
double bg_norm_quantile(double p);
/* Regularized incomplete beta I_x(a, b). */
double bg_betainc(double a, double b, double x);
double bg_t_cdf(double t, double df);
double bg_t_quantile(double p, double df);

struct bg_welch {
	double diff;      /* mean(b) - mean(a) */
	double se;        /* its standard error */
	double t, df;
	double p;         /* two-sided */
};

/* Welch's t test of b against a (pass log values to compare ratios). n >= 2 each. */
int bg_stats_welch(const double *a, size_t na, const double *b, size_t nb, struct bg_welch *out);

struct bg_mwu {
	double u;         /* pairs (a_i, b_j) with b_j > a_i, ties counting one half */
	double p;         /* two-sided */
	bool exact;       /* exact permutation distribution (small samples), else normal */
};

/* Mann-Whitney U test of b against a; ties get mid-ranks. */
int bg_stats_mwu(const double *a, size_t na, const double *b, size_t nb, struct bg_mwu *out);

struct bg_hl {
	double shift;     /* median of the pairwise differences b_j - a_i */
	double lo, hi;    /* distribution-free confidence interval of the shift */
};

/* Hodges-Lehmann shift of b against a with a (1 - alpha) interval. */
int bg_stats_hodges_lehmann(const double *a, size_t na, const double *b, size_t nb,
			    double alpha, struct bg_hl *out);

/* Benjamini-Hochberg adjusted p-values (q-values) of p[0..m) into q. */
void bg_stats_bh(const double *p, size_t m, double *q);

/* Wilson score interval of k successes in n at normal quantile z. */
void bg_stats_wilson(size_t k, size_t n, double z, double *lo, double *hi);

#endif
