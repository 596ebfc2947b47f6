/*
 * Unit tests of the service configuration: the shipped bootgate.yaml loads as meant, paths
 * are taken from the file's directory, and each mistake is named "file:line:col: why".
 */
#include <limits.h>

#include "unit.h"
#include "conf/service-conf.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/secret.h"
#include "util/xmalloc.h"

#define SHIPPED_LAB FIXTURES "/../../lab-configs"

/* A tree with what a tree needs and no more: lines 1 to 5, its keys at column 5. */
#define TREE \
	"trees:\n" \
	"  - name: t\n" \
	"    url: git://h/r.git\n" \
	"    branch: main\n" \
	"    arches: [x86_64]\n"

static char *dir, *lab, *bad;

static int setup(void **state)
{
	char real[PATH_MAX];

	(void)state;
	if (!realpath(SHIPPED_LAB, real) || !(dir = unit_scratch_dir("t-service-conf")))
		return -1;
	lab = xstrdup(real);
	/* the boards of the shipped lab: x86_64, arm64, ppc64le */
	setenv("BOOTGATE_LAB", lab, 1);
	bad = xasprintf("%s/bad.yaml", dir);
	if (unit_write(dir, "kconfig/extra.config", "CONFIG_PRINTK=y\n") < 0 ||
	    unit_write(dir, "full.config", "CONFIG_64BIT=y\n") < 0)
		return -1;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	bg_remove_tree(dir);
	free(dir);
	free(lab);
	free(bad);
	return 0;
}

static int load_text(const char *text, struct bg_service_conf *c)
{
	assert_int_equal(bg_write_file(bad, text, strlen(text)), 0);
	return bg_service_conf_load(bad, c);
}

/* Loading text must fail with "DIR/bad.yaml:LINE:COLUMN: why", leaving nothing behind. */
static void expect_error(const char *text, int line, int column, const char *why)
{
	struct bg_service_conf c;
	char *want = xasprintf("%s:%d:%d: %s", bad, line, column, why);

	assert_int_equal(load_text(text, &c), -1);
	if (strcmp(bg_error_last(), want) != 0)
		print_message("in:\n%s", text);
	assert_string_equal(bg_error_last(), want);
	assert_null(c.trees);
	assert_null(c.file);
	assert_int_equal(c.conf.n, 0);
	free(want);
}

/* A file already read: its relative paths from the directory given, errors by its name. */
static void test_load_mem(void **state)
{
	static const char text[] = "state: st\n" TREE;
	static const char wrong[] = "poll: 1\n" TREE;
	struct bg_service_conf c;
	char *want = xasprintf("%s/st", dir);

	(void)state;
	assert_int_equal(bg_service_conf_load_mem("mem.yaml", dir, text, strlen(text), &c), 0);
	assert_string_equal(c.state, want);
	assert_string_equal(c.file, "mem.yaml");
	assert_int_equal(c.ntrees, 1);
	assert_string_equal(c.trees[0].name, "t");
	bg_service_conf_release(&c);
	assert_int_equal(bg_service_conf_load_mem("mem.yaml", dir, wrong, strlen(wrong), &c), -1);
	assert_string_equal(bg_error_last(), "mem.yaml:1:7: 'poll' must be a whole number from "
			    "10 to 86400, not '1'");
	assert_null(c.file);
	free(want);
}

