/*
 * Unit tests of what a LAVA job's log says about its boot: only console lines count, the
 * marker's time is measured on the lab's clock, and a log read in pieces reads the same.
 */
#include <math.h>

#include "unit.h"
#include "lab/lava-run.h"

#define LINE(dt, lvl, msg) "- {\"dt\": \"" dt "\", \"lvl\": \"" lvl "\", \"msg\": \"" msg "\"}\n"

static void scan(struct bg_lava_console *c, const char *text)
{
	char *copy = xstrdup(text);

	bg_lava_console_scan(c, copy, strlen(copy));
	free(copy);
}

static void test_boot(void **state)
{
	struct bg_lava_console c;

	bg_lava_console_init(&c);
	scan(&c, LINE("2026-11-29T23:22:40.000000", "info", "downloading")
		 LINE("2026-11-29T23:22:46.500000", "target", "Linux version 6.1")
		 LINE("2026-11-29T23:22:47.000000", "debug", "bootgate: userspace reached")
		 LINE("2026-11-29T23:22:48.000000", "target", "bootgate: userspace reached"));
	assert_true(c.kernel && c.marker && !c.panic);
	assert_true(bg_lava_console_userspace(&c) == 1.5);
	/* the lab's own lines, even quoting the marker, are no evidence */
	bg_lava_console_init(&c);
	scan(&c, LINE("2026-11-29T23:22:47.000000", "debug", "bootgate: userspace reached"));
	assert_false(c.marker);
	assert_true(isnan(bg_lava_console_userspace(&c)));
}

/* The fuzzer's find: a marker stamped before the first console line gave -0.5 s. */
static void test_clock_back(void **state)
{
	struct bg_lava_console c;

	bg_lava_console_init(&c);
	scan(&c, LINE("2026-11-29T23:22:48.000000", "target", "Linux version 6.1")
		 LINE("2026-11-29T23:22:47.500000", "target", "bootgate: userspace reached"));
	assert_true(c.kernel && c.marker);
	assert_true(c.marker_dt < c.first_dt);
	assert_true(isnan(bg_lava_console_userspace(&c)));
	/* a console line without a time: the next one with a time starts the clock */
	bg_lava_console_init(&c);
	scan(&c, "- {\"lvl\": \"target\", \"msg\": \"early\"}\n"
		 LINE("2026-11-29T23:22:46.000000", "feedback", "Linux version 6.1")
		 LINE("2026-11-29T23:22:47.000000", "target", "bootgate: userspace reached"));
	assert_true(bg_lava_console_userspace(&c) == 1.0);
}

static void test_pieces(void **state)
{
	static const char text[] = LINE("2026-11-29T23:22:46.000000", "target", "Linux version 6")
		LINE("2026-11-29T23:22:49.250000", "target", "Kernel panic - not syncing: x")
		"- {\"lvl\": \"target\", \"msg\": \"bootgate: userspace reached\"";
	struct bg_lava_console c;
	char *copy = xstrdup(text);
	size_t cut = strchr(text, '\n') + 1 - text;

	bg_lava_console_init(&c);
	bg_lava_console_scan(&c, copy, cut);
	assert_true(c.kernel && !c.panic);
	bg_lava_console_scan(&c, copy + cut, strlen(text) - cut);
	assert_true(c.panic);
	/* a last line without its newline is not read (LAVA is still writing it) */
	assert_false(c.marker);
	/* 2026-11-29T23:22:46 UTC, the first line's time */
	assert_true(c.first_dt == 1795994566.0 && isnan(c.marker_dt));
	free(copy);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_boot),
		cmocka_unit_test(test_clock_back),
		cmocka_unit_test(test_pieces),
	};

	return cmocka_run_group_tests_name("lava-run", tests, NULL, NULL);
}
