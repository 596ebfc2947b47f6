/* Unit tests of the boot-log parser: every shipped real log, then each console variant. */
#include "unit.h"
#include "parse/metrics.h"
#include "util/error.h"
#include "util/strbuf.h"

/*
 * Expected figures for the shipped real logs, worked out independently of the parser
 * (a Python regex over "[ts] initcall NAME+... returned R after N usecs", each
 * (timestamp, line) counted once, and the "Run /init" timestamp).
 */
struct fixture_expect {
	const char *file;
	size_t initcalls;
	int64_t sum_usecs;
	const char *slowest;
	int64_t slowest_usecs;
	int64_t init_us;         /* -1: none */
	enum bg_outcome outcome;
	size_t probes;
	const char *kernel;
	const char *arch;        /* the family its lines show */
};

static const struct fixture_expect fixtures[] = {
	{ "bootlogs/arm64-tiny-baseline-run1.log", 192, 638672, "pty_init", 254718, 862956,
	  BG_OUTCOME_COMPLETE, 3, "6.1.192+", "arm" },
	{ "bootlogs/arm64-tiny-baseline-run2.log", 192, 362686, "pty_init", 150964, 478865,
	  BG_OUTCOME_COMPLETE, 3, "6.1.192+", "arm" },
	{ "bootlogs/ppc64le-tiny-baseline-run1.log", 266, 374989, "pty_init", 124945, 523644,
	  BG_OUTCOME_COMPLETE, 1, "6.1.192+", "powerpc" },
	{ "bootlogs/ppc64le-tiny-baseline-run2.log", 266, 394456, "pty_init", 130531, 563167,
	  BG_OUTCOME_COMPLETE, 1, "6.1.192+", "powerpc" },
	{ "bootlogs/x86_64-debian-6.1.0-57-noinitrd-panic.log", 670, 1645942, "crypto_algapi_init",
	  377951, -1, BG_OUTCOME_PANIC, 13, "6.1.0-57-amd64", "x86" },
	{ "bootlogs/x86_64-debian-6.1.0-57-run1.log", 670, 1195684, "crypto_algapi_init", 242395,
	  2093205, BG_OUTCOME_COMPLETE, 13, "6.1.0-57-amd64", "x86" },
	{ "bootlogs/x86_64-debian-6.1.0-57-run2.log", 670, 1206823, "crypto_algapi_init", 329875,
	  2645101, BG_OUTCOME_COMPLETE, 13, "6.1.0-57-amd64", "x86" },
	{ "bootlogs/x86_64-tiny-baseline-run1.log", 185, 293290, "pty_init", 120686, 1115802,
	  BG_OUTCOME_COMPLETE, 4, "6.1.192+", "x86" },
	{ "bootlogs/x86_64-tiny-baseline-run2.log", 185, 159477, "pty_init", 63852, 785188,
	  BG_OUTCOME_COMPLETE, 4, "6.1.192+", "x86" },
	{ "bootlogs/x86_64-tiny-baseline-run3.log", 185, 162705, "pty_init", 49809, 834851,
	  BG_OUTCOME_COMPLETE, 4, "6.1.192+", "x86" },
	{ "bootlogs/x86_64-tiny-regressed-run1.log", 185, 302887, "init_kprobe_trace", 92066,
	  1074148, BG_OUTCOME_COMPLETE, 4, "6.1.192+", "x86" },
	{ "bootlogs/x86_64-tiny-regressed-run2.log", 185, 220859, "pty_init", 62979, 890150,
	  BG_OUTCOME_COMPLETE, 4, "6.1.192+", "x86" },
	{ "bootlogs/x86_64-tiny-regressed-run3.log", 185, 223180, "init_kprobe_trace", 49882,
	  790752, BG_OUTCOME_COMPLETE, 4, "6.1.192+", "x86" },
	{ "lava/fresh-chroot-job1-boot.log.yaml", 670, 1978511, "crypto_algapi_init", 413361,
	  3398610, BG_OUTCOME_COMPLETE, 13, "6.1.0-57-amd64", "x86" },
	{ "lava/job10-incomplete.log.yaml", 670, 1394423, "crypto_algapi_init", 245108, 2910466,
	  BG_OUTCOME_COMPLETE, 13, "6.1.0-57-amd64", "x86" },
};

static void test_fixtures(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(fixtures); i++) {
		const struct fixture_expect *e = &fixtures[i];
		char path[4096];
		struct parsed *p;
		const struct bg_boot *b;
		const struct bg_initcall *slow;

		snprintf(path, sizeof(path), "%s/%s", FIXTURES, e->file);
		p = parse_path(path);
		print_message("%s\n", e->file);
		assert_int_equal(p->ret, 0);
		assert_int_equal(p->n, 1);
		b = p->boots[0];
		assert_int_equal(b->nr_initcalls, e->initcalls);
		assert_int_equal(initcall_sum(b), e->sum_usecs);
		slow = slowest_initcall(b);
		assert_string_equal(slow->name, e->slowest);
		assert_int_equal(slow->usecs, e->slowest_usecs);
		assert_int_equal(b->init_us, e->init_us);
		assert_int_equal(b->outcome, e->outcome);
		assert_int_equal(b->nr_probes, e->probes);
		assert_string_equal(b->kernel, e->kernel);
		assert_string_equal(b->arch, e->arch);
		assert_int_equal(b->unparsed_lines, 0);
		assert_int_equal(p->warnings, 0);
		parsed_free(p);
	}
}

/* Details of one real log: start times, cmdline, panic line, order. */
static void test_fixture_details(void **state)
{
	struct parsed *p;
	const struct bg_boot *b;
	const struct bg_initcall *ic;

	(void)state;
	p = parse_path(FIXTURES "/bootlogs/x86_64-tiny-regressed-run3.log");
	b = p->boots[0];
	ic = find_initcall(b, "init_kprobe_trace");
	assert_non_null(ic);
	assert_int_equal(ic->usecs, 49882);
	assert_string_equal(ic->line, "initcall init_kprobe_trace+0x0/0x179 returned 0 after 49882 usecs");
	assert_true(ic->start_us > 0 && ic->start_us < ic->end_us);
	assert_string_equal(b->cmdline, "console=ttyS0 initcall_debug printk.time=1 panic=-1 "
			    "tsc_early_khz=2300000 log_buf_len=1M");
	/* the reference init prints "BOOT-DONE uptime=0.85 0.05" */
	assert_int_equal(b->userspace_us, 850000);
	/* boot order: end times never go backwards */
	for (size_t i = 1; i < b->nr_initcalls; i++)
		assert_true(b->initcalls[i].end_us >= b->initcalls[i - 1].end_us);
	assert_string_equal(b->initcalls[0].name, "con_init");
	parsed_free(p);

	p = parse_path(FIXTURES "/bootlogs/x86_64-debian-6.1.0-57-noinitrd-panic.log");
	assert_string_equal(p->boots[0]->panic, "Kernel panic - not syncing: VFS: Unable to mount "
			    "root fs on unknown-block(0,0)");
	parsed_free(p);
}

/* Names are not unique: both blake2s_mod_init lines of Debian's kernel are kept. */
static void test_duplicate_names_kept(void **state)
{
	struct parsed *p = parse_path(FIXTURES "/bootlogs/x86_64-debian-6.1.0-57-run1.log");
	const struct bg_boot *b = p->boots[0];
	int n = 0;

	(void)state;
	for (size_t i = 0; i < b->nr_initcalls; i++)
		n += !strcmp(b->initcalls[i].name, "blake2s_mod_init");
	assert_int_equal(n, 2);
	parsed_free(p);
}

