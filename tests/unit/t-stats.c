/*
 * Unit tests of the statistics. Expected values were worked out independently: by
 * enumerating every permutation (Mann-Whitney, Hodges-Lehmann's interval), from
 * published tables (quantiles), by hand (the incomplete beta at integer arguments is a
 * binomial sum), or with a separate pure-Python implementation (Welch).
 */
#include <math.h>
#include <sys/resource.h>

#include "unit.h"
#include "util/error.h"
#include "decide/stats.h"

static const double a[] = { 2478.4, 2596.2, 2516.3, 2452.2, 2541.0 };
static const double b[] = { 2741.0, 2619.1, 2376.0, 2690.5, 2655.2, 2702.8 };

#define near(x, y, tol) assert_true(fabs((x) - (y)) <= (tol))

static void test_summaries(void **state)
{
	double ab[11];

	(void)state;
	memcpy(ab, a, sizeof(a));
	memcpy(ab + 5, b, sizeof(b));
	near(bg_stats_median(ab, 11), 2596.2, 1e-9);
	near(bg_stats_quantile(ab, 11, 0.25), 2497.35, 1e-9);
	near(bg_stats_quantile(ab, 11, 0.75), 2672.85, 1e-9);
	near(bg_stats_median(b, 6), (2655.2 + 2690.5) / 2, 1e-9);
	near(bg_stats_mad(a, 5), 56.19054, 1e-6);
	near(bg_stats_var(a, 5), 3134.492, 1e-6);
	assert_true(isnan(bg_stats_median(a, 0)));
}

static void test_distributions(void **state)
{
	(void)state;
	near(bg_norm_quantile(0.975), 1.959963984540, 1e-10);
	near(bg_norm_quantile(0.001), -3.090232306168, 1e-10);
	near(bg_norm_cdf(1.959963984540), 0.975, 1e-12);
	near(bg_t_quantile(0.975, 10), 2.228138851986, 1e-9);
	near(bg_t_cdf(2.0, 5), 0.949030260585, 1e-10);
	/* I_0.4(2,3) = sum_{j=2..4} C(4,j) 0.4^j 0.6^(4-j) = 0.3456 + 0.1536 + 0.0256 */
	near(bg_betainc(2, 3, 0.4), 0.5248, 1e-12);
}

static void test_welch(void **state)
{
	double la[5], lb[6];
	struct bg_welch w;

	(void)state;
	for (int i = 0; i < 5; i++)
		la[i] = log(a[i]);
	for (int i = 0; i < 6; i++)
		lb[i] = log(b[i]);
	assert_int_equal(bg_stats_welch(la, 5, lb, 6, &w), 0);
	near(w.t, 1.85873616085, 1e-9);
	near(w.df, 7.02151820202, 1e-8);
	near(w.diff, 0.0433855686477, 1e-11);
	near(w.se, 0.0233414346596, 1e-11);
	near(w.p, 0.105277561899, 1e-9);
	assert_int_equal(bg_stats_welch(la, 1, lb, 6, &w), -1);
	/* no spread: a difference is certain */
	{
		double x[] = { 1, 1, 1 }, y[] = { 2, 2 };

		assert_int_equal(bg_stats_welch(x, 3, y, 2, &w), 0);
		assert_true(w.p == 0 && isinf(w.t));
	}
}

static void test_mwu(void **state)
{
	struct bg_mwu m;
	/* jiffies-grid durations: many ties */
	double c[] = { 4000, 0, 4000, 4000, 0, 8000 }, d[] = { 8000, 4000, 8000, 12000, 8000 };

	(void)state;
	assert_int_equal(bg_stats_mwu(a, 5, b, 6, &m), 0);
	assert_true(m.exact);
	near(m.u, 25.0, 1e-12);
	near(m.p, 0.08225108225108226, 1e-12);     /* 38 of 462 subsets, doubled */
	assert_int_equal(bg_stats_mwu(c, 6, d, 5, &m), 0);
	assert_true(m.exact);
	near(m.u, 26.0, 1e-12);
	near(m.p, 0.0735930735930736, 1e-12);
	/* large samples: the normal approximation with tie correction */
	{
		double x[25], y[22];

		for (int i = 0; i < 25; i++)
			x[i] = i % 7;
		for (int i = 0; i < 22; i++)
			y[i] = i % 7 + 1;
		assert_int_equal(bg_stats_mwu(x, 25, y, 22, &m), 0);
		assert_false(m.exact);
		near(m.p, 0.08518684988662217, 1e-9);
	}
	assert_int_equal(bg_stats_mwu(a, 0, b, 6, &m), -1);
}

static void test_hodges_lehmann(void **state)
{
	struct bg_hl hl;

	(void)state;
	assert_int_equal(bg_stats_hodges_lehmann(a, 5, b, 6, 0.05, &hl), 0);
	near(hl.shift, 147.15, 1e-9);
	/* k = 4 (P(U < 4) <= 0.025 for 5 and 6): the 4th smallest and 4th largest */
	near(hl.lo, -102.4, 1e-9);
	near(hl.hi, 238.3, 1e-9);
}

static void test_bh_and_wilson(void **state)
{
	double p[] = { 0.01, 0.04, 0.03, 0.005, 0.5 }, q[5], lo, hi;

	(void)state;
	bg_stats_bh(p, 5, q);
	near(q[0], 0.025, 1e-15);
	near(q[1], 0.05, 1e-15);
	near(q[2], 0.05, 1e-15);
	near(q[3], 0.025, 1e-15);
	near(q[4], 0.5, 1e-15);
	bg_stats_wilson(990, 1000, 1.959963984540054, &lo, &hi);
	near(lo, 0.9816905311, 1e-9);
	near(hi, 0.9945592456, 1e-9);
}

