/* The bootgate command: a table of subcommands, each in its own cmd-*.c file. */
#include <getopt.h>
#include <signal.h>

#include "cmd.h"
#include "util/log.h"
#include "util/strbuf.h"
#include "util/text.h"

#ifndef BOOTGATE_VERSION
#define BOOTGATE_VERSION "0.1"
#endif

static int cmd_help(int argc, char **argv);
static int cmd_version(int argc, char **argv);

static const struct bg_cmd commands[] = {
	{ "parse", cmd_parse, "[--json | --summary] [--top N] LOG|- ...",
	  "read boot-time figures (initcalls, probes, time to init) from console or LAVA logs" },
	{ "diff", cmd_diff, "[--json] [--top N | --all] A.log B.log",
	  "compare two boots initcall by initcall, quoting the kernel's own lines" },
	{ "compare", cmd_compare,
	  "[--json] [--top N | --all] [--threshold PATTERN=PCT%[:US]]... --base LOG... --cand LOG...",
	  "same, different or unknown for every metric of two sets of boots" },
	{ "measure", cmd_measure,
	  "--tree DIR --commit REV --arch ARCH|--board NAME [--mode timing|deterministic] "
	  "[--console verbose|quiet] [--boots N] [--against REV2] [--parallel N] [--top N] "
	  "[--config BASE] [--fragment FILE]... [--perf-runs R] [--lab DIR] [--json]",
	  "build a commit, boot it N times, and compare it with another (QEMU)",
	  cmd_measure_help },
	{ "bisect", cmd_bisect,
	  "--tree DIR --good REV --bad REV --arch ARCH|--board NAME [--mode deterministic|timing] "
	  "[--console verbose|quiet] [--metric M] [--parallel K] [--threshold P=PCT%[:US]]... "
	  "[--no-confirm] [--name TREE] [--config BASE] [--fragment FILE]... [--perf-runs R] "
	  "[--db FILE] [--lab DIR] [--json]",
	  "find the commit that made boot slower, building and booting real kernels",
	  cmd_bisect_help },
	{ "show", cmd_show, "[--db FILE] [--json] BISECTION|COMMIT",
	  "a bisection's steps, values and confirmation, or a commit's builds and boots" },
	{ "status", cmd_status, "[--db FILE] [--json]",
	  "the trees, the queue, running jobs, the last verdicts and bisections (the store)" },
	{ "trigger", cmd_trigger, "[--socket PATH] [--json] TREE [COMMIT]",
	  "ask the daemon to fetch a tree now (a git server's post-receive hook calls this)" },
	{ "rerun", cmd_rerun, "[--db FILE] [--socket PATH] [--tree NAME] [--json] JOB|COMMIT",
	  "queue a job again, or a gate of a commit, and wake the daemon" },
	{ "log", cmd_log, "[--db FILE] [--json] [--tree NAME] [--lines N]",
	  "the service's events: fetches, gates, bisections, failures" },
	{ "site", cmd_site, "OUTDIR [--db FILE] [--url BASE] [--json]",
	  "write the static results site (HTML, SVG, JSON) from the store; unchanged files stay" },
	{ "export", cmd_export,
	  "--kcidb [--db FILE] [--origin NAME] [--lab DIR] [-o FILE] | --boot-data DIR [--db FILE] [--json]",
	  "the store's results as KCIDB v5.3, or as boot-time wizard boot-data files" },
	{ "mail", cmd_mail, "[--db FILE] [--config FILE] [--dry-run | --send] [--json]",
	  "compose the outbox's reports into mails, and send those due (SMTP, retried)" },
	{ "serve-artifacts", cmd_serve_artifacts, "[--listen ADDR:PORT] [--cache DIR]",
	  "serve the artifact store read-only over HTTP for LAVA (GET /artifacts/SHA256/image)" },
	{ "gate", cmd_gate,
	  "--tree DIR --name TREE --rev REV --arch ARCH|--board NAME [--mode M] [--console C] "
	  "[--boots N] [--threshold P=PCT%[:US]]... [--watch PATTERN]... [--config BASE] "
	  "[--fragment FILE]... [--perf-runs R] [--db FILE] [--lab DIR]",
	  "a tip against the tree's last good commit; a regression queues a bisection",
	  cmd_gate_help },
	{ "series", cmd_series,
	  "MBOX|- [--tree DIR] [--name TREE] [--base REV] --arch ARCH|--board NAME [--mode M] "
	  "[--console C] [--boots N] [--threshold P=PCT%[:US]]... [--config BASE] "
	  "[--fragment FILE]... [--perf-runs R] [--db FILE] [--lab DIR] [--json] | --id N [...]",
	  "apply a patch series from its mails and measure it patch by patch",
	  cmd_series_help },
	{ "fetch", cmd_fetch, "--mirror DIR --url URL --branch BRANCH [--reference REPO]",
	  "fetch a tree's branch into its mirror and print the tip" },
	{ "inbox", cmd_inbox, "[--config FILE] [--db FILE] [--inbox NAME] [--drop] [--json]",
	  "read new mail of the configured public-inboxes and drop directory into patch series" },
	{ "bench-bisect", cmd_bench_bisect,
	  "[--json] [--k N] [--all-steps] FILE.bb ... | --generate [--N N] [--d D] [--cv CV] ...",
	  "bootgate's noise-aware bisection against plain git bisect on simulated histories" },
	{ "help", cmd_help, "[COMMAND]", "show the commands, or one command's help" },
	{ "version", cmd_version, "", "print the version" },
};

