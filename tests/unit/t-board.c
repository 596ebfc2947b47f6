/*
 * Unit tests of board files: the shipped boards load, and each mistake in a board is
 * named with its file, line and column; names from input never become paths outside.
 */
#include <limits.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "unit.h"
#include "conf/board.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/path.h"
#include "util/xmalloc.h"

#define SHIPPED_LAB FIXTURES "/../../lab-configs"

static const char board_text[] =
	"name: qemu-t\n"
	"arch: t\n"
	"kernel_arch: x86\n"
	"make_target: bzImage\n"
	"image: arch/x86/boot/bzImage\n"
	"fragments: [common.config]\n"
	"qemu: qemu-system-x86_64\n"
	"machine: pc\n"
	"poweroff: reboot\n"
	"cmdline: console=ttyS0\n";

static char *lab;

static int setup(void **state)
{
	char *p;
	int ret;

	(void)state;
	if (!(lab = unit_scratch_dir("t-board")))
		return -1;
	p = xasprintf("%s/boards", lab);
	ret = bg_mkdirs(p);
	free(p);
	return ret < 0 ? -1 : unit_write(lab, "kconfig/common.config", "CONFIG_PRINTK=y\n");
}

static int teardown(void **state)
{
	int ret = bg_remove_tree(lab);

	(void)state;
	free(lab);
	return ret < 0 ? -1 : 0;
}

/* Writes boards/NAME.yaml: the good board with the line for key replaced (or added). */
static void write_board(const char *name, const char *key, const char *line)
{
	char *path = xasprintf("%s/boards/%s.yaml", lab, name);
	char *text = xstrdup(board_text), *at;
	char *out;

	if (key && (at = strstr(text, key)) && (at == text || at[-1] == '\n')) {
		char *eol = strchr(at, '\n');

		*at = '\0';
		out = xasprintf("%s%s%s", text, line, eol + 1);
	} else {
		out = xasprintf("%s%s", text, line ? line : "");
	}
	assert_int_equal(bg_write_file(path, out, strlen(out)), 0);
	free(out);
	free(text);
	free(path);
}

static void expect_error(const char *key, const char *line, const char *want_suffix)
{
	struct bg_board b;
	const char *msg;
	char *path = xasprintf("%s/boards/qemu-t.yaml", lab);

	write_board("qemu-t", key, line);
	assert_int_equal(bg_board_load(lab, "t", &b), -1);
	msg = bg_error_last();
	/* "LAB/boards/qemu-t.yaml:LINE:COL: why" */
	assert_int_equal(strncmp(msg, path, strlen(path)), 0);
	assert_string_equal(msg + strlen(path), want_suffix);
	free(path);
}

static void test_shipped_boards(void **state)
{
	static const char *arches[] = { "x86_64", "arm64", "ppc64le" };
	char real[PATH_MAX];

	(void)state;
	assert_non_null(realpath(SHIPPED_LAB, real));
	for (size_t i = 0; i < ARRAY_SIZE(arches); i++) {
		struct bg_board b;

		assert_int_equal(bg_board_load(SHIPPED_LAB, arches[i], &b), 0);
		assert_string_equal(b.arch, arches[i]);
		assert_true(b.nfragments >= 2);
		/* QEMU's virt machine makes the one device tree the shipped boards have */
		if (!strcmp(arches[i], "arm64")) {
			assert_int_equal(b.ncompatible, 1);
			assert_string_equal(b.compatible[0], "linux,dummy-virt");
		} else {
			assert_int_equal(b.ncompatible, 0);
		}
		/* absolute: the build sandbox hides it by path */
		assert_string_equal(b.lab, real);
		bg_board_release(&b);
	}
	/* the SMP boards: two vCPUs and the SMP fragment on top of their arch's */
	for (size_t i = 0; i < 2; i++) {
		struct bg_board b;

		assert_int_equal(bg_board_load(SHIPPED_LAB, i ? "qemu-arm64-smp" : "qemu-x86_64-smp",
					       &b), 0);
		assert_string_equal(b.arch, i ? "arm64" : "x86_64");
		assert_int_equal(b.cpus, 2);
		assert_int_equal(b.nfragments, 3);
		assert_string_equal(b.fragments[2], "smp.config");
		bg_board_release(&b);
	}
}

static void test_good_board(void **state)
{
	struct bg_board b;

	(void)state;
	write_board("qemu-t", NULL, NULL);
	assert_int_equal(bg_board_load(lab, "t", &b), 0);
	assert_string_equal(b.name, "qemu-t");
	assert_int_equal(b.poweroff, BG_REBOOT);
	assert_int_equal(b.memory, 512);             /* defaults */
	assert_int_equal(b.cpus, 1);
	assert_int_equal(b.boot_timeout, 120);
	assert_string_equal(b.init_cc, "gcc");
	bg_board_release(&b);
	/* by its own name too */
	assert_int_equal(bg_board_load(lab, "qemu-t", &b), 0);
	bg_board_release(&b);
	write_board("qemu-t", NULL, "cpus: 64\n");
	assert_int_equal(bg_board_load(lab, "t", &b), 0);
	assert_int_equal(b.cpus, 64);
	bg_board_release(&b);
}

