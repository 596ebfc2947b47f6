/* Unit tests of the verdict: the A/A false-positive rate, a real shift, thresholds, input. */
#include <math.h>

#include "unit.h"
#include "util/error.h"
#include "decide/verdict.h"
#include "parse/metrics.h"

/* A fixed-seed normal generator for the simulated boots. */
static uint64_t rng_state;

static double uniform(void)
{
	uint64_t z = (rng_state += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	z ^= z >> 31;
	return ((double)(z >> 11) + 0.5) / 9007199254740992.0;
}

static double normal(void)
{
	return sqrt(-2 * log(uniform())) * cos(2 * M_PI * uniform());
}

/* A kernel's boot: 20 initcalls of various sizes and noise, and boot.init around them. */
static const double medians[20] = { 66600, 32800, 13500, 8400, 7200, 4100, 3000, 2200, 1500,
				    1100, 900, 700, 500, 300, 200, 120, 90, 40, 12, 3 };

static void simulate(struct bg_sample_set *s, unsigned boots, double extra_kprobe)
{
	char name[32];

	for (unsigned b = 0; b < boots; b++) {
		double total = 500000;

		for (int i = 0; i < 20; i++) {
			double cv = 0.1 + 0.02 * i, v = medians[i] * exp(cv * normal());

			if (i == 17)
				v += extra_kprobe;
			snprintf(name, sizeof(name), "initcall.f%02d", i);
			assert_int_equal(bg_sample_set_add(s, name, round(v)), 0);
			total += v;
		}
		assert_int_equal(bg_sample_set_add(s, "boot.init", round(total * exp(0.02 * normal()))), 0);
	}
}

static const struct bg_verdict *find(const struct bg_comparison *c, const char *metric)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->v[i].metric, metric))
			return &c->v[i];
	return NULL;
}

/* 1000 comparisons of two samples of the same kernel: "different" at most 1% of them. */
static void test_a_a(void **state)
{
	struct bg_compare_config cfg;
	unsigned flagged = 0, same = 0;

	(void)state;
	rng_state = 20261130;
	bg_compare_config_init(&cfg);
	for (int t = 0; t < 1000; t++) {
		struct bg_sample_set a, b;
		struct bg_comparison c;
		bool any = false;

		bg_sample_set_init(&a);
		bg_sample_set_init(&b);
		simulate(&a, 10, 0);
		simulate(&b, 10, 0);
		assert_int_equal(bg_compare(&a, &b, &cfg, &c), 0);
		assert_int_equal(c.n, 21);
		for (size_t i = 0; i < c.n; i++) {
			any |= c.v[i].verdict == BG_DIFFERENT;
			same += c.v[i].verdict == BG_SAME;
		}
		flagged += any;
		bg_comparison_release(&c);
		bg_sample_set_release(&a);
		bg_sample_set_release(&b);
	}
	print_message("A/A: %u of 1000 comparisons flagged, %u metric verdicts same\n", flagged,
		      same);
	assert_true(flagged <= 10);
	/* and the test is not blind: most metrics are settled as same at 10 boots */
	assert_true(same > 1000 * 21 / 2);
	bg_compare_config_release(&cfg);
}

/* A 50 ms delay in one initcall: different, and it explains boot.init. */
static void test_real_shift(void **state)
{
	struct bg_compare_config cfg;
	struct bg_sample_set a, b;
	struct bg_comparison c;
	const struct bg_verdict *v;

	(void)state;
	rng_state = 7;
	bg_compare_config_init(&cfg);
	bg_sample_set_init(&a);
	bg_sample_set_init(&b);
	simulate(&a, 20, 0);
	simulate(&b, 20, 50000);
	assert_int_equal(bg_compare(&a, &b, &cfg, &c), 0);
	v = find(&c, "initcall.f17");
	assert_non_null(v);
	assert_int_equal(v->verdict, BG_DIFFERENT);
	assert_true(v->delta > 49000 && v->delta < 51000);
	assert_true(v->ci_lo > 40000 && v->ci_hi < 60000);
	assert_int_equal(v->n_base, 20);
	assert_true(v->q < 1e-6);
	/* the most changed metric is listed first */
	assert_string_equal(c.v[0].metric, "initcall.f17");
	v = find(&c, "boot.init");
	assert_int_equal(v->verdict, BG_DIFFERENT);
	assert_int_equal(c.na, 1);
	assert_string_equal(c.a[0].metric, "initcall.f17");
	assert_true(c.a[0].share > 0.7 && c.a[0].share < 1.4);
	bg_comparison_release(&c);
	bg_sample_set_release(&a);
	bg_sample_set_release(&b);
	bg_compare_config_release(&cfg);
}

