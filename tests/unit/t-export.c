/*
 * Unit tests of the export: KCIDB names, paths and times, a store's rows as KCIDB
 * objects, and boot-data files written from stored boots.
 */
#include <math.h>
#include <sys/stat.h>

#include "unit.h"
#include "publish/export.h"
#include "util/json-read.h"
#include "store/store.h"
#include "util/error.h"

#define A "1111111111111111111111111111111111111111"
#define B "2222222222222222222222222222222222222222"
#define P1 "3333333333333333333333333333333333333333"
#define HASH "903638c087335b10293663c682b9aa0076f9f7be478a8e7828bc22e12d301b42"


/*
 * The test's own way into the export it checks: a value of d by a path of keys and array
 * indexes ("checkouts.0.id"), NULL when it is not there. The library walks values.
 */
static const struct bg_json_value *at(const struct bg_json_doc *d, const char *path)
{
	const struct bg_json_value *v = bg_json_doc_root(d);
	char *copy = xstrdup(path), *p = copy, *dot;

	for (; v && p; p = dot ? dot + 1 : NULL) {
		char *end;
		unsigned long i;

		if ((dot = strchr(p, '.')))
			*dot = '\0';
		i = strtoul(p, &end, 10);
		v = *p && !*end ? bg_json_at(v, i) : bg_json_get(v, p);
	}
	free(copy);
	return v;
}

static char *dir;

static void test_origin(void **state)
{
	(void)state;
	assert_true(bg_kcidb_origin_ok("bootgate"));
	assert_true(bg_kcidb_origin_ok("lab_2"));
	assert_false(bg_kcidb_origin_ok(""));
	assert_false(bg_kcidb_origin_ok(NULL));
	assert_false(bg_kcidb_origin_ok("Bootgate"));
	assert_false(bg_kcidb_origin_ok("boot-gate"));
	assert_false(bg_kcidb_origin_ok("a:b"));
}

