/*
 * Unit tests of the typed results (store/results.c) and of what reads them: the mail
 * (publish/mailer.c), the JSON of --json and the site (publish/results.c): one figure
 * printed the same everywhere, from rows with columns.
 */
#include <math.h>

#include "unit.h"
#include "conf/service-conf.h"
#include "publish/mailer.h"
#include "publish/results.h"
#include "store/results.h"
#include "util/error.h"
#include "util/json.h"
#include "util/xmalloc.h"

#define GOOD "1111111111111111111111111111111111111111"
#define CULPRIT "2222222222222222222222222222222222222222"
#define PARENT "3333333333333333333333333333333333333333"
#define BAD "4444444444444444444444444444444444444444"

static char *dir;

static int setup(void **state)
{
	(void)state;
	dir = unit_scratch_dir("results");
	return dir ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	bg_remove_tree(dir);
	free(dir);
	return 0;
}

static struct bg_store *store(const char *name)
{
	char *db = xasprintf("%s/%s.db", dir, name);
	struct bg_store *s;

	unlink(db);
	assert_int_equal(bg_store_open(db, &s), 0);
	free(db);
	assert_int_equal(bg_store_exec(s, "INSERT INTO trees (id, name, path, branch) VALUES "
				       "(1, 'tracing', '/nonexistent', 'for-next')", ""), 0);
	return s;
}

static struct bg_verdict verdict(const char *metric, enum bg_verdict_kind k, double base,
				 double cand, bool exact, double p)
{
	return (struct bg_verdict){ .metric = xstrdup(metric), .verdict = k,
				    .base_median = base, .cand_median = cand, .mad_base = 0,
				    .mad_cand = 0, .delta = cand - base,
				    .delta_pct = bg_change_pct(cand - base, base), .ci_lo = cand - base,
				    .ci_hi = cand - base, .p = p, .q = p, .n_base = 2, .n_cand = 2,
				    .exact = exact };
}

/* A comparison of two commits with the verdicts given, written through the store's API. */
static int64_t add_comparison(struct bg_store *s, enum bg_role role, int64_t bisection,
			      const char *mode, const char *base, const char *cand,
			      const struct bg_verdict *v, size_t n)
{
	struct bg_stored_comparison c;
	int64_t id;

	bg_stored_comparison_init(&c);
	c.role = role;
	c.tree_id = 1;
	c.bisection_id = bisection;
	c.base = xstrdup(base);
	c.cand = xstrdup(cand);
	c.board = xstrdup("qemu-x86_64");
	c.mode = xstrdup(mode);
	c.verdict = xstrdup(bg_verdict_name(v[0].verdict));
	c.metric = xstrdup(v[0].metric);
	c.delta = v[0].delta;
	c.boots[BG_BASE] = c.boots[BG_CAND] = 2;
	c.cmp.v = xcalloc(n, sizeof(*c.cmp.v));
	for (size_t i = 0; i < n; i++)
		c.cmp.v[c.cmp.n++] = v[i];
	assert_int_equal(bg_store_comparison_add(s, &c), 0);
	id = c.id;
	bg_stored_comparison_release(&c);
	return id;
}

/* Rows and back: every column of a verdict, NaN as NaN, the order kept. */
static void test_round_trip(void **state)
{
	struct bg_store *s = store("round-trip");
	struct bg_verdict v[2] = {
		verdict("initcall.init_kprobe_trace", BG_DIFFERENT, 46110, 769988, true, NAN),
		verdict("boot.init", BG_UNKNOWN, 900000, 1600000, false, 0.03),
	};
	struct bg_stored_comparison c;
	int64_t id;

	(void)state;
	v[1].more_boots = 3;
	v[1].ci_lo = NAN;
	id = add_comparison(s, BG_ROLE_GATE, 0, "deterministic", GOOD, BAD, v, 2);
	bg_stored_comparison_init(&c);
	assert_int_equal(bg_store_comparison_get(s, id, &c), 1);
	assert_string_equal(c.tree, "tracing");
	assert_int_equal(c.role, BG_ROLE_GATE);
	assert_int_equal(c.cmp.n, 2);
	assert_string_equal(c.cmp.v[0].metric, "initcall.init_kprobe_trace");
	assert_true(c.cmp.v[0].exact);
	assert_true(isnan(c.cmp.v[0].p));
	assert_true(c.cmp.v[0].delta == 723878);
	assert_false(c.cmp.v[1].exact);
	assert_int_equal(c.cmp.v[1].verdict, BG_UNKNOWN);
	assert_int_equal(c.cmp.v[1].more_boots, 3);
	assert_true(isnan(c.cmp.v[1].ci_lo));
	assert_true(c.cmp.v[1].p == 0.03);
	bg_stored_comparison_release(&c);
	assert_int_equal(bg_store_comparison_get(s, id + 1, &c), 0);
	bg_store_close(s);
}