static void test_shipped(void **state)
{
	struct bg_service_conf c;
	const struct bg_service_tree *t;
	struct bg_threshold th;

	(void)state;
	assert_int_equal(bg_service_conf_load(SHIPPED_LAB "/bootgate.yaml", &c), 0);
	assert_string_equal(c.state, "/var/lib/bootgate");
	assert_int_equal(c.builds, 1);
	assert_int_equal(c.boots, 2);
	assert_int_equal(c.poll, 300);
	assert_string_equal(c.webhook_host, "127.0.0.1");
	assert_int_equal(c.webhook_port, 8787);
	assert_string_equal(c.webhook_secret_file, "/etc/bootgate/webhook.secret");
	assert_string_equal(c.socket, "/var/lib/bootgate/bootgate.sock");
	assert_int_equal(c.ntrees, 3);

	t = bg_service_conf_tree(&c, "tracing");
	assert_ptr_equal(t, &c.trees[0]);
	assert_string_equal(t->url,
			    "git://git.kernel.org/pub/scm/linux/kernel/git/trace/linux-trace.git");
	assert_string_equal(t->branch, "for-next");
	/* a new machine has no local Linux to borrow from: the example leaves it out */
	assert_null(t->reference);
	assert_int_equal(t->narches, 2);
	assert_string_equal(t->arches[0], "x86_64");
	assert_string_equal(t->arches[1], "arm64");
	assert_int_equal(t->nboards, 0);
	assert_true(t->deterministic);
	assert_true(t->compare.deterministic);
	assert_int_equal(t->nmetrics, 2);
	assert_string_equal(t->metrics[1], "boot.*");
	assert_int_equal(t->compare.nthresholds, 2);
	/* the thresholds are the verdict's own: what a gate on this tree compares with */
	th = bg_compare_threshold(&t->compare, "initcall.pty_init");
	assert_true(th.pct == 0.05 && th.abs_us == 1000);
	th = bg_compare_threshold(&t->compare, "boot.init");
	assert_true(th.pct == 0.02 && th.abs_us == 1000);
	assert_int_equal(t->poll, 300);
	assert_int_equal(t->config, BG_KCONFIG_TINY);
	assert_string_equal(t->config_name, "tinyconfig");
	assert_int_equal(t->nfragments, 0);

	t = bg_service_conf_tree(&c, "printk");
	assert_ptr_equal(t, &c.trees[1]);
	assert_string_equal(t->url, "git://git.kernel.org/pub/scm/linux/kernel/git/printk/linux.git");
	assert_string_equal(t->branch, "for-next");
	assert_int_equal(t->narches, 0);
	assert_int_equal(t->nboards, 1);
	assert_string_equal(t->boards[0], "qemu-x86_64");
	assert_false(t->deterministic);
	assert_int_equal(t->nmetrics, 0);                /* every metric */
	assert_int_equal(t->poll, 600);
	assert_int_equal(t->config, BG_KCONFIG_TINY);   /* the default */

	t = bg_service_conf_tree(&c, "perf");
	assert_ptr_equal(t, &c.trees[2]);
	assert_string_equal(t->url,
			    "git://git.kernel.org/pub/scm/linux/kernel/git/perf/perf-tools-next.git");
	assert_string_equal(t->branch, "perf-tools-next");
	th = bg_compare_threshold(&t->compare, "probe.i8042");
	assert_true(th.pct == 0.10 && th.abs_us == 1000);

	assert_null(bg_service_conf_tree(&c, "trace"));
	bg_service_conf_release(&c);
	assert_null(c.trees);
}

/* Relative paths from the file's directory, defaults, and the other forms of each key. */
static void test_paths_and_defaults(void **state)
{
	struct bg_service_conf c;
	const struct bg_service_tree *t;
	char *want;

	(void)state;
	assert_int_equal(load_text("state: var\n"
				   "webhook: {listen: '[::1]:443', secret-file: secret}\n"
				   "trees:\n"
				   "  - name: a\n"
				   "    url: /srv/git/linux.git\n"
				   "    branch: topic/x\n"
				   "    reference: ../linux\n"
				   "    boards: [qemu-arm64, qemu-ppc64le]\n"
				   "    config: full.config\n"
				   "    fragments: [kconfig/extra.config]\n"
				   "  - name: b.2\n"
				   "    url: https://h/r.git\n"
				   "    branch: main\n"
				   "    arches: [ppc64le]\n"
				   "    boards: [qemu-x86_64]\n"
				   "    console: quiet\n"
				   "    config: x86_64_defconfig\n", &c), 0);
	want = xasprintf("%s/var", dir);
	assert_string_equal(c.state, want);
	free(want);
	want = xasprintf("%s/var/bootgate.sock", dir);
	assert_string_equal(c.socket, want);
	free(want);
	assert_int_equal(c.builds, 1);
	assert_int_equal(c.boots, 2);
	assert_int_equal(c.poll, 300);
	assert_string_equal(c.webhook_host, "::1");
	assert_int_equal(c.webhook_port, 443);
	want = xasprintf("%s/secret", dir);
	assert_string_equal(c.webhook_secret_file, want);
	free(want);

	t = &c.trees[0];
	assert_string_equal(t->branch, "topic/x");
	want = xasprintf("%s/../linux", dir);
	assert_string_equal(t->reference, want);
	free(want);
	assert_false(t->deterministic);                 /* timing, as bootgate measure */
	assert_int_equal(t->console, BG_CONSOLE_VERBOSE);
	assert_int_equal(t->poll, 300);                 /* the file's */
	assert_int_equal(t->compare.nthresholds, 0);    /* the verdict's defaults */
	assert_int_equal(t->config, BG_KCONFIG_FILE);
	want = xasprintf("%s/full.config", dir);
	assert_string_equal(t->config_name, want);
	free(want);
	assert_int_equal(t->nfragments, 1);
	want = xasprintf("%s/kconfig/extra.config", dir);
	assert_string_equal(t->fragments[0], want);
	free(want);

	t = &c.trees[1];
	assert_int_equal(t->console, BG_CONSOLE_QUIET);
	assert_null(t->reference);
	assert_int_equal(t->config, BG_KCONFIG_TARGET);
	assert_string_equal(t->config_name, "x86_64_defconfig");
	bg_service_conf_release(&c);

	/* no webhook; a host name; the poll a tree inherits */
	assert_int_equal(load_text("poll: 60\nwebhook: {listen: 'ci.example.org:8080', "
				   "secret-file: /s}\n" TREE, &c), 0);
	assert_string_equal(c.webhook_host, "ci.example.org");
	assert_int_equal(c.trees[0].poll, 60);
	assert_null(c.artifacts_host);
	bg_service_conf_release(&c);
	/* the artifact server: its address alone */
	assert_int_equal(load_text("artifacts: {listen: 127.0.0.1:8788}\n" TREE, &c), 0);
	assert_string_equal(c.artifacts_host, "127.0.0.1");
	assert_int_equal(c.artifacts_port, 8788);
	assert_null(c.webhook_host);
	bg_service_conf_release(&c);
	assert_int_equal(load_text("artifacts:\n  listen: '[::1]:80'\n" TREE, &c), 0);
	assert_string_equal(c.artifacts_host, "::1");
	assert_int_equal(c.artifacts_port, 80);
	bg_service_conf_release(&c);
	/* a threshold may name a metric, or a prefix, inside what the tree looks at */
	assert_int_equal(load_text(TREE "    metrics: [\"initcall.*\", boot.init, \"probe.i*\"]\n"
				   "    thresholds: {\"initcall.pty*\": 1%, \"boot.*\": 2%, "
				   "probe.i8042: 3%, \"probe.*\": 4%}\n", &c), 0);
	assert_int_equal(c.trees[0].compare.nthresholds, 4);
	assert_string_equal(c.trees[0].compare.thresholds[3].pattern, "probe.*");
	bg_service_conf_release(&c);
	assert_int_equal(load_text(TREE, &c), 0);
	assert_null(c.webhook_host);
	assert_string_equal(c.state, BG_SERVICE_STATE_DEFAULT);
	assert_string_equal(c.socket, BG_SERVICE_STATE_DEFAULT "/bootgate.sock");
	bg_service_conf_release(&c);
}