static const char basic[] =
	"[    0.000000] Linux version 6.1.192+ (ci@ci) (gcc) #1 SMP 2026-01-01\n"
	"[    0.000000] Command line: console=ttyS0 initcall_debug\n"
	"[    0.056137] Kernel command line: console=ttyS0 initcall_debug\n"
	"[    0.109593] calling  con_init+0x0/0x219 @ 0\n"
	"[    0.113297] initcall con_init+0x0/0x219 returned 0 after 3700 usecs\n"
	"[    0.200000] calling  init_kprobe_trace+0x0/0xe0 @ 1\n"
	"[    0.430080] initcall init_kprobe_trace+0x0/0xe0 returned 0 after 230080 usecs\n"
	"[    0.594711] probe of serial8250 returned 0 after 658 usecs\n"
	"[    0.609548] probe of serio1 returned 19 after 633 usecs\n"
	"[    0.748606] Freeing unused kernel image (initmem) memory: 520K\n"
	"[    0.759755] Run /init as init process\n"
	"[    0.759760]   with arguments:\n"
	"[    0.812000] bootgate: userspace reached\n";

static void check_basic(const struct parsed *p)
{
	const struct bg_boot *b;

	assert_int_equal(p->n, 1);
	b = p->boots[0];
	assert_string_equal(b->kernel, "6.1.192+");
	assert_string_equal(b->cmdline, "console=ttyS0 initcall_debug");
	assert_int_equal(b->nr_initcalls, 2);
	assert_string_equal(b->initcalls[0].name, "con_init");
	assert_null(b->initcalls[0].module);
	assert_int_equal(b->initcalls[0].usecs, 3700);
	assert_int_equal(b->initcalls[0].start_us, 109593);
	assert_int_equal(b->initcalls[0].end_us, 113297);
	assert_string_equal(b->initcalls[1].name, "init_kprobe_trace");
	assert_int_equal(b->initcalls[1].usecs, 230080);
	assert_int_equal(b->initcalls[1].start_us, 200000);
	assert_int_equal(b->nr_probes, 2);
	assert_string_equal(b->probes[0].device, "serial8250");
	assert_int_equal(b->probes[0].usecs, 658);
	assert_int_equal(b->probes[0].start_us, 594711 - 658);
	assert_int_equal(b->probes[1].ret, 19);
	assert_int_equal(b->free_initmem_us, 748606);
	assert_int_equal(b->init_us, 759755);
	assert_int_equal(b->userspace_us, 812000);
	assert_int_equal(b->outcome, BG_OUTCOME_COMPLETE);
	assert_int_equal(b->unparsed_lines, 0);
}

static void test_basic(void **state)
{
	struct parsed *p = parse_str(basic);

	(void)state;
	check_basic(p);
	parsed_free(p);
}

/* The same log in other clothes must read the same. */
static char *transform(const char *in, const char *line_prefix, const char *line_end)
{
	struct bg_strbuf sb = BG_STRBUF_INIT;
	const char *s = in;

	while (*s) {
		const char *nl = strchr(s, '\n');

		bg_strbuf_addstr(&sb, line_prefix);
		bg_strbuf_add(&sb, s, (size_t)(nl - s));
		bg_strbuf_addstr(&sb, line_end);
		s = nl + 1;
	}
	return bg_strbuf_detach(&sb, NULL);
}

static void test_crlf_and_cr(void **state)
{
	char *crlf = transform(basic, "", "\r\n");
	char *cr = transform(basic, "", "\r");
	struct parsed *p;

	(void)state;
	p = parse_str(crlf);
	check_basic(p);
	parsed_free(p);
	p = parse_str(cr);
	check_basic(p);
	parsed_free(p);
	free(crlf);
	free(cr);
}

static void test_syslog_prefix(void **state)
{
	char *s = transform(basic, "<6>", "\n");
	struct parsed *p = parse_str(s);

	(void)state;
	check_basic(p);
	parsed_free(p);
	free(s);
}

static void test_firmware_and_escapes(void **state)
{
	struct bg_strbuf sb = BG_STRBUF_INIT;
	struct parsed *p;

	(void)state;
	/* SeaBIOS, iPXE, then the kernel's first line glued to escape sequences */
	bg_strbuf_addstr(&sb, "\x1b" "c\x1b[?7l\x1b[2J\x1b[0mSeaBIOS (version 1.16.2)\r\n\r\n"
			 "iPXE (http://ipxe.org) 00:03.0 CA00\r\n"
			 "Booting from ROM..\x1b" "c\x1b[?7l\x1b[2J");
	bg_strbuf_addstr(&sb, basic);
	p = parse_str(sb.buf);
	check_basic(p);
	assert_int_equal(p->boots[0]->first_line, 4);
	parsed_free(p);
	bg_strbuf_release(&sb);

	/* colour codes inside a message, as perf prints them */
	p = parse_str("[    0.100000] Linux version 6.1.0 (x)\n"
		      "[    0.200000] \x1b[33minitcall foo+0x0/0x10 returned 0 after 12 usecs\x1b[m\n");
	assert_int_equal(p->boots[0]->nr_initcalls, 1);
	assert_int_equal(p->boots[0]->initcalls[0].usecs, 12);
	parsed_free(p);
}

static void test_printk_time_off(void **state)
{
	struct parsed *p = parse_str(
		"Linux version 6.1.192+ (ci@ci) (gcc) #1\n"
		"calling  con_init+0x0/0x219 @ 0\n"
		"initcall con_init+0x0/0x219 returned 0 after 3700 usecs\n"
		"probe of serial8250 returned 0 after 658 usecs\n"
		"Run /init as init process\n");
	const struct bg_boot *b;

	(void)state;
	assert_int_equal(p->n, 1);
	b = p->boots[0];
	assert_int_equal(b->nr_initcalls, 1);
	assert_int_equal(b->initcalls[0].usecs, 3700);
	assert_int_equal(b->initcalls[0].start_us, -1);
	assert_int_equal(b->initcalls[0].end_us, -1);
	assert_int_equal(b->probes[0].start_us, -1);
	assert_int_equal(b->init_us, -1);
	assert_int_equal(b->outcome, BG_OUTCOME_COMPLETE);
	parsed_free(p);
}

static void test_caller_field(void **state)
{
	struct parsed *p = parse_str(
		"[    0.000000][    T0] Linux version 6.1.192+ (ci@ci) (gcc) #1\n"
		"[    0.224933][    T1] calling  pty_init+0x0/0x2f7 @ 1\n"
		"[    0.291545][    T1] initcall pty_init+0x0/0x2f7 returned 0 after 66612 usecs\n"
		"[    0.300000][   C0] probe of i8042 returned 0 after 4477 usecs\n"
		"[    0.759755][    T1] Run /init as init process\n");
	const struct bg_boot *b = p->boots[0];

	(void)state;
	assert_int_equal(b->nr_initcalls, 1);
	assert_string_equal(b->initcalls[0].name, "pty_init");
	assert_int_equal(b->initcalls[0].start_us, 224933);
	assert_int_equal(b->initcalls[0].usecs, 66612);
	assert_string_equal(b->probes[0].device, "i8042");
	assert_int_equal(b->init_us, 759755);
	parsed_free(p);
}

static void test_msecs_and_module(void **state)
{
	struct parsed *p = parse_str(
		"[    1.000000] calling  foo_init+0x0/0x40 [foo] @ 212\n"
		"[    1.020000] initcall foo_init+0x0/0x40 [foo] returned 0 after 20 msecs\n"
		"[    1.030000] initcall bts_init+0x0/0xb6 returned -19 after 0 usecs\n");
	const struct bg_boot *b = p->boots[0];

	(void)state;
	assert_int_equal(b->nr_initcalls, 2);
	assert_string_equal(b->initcalls[0].name, "foo_init");
	assert_string_equal(b->initcalls[0].module, "foo");
	assert_int_equal(b->initcalls[0].usecs, 20000);
	assert_int_equal(b->initcalls[0].start_us, 1000000);
	assert_int_equal(b->initcalls[1].ret, -19);
	/* no banner: the kernel is unknown, the boot still counts */
	assert_null(b->kernel);
	assert_int_equal(b->outcome, BG_OUTCOME_TRUNCATED);
	parsed_free(p);
}