/* A board file already read: the same board, its errors named as the caller says. */
static void test_load_mem(void **state)
{
	static const char bad[] = "name: x\nmemory: 1\n";
	struct bg_board b;

	(void)state;
	assert_int_equal(bg_board_load_mem(lab, "mem.yaml", board_text, strlen(board_text), &b), 0);
	assert_string_equal(b.name, "qemu-t");
	assert_string_equal(b.fragments[0], "common.config");
	assert_int_equal(b.poweroff, BG_REBOOT);
	bg_board_release(&b);
	assert_int_equal(bg_board_load_mem(lab, "mem.yaml", bad, strlen(bad), &b), -1);
	assert_string_equal(bg_error_last(), "mem.yaml:1:1: 'arch' is missing");
	assert_int_equal(b.conf.n, 0);
	/* not NUL-terminated: only len bytes are read */
	assert_int_equal(bg_board_load_mem(lab, "mem.yaml", board_text, 8, &b), -1);
	assert_string_equal(bg_error_last(), "mem.yaml:1:1: 'arch' is missing");
}

static void test_board_errors(void **state)
{
	(void)state;
	expect_error("arch:", "arch: ../../..\n",
		     ":2:7: 'arch' is a plain name ([A-Za-z0-9._+-], no '/'), not '../../..'");
	expect_error("name:", "name: a/b\n",
		     ":1:7: 'name' is a plain name ([A-Za-z0-9._+-], no '/'), not 'a/b'");
	expect_error("poweroff:", "poweroff: halt\n",
		     ":9:11: 'poweroff' is poweroff or reboot, not 'halt'");
	expect_error("memory:", "memory: 4294967297\n",
		     ":11:9: 'memory' must be a whole number from 64 to 65536, not '4294967297'");
	expect_error("qemu:", "qemu: [a, b]\n", ":7:1: 'qemu' takes one value, not a list");
	expect_error(NULL, "qemu_argz: [-S]\n", ":11:1: unknown key 'qemu_argz'");
	expect_error(NULL, "cpus: 0\n", ":11:7: 'cpus' must be a whole number from 1 to 64, "
		     "not '0'");
	expect_error(NULL, "cpus: 65\n", ":11:7: 'cpus' must be a whole number from 1 to 64, "
		     "not '65'");
	expect_error(NULL, "cpus: -2\n", ":11:7: 'cpus' must be a whole number from 1 to 64, "
		     "not '-2'");
	expect_error(NULL, "cpus: 2x\n", ":11:7: 'cpus' must be a whole number from 1 to 64, "
		     "not '2x'");
	expect_error(NULL, "cpus: [2, 4]\n", ":11:1: 'cpus' takes one value, not a list");
	expect_error(NULL, "modes: [timing, fast]\n", ":11:17: a mode is timing or deterministic, "
		     "not 'fast'");
	/* what KCIDB's pattern refuses: a space, or nothing */
	expect_error(NULL, "compatible: [\"a,b\", \"a b\"]\n", ":11:21: 'a b' is no device tree "
		     "compatible string (KCIDB's: not empty, no space)");
	expect_error(NULL, "compatible: [\"\"]\n", ":11:14: '' is no device tree "
		     "compatible string (KCIDB's: not empty, no space)");
}

/*
 * compatible: KCIDB's pattern, ^[^ \0]+(,[^ \0]+)*$, lets a part hold a comma, so it
 * takes empty parts and other blanks than a space: all it refuses is a space or nothing.
 */
static void test_compatible(void **state)
{
	static const char *const ok[] = { "a,,b", "a,", ",", "a\tb" };
	struct bg_board b;

	(void)state;
	write_board("qemu-t", NULL, "compatible: [\"a,,b\", \"a,\", \",\", \"a\\tb\"]\n");
	assert_int_equal(bg_board_load(lab, "t", &b), 0);
	assert_int_equal(b.ncompatible, ARRAY_SIZE(ok));
	for (size_t i = 0; i < ARRAY_SIZE(ok); i++)
		assert_string_equal(b.compatible[i], ok[i]);
	bg_board_release(&b);
}