/* Durations on the 4 ms jiffies grid: five boots are not enough to call them different. */
static void test_jiffies_grid(void **state)
{
	struct bg_compare_config cfg;
	struct bg_sample_set a, b;
	struct bg_comparison c;
	double x[] = { 0, 0, 0, 4000, 0 }, y[] = { 4000, 4000, 0, 4000, 4000 };

	(void)state;
	bg_compare_config_init(&cfg);
	bg_sample_set_init(&a);
	bg_sample_set_init(&b);
	for (int i = 0; i < 5; i++) {
		bg_sample_set_add(&a, "initcall.param_sysfs_init", x[i]);
		bg_sample_set_add(&b, "initcall.param_sysfs_init", y[i]);
	}
	assert_int_equal(bg_compare(&a, &b, &cfg, &c), 0);
	assert_int_equal(c.v[0].verdict, BG_UNKNOWN);
	assert_int_equal(c.v[0].more_boots, 5);
	bg_comparison_release(&c);
	bg_sample_set_release(&a);
	bg_sample_set_release(&b);
	bg_compare_config_release(&cfg);
}

static void test_empty_and_few(void **state)
{
	struct bg_compare_config cfg;
	struct bg_sample_set a, b;
	struct bg_comparison c;

	(void)state;
	bg_compare_config_init(&cfg);
	bg_sample_set_init(&a);
	bg_sample_set_init(&b);
	/* nothing at all: nothing to say, no crash */
	assert_int_equal(bg_compare(&a, &b, &cfg, &c), 0);
	assert_int_equal(c.n, 0);
	bg_comparison_release(&c);
	/* a metric on one side only, and three noisy boots against three */
	bg_sample_set_add(&a, "boot.userspace", 900000);
	for (int i = 0; i < 3; i++) {
		bg_sample_set_add(&a, "boot.init", 800000 + 150000 * (i % 2) - 40000 * i);
		bg_sample_set_add(&b, "boot.init", 900000 - 130000 * (i % 2) + 35000 * i);
	}
	assert_int_equal(bg_compare(&a, &b, &cfg, &c), 0);
	assert_int_equal(c.n, 2);
	for (size_t i = 0; i < c.n; i++) {
		assert_int_equal(c.v[i].verdict, BG_UNKNOWN);
		if (!strcmp(c.v[i].metric, "boot.userspace")) {
			assert_int_equal(c.v[i].n_cand, 0);
			assert_int_equal(c.v[i].more_boots, 5);
			assert_true(isnan(c.v[i].p));
		} else {
			assert_int_equal(c.v[i].more_boots, 2);
		}
	}
	bg_comparison_release(&c);
	bg_sample_set_release(&a);
	bg_sample_set_release(&b);
	bg_compare_config_release(&cfg);
}

static void test_bad_values(void **state)
{
	struct bg_sample_set a;

	(void)state;
	bg_sample_set_init(&a);
	assert_int_equal(bg_sample_set_add(&a, "boot.init", NAN), -1);
	assert_string_equal(bg_error_last(), "sample 1 of 'boot.init' is not a number");
	assert_int_equal(bg_sample_set_add(&a, "initcall.x", -5), -1);
	assert_string_equal(bg_error_last(), "sample 1 of 'initcall.x' is negative (-5)");
	assert_int_equal(bg_sample_set_add(&a, "initcall.x", 1e15), -1);
	assert_int_equal(a.n, 0);
	bg_sample_set_release(&a);
}