static void test_check(void **state)
{
	double bad[] = { 1, NAN }, neg[] = { 5, -1 }, huge[] = { 1e13 };

	(void)state;
	assert_int_equal(bg_stats_check(a, 5, "x"), 0);
	assert_int_equal(bg_stats_check(bad, 2, "boot.init"), -1);
	assert_string_equal(bg_error_last(), "sample 2 of 'boot.init' is not a number");
	assert_int_equal(bg_stats_check(neg, 2, "x"), -1);
	assert_string_equal(bg_error_last(), "sample 2 of 'x' is negative (-1)");
	assert_int_equal(bg_stats_check(huge, 1, "x"), -1);
	assert_string_equal(bg_error_last(), "sample 1 of 'x' is absurd (1e+13 us)");
}

/* A small fixed-seed generator for the random cases below. */
static uint64_t seed_state;

static double next_uniform(void)
{
	uint64_t z = (seed_state += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return (double)((z ^ (z >> 31)) >> 11) / 9007199254740992.0;
}

static int cmp_dbl(const void *x, const void *y)
{
	double u = *(const double *)x, v = *(const double *)y;

	return u < v ? -1 : u > v;
}

/*
 * The selection against the definition: every pairwise difference formed and sorted, on
 * samples of many shapes (sizes 1 to 60, values on a coarse grid so that ties abound).
 */
static void test_hodges_lehmann_against_all_pairs(void **state)
{
	(void)state;
	seed_state = 42;
	for (int t = 0; t < 300; t++) {
		size_t na = 1 + (size_t)(next_uniform() * 60), nb = 1 + (size_t)(next_uniform() * 60);
		size_t m = na * nb, k;
		double *x = malloc(na * sizeof(*x)), *y = malloc(nb * sizeof(*y));
		double *d = malloc(m * sizeof(*d)), grid = t % 3 ? 1 : 100, want, c;
		struct bg_hl hl;

		for (size_t i = 0; i < na; i++)
			x[i] = floor(next_uniform() * 1000 / grid) * grid;
		for (size_t j = 0; j < nb; j++)
			y[j] = floor(next_uniform() * 1300 / grid) * grid;
		for (size_t i = 0; i < na; i++)
			for (size_t j = 0; j < nb; j++)
				d[i * nb + j] = y[j] - x[i];
		qsort(d, m, sizeof(*d), cmp_dbl);
		want = m % 2 ? d[m / 2] : 0.5 * (d[m / 2 - 1] + d[m / 2]);
		assert_int_equal(bg_stats_hodges_lehmann(x, na, y, nb, 0.05, &hl), 0);
		assert_true(hl.shift == want);
		/* the interval is a pair of order statistics, symmetric in rank */
		if (m > 400) {
			c = (double)m / 2 - 1.959963984540054 *
			    sqrt((double)na * (double)nb * (double)(na + nb + 1) / 12);
			k = c >= 1 ? (size_t)floor(c) : 1;
			assert_true(hl.lo == d[k - 1]);
			assert_true(hl.hi == d[m - k]);
		} else {
			assert_true(hl.lo <= hl.shift && hl.shift <= hl.hi);
			assert_true(hl.lo >= d[0] && hl.hi <= d[m - 1]);
		}
		free(x);
		free(y);
		free(d);
	}
}

/*
 * 100 000 boots a side: the pairs (10^10 of them, 80 GB) are never formed. Where the
 * address space can be limited (not under AddressSanitizer, which reserves terabytes),
 * it is limited to 1 GiB, so that forming them fails the test instead of swapping.
 */
static struct rlimit unlimited_as;
static bool as_limited;

/* The limit goes again after the test, passed or not (a failed assertion leaves it early). */
static int restore_as(void **state)
{
	(void)state;
	if (as_limited)
		setrlimit(RLIMIT_AS, &unlimited_as);
	as_limited = false;
	return 0;
}

static void test_hodges_lehmann_large(void **state)
{
	size_t n = 100000;
	double *x = malloc(n * sizeof(*x)), *y = malloc(n * sizeof(*y));
	struct bg_hl hl;

	(void)state;
#ifndef UNDER_ASAN
	if (getrlimit(RLIMIT_AS, &unlimited_as) == 0) {
		struct rlimit lim = unlimited_as;

		lim.rlim_cur = (rlim_t)1 << 30;
		as_limited = setrlimit(RLIMIT_AS, &lim) == 0;
	}
#endif
	/* y is x shifted by 5: every estimate of the shift is exactly 5 */
	for (size_t i = 0; i < n; i++) {
		x[(i * 7919) % n] = (double)i;
		y[i] = (double)i + 5;
	}
	assert_int_equal(bg_stats_hodges_lehmann(x, n, y, n, 0.05, &hl), 0);
	assert_true(hl.shift == 5);
	/* the normal approximation's interval: about +-0.98 * sqrt(n (2n+1) / 12) ranks */
	assert_true(hl.lo < 5 && hl.lo > -500);
	assert_true(hl.hi > 5 && hl.hi < 510);
	assert_true(hl.lo + hl.hi == 10);
	free(x);
	free(y);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_summaries),
		cmocka_unit_test(test_distributions),
		cmocka_unit_test(test_welch),
		cmocka_unit_test(test_mwu),
		cmocka_unit_test(test_hodges_lehmann),
		cmocka_unit_test(test_hodges_lehmann_against_all_pairs),
		cmocka_unit_test_teardown(test_hodges_lehmann_large, restore_as),
		cmocka_unit_test(test_bh_and_wilson),
		cmocka_unit_test(test_check),
	};

	return cmocka_run_group_tests_name("stats", tests, NULL, NULL);
}