/* The shape of the file: YAML, mappings, lists, keys. */
static void test_shape_errors(void **state)
{
	(void)state;
	/* libyaml's own position: where it saw the mapping could not go on */
	expect_error("poll: 300\nlimits: {builds: 1\n" TREE, 3, 6,
		     "did not find expected ',' or '}' while parsing a flow mapping");
	expect_error("limits: [1, 2]\n" TREE, 1, 1, "'limits' takes a mapping of keys to values");
	expect_error("trees: {name: t}\n", 1, 1, "'trees' takes a list of mappings");
	expect_error("state: [a]\n" TREE, 1, 1, "'state' takes one value, not a list");
	expect_error("poll: 300\n" TREE "poll: 400\n", 7, 1, "'poll' is given twice (first at line 1)");
	expect_error(TREE "    branch: next\n", 6, 5, "'branch' is given twice (first at line 4)");
	expect_error("pol: 30\n" TREE, 1, 1, "unknown key 'pol'");
	expect_error("limits:\n  bulds: 2\n" TREE, 2, 3, "unknown key 'bulds'");
	/* a typo in a tree is named as one, not as the key it lacks */
	expect_error("trees:\n  - name: t\n    url: git://h/r.git\n    brnch: main\n"
		     "    arches: [x86_64]\n", 4, 5, "unknown key 'brnch'");
	expect_error("", 1, 1, "'trees' is missing: the service watches at least one");
	expect_error("trees: []\n", 1, 1, "'trees' is an empty list: the service watches at least one");
	expect_error(TREE "    thresholds: {\"boot.*\": [2%]}\n", 6, 18,
		     "'boot.*' takes one value, not a list");
}

/* Values: empty, out of range, not numbers, not names. */
static void test_value_errors(void **state)
{
	/* the webhook's address, at 1:19, and why it is refused */
	static const char *const listens[][2] = {
		{ "127.0.0.1:0", "'listen': the port must be a whole number from 1 to 65535, not '0'" },
		{ "127.0.0.1", "'listen' is HOST:PORT, not '127.0.0.1'" },
		{ "::1:8787", "'listen': an IPv6 address goes in brackets ([::1]:8787), not '::1:8787'" },
		{ "[::1]8787", "'listen' is HOST:PORT, with an IPv6 address in brackets "
			       "([::1]:8787), not '[::1]8787'" },
		{ "[::g]:80", "'listen': '::g' is not an IPv6 address" },
		{ "127.0.0.256:80", "'listen': '127.0.0.256' is not an IPv4 address or a host name" },
		{ "ci_host:80", "'listen': 'ci_host' is not an IPv4 address or a host name" },
		{ "ci-:80", "'listen': 'ci-' is not an IPv4 address or a host name" },
		{ ":80", "'listen' is HOST:PORT, with no host in ':80'" },
	};

	(void)state;
	expect_error("trees:\n  - name: t\n    url: git://h/r.git\n    branch: \"\"\n"
		     "    arches: [x86_64]\n", 4, 13, "'branch' is empty");
	expect_error("state:\n" TREE, 1, 7, "'state' is empty");
	expect_error("limits: {builds: 65}\n" TREE, 1, 18,
		     "'builds' must be a whole number from 1 to 64, not '65'");
	expect_error("limits: {boots: 0}\n" TREE, 1, 17,
		     "'boots' must be a whole number from 1 to 256, not '0'");
	expect_error("poll: 5m\n" TREE, 1, 7, "'poll' must be a whole number from 10 to 86400, not '5m'");
	expect_error(TREE "    poll: -300\n", 6, 11,
		     "'poll' must be a whole number from 10 to 86400, not '-300'");
	expect_error(TREE "    mode: fast\n", 6, 11, "'mode' is deterministic or timing, not 'fast'");
	expect_error(TREE "    console: loud\n", 6, 14, "'console' is verbose or quiet, not 'loud'");
	expect_error(TREE "    console: \"\"\n", 6, 14, "'console' is empty");
	expect_error(TREE "    console: [quiet]\n", 6, 5, "'console' takes one value, not a list");
	for (size_t i = 0; i < ARRAY_SIZE(listens); i++) {
		char *text = xasprintf("webhook: {listen: '%s', secret-file: s}\n" TREE,
				       listens[i][0]);

		expect_error(text, 1, 19, listens[i][1]);
		free(text);
	}
	expect_error("webhook:\n  listen: 127.0.0.1:8787\n" TREE, 2, 3,
		     "'secret-file' is missing");
	for (size_t i = 0; i < ARRAY_SIZE(listens); i++) {
		char *text = xasprintf("artifacts: {listen: '%s'}\n" TREE, listens[i][0]);

		expect_error(text, 1, 21, listens[i][1]);
		free(text);
	}
	expect_error("artifacts: {}\n" TREE, 1, 12, "'listen' is missing");
	expect_error("artifacts: {listen: 127.0.0.1:8788, cache: /x}\n" TREE, 1, 37,
		     "unknown key 'cache'");
	expect_error("artifacts: 127.0.0.1:8788\n" TREE, 1, 1,
		     "'artifacts' takes a mapping of keys to values");
	{
		char *sock = xasprintf("socket: /%0120d\n" TREE, 0);
		char *why = xasprintf("the socket '/%0120d' is longer than a Unix socket's path "
				      "can be (107 bytes)", 0);

		expect_error(sock, 1, 9, why);
		free(sock);
		free(why);
	}
}

