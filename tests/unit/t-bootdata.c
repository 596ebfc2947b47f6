/*
 * Unit tests of the boot-data writer: the wizard's sections, values and consoles made
 * safe for its reader, names that stay one path component, and a file that bootgate
 * parse reads back to the console's own figures.
 */
#include "unit.h"
#include "report/bootdata.h"
#include "util/strbuf.h"

static const char console[] =
	"SeaBIOS\r\n"
	"[    0.000000] Linux version 6.1.0 (x) (gcc (Debian 12.2.0-14) 12.2.0) #1 SMP\r\n"
	"== CONFIG ==\r\n"
	"[    0.100000] initcall con_init+0x0/0x2a0 returned 0 after 3700 usecs\r"
	"[    0.200000] initcall pty_init+0x0/0x10 returned 0 after 1200 usecs\n"
	"bad \xff byte\n"
	"[    0.800000] Run /init as init process";

static char *written(const char *const *extra)
{
	struct bg_strbuf out = BG_STRBUF_INIT;
	struct bg_bootdata_info info = { "qemu-x86_64", 1764590000.5,
					 "6.1.0 #1 SMP", "console=ttyS0 initcall_debug", extra };

	bg_bootdata_write(&out, &info, console, sizeof(console) - 1);
	return bg_strbuf_detach(&out, NULL);
}

static void test_sections(void **state)
{
	char *f = written(NULL);

	(void)state;
	assert_true(!strncmp(f, "=== Machine Info ===", 20));
	assert_non_null(strstr(f, "\n== GRAB-BOOT-DATA INFO ==\nGBD_ARGS=\"-l bootgate -m "
			       "qemu-x86_64\"\nGBD_TIMESTAMP=\"251201-115320\"\nGBD_LAB=\"bootgate\"\n"
			       "GBD_MACHINE=\"qemu-x86_64\"\n\n"));
	assert_non_null(strstr(f, "\n== Kernel Info ==\nKERNEL_VERSION=\"6.1.0 #1 SMP\"\n"
			       "KERNEL_CMDLINE=\"console=ttyS0 initcall_debug\"\n\n"));
	/* no extra pairs: no BOOTGATE section */
	assert_null(strstr(f, "== BOOTGATE =="));
	/* line ends are LF, a lone CR too; the console's "== CONFIG ==" opens nothing */
	assert_non_null(strstr(f, "\n== KERNEL MESSAGES ==\nSeaBIOS\n[    0.000000] Linux"));
	assert_non_null(strstr(f, "#1 SMP\n == CONFIG ==\n[    0.100000]"));
	assert_non_null(strstr(f, "3700 usecs\n[    0.200000]"));
	assert_null(strchr(f, '\r'));
	/* the file is UTF-8, and ends its last line */
	assert_non_null(strstr(f, "bad \xef\xbf\xbd byte\n"));
	assert_non_null(strstr(f, "Run /init as init process\n\n"));
	free(f);
}

/* What the store holds can neither break a line nor open a section. */
static void test_values(void **state)
{
	static const char *const extra[] = { "BOOTGATE_COMMIT", "abc\r\n== KERNEL MESSAGES ==",
					     "BOOTGATE_BOARD", "b\x1b[2J\xc3\xa9\xfe", "BOOTGATE_MODE",
					     "c1\xc2\x9b\xe2\x80\xae", NULL };
	char *f = written(extra);

	(void)state;
	assert_non_null(strstr(f, "\n== BOOTGATE ==\nBOOTGATE_COMMIT=\"abc?" "?== KERNEL MESSAGES "
			       "==\"\nBOOTGATE_BOARD=\"b?[2J\xc3\xa9\xef\xbf\xbd\"\n"
			       "BOOTGATE_MODE=\"c1\xef\xbf\xbd\xef\xbf\xbd\xe2\x80\xae\"\n\n"));
	/* one line opens the kernel section: the one the writer wrote */
	{
		const char *at = strstr(f, "\n== KERNEL MESSAGES ==\n");

		assert_non_null(at);
		assert_null(strstr(at + 1, "\n== KERNEL MESSAGES =="));
		assert_non_null(strstr(f, "\"\n\n== KERNEL MESSAGES ==\nSeaBIOS"));
	}
	free(f);
}

/* Read back by the parser: the console's figures, the decoy header inside it included. */
static void test_parses_back(void **state)
{
	char *f = written(NULL);
	struct parsed *p = parse_str(f), *c = parse_mem(console, sizeof(console) - 1);

	(void)state;
	assert_int_equal(p->ret, 0);
	assert_int_equal(p->n, 1);
	assert_int_equal(c->n, 1);
	assert_int_equal(p->boots[0]->nr_initcalls, 2);
	assert_int_equal(initcall_sum(p->boots[0]), 4900);
	assert_int_equal(p->boots[0]->nr_initcalls, c->boots[0]->nr_initcalls);
	assert_int_equal(p->boots[0]->init_us, 800000);
	assert_int_equal(p->boots[0]->init_us, c->boots[0]->init_us);
	assert_string_equal(p->boots[0]->kernel, "6.1.0");
	parsed_free(p);
	parsed_free(c);
	free(f);
}

static void test_file_name(void **state)
{
	static const struct {
		const char *board, *commit;
		int64_t boot;
		double when;
		const char *name;
	} cases[] = {
		{ "qemu-x86_64", "0123456789abcdef0123456789abcdef01234567", 42, 1764590000,
		  "boot-data-bootgate-qemu-x86_64-0123456789ab-42-251201-115320.txt" },
		{ "../../etc/passwd", "../x", 1, 0,
		  "boot-data-bootgate-_._.._etc_passwd-_._x-1-700101-000000.txt" },
		{ "-rf", NULL, 2, -5, "boot-data-bootgate-_rf-unknown-2-700101-000000.txt" },
		{ "", "a\nb", 3, 1e300, "boot-data-bootgate-unknown-a_b-3-700101-000000.txt" },
		{ ".hidden", "\xc3\xa9", 4, 0, "boot-data-bootgate-_hidden-__-4-700101-000000.txt" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char *name = bg_bootdata_file_name(cases[i].board, cases[i].commit, cases[i].boot,
						   cases[i].when);

		assert_string_equal(name, cases[i].name);
		assert_null(strchr(name, '/'));
		free(name);
	}
	{
		char board[300], *name;

		memset(board, 'b', sizeof(board) - 1);
		board[sizeof(board) - 1] = '\0';
		name = bg_bootdata_file_name(board, "abc", 1, 0);
		/* 64 bytes of board at the most: a name stays far below NAME_MAX */
		assert_int_equal(strlen(name), strlen("boot-data-bootgate--abc-1-700101-000000.txt") + 64);
		free(name);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sections),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_parses_back),
		cmocka_unit_test(test_file_name),
	};

	return cmocka_run_group_tests_name("bootdata", tests, NULL, NULL);
}
