/*
 * bootgate measure: build a commit, boot it, read its boots, and with --against compare
 * it with another commit booted in the same run (interleaved). The work is the pipeline
 * of lib/lab/pipeline.c, which the daemon shares; this file reads options and prints.
 */
#include "cmd.h"
#include "lab/pipeline.h"
#include "report/comparison.h"
#include "util/error.h"
#include "util/log.h"
#include "util/text.h"

/* The run options measure takes, and its own: --commit, --against and --top. */
static const char shortopts[] = CMD_RUN_SHORTOPTS "n:jP:" "c:A:";
/* --top has no letter: -T is --threshold in gate, series and bisect */
#define OPT_TOP 256

static void measure_help(FILE *out)
{
	fprintf(out, "\n"
	       "  -c, --commit REV      what to measure; with --against REV2, the candidate\n"
	       "  -A, --against REV2    the base, booted in the same run, interleaved\n");
	cmd_print_run_help(out, shortopts);
	fprintf(out, "  -P, --parallel N      boots at once (the number of cores)\n"
	       "  -j, --json            the builds, every parsed boot, and the comparison\n"
	       "      --top N           rows of the comparison shown (20)\n"
	       "\nDefaults: --mode timing, --boots 3.\n"
	       "\nBuilds go through bootgate-build (incremental, ccache, sandboxed), boots\n"
	       "through bootgate-boot (the two commits interleaved). Progress on stderr.\n"
	       "The tree, the commits and the board are checked before any work.\n"
	       "\nexit: 0 measured, 1 a build failed or a boot did not reach userspace,\n"
	       "2 usage (a bad tree, commit, board or option)\n");
}

static const struct option measure_opts[] = {
	CMD_RUN_OPTIONS,
	CMD_OPT_BOOTS,
	CMD_OPT_JSON,
	CMD_OPT_PARALLEL,
	{ "commit", required_argument, NULL, 'c' },
	{ "against", required_argument, NULL, 'A' },
	{ "top", required_argument, NULL, OPT_TOP },
	{ NULL, 0, NULL, 0 },
};

static int cmd_measure(int argc, char **argv)
{
	struct bg_measure_opts o = { 0 };
	struct cmd_run_opts r;
	struct bg_measure m;
	unsigned long top = 20;
	int opt, ret = 2;

	cmd_run_opts_init(&r);
	bg_measure_init(&m);
	o.progress = bg_progress_stderr;
	o.progress_data = "measure";
	while ((opt = cmd_run_getopt("measure", argc, argv, shortopts, measure_opts, &r)) != -1) {
		switch (opt) {
		case 'c': o.commit = optarg; break;
		case 'A': o.against = optarg; break;
		case OPT_TOP: top = cmd_parse_count("measure", "--top", optarg, 1, 1000000); break;
		default:
			ret = cmd_option_error("measure", argv);
			goto out;
		}
	}
	if (optind < argc) {
		cmd_usage_error("measure", "unexpected argument '%s'", argv[optind]);
		goto out;
	}
	if (cmd_run_one_board("measure", &r)) {
		ret = 2;
		goto out;
	}
	if (!r.tree || !o.commit || !r.board) {
		cmd_usage_error("measure", "--tree, --commit and --arch (or --board) are needed");
		goto out;
	}
	cmd_run_give(&o, &r);
	o.boots = r.boots ? r.boots : 3;
	o.parallel = r.parallel;
	o.deterministic = r.mode && !strcmp(r.mode, "deterministic");
	/* the tree, the commits and the board are checked before anything is built */
	if (bg_measure_check(&o, &m) < 0) {
		cmd_usage_error("measure", "%s", bg_error_last());
		goto out;
	}
	ret = 1;
	if (bg_measure_run(&o, &m) < 0) {
		log_errorx("%s", bg_error_last());
		goto out;
	}
	if (r.json) {
		struct bg_json j;

		fflush(stdout);
		bg_json_init(&j, STDOUT_FILENO, 3);
		bg_measure_write_json(&j, &o, &m);
		if (bg_json_finish(&j) < 0) {
			log_errorx("%s", bg_error_last());
			goto out;
		}
	} else if (m.compared) {
		bg_text_printf(stdout, "%s against %s, %s mode, %s console, board %s\n", o.commit,
			       o.against, o.deterministic ? "deterministic" : "timing",
			       bg_console_name(o.console), m.run.board ? m.run.board : o.board);
		bg_comparison_print(stdout, &m.cmp, &m.set[BG_SIDE_AGAINST], &m.set[BG_SIDE_COMMIT],
				    top, false);
	} else {
		const struct bg_series *s = bg_sample_set_find(&m.set[BG_SIDE_COMMIT], "boot.init");

		bg_text_printf(stdout, "%s: %u boots reached userspace, %u did not\n", o.commit,
			       m.set[BG_SIDE_COMMIT].boots, m.set[BG_SIDE_COMMIT].excluded);
		if (s)
			for (size_t i = 0; i < s->n; i++)
				printf("  boot.init %.3f ms\n", s->v[i] / 1000);
	}
	if (fflush(stdout) == EOF) {
		log_error("cannot write the output");
		goto out;
	}
	/* every boot reached userspace: 0; a boot panicked, hung or failed: 1 (after reporting) */
	ret = m.boots_failed ? 1 : 0;
out:
	bg_measure_release(&m);
	cmd_run_opts_release(&r);
	return ret;
}

const struct bg_cmd cmd_measure_entry = {
	"measure", cmd_measure,
	"--tree DIR --commit REV --arch ARCH|--board NAME [--mode timing|deterministic] "
	"[--console verbose|quiet] [--boots N] [--against REV2] [--parallel N] [--top N] "
	"[--config BASE] [--fragment FILE]... [--perf-runs R] [--lab DIR] [--json]",
	"build a commit, boot it N times, and compare it with another (QEMU)",
	measure_help, measure_opts,
};