static void test_thresholds(void **state)
{
	struct bg_compare_config cfg;
	struct bg_threshold t;

	(void)state;
	bg_compare_config_init(&cfg);
	t = bg_compare_threshold(&cfg, "boot.init");
	assert_true(t.pct == 0.02 && t.abs_us == 1000);
	t = bg_compare_threshold(&cfg, "initcall.pty_init");
	assert_true(t.pct == 0.05 && t.abs_us == 1000);
	assert_int_equal(bg_compare_config_add_threshold(&cfg, "initcall.*=10%:2000"), 0);
	assert_int_equal(bg_compare_config_add_threshold(&cfg, "probe.i8042=1%"), 0);
	t = bg_compare_threshold(&cfg, "initcall.pty_init");
	assert_true(t.pct == 0.10 && t.abs_us == 2000);
	t = bg_compare_threshold(&cfg, "probe.i8042");
	assert_true(t.pct == 0.01 && t.abs_us == 0);
	t = bg_compare_threshold(&cfg, "probe.serio0");
	assert_true(t.pct == 0.05);
	assert_int_equal(bg_compare_config_add_threshold(&cfg, "initcall.x=ten"), -1);
	assert_int_equal(bg_compare_config_add_threshold(&cfg, "=5%"), -1);
	assert_int_equal(bg_compare_config_add_threshold(&cfg, "x=5%:-3"), -1);
	assert_int_equal(bg_compare_config_add_threshold(&cfg, "x= 5%"), -1);
	assert_int_equal(bg_compare_config_add_threshold(&cfg, "x=0x10%"), -1);
	assert_int_equal(bg_compare_config_add_threshold(&cfg, "probe.i8042=3%"), -1);
	assert_string_equal(bg_error_last(), "threshold 'probe.i8042=3%': its pattern is given twice");
	/* a pattern that no metric name can match is a typo, not a threshold */
	assert_int_equal(bg_compare_config_add_threshold(&cfg, "initcall.*_init=5%"), -1);
	assert_string_equal(bg_error_last(),
			    "threshold 'initcall.*_init=5%': '*' may only end the pattern");
	assert_int_equal(bg_compare_config_add_threshold(&cfg, "boot init=5%"), -1);
	assert_string_equal(bg_error_last(),
			    "threshold 'boot init=5%': the pattern holds a space or a control character");
	/* the form of a configuration file: the pattern and the value apart */
	assert_int_equal(bg_compare_config_add_threshold_pair(&cfg, "boot.*", "2.5%:500"), 0);
	t = bg_compare_threshold(&cfg, "boot.init");
	assert_true(t.pct == 0.025 && t.abs_us == 500);
	assert_int_equal(bg_compare_config_add_threshold_pair(&cfg, "boot.x", "5"), -1);
	assert_string_equal(bg_error_last(),
			    "threshold 'boot.x': the percentage must read like 5% (0 to 1000)");
	assert_int_equal(bg_compare_config_add_threshold_pair(&cfg, "", "5%"), -1);
	assert_string_equal(bg_error_last(), "threshold '': the pattern is empty");
	assert_int_equal(bg_compare_config_add_threshold_pair(&cfg, "boot.x", "5%:1ms"), -1);
	assert_string_equal(bg_error_last(),
			    "threshold 'boot.x': the absolute floor must be microseconds");
	bg_compare_config_release(&cfg);

	/* the most specific pattern wins, whatever the order they were given in */
	bg_compare_config_init(&cfg);
	assert_int_equal(bg_compare_config_add_threshold(&cfg, "initcall.*=10%"), 0);
	assert_int_equal(bg_compare_config_add_threshold(&cfg, "initcall.pty_init=1%"), 0);
	assert_int_equal(bg_compare_config_add_threshold(&cfg, "initcall.pty*=3%"), 0);
	assert_int_equal(bg_compare_config_add_threshold(&cfg, "initcall.p*=7%"), 0);
	t = bg_compare_threshold(&cfg, "initcall.pty_init");
	assert_true(t.pct == 0.01);
	t = bg_compare_threshold(&cfg, "initcall.pty_other");
	assert_true(t.pct == 0.03);
	t = bg_compare_threshold(&cfg, "initcall.param_init");
	assert_true(t.pct == 0.07);
	t = bg_compare_threshold(&cfg, "initcall.x");
	assert_true(t.pct == 0.10);
	assert_true(bg_threshold_matches("initcall.*", "initcall.x"));
	assert_false(bg_threshold_matches("initcal.*", "initcall.x"));
	bg_compare_config_release(&cfg);
}