static void test_path(void **state)
{
	static const char *const cases[][2] = {
		/* never under "boot", which KernelCI's dashboard counts as boots */
		{ "initcall.init_kprobe_trace", "boottime.initcall.init_kprobe_trace" },
		{ "boot.init", "boottime.init" },
		{ "boot.userspace", "boottime.userspace" },
		{ "probe.0000:00:1f.2", "boottime.probe.0000_00_1f_2" },
		{ "initcall.blake2s_mod_init#2", "boottime.initcall.blake2s_mod_init_2" },
		{ "initcall.", "boottime.initcall._" },
		{ "weird", "boottime.weird" },
		{ ".x", "boottime._.x" },
		{ "initcall.a b\n\xc3\xa9", "boottime.initcall.a_b___" },
		{ "bootx.y", "boottime.bootx.y" },
		{ "perf.trace_startup", "boottime.perf.trace_startup" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct bg_strbuf sb = BG_STRBUF_INIT;

		bg_kcidb_path(&sb, cases[i][0]);
		assert_string_equal(sb.buf, cases[i][1]);
		bg_strbuf_release(&sb);
	}
}

static void test_time(void **state)
{
	char buf[40];

	(void)state;
	assert_true(bg_kcidb_time(buf, 0));
	assert_string_equal(buf, "1970-01-01T00:00:00.000000+00:00");
	assert_true(bg_kcidb_time(buf, 1764590000.25));
	assert_string_equal(buf, "2025-12-01T11:53:20.250000+00:00");
	/* rounding up to a whole second carries into the seconds */
	assert_true(bg_kcidb_time(buf, 59.9999999));
	assert_string_equal(buf, "1970-01-01T00:01:00.000000+00:00");
	assert_false(bg_kcidb_time(buf, -1));
	assert_string_equal(buf, "");
	assert_false(bg_kcidb_time(buf, NAN));
	assert_false(bg_kcidb_time(buf, 1e300));
}

static struct bg_store *store(const char *name)
{
	char *path = bg_path_join(dir, name);
	struct bg_store *s;

	assert_int_equal(bg_store_open(path, &s), 0);
	free(path);
	return s;
}

/*
 * Bisection id of tree_id, on qemu-x86_64 in timing mode, found B the culprit of metric;
 * its mail (Message-ID mID@x.org) sent at sent, or not yet when sent is 0.
 */
static void add_culprit(struct bg_store *s, int64_t id, int64_t tree_id, const char *metric,
			double confidence, const char *subject, int64_t sent)
{
	char mid[32];

	snprintf(mid, sizeof(mid), "m%" PRId64 "@x.org", id);
	assert_int_equal(bg_store_exec(s, "INSERT INTO bisections (id, tree_id, good, bad, board, "
				       "mode, metric, state, culprit, confidence, created) VALUES "
				       "(?, ?, ?, ?, 'qemu-x86_64', 'timing', ?, 'done', ?, ?, 1)",
				       "iissssd", id, tree_id, A, B, metric, B, confidence), 0);
	assert_int_equal(bg_store_exec(s, "INSERT INTO outbox (id, kind, ref, body, created) VALUES "
				       "(?, 'bisection', ?, '', 1)", "ii", id, id), 0);
	assert_int_equal(bg_store_exec(s, "INSERT INTO mails (outbox_id, about, message_id, "
				       "subject, mail_from, rcpt, message, sent) VALUES (?, ?, ?, ?, 'f', "
				       "'r', 'm', NULLIF(?, 0))", "isssi", id, mid, mid, subject,
				       sent), 0);
}

static void fill(struct bg_store *s, const char *console)
{
	assert_int_equal(bg_store_exec(s, "INSERT INTO trees (id, name, path, url, branch, last_tip) "
				       "VALUES (1, 'tracing', '/srv/t', 'git://127.0.0.1/t', 'next', ?)",
				       "s", B), 0);
	assert_int_equal(bg_store_exec(s, "INSERT INTO commits (sha, subject) VALUES (?, 'base'), "
				       "(?, 'slower')", "ss", A, B), 0);
	assert_int_equal(bg_store_exec(s, "INSERT INTO jobs (kind, tree_id, rev, base, created) "
				       "VALUES ('gate', 1, ?, ?, 1)", "ss", B, A), 0);
	assert_int_equal(bg_store_exec(s, "INSERT INTO series (id, tree_id, message_id, version, "
				       "total, subject, source, base, patchset_hash, state, created) "
				       "VALUES (7, 1, 'cover@x.org', 2, 1, '[PATCH v2 0/1] t', 'cli', ?, "
				       "?, 'done', 1764590000)", "ss", A, HASH), 0);
	assert_int_equal(bg_store_exec(s, "INSERT INTO series_patches (series_id, idx, message_id, "
				       "subject, mbox, commit_sha, status) VALUES (7, 1, 'p1@x.org', "
				       "'[PATCH v2 1/1] t', 'm', ?, 'applied')", "s", P1), 0);
	assert_int_equal(bg_store_exec(s, "INSERT INTO builds (id, commit_sha, board, status, "
				       "config_hash, image_sha256, seconds, created) VALUES "
				       "(1, ?, 'qemu-x86_64', 'built', 'c1', 'img-a', 30, 1764590100), "
				       "(2, ?, 'qemu-x86_64', 'built', 'c1', 'img-b', NULL, 1764590200), "
				       "(3, ?, 'qemu-x86_64', 'built', 'c1', 'img-b', 0, 1764590300), "
				       "(4, ?, 'qemu-x86_64', 'infra', 'c1', NULL, NULL, 1764590400), "
				       "(5, ?, 'qemu-x86_64', 'built', 'c1', 'img-p', 2, 1764590500), "
				       "(6, 'not-a-sha', 'qemu-x86_64', 'failed', 'c1', NULL, 1, 1764590600)",
				       "sssss", A, B, B, B, P1), 0);
	assert_int_equal(bg_store_exec(s, "INSERT INTO boots (id, image_sha256, board, mode, "
				       "outcome, console, wall_s, created) VALUES "
				       "(1, 'img-b', 'qemu-x86_64', 'timing', 'complete', ?, 1.5, 1764590700), "
				       "(2, 'img-b', 'qemu-x86_64', 'timing', 'complete', ?, 2.5, 1764590800), "
				       "(3, 'img-b', 'qemu-x86_64', 'timing', 'hang', NULL, NULL, 1764590900), "
				       "(4, 'img-b', 'qemu-x86_64', 'deterministic', 'complete', "
				       "'/nonexistent/console', NULL, 1764591000)", "ss", console, console), 0);
	/* B bisected as the culprit of init_kprobe_trace and mailed; boot.init's not sent yet */
	add_culprit(s, 1, 1, "initcall.init_kprobe_trace", 0.97, "slower", 1764592000);
	add_culprit(s, 2, 1, "boot.init", 0.9, "slower 2", 0);
	assert_int_equal(bg_store_exec(s, "INSERT INTO samples (boot_id, seq, metric, value) VALUES "
				       "(1, 0, 'initcall.init_kprobe_trace', 92066), "
				       "(2, 0, 'initcall.init_kprobe_trace', 49882), "
				       "(1, 1, 'probe.0000:00:1f.2', 5), "
				       /* no number KCIDB could hold: left out, never null */
				       "(2, 1, 'initcall.infinite', 1e999), "
				       "(4, 0, 'boot.init', 1157200)", ""), 0);
}

/* s exported with origin lab_1, parsed back; its counts in *n */
static struct bg_json_doc *export_doc(struct bg_store *s, struct bg_kcidb_counts *n)
{
	struct bg_json j;
	struct bg_json_doc *d;

	bg_json_init(&j, -1, 2);
	assert_int_equal(bg_export_kcidb(s, "lab_1", NULL, &j, n), 0);
	d = bg_json_doc_parse("kcidb", j.out.buf);
	assert_non_null(d);
	bg_strbuf_release(&j.out);
	return d;
}

static struct bg_json_doc *kcidb(struct bg_store *s)
{
	struct bg_kcidb_counts n;
	struct bg_json_doc *d = export_doc(s, &n);

	assert_int_equal(n.checkouts, 4);
	assert_int_equal(n.builds, 6);
	assert_int_equal(n.tests, 5);
	assert_int_equal(n.issues, 1);
	assert_int_equal(n.incidents, 3);
	return d;
}

/*
 * A console of 2000 numbered lines ending in CR LF, a NUL in one: larger than KCIDB's
 * excerpt, of which only the end may go.
 */
static char *long_console(void)
{
	struct bg_strbuf sb = BG_STRBUF_INIT;
	char *path = bg_path_join(dir, "long.log");

	for (int i = 0; i < 2000; i++)
		bg_strbuf_addf(&sb, "[    0.%06d] line %d\r\n", i, i);
	sb.buf[sb.len - 10] = '\0';
	assert_int_equal(bg_write_file(path, sb.buf, sb.len), 0);
	bg_strbuf_release(&sb);
	return path;
}

static void test_kcidb(void **state)
{
	struct bg_store *s = store("k.db");
	char *console = long_console(), complete[4096];
	struct bg_json_doc *d;
	const char *excerpt;

	(void)state;
	snprintf(complete, sizeof(complete), "%s/bootlogs/x86_64-tiny-regressed-run1.log",
		 FIXTURES);
	fill(s, complete);
	/* the hang's console, up to where it hung */
	assert_int_equal(bg_store_exec(s, "UPDATE boots SET console = ? WHERE id = 3", "s",
				       console), 0);
	d = kcidb(s);
	assert_int_equal(bg_json_num(at(d, "version.major")), 5);
	assert_int_equal(bg_json_num(at(d, "version.minor")), 3);

	/* the series first: its base, patchset and cover letter; a patch applied: valid */
	assert_string_equal(bg_json_text(at(d, "checkouts.0.id")), "lab_1:series:cover@x.org");
	assert_string_equal(bg_json_text(at(d, "checkouts.0.git_commit_hash")), A);
	assert_string_equal(bg_json_text(at(d, "checkouts.0.patchset_hash")), HASH);
	assert_string_equal(bg_json_text(at(d, "checkouts.0.message_id")), "cover@x.org");
	assert_int_equal(bg_json_truth(at(d, "checkouts.0.valid")), 1);
	/* a git:// URL is no KCIDB v5 repository URL: left out, the tree named */
	assert_false((at(d, "checkouts.0.git_repository_url") != NULL));
	assert_string_equal(bg_json_text(at(d, "checkouts.0.tree_name")), "tracing");
	/* the tree's commits, by the jobs and the tip that name them */
	assert_string_equal(bg_json_text(at(d, "checkouts.1.id")), "lab_1:tracing:" A);
	assert_string_equal(bg_json_text(at(d, "checkouts.1.comment")), "base");
	/* no patch on a tree's commit: KCIDB's empty patchset_hash, not none */
	assert_string_equal(bg_json_text(at(d, "checkouts.1.patchset_hash")), "");
	assert_string_equal(bg_json_text(at(d, "checkouts.3.patchset_hash")), "");
	assert_string_equal(bg_json_text(at(d, "checkouts.2.id")), "lab_1:tracing:" B);
	assert_string_equal(bg_json_text(at(d, "checkouts.2.git_repository_branch")), "next");
	/* a commit of no tree has one of its own; a hash that is none is not claimed */
	assert_string_equal(bg_json_text(at(d, "checkouts.3.id")), "lab_1:commit:not-a-sha");
	assert_false((at(d, "checkouts.3.git_commit_hash") != NULL));

	assert_string_equal(bg_json_text(at(d, "builds.0.status")), "PASS");
	assert_int_equal(bg_json_num(at(d, "builds.0.duration")), 30);
	assert_string_equal(bg_json_text(at(d, "builds.0.start_time")),
			    "2025-12-01T11:54:30.000000+00:00");
	assert_false((at(d, "builds.1.duration") != NULL));
	assert_string_equal(bg_json_text(at(d, "builds.3.status")), "MISS");
	assert_string_equal(bg_json_text(at(d, "builds.4.checkout_id")), "lab_1:series:cover@x.org");
	assert_int_equal(bg_json_num(at(d, "builds.4.misc.patch")), 1);
	assert_string_equal(bg_json_text(at(d, "builds.5.status")), "FAIL");
	/* no lab given: no architecture guessed */
	assert_false((at(d, "builds.0.architecture") != NULL));

	/* build 2 carries img-b's boots (build 3 rebuilt the same image): per mode */
	assert_string_equal(bg_json_text(at(d, "tests.0.build_id")), "lab_1:build:2");
	assert_string_equal(bg_json_text(at(d, "tests.0.id")), "lab_1:build:2:deterministic");
	assert_string_equal(bg_json_text(at(d, "tests.0.path")), "boot");
	assert_string_equal(bg_json_text(at(d, "tests.0.status")), "PASS");
	assert_string_equal(bg_json_text(at(d, "tests.0.environment.misc.platform")), "qemu-x86_64");
	/* no wall seconds stored, a console that cannot be read: neither is claimed */
	assert_false((at(d, "tests.0.duration") != NULL));
	assert_false((at(d, "tests.0.log_excerpt") != NULL));
	assert_false((at(d, "tests.0.log_url") != NULL));
	assert_string_equal(bg_json_text(at(d, "tests.1.path")), "boottime.init");
	assert_string_equal(bg_json_text(at(d, "tests.1.status")), "DONE");
	assert_true(fabs(bg_json_num(at(d, "tests.1.number.value")) - 1.1572) < 1e-12);
	assert_string_equal(bg_json_text(at(d, "tests.1.number.unit")), "s");
	assert_string_equal(bg_json_text(at(d, "tests.1.number.prefix")), "metric");
	assert_string_equal(bg_json_text(at(d, "tests.1.environment.comment")), "qemu-x86_64");
	/* a hang among the timing boots: the boot test fails, the figures are the others' */
	assert_string_equal(bg_json_text(at(d, "tests.2.id")), "lab_1:build:2:timing");
	assert_string_equal(bg_json_text(at(d, "tests.2.status")), "FAIL");
	assert_int_equal(bg_json_num(at(d, "tests.2.misc.boots")), 3);
	assert_int_equal(bg_json_num(at(d, "tests.2.misc.complete")), 2);
	/* 1.5 and 2.5 s, the hang's unknown; the hang tells the outcome: its console's end */
	assert_true(fabs(bg_json_num(at(d, "tests.2.duration")) - 4.0) < 1e-12);
	excerpt = bg_json_text(at(d, "tests.2.log_excerpt"));
	assert_non_null(excerpt);
	assert_true(strlen(excerpt) <= 16384 && strlen(excerpt) > 15000);
	/* from a line's start to the end; no CR, and the NUL left out of the last line */
	assert_int_equal(strncmp(excerpt, "[    0.", 7), 0);
	assert_non_null(strstr(excerpt, "] line 1998\n[    0.001999] lne 1999\n"));
	assert_int_equal(excerpt[strlen(excerpt) - 1], '\n');
	assert_null(strchr(excerpt, '\r'));
	assert_false((at(d, "tests.3.log_excerpt") != NULL));
	assert_false((at(d, "tests.3.duration") != NULL));
	assert_string_equal(bg_json_text(at(d, "tests.3.path")), "boottime.initcall.init_kprobe_trace");
	assert_string_equal(bg_json_text(at(d, "tests.3.id")),
			    "lab_1:build:2:timing:initcall.init_kprobe_trace");
	/* the median of 49882 and 92066 µs, in seconds */
	assert_true(fabs(bg_json_num(at(d, "tests.3.number.value")) - 0.070974) < 1e-12);
	assert_int_equal(bg_json_num(at(d, "tests.3.misc.boots")), 2);
	assert_int_equal(bg_json_num(at(d, "tests.3.misc.min_us")), 49882);
	assert_string_equal(bg_json_text(at(d, "tests.4.path")), "boottime.probe.0000_00_1f_2");
	assert_string_equal(bg_json_text(at(d, "tests.4.misc.metric")), "probe.0000:00:1f.2");

	/* the culprit mailed: an issue; its builds on its board and the metric's test */
	assert_string_equal(bg_json_text(at(d, "issues.0.id")),
			    "lab_1:bisection:1");
	assert_int_equal(bg_json_num(at(d, "issues.0.version")), 1);
	assert_string_equal(bg_json_text(at(d, "issues.0.report_subject")), "slower");
	assert_int_equal(bg_json_truth(at(d, "issues.0.culprit.code")), 1);
	assert_true(fabs(bg_json_num(at(d, "issues.0.misc.confidence")) - 0.97) < 1e-12);
	assert_string_equal(bg_json_text(at(d, "issues.0.misc.message_id")), "m1@x.org");
	assert_false((at(d, "issues.1") != NULL));
	assert_string_equal(bg_json_text(at(d, "incidents.0.build_id")), "lab_1:build:2");
	assert_string_equal(bg_json_text(at(d, "incidents.1.build_id")), "lab_1:build:3");
	assert_string_equal(bg_json_text(at(d, "incidents.2.test_id")),
			    "lab_1:build:2:timing:initcall.init_kprobe_trace");
	assert_string_equal(bg_json_text(at(d, "incidents.2.id")),
			    "lab_1:bisection:1:build:2:timing:"
			    "initcall.init_kprobe_trace");
	assert_string_equal(bg_json_text(at(d, "incidents.2.issue_id")),
			    bg_json_text(at(d, "issues.0.id")));
	assert_int_equal(bg_json_num(at(d, "incidents.2.issue_version")), 1);
	assert_int_equal(bg_json_truth(at(d, "incidents.2.present")), 1);
	bg_json_doc_free(d);
	bg_store_close(s);
	free(console);
}

#define IMG "5555555555555555555555555555555555555555555555555555555555555555"

/*
 * With the shipped boards: a test names arm64 QEMU's device tree, a LAVA board's build
 * the image as the artifact server serves it; a QEMU board's image has no URL.
 */
static void test_kcidb_lab(void **state)
{
	struct bg_store *s = store("lab.db");
	struct bg_json j;
	struct bg_json_doc *d;

	(void)state;
	assert_int_equal(bg_store_exec(s, "INSERT INTO builds (id, commit_sha, board, status, "
				       "image, image_sha256, compiler, created) VALUES "
				       "(1, ?1, 'lava-qemu-x86_64', 'built', 'arch/x86/boot/bzImage', "
				       "?2, 'gcc (Debian 12.2.0-14) 12.2.0', 1), "
				       "(2, ?1, 'qemu-arm64', 'built', 'arch/arm64/boot/Image', ?2, NULL, 2)",
				       "ss", A, IMG), 0);
	assert_int_equal(bg_store_exec(s, "INSERT INTO boots (image_sha256, board, mode, outcome, "
				       "created) VALUES (?1, 'lava-qemu-x86_64', 'timing', 'complete', 3), "
				       "(?1, 'qemu-arm64', 'timing', 'complete', 4)", "s", IMG), 0);
	bg_json_init(&j, -1, 2);
	assert_int_equal(bg_export_kcidb(s, "lab_1", FIXTURES "/../../lab-configs", &j, NULL), 0);
	d = bg_json_doc_parse("kcidb", j.out.buf);
	assert_non_null(d);
	assert_string_equal(bg_json_text(at(d, "builds.0.compiler")), "gcc (Debian 12.2.0-14) 12.2.0");
	assert_string_equal(bg_json_text(at(d, "builds.0.output_files.0.name")), "bzImage");
	assert_string_equal(bg_json_text(at(d, "builds.0.output_files.0.url")),
			    "http://127.0.0.1:8788/artifacts/" IMG "/image");
	assert_false((at(d, "builds.0.config_url") != NULL));
	assert_false((at(d, "builds.1.compiler") != NULL));
	assert_false((at(d, "builds.1.output_files") != NULL));
	assert_string_equal(bg_json_text(at(d, "builds.1.architecture")), "arm64");
	assert_string_equal(bg_json_text(at(d, "tests.0.environment.misc.platform")),
			    "lava-qemu-x86_64");
	assert_false((at(d, "tests.0.environment.compatible") != NULL));
	assert_string_equal(bg_json_text(at(d, "tests.1.environment.compatible.0")),
			    "linux,dummy-virt");
	assert_false((at(d, "tests.1.environment.compatible.1") != NULL));
	bg_json_doc_free(d);
	bg_strbuf_release(&j.out);
	bg_store_close(s);
}

/*
 * One culprit bisected in two trees and mailed twice: two issues, each with its own id,
 * and the incidents of each (the same builds and tests) with ids of their own too.
 */
static void test_kcidb_culprit_twice(void **state)
{
	struct bg_store *s = store("twice.db");
	struct bg_kcidb_counts n;
	struct bg_json_doc *d;
	char path[64];

	(void)state;
	fill(s, "/nonexistent/console");
	assert_int_equal(bg_store_exec(s, "INSERT INTO trees (id, name, path, url, branch) VALUES "
				       "(2, 'stable', '/srv/s', 'git://127.0.0.1/s', 'master')", ""), 0);
	add_culprit(s, 3, 2, "initcall.init_kprobe_trace", 0.95, "slower 3", 1764593000);
	d = export_doc(s, &n);
	assert_int_equal(n.issues, 2);
	assert_int_equal(n.incidents, 6);
	assert_string_equal(bg_json_text(at(d, "issues.0.id")), "lab_1:bisection:1");
	assert_string_equal(bg_json_text(at(d, "issues.1.id")), "lab_1:bisection:3");
	for (size_t i = 0; i < n.incidents; i++) {
		snprintf(path, sizeof(path), "incidents.%zu.id", i);
		for (size_t k = 0; k < i; k++) {
			char other[64];

			snprintf(other, sizeof(other), "incidents.%zu.id", k);
			assert_string_not_equal(bg_json_text(at(d, path)),
						bg_json_text(at(d, other)));
		}
	}
	assert_string_equal(bg_json_text(at(d, "incidents.5.issue_id")), "lab_1:bisection:3");
	bg_json_doc_free(d);
	bg_store_close(s);
}

static void test_kcidb_bad_origin(void **state)
{
	struct bg_store *s = store("o.db");
	struct bg_json j;

	(void)state;
	bg_json_init(&j, -1, 0);
	assert_int_equal(bg_export_kcidb(s, "Bad-Origin", NULL, &j, NULL), -1);
	assert_string_equal(bg_error_last(), "origin 'Bad-Origin': KCIDB wants [a-z0-9_]+");
	assert_int_equal(j.out.len, 0);
	bg_strbuf_release(&j.out);
	bg_store_close(s);
}

struct seen {
	char paths[8][4096];
	int64_t boots[8];
	size_t files, problems, errors;
	char why[512];
};

static void on_file(const struct bg_bootdata_file *f, void *data)
{
	struct seen *s = data;

	if (s->files < 8) {
		snprintf(s->paths[s->files], sizeof(s->paths[0]), "%s", f->path);
		s->boots[s->files] = f->boot;
	}
	s->files++;
}

static void on_problem(int64_t boot, const char *why, bool error, void *data)
{
	struct seen *s = data;

	(void)boot;
	s->problems++;
	s->errors += error;
	snprintf(s->why, sizeof(s->why), "%s", why);
}

static void test_boot_data(void **state)
{
	struct bg_store *s = store("b.db");
	char console[4096], *out = bg_path_join(dir, "out/sub"), *sub;
	struct seen seen = { 0 };
	struct parsed *p;

	(void)state;
	snprintf(console, sizeof(console), "%s/bootlogs/x86_64-tiny-regressed-run1.log", FIXTURES);
	fill(s, console);
	/* out/sub is made, out (a directory above it that is missing) never */
	assert_int_equal(bg_export_boot_data(s, out, on_file, on_problem, &seen), -1);
	assert_non_null(strstr(bg_error_last(), "no directory '"));
	assert_non_null(strstr(bg_error_last(), "/out' to hold '"));
	assert_int_equal(seen.files, 0);
	assert_int_equal(access(out, F_OK), -1);
	sub = bg_path_join(dir, "out");
	assert_int_equal(mkdir(sub, 0777), 0);
	free(sub);
	/* boots 1 and 2 written; 3 has no console (left out); 4's cannot be read (an error) */
	assert_int_equal(bg_export_boot_data(s, out, on_file, on_problem, &seen), 1);
	assert_int_equal(seen.files, 2);
	assert_int_equal(seen.problems, 2);
	assert_int_equal(seen.errors, 1);
	assert_non_null(strstr(seen.why, "/nonexistent/console"));
	assert_int_equal(seen.boots[0], 1);
	assert_non_null(strstr(seen.paths[0], "/out/sub/boot-data-bootgate-qemu-x86_64-"
			       "222222222222-1-251201-120500.txt"));
	/* read back: the figures of the console it was made from */
	p = parse_path(seen.paths[0]);
	assert_int_equal(p->ret, 0);
	assert_int_equal(p->n, 1);
	assert_int_equal(p->boots[0]->nr_initcalls, 185);
	assert_int_equal(initcall_sum(p->boots[0]), 302887);
	assert_int_equal(p->boots[0]->init_us, 1074148);
	parsed_free(p);
	free(out);
	bg_store_close(s);
}

static int setup(void **state)
{
	(void)state;
	dir = unit_scratch_dir("export");
	return dir ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	bg_remove_tree(dir);
	free(dir);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_origin),
		cmocka_unit_test(test_path),
		cmocka_unit_test(test_time),
		cmocka_unit_test(test_kcidb),
		cmocka_unit_test(test_kcidb_lab),
		cmocka_unit_test(test_kcidb_culprit_twice),
		cmocka_unit_test(test_kcidb_bad_origin),
		cmocka_unit_test(test_boot_data),
	};

	return cmocka_run_group_tests_name("export", tests, setup, teardown);
}