static const char conf_text[] =
	"state: st\n"
	"report:\n"
	"  from: \"bootgate <bot@ci.example.org>\"\n"
	"  smtp: smtp://127.0.0.1:25\n"
	"  site-url: https://ci.example.org\n"
	"trees:\n"
	"  - name: tracing\n"
	"    url: git://127.0.0.1/tracing\n"
	"    branch: for-next\n"
	"    arches: [x86_64]\n"
	"    mail: {to: [\"list@example.org\"]}\n";

struct captured {
	char *message;
	char *note;
	char *subject;
};

static void capture(const struct bg_mailer_event *e, void *data)
{
	struct captured *c = data;

	if (e->message) {
		free(c->message);
		c->message = xstrdup(e->message);
	}
	if (e->note) {
		free(c->note);
		c->note = xstrdup(e->note);
	}
	if (e->subject) {
		free(c->subject);
		c->subject = xstrdup(e->subject);
	}
}

/*
 * The one mail the outbox makes under a configuration, in a dry run: its whole message,
 * its subject decoded.
 */
static char *mail_by(struct bg_store *s, const char *conf, char **subject)
{
	struct bg_service_conf c;
	struct captured got = { NULL, NULL, NULL };

	assert_int_equal(bg_service_conf_load_mem("bootgate.yaml", dir, conf, strlen(conf), &c),
			 0);
	assert_int_equal(bg_mailer_compose(s, &c, true, capture, &got), 1);
	bg_service_conf_release(&c);
	if (!got.message)
		print_message("no mail: %s\n", got.note ? got.note : "-");
	assert_non_null(got.message);
	free(got.note);
	if (subject)
		*subject = got.subject;
	else
		free(got.subject);
	return got.message;
}

static char *mail_of(struct bg_store *s, char **subject)
{
	return mail_by(s, conf_text, subject);
}

/* Line ends and the wrapping of paragraphs aside: the words of a mail's body. */
static void flatten(char *m)
{
	char *w = m;

	for (char *r = m; *r; r++) {
		if (*r == '\r')
			continue;
		*w++ = *r == '\n' ? ' ' : *r;
	}
	*w = '\0';
}

/*
 * A series' patch whose metric did not repeat exactly, beside a metric that did: the mail
 * gives that patch's own test (p, q), never "none needed" because another metric of the
 * comparison was exact (the figures were read from "verdicts.0.exact" for every metric).
 */
static void test_series_exact_per_metric(void **state)
{
	struct bg_store *s = store("series-exact");
	struct bg_verdict v[2] = {
		verdict("boot.init", BG_DIFFERENT, 1000000, 1100000, true, NAN),
		verdict("initcall.pty_init", BG_DIFFERENT, 174211, 183124, false, 0.0004),
	};
	char *m;
	int64_t cmp;

	(void)state;
	cmp = add_comparison(s, BG_ROLE_SERIES, 0, "timing", GOOD, CULPRIT, v, 2);
	assert_int_equal(bg_store_exec(s, "INSERT INTO series (id, tree_id, message_id, total, "
		"subject, source, base, board, mode, state, created, finished) VALUES (1, 1, "
		"'p1@x', 1, '[PATCH] tty: slow', 'cli', ?, 'qemu-x86_64', 'timing', 'done', 1, 2)",
		"s", GOOD), 0);
	assert_int_equal(bg_store_exec(s, "INSERT INTO series_patches (series_id, idx, "
		"message_id, subject, author, mbox, commit_sha, status, comparison_id, verdict, "
		"metric, delta) VALUES (1, 1, 'p1@x', '[PATCH] tty: slow', 'A U Thor <a@x.org>', "
		"'From: A U Thor <a@x.org>', ?, 'applied', ?, 'regression', 'initcall.pty_init', "
		"8913)", "si", CULPRIT, cmp), 0);
	assert_int_equal(bg_store_outbox_add(s, "series", 1), 0);
	m = mail_of(s, NULL);
	flatten(m);
	assert_non_null(strstr(m, "Patch 1/1 made initcall.pty_init slower: 174211 -> 183124 "
			       "\xc2\xb5s (+8913 \xc2\xb5s, +5.1%)"));
	assert_non_null(strstr(m, "test     p = 0.0004, q = 0.0004"));
	assert_null(strstr(m, "none needed"));
	free(m);
	bg_store_close(s);
}

