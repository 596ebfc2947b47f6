/*
 * Unit tests of the bisection engine and its benchmark harness: the sampler against the
 * reference values of the method's notes, and each rule of the engine on small histories.
 */
#include <math.h>

#include "unit.h"
#include "decide/bisect.h"
#include "bisect-bench.h"
#include "util/error.h"

#define near(x, y, tol) assert_true(fabs((x) - (y)) <= (tol))

static struct bg_bb_corpus corpus(const char *text)
{
	struct bg_bb_corpus c;

	if (bg_bb_parse_mem("test.bb", text, strlen(text), &c) < 0)
		fail_msg("%s", bg_error_last());
	return c;
}

/* Reference samples published with the benchmark format (computed by its Python tool). */
static void test_sampler_reference(void **state)
{
	struct bg_bb_corpus c = corpus(
		"bbench 1\n"
		"history r commits 129 seed 6272882702163395321\n"
		"truth 83\nlevel 0 82 2500\nlevel 83 128 2625\nnoise lognorm 0.049969\nhang 0.01\nend\n"
		"history m commits 129 seed 6272882702163395321\n"
		"truth 83\nlevel 0 82 2500\nlevel 83 128 2625\nnoise mix 0.049969 0.1 1.5\nend\n");
	const struct bg_bb_history *h = &c.h[0];
	double ms;

	(void)state;
	assert_int_equal(bg_bb_sample(h, 0, 0, &ms), 0);
	near(ms, 2478.395627, 5e-7);
	assert_int_equal(bg_bb_sample(h, 0, 1, &ms), 0);
	near(ms, 2596.160033, 5e-7);
	assert_int_equal(bg_bb_sample(h, 0, 2, &ms), 0);
	near(ms, 2516.306874, 5e-7);
	assert_int_equal(bg_bb_sample(h, 82, 0, &ms), 0);
	near(ms, 2452.185097, 5e-7);
	assert_int_equal(bg_bb_sample(h, 83, 0, &ms), 0);
	near(ms, 2741.009973, 5e-7);
	assert_int_equal(bg_bb_sample(h, 128, 1, &ms), 0);
	near(ms, 2376.032547, 5e-7);
	assert_int_equal(bg_bb_sample(h, 7, 2, &ms), -1);
	assert_int_equal(bg_bb_sample(h, 124, 4, &ms), -1);
	assert_int_equal(bg_bb_sample(&c.h[1], 0, 0, &ms), 0);
	near(ms, 2478.3956267714802, 1e-9);
	assert_int_equal(bg_bb_sample(&c.h[1], 2, 0, &ms), 0);
	near(ms, 3753.9132783910536, 1e-9);
	bg_bb_corpus_release(&c);
}

static void bisect_one(const struct bg_bb_history *h, double threshold, unsigned k,
		       struct bg_bisect_result *r, struct bg_bisect_counts *n)
{
	struct bg_bisect_config cfg;

	bg_bisect_config_init(&cfg, h->commits);
	cfg.sigma = h->sigma;
	cfg.threshold = threshold;
	cfg.workers = k;
	bg_bb_bisect(h, &cfg, r, n);
}

/* A clear regression: the culprit itself, with its posterior, in about log2 N builds. */
static void test_finds_culprit(void **state)
{
	struct bg_bb_corpus c = corpus(
		"bbench 1\nhistory a commits 65 seed 42\ntruth 37\nlevel 0 36 2500\n"
		"level 37 64 3000\nnoise lognorm 0.02\nhang 0\nend\n");
	struct bg_bisect_result r;
	struct bg_bisect_counts n;

	(void)state;
	bisect_one(&c.h[0], log(1.05), 1, &r, &n);
	assert_int_equal(r.outcome, BG_BISECT_FOUND);
	assert_int_equal(r.first, 37);
	assert_int_equal(r.last, 37);
	assert_true(r.probability >= 0.995);
	near(r.step, log(1.2), 0.03);
	assert_int_equal(r.nculprits, 1);
	assert_true(n.builds <= 10);
	bg_bb_corpus_release(&c);
}

