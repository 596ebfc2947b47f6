/*
 * Unit tests of the boot-data reader: the boot-time wizard's files read like any log,
 * their kernel section alone, with the file's own line numbers.
 */
#include "unit.h"
#include "util/error.h"
#include "util/strbuf.h"

#define PREAMBLE "=== Machine Info ==============================\n"
#define GBD "== GRAB-BOOT-DATA INFO ==\nGBD_LAB=\"bootgate\"\nGBD_MACHINE=\"qemu-x86_64\"\n\n"
#define BOOT_LINES \
	"[    0.000000] Linux version 6.1.0 (x) (gcc (Debian 12.2.0-14) 12.2.0) #1\n" \
	"[    0.100000] calling  con_init+0x0/0x2a0 @ 0\n" \
	"[    0.103700] initcall con_init+0x0/0x2a0 returned 0 after 3700 usecs\n" \
	"[    0.700000] probe of serial8250 returned 0 after 658 usecs\n" \
	"[    0.800000] Run /init as init process\n"

static void test_header(void **state)
{
	static const struct {
		const char *line, *name;       /* name NULL: no header */
	} cases[] = {
		{ "== KERNEL MESSAGES ==", "KERNEL MESSAGES" },
		{ "==   UPTIME ==  \t", "UPTIME" },
		{ "== DISK USAGE ==", "DISK USAGE" },
		{ "== x ==", "x" },
		{ "== ==", NULL },
		{ "==  ==", NULL },
		{ "== KERNEL MESSAGES", NULL },
		{ "=== Machine Info ===", NULL },
		{ "==KERNEL MESSAGES ==", NULL },
		{ "", NULL },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const char *name = NULL;
		size_t n = 0;
		bool is = bg_bootdata_header(cases[i].line, strlen(cases[i].line), &name, &n);

		print_message("'%s'\n", cases[i].line);
		assert_int_equal(is, cases[i].name != NULL);
		if (is) {
			assert_int_equal(n, strlen(cases[i].name));
			assert_memory_equal(name, cases[i].name, n);
		}
	}
}

/* Machine data that looks like kernel lines never counts: only KERNEL MESSAGES does. */
static void test_sections(void **state)
{
	static const char log[] =
		PREAMBLE
		"== UPTIME ==\n 12:00:00 up 0 min\n\n"
		GBD
		"== SYSTEMD INFO ==\n"
		"[    9.000000] initcall decoy_init+0x0/0x10 returned 0 after 999999 usecs\n"
		"[    9.500000] Run /init as init process\n"
		"\n"
		"== KERNEL MESSAGES ==\n"
		BOOT_LINES
		"\n"
		"== EXTRA ==\n"
		"[   10.000000] initcall late_decoy+0x0/0x10 returned 0 after 5 usecs\n";
	struct parsed *p = parse_str(log);
	const struct bg_boot *b;

	(void)state;
	assert_int_equal(p->ret, 0);
	assert_int_equal(p->n, 1);
	b = p->boots[0];
	assert_string_equal(b->kernel, "6.1.0");
	assert_int_equal(b->nr_initcalls, 1);
	assert_string_equal(b->initcalls[0].name, "con_init");
	assert_int_equal(b->initcalls[0].usecs, 3700);
	assert_int_equal(b->nr_probes, 1);
	assert_int_equal(b->init_us, 800000);
	assert_int_equal(b->outcome, BG_OUTCOME_COMPLETE);
	/* the file's own numbers: the banner is line 14, Run /init line 18 */
	assert_int_equal(b->first_line, 14);
	assert_int_equal(b->last_line, 18);
	assert_int_equal(p->warnings, 0);
	parsed_free(p);
}