/* Another CPU's line lands inside a dump line; a crash cuts one short. */
static void test_spliced_and_cut_lines(void **state)
{
	struct parsed *p = parse_str(
		"[    0.000000] Linux version 6.1.0 (x)\n"
		"[    1.163916] initcall iommu_dev_init+0x0/0x18 returned 0 after 7 usecs"
		"[    2.711373] tsc: Refined TSC clocksource calibration: 2300.000 MHz\n"
		"[    1.200000] initcall cut_init+0x0/0x18 returned 0 aft\n"
		"[    1.300000] calling  half\n"
		"[    1.400000] probe of dev0 returned 0 af<6>[    1.400100] initcall "
		"b_init+0x0/0x9 returned 0 after 9 usecs\n");
	const struct bg_boot *b = p->boots[0];

	(void)state;
	assert_int_equal(b->nr_initcalls, 2);
	assert_string_equal(b->initcalls[0].name, "iommu_dev_init");
	assert_int_equal(b->initcalls[0].usecs, 7);
	assert_string_equal(b->initcalls[1].name, "b_init");
	assert_int_equal(b->initcalls[1].end_us, 1400100);
	assert_int_equal(b->nr_probes, 0);
	assert_int_equal(b->unparsed_lines, 3);
	parsed_free(p);
}

/* The console, then a dump of the ring buffer: each line is counted once. */
static void test_dump_counted_once(void **state)
{
	struct bg_strbuf sb = BG_STRBUF_INIT;
	struct parsed *p;

	(void)state;
	/* with the reference init's markers */
	bg_strbuf_addstr(&sb, basic);
	bg_strbuf_addstr(&sb, "BOOT-DONE uptime=0.83 0.06\nDMESG-BEGIN\n");
	bg_strbuf_addstr(&sb, basic);
	bg_strbuf_addstr(&sb, "DMESG-END\n[    1.227381] reboot: Restarting system\n");
	p = parse_str(sb.buf);
	check_basic(p);
	parsed_free(p);

	/* a plain dmesg appended without markers: the banner comes again */
	bg_strbuf_reset(&sb);
	bg_strbuf_addstr(&sb, basic);
	bg_strbuf_addstr(&sb, basic);
	p = parse_str(sb.buf);
	check_basic(p);
	parsed_free(p);

	/* live console without the debug lines; the dump alone carries them */
	bg_strbuf_reset(&sb);
	bg_strbuf_addstr(&sb, "[    0.000000] Linux version 6.1.192+ (ci@ci) (gcc) #1 SMP 2026-01-01\n"
			 "[    0.759755] Run /init as init process\n"
			 "DMESG-BEGIN\n");
	bg_strbuf_addstr(&sb, basic);
	bg_strbuf_addstr(&sb, "DMESG-END\n");
	p = parse_str(sb.buf);
	check_basic(p);
	parsed_free(p);
	bg_strbuf_release(&sb);
}

/* The test init's perf runs: one value each, failures and bad lines give none. */
static const char perf_boot[] =
	"[    0.000000] Linux version 6.1.192+ (ci@ci) (gcc) #1 2026-01-01\n"
	"[    0.759755] Run /init as init process\n"
	"[    0.770000] bootgate: userspace reached\n"
	"[    0.910000] bootgate: perf.trace_startup=140231 run=0 exit=0\n"
	"[    1.050000] bootgate: perf.trace_startup=139870 run=1 exit=0\n"
	"[    1.060000] bootgate: perf.trace_startup=9000 run=2 exit=255\n"
	"[    1.200000] bootgate: perf.trace_startup=141002 run=3 exit=0\n";

struct perf_values {
	int64_t v[8];
	unsigned n, others;
};

static void keep_perf(const struct bg_metric *m, void *data)
{
	struct perf_values *pv = data;

	if (strcmp(m->name, "perf.trace_startup") != 0)
		pv->others++;
	else if (pv->n < 8)
		pv->v[pv->n++] = m->usecs;
}

static void test_perf_runs(void **state)
{
	struct bg_strbuf sb = BG_STRBUF_INIT;
	struct perf_values pv = { { 0 }, 0, 0 };
	struct parsed *p = parse_str(perf_boot);
	const struct bg_boot *b = p->boots[0];

	(void)state;
	assert_int_equal(b->nr_perf_runs, 3);
	assert_int_equal(b->perf_runs[0], 140231);
	assert_int_equal(b->perf_runs[1], 139870);
	assert_int_equal(b->perf_runs[2], 141002);
	assert_int_equal(b->perf_failed, 1);
	assert_int_equal(b->unparsed_lines, 0);
	/* the metric repeats under one name, a value a run; boot.init and boot.userspace too */
	bg_boot_metrics(b, keep_perf, &pv);
	assert_int_equal(pv.n, 3);
	assert_int_equal(pv.others, 2);
	assert_int_equal(pv.v[2], 141002);
	parsed_free(p);

	/* a dump of the ring buffer after them: each run is counted once */
	bg_strbuf_addstr(&sb, perf_boot);
	bg_strbuf_addstr(&sb, "DMESG-BEGIN\n");
	bg_strbuf_addstr(&sb, perf_boot);
	bg_strbuf_addstr(&sb, "DMESG-END\n");
	p = parse_str(sb.buf);
	assert_int_equal(p->boots[0]->nr_perf_runs, 3);
	assert_int_equal(p->boots[0]->perf_failed, 1);
	parsed_free(p);
	bg_strbuf_release(&sb);
}

/* Past BG_BOOT_MAX_PERF_RUNS runs the rest are left out, said once, and none is "failed". */
static void test_perf_runs_capped(void **state)
{
	struct bg_strbuf sb = BG_STRBUF_INIT;
	struct parsed *p;

	(void)state;
	bg_strbuf_addstr(&sb, "[    0.000000] Linux version 6.1.0 (x)\n"
			 "[    0.500000] Run /init as init process\n");
	for (unsigned i = 0; i < BG_BOOT_MAX_PERF_RUNS + 50; i++)
		bg_strbuf_addf(&sb, "[%5u.%06u] bootgate: perf.trace_startup=%u run=%u exit=%d\n",
			       1 + i / 1000000, i % 1000000, 140000 + i, i, i == 3);
	p = parse_str(sb.buf);
	assert_int_equal(p->n, 1);
	assert_int_equal(p->boots[0]->nr_perf_runs, BG_BOOT_MAX_PERF_RUNS - 1);
	assert_int_equal(p->boots[0]->perf_failed, 1);
	assert_int_equal(p->boots[0]->perf_runs[BG_BOOT_MAX_PERF_RUNS - 2],
			 140000 + BG_BOOT_MAX_PERF_RUNS - 1);
	assert_int_equal(p->boots[0]->unparsed_lines, 0);
	assert_int_equal(p->warnings, 1);
	assert_non_null(strstr(p->warning, "more than 1000 perf runs in one boot"));
	parsed_free(p);
	bg_strbuf_release(&sb);
}