/* The endpoints do not differ: said so, without bisecting. */
static void test_not_reproducible(void **state)
{
	struct bg_bb_corpus c = corpus(
		"bbench 1\nhistory a commits 65 seed 9\ntruth none\nlevel 0 64 2500\n"
		"noise lognorm 0.02\nend\n");
	struct bg_bisect_result r;
	struct bg_bisect_counts n;

	(void)state;
	bisect_one(&c.h[0], log(1.05), 1, &r, &n);
	assert_int_equal(r.outcome, BG_BISECT_NOT_REPRODUCIBLE);
	assert_int_equal(n.builds, 0);
	assert_true(fabs(r.endpoint_shift) < 0.02);
	bg_bb_corpus_release(&c);
}

/* Every commit around the culprit fails to build: git bisect's "could be any of". */
static void test_unbuildable_range(void **state)
{
	struct bg_bb_corpus c = corpus(
		"bbench 1\nhistory a commits 17 seed 5\ntruth 9\nlevel 0 8 2500\nlevel 9 16 3000\n"
		"noise lognorm 0.02\nbuild_fail 6 7 8 9\nend\n");
	struct bg_bisect_result r;
	struct bg_bisect_counts n;
	int first, last;

	(void)state;
	bg_bb_ideal(&c.h[0], 9, &first, &last);
	assert_int_equal(first, 6);
	assert_int_equal(last, 10);
	bisect_one(&c.h[0], log(1.05), 1, &r, &n);
	assert_int_equal(r.outcome, BG_BISECT_FOUND);
	assert_int_equal(r.first, 6);
	assert_int_equal(r.last, 10);
	assert_true(n.failed_builds >= 1);
	bg_bb_corpus_release(&c);
}

/* Boots that hang are never values; past a third of them the engine gives up. */
static void test_infra_abort(void **state)
{
	struct bg_bb_corpus c = corpus(
		"bbench 1\nhistory a commits 65 seed 3\ntruth 20\nlevel 0 19 2500\nlevel 20 64 3000\n"
		"noise lognorm 0.02\nhang 0.6\nend\n");
	struct bg_bisect_result r;
	struct bg_bisect_counts n;

	(void)state;
	bisect_one(&c.h[0], log(1.05), 1, &r, &n);
	assert_int_equal(r.outcome, BG_BISECT_INFRA);
	assert_true(3 * n.hung > n.boots);
	bg_bb_corpus_release(&c);
}

/* The corpus g generates, read back. */
static struct bg_bb_corpus generated(const struct bg_bb_gen *g)
{
	struct bg_bb_corpus c;
	char *text;
	size_t len;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	assert_int_equal(bg_bb_generate(f, g), 0);
	fclose(f);
	assert_int_equal(bg_bb_parse_mem("gen.bb", text, len, &c), 0);
	free(text);
	return c;
}

/* k workers: the same answers in far fewer rounds. */
static void test_k_way_rounds(void **state)
{
	struct bg_bb_gen g;
	struct bg_bb_corpus c;
	struct bg_bb_score s1, s4;

	(void)state;
	bg_bb_gen_init(&g);
	g.N = 128;
	g.d = 0.2;
	g.cv = 0.05;
	g.histories = 40;
	g.seed = 11;
	c = generated(&g);
	bg_bb_run(&c, BG_BB_BOOTGATE, &(struct bg_bb_opts){ .k = 1 }, &s1);
	bg_bb_run(&c, BG_BB_BOOTGATE, &(struct bg_bb_opts){ .k = 4 }, &s4);
	print_message("k=1: %.1f rounds, k=4: %.1f rounds\n", s1.rounds / 40, s4.rounds / 40);
	assert_int_equal(s1.correct, 40);
	assert_int_equal(s4.correct, 40);
	assert_true(s1.rounds >= 2.5 * s4.rounds);
	bg_bb_score_release(&s1);
	bg_bb_score_release(&s4);
	bg_bb_corpus_release(&c);
}

/* n generated histories of N = 128 and d = 20%: cv 5%, and mix or tails noise */
static struct bg_bb_corpus noisy_corpus(unsigned n, double p_slow, double slow, unsigned df)
{
	struct bg_bb_gen g;

