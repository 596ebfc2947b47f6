/* Unit tests of reading JSON (jansson behind util/json-read.h) and of the workers' results. */
#include <math.h>

#include "unit.h"
#include "util/json-read.h"
#include "lab/result.h"
#include "util/error.h"
#include "util/json.h"

static void test_values(void **state)
{
	struct bg_json_doc *d = bg_json_doc_parse("r.json",
		"{\"a\": {\"b\": [10, {\"c\": \"x\"}, true, null]}, \"n\": 2.5, \"s\": \"t\"}");
	const struct bg_json_value *root = bg_json_doc_root(d), *b;

	(void)state;
	assert_non_null(d);
	b = bg_json_get(bg_json_get(root, "a"), "b");
	assert_true(bg_json_num(bg_json_at(b, 0)) == 10);
	assert_string_equal(bg_json_text(bg_json_get(bg_json_at(b, 1), "c")), "x");
	assert_true(bg_json_num(bg_json_get(root, "n")) == 2.5);
	assert_int_equal(bg_json_len(b), 4);
	assert_int_equal(bg_json_truth(bg_json_at(b, 2)), 1);
	assert_int_equal(bg_json_truth(bg_json_at(b, 3)), -1);
	assert_true(bg_json_is_object(root));
	assert_true(bg_json_is_object(bg_json_get(root, "a")));
	assert_false(bg_json_is_object(b));
	/* a null is there, of no type asked for; a missing key is not there */
	assert_non_null(bg_json_at(b, 3));
	assert_non_null(bg_json_get(root, "n"));
	assert_null(bg_json_at(b, 4));
	assert_null(bg_json_get(root, "m"));
	/* missing or of another type: NULL, NaN, 0; and no walking into what is not there */
	assert_null(bg_json_text(bg_json_get(root, "n")));
	assert_null(bg_json_text(bg_json_get(bg_json_at(b, 9), "c")));
	assert_null(bg_json_get(b, "0"));
	assert_null(bg_json_at(root, 0));
	assert_true(isnan(bg_json_num(bg_json_get(root, "s"))));
	assert_int_equal(bg_json_len(bg_json_get(root, "s")), 0);
	assert_null(bg_json_get(NULL, "a"));
	assert_int_equal(bg_json_truth(NULL), -1);
	assert_null(bg_json_text_dup(bg_json_at(b, 0)));
	bg_json_doc_free(d);
}

static void test_errors(void **state)
{
	(void)state;
	assert_null(bg_json_doc_parse("r.json", "{\"a\": 1,\n \"b\": }"));
	assert_string_equal(bg_error_last(), "r.json:2:7: unexpected token near '}'");
	assert_null(bg_json_doc_parse("r.json", ""));
	assert_non_null(strstr(bg_error_last(), "r.json:"));
}

/* What a worker writes, the pipeline reads back the same; the statuses are the exit codes. */
static void test_build_result(void **state)
{
	struct bg_build_result r, back;
	struct bg_json j;

	(void)state;
	assert_int_equal(bg_build_status_exit(BG_BUILD_BUILT), 0);
	assert_int_equal(bg_build_status_exit(BG_BUILD_FAILED), 1);
	assert_int_equal(bg_build_status_exit(BG_BUILD_USAGE), 2);
	assert_int_equal(bg_build_status_exit(BG_BUILD_INFRA), 111);
	assert_int_equal(bg_build_status_exit(BG_BUILD_EXEC), 127);
	bg_build_result_init(&r);
	r.status = BG_BUILD_BUILT;
	r.commit = strdup("0123456789abcdef0123456789abcdef01234567");
	r.image = strdup("/cache/artifacts/ab/image");
	r.board = strdup("qemu-x86_64");
	r.identical_to_parent = 1;
	r.build_seconds = 5.75;
	bg_json_init(&j, -1, 0);
	bg_build_result_write(&j, &r);
	assert_int_equal(bg_build_result_read("build", j.out.buf, &back), 0);
	assert_int_equal(back.status, BG_BUILD_BUILT);
	assert_string_equal(back.commit, r.commit);
	assert_string_equal(back.image, r.image);
	assert_string_equal(back.board, "qemu-x86_64");
	assert_null(back.parent);
	assert_int_equal(back.identical_to_parent, 1);
	assert_true(back.build_seconds == 5.75);
	bg_build_result_release(&back);
	bg_build_result_release(&r);
	bg_strbuf_release(&j.out);

	assert_int_equal(bg_build_result_read("build", "{\"status\": \"done\"}", &back), -1);
	assert_string_equal(bg_error_last(),
			    "build: 'status' is none of built, failed, usage, infra, exec");
	assert_int_equal(bg_build_result_read("build", "{\"status\": \"built\"}", &back), -1);
	assert_string_equal(bg_error_last(), "build: a built result names its commit and its image");
	assert_int_equal(bg_build_result_read("build", "[1]", &back), -1);
	assert_int_equal(bg_build_result_read("build", "{\"status\": \"usage\", \"error\": \"x\"}",
					      &back), 0);
	assert_int_equal(back.status, BG_BUILD_USAGE);
	assert_string_equal(back.error, "x");
	bg_build_result_release(&back);
}

static void test_boot_run(void **state)
{
	struct bg_boot_run r, back;
	struct bg_boot_record *b;
	struct bg_json j;

	(void)state;
	bg_boot_run_init(&r);
	r.board = strdup("qemu-x86_64");
	r.mode = strdup("timing");
	b = bg_boot_run_add(&r, 0, "/img/A", BG_OUTCOME_COMPLETE, "/out/boot-000-A.log");
	b->wall_seconds = 2.5;
	b->userspace_wall_seconds = 2.25;
	b = bg_boot_run_add(&r, 1, "/img/B", BG_OUTCOME_HANG, "/out/boot-001-B.log");
	bg_json_init(&j, -1, 0);
	bg_boot_run_write(&j, &r);
	assert_int_equal(bg_boot_run_read("boot", j.out.buf, &back), 0);
	assert_int_equal(back.n, 2);
	assert_int_equal(back.boots[0].image, 0);
	assert_int_equal(back.boots[0].outcome, BG_OUTCOME_COMPLETE);
	assert_true(back.boots[0].userspace_wall_seconds == 2.25);
	assert_int_equal(back.boots[1].image, 1);
	assert_int_equal(back.boots[1].outcome, BG_OUTCOME_HANG);
	assert_true(isnan(back.boots[1].userspace_wall_seconds));
	assert_string_equal(back.boots[1].log, "/out/boot-001-B.log");
	bg_boot_run_release(&back);
	bg_boot_run_release(&r);
	bg_strbuf_release(&j.out);
	/* one vocabulary: an outcome that is none of it is refused */
	assert_int_equal(bg_boot_run_read("boot", "{\"boots\": [{\"image\": \"A\", \"log\": \"l\", "
					  "\"outcome\": \"ok\"}]}", &back), -1);
	assert_string_equal(bg_error_last(), "boot: boot 0 has no image A or B, outcome or log");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_build_result),
		cmocka_unit_test(test_boot_run),
	};

	return cmocka_run_group_tests_name("json-read", tests, NULL, NULL);
}