/* Each KERNEL MESSAGES section is read; the others between them are not. */
static void test_two_kernel_sections(void **state)
{
	static const char log[] =
		"== KERNEL MESSAGES ==\n"
		"[    0.000000] Linux version 6.1.0 (x) (gcc 12) #1\n"
		"[    0.100000] initcall a_init+0x0/0x1 returned 0 after 10 usecs\n"
		"== CONFIG ==\n"
		"[    0.150000] initcall config_decoy+0x0/0x1 returned 0 after 7 usecs\n"
		"== KERNEL MESSAGES ==\n"
		"[    0.200000] initcall b_init+0x0/0x1 returned 0 after 20 usecs\n";
	struct parsed *p = parse_str(log);

	(void)state;
	assert_int_equal(p->ret, 0);
	assert_int_equal(p->n, 1);
	assert_int_equal(p->boots[0]->nr_initcalls, 2);
	assert_int_equal(initcall_sum(p->boots[0]), 30);
	parsed_free(p);
}

/* A warning about a kernel line names its line in the file, not in the section. */
static void test_line_numbers(void **state)
{
	static const char log[] =
		PREAMBLE                                                         /* 1 */
		GBD                                                              /* 2-5 */
		"== KERNEL MESSAGES ==\n"                                        /* 6 */
		"[    0.000000] Linux version 6.1.0 (x) (gcc 12) #1\n"           /* 7 */
		"[    0.100000] initcall x_init+0x0/0x1 returned 0 after 99999999999999999999 usecs\n"
		"== broken header\n";                                            /* 9 */
	struct parsed *p = parse_str(log);

	(void)state;
	assert_int_equal(p->ret, 0);
	assert_int_equal(p->n, 1);
	assert_int_equal(p->boots[0]->unparsed_lines, 1);
	/* the absurd number is counted, not warned about; the header that is none is */
	assert_int_equal(p->warnings, 1);
	assert_string_equal(p->warning, "mem:9: boot-data section header without its closing "
			    "' ==', skipped");
	parsed_free(p);
}

static void test_missing_kernel_section(void **state)
{
	static const char log[] = PREAMBLE GBD "== CONFIG ==\nCONFIG_X86_64=y\n";
	struct parsed *p = parse_str(log);

	(void)state;
	assert_int_equal(p->ret, -1);
	assert_int_equal(p->n, 0);
	assert_string_equal(bg_error_last(), "mem:7: boot-data file without a '== KERNEL "
			    "MESSAGES ==' section (cut short?): no kernel log to read");
	parsed_free(p);
}

/* Cut inside the kernel section: what was there is kept, as for any cut log. */
static void test_truncated(void **state)
{
	static const char full[] = PREAMBLE GBD "== KERNEL MESSAGES ==\n" BOOT_LINES;
	const char *cut = strstr(full, "[    0.700000]");
	struct parsed *p = parse_mem(full, (size_t)(cut - full) + 20);

	(void)state;
	assert_int_equal(p->ret, 0);
	assert_int_equal(p->n, 1);
	assert_int_equal(p->boots[0]->outcome, BG_OUTCOME_TRUNCATED);
	assert_int_equal(p->boots[0]->nr_initcalls, 1);
	assert_int_equal(p->boots[0]->init_us, -1);
	parsed_free(p);

	/* cut in the middle of the header itself: no kernel section, an error at line 6 */
	cut = strstr(full, "== KERNEL");
	p = parse_mem(full, (size_t)(cut - full) + 9);
	assert_int_equal(p->ret, -1);
	assert_int_equal(p->n, 0);
	assert_non_null(strstr(bg_error_last(), "mem:6: boot-data file without"));
	parsed_free(p);
}

/* A console whose firmware prints "== ... ==" first is still a console. */
static void test_console_not_taken(void **state)
{
	static const char log[] = "== U-Boot SPL ==\n" BOOT_LINES;
	struct parsed *p = parse_str(log);

	(void)state;
	assert_int_equal(p->ret, 0);
	assert_int_equal(p->n, 1);
	assert_int_equal(p->boots[0]->nr_initcalls, 1);
	assert_int_equal(p->boots[0]->init_us, 800000);
	parsed_free(p);
}