/* modes: a board that cannot boot under -icount says so before anything is built. */
static void test_modes(void **state)
{
	struct bg_board b;

	(void)state;
	write_board("qemu-t", NULL, NULL);
	assert_int_equal(bg_board_load(lab, "t", &b), 0);
	assert_int_equal(bg_board_check_mode(&b, true), 0);      /* both by default */
	assert_int_equal(bg_board_check_mode(&b, false), 0);
	bg_board_release(&b);
	write_board("qemu-t", NULL, "modes: [timing]\n");
	assert_int_equal(bg_board_load(lab, "t", &b), 0);
	assert_int_equal(bg_board_check_mode(&b, false), 0);
	assert_int_equal(bg_board_check_mode(&b, true), -1);
	assert_string_equal(bg_error_last(), "board qemu-t does not boot in deterministic mode "
			    "(its modes: timing)");
	bg_board_release(&b);
	assert_int_equal(bg_board_load(SHIPPED_LAB, "qemu-x86_64-smp", &b), 0);
	assert_int_equal(bg_board_check_mode(&b, true), -1);
	bg_board_release(&b);
}

/* The command line each console mode gives, as bootgate-boot passes it to QEMU. */
static void test_cmdline(void **state)
{
	struct bg_board b;
	char *c;

	(void)state;
	write_board("qemu-t", "cmdline:", "cmdline: console=ttyS0 initcall_debug loglevel=8 "
		    "printk.time=1  log_buf_len=1M\ntiming_cmdline: tsc_early_khz=@HOST_TSC_KHZ@\n");
	assert_int_equal(bg_board_load(lab, "t", &b), 0);
	c = bg_board_cmdline(&b, true, BG_CONSOLE_VERBOSE, 2300000, NULL, 0);
	assert_string_equal(c, "console=ttyS0 initcall_debug loglevel=8 printk.time=1  "
			    "log_buf_len=1M bootgate.reboot=1");
	free(c);
	c = bg_board_cmdline(&b, false, BG_CONSOLE_VERBOSE, 2300000, "x=1", 0);
	assert_string_equal(c, "console=ttyS0 initcall_debug loglevel=8 printk.time=1  "
			    "log_buf_len=1M tsc_early_khz=2300000 bootgate.reboot=1 x=1");
	free(c);
	/* the runs of perf the init is to time come last, after the caller's words */
	c = bg_board_cmdline(&b, true, BG_CONSOLE_VERBOSE, 2300000, "x=1", 5);
	assert_string_equal(c, "console=ttyS0 initcall_debug loglevel=8 printk.time=1  "
			    "log_buf_len=1M bootgate.reboot=1 x=1 bootgate.perf=5");
	free(c);
	/* quiet: loglevel=8 gives way to quiet in its place, the rest stays, the dump is asked */
	c = bg_board_cmdline(&b, true, BG_CONSOLE_QUIET, 2300000, NULL, 0);
	assert_string_equal(c, "console=ttyS0 initcall_debug quiet printk.time=1 log_buf_len=1M "
			    "bootgate.dump=1 bootgate.reboot=1");
	free(c);
	/* the host's TSC unknown (a mail's line): the placeholder stays */
	c = bg_board_cmdline(&b, false, BG_CONSOLE_QUIET, 0, NULL, 0);
	assert_string_equal(c, "console=ttyS0 initcall_debug quiet printk.time=1 log_buf_len=1M "
			    "bootgate.dump=1 tsc_early_khz=@HOST_TSC_KHZ@ bootgate.reboot=1");
	free(c);
	bg_board_release(&b);
	/* no loglevel: quiet is added once, a quiet already there is not doubled */
	write_board("qemu-t", "cmdline:", "cmdline: quiet console=ttyS0 loglevel=7 loglevel=8\n");
	assert_int_equal(bg_board_load(lab, "t", &b), 0);
	c = bg_board_cmdline(&b, true, BG_CONSOLE_QUIET, 0, NULL, 0);
	assert_string_equal(c, "quiet console=ttyS0 bootgate.dump=1 bootgate.reboot=1");
	free(c);
	bg_board_release(&b);
	write_board("qemu-t", "cmdline:", "cmdline: console=ttyS0\n");
	assert_int_equal(bg_board_load(lab, "t", &b), 0);
	c = bg_board_cmdline(&b, true, BG_CONSOLE_QUIET, 0, NULL, 0);
	assert_string_equal(c, "console=ttyS0 quiet bootgate.dump=1 bootgate.reboot=1");
	free(c);
	bg_board_release(&b);
}

/* perf runs only where it was built: on boards of the host's arch. */
static void test_check_perf(void **state)
{
	struct bg_board b;
	struct utsname u;

	(void)state;
	assert_int_equal(uname(&u), 0);
	assert_int_equal(bg_board_load(SHIPPED_LAB, "qemu-x86_64", &b), 0);
	assert_int_equal(bg_board_check_perf(&b), strcmp(u.machine, "x86_64") ? -1 : 0);
	bg_board_release(&b);
	assert_int_equal(bg_board_load(SHIPPED_LAB, "qemu-ppc64le", &b), 0);
	assert_int_equal(bg_board_check_perf(&b), strcmp(u.machine, "ppc64le") ? -1 : 0);
	if (strcmp(u.machine, "ppc64le") != 0)
		assert_non_null(strstr(bg_error_last(), "not for board qemu-ppc64le (ppc64le)"));
	bg_board_release(&b);
}

