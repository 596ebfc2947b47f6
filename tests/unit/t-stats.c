/*
 * Unit tests of the statistics. Expected values were worked out independently: by
 * enumerating every permutation (Mann-Whitney, Hodges-Lehmann's interval), from
 * published tables (quantiles), by hand (the incomplete beta at integer arguments is a
 * binomial sum), or with a separate pure-Python implementation (Welch).
 */
#include <math.h>

#include "unit.h"
#include "error.h"
#include "stats.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_summaries),
		cmocka_unit_test(test_distributions),
		cmocka_unit_test(test_welch),
		cmocka_unit_test(test_mwu),
		cmocka_unit_test(test_hodges_lehmann),
		cmocka_unit_test(test_bh_and_wilson),
		cmocka_unit_test(test_check),
	};

	return cmocka_run_group_tests_name("stats", tests, NULL, NULL);
}