/* A metric a boot gives several times (perf runs): each value counts, or none of a refused boot. */
static void test_boot_repeats(void **state)
{
	struct bg_sample_set s;
	const struct bg_series *p;

	(void)state;
	bg_sample_set_init(&s);
	bg_sample_set_boot_begin(&s);
	assert_int_equal(bg_sample_set_boot_add(&s, "perf.trace_startup", 140000), 0);
	assert_int_equal(bg_sample_set_boot_add(&s, "boot.init", 1000), 0);
	assert_int_equal(bg_sample_set_boot_add(&s, "perf.trace_startup", 141000), 0);
	assert_int_equal(bg_sample_set_boot_end(&s), 0);
	/* refused after three runs: all three go, the first boot's two stay */
	bg_sample_set_boot_begin(&s);
	assert_int_equal(bg_sample_set_boot_add(&s, "perf.trace_startup", 150000), 0);
	assert_int_equal(bg_sample_set_boot_add(&s, "perf.trace_startup", 151000), 0);
	assert_int_equal(bg_sample_set_boot_add(&s, "perf.trace_startup", 152000), 0);
	assert_int_equal(bg_sample_set_boot_add(&s, "boot.init", -5), -1);
	assert_int_equal(bg_sample_set_boot_end(&s), -1);
	bg_sample_set_boot_begin(&s);
	assert_int_equal(bg_sample_set_boot_add(&s, "perf.trace_startup", 142000), 0);
	assert_int_equal(bg_sample_set_boot_end(&s), 0);
	p = bg_sample_set_find(&s, "perf.trace_startup");
	assert_int_equal(s.boots, 2);
	assert_int_equal(s.excluded, 1);
	assert_int_equal(p->n, 3);
	assert_true(p->v[0] == 140000 && p->v[1] == 141000 && p->v[2] == 142000);
	bg_sample_set_release(&s);
}

/* A boot at a time: initcalls a boot did not print are zero work, milestones are missing. */
static void test_boot_values(void **state)
{
	struct bg_sample_set s;
	const struct bg_series *x, *y, *init;

	(void)state;
	bg_sample_set_init(&s);
	bg_sample_set_boot_begin(&s);
	assert_int_equal(bg_sample_set_boot_add(&s, "initcall.x", 10), 0);
	assert_int_equal(bg_sample_set_boot_add(&s, "boot.init", 1000), 0);
	bg_sample_set_boot_end(&s);
	bg_sample_set_exclude(&s);
	bg_sample_set_boot_begin(&s);
	assert_int_equal(bg_sample_set_boot_add(&s, "initcall.y", 20), 0);
	bg_sample_set_boot_end(&s);
	bg_sample_set_boot_begin(&s);
	assert_int_equal(bg_sample_set_boot_add(&s, "initcall.y", 30), 0);
	assert_int_equal(bg_sample_set_boot_add(&s, "initcall.x", 40), 0);
	assert_int_equal(bg_sample_set_boot_end(&s), 0);
	/* a boot with a value that is none: left out whole, never its values taken as 0 */
	bg_sample_set_boot_begin(&s);
	assert_int_equal(bg_sample_set_boot_add(&s, "initcall.x", 50), 0);
	assert_int_equal(bg_sample_set_boot_add(&s, "initcall.w", 60), 0);
	assert_int_equal(bg_sample_set_boot_add(&s, "initcall.y", -1), -1);
	assert_int_equal(bg_sample_set_boot_add(&s, "boot.init", 900), 0);
	assert_int_equal(bg_sample_set_boot_end(&s), -1);
	assert_int_equal(s.boots, 3);
	assert_int_equal(s.excluded, 2);
	x = bg_sample_set_find(&s, "initcall.x");
	y = bg_sample_set_find(&s, "initcall.y");
	init = bg_sample_set_find(&s, "boot.init");
	assert_int_equal(x->n, 3);
	assert_true(x->v[0] == 10 && x->v[1] == 0 && x->v[2] == 40);
	assert_int_equal(y->n, 3);
	assert_true(y->v[0] == 0 && y->v[1] == 20 && y->v[2] == 30);
	assert_int_equal(init->n, 1);
	assert_true(init->v[0] == 1000);
	/* a metric the left-out boot alone had: no value of it counts */
	assert_int_equal(bg_sample_set_find(&s, "initcall.w")->n, 3);
	assert_true(bg_sample_set_find(&s, "initcall.w")->v[2] == 0);
	assert_null(bg_sample_set_find(&s, "initcall.z"));
	bg_sample_set_release(&s);
}

/*
 * 50 000 distinct initcalls, 5 boots a side: every metric judged, the one that moved
 * found. (Found by a linear scan per value, this took 23 s; by the table, a moment.)
 */