static void test_perf_bad_lines(void **state)
{
	static const char *bad[] = {
		"bootgate: perf.trace_startup=",                      /* truncated */
		"bootgate: perf.trace_startup=1402",                  /* no run, no exit */
		"bootgate: perf.trace_startup=1402 run=0",            /* no exit */
		"bootgate: perf.trace_startup=1402 run=0 exit=",      /* cut in the status */
		"bootgate: perf.trace_startup=-5 run=0 exit=0",       /* negative */
		"bootgate: perf.trace_startup=99999999999999999999 run=0 exit=0",  /* overflows */
		"bootgate: perf.trace_startup=100000000001 run=0 exit=0",  /* past 28 hours */
		"bootgate: perf.trace_startup=12abc run=0 exit=0",    /* not a number */
		"bootgate: perf.trace_startup=12 run=-1 exit=0",      /* no such run */
		"bootgate: perf.trace_startup=12 run=0 exit=0 junk",  /* more after */
		"bootgate: perf.trace_startup=1\xff run=0 exit=0",    /* not UTF-8 */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		struct bg_strbuf sb = BG_STRBUF_INIT;
		struct parsed *p;

		bg_strbuf_addf(&sb, "[    0.000000] Linux version 6.1.0 (x)\n"
			       "[    0.500000] Run /init as init process\n"
			       "[    0.900000] %s\n"
			       "[    1.000000] bootgate: perf.trace_startup=150000 run=1 exit=0\n",
			       bad[i]);
		p = parse_str(sb.buf);
		assert_int_equal(p->n, 1);
		assert_int_equal(p->boots[0]->nr_perf_runs, 1);
		assert_int_equal(p->boots[0]->perf_runs[0], 150000);
		assert_int_equal(p->boots[0]->perf_failed, 0);
		assert_int_equal(p->boots[0]->unparsed_lines, 1);
		assert_int_equal(p->warnings, 1);
		assert_non_null(strstr(p->warning, "mem:3: a perf run line"));
		parsed_free(p);
		bg_strbuf_release(&sb);
	}
}

/* An absurd count of runs: the first BG_BOOT_MAX_PERF_RUNS give values, the rest are said once. */
static void test_perf_many_runs(void **state)
{
	struct bg_strbuf sb = BG_STRBUF_INIT;
	struct parsed *p;

	(void)state;
	bg_strbuf_addstr(&sb, "[    0.000000] Linux version 6.1.0 (x)\n");
	for (unsigned i = 0; i < BG_BOOT_MAX_PERF_RUNS + 5; i++)
		bg_strbuf_addf(&sb, "[%5u.000000] bootgate: perf.trace_startup=%u run=%u exit=0\n",
			       i + 1, 1000 + i, i);
	p = parse_str(sb.buf);
	assert_int_equal(p->boots[0]->nr_perf_runs, BG_BOOT_MAX_PERF_RUNS);
	assert_int_equal(p->boots[0]->perf_runs[BG_BOOT_MAX_PERF_RUNS - 1],
			 1000 + BG_BOOT_MAX_PERF_RUNS - 1);
	/* the ignored runs ran well: they are not failures (the JSON's failed_runs) */
	assert_int_equal(p->boots[0]->perf_failed, 0);
	assert_int_equal(p->boots[0]->perf_ignored, 5);
	assert_int_equal(p->warnings, 1);
	parsed_free(p);
	bg_strbuf_release(&sb);
}

/* Without printk time, the same line twice in a dump is still counted once. */
static void test_dump_without_time(void **state)
{
	struct parsed *p = parse_str(
		"Linux version 6.1.0 (x)\n"
		"initcall a_init+0x0/0x1 returned 0 after 5 usecs\n"
		"Run /init as init process\n"
		"DMESG-BEGIN\n"
		"Linux version 6.1.0 (x)\n"
		"initcall a_init+0x0/0x1 returned 0 after 5 usecs\n"
		"initcall dbg_init+0x0/0x1 returned 0 after 6 usecs\n"
		"initcall dbg_init+0x0/0x1 returned 0 after 6 usecs\n"
		"Run /init as init process\n"
		"DMESG-END\n");
	const struct bg_boot *b = p->boots[0];

	(void)state;
	assert_int_equal(p->n, 1);
	/* a_init once; dbg_init (only in the dump) twice, as the kernel printed it */
	assert_int_equal(b->nr_initcalls, 3);
	assert_string_equal(b->initcalls[0].name, "a_init");
	assert_string_equal(b->initcalls[2].name, "dbg_init");
	parsed_free(p);
}

static void test_several_boots(void **state)
{
	struct bg_strbuf sb = BG_STRBUF_INIT;
	struct parsed *p;

	(void)state;
	bg_strbuf_addstr(&sb, basic);
	bg_strbuf_addstr(&sb, "[    1.227381] reboot: Restarting system\nSeaBIOS (version 1.16.2)\n");
	bg_strbuf_addstr(&sb, basic);
	bg_strbuf_addstr(&sb, "[    1.227381] reboot: Power down\n");
	/* a third boot that hangs before init: same kernel, no reboot line */
	bg_strbuf_addstr(&sb, "[    0.000000] Linux version 6.1.192+ (ci@ci) (gcc) #1 SMP 2026-01-01\n"
			 "[    0.109593] calling  con_init+0x0/0x219 @ 0\n");
	bg_strbuf_addstr(&sb, "[    0.000000] Linux version 6.1.192+ (ci@ci) (gcc) #1 SMP 2026-01-01\n"
			 "[    0.200000] Kernel panic - not syncing: Attempted to kill init!\n");
	p = parse_str(sb.buf);
	assert_int_equal(p->n, 4);
	assert_int_equal(p->boots[0]->index, 0);
	assert_int_equal(p->boots[1]->index, 1);
	assert_int_equal(p->boots[1]->nr_initcalls, 2);
	assert_int_equal(p->boots[1]->outcome, BG_OUTCOME_COMPLETE);
	assert_int_equal(p->boots[2]->outcome, BG_OUTCOME_TRUNCATED);
	assert_int_equal(p->boots[2]->nr_initcalls, 0);
	assert_int_equal(p->boots[3]->outcome, BG_OUTCOME_PANIC);
	assert_string_equal(p->boots[3]->panic, "Kernel panic - not syncing: Attempted to kill init!");
	parsed_free(p);
	bg_strbuf_release(&sb);
}

static void test_problems_and_markers(void **state)
{
	struct parsed *p = parse_str(
		"[    0.000000] Linux version 6.1.0 (x)\n"
		"[    0.500000] WARNING: CPU: 0 PID: 1 at kernel/foo.c:12 foo+0x1/0x2\n"
		"[    0.600000] BUG: unable to handle page fault for address: 0000\n"
		"[    0.600100] Oops: 0000 [#1] SMP\n"
		"[    0.700000] Run /sbin/init as init process\n"
		"bootgate: userspace reached uptime_us=712345\n");
	const struct bg_boot *b = p->boots[0];

	(void)state;
	assert_int_equal(b->nr_problems, 3);
	assert_int_equal(b->problems_total, 3);
	assert_string_equal(b->problems[1], "BUG: unable to handle page fault for address: 0000");
	assert_int_equal(b->init_us, 700000);
	assert_int_equal(b->userspace_us, 712345);
	assert_int_equal(b->outcome, BG_OUTCOME_COMPLETE);
	parsed_free(p);
}