/* The percent in a JSON document's member "key": ... "delta_pct": N */
static double json_pct(const char *json, const char *key)
{
	const char *at = strstr(json, key);

	assert_non_null(at);
	at = strstr(at, "\"delta_pct\":");
	assert_non_null(at);
	return strtod(at + strlen("\"delta_pct\":"), NULL);
}

/*
 * One change, one size: the culprit's step of a deterministic bisection, confirmed in
 * timing mode, reads the same in the mail and in the JSON of show and of the site (they
 * differed: +1 654 380.6 % against +1 669 842.1 %); the mail leads with the timing figure.
 */
static void test_bisection_one_truth(void **state)
{
	struct bg_store *s = store("bisection");
	struct bg_verdict step[1] = {
		verdict("probe.serial8250", BG_DIFFERENT, 489, 8090191, true, NAN),
	};
	struct bg_verdict timing[2] = {
		verdict("probe.serial8250", BG_DIFFERENT, 7479, 1215004, false, 1e-6),
		verdict("boot.init", BG_DIFFERENT, 1100000, 2300000, false, 1e-5),
	};
	struct bg_verdict revert[1] = {
		verdict("probe.serial8250", BG_DIFFERENT, 489, 8090191, true, NAN),
	};
	char pct[32], *m, *subject;
	struct bg_json j;

	(void)state;
	assert_int_equal(bg_store_exec(s, "INSERT INTO commits (sha, parent, subject, author) "
		"VALUES (?, ?, 'serial: register the legacy ports in the probe', 'A U Thor "
		"<a@x.org>')", "ss", CULPRIT, PARENT), 0);
	assert_int_equal(bg_store_exec(s, "INSERT INTO bisections (id, tree_id, good, bad, board, "
		"mode, metric, state, outcome, culprit, confidence, created, finished, range_first, "
		"range_last, revert_applies, revert_commit, regression_us) VALUES (1, 1, ?, ?, "
		"'qemu-x86_64', 'deterministic', 'probe.serial8250', 'done', 'found', ?, 0.999, 1, "
		"2, 1, 1, 1, ?, 8089702)", "ssss", GOOD, BAD, CULPRIT, BAD), 0);
	assert_int_equal(bg_store_exec(s, "INSERT INTO bisection_commits VALUES (1, 0, ?), "
		"(1, 1, ?), (1, 2, ?)", "sss", GOOD, CULPRIT, BAD), 0);
	add_comparison(s, BG_ROLE_STEP, 1, "deterministic", PARENT, CULPRIT, step, 1);
	add_comparison(s, BG_ROLE_TIMING, 1, "timing", PARENT, CULPRIT, timing, 2);
	add_comparison(s, BG_ROLE_REVERT, 1, "deterministic", BAD, BAD, revert, 1);
	/* the bad tip's gates on the tree's other boards: one passed, one did not build */
	assert_int_equal(bg_store_exec(s, "INSERT INTO comparisons (base, cand, board, mode, "
		"verdict, created, tree_id, role) VALUES (?, ?, 'qemu-arm64', 'deterministic', "
		"'pass', 3, 1, 'gate'), (?, ?, 'qemu-x86_64', 'deterministic', 'regression', 3, 1, "
		"'gate')", "ssss", GOOD, BAD, GOOD, BAD), 0);
	assert_int_equal(bg_store_exec(s, "INSERT INTO builds (commit_sha, board, status, created) "
		"VALUES (?, 'lava-x86-pc', 'failed', 3)", "s", BAD), 0);
	assert_int_equal(bg_store_outbox_add(s, "bisection", 1), 0);

	bg_json_init(&j, -1, 0);
	assert_int_equal(bg_bisection_result_write(s, 1, &j), 0);
	/* the step, and the headline: timing's figure, the exact one beside it */
	assert_true(fabs(json_pct(j.out.buf, "\"step\"") - 1654335.8) < 0.1);
	assert_true(fabs(json_pct(j.out.buf, "\"headline\"") - 16145.5) < 0.1);
	{
		const char *e = strstr(j.out.buf, "\"exact_delta_pct\":");

		assert_non_null(e);
		assert_true(fabs(strtod(e + strlen("\"exact_delta_pct\":"), NULL) - 1654335.8) < 0.1);
	}
	assert_non_null(strstr(j.out.buf, "\"restored_us\":8089702"));
	assert_non_null(strstr(j.out.buf, "\"restores\":true"));

	m = mail_of(s, &subject);
	snprintf(pct, sizeof(pct), "(%+.1f%%)", json_pct(j.out.buf, "\"headline\""));
	assert_string_equal(subject, "[tracing:for-next] 222222222222 serial: register the legacy "
			    "ports in the probe: probe.serial8250 +1207525 \xc2\xb5s (+16145.5%) "
			    "boot-time regression on qemu-x86_64");
	assert_non_null(strstr(subject, pct));
	free(subject);
	flatten(m);
	/* the board's own verdict is the bisection's: only the others are listed */
	assert_non_null(strstr(m, "board:  qemu-x86_64, deterministic mode other boards: "
			       "lava-x86-pc unbuildable, qemu-arm64 pass "));
	assert_non_null(strstr(m, "shows +8089702 \xc2\xb5s (+1654335.8%)"));
	assert_non_null(strstr(m, "change   +8089702 \xc2\xb5s (+1654335.8%)"));
	assert_non_null(strstr(m, "restores 8089702 \xc2\xb5s of 8089702 (100%): different."));
	free(m);
	bg_strbuf_release(&j.out);
	bg_store_close(s);
}