	bg_bb_gen_init(&g);
	g.d = 0.2;
	g.histories = n;
	g.seed = 7;
	g.p_slow = p_slow;
	g.slow = slow;
	g.df = df;
	return generated(&g);
}

/*
 * A share of boots that wait (30% of them 1.5 times slower: the slow mode twice as far
 * as the regression), with the noise from history and from the boots alone: the model
 * alone names wrong culprits with a posterior over 0.9, bootgate none.
 */
static void test_bimodal_never_sure_and_wrong(void **state)
{
	struct bg_bb_corpus c = noisy_corpus(150, 0.3, 1.5, 0);
	struct bg_bb_score s;

	(void)state;
	for (int hist = 0; hist < 2; hist++) {
		struct bg_bb_opts o = { .k = 1, .no_history = hist };

		bg_bb_run(&c, BG_BB_MODEL_ONLY, &o, &s);
		print_message("model alone, %s: %zu of 150 right, %zu sure and wrong\n",
			      hist ? "no history" : "history", s.correct, s.confident_wrong);
		assert_true(s.confident_wrong >= 30);
		bg_bb_score_release(&s);
		bg_bb_run(&c, BG_BB_BOOTGATE, &o, &s);
		print_message("bootgate, %s: %zu of 150 right, %zu unknown, %zu sure and wrong\n",
			      hist ? "no history" : "history", s.correct, s.unknown,
			      s.confident_wrong);
		assert_int_equal(s.confident_wrong, 0);
		assert_true(s.correct >= 135);
		bg_bb_score_release(&s);
	}
	bg_bb_corpus_release(&c);
}

/* Most boots wait 300 times longer than the rest (as init_kprobe_trace on two CPUs). */
static void test_mostly_waiting(void **state)
{
	struct bg_bb_corpus c = noisy_corpus(100, 0.85, 300, 0);
	struct bg_bb_score s;

	(void)state;
	bg_bb_run(&c, BG_BB_BOOTGATE, &(struct bg_bb_opts){ .k = 1, .no_history = true }, &s);
	print_message("%zu of 100 right, %.1f boots each\n", s.correct, s.boots / 100);
	assert_int_equal(s.confident_wrong, 0);
	assert_true(s.correct >= 95);
	bg_bb_score_release(&s);
	bg_bb_corpus_release(&c);
}

/*
 * Heavy tails (Student's t of 2 degrees), with the noise from history and without: the
 * model alone names wrong culprits over 0.9, bootgate finds every one and none wrong.
 */
static void test_heavy_tails(void **state)
{
	struct bg_bb_corpus c = noisy_corpus(150, 0, 0, 2);
	struct bg_bb_score s;

	(void)state;
	for (int hist = 0; hist < 2; hist++) {
		struct bg_bb_opts o = { .k = 1, .no_history = hist };

		bg_bb_run(&c, BG_BB_MODEL_ONLY, &o, &s);
		assert_true(s.confident_wrong >= 2);
		bg_bb_score_release(&s);
		bg_bb_run(&c, BG_BB_BOOTGATE, &o, &s);
		assert_int_equal(s.confident_wrong, 0);
		assert_true(s.correct >= 147);
		bg_bb_score_release(&s);
	}
	bg_bb_corpus_release(&c);
}

/*
 * A regression partly undone inside the range (2500, then 3500, then 2750 ms): the
 * commits of the middle are outliers to both ends, yet a level of their own; the
 * bisection names a step and ends within its budget, as the model alone does.
 */
static void test_partly_undone(void **state)
{
	struct bg_bb_corpus c = corpus(
		"bbench 1\nhistory a commits 129 seed 5\ntruth 40\nlevel 0 39 2500\n"
		"level 40 79 3500\nlevel 80 128 2750\nnoise lognorm 0.02\nhang 0\nend\n");
	struct bg_bisect_result r;
	struct bg_bisect_counts n;

	(void)state;
	bisect_one(&c.h[0], log(1.05), 1, &r, &n);
	print_message("%s %d..%d, %u boots\n", bg_bisect_outcome_name(r.outcome), r.first, r.last,
		      n.boots);
	assert_int_equal(r.outcome, BG_BISECT_FOUND);
	assert_true(r.first == 40 || r.first == 80);
	assert_true(n.boots < 200);
	bg_bb_corpus_release(&c);
}

