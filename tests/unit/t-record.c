/*
 * What the lab records: the store's builds as the daemon finds them again (an image
 * deleted since is no build), and a boot from the boot worker's one reading of it.
 */
#include "unit.h"
#include "lab/record.h"
#include "lab/result.h"
#include "parse/metrics.h"
#include "report/boot-json.h"
#include "store/results.h"
#include "store/store.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/xmalloc.h"

static char *dir;

/* a build row of COMMIT for qemu-x86_64 with STATUS and IMAGE */
static void add_build(struct bg_store *s, const char *commit, const char *status,
		      const char *image)
{
	assert_int_equal(bg_store_exec(s, "INSERT INTO builds (commit_sha, board, status, image, "
				       "image_sha256, created) VALUES (?, 'qemu-x86_64', ?, ?, "
				       "'ab', 1)", "sss", commit, status, image), 0);
}

static void test_deleted_image_is_no_build(void **state)
{
	char *db = bg_path_join(dir, "a.db"), *image = bg_path_join(dir, "image");
	struct bg_stored_build b;
	struct bg_store *s;

	(void)state;
	assert_int_equal(bg_store_open(db, &s), 0);
	assert_int_equal(bg_write_file(image, "kernel", 6), 0);
	add_build(s, "c1", "built", image);
	assert_int_equal(bg_record_find_build(s, "c1", "qemu-x86_64", &b), 1);
	assert_int_equal(b.status, BG_BUILD_BUILT);
	assert_string_equal(b.image, image);
	bg_stored_build_release(&b);

	/* deleted behind the daemon's back: not found, so built again */
	assert_int_equal(unlink(image), 0);
	assert_int_equal(bg_record_find_build(s, "c1", "qemu-x86_64", &b), 0);
	assert_null(b.image);

	/* a failed build has no image to lose: still found, not tried again */
	add_build(s, "c2", "failed", NULL);
	assert_int_equal(bg_record_find_build(s, "c2", "qemu-x86_64", &b), 1);
	assert_int_equal(b.status, BG_BUILD_FAILED);
	bg_stored_build_release(&b);
	/* nor is another board's build this board's */
	assert_int_equal(bg_record_find_build(s, "c2", "qemu-arm64", &b), 0);
	bg_store_close(s);
	free(db);
	free(image);
}

static int keep_boot(const struct bg_boot *b, void *data)
{
	struct bg_boot **out = data;

	if (!*out)
		*out = bg_boot_clone(b);
	return 0;
}

struct metric_list {
	struct bg_strbuf sb;
};

static void list_metric(const struct bg_metric *m, void *data)
{
	struct metric_list *l = data;

	bg_strbuf_addf(&l->sb, "%s %" PRId64 " %" PRId64 " %" PRId64 " %" PRIu64 "\n", m->name,
		       m->usecs, m->start_us, m->end_us, m->lineno);
}

/*
 * The boot worker keeps its parse of a console (LOG.json); read back, it is the same boot
 * to the last metric, time and line, and the store gets its samples and kernel from it.
 */