/* perf-runs: the number of runs, perf's default threshold unless the file has one. */
static void test_perf_runs(void **state)
{
	struct bg_service_conf c;
	struct bg_threshold th;

	(void)state;
	assert_int_equal(load_text("trees:\n"
				   "  - name: p\n    url: git://h/p.git\n    branch: main\n"
				   "    arches: [x86_64]\n    perf-runs: 5\n"
				   "  - name: q\n    url: git://h/q.git\n    branch: main\n"
				   "    arches: [x86_64]\n    perf-runs: 3\n"
				   "    thresholds: {\"perf.*\": \"20%:5000\"}\n"
				   "  - name: r\n    url: git://h/r.git\n    branch: main\n"
				   "    arches: [x86_64]\n", &c), 0);
	assert_int_equal(c.trees[0].perf_runs, 5);
	th = bg_compare_threshold(&c.trees[0].compare, "perf.trace_startup");
	assert_non_null(th.pattern);
	assert_string_equal(th.pattern, "perf.*");
	assert_true(th.pct == 0.05 && th.abs_us == 1000);
	assert_int_equal(c.trees[1].perf_runs, 3);
	th = bg_compare_threshold(&c.trees[1].compare, "perf.trace_startup");
	assert_true(th.pct == 0.20 && th.abs_us == 5000);
	assert_int_equal(c.trees[1].compare.nthresholds, 1);
	assert_int_equal(c.trees[2].perf_runs, 0);
	assert_int_equal(c.trees[2].compare.nthresholds, 0);
	bg_service_conf_release(&c);
	expect_error("trees:\n  - name: t\n    url: git://h/r.git\n    branch: main\n"
		     "    arches: [x86_64]\n    perf-runs: 101\n", 6, 16,
		     "'perf-runs' must be a whole number from 0 to 100, not '101'");
	expect_error("trees:\n  - name: t\n    url: git://h/r.git\n    branch: main\n"
		     "    arches: [x86_64]\n    perf-runs: -1\n", 6, 16,
		     "'perf-runs' must be a whole number from 0 to 100, not '-1'");
	expect_error("trees:\n  - name: t\n    url: git://h/r.git\n    branch: main\n"
		     "    arches: [x86_64]\n    perf-runs: 99999999999999999999\n", 6, 16,
		     "'perf-runs' must be a whole number from 0 to 100, not '99999999999999999999'");
}