/*
 * The edge test on values that repeat exactly (deterministic mode): one boot of the
 * culprit and one of its parent decide, no more are asked for.
 */
static void test_exact_edges(void **state)
{
	struct bg_bisect_config cfg;
	struct bg_bisect_request req[4];
	struct bg_bisect_counts counts;
	struct bg_bisect *b;
	size_t n;

	(void)state;
	bg_bisect_config_init(&cfg, 17);
	cfg.min_edge = 1;
	cfg.n0 = 2;
	cfg.threshold = log(1.05);
	b = bg_bisect_new(&cfg);
	while (bg_bisect_next(b, req, ARRAY_SIZE(req), &n) == BG_BISECT_MEASURE)
		for (size_t i = 0; i < n; i++) {
			if (req[i].build)
				bg_bisect_built(b, req[i].commit, true);
			for (unsigned v = 0; v < req[i].values; v++)
				bg_bisect_value(b, req[i].commit, req[i].commit >= 11 ? log(3000) : log(2500));
		}
	assert_int_equal(bg_bisect_result(b)->outcome, BG_BISECT_FOUND);
	assert_int_equal(bg_bisect_result(b)->first, 11);
	assert_int_equal(bg_bisect_result(b)->last, 11);
	assert_true(bg_bisect_result(b)->probability > 0.99);
	bg_bisect_counts(b, &counts);
	print_message("%u boots\n", counts.boots);
	assert_true(counts.boots <= 10);
	bg_bisect_free(b);
}

/*
 * A regression made of two commits: both are found, with their own steps, when every
 * range beside a culprit is checked. (Whether to check is decided from the endpoints'
 * boots, at their least favourable: with 3 of them this history is a borderline case,
 * see test_two_steps_gated.)
 */
static void test_two_steps(void **state)
{
	struct bg_bb_corpus c = corpus(
		"bbench 1\nhistory a commits 129 seed 77\ntruth 30 90\nlevel 0 29 2500\n"
		"level 30 89 2750\nlevel 90 128 3000\nnoise lognorm 0.02\nhang 0.01\nend\n");
	struct bg_bisect_config cfg;
	struct bg_bisect_result r;
	struct bg_bisect_counts n;
	bool f30 = false, f90 = false;

	(void)state;
	bg_bisect_config_init(&cfg, c.h[0].commits);
	cfg.sigma = c.h[0].sigma;
	cfg.threshold = log(1.05);
	cfg.steps = BG_BISECT_ALL_STEPS;
	bg_bb_bisect(&c.h[0], &cfg, &r, &n);
	assert_int_equal(r.outcome, BG_BISECT_FOUND);
	assert_int_equal(r.nculprits, 2);
	for (unsigned i = 0; i < r.nculprits; i++) {
		f30 |= r.culprits[i].first == 30 && r.culprits[i].last == 30;
		f90 |= r.culprits[i].first == 90 && r.culprits[i].last == 90;
		near(r.culprits[i].step, log(1.1), 0.04);
	}
	assert_true(f30 && f90);
	assert_true(fabs(r.unexplained) < 0.04);
	bg_bb_corpus_release(&c);
}

/*
 * Two steps of half the regression each, looked for only when the first explains too
 * little: most are found, more than by the model alone (measured: 92% and 71.5% of the
 * steps of 300 histories).
 */
static void test_two_steps_gated(void **state)
{
	struct bg_bb_corpus c;
	struct bg_bb_score s, m;
	struct bg_bb_gen g;

	(void)state;
	bg_bb_gen_init(&g);
	g.d = 0.2;
	g.cv = 0.02;
	g.steps[0] = g.steps[1] = 0.5;
	g.nsteps = 2;
	g.histories = 60;
	g.seed = 3;
	c = generated(&g);
	bg_bb_run(&c, BG_BB_BOOTGATE, &(struct bg_bb_opts){ .k = 1 }, &s);
	bg_bb_run(&c, BG_BB_MODEL_ONLY, &(struct bg_bb_opts){ .k = 1 }, &m);
	print_message("steps found: %zu of %zu, the model alone %zu\n", s.steps_found, s.steps,
		      m.steps_found);
	assert_true(s.steps_found >= 0.85 * (double)s.steps);
	assert_true(s.steps_found >= m.steps_found);
	assert_int_equal(s.false_culprits, 0);
	bg_bb_score_release(&s);
	bg_bb_score_release(&m);
	bg_bb_corpus_release(&c);
}

