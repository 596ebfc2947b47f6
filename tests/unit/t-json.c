/* Unit tests of the streaming JSON writer and of the JSON form of a boot. */
#include "unit.h"
#include "report/boot-json.h"
#include "util/json.h"

static void test_escape(void **state)
{
	struct bg_strbuf sb = BG_STRBUF_INIT;

	(void)state;
	bg_json_escape(&sb, "a\"b\\c\n\t\x01", 8);
	assert_string_equal(sb.buf, "a\\\"b\\\\c\\n\\t\\u0001");
	bg_strbuf_reset(&sb);
	/* valid UTF-8 passes, invalid bytes become U+FFFD, one each */
	bg_json_escape(&sb, "caf\xc3\xa9 \xff\xfe \xe2\x86\x92 \xc3(", 15);
	assert_string_equal(sb.buf, "caf\xc3\xa9 \xef\xbf\xbd\xef\xbf\xbd \xe2\x86\x92 \xef\xbf\xbd(");
	bg_strbuf_reset(&sb);
	/* surrogates and overlong forms are invalid */
	bg_json_escape(&sb, "\xed\xa0\x80\xc0\xaf", 5);
	assert_string_equal(sb.buf, "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
	bg_strbuf_reset(&sb);
	/* C1 controls are escaped as the same code points; U+00A0 stays, DEL is escaped */
	bg_json_escape(&sb, "\xc2\x9b" "2J \xc2\x80\xc2\x9f\xc2\xa0\x7f", 12);
	assert_string_equal(sb.buf, "\\u009b2J \\u0080\\u009f\xc2\xa0\\u007f");
	bg_strbuf_reset(&sb);
	/* so are the bidirectional controls; their neighbours stay as they are */
	bg_json_escape(&sb, "a\xe2\x80\xae" "b\xe2\x81\xa6\xd8\x9c\xe2\x80\xaf\xe2\x80\xa9", 16);
	assert_string_equal(sb.buf, "a\\u202eb\\u2066\\u061c\xe2\x80\xaf\xe2\x80\xa9");
	bg_strbuf_reset(&sb);
	/* the worst case of each kind, a thousand times: as long as promised, no longer */
	{
		struct bg_strbuf in = BG_STRBUF_INIT;

		for (int i = 0; i < 1000; i++)
			bg_strbuf_addstr(&in, "\x01\xc2\x85\xe2\x80\xae\xff\"");
		bg_json_escape(&sb, in.buf, in.len);
		assert_int_equal(sb.len, 1000 * (6 + 6 + 6 + 3 + 2));
		bg_strbuf_release(&in);
	}
	bg_strbuf_release(&sb);
}

static void test_ints(void **state)
{
	struct bg_strbuf sb = BG_STRBUF_INIT;

	(void)state;
	bg_strbuf_addint(&sb, 0);
	bg_strbuf_addch(&sb, ' ');
	bg_strbuf_addint(&sb, -19);
	bg_strbuf_addch(&sb, ' ');
	bg_strbuf_addint(&sb, INT64_MIN);
	bg_strbuf_addch(&sb, ' ');
	bg_strbuf_addint(&sb, INT64_MAX);
	assert_string_equal(sb.buf, "0 -19 -9223372036854775808 9223372036854775807");
	bg_strbuf_release(&sb);
}

static void test_document(void **state)
{
	struct bg_json j;

	(void)state;
	bg_json_init(&j, -1, 0);
	bg_json_object_begin(&j);
	bg_json_key(&j, "a");
	bg_json_array_begin(&j);
	bg_json_int(&j, 1);
	bg_json_null(&j);
	bg_json_bool(&j, true);
	bg_json_str(&j, "x");
	bg_json_double(&j, 0.25);
	bg_json_double(&j, 0.0 / 0.0);
	bg_json_array_end(&j);
	bg_json_key(&j, "o");
	bg_json_object_begin(&j);
	bg_json_object_end(&j);
	bg_json_key(&j, "s");
	bg_json_str(&j, NULL);
	bg_json_object_end(&j);
	assert_string_equal(j.out.buf, "{\"a\":[1,null,true,\"x\",0.25,null],\"o\":{},\"s\":null}");
	bg_json_finish(&j);
	bg_strbuf_release(&j.out);
}

static void test_pretty(void **state)
{
	struct bg_json j;

	(void)state;
	bg_json_init(&j, -1, 1);
	bg_json_object_begin(&j);
	bg_json_key(&j, "a");
	bg_json_array_begin(&j);
	bg_json_int(&j, 1);
	bg_json_int(&j, 2);
	bg_json_array_end(&j);
	bg_json_key(&j, "b");
	bg_json_int(&j, 3);
	bg_json_object_end(&j);
	assert_string_equal(j.out.buf, "{\n  \"a\": [1,2],\n  \"b\": 3\n}");
	bg_strbuf_release(&j.out);
}

static void test_boot_json(void **state)
{
	struct parsed *p = parse_str(
		"[    0.000000] Linux version 6.1.0 (x)\n"
		"[    0.100000] calling  a_init+0x0/0x1 [m\"od] @ 1\n"
		"[    0.100050] initcall a_init+0x0/0x1 [m\"od] returned -19 after 50 usecs\n"
		"[    0.200000] probe of d0 returned 0 after 7 usecs\n");
	struct bg_json j;

	(void)state;
	bg_json_init(&j, -1, 0);
	bg_boot_write_json(&j, p->boots[0], "x.log");
	/* the initcall's line of the log is its third, the probe's its fourth */
	assert_string_equal(j.out.buf,
		"{\"file\":\"x.log\",\"boot\":0,\"kernel\":\"6.1.0\","
		"\"banner\":\"Linux version 6.1.0 (x)\",\"cmdline\":null,\"arch\":null,"
		"\"outcome\":\"truncated\",\"panic\":null,\"initcalls\":[{\"name\":\"a_init\","
		"\"module\":\"m\\\"od\",\"ret\":-19,\"usecs\":50,\"start_us\":100000,\"end_us\":100050,"
		"\"line\":3}],\"probes\":[{\"device\":\"d0\",\"ret\":0,\"usecs\":7,\"start_us\":199993,"
		"\"end_us\":200000,\"line\":4}],\"milestones\":{\"init_us\":null,\"init_line\":null,"
		"\"userspace_us\":null,\"free_initmem_us\":null},\"problems\":[],\"problems_total\":0,"
		"\"unparsed_lines\":0,\"log_lines\":[1,4]}");
	bg_strbuf_release(&j.out);
	parsed_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_ints),
		cmocka_unit_test(test_document),
		cmocka_unit_test(test_pretty),
		cmocka_unit_test(test_boot_json),
	};

	return cmocka_run_group_tests_name("json", tests, NULL, NULL);
}