static void test_many_metrics(void **state)
{
	enum { METRICS = 50000, BOOTS = 5 };
	struct bg_sample_set a, b;
	struct bg_compare_config cfg;
	struct bg_comparison c;
	char name[64];

	(void)state;
	rng_state = 7;
	bg_sample_set_init(&a);
	bg_sample_set_init(&b);
	for (int boot = 0; boot < BOOTS; boot++) {
		bg_sample_set_boot_begin(&a);
		bg_sample_set_boot_begin(&b);
		for (int m = 0; m < METRICS; m++) {
			double base = 1000 + m % 5000;

			snprintf(name, sizeof(name), "initcall.f%d", m);
			assert_int_equal(bg_sample_set_boot_add(&a, name,
				round(base * exp(0.05 * normal()))), 0);
			assert_int_equal(bg_sample_set_boot_add(&b, name,
				round((m == 31337 ? base + 50000 : base) * exp(0.05 * normal()))), 0);
		}
		bg_sample_set_boot_end(&a);
		bg_sample_set_boot_end(&b);
	}
	bg_compare_config_init(&cfg);
	assert_int_equal(bg_compare(&a, &b, &cfg, &c), 0);
	assert_int_equal(c.n, METRICS);
	assert_string_equal(c.v[0].metric, "initcall.f31337");
	assert_int_equal(c.v[0].verdict, BG_DIFFERENT);
	assert_int_equal(c.v[1].verdict == BG_DIFFERENT, 0);
	bg_comparison_release(&c);
	bg_sample_set_release(&a);
	bg_sample_set_release(&b);
}

/* The names a boot's metrics get: repeated initcall names are numbered in boot order. */
static void collect_name(const struct bg_metric *m, void *data)
{
	char *buf = data;

	snprintf(buf + strlen(buf), 1024 - strlen(buf), "%s=%" PRId64 " ", m->name, m->usecs);
}

static void test_metric_names(void **state)
{
	struct parsed *p = parse_str(
		"[    0.000000] Linux version 6.1.0 (x)\n"
		"[    0.100000] initcall dup_init+0x0/0x76 returned 0 after 5 usecs\n"
		"[    0.200000] initcall other_init+0x0/0x1 returned 0 after 6 usecs\n"
		"[    0.300000] initcall dup_init+0x0/0x1e returned 0 after 7 usecs\n"
		"[    0.400000] probe of serio0 returned 0 after 8 usecs\n"
		"[    0.500000] Run /init as init process\n");
	char buf[1024] = "";

	(void)state;
	bg_boot_metrics(p->boots[0], collect_name, buf);
	assert_string_equal(buf, "initcall.dup_init=5 initcall.other_init=6 initcall.dup_init#2=7 "
			    "probe.serio0=8 boot.init=500000 ");
	parsed_free(p);
}

/* Deterministic boots: repeatable values decide at once; the others fall back to tests. */
static void test_deterministic(void **state)
{
	struct bg_compare_config cfg;
	struct bg_sample_set a, b;
	struct bg_comparison c;
	const struct bg_verdict *v;

	(void)state;
	bg_compare_config_init(&cfg);
	cfg.deterministic = true;
	bg_sample_set_init(&a);
	bg_sample_set_init(&b);
	/* the planted delay as -icount shift=0 read it: 4 us, then 49605 us, in every boot */
	bg_sample_set_add(&a, "initcall.init_kprobe_trace", 4);
	bg_sample_set_add(&b, "initcall.init_kprobe_trace", 49605);
	bg_sample_set_add(&b, "initcall.init_kprobe_trace", 49605);
	bg_sample_set_add(&a, "initcall.pty_init", 61000);
	bg_sample_set_add(&b, "initcall.pty_init", 61200);
	bg_sample_set_add(&b, "initcall.pty_init", 61200);
	/* a metric the boots disagree on: statistics, and two boots are too few */
	bg_sample_set_add(&a, "boot.init", 348900);
	bg_sample_set_add(&a, "boot.init", 349900);
	bg_sample_set_add(&b, "boot.init", 399300);
	bg_sample_set_add(&b, "boot.init", 391300);
	assert_int_equal(bg_compare(&a, &b, &cfg, &c), 0);
	v = find(&c, "initcall.init_kprobe_trace");
	assert_int_equal(v->verdict, BG_DIFFERENT);
	assert_true(v->exact);
	assert_true(v->delta == 49601);
	v = find(&c, "initcall.pty_init");
	assert_int_equal(v->verdict, BG_SAME);       /* 200 us: below the 1 ms floor */
	v = find(&c, "boot.init");
	assert_false(v->exact);
	assert_int_equal(v->verdict, BG_UNKNOWN);
	bg_comparison_release(&c);
	/* with boot.init repeatable too, the exact initcall shift explains it */
	bg_sample_set_release(&a);
	bg_sample_set_release(&b);
	bg_sample_set_init(&a);
	bg_sample_set_init(&b);
	bg_sample_set_add(&a, "initcall.init_kprobe_trace", 4);
	bg_sample_set_add(&b, "initcall.init_kprobe_trace", 49605);
	bg_sample_set_add(&a, "boot.init", 348900);
	bg_sample_set_add(&b, "boot.init", 399300);
	assert_int_equal(bg_compare(&a, &b, &cfg, &c), 0);
	assert_int_equal(c.na, 1);
	assert_string_equal(c.a[0].metric, "initcall.init_kprobe_trace");
	assert_true(c.a[0].share > 0.98 && c.a[0].share < 0.99);   /* 49601 / 50400 */
	bg_comparison_release(&c);
	/* the same data in timing mode: one boot decides nothing */
	cfg.deterministic = false;
	assert_int_equal(bg_compare(&a, &b, &cfg, &c), 0);
	assert_int_equal(find(&c, "initcall.init_kprobe_trace")->verdict, BG_UNKNOWN);
	bg_comparison_release(&c);
	bg_sample_set_release(&a);
	bg_sample_set_release(&b);
	bg_compare_config_release(&cfg);
}