/* Each board is loaded as the workers will: its own mistakes, its modes, perf on it. */
static void test_board_use(void **state)
{
	char *why;

	(void)state;
	expect_error(TREE "    boards: [qemu-x86_64-smp]\n    mode: deterministic\n", 6, 14,
		     "board qemu-x86_64-smp does not boot in deterministic mode (its modes: timing)");
	expect_error("trees:\n  - name: t\n    url: git://h/r.git\n    branch: main\n"
		     "    boards: [lava-qemu-x86_64]\n    perf-runs: 3\n", 5, 14,
		     "'perf-runs': board lava-qemu-x86_64 is a LAVA board; perf runs on QEMU boards");
	expect_error("trees:\n  - name: t\n    url: git://h/r.git\n    branch: main\n"
		     "    arches: [ppc64le]\n    perf-runs: 3\n", 5, 14,
		     "'perf-runs': perf is built for this host (x86_64), not for board "
		     "qemu-ppc64le (ppc64le)");
	/* a board file of its own lab with a mistake in it: named where it is */
	assert_int_equal(unit_write(dir, "lab/boards/qemu-bad.yaml",
				    "name: qemu-bad\narch: x86_64\nkernel_arch: x86\n"
				    "make_target: bzImage\nimage: bzImage\nqemu: qemu-system-x86_64\n"
				    "machine: pc\ncpus: 0\ncmdline: console=ttyS0\n"), 0);
	why = xasprintf("%s/lab", dir);
	setenv("BOOTGATE_LAB", why, 1);
	free(why);
	why = xasprintf("board 'qemu-bad': %s/lab/boards/qemu-bad.yaml:8:7: 'cpus' must be a "
			"whole number from 1 to 64, not '0'", dir);
	expect_error("trees:\n  - name: t\n    url: git://h/r.git\n    branch: main\n"
		     "    boards: [qemu-bad]\n", 5, 14, why);
	free(why);
	setenv("BOOTGATE_LAB", lab, 1);
}

/*
 * Every board a tree is gated on, each once: its boards first, then the board of each
 * arch, with which of them boot in a LAVA lab. A board file whose name: is not its own
 * would have jobs find one board and builds and boots record another.
 */
static void test_gated_boards(void **state)
{
	struct bg_service_conf c;
	const struct bg_service_tree *t;
	char *why;

	(void)state;
	assert_int_equal(load_text("trees:\n  - name: t\n    url: git://h/r.git\n"
				   "    branch: main\n    arches: [x86_64, arm64]\n"
				   "    boards: [lava-x86-pc]\n", &c), 0);
	t = &c.trees[0];
	assert_int_equal(t->ngated, 3);
	assert_string_equal(t->gated[0], "lava-x86-pc");
	assert_string_equal(t->gated[1], "qemu-x86_64");
	assert_string_equal(t->gated[2], "qemu-arm64");
	assert_true(t->gated_lava[0]);
	assert_false(t->gated_lava[1]);
	assert_false(t->gated_lava[2]);
	/* limits.boots 2 (the default): one each for the two QEMU boards, none for LAVA */
	assert_int_equal(bg_service_boot_slots(&c, t, "qemu-x86_64"), 1);
	assert_int_equal(bg_service_boot_slots(&c, t, "qemu-arm64"), 1);
	assert_int_equal(bg_service_boot_slots(&c, t, "lava-x86-pc"), 0);
	c.boots = 7;
	assert_int_equal(bg_service_boot_slots(&c, t, "qemu-arm64"), 3);
	bg_service_conf_release(&c);
	/* the shipped tracing tree: both of its arches */
	assert_int_equal(bg_service_conf_load(SHIPPED_LAB "/bootgate.yaml", &c), 0);
	t = bg_service_conf_tree(&c, "tracing");
	assert_int_equal(t->ngated, 2);
	assert_string_equal(t->gated[0], "qemu-x86_64");
	assert_string_equal(t->gated[1], "qemu-arm64");
	/* a tree of one QEMU board boots as many at once as the limit allows */
	t = bg_service_conf_tree(&c, "perf");
	assert_int_equal(t->ngated, 1);
	assert_int_equal(bg_service_boot_slots(&c, t, t->gated[0]), 2);
	bg_service_conf_release(&c);
	assert_int_equal(unit_write(dir, "lab2/boards/qemu-alias.yaml",
				    "name: qemu-x86_64\narch: x86_64\nkernel_arch: x86\n"
				    "make_target: bzImage\nimage: bzImage\nqemu: qemu-system-x86_64\n"
				    "machine: pc\ncmdline: console=ttyS0\n"), 0);
	why = xasprintf("%s/lab2", dir);
	setenv("BOOTGATE_LAB", why, 1);
	free(why);
	expect_error("trees:\n  - name: t\n    url: git://h/r.git\n    branch: main\n"
		     "    boards: [qemu-alias]\n", 5, 14, "board 'qemu-alias': its file names it "
		     "'qemu-x86_64': a board's name is its file's");
	setenv("BOOTGATE_LAB", lab, 1);
}