/* The engine asks nothing odd of its caller and survives odd reports. */
static void test_protocol(void **state)
{
	struct bg_bisect_config cfg;
	struct bg_bisect *b;
	struct bg_bisect_request req[8];
	size_t n;

	(void)state;
	bg_bisect_config_init(&cfg, 2);
	cfg.sigma = 0.02;
	b = bg_bisect_new(&cfg);
	/* the first requests boot both endpoints, which need no build */
	assert_int_equal(bg_bisect_next(b, req, 8, &n), BG_BISECT_MEASURE);
	assert_int_equal(n, 2);
	assert_int_equal(req[0].commit, 0);
	assert_int_equal(req[1].commit, 1);
	assert_false(req[0].build);
	assert_int_equal(req[0].values, 3);
	assert_int_equal(req[0].max_boots, 12);
	/* out-of-range commits and NaN values are ignored */
	bg_bisect_value(b, 7, 1.0);
	bg_bisect_value(b, 0, NAN);
	for (int i = 0; i < 3; i++) {
		bg_bisect_value(b, 0, 0.0 + 0.01 * i);
		bg_bisect_value(b, 1, 0.3 + 0.01 * i);
	}
	/* two adjacent commits: the culprit is the bad one */
	while (bg_bisect_next(b, req, 8, &n) == BG_BISECT_MEASURE)
		for (size_t i = 0; i < n; i++)
			for (unsigned v = 0; v < req[i].values; v++)
				bg_bisect_value(b, req[i].commit, req[i].commit ? 0.3 : 0.0);
	assert_int_equal(bg_bisect_result(b)->outcome, BG_BISECT_FOUND);
	assert_int_equal(bg_bisect_result(b)->first, 1);
	bg_bisect_free(b);
}