static void test_boot_from_the_workers_parse(void **state)
{
	const char *log = FIXTURES "/bootlogs/x86_64-tiny-regressed-run1.log";
	char *json_path = bg_path_join(dir, "boot.json"), *db = bg_path_join(dir, "b.db");
	struct bg_boot *parsed = NULL, *read;
	struct bg_bootlog *p = bg_bootlog_new(log, keep_boot, &parsed);
	struct metric_list a = { BG_STRBUF_INIT }, b = { BG_STRBUF_INIT };
	struct bg_boot_record rec = { .outcome = BG_OUTCOME_COMPLETE, .log = (char *)log };
	struct bg_stored_samples samples;
	struct bg_stored_boot sb;
	struct bg_store *s;
	struct bg_json j;
	int64_t id;

	(void)state;
	assert_int_equal(bg_bootlog_parse_path(p, log), 0);
	bg_bootlog_free(p);
	assert_non_null(parsed);
	bg_json_init(&j, -1, 0);
	bg_boot_write_json(&j, parsed, log);
	assert_int_equal(bg_write_file(json_path, j.out.buf, j.out.len), 0);
	bg_strbuf_release(&j.out);
	read = bg_boot_read_parsed(json_path);
	assert_non_null(read);
	bg_boot_metrics(parsed, list_metric, &a);
	bg_boot_metrics(read, list_metric, &b);
	assert_string_equal(a.sb.buf, b.sb.buf);
	assert_int_equal(read->nr_initcalls, 185);
	assert_int_equal(read->outcome, BG_OUTCOME_COMPLETE);
	assert_true(read->init_us == 1074148);
	assert_string_equal(read->banner, parsed->banner);

	assert_int_equal(bg_store_open(db, &s), 0);
	assert_int_equal(bg_record_boot(s, "img", "qemu-x86_64", "timing", BG_CONSOLE_VERBOSE, &rec,
				       read, &id), 0);
	bg_stored_boot_init(&sb);
	assert_int_equal(bg_store_boot_get(s, id, &sb), 1);
	assert_string_equal(sb.kernel, "6.1.192+ #3 2026-01-01");
	assert_string_equal(sb.cmdline, parsed->cmdline);
	assert_true(sb.init_us == 1074148);
	bg_stored_boot_release(&sb);
	assert_int_equal(bg_store_boot_samples(s, id, "initcall.init_kprobe_trace", &samples), 0);
	/* a prefix: init_kprobe_trace_early is there too, before it in the boot */
	assert_int_equal(samples.n, 2);
	assert_string_equal(samples.v[0].metric, "initcall.init_kprobe_trace_early");
	assert_string_equal(samples.v[1].metric, "initcall.init_kprobe_trace");
	assert_true(samples.v[1].value > 0);
	assert_true(samples.v[1].end_us > samples.v[1].start_us);
	/* the line it names is the kernel's own, quoted from there without another parse */
	{
		char *q = bg_bootlog_quote(log, samples.v[1].line);

		assert_non_null(q);
		assert_non_null(strstr(q, "initcall init_kprobe_trace+0x0/0x179 returned 0 after"));
		free(q);
	}
	bg_stored_samples_release(&samples);
	bg_store_close(s);
	bg_boot_free(parsed);
	bg_boot_free(read);
	bg_strbuf_release(&a.sb);
	bg_strbuf_release(&b.sb);
	free(json_path);
	free(db);
}

/* A parse that is not one is refused with why, never read as a boot of zeros. */
static void test_bad_parse(void **state)
{
	static const char *const bad[] = {
		"[]",
		"{\"outcome\": \"hang\", \"initcalls\": [], \"probes\": [], \"milestones\": {}}",
		"{\"outcome\": \"complete\", \"initcalls\": [{\"name\": \"a\", \"ret\": 0, "
		"\"usecs\": -1, \"line\": 3}], \"probes\": [], \"milestones\": {}}",
		"{\"outcome\": \"complete\", \"initcalls\": [{\"ret\": 0, \"usecs\": 1, "
		"\"line\": 3}], \"probes\": [], \"milestones\": {}}",
		"{\"outcome\": \"complete\", \"initcalls\": [{\"name\": \"a\", \"ret\": 0, "
		"\"usecs\": 1e300, \"line\": 3}], \"probes\": [], \"milestones\": {}}",
		"{\"outcome\": \"complete\", \"initcalls\": [], \"probes\": [], "
		"\"milestones\": {\"init_us\": 1.5}}",
		"{\"outcome\": \"complete\", \"initcalls\": [], \"probes\": []}",
		"{\"outcome\": \"complete\", \"initcalls\": [], \"probes\": [], \"milestones\":"
		" {}, \"perf\": {\"trace_startup_us\": [\"fast\"]}}",
		"{\"outcome\"",
	};
	char *path = bg_path_join(dir, "bad.json");

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		assert_int_equal(bg_write_file(path, bad[i], strlen(bad[i])), 0);
		assert_null(bg_boot_read_parsed(path));
		assert_non_null(strstr(bg_error_last(), path));
	}
	/* a complete boot of nothing is one: the fields it needs, no more */
	{
		static const char ok[] = "{\"outcome\": \"complete\", \"initcalls\": [], "
					 "\"probes\": [], \"milestones\": {\"init_us\": 7}}";
		struct bg_boot *b;

		assert_int_equal(bg_write_file(path, ok, strlen(ok)), 0);
		b = bg_boot_read_parsed(path);
		assert_non_null(b);
		assert_true(b->init_us == 7 && b->userspace_us == -1 && !b->init_line);
		bg_boot_free(b);
	}
	assert_null(bg_boot_read_parsed("/nonexistent/boot.json"));
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_deleted_image_is_no_build),
		cmocka_unit_test(test_boot_from_the_workers_parse),
		cmocka_unit_test(test_bad_parse),
	};
	int ret;

	dir = unit_scratch_dir("record");
	assert_non_null(dir);
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	bg_remove_tree(dir);
	free(dir);
	return ret;
}