/* Trees: names, URLs, branches, boards, metrics, thresholds and configs. */
static void test_tree_errors(void **state)
{
	char *why;

	(void)state;
	expect_error(TREE "  - name: t\n    url: git://h/s.git\n    branch: main\n"
		     "    boards: [qemu-x86_64]\n", 6, 11, "tree 't' is named twice (first at line 2)");
	expect_error("trees:\n  - name: a/b\n", 2, 11, "tree name 'a/b' must be 1 to 64 of "
		     "[a-z0-9._-], starting with a letter or a digit");
	expect_error("trees:\n  - name: a..b\n", 2, 11, "tree name 'a..b' may not hold '..'");
	expect_error("trees:\n  - name: Tracing\n", 2, 11, "tree name 'Tracing' must be 1 to 64 "
		     "of [a-z0-9._-], starting with a letter or a digit");
	expect_error("trees:\n  - name: t\n    url: \"git://h/r.git\\r\\nx\"\n", 3, 10,
		     "'url' may not hold a space, a line break or another control character");
	expect_error("trees:\n  - name: t\n    url: git://h/r.git x\n", 3, 10,
		     "'url' may not hold a space, a line break or another control character");
	expect_error("trees:\n  - name: t\n    url: --upload-pack=x\n", 3, 10,
		     "'url' may not start with '-'");
	expect_error("trees:\n  - name: t\n    url: git://h/r.git\n    branch: a..b\n", 4, 13,
		     "'a..b' is not a branch name git takes");
	expect_error("trees:\n  - name: t\n    url: git://h/r.git\n    branch: main\n", 2, 5,
		     "tree 't' boots nothing: give it 'arches', 'boards' or both");
	why = xasprintf("arch 'mips': no qemu-mips.yaml in %s/boards", lab);
	expect_error("trees:\n  - name: t\n    url: git://h/r.git\n    branch: main\n"
		     "    arches: [x86_64, mips]\n", 5, 22, why);
	free(why);
	expect_error(TREE "    boards: [../boards/qemu-x86_64]\n", 6, 14,
		     "board '../boards/qemu-x86_64' is not a plain name ([A-Za-z0-9._+-], no '/')");
	why = xasprintf("board 'qemu-x86-64': no qemu-x86-64.yaml in %s/boards", lab);
	expect_error(TREE "    boards: [qemu-x86-64]\n", 6, 14, why);
	free(why);
	expect_error(TREE "    boards: [qemu-x86_64]\n", 6, 14,
		     "board 'qemu-x86_64' is the board of arch 'x86_64', listed already");
	expect_error("trees:\n  - name: t\n    url: git://h/r.git\n    branch: main\n"
		     "    arches: [x86_64, arm64, x86_64]\n", 5, 29, "'arches' lists 'x86_64' twice");
	expect_error(TREE "    metrics: []\n", 6, 5,
		     "'metrics' is an empty list: leave the key out, or name at least one");
	expect_error(TREE "    metrics: [\"initcall.*_init\"]\n", 6, 15,
		     "metric pattern 'initcall.*_init': '*' may only end the pattern");
	expect_error(TREE "    thresholds: {\"boot.*\": \"2\"}\n", 6, 28,
		     "threshold 'boot.*': the percentage must read like 5% (0 to 1000)");
	expect_error(TREE "    thresholds: {\"boot.*\": \"2%:1ms\"}\n", 6, 28,
		     "threshold 'boot.*': the absolute floor must be microseconds");
	expect_error(TREE "    thresholds: {\"initcall.*x\": \"5%\"}\n", 6, 18,
		     "threshold 'initcall.*x': '*' may only end the pattern");
	expect_error(TREE "    metrics: [\"boot.*\"]\n    thresholds: {\"initcall.*\": \"5%\"}\n", 7, 18,
		     "threshold 'initcall.*' is for no metric the tree looks at (see 'metrics')");
	why = xasprintf("'config' is tinyconfig, a defconfig target or a .config file: cannot "
			"read '%s/tinyconfg': No such file or directory", dir);
	expect_error(TREE "    config: tinyconfg\n", 6, 13, why);
	free(why);
	why = xasprintf("'fragments': '%s/kconfig' is not a file", dir);
	expect_error(TREE "    fragments: [kconfig/extra.config, kconfig]\n", 6, 39, why);
	free(why);
	expect_error(TREE "    fragments: [\"\"]\n", 6, 17, "'fragments' has an empty item");
}

/* What the file is, before any YAML: a regular file, at most 1 MiB. */
static void test_file_errors(void **state)
{
	struct bg_service_conf c;
	char *big = xcalloc(1, (1 << 20) + 2), *want;

	(void)state;
	assert_int_equal(bg_service_conf_load(dir, &c), -1);
	want = xasprintf("'%s' is not a regular file", dir);
	assert_string_equal(bg_error_last(), want);
	free(want);
	memset(big, '#', (1 << 20) + 1);
	assert_int_equal(load_text(big, &c), -1);
	want = xasprintf("'%s' is larger than %d bytes", bad, 1 << 20);
	assert_string_equal(bg_error_last(), want);
	free(want);
	free(big);
	assert_int_equal(bg_service_conf_load("/nonexistent/bootgate.yaml", &c), -1);
	assert_string_equal(bg_error_last(),
			    "cannot open '/nonexistent/bootgate.yaml': No such file or directory");
}