/* Async initcalls interleave: each "initcall" finds its own "calling". */
static void test_interleaved_calls(void **state)
{
	struct parsed *p = parse_str(
		"[    1.000000] calling  a_init+0x0/0x1 @ 1\n"
		"[    1.000100] calling  b_init+0x0/0x1 @ 77\n"
		"[    1.000300] initcall b_init+0x0/0x1 returned 0 after 200 usecs\n"
		"[    1.000900] initcall a_init+0x0/0x1 returned 0 after 900 usecs\n"
		"[    1.001000] initcall c_init+0x0/0x1 returned 0 after 1 usecs\n");
	const struct bg_boot *b = p->boots[0];

	(void)state;
	assert_int_equal(b->nr_initcalls, 3);
	assert_string_equal(b->initcalls[0].name, "b_init");
	assert_int_equal(b->initcalls[0].start_us, 1000100);
	assert_string_equal(b->initcalls[1].name, "a_init");
	assert_int_equal(b->initcalls[1].start_us, 1000000);
	assert_int_equal(b->initcalls[2].start_us, -1);
	parsed_free(p);
}

/* Feeding a real log one byte at a time gives what feeding it whole gives. */
static void test_streaming_any_split(void **state)
{
	struct parsed whole = { 0 }, bytes = { 0 };
	struct bg_bootlog *log;
	FILE *f = fopen(FIXTURES "/bootlogs/x86_64-debian-6.1.0-57-run2.log", "rb");
	char *buf = malloc(1 << 20);
	size_t len;

	(void)state;
	assert_non_null(f);
	len = fread(buf, 1, 1 << 20, f);
	fclose(f);

	log = bg_bootlog_new("whole", unit_keep_boot, &whole);
	bg_bootlog_feed(log, buf, len);
	bg_bootlog_finish(log);
	bg_bootlog_free(log);

	log = bg_bootlog_new("bytes", unit_keep_boot, &bytes);
	for (size_t i = 0; i < len; i++)
		bg_bootlog_feed(log, buf + i, 1);
	bg_bootlog_finish(log);
	bg_bootlog_free(log);

	assert_int_equal(whole.n, 1);
	assert_int_equal(bytes.n, 1);
	assert_int_equal(bytes.boots[0]->nr_initcalls, 670);
	assert_int_equal(initcall_sum(bytes.boots[0]), initcall_sum(whole.boots[0]));
	assert_int_equal(bytes.boots[0]->init_us, whole.boots[0]->init_us);
	assert_int_equal(bytes.boots[0]->last_line, whole.boots[0]->last_line);
	for (unsigned i = 0; i < whole.n; i++)
		bg_boot_free(whole.boots[i]);
	for (unsigned i = 0; i < bytes.n; i++)
		bg_boot_free(bytes.boots[i]);
	free(buf);
}

/* ---- LAVA job logs ---- */

static void test_lava_escapes(void **state)
{
	struct parsed *p = parse_str(
		"- {\"dt\": \"2026-11-29T23:22:46.608606\", \"lvl\": \"info\", \"msg\": \"lava-dispatcher\"}\n"
		"- {\"dt\": \"2026-11-29T23:22:46.6\", \"lvl\": \"results\", \"msg\": {\"case\": \"x\", "
		"\"size\": ! \"8247232\"}}\n"
		"- {\"dt\": \"2026-11-29T23:22:54.4\", \"lvl\": \"target\", \"msg\": \"Probing EDD... "
		"o\\ec\\e[?7l\\e[2J[    0.000000] Linux version 6.1.0-57-amd64 (debian)\"}\n"
		"- {\"dt\": \"2026-11-29T23:22:54.5\", \"lvl\": \"target\", \"msg\": \"[    0.056137] "
		"Kernel command line: console=ttyS0 foo=\\\\\\\"a b\\\\\\\"\"}\n"
		"- {\"dt\": \"2026-11-29T23:22:54.6\", \"lvl\": \"target\", \"msg\": \"[    0.200000] "
		"initcall caf\\xE9_init+0x0/0x1 returned 0 after 42 usecs\"}\n"
		"- {\"dt\": \"2026-11-29T23:22:54.6\", \"lvl\": \"target\", \"msg\": ! \"123\"}\n"
		"- {\"dt\": \"2026-11-29T23:22:54.7\", \"lvl\": \"debug\", \"msg\": \"[    0.300000] "
		"initcall not_console+0x0/0x1 returned 0 after 9 usecs\"}\n"
		"- {\"dt\": \"2026-11-29T23:22:55.0\", \"lvl\": \"target\", \"msg\": \"[    0.900000] "
		"Run /init as init process\"}\n"
		"- {\"dt\": \"2026-11-29T23:22:58.7\", \"lvl\": \"feedback\", \"msg\": \"[    3.696336] "
		"probe of late returned 0 after 5 usecs\", \"ns\": \"common\"}\n");
	const struct bg_boot *b;

	(void)state;
	assert_int_equal(p->ret, 0);
	assert_int_equal(p->warnings, 0);
	assert_int_equal(p->n, 1);
	b = p->boots[0];
	assert_string_equal(b->kernel, "6.1.0-57-amd64");
	assert_string_equal(b->cmdline, "console=ttyS0 foo=\"a b\"");
	assert_int_equal(b->nr_initcalls, 1);
	assert_string_equal(b->initcalls[0].name, "caf\xc3\xa9_init");
	assert_int_equal(b->initcalls[0].usecs, 42);
	assert_int_equal(b->init_us, 900000);
	assert_int_equal(b->nr_probes, 1);
	assert_int_equal(b->outcome, BG_OUTCOME_COMPLETE);
	parsed_free(p);
}

static void test_lava_cut(void **state)
{
	FILE *f = fopen(FIXTURES "/lava/fresh-chroot-job1-boot.log.yaml", "rb");
	char *buf = malloc(1 << 20);
	size_t len;
	struct parsed *p;

	(void)state;
	assert_non_null(f);
	len = fread(buf, 1, 1 << 20, f);
	fclose(f);
	assert_true(len > 200000);
	/* cut inside entry 700, in the middle of its message */
	{
		size_t off = 0;
		unsigned line = 1;

		while (line < 700)
			line += buf[off++] == '\n';
		len = off + 60;
	}
	p = parse_mem(buf, len);
	assert_int_equal(p->ret, 0);
	assert_int_equal(p->n, 1);
	assert_int_equal(p->warnings, 1);
	assert_non_null(strstr(p->warning, "mem:700:"));
	assert_non_null(strstr(p->warning, "cut or malformed"));
	/* what came before the cut is kept: the boot had started, init not reached */
	assert_string_equal(p->boots[0]->kernel, "6.1.0-57-amd64");
	assert_true(p->boots[0]->nr_initcalls > 100);
	assert_int_equal(p->boots[0]->outcome, BG_OUTCOME_TRUNCATED);
	parsed_free(p);
	free(buf);
}

/* ---- bad input ---- */

static void test_empty_and_binary(void **state)
{
	struct parsed *p;
	char bin[4096];

	(void)state;
	p = parse_mem("", 0);
	assert_int_equal(p->ret, 0);
	assert_int_equal(p->n, 1);
	assert_int_equal(p->boots[0]->outcome, BG_OUTCOME_TRUNCATED);
	assert_int_equal(p->boots[0]->nr_initcalls, 0);
	assert_non_null(strstr(p->warning, "empty log"));
	parsed_free(p);

	for (size_t i = 0; i < sizeof(bin); i++)
		bin[i] = (char)((i * 7919u) >> 3);
	p = parse_mem(bin, sizeof(bin));
	assert_int_equal(p->ret, 0);
	assert_int_equal(p->n, 1);
	assert_int_equal(p->boots[0]->outcome, BG_OUTCOME_TRUNCATED);
	assert_non_null(strstr(p->warning, "binary data"));
	parsed_free(p);
}

