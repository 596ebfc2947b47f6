/* Unit tests of configuration files: values, lists, and "file:line:col: why" for each mistake. */
#include "unit.h"
#include "conf/conf.h"
#include "util/error.h"
#include "util/strbuf.h"

static int load(const char *text, struct bg_conf *c)
{
	return bg_conf_load_mem("x.yaml", text, strlen(text), c);
}

static int load_nested(const char *text, struct bg_conf *c)
{
	return bg_conf_load_nested_mem("x.yaml", text, strlen(text), c);
}

/* Loading, flat or nested, must fail with exactly this message. */
static void expect_error_from(int (*loader)(const char *, struct bg_conf *), const char *text,
			      const char *want)
{
	struct bg_conf c;

	assert_int_equal(loader(text, &c), -1);
	assert_string_equal(bg_error_last(), want);
	assert_int_equal(c.n, 0);             /* released: nothing half-loaded */
}

static void expect_load_error(const char *text, const char *want)
{
	expect_error_from(load, text, want);
}

static void expect_nested_error(const char *text, const char *want)
{
	expect_error_from(load_nested, text, want);
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
		assert_string_equal(bg_error_last(), "x.yaml:1:8: binary data, not YAML");
	}
	{
		/* the NUL's own line and column, not the file's start */
		static const char bin[] = "a: 1\nb: 2\nc: 3\nd: x\0y\n";

		assert_int_equal(bg_conf_load_mem("x.yaml", bin, sizeof(bin) - 1, &c), -1);
		assert_string_equal(bg_error_last(), "x.yaml:4:5: binary data, not YAML");
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

/* n lines "kI: I" from first, into sb; then the line extra, if any. */
static void add_keys(struct bg_strbuf *sb, const char *indent, size_t first, size_t n)
{
	for (size_t i = first; i < first + n; i++)
		bg_strbuf_addf(sb, "%sk%zu: %zu\n", indent, i, i);
}

/*
 * A file of many keys is refused at its cap, and every check below the cap is one look-up
 * per key: 111 788 keys once took a minute of pairwise comparisons, in the daemon's loop
 * on a reload. The cap holds across the nested mappings of one file.
 */
static void test_many_keys(void **state)
{
	struct bg_strbuf sb = BG_STRBUF_INIT;
	struct bg_conf c;
	const char *s;
	char *want;

	(void)state;
	add_keys(&sb, "", 0, BG_CONF_MAX_KEYS);
	assert_int_equal(bg_conf_load_mem("x.yaml", sb.buf, sb.len, &c), 0);
	assert_int_equal(c.n, BG_CONF_MAX_KEYS);
	assert_int_equal(bg_conf_str(&c, "k9999", NULL, &s), 0);
	assert_string_equal(s, "9999");
	bg_conf_release(&c);

	/* the last key of the cap given twice: found, with the first one's line */
	bg_strbuf_reset(&sb);
	add_keys(&sb, "", 0, BG_CONF_MAX_KEYS - 1);
	bg_strbuf_addstr(&sb, "k17: again\n");
	expect_load_error(sb.buf, "x.yaml:10000:1: 'k17' is given twice (first at line 18)");

	bg_strbuf_reset(&sb);
	add_keys(&sb, "", 0, BG_CONF_MAX_KEYS + 1);
	want = xasprintf("x.yaml:%d:1: more than %d keys in one file", BG_CONF_MAX_KEYS + 1,
			 BG_CONF_MAX_KEYS);
	expect_load_error(sb.buf, want);
	free(want);

	/* nested: the keys of every mapping count, the mappings' own keys too */
	bg_strbuf_reset(&sb);
	bg_strbuf_addstr(&sb, "a:\n");
	add_keys(&sb, "  ", 0, 5000);
	bg_strbuf_addstr(&sb, "b:\n  - x: 1\n");
	add_keys(&sb, "    ", 0, 4997);
	assert_int_equal(bg_conf_load_nested_mem("x.yaml", sb.buf, sb.len, &c), 0);
	bg_conf_release(&c);
	add_keys(&sb, "    ", 4997, 1);
	want = xasprintf("x.yaml:%d:5: more than %d keys in one file", 1 + 5000 + 2 + 4998,
			 BG_CONF_MAX_KEYS);
	expect_nested_error(sb.buf, want);
	free(want);
	bg_strbuf_release(&sb);
}

/* A NUL written as an escape would cut a key or a value short, to another one. */
static void test_nul_escape(void **state)
{
	(void)state;
	expect_load_error("\"name\\0x\": a\n",
			  "x.yaml:1:1: a NUL character (an escaped zero) in a key or value is not taken");
	expect_load_error("name: \"a\\0b\"\n",
			  "x.yaml:1:7: a NUL character (an escaped zero) in a key or value is not taken");
	expect_nested_error("a: [\"b\\0\"]\n",
			    "x.yaml:1:5: a NUL character (an escaped zero) in a key or value is not taken");
}

/* Nested files: mappings and lists of mappings as values, each with getters of its own. */
static void test_nested(void **state)
{
	struct bg_conf c, *m, *items;
	const char *s;
	char **list;
	size_t n;
	long v;

	(void)state;
	assert_int_equal(load_nested("limits:\n  builds: 3\n"
				     "trees:\n  - name: a\n    arches: [x, y]\n  - {name: b}\n"
				     "none: []\n", &c), 0);
	assert_int_equal(bg_conf_map(&c, "limits", &m), 0);
	assert_non_null(m);
	assert_int_equal(bg_conf_long(m, "builds", 1, 1, 64, &v), 0);
	assert_int_equal(v, 3);
	assert_int_equal(bg_conf_maps(&c, "trees", &items, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(bg_conf_str(&items[1], "name", NULL, &s), 0);
	assert_string_equal(s, "b");
	assert_int_equal(bg_conf_str(&items[0], "name", NULL, &s), 0);
	/* an empty list is as good a list of mappings as of values */
	assert_int_equal(bg_conf_maps(&c, "none", &items, &n), 0);
	assert_int_equal(n, 0);
	/* a key of a mapping that was asked for and not read is unknown */
	assert_int_equal(bg_conf_check_unused(&c), -1);
	assert_string_equal(bg_error_last(), "x.yaml:5:5: unknown key 'arches'");
	assert_int_equal(bg_conf_maps(&c, "trees", &items, &n), 0);
	assert_int_equal(bg_conf_list(&items[0], "arches", &list, &n), 0);
	assert_int_equal(bg_conf_check_unused(&c), 0);
	/* a missing key of a nested mapping is named where the mapping begins */
	assert_int_equal(bg_conf_str_req(&items[1], "url", &s), -1);
	assert_string_equal(bg_error_last(), "x.yaml:6:5: 'url' is missing");
	/* the wrong shape, named at the key */
	assert_int_equal(bg_conf_map(&c, "trees", &m), -1);
	assert_string_equal(bg_error_last(), "x.yaml:3:1: 'trees' takes a mapping of keys to values");
	assert_int_equal(bg_conf_str(&c, "limits", NULL, &s), -1);
	assert_string_equal(bg_error_last(), "x.yaml:1:1: 'limits' takes one value, not a mapping");
	assert_int_equal(bg_conf_list(&c, "trees", &list, &n), -1);
	assert_string_equal(bg_error_last(),
			    "x.yaml:3:1: 'trees' takes a list of plain values, not of mappings");
	assert_int_equal(bg_conf_maps(&c, "limits", &items, &n), -1);
	assert_string_equal(bg_error_last(), "x.yaml:1:1: 'limits' takes a list of mappings");
	bg_conf_release(&c);

	/* a flat file still refuses what a nested one takes */
	expect_load_error("a:\n  b: c\n", "x.yaml:2:3: 'a': expected a value or a list of values");
	expect_load_error("a: [{b: c}]\n", "x.yaml:1:5: 'a': list items must be plain values");

	expect_nested_error("a: {b: 1, b: 2}\n", "x.yaml:1:11: 'b' is given twice (first at line 1)");
	expect_nested_error("a: [x, {b: c}]\n",
			    "x.yaml:1:8: 'a': list items must be all plain values or all mappings");
	expect_nested_error("a: [{b: c}, x]\n",
			    "x.yaml:1:13: 'a': list items must be all plain values or all mappings");
	expect_nested_error("a: [[x]]\n", "x.yaml:1:5: 'a': list items must be plain values or mappings");
	expect_nested_error("a: &x 1\nb: *x\n",
			    "x.yaml:2:4: 'b': aliases (*name) are not taken; write the value out");
	/* eight levels are taken, a ninth is not: the stack is not the input's to fill */
	assert_int_equal(load_nested("a: {b: {c: {d: {e: {f: {g: {h: {i: 1}}}}}}}}\n", &c), 0);
	bg_conf_release(&c);
	expect_nested_error("a: {b: {c: {d: {e: {f: {g: {h: {i: {j: 1}}}}}}}}}\n",
			    "x.yaml:1:36: 'i': mappings nest deeper than 8 levels");
	expect_nested_error("a: {b: [c\n", "x.yaml:2:1: did not find expected ',' or ']' while parsing a flow sequence");
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
		cmocka_unit_test(test_nested),
		cmocka_unit_test(test_files),
		cmocka_unit_test(test_many_keys),
		cmocka_unit_test(test_nul_escape),
	};

	return cmocka_run_group_tests_name("conf", tests, NULL, NULL);
}