/* CRLF line ends, as a file saved on another system has them: the same sections. */
static void test_crlf(void **state)
{
	static const char log[] =
		"=== Machine Info ===\r\n== CONFIG ==\r\n"
		"[    9.000000] initcall decoy_init+0x0/0x10 returned 0 after 999999 usecs\r\n"
		"== KERNEL MESSAGES ==\r\n"
		"[    0.000000] Linux version 6.1.0 (x) (gcc 12) #1\r\n"
		"[    0.100000] initcall a_init+0x0/0x1 returned 0 after 10 usecs\r\n";
	struct parsed *p = parse_str(log);

	(void)state;
	assert_int_equal(p->ret, 0);
	assert_int_equal(p->n, 1);
	assert_int_equal(p->boots[0]->nr_initcalls, 1);
	assert_int_equal(initcall_sum(p->boots[0]), 10);
	parsed_free(p);
}

/*
 * A line past the parser's limit outside the kernel's sections (a long CONFIG value)
 * loses no kernel message: skipped without a word. Inside them it is warned about.
 */
static void test_long_lines(void **state)
{
	struct bg_strbuf log = BG_STRBUF_INIT;
	struct parsed *p;

	(void)state;
	bg_strbuf_addstr(&log, PREAMBLE "== CONFIG ==\nCONFIG_CMDLINE=\"");
	for (int i = 0; i < BG_BOOTLOG_MAX_LINE + 10; i++)
		bg_strbuf_addch(&log, 'x');
	bg_strbuf_addstr(&log, "\"\n== KERNEL MESSAGES ==\n" BOOT_LINES);
	p = parse_mem(log.buf, log.len);
	assert_int_equal(p->ret, 0);
	assert_int_equal(p->n, 1);
	assert_int_equal(p->warnings, 0);
	assert_int_equal(p->boots[0]->nr_initcalls, 1);
	assert_int_equal(p->boots[0]->init_us, 800000);
	parsed_free(p);

	bg_strbuf_reset(&log);
	bg_strbuf_addstr(&log, PREAMBLE "== KERNEL MESSAGES ==\n" BOOT_LINES);
	for (int i = 0; i < BG_BOOTLOG_MAX_LINE + 10; i++)
		bg_strbuf_addch(&log, 'x');
	bg_strbuf_addstr(&log, "\n");
	p = parse_mem(log.buf, log.len);
	assert_int_equal(p->warnings, 1);
	assert_string_equal(p->warning, "mem:8: line longer than 65536 bytes, skipped");
	parsed_free(p);
	bg_strbuf_release(&log);
}

struct count {
	size_t initcalls;
	int64_t init_us;
	unsigned boots;
};

static int count_boot(const struct bg_boot *b, void *data)
{
	struct count *c = data;

	c->boots++;
	c->initcalls += b->nr_initcalls;
	c->init_us = b->init_us;
	return 0;
}

/* The shipped boot-data file, fed in two pieces split anywhere, reads as it does whole. */
static void test_fixture_any_split(void **state)
{
	char path[4096], *buf;
	size_t len;

	(void)state;
	snprintf(path, sizeof(path), "%s/bootdata/boot-data-bootgate-qemu_x86_64-261201-120000.txt",
		 FIXTURES);
	buf = bg_read_file(path, 1 << 20, &len);
	assert_non_null(buf);
	for (size_t split = 0; split <= len; split += 97) {
		struct count c = { 0 };
		struct bg_bootlog *p = bg_bootlog_new("split", count_boot, &c);

		assert_int_equal(bg_bootlog_feed(p, buf, split), 0);
		assert_int_equal(bg_bootlog_feed(p, buf + split, len - split), 0);
		assert_int_equal(bg_bootlog_finish(p), 0);
		bg_bootlog_free(p);
		assert_int_equal(c.boots, 1);
		assert_int_equal(c.initcalls, 185);
		assert_int_equal(c.init_us, 1074148);
	}
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_header),
		cmocka_unit_test(test_sections),
		cmocka_unit_test(test_two_kernel_sections),
		cmocka_unit_test(test_line_numbers),
		cmocka_unit_test(test_missing_kernel_section),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_console_not_taken),
		cmocka_unit_test(test_crlf),
		cmocka_unit_test(test_long_lines),
		cmocka_unit_test(test_fixture_any_split),
	};

	return cmocka_run_group_tests_name("bootlog-bootdata", tests, NULL, NULL);
}
