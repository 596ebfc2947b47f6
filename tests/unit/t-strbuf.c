/* Unit tests of the string buffer, the arena and the last-error store. */
#include "unit.h"
#include "util/arena.h"
#include "util/error.h"
#include "util/strbuf.h"

static void test_add_and_detach(void **state)
{
	struct bg_strbuf sb = BG_STRBUF_INIT;
	char *s;
	size_t len;

	(void)state;
	assert_string_equal(sb.buf, "");
	assert_int_equal(bg_strbuf_addstr(&sb, "initcall "), 0);
	assert_int_equal(bg_strbuf_addf(&sb, "%s returned %d", "pty_init", -19), 0);
	assert_int_equal(bg_strbuf_addch(&sb, '!'), 0);
	assert_string_equal(sb.buf, "initcall pty_init returned -19!");
	assert_int_equal(sb.len, 31);
	bg_strbuf_setlen(&sb, 8);
	assert_string_equal(sb.buf, "initcall");
	s = bg_strbuf_detach(&sb, &len);
	assert_string_equal(s, "initcall");
	assert_int_equal(len, 8);
	assert_int_equal(sb.len, 0);
	assert_string_equal(sb.buf, "");
	free(s);
	bg_strbuf_release(&sb);
}

static void test_long_format(void **state)
{
	struct bg_strbuf sb = BG_STRBUF_INIT;

	(void)state;
	bg_strbuf_addf(&sb, "%0500d", 7);
	assert_int_equal(sb.len, 500);
	assert_int_equal(sb.buf[499], '7');
	assert_int_equal(sb.buf[0], '0');
	bg_strbuf_release(&sb);
}

static void test_cap(void **state)
{
	struct bg_strbuf sb;

	(void)state;
	bg_strbuf_init(&sb, 10);
	assert_int_equal(bg_strbuf_addstr(&sb, "0123456"), 0);
	assert_false(sb.truncated);
	assert_int_equal(bg_strbuf_addstr(&sb, "789abc"), -1);
	assert_true(sb.truncated);
	assert_int_equal(sb.len, 10);
	assert_string_equal(sb.buf, "0123456789");
	assert_int_equal(bg_strbuf_addch(&sb, 'x'), -1);
	assert_string_equal(sb.buf, "0123456789");
	bg_strbuf_reset(&sb);
	assert_false(sb.truncated);
	assert_int_equal(sb.len, 0);
	bg_strbuf_release(&sb);
}

static void test_arena(void **state)
{
	struct bg_arena a = BG_ARENA_INIT;
	char *s1, *s2;
	void *big;

	(void)state;
	s1 = bg_arena_strndup(&a, "pty_init+0x0", 8);
	assert_string_equal(s1, "pty_init");
	big = bg_arena_alloc(&a, 200000);    /* larger than a block */
	memset(big, 1, 200000);
	s2 = bg_arena_strndup(&a, "con_init", 8);
	assert_string_equal(s1, "pty_init");   /* earlier pointers stay valid */
	assert_string_equal(s2, "con_init");
	assert_int_equal((uintptr_t)s2 % _Alignof(max_align_t), 0);
	assert_int_equal(a.total, 9 + 200000 + 9);
	bg_arena_reset(&a);
	assert_int_equal(a.total, 0);
	s1 = bg_arena_strndup(&a, "again", 5);
	assert_string_equal(s1, "again");
	bg_arena_release(&a);
	assert_null(a.head);
}

static void test_error(void **state)
{
	(void)state;
	bg_error_clear();
	assert_string_equal(bg_error_last(), "no error");
	assert_int_equal(bg_error("cannot parse '%s' at %d", "x.log", 12), -1);
	assert_string_equal(bg_error_last(), "cannot parse 'x.log' at 12");
	errno = ENOENT;
	assert_int_equal(bg_error_errno("cannot open '%s'", "y.log"), -1);
	assert_string_equal(bg_error_last(), "cannot open 'y.log': No such file or directory");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_add_and_detach),
		cmocka_unit_test(test_long_format),
		cmocka_unit_test(test_cap),
		cmocka_unit_test(test_arena),
		cmocka_unit_test(test_error),
	};

	return cmocka_run_group_tests_name("strbuf", tests, NULL, NULL);
}