/*
 * A bisection's end, written and read back: every column of the conclusion (a double
 * bound as a string crashed the merge's inner bisection at its end, exit 139).
 */
static void test_bisection_conclusion(void **state)
{
	struct bg_store *s = store("conclusion");
	struct bg_bisection_conclusion c = {
		.outcome = "found", .culprit = CULPRIT, .confidence = 0.998, .range_first = 1,
		.range_last = 2, .exact = true, .merge_commit = PARENT, .revert_applies = 1,
		.revert_commit = BAD, .regression_us = 5957.5,
	};
	struct bg_stored_bisection b;

	(void)state;
	assert_int_equal(bg_store_exec(s, "INSERT INTO bisections (id, tree_id, good, bad, board, "
		"mode, metric, state, created) VALUES (7, 1, ?, ?, 'qemu-x86_64', 'deterministic', "
		"'initcall.init_kprobe_trace', 'running', ?)", "ssd", GOOD, BAD,
		bg_store_now() - 60), 0);
	assert_int_equal(bg_store_bisection_conclude(s, 7, &c), 0);
	assert_int_equal(bg_store_bisection_get(s, 7, &b), 1);
	assert_string_equal(b.state, "done");
	assert_string_equal(b.outcome, "found");
	assert_string_equal(b.culprit, CULPRIT);
	assert_true(fabs(b.confidence - 0.998) < 1e-9);
	assert_int_equal(b.range_first, 1);
	assert_int_equal(b.range_last, 2);
	assert_true(b.exact);
	assert_string_equal(b.merge_commit, PARENT);
	assert_int_equal(b.revert_applies, 1);
	assert_string_equal(b.revert_commit, BAD);
	assert_true(b.regression_us == 5957.5);
	assert_true(b.wall_s >= 59 && b.wall_s < 600);
	assert_false(isnan(b.finished));
	assert_int_equal(b.builds, 0);
	assert_int_equal(b.boots, 0);
	bg_stored_bisection_release(&b);
	/* none of the optional parts: NULL and -1 stay so, NAN reads back as NAN */
	c = (struct bg_bisection_conclusion){ .outcome = "not_reproducible", .confidence = NAN,
					      .range_first = -1, .range_last = -1,
					      .revert_applies = -1, .regression_us = NAN };
	assert_int_equal(bg_store_bisection_conclude(s, 7, &c), 0);
	assert_int_equal(bg_store_bisection_get(s, 7, &b), 1);
	assert_null(b.culprit);
	assert_null(b.merge_commit);
	assert_int_equal(b.range_first, -1);
	assert_int_equal(b.revert_applies, -1);
	assert_true(isnan(b.regression_us));
	assert_true(isnan(b.confidence));
	bg_stored_bisection_release(&b);
	bg_store_close(s);
}