/* inboxes: and drop: name a directory and a configured tree */
static void test_inboxes(void **state)
{
	struct bg_service_conf c;
	char *text, *want;

	(void)state;
	assert_int_equal(bg_mkdirs(dir), 0);
	text = xasprintf(TREE "inboxes:\n"
			 "  - name: lkml\n"
			 "    path: kconfig\n"
			 "    tree: t\n"
			 "  - name: netdev\n"
			 "    path: %s\n"
			 "    tree: t\n"
			 "    poll: 30\n"
			 "drop:\n"
			 "  dir: kconfig\n"
			 "  tree: t\n", dir);
	assert_int_equal(load_text(text, &c), 0);
	assert_int_equal(c.ninboxes, 2);
	assert_string_equal(c.inboxes[0].name, "lkml");
	want = xasprintf("%s/kconfig", dir);
	assert_string_equal(c.inboxes[0].path, want);
	assert_string_equal(c.inboxes[1].path, dir);
	assert_int_equal(c.inboxes[0].poll, 60);
	assert_int_equal(c.inboxes[1].poll, 30);
	assert_string_equal(c.inboxes[1].tree, "t");
	assert_string_equal(c.drop_dir, want);
	assert_string_equal(c.drop_tree, "t");
	bg_service_conf_release(&c);
	free(want);
	free(text);
	/* none: none */
	assert_int_equal(load_text(TREE, &c), 0);
	assert_int_equal(c.ninboxes, 0);
	assert_null(c.drop_dir);
	bg_service_conf_release(&c);

	expect_error(TREE "inboxes:\n  - name: x\n    path: .\n    tree: nope\n", 9, 11,
		     "'tree': no tree is named 'nope'");
	want = xasprintf("'path': cannot read '%s/missing': No such file or directory", dir);
	expect_error(TREE "inboxes:\n  - name: x\n    path: missing\n    tree: t\n", 8, 11, want);
	free(want);
	want = xasprintf("'path': '%s/full.config' is not a directory", dir);
	expect_error(TREE "inboxes:\n  - name: x\n    path: full.config\n    tree: t\n", 8, 11,
		     want);
	free(want);
	expect_error(TREE "inboxes:\n  - name: ../x\n    path: kconfig\n    tree: t\n", 7, 11,
		     "inbox name '../x' must be 1 to 64 of [a-z0-9._-], starting with a letter or "
		     "a digit, without '..'");
	expect_error(TREE "inboxes:\n  - name: x\n    path: kconfig\n    tree: t\n    when: now\n",
		     10, 5, "unknown key 'when'");
	expect_error(TREE "drop:\n  tree: t\n", 7, 3, "'dir' is missing");
	/* a trigger of the name, and the mirror mirrors/NAME.git, would take one for the other */
	expect_error(TREE "inboxes:\n  - name: t\n    path: kconfig\n    tree: t\n", 7, 11,
		     "inbox 't' has the name of a tree (line 2): give it a name of its own");
}

/*
 * A tree's reference is opened by the daemon only, when it makes the mirror: loading
 * leaves it be (the shipped file names one a fresh machine has not made yet), the check
 * of bootgated -n says when it is not a git repository.
 */
static void test_reference(void **state)
{
	struct bg_service_conf c;
	char *text, *want;

	(void)state;
	text = xasprintf(TREE "    reference: nolinux\n"
			 "  - name: u\n    url: git://h/u.git\n    branch: main\n"
			 "    arches: [x86_64]\n    reference: %s/linux.git\n", dir);
	assert_int_equal(load_text(text, &c), 0);
	want = xasprintf("%s:6:16: 'reference': not a git repository '%s/nolinux': ", bad, dir);
	assert_int_equal(bg_service_conf_check_references(&c), -1);
	assert_memory_equal(bg_error_last(), want, strlen(want));
	/* said once */
	assert_null(strstr(strstr(bg_error_last(), "not a git repository") + 1,
			   "not a git repository"));
	bg_service_conf_release(&c);
	free(want);
	free(text);

	unit_run("git init -q --bare %s/linux.git && git init -q %s/nolinux", dir, dir);
	text = xasprintf(TREE "    reference: nolinux\n"
			 "  - name: u\n    url: git://h/u.git\n    branch: main\n"
			 "    arches: [x86_64]\n    reference: %s/linux.git\n", dir);
	assert_int_equal(load_text(text, &c), 0);
	assert_int_equal(bg_service_conf_check_references(&c), 0);
	bg_service_conf_release(&c);
	free(text);
}

/*
 * The webhook's secret is read by the daemon only (at a start, a reload and -n): a file
 * it cannot read is named where the configuration names it.
 */
static void test_webhook_secret(void **state)
{
	struct bg_service_conf c;
	char *text, *want, *secret;
	size_t len = 0;

	(void)state;
	assert_int_equal(unit_write(dir, "hook.secret", "s3cret\n"), 0);
	text = xasprintf("webhook:\n  listen: 127.0.0.1:8080\n  secret-file: %s/nosecret\n"
			 TREE, dir);
	assert_int_equal(load_text(text, &c), 0);
	want = xasprintf("%s:3:16: 'secret-file': cannot open '%s/nosecret': No such file or "
			 "directory", bad, dir);
	assert_null(bg_service_conf_webhook_secret(&c, 4096, &len));
	assert_string_equal(bg_error_last(), want);
	bg_service_conf_release(&c);
	free(want);
	free(text);

	assert_int_equal(load_text("webhook: {listen: 127.0.0.1:8080, secret-file: hook.secret}\n"
				   TREE, &c), 0);
	secret = bg_service_conf_webhook_secret(&c, 4096, &len);
	assert_non_null(secret);
	assert_string_equal(secret, "s3cret");
	assert_int_equal(len, 6);
	bg_secret_free(secret);
	bg_service_conf_release(&c);
}