static void test_long_line(void **state)
{
	size_t big = 10u << 20;
	struct bg_strbuf sb = BG_STRBUF_INIT;
	struct parsed *p;

	(void)state;
	bg_strbuf_addstr(&sb, "[    0.000000] Linux version 6.1.0 (x)\n[    0.100000] ");
	bg_strbuf_grow(&sb, big);
	memset(sb.buf + sb.len, 'x', big);
	sb.len += big;
	sb.buf[sb.len] = '\0';
	bg_strbuf_addstr(&sb, "\n[    0.200000] initcall a_init+0x0/0x1 returned 0 after 5 usecs\n");
	p = parse_mem(sb.buf, sb.len);
	assert_int_equal(p->n, 1);
	assert_int_equal(p->boots[0]->nr_initcalls, 1);
	assert_int_equal(p->boots[0]->unparsed_lines, 1);
	assert_int_equal(p->warnings, 1);
	assert_non_null(strstr(p->warning, "mem:2: "));
	parsed_free(p);
	bg_strbuf_release(&sb);
}

static void test_invalid_utf8(void **state)
{
	struct parsed *p = parse_str(
		"[    0.000000] Linux version 6.1.0\xff\xfe (x)\n"
		"[    0.100000] initcall bad\xc3(_init+0x0/0x1 returned 0 after 5 usecs\n");

	(void)state;
	assert_int_equal(p->boots[0]->nr_initcalls, 1);
	assert_string_equal(p->boots[0]->initcalls[0].name, "bad\xc3(_init");
	assert_string_equal(p->boots[0]->kernel, "6.1.0\xff\xfe");
	parsed_free(p);
}

/*
 * Numbers that cannot be read exactly are not read: the line is counted as unparsed, and
 * no wrapped, saturated or overflowed value reaches a boot.
 */
static void test_absurd_numbers(void **state)
{
	struct parsed *p = parse_str(
		"[    0.000000] Linux version 6.1.0 (x)\n"
		"[    0.100000] initcall a+0x0/0x1 returned 0 after 99999999999999999999 usecs\n"
		"[    0.100001] initcall b+0x0/0x1 returned 0 after 922337203685477570 msecs\n"
		"[    0.100002] initcall c+0x0/0x1 returned 2147483648 after 5 usecs\n"
		"[    0.100003] initcall d+0x0/0x1 returned -2147483649 after 5 usecs\n"
		"[    0.100004] probe of p0 returned 0 after 100000000001 usecs\n"
		"[    0.100005] probe of p1 returned 99999999999 after 1 usecs\n"
		"[    0.100006] initcall e+0x0/0x1 returned -2147483648 after 100000000000 usecs\n"
		"[    0.100007] initcall f+0x0/0x1 returned 0 after 100000000 msecs\n"
		"[    0.100008] bootgate: userspace reached uptime_us=99999999999999999999\n");
	const struct bg_boot *b;

	(void)state;
	assert_int_equal(p->n, 1);
	b = p->boots[0];
	assert_int_equal(b->unparsed_lines, 6);
	assert_int_equal(b->nr_initcalls, 2);
	assert_string_equal(b->initcalls[0].name, "e");
	assert_int_equal(b->initcalls[0].ret, INT_MIN);
	assert_int_equal(b->initcalls[0].usecs, BG_BOOTLOG_MAX_US);
	assert_int_equal(b->initcalls[1].usecs, BG_BOOTLOG_MAX_US);
	assert_int_equal(b->nr_probes, 0);
	/* the marker's printk time is what counts; its absurd uptime_us is not read */
	assert_int_equal(b->userspace_us, 100008);
	parsed_free(p);

	p = parse_str("bootgate: userspace reached uptime_us=99999999999999999999\n");
	assert_int_equal(p->boots[0]->userspace_us, -1);
	parsed_free(p);
}

/*
 * Events out of time order (a dump interleaved with the console) are put in order; one
 * without printk time stays where it was and nothing crosses it. 200 000 initcalls in
 * falling time order: sorted by insertion, this took minutes.
 */
static void test_out_of_order(void **state)
{
	enum { N = 200000 };
	struct bg_strbuf sb = BG_STRBUF_INIT;
	struct parsed *p;
	const struct bg_boot *b;

	(void)state;
	bg_strbuf_addstr(&sb, "[    0.000000] Linux version 6.1.0 (x)\n");
	for (int i = N; i > 0; i--)
		bg_strbuf_addf(&sb, "[%5d.%06d] initcall f%d+0x0/0x1 returned 0 after 1 usecs\n",
			       i / 1000000, i % 1000000, i);
	bg_strbuf_addstr(&sb, "initcall untimed+0x0/0x1 returned 0 after 1 usecs\n"
			 "[    9.000002] initcall late+0x0/0x1 returned 0 after 1 usecs\n"
			 "[    9.000001] initcall early+0x0/0x1 returned 0 after 1 usecs\n"
			 "[    9.000001] initcall early2+0x0/0x1 returned 0 after 1 usecs\n");
	p = parse_mem(sb.buf, sb.len);
	b = p->boots[0];
	assert_int_equal(b->nr_initcalls, N + 4);
	for (int i = 0; i < N; i++)
		assert_int_equal(b->initcalls[i].end_us, i + 1);
	assert_string_equal(b->initcalls[N].name, "untimed");
	/* equal times keep their order in the log */
	assert_string_equal(b->initcalls[N + 1].name, "early");
	assert_string_equal(b->initcalls[N + 2].name, "early2");
	assert_string_equal(b->initcalls[N + 3].name, "late");
	parsed_free(p);
	bg_strbuf_release(&sb);
}

/* Fields that only look like numbers or names are not read as them. */
static void test_malformed_fields(void **state)
{
	static const char log[] =
		"[    0.000000] Linux version 6.1.0 (x)\n"
		"[    0.100000] initcall a+0x0/0x1 returned 0 after +5 usecs\n"
		"[    0.100001] initcall b+0x0/0x1 returned 0 after 5 msecsabc\n"
		"[    0.100002] initcall +0x0/0x1 returned 0 after 5 usecs\n"
		"[    0.100003] initcall nu\0l+0x0/0x1 returned 0 after 5 usecs\n"
		"[    0.100004] probe of d\0v returned 0 after 5 usecs\n"
		"[    0.100005] probe of  returned 0 after 5 usecs\n"
		"[    0.100006] initcall ok+0x0/0x1 returned 0 after 5 usecs\n"
		"Run /init as init process\n"
		"bootgate: userspace reached uptime_us=12abc\n";
	struct parsed *p = parse_mem(log, sizeof(log) - 1);
	const struct bg_boot *b = p->boots[0];

	(void)state;
	assert_int_equal(b->nr_initcalls, 1);
	assert_string_equal(b->initcalls[0].name, "ok");
	assert_int_equal(b->nr_probes, 0);
	assert_int_equal(b->userspace_us, -1);
	assert_int_equal(b->unparsed_lines, 7);
	parsed_free(p);

	p = parse_str("[    0.000000] Linux version 6.1.0 (x)\nBOOT-DONE uptime=1e3 0.01\n");
	assert_int_equal(p->boots[0]->userspace_us, -1);
	assert_int_equal(p->boots[0]->unparsed_lines, 1);
	parsed_free(p);
	p = parse_str("[    0.000000] Linux version 6.1.0 (x)\nBOOT-DONE uptime=0.83 0.06\n");
	assert_int_equal(p->boots[0]->userspace_us, 830000);
	parsed_free(p);
}

/*
 * Firmware around a kernel that panicked and came up again, as KernelCI's Chromebooks
 * print it (tests/fixtures/bootlogs/arm64-coreboot-panic-reboot.log): coreboot's untimed
 * "Run calibration" opens no boot and its WARNING is no kernel problem; U-Boot after the
 * panic, and the next kernel's first line, belong to the next boot.
 */