/* A culprit of init_kprobe_trace, bisected deterministically, its revert not measured. */
static void unmeasured_bisection(struct bg_store *s)
{
	struct bg_verdict step[1] = {
		verdict("initcall.init_kprobe_trace", BG_DIFFERENT, 94, 50036, true, NAN),
	};

	assert_int_equal(bg_store_exec(s, "INSERT INTO commits (sha, parent, subject, author) "
		"VALUES (?, ?, 'tracing: slow', 'A U Thor <a@x.org>')", "ss", CULPRIT, PARENT), 0);
	assert_int_equal(bg_store_exec(s, "INSERT INTO bisections (id, tree_id, good, bad, board, "
		"mode, metric, state, outcome, culprit, confidence, created, finished, range_first, "
		"range_last, revert_applies, revert_commit, regression_us) VALUES (1, 1, ?, ?, "
		"'qemu-x86_64', 'deterministic', 'initcall.init_kprobe_trace', 'done', 'found', ?, "
		"0.999, 1, 2, 1, 1, 1, NULL, 49942)", "sss", GOOD, BAD, CULPRIT), 0);
	assert_int_equal(bg_store_exec(s, "INSERT INTO bisection_commits VALUES (1, 0, ?), "
		"(1, 1, ?), (1, 2, ?)", "sss", GOOD, CULPRIT, BAD), 0);
	add_comparison(s, BG_ROLE_STEP, 1, "deterministic", PARENT, CULPRIT, step, 1);
	assert_int_equal(bg_store_outbox_add(s, "bisection", 1), 0);
}

/*
 * A revert that applied but was never measured (it did not build, the lab failed): the
 * mail says so in words, never "restores nan µs of nan", and the same of the JSON.
 */
static void test_revert_not_measured(void **state)
{
	struct bg_store *s = store("unmeasured");
	struct bg_json j;
	char *m;

	(void)state;
	unmeasured_bisection(s);
	m = mail_of(s, NULL);
	flatten(m);
	assert_non_null(strstr(m, "A revert of it applies to the bad tip, but was not measured."));
	assert_null(strstr(m, "nan"));
	free(m);
	bg_json_init(&j, -1, 0);
	assert_int_equal(bg_bisection_result_write(s, 1, &j), 0);
	assert_null(strstr(j.out.buf, "nan"));
	bg_strbuf_release(&j.out);
	bg_store_close(s);
}

/*
 * regzbot: yes on a tree that sends to its list: the culprit told to the kernel's
 * regression tracker (Documentation/process/handling-regressions.rst) and its list on
 * Cc; without it, neither.
 */
static void test_regzbot(void **state)
{
	static const char regzbot_conf[] =
		"state: st\n"
		"report:\n"
		"  from: \"bootgate <bot@ci.example.org>\"\n"
		"trees:\n"
		"  - name: tracing\n"
		"    url: git://127.0.0.1/tracing\n"
		"    branch: for-next\n"
		"    arches: [x86_64]\n"
		"    mail: {to: [\"list@example.org\"], send: list, regzbot: yes}\n";
	struct bg_store *s = store("regzbot");
	char *m;

	(void)state;
	unmeasured_bisection(s);
	m = mail_by(s, regzbot_conf, NULL);
	assert_non_null(strstr(m, "\r\n\r\n#regzbot introduced: 222222222222\r\n"));
	assert_non_null(strstr(m, "\r\nCc: regressions@lists.linux.dev\r\n"));
	free(m);
	bg_store_close(s);
	s = store("no-regzbot");
	unmeasured_bisection(s);
	m = mail_of(s, NULL);
	assert_null(strstr(m, "regzbot"));
	assert_null(strstr(m, "regressions@"));
	free(m);
	bg_store_close(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_series_exact_per_metric),
		cmocka_unit_test(test_bisection_one_truth),
		cmocka_unit_test(test_bisection_conclusion),
		cmocka_unit_test(test_revert_not_measured),
		cmocka_unit_test(test_regzbot),
	};

	return cmocka_run_group_tests_name("results", tests, setup, teardown);
}