/*
 * A revert as the bisection judges it: the tip with the culprit reverted (b) is the base,
 * the bad tip (a) the candidate, the threshold the share of regression_us it must take
 * back (NAN: the defaults). *out: what it restores.
 */
static void judge_revert(const double *a, const double *b, size_t n, bool deterministic,
			 double regression_us, struct bg_restore *out)
{
	struct bg_compare_config defaults, cfg;
	struct bg_sample_set sa, sb;
	struct bg_comparison c;

	bg_compare_config_init(&defaults);
	defaults.deterministic = deterministic;
	bg_compare_config_for_revert(&cfg, &defaults, "initcall.init_kprobe_trace", regression_us);
	bg_sample_set_init(&sa);
	bg_sample_set_init(&sb);
	for (size_t i = 0; i < n; i++) {
		bg_sample_set_add(&sa, "initcall.init_kprobe_trace", a[i]);
		bg_sample_set_add(&sb, "initcall.init_kprobe_trace", b[i]);
	}
	assert_int_equal(bg_compare(&sb, &sa, &cfg, &c), 0);
	bg_revert_judge(bg_comparison_find(&c, "initcall.init_kprobe_trace"), regression_us, true,
			out);
	bg_comparison_release(&c);
	bg_sample_set_release(&sa);
	bg_sample_set_release(&sb);
	bg_compare_config_release(&cfg);
	bg_compare_config_release(&defaults);
}

static bool revert_restores(const double *a, const double *b, size_t n, bool deterministic)
{
	struct bg_restore r;

	judge_revert(a, b, n, deterministic, NAN, &r);
	return r.restores;
}

/* A culprit is confirmed only by a revert that takes the time back. */
static void test_revert_restores(void **state)
{
	/*
	 * The tracing seed's bad tip on the 2-vCPU board, timing mode, and the tip with
	 * the 3rd commit reverted, which a bisection had named (it was not the culprit:
	 * init_kprobe_trace is bimodal there on every commit)
	 */
	static const double tip[] = {
		80078, 52343, 42679, 92512, 44731, 85742, 64356, 79968, 57781, 70484,
		44307, 44686, 59987, 61151, 49640, 38061, 50379, 23360, 49149, 53420,
	};
	static const double reverted[] = {
		35065, 50247, 41574, 93387, 65808, 72789, 48283, 8339, 75832, 50888,
		40885, 39608, 49330, 54633, 48544, 52631, 48033, 56063, 22964, 45253,
	};
	/* the planted culprit reverted on the uniprocessor board, -icount */
	static const double exact_tip[] = { 770344, 770344 }, exact_reverted[] = { 46466, 46466 };
	struct bg_restore r;

	(void)state;
	assert_false(revert_restores(tip, reverted, ARRAY_SIZE(tip), false));
	judge_revert(tip, reverted, ARRAY_SIZE(tip), false, 40000, &r);
	assert_false(r.restores);
	assert_true(r.contradicts);
	assert_true(revert_restores(exact_tip, exact_reverted, 2, true));
	/* a revert that made it slower still, or changed nothing, takes nothing back */
	assert_false(revert_restores(exact_reverted, exact_tip, 2, true));
	assert_false(revert_restores(exact_tip, exact_tip, 2, true));
	judge_revert(exact_tip, exact_tip, 2, true, 723878, &r);
	assert_false(r.restores);
	assert_true(r.contradicts);
	assert_true(r.restored_us == 0);
}