static void test_report(void **state)
{
	struct bg_service_conf c;

	(void)state;
	assert_int_equal(load_text("report: {from: 'bot <bot@ci.example.org>', smtp: "
				   "'smtp://127.0.0.1:2525', min-confidence: '0.95'}\n" TREE
				   "    mail: {to: [l@x.org], maintainers: ['M <m@x.org>'], "
				   "send: list}\n", &c), 0);
	assert_true(c.report.enabled);
	assert_string_equal(c.report.from, "bot <bot@ci.example.org>");
	assert_true(c.report.min_confidence == 0.95);
	assert_non_null(strstr(c.report.site_url, "/site"));
	assert_true(c.trees[0].mail.send_list);
	assert_int_equal(c.trees[0].mail.nmaintainers, 1);
	assert_false(c.trees[0].mail.regzbot);
	bg_service_conf_release(&c);
	assert_int_equal(load_text(TREE "    mail: {to: [l@x.org], send: list, regzbot: yes}\n",
				   &c), 0);
	assert_true(c.trees[0].mail.regzbot);
	bg_service_conf_release(&c);
	/* a site where a file is: said at once, not after every result */
	assert_int_equal(load_text("site: bad.yaml\n" TREE, &c), -1);
	assert_non_null(strstr(bg_error_last(), "bad.yaml:1:7: 'site': '"));
	assert_non_null(strstr(bg_error_last(), "/bad.yaml' is not a directory"));
	assert_int_equal(load_text("site: new-site\n" TREE, &c), 0);
	assert_non_null(strstr(c.site, "/new-site"));
	bg_service_conf_release(&c);
	assert_int_equal(load_text(TREE, &c), 0);
	assert_false(c.report.enabled);
	assert_false(c.trees[0].mail.send_list);
	bg_service_conf_release(&c);
	expect_error("report: {from: \"a@b.org\\r\\nBcc: x@y\"}\n" TREE, 1, 16,
		     "'from' may not hold a line break or another control character");
	expect_error("report: {from: 'not an address'}\n" TREE, 1, 16, "'not an address' is "
		     "not an address bootgate mails: local@domain, printable ASCII without spaces");
	expect_error("report: {smtp: 'http://h'}\n" TREE, 1, 16,
		     "'smtp': 'http://h' is not an smtp:// or smtps:// URL");
	expect_error("report: {smtp: 'smtp://u:p@h'}\n" TREE, 1, 16, "'smtp': the SMTP URL may "
		     "not hold a login: give smtp-user and smtp-password-file");
	expect_error("report: {smtp: 'smtp://h/x%0d%0aRSET'}\n" TREE, 1, 16, "'smtp': the SMTP "
		     "URL may not hold a space or a control character, even %-escaped ('%0d')");
	assert_int_equal(load_text("report: {smtp: 'smtp://h/x%41'}\n" TREE, &c), 0);
	bg_service_conf_release(&c);
	expect_error("report: {smtp-user: u}\n" TREE, 1, 21,
		     "'smtp-user' needs 'smtp-password-file'");
	expect_error("report: {min-confidence: '1.5'}\n" TREE, 1, 26,
		     "'min-confidence' is a number from 0 to 1, not '1.5'");
	expect_error("report: {frm: a@b.org}\n" TREE, 1, 10, "unknown key 'frm'");
	expect_error(TREE "    mail: {send: all, to: [l@x.org]}\n", 6, 18,
		     "'send' is list or maintainers, not 'all'");
	expect_error(TREE "    mail: {send: list}\n", 6, 11, "'send: list' needs the list in 'to'");
	expect_error(TREE "    mail: {cc: [x@y.org, x@y.org]}\n", 6, 26, "'cc' lists 'x@y.org' twice");
	expect_error(TREE "    mail: {to: [l@x.org], send: list, regzbot: maybe}\n", 6, 48,
		     "'regzbot' is yes or no, not 'maybe'");
	expect_error(TREE "    mail: {regzbot: yes}\n", 6, 21, "'regzbot: yes' puts "
		     "regressions@lists.linux.dev on Cc: it needs 'send: list'");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_load_mem),
		cmocka_unit_test(test_shipped),
		cmocka_unit_test(test_paths_and_defaults),
		cmocka_unit_test(test_shape_errors),
		cmocka_unit_test(test_value_errors),
		cmocka_unit_test(test_perf_runs),
		cmocka_unit_test(test_board_use),
		cmocka_unit_test(test_gated_boards),
		cmocka_unit_test(test_tree_errors),
		cmocka_unit_test(test_file_errors),
		cmocka_unit_test(test_inboxes),
		cmocka_unit_test(test_reference),
		cmocka_unit_test(test_webhook_secret),
		cmocka_unit_test(test_report),
	};

	return cmocka_run_group_tests_name("service-conf", tests, setup, teardown);
}