static void test_corpus_errors(void **state)
{
	static const struct {
		const char *text, *error;
	} bad[] = {
		{ "", "x.bb: empty corpus: no 'bbench 1' line" },
		{ "bbench 2\n", "x.bb:1: unknown corpus version '2' (this reads 1)" },
		{ "bbench 1\nlevel 0 1 5\n", "x.bb:2: 'level' outside a history" },
		{ "bbench 1\nhistory a commits 1 seed 3\n", "x.bb:2: commits must be a number from 2 to 1000000, not '1'" },
		{ "bbench 1\nhistory a commits 9 seed -3\n", "x.bb:2: the seed must be an unsigned 64-bit number, not '-3'" },
		{ "bbench 1\nhistory a commits 9 seed 3\ntruth 9\n", "x.bb:3: truth '9' is not a commit from 1 to 8" },
		{ "bbench 1\nhistory a commits 9 seed 3\nlevel 0 8 -5\n", "x.bb:3: level median must be a positive number, not '-5'" },
		{ "bbench 1\nhistory a commits 9 seed 3\nlevel 0 8 nan\n", "x.bb:3: level median must be a positive number, not 'nan'" },
		{ "bbench 1\nhistory a commits 9 seed 3\nbuild_fail 8\n", "x.bb:3: build_fail '8' is not a commit from 1 to 7 (the endpoints build)" },
		{ "bbench 1\nhistory a commits 9 seed 3\nlevel 0 4 5\nnoise lognorm 0.1\nend\n", "x.bb:2: history 'a': no level for commit 5" },
		{ "bbench 1\nhistory a commits 9 seed 3\nfrobnicate\n", "x.bb:3: unknown directive 'frobnicate'" },
		{ "bbench 1\nhistory a commits 9 seed 3\nlevel 0 8 5\n", "x.bb:3: history 'a' has no 'end'" },
		{ "bbench 1\n# only a comment\n", "x.bb: no history in the corpus" },
		{ "bbench 1\nhistory a commits 9 seed 3\nlevel 0 8 5\nnoise lognorm 0.1\nend\n",
		  "x.bb:2: history 'a': no truth line ('truth none' for one without a regression)" },
		{ "bbench 1\nhistory a commits 9 seed 3\ntruth none\nlevel 0 8 5\nnoise lognorm 0.1\n"
		  "end\nhistory a commits 9 seed 3\n", "x.bb:7: a second history 'a' (the first at line 2)" },
		{ "bbench 1\nhistory a commits 9 seed 3\nlevel 0 8 0x10\n",
		  "x.bb:3: level median must be a positive number, not '0x10'" },
		{ "bbench 1\nhistory a commits 9 seed 3\nlevel 0 8 1e308\n",
		  "x.bb:3: level median must be a positive number, not '1e308'" },
		{ "bbench 1\nhistory a commits 9 seed 3\nnoise t 0.05 1\n",
		  "x.bb:3: t needs degrees of freedom from 2 to 100, not '1'" },
		{ "bbench 1\nhistory a commits 9 seed 3\nnoise t 0.05 3x\n",
		  "x.bb:3: t needs degrees of freedom from 2 to 100, not '3x'" },
		{ "bbench 1\nhistory a commits 9 seed 3\nnoise t 0.05\n",
		  "x.bb:3: expected 'noise lognorm SIGMA', 'noise mix SIGMA P FACTOR' or 'noise t SIGMA DF'" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct bg_bb_corpus c;

		assert_int_equal(bg_bb_parse_mem("x.bb", bad[i].text, strlen(bad[i].text), &c), -1);
		assert_string_equal(bg_error_last(), bad[i].error);
	}
}

/* Found by fuzzing: a last line read past the end of a buffer that is not a C string. */
static void test_corpus_unterminated(void **state)
{
	static const char text[] = "bbench 1\nscenario N=128 # a comment";
	char *buf = malloc(sizeof(text) - 1);
	struct bg_bb_corpus c;

	(void)state;
	memcpy(buf, text, sizeof(text) - 1);
	assert_int_equal(bg_bb_parse_mem("u.bb", buf, sizeof(text) - 1, &c), -1);
	assert_string_equal(bg_error_last(), "u.bb: no history in the corpus");
	free(buf);
}

/* p95 is the nearest rank: the smallest count with at least 95% of the histories at or below. */
static void test_percentile(void **state)
{
	unsigned counts[10] = { 7, 1, 10, 3, 2, 9, 4, 6, 5, 8 };
	struct bg_bb_score s;

	(void)state;
	memset(&s, 0, sizeof(s));
	s.boot_counts = counts;
	s.histories = 10;
	assert_int_equal(bg_bb_score_boots_quantile(&s, 0.95), 10);
	assert_int_equal(bg_bb_score_boots_quantile(&s, 0.5), 5);
	assert_int_equal(bg_bb_score_boots_quantile(&s, 0.9), 9);
	s.histories = 1;
	assert_int_equal(bg_bb_score_boots_quantile(&s, 0.95), 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sampler_reference),
		cmocka_unit_test(test_finds_culprit),
		cmocka_unit_test(test_not_reproducible),
		cmocka_unit_test(test_unbuildable_range),
		cmocka_unit_test(test_infra_abort),
		cmocka_unit_test(test_k_way_rounds),
		cmocka_unit_test(test_two_steps),
		cmocka_unit_test(test_two_steps_gated),
		cmocka_unit_test(test_bimodal_never_sure_and_wrong),
		cmocka_unit_test(test_mostly_waiting),
		cmocka_unit_test(test_heavy_tails),
		cmocka_unit_test(test_partly_undone),
		cmocka_unit_test(test_exact_edges),
		cmocka_unit_test(test_protocol),
		cmocka_unit_test(test_corpus_errors),
		cmocka_unit_test(test_percentile),
		cmocka_unit_test(test_corpus_unterminated),
	};

	return cmocka_run_group_tests_name("bisect", tests, NULL, NULL);
}