static void test_firmware_around_boots(void **state)
{
	struct parsed *p = parse_path(FIXTURES "/bootlogs/arm64-coreboot-panic-reboot.log");
	const struct bg_boot *b;

	(void)state;
	assert_int_equal(p->n, 2);
	b = p->boots[0];
	assert_int_equal(b->first_line, 9);
	assert_int_equal(b->last_line, 20);
	assert_int_equal(b->outcome, BG_OUTCOME_PANIC);
	/* arm64's oops: "Unable to handle kernel ..." and "Internal error: Oops: ..." */
	assert_int_equal(b->problems_total, 2);
	assert_string_equal(b->problems[1], "Internal error: Oops: 0000000096000004 [#1] PREEMPT SMP");
	b = p->boots[1];
	assert_int_equal(b->first_line, 28);
	assert_int_equal(b->last_line, 49);
	assert_int_equal(b->outcome, BG_OUTCOME_COMPLETE);
	/* two WARNINGs at [0.000000] and a BUG; "dmesg | grep" shows them again, later */
	assert_int_equal(b->problems_total, 3);
	assert_int_equal(b->nr_initcalls, 4);
	parsed_free(p);

	/* firmware alone: no boot of its own, one empty one as for any log without a kernel */
	p = parse_str("Run calibration (freq: 1600, first: 1)\nWARNING: RO_VPD is uninitialized\n");
	assert_int_equal(p->n, 1);
	assert_int_equal(p->boots[0]->first_line, 0);
	assert_int_equal(p->boots[0]->problems_total, 0);
	parsed_free(p);

	/* a userspace WARNING on a console with printk time is no kernel problem either */
	p = parse_str("[    0.000000] Linux version 6.1.0 (x)\n"
		      "[    0.700000] Run /init as init process\n"
		      "WARNING: no ssh host key\n");
	assert_int_equal(p->boots[0]->problems_total, 0);
	assert_int_equal(p->boots[0]->last_line, 3);
	parsed_free(p);
}

/*
 * Two genuine lines with one timestamp are two events; a line that comes back once the
 * console has moved past its time (a dump, "dmesg | grep", a LAVA echo) is a copy.
 */
static void test_same_time_events(void **state)
{
	struct bg_strbuf sb = BG_STRBUF_INIT;
	struct parsed *p;
	const struct bg_boot *b;
	char *live;

	(void)state;
	/* 24 warnings at [0.000000], each with the lines the kernel prints after it */
	bg_strbuf_addstr(&sb, "[    0.000000] Linux version 6.1.0 (x)\n");
	for (int i = 0; i < 24; i++)
		bg_strbuf_addstr(&sb, "[    0.000000] WARNING: CPU: 0 PID: 0 at arch/x86/kernel/"
				 "alternative.c:730 apply_returns+0xc0/0x241\n"
				 "[    0.000000] Modules linked in:\n");
	bg_strbuf_addstr(&sb, "[    0.500000] Run /init as init process\n");
	p = parse_str(sb.buf);
	assert_int_equal(p->boots[0]->problems_total, 24);
	parsed_free(p);

	/* the same, then a dump of the ring buffer: still 24 */
	live = bg_strbuf_detach(&sb, NULL);
	bg_strbuf_addstr(&sb, live);
	bg_strbuf_addstr(&sb, "DMESG-BEGIN\n");
	bg_strbuf_addstr(&sb, live);
	bg_strbuf_addstr(&sb, "DMESG-END\n");
	free(live);
	p = parse_str(sb.buf);
	assert_int_equal(p->n, 1);
	assert_int_equal(p->boots[0]->problems_total, 24);
	parsed_free(p);

	/* the dump alone carries them: 24, not 1 */
	bg_strbuf_reset(&sb);
	bg_strbuf_addstr(&sb, "[    0.000000] Linux version 6.1.0 (x)\n"
			 "[    0.500000] Run /init as init process\nDMESG-BEGIN\n"
			 "[    0.000000] Linux version 6.1.0 (x)\n");
	for (int i = 0; i < 24; i++)
		bg_strbuf_addstr(&sb, "[    0.000000] WARNING: CPU: 0 PID: 0 at x.c:1 f+0x0/0x1\n");
	bg_strbuf_addstr(&sb, "DMESG-END\n");
	p = parse_str(sb.buf);
	assert_int_equal(p->boots[0]->problems_total, 24);
	parsed_free(p);

	/* one initcall run twice at the same time: two metrics (#2), not one */
	p = parse_str("[    0.000000] Linux version 6.1.0 (x)\n"
		      "[    0.089112] calling  activate_jump_labels+0x0/0x34 @ 1\n"
		      "[    0.089112] initcall activate_jump_labels+0x0/0x34 returned 0 after 0 usecs\n"
		      "[    0.089112] calling  activate_jump_labels+0x0/0x34 @ 1\n"
		      "[    0.089112] initcall activate_jump_labels+0x0/0x34 returned 0 after 0 usecs\n");
	assert_int_equal(p->boots[0]->nr_initcalls, 2);
	parsed_free(p);

	/*
	 * LAVA's console repeats lines once the kernel is past them (a test quoting the
	 * oops): the copies come back in a run, up to and including the newest line, and
	 * none is counted again.
	 */
	p = parse_str("[    0.000000] Linux version 4.4.89 (x) (aarch64-linux-gnu-gcc 6.2.1) #1\n"
		      "[   14.461360] Internal error: Oops - BUG: 0 [#1] PREEMPT SMP\n"
		      "[   15.447835] BUG: spinlock lockup suspected on CPU#3, gdbus/2329\n"
		      "[   15.447900] lock: 0xffffffc07ff9a480, .magic: dead4ead\n"
		      " login: root\n"
		      "[   14.461360] Internal error: Oops - BUG: 0 [#1] PREEMPT SMP\n"
		      "[   15.447835] BUG: spinlock lockup suspected on CPU#3, gdbus/2329\n"
		      "[   15.447900] lock: 0xffffffc07ff9a480, .magic: dead4ead\n"
		      "[   16.000000] BUG: spinlock lockup suspected on CPU#2, gdbus/2330\n");
	b = p->boots[0];
	assert_int_equal(b->problems_total, 3);
	assert_string_equal(b->problems[2], "BUG: spinlock lockup suspected on CPU#2, gdbus/2330");
	parsed_free(p);
	bg_strbuf_release(&sb);
}

/* A module's initcall is named with its module; a built-in one that repeats is "#2". */
static void name_metric(const struct bg_metric *m, void *data)
{
	struct bg_strbuf *sb = data;

	bg_strbuf_addf(sb, "%s=%" PRId64 " ", m->name, m->usecs);
}

static void test_module_metric_names(void **state)
{
	struct bg_strbuf sb = BG_STRBUF_INIT;
	struct parsed *p = parse_str(
		"[    0.000000] Linux version 6.1.0 (x)\n"
		"[    0.100000] initcall dup_init+0x0/0x1 returned 0 after 5 usecs\n"
		"[    0.200000] initcall dup_init+0x0/0x1 returned 0 after 6 usecs\n"
		"[    5.101210] initcall nf_defrag_init+0x0/0x1000 [nf_defrag_ipv4] returned 0 "
		"after 12 usecs\n"
		"[    5.102410] initcall nf_defrag_init+0x0/0x1000 [nf_defrag_ipv6] returned 0 "
		"after 310 usecs\n");

	(void)state;
	bg_boot_metrics(p->boots[0], name_metric, &sb);
	assert_string_equal(sb.buf, "initcall.dup_init=5 initcall.dup_init#2=6 "
			    "initcall.nf_defrag_init[nf_defrag_ipv4]=12 "
			    "initcall.nf_defrag_init[nf_defrag_ipv6]=310 ");
	parsed_free(p);
	bg_strbuf_release(&sb);
}