static void test_console_names(void **state)
{
	enum bg_console c = BG_CONSOLE_QUIET;

	(void)state;
	assert_int_equal(bg_console_parse("verbose", &c), 0);
	assert_int_equal(c, BG_CONSOLE_VERBOSE);
	assert_int_equal(bg_console_parse("quiet", &c), 0);
	assert_int_equal(c, BG_CONSOLE_QUIET);
	assert_string_equal(bg_console_name(c), "quiet");
	assert_string_equal(bg_console_name(BG_CONSOLE_VERBOSE), "verbose");
	assert_int_equal(bg_console_parse("Quiet", &c), -1);
	assert_string_equal(bg_error_last(), "the console is verbose or quiet, not 'Quiet'");
	assert_int_equal(bg_console_parse("", &c), -1);
	assert_int_equal(c, BG_CONSOLE_QUIET);      /* untouched on error */
}

/* The fragment message names the lab: checked apart, since the lab's path varies. */
static void test_fragment_errors(void **state)
{
	struct bg_board b;
	char *want;

	(void)state;
	write_board("qemu-t", "fragments:", "fragments: [common.config, missing.config]\n");
	assert_int_equal(bg_board_load(lab, "t", &b), -1);
	want = xasprintf("%s/boards/qemu-t.yaml:6:28: fragment 'missing.config': cannot read "
			 "'%s/kconfig/missing.config': No such file or directory", lab, lab);
	assert_string_equal(bg_error_last(), want);
	free(want);
	write_board("qemu-t", "fragments:", "fragments: [../../etc/passwd]\n");
	assert_int_equal(bg_board_load(lab, "t", &b), -1);
	want = xasprintf("%s/boards/qemu-t.yaml:6:13: fragment '../../etc/passwd' is a file "
			 "name of %s/kconfig, not a path", lab, lab);
	assert_string_equal(bg_error_last(), want);
	free(want);
	/* a directory where a fragment should be */
	want = xasprintf("%s/kconfig/dir.config", lab);
	assert_int_equal(bg_mkdirs(want), 0);
	free(want);
	write_board("qemu-t", "fragments:", "fragments: [dir.config]\n");
	assert_int_equal(bg_board_load(lab, "t", &b), -1);
	want = xasprintf("%s/boards/qemu-t.yaml:6:13: fragment 'dir.config': '%s/kconfig/dir.config' "
			 "is not a file", lab, lab);
	assert_string_equal(bg_error_last(), want);
	free(want);
	/* a missing required key: at the mapping */
	write_board("qemu-t", "machine:", "");
	assert_int_equal(bg_board_load(lab, "t", &b), -1);
	want = xasprintf("%s/boards/qemu-t.yaml:1:1: 'machine' is missing", lab);
	assert_string_equal(bg_error_last(), want);
	free(want);
	/* a YAML syntax error: the file once, its line and column, libyaml's why */
	write_board("qemu-t", "fragments:", "fragments: [common.config\n");
	assert_int_equal(bg_board_load(lab, "t", &b), -1);
	want = xasprintf("%s/boards/qemu-t.yaml:7:5: did not find expected ',' or ']' while "
			 "parsing a flow sequence", lab);
	assert_string_equal(bg_error_last(), want);
	free(want);
}

/* A board's name becomes a path: none from input may leave the lab. */
static void test_board_names(void **state)
{
	static const char *bad[] = { "../../x", "/etc/passwd", "a/b", "..", "", "x\ny" };
	struct bg_board b;

	(void)state;
	write_board("qemu-t", NULL, NULL);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		assert_int_equal(bg_board_load(lab, bad[i], &b), -1);
		assert_non_null(strstr(bg_error_last(), "a board or an arch is a plain name"));
	}
	assert_int_equal(bg_board_load(lab, "nosuch", &b), -1);
	assert_non_null(strstr(bg_error_last(), "no board 'nosuch' in"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shipped_boards),
		cmocka_unit_test(test_good_board),
		cmocka_unit_test(test_load_mem),
		cmocka_unit_test(test_compatible),
		cmocka_unit_test(test_board_errors),
		cmocka_unit_test(test_fragment_errors),
		cmocka_unit_test(test_board_names),
		cmocka_unit_test(test_cmdline),
		cmocka_unit_test(test_modes),
		cmocka_unit_test(test_console_names),
		cmocka_unit_test(test_check_perf),
	};

	return cmocka_run_group_tests_name("board", tests, setup, teardown);
}
