/* Unit tests of configuration files: values, lists, and "file:line:col: why" for each mistake. */
#include "unit.h"
#include "lab/conf.h"
#include "util/error.h"

static int load(const char *text, struct bg_conf *c)
{
	return bg_conf_load_mem("x.yaml", text, strlen(text), c);
}

/* Loading must fail with exactly this message. */
static void expect_load_error(const char *text, const char *want)
{
	struct bg_conf c;

	assert_int_equal(load(text, &c), -1);
	assert_string_equal(bg_error_last(), want);
	assert_int_equal(c.n, 0);             /* released: nothing half-loaded */
}

static void test_values(void **state)
{
	struct bg_conf c;
	const char *s;
	char **list;
	size_t n;
	long v;

	(void)state;
	assert_int_equal(load("name: qemu-x\nmemory: 512\nargs: [-a, \"b c\"]\n# a comment\n", &c), 0);
	assert_int_equal(bg_conf_str(&c, "name", NULL, &s), 0);
	assert_string_equal(s, "qemu-x");
	assert_int_equal(bg_conf_long(&c, "memory", 1, 64, 4096, &v), 0);
	assert_int_equal(v, 512);
	assert_int_equal(bg_conf_list(&c, "args", &list, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(list[1], "b c");
	/* absent keys take their defaults */
	assert_int_equal(bg_conf_str(&c, "cpu", "max", &s), 0);
	assert_string_equal(s, "max");
	assert_int_equal(bg_conf_long(&c, "timeout", 60, 1, 100, &v), 0);
	assert_int_equal(v, 60);
	assert_int_equal(bg_conf_check_unused(&c), 0);
	bg_conf_release(&c);

	/* an empty file: every key at its default; a missing required one named at 1:1 */
	assert_int_equal(load("", &c), 0);
	assert_int_equal(bg_conf_str_req(&c, "name", &s), -1);
	assert_string_equal(bg_error_last(), "x.yaml:1:1: 'name' is missing");
	bg_conf_release(&c);
}

static void test_errors(void **state)
{
	struct bg_conf c;
	const char *s;
	long v;
	char **list;
	size_t n;

	(void)state;
	/* libyaml's own message, with the file named once and the position kept */
	expect_load_error("name: a\nargs: [a, b\nmemory: 5\n",
			  "x.yaml:3:7: did not find expected ',' or ']' while parsing a flow sequence");
	expect_load_error("name: a\nname: b\n", "x.yaml:2:1: 'name' is given twice (first at line 1)");
	expect_load_error("- a\n- b\n", "x.yaml:1:1: expected a mapping of keys to values");
	expect_load_error("args: [[a]]\n", "x.yaml:1:8: 'args': list items must be plain values");
	expect_load_error("a: {b: c}\n", "x.yaml:1:4: 'a': expected a value or a list of values");
	expect_load_error("a: b\n---\nc: d\n", "x.yaml:3:1: one mapping per file");
	{
		static const char bin[] = "name: a\0b\n";

		assert_int_equal(bg_conf_load_mem("x.yaml", bin, sizeof(bin) - 1, &c), -1);
		assert_string_equal(bg_error_last(), "x.yaml:1:1: binary data, not YAML");
	}

	assert_int_equal(load("name: a\nmemory: 4x\nlist: x\nnamez: 1\n", &c), 0);
	assert_int_equal(bg_conf_long(&c, "memory", 1, 64, 4096, &v), -1);
	assert_string_equal(bg_error_last(),
			    "x.yaml:2:9: 'memory' must be a whole number from 64 to 4096, not '4x'");
	assert_int_equal(bg_conf_list(&c, "list", &list, &n), -1);
	assert_string_equal(bg_error_last(), "x.yaml:3:1: 'list' takes a list: [a, b]");
	assert_int_equal(bg_conf_str(&c, "name", NULL, &s), 0);
	assert_int_equal(bg_conf_check_unused(&c), -1);
	assert_string_equal(bg_error_last(), "x.yaml:4:1: unknown key 'namez'");
	bg_conf_release(&c);

	/* numbers: no sign, space or hex that strtol would let through */
	assert_int_equal(load("a: +5\nb: ' 5'\nc: 0x10\nd: 99999999999999999999\n", &c), 0);
	assert_int_equal(bg_conf_long(&c, "a", 1, 0, 100, &v), -1);
	assert_int_equal(bg_conf_long(&c, "b", 1, 0, 100, &v), -1);
	assert_int_equal(bg_conf_long(&c, "c", 1, 0, 100, &v), -1);
	assert_int_equal(bg_conf_long(&c, "d", 1, 0, 100, &v), -1);
	assert_string_equal(bg_error_last(),
			    "x.yaml:4:4: 'd' must be a whole number from 0 to 100, not '99999999999999999999'");
	bg_conf_release(&c);

	/* the readers' own checks point at the value, or at its list item */
	assert_int_equal(load("poweroff: halt\nfragments: [a.config, ../b]\n", &c), 0);
	assert_int_equal(bg_conf_error_at(&c, "poweroff", 0, "'%s' is no", "halt"), -1);
	assert_string_equal(bg_error_last(), "x.yaml:1:11: 'halt' is no");
	assert_int_equal(bg_conf_error_at(&c, "fragments", 1, "bad"), -1);
	assert_string_equal(bg_error_last(), "x.yaml:2:23: bad");
	assert_int_equal(bg_conf_error_at(&c, "absent", 0, "missing"), -1);
	assert_string_equal(bg_error_last(), "x.yaml:1:1: missing");
	bg_conf_release(&c);
}

/* A file that cannot be read is named, with why. */
static void test_files(void **state)
{
	struct bg_conf c;

	(void)state;
	assert_int_equal(bg_conf_load("/nonexistent/board.yaml", &c), -1);
	assert_string_equal(bg_error_last(),
			    "cannot open '/nonexistent/board.yaml': No such file or directory");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_files),
	};

	return cmocka_run_group_tests_name("conf", tests, NULL, NULL);
}