static const struct bg_cmd *find_cmd(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

static void print_overview(FILE *out)
{
	fprintf(out, "usage: bootgate COMMAND [ARGS]\n\ncommands:\n");
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(out, "  %-15s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\n'bootgate help COMMAND' or 'bootgate COMMAND --help' shows one command.\n");
}

int cmd_print_help(const char *name)
{
	const struct bg_cmd *c = find_cmd(name);

	if (!c)
		return cmd_usage_error("help", "unknown command '%s'", name);
	printf("usage: bootgate %s %s\n\n%s\n", c->name, c->usage, c->summary);
	if (c->help)
		c->help();
	else if (!strcmp(name, "parse"))
		printf("\n"
		       "  --json      one JSON document: {\"logs\": [one object per boot]}\n"
		       "  --summary   one line per boot\n"
		       "  --top N     rows in the slowest-initcall and slowest-probe tables (10)\n"
		       "  LOG         a console capture, a dmesg dump or a LAVA job log; - is stdin\n"
		       "\nexit: 0 every log read, 1 a log could not be read, 2 usage\n");
	else if (!strcmp(name, "compare"))
		printf("\n"
		       "  --base LOG...   boots of the base kernel (every boot of every log)\n"
		       "  --cand LOG...   boots of the candidate\n"
		       "  --json          every metric's verdict, and the attribution, as JSON\n"
		       "  --top N         rows shown (20); --all shows the metrics judged same too\n"
		       "  --threshold P=PCT%%[:US]  a practical threshold for metrics matching P\n"
		       "                  (a name or a prefix ending in *), e.g. 'initcall.*=10%%:2000'\n"
		       "\nDefaults: boot.* 2%% and 1 ms; initcall.* and probe.* 5%% and 1 ms. Where\n"
		       "several patterns match, the most specific wins (a name, then the longest\n"
		       "prefix). Boots that never reached init are left out and counted.\n"
		       "\nexit: 0 compared, 1 a log could not be read (the others are compared) or\n"
		       "the boots cannot be compared (no boot reached init on a side, arches\n"
		       "mixed), 2 usage\n");
	else if (!strcmp(name, "show") || !strcmp(name, "status") || !strcmp(name, "log"))
		printf("\n"
		       "  --db FILE   the store ($BOOTGATE_STATE/bootgate.db), opened read-only:\n"
		       "              answers whether a daemon runs or not\n"
		       "  --json      the same as JSON\n"
		       "\nexit: 0, 1 no store or no such bisection or commit, 2 usage\n");
	else if (!strcmp(name, "export"))
		printf("\n"
		       "  --kcidb         one KCIDB I/O schema v5.3 document (kernelci/kcidb-io):\n"
		       "                  checkouts (tree commits; series with patchset_hash and\n"
		       "                  message_id), builds, and per build, board and mode a test\n"
		       "                  \"boot\" and one DONE test per metric (path\n"
		       "                  boottime.initcall.NAME, the boots' median in number, in\n"
		       "                  s); each mailed culprit as an issue, with its incidents\n"
		       "  --origin NAME   the CI system's name in every id ([a-z0-9_]+; bootgate)\n"
		       "  --lab DIR       boards, for each build's architecture (lab-configs)\n"
		       "  -o FILE         write FILE whole (else stdout)\n"
		       "  --boot-data DIR one boot-data file per stored boot, named\n"
		       "                  boot-data-bootgate-BOARD-COMMIT12-BOOT-YYMMDD-HHMMSS.txt;\n"
		       "                  bootgate parse reads them back; prints the paths\n"
		       "  --db FILE       the store ($BOOTGATE_STATE/bootgate.db), read-only\n"
		       "\nexit: 0, 1 no store, or a boot's console could not be read (the other\n"
		       "boots are written), 2 usage\n");
	else if (!strcmp(name, "trigger") || !strcmp(name, "rerun"))
		printf("\n"
		       "  --socket PATH   the daemon's socket ($BOOTGATE_STATE/bootgate.sock)\n"
		       "\ntrigger asks the daemon to fetch TREE now (COMMIT is noted); rerun writes\n"
		       "a job into the store (a copy of JOB, or a gate of COMMIT in --tree) and\n"
		       "wakes the daemon, so that nothing is lost when none runs.\n"
		       "\nexit: 0 taken, 1 the daemon refused or did not answer, 2 usage\n");
	else if (!strcmp(name, "bench-bisect"))
		printf("\n"
		       "  FILE.bb     corpora of histories (format: README, 'Bisection benchmark')\n"
		       "  --json      the figures as JSON\n"
		       "  --k N       parallel workers for bootgate's bisection (1)\n"
		       "  --all-steps check beside every culprit for further steps (else only when\n"
		       "              the step found clearly explains less than 80%% of the shift)\n"
		       "\nWith --generate, writes a corpus to stdout instead:\n"
		       "  --N N       commits after the good one (128)\n"
		       "  --d D       the regression, as a fraction (0.05)\n"
		       "  --cv CV     boot-time noise, coefficient of variation (0.05)\n"
		       "  --hang P    share of boots that hang (0.01)\n"
		       "  --bf P      share of commits that do not build (0.05)\n"
		       "  --base MS   median boot time of the good commits (2500)\n"
		       "  --histories N   (1000)    --seed S   (1)\n"
		       "  --steps F,F,... a regression made of several commits, fractions of D\n"
		       "\nexit: 0 every corpus read, 1 a corpus could not be read, 2 usage\n");
	else if (!strcmp(name, "inbox"))
		printf("\n"
		       "  --config FILE   the service's configuration (lab-configs/bootgate.yaml):\n"
		       "                  its 'inboxes' and 'drop' are read\n"
		       "  --db FILE       the store (STATE/bootgate.db of the configuration)\n"
		       "  --inbox NAME    that inbox (without --drop: not the drop directory)\n"
		       "  --drop          the drop directory (without --inbox: no inbox)\n"
		       "  --json          the counts, the mails refused and the series made\n"
		       "\nEach inbox (a public-inbox v2 directory, or one epoch repository such as\n"
		       "'git clone --mirror' of lore keeps) is read from where the last run stopped.\n"
		       "A series is made when all its patches are there, and queued for its tree;\n"
		       "a newer version supersedes an older one. A mail that cannot be read is\n"
		       "named as file:line: why and the others are read. Drop files go to done/ or\n"
		       "failed/ (with FILE.error).\n"
		       "\nexit: 0 read (refused mails included), 1 an inbox or the store could not\n"
		       "be read, 2 usage or a bad configuration\n");
	else if (!strcmp(name, "mail"))
		printf("\n"
		       "  --config FILE   the service's configuration (report:, each tree's mail:)\n"
		       "  --db FILE       the store (STATE/bootgate.db of the configuration)\n"
		       "  --dry-run       print the mails the outbox would make; store nothing\n"
		       "  --send          also send the mails whose time has come\n"
		       "  --json          what was done, as JSON\n"
		       "\nA mail is made for a bisection that found a culprit with at least\n"
		       "report.min-confidence, and for a measured series; one per culprit and\n"
		       "metric. A mail the server does not take waits 30 s, then twice as long\n"
		       "after each failure, up to an hour (BOOTGATE_MAIL_BACKOFF=S: the first).\n"
		       "\nexit: 0 done (all sent, with --send), 1 an error or a mail waits for a\n"
		       "later try, 2 usage\n");
	else if (!strcmp(name, "diff"))
		printf("\n"
		       "  --json      the rows as JSON\n"
		       "  --top N     the N largest changes (20)\n"
		       "  --all       every initcall and probe\n"
		       "\nThe first boot of each log is compared. Initcalls are matched by name and\n"
		       "occurrence, never by +off/size, which patches change.\n"
		       "\nexit: 0 compared, 1 a log could not be read, 2 usage\n");
	return 0;
}

int cmd_usage_error(const char *name, const char *fmt, ...)
{
	const struct bg_cmd *c = find_cmd(name);
	struct bg_strbuf msg = BG_STRBUF_INIT, safe = BG_STRBUF_INIT;
	va_list ap;

	/* what the user typed is quoted back: one line, escaped like every message */
	va_start(ap, fmt);
	bg_strbuf_vaddf(&msg, fmt, ap);
	va_end(ap);
	bg_text_escape_line(&safe, msg.buf, msg.len);
	fprintf(stderr, "bootgate %s: %s\n", name, safe.buf);
	if (c)
		fprintf(stderr, "usage: bootgate %s %s\n", c->name, c->usage);
	bg_strbuf_release(&msg);
	bg_strbuf_release(&safe);
	return 2;
}

/*
 * Whatever a command printed must have reached its output: else it did not say it. A
 * command that failed has said why already (its output among it, once).
 */
static int output_written(int ret)
{
	if ((fflush(stdout) == EOF || ferror(stdout)) && !ret) {
		log_error("cannot write the output");
		return 1;
	}
	return ret;
}

static int cmd_help(int argc, char **argv)
{
	if (argc > 2)
		return cmd_usage_error("help", "too many arguments");
	if (argc == 2)
		return cmd_print_help(argv[1]);
	print_overview(stdout);
	return 0;
}

static int cmd_version(int argc, char **argv)
{
	(void)argv;
	if (argc > 1)
		return cmd_usage_error("version", "takes no arguments");
	printf("bootgate %s\n", BOOTGATE_VERSION);
	return 0;
}

int main(int argc, char **argv)
{
	const struct bg_cmd *c;

	log_init("bootgate", 0);
	/*
	 * A reader that has gone (bootgate ... | head -1) must not kill a command between two
	 * steps of its work (a mail sent and not yet marked so): a write then fails with
	 * EPIPE, and the command says it could not write its output (exit 1). Children get
	 * the default back (util/proc.c).
	 */
	signal(SIGPIPE, SIG_IGN);
	opterr = 0;     /* the commands name a bad option themselves, escaped, once */
	if (argc < 2) {
		print_overview(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
		return output_written(cmd_help(1, argv + 1));
	if (!strcmp(argv[1], "--version"))
		return output_written(cmd_version(1, argv + 1));
	c = find_cmd(argv[1]);
	if (!c) {
		log_errorx("unknown command '%s'", argv[1]);
		print_overview(stderr);
		return 2;
	}
	for (int i = 2; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return output_written(cmd_print_help(c->name));
	return output_written(c->fn(argc - 1, argv + 1));
}