/*
 * Kernels older than 5.x print no "Run ... as init process": init is reached when, after
 * the kernel freed its init memory, a program logs through the kernel (systemd[1]).
 */
static void test_old_kernel_reaches_init(void **state)
{
	static const char *const complete[] = {
		"[    0.000000] Linux version 4.4.89 (x) (gcc version 6.2.1) #1\n"
		"[    6.744420] Freeing unused kernel memory: 6220K\n"
		"[    7.147250] systemd[1]: systemd 230 running in system mode.\n",
		"[    0.000000] Linux version 3.1.1 (x) (gcc version 4.6.1) #19\n"
		"[    8.987426] Freeing init memory: 460K\n"
		"Loading, please wait...\n"
		"[    9.194427] udevd[887]: starting version 173\n",
	};
	static const char *const truncated[] = {
		/* the kernel freed its memory, then fell silent */
		"[    0.000000] Linux version 4.4.89 (x) (gcc version 6.2.1) #1\n"
		"[    6.744420] Freeing unused kernel memory: 6220K\n",
		/* a kernel line shaped like a program's, before init can run */
		"[    0.000000] Linux version 4.4.89 (x) (gcc version 6.2.1) #1\n"
		"[    1.000000] udevd[887]: starting version 173\n",
	};
	struct parsed *p;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(complete); i++) {
		p = parse_str(complete[i]);
		assert_int_equal(p->boots[0]->outcome, BG_OUTCOME_COMPLETE);
		/* boot.init is the time of the "Run" line: there is none */
		assert_int_equal(p->boots[0]->init_us, -1);
		parsed_free(p);
	}
	for (size_t i = 0; i < ARRAY_SIZE(truncated); i++) {
		p = parse_str(truncated[i]);
		assert_int_equal(p->boots[0]->outcome, BG_OUTCOME_TRUNCATED);
		parsed_free(p);
	}
}

/* The arch family: from the banner's compiler, else from lines one arch alone prints. */
static void test_arch(void **state)
{
	static const struct {
		const char *log, *arch;
	} cases[] = {
		{ "[    0.000000] Linux version 6.1 (x) (aarch64-linux-gnu-gcc (Debian) 12.2.0) #1\n", "arm" },
		{ "[    0.000000] Linux version 6.1 (x) (riscv64-linux-gnu-gcc 12) #1\n", "riscv" },
		{ "[    0.000000] Linux version 6.1 (x) (gcc (Debian 12.2.0-14) 12.2.0) #1\n"
		  "[    0.000000] x86/fpu: Supporting XSAVE feature 0x001\n", "x86" },
		{ "[    0.000000] Booting Linux on physical CPU 0x0000000000 [0x411fd070]\n"
		  "[    0.000000] Linux version 6.1 (x) (gcc 12) #1\n", "arm" },
		{ "[    0.000000] Linux version 6.1 (x) (gcc 12) #1\n"
		  "[    0.000000] Hardware name: IBM pSeries (emulated by qemu) POWER9\n", "powerpc" },
		{ "[    0.000000] Linux version 6.1 (x) (gcc 12) #1\n", NULL },
		/* native builds: the compiler is "gcc", the arch's own lines tell */
		{ "[    0.000000] Linux version 6.8.0 (u@ltc) (gcc (GCC) 11.4.1, GNU ld 2.35.2) #1 SMP\n"
		  "[    0.000000] Hardware name: 8335-GTH POWER9 0x4e1202 opal:skiboot-v6.5.3 PowerNV\n"
		  "[    0.000000] -----------------------------------------------------\n"
		  "[    0.000000] phys_mem_size     = 0x2000000000\n"
		  "[    0.000000] dcache_bsize      = 0x80\n", "powerpc" },
		{ "[    0.000000] Linux version 4.19.0 (root@g4) (gcc version 8.3.0 (Debian 8.3.0-6)) #1\n"
		  "[    0.000000] Using PowerMac machine description\n", "powerpc" },
		{ "[    0.000000] PROMLIB: Sun IEEE Boot Prom 'OBP 4.38.16 2019/10/08 10:27'\n"
		  "[    0.000000] PROMLIB: Root node compatible: sun4v\n"
		  "[    0.000000] Linux version 6.1.0 (root@t5) (gcc (Debian 12.2.0-14) 12.2.0) #1 SMP\n"
		  "[    0.000000] ARCH: SUN4V\n", "sparc" },
		{ "[    0.000000] Linux version 6.1.0-13-sparc64-smp (debian-kernel@lists.debian.org) "
		  "(gcc-12 (Debian 12.2.0-14) 12.2.0) #1 SMP\n", "sparc" },
		{ "[    0.000000] Linux version 3.1.1 (buildd@diphda) (gcc version 4.6.1 (Ubuntu/Linaro)) #19\n"
		  "[    0.000000] CPU: ARMv7 Processor [411fc092] revision 2 (ARMv7), cr=10c5387d\n", "arm" },
		{ "[    0.000000] Linux version 4.4.89 (b@x86-64-07) (gcc version 6.2.1 (Linaro GCC 6.2)) #1\n"
		  "[    0.000000] Boot CPU: AArch64 Processor [410fd033]\n", "arm" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct parsed *p = parse_str(cases[i].log);

		assert_int_equal(p->n, 1);
		if (cases[i].arch)
			assert_string_equal(p->boots[0]->arch, cases[i].arch);
		else
			assert_null(p->boots[0]->arch);
		parsed_free(p);
	}
}

static void test_missing_file(void **state)
{
	struct parsed *p = parse_path("/nonexistent/boot.log");

	(void)state;
	assert_int_equal(p->ret, -1);
	assert_int_equal(p->n, 0);
	assert_string_equal(bg_error_last(), "cannot open '/nonexistent/boot.log': No such file or directory");
	parsed_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixtures),
		cmocka_unit_test(test_fixture_details),
		cmocka_unit_test(test_duplicate_names_kept),
		cmocka_unit_test(test_basic),
		cmocka_unit_test(test_crlf_and_cr),
		cmocka_unit_test(test_syslog_prefix),
		cmocka_unit_test(test_firmware_and_escapes),
		cmocka_unit_test(test_printk_time_off),
		cmocka_unit_test(test_caller_field),
		cmocka_unit_test(test_msecs_and_module),
		cmocka_unit_test(test_spliced_and_cut_lines),
		cmocka_unit_test(test_dump_counted_once),
		cmocka_unit_test(test_dump_without_time),
		cmocka_unit_test(test_several_boots),
		cmocka_unit_test(test_problems_and_markers),
		cmocka_unit_test(test_interleaved_calls),
		cmocka_unit_test(test_streaming_any_split),
		cmocka_unit_test(test_lava_escapes),
		cmocka_unit_test(test_lava_cut),
		cmocka_unit_test(test_empty_and_binary),
		cmocka_unit_test(test_long_line),
		cmocka_unit_test(test_invalid_utf8),
		cmocka_unit_test(test_absurd_numbers),
		cmocka_unit_test(test_arch),
		cmocka_unit_test(test_firmware_around_boots),
		cmocka_unit_test(test_same_time_events),
		cmocka_unit_test(test_module_metric_names),
		cmocka_unit_test(test_old_kernel_reaches_init),
		cmocka_unit_test(test_malformed_fields),
		cmocka_unit_test(test_out_of_order),
		cmocka_unit_test(test_missing_file),
		cmocka_unit_test(test_perf_runs),
		cmocka_unit_test(test_perf_runs_capped),
		cmocka_unit_test(test_perf_bad_lines),
		cmocka_unit_test(test_perf_many_runs),
	};

	return cmocka_run_group_tests_name("bootlog", tests, NULL, NULL);
}