/*
 * A full revert of a regression just over the threshold of the good side: 9 ms planted in
 * pty_init, 174 211 -> 183 124 µs exact (+5.1 % of the good side). Reverted on the bad tip
 * it takes the whole 8 913 µs back, which is 4.87 % of the bad tip: judged against the
 * tip's 5 % that read "same" and left a right culprit unconfirmed. Judged by what it
 * restores of the regression, it is different and restores 8 913 of 8 913.
 */
static void test_full_revert_near_threshold(void **state)
{
	static const double tip[] = { 183124, 183124 }, reverted[] = { 174211, 174211 };
	struct bg_restore r;

	(void)state;
	judge_revert(tip, reverted, 2, true, 8913, &r);
	assert_true(r.restores);
	assert_false(r.contradicts);
	assert_true(r.restored_us == 8913);
	assert_true(r.regression_us == 8913);
	assert_true(r.share == 1);
	/* half of it back is enough; less is not */
	{
		static const double half[] = { 178667, 178667 }, little[] = { 182000, 182000 };

		judge_revert(tip, half, 2, true, 8913, &r);
		assert_true(r.restores);
		judge_revert(tip, little, 2, true, 8913, &r);
		assert_false(r.restores);
		assert_true(r.contradicts);
	}
	/* the percentage printed is of the good side, the revert: +5.1 %, as the regression's */
	{
		struct bg_compare_config cfg;
		struct bg_sample_set sa, sb;
		struct bg_comparison c;

		bg_compare_config_init(&cfg);
		cfg.deterministic = true;
		bg_sample_set_init(&sa);
		bg_sample_set_init(&sb);
		for (int i = 0; i < 2; i++) {
			bg_sample_set_add(&sa, "initcall.pty_init", reverted[i]);
			bg_sample_set_add(&sb, "initcall.pty_init", tip[i]);
		}
		assert_int_equal(bg_compare(&sa, &sb, &cfg, &c), 0);
		assert_true(fabs(find(&c, "initcall.pty_init")->delta_pct - 5.116) < 0.001);
		assert_true(fabs(bg_change_pct(8913, 174211) - 5.116) < 0.001);
		bg_comparison_release(&c);
		bg_sample_set_release(&sa);
		bg_sample_set_release(&sb);
		bg_compare_config_release(&cfg);
	}
}

/* The headline: timing mode's figure when a deterministic bisection has one, and the ratio. */
static void test_headline(void **state)
{
	struct bg_verdict step = { .delta = 723878 }, timing = { .delta = 47785 };
	struct bg_headline h;

	(void)state;
	bg_headline_pick(&step, true, &timing, &h);
	assert_ptr_equal(h.paid, &timing);
	assert_ptr_equal(h.exact, &step);
	assert_true(fabs(h.ratio - 15.149) < 0.001);
	bg_headline_pick(&step, true, NULL, &h);
	assert_ptr_equal(h.paid, &step);
	assert_null(h.exact);
	assert_true(isnan(h.ratio));
	/* a timing bisection's step is already what a boot pays */
	bg_headline_pick(&timing, false, &step, &h);
	assert_ptr_equal(h.paid, &timing);
	assert_null(h.exact);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a_a),
		cmocka_unit_test(test_real_shift),
		cmocka_unit_test(test_jiffies_grid),
		cmocka_unit_test(test_empty_and_few),
		cmocka_unit_test(test_bad_values),
		cmocka_unit_test(test_thresholds),
		cmocka_unit_test(test_boot_values),
		cmocka_unit_test(test_many_metrics),
		cmocka_unit_test(test_metric_names),
		cmocka_unit_test(test_boot_repeats),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_revert_restores),
		cmocka_unit_test(test_full_revert_near_threshold),
		cmocka_unit_test(test_headline),
	};

	return cmocka_run_group_tests_name("verdict", tests, NULL, NULL);
}
