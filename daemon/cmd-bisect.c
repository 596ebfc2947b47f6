/*
 * bootgate bisect: finds the commit that made boot slower, building and booting real
 * kernels (lib/ci/bisection.c). Every step is kept in the store, so that running the
 * same command again after a kill continues the bisection where it was.
 */
#include "cmd.h"
#include "ci/bisection.h"
#include "publish/results.h"
#include "net/git.h"
#include "util/error.h"
#include "util/log.h"
#include "util/strvec.h"

/* The run options bisect takes, and its own: --good, --bad, --metric and --no-confirm. */
static const char shortopts[] = CMD_RUN_SHORTOPTS "N:T:d:jP:" "g:B:M:";
/* --no-confirm has no letter: -C is --console, as in gate, series and measure */
#define OPT_NO_CONFIRM 256

static void bisect_help(FILE *out)
{
	fprintf(out, "\n"
	       "  -g, --good REV        a commit before the regression\n"
	       "  -B, --bad REV         a commit after it (the two of --tree)\n");
	cmd_print_run_help(out, shortopts);
	fprintf(out, "  -M, --metric M        the metric to bisect; default: the endpoints' largest\n"
	       "                        standardised regression\n"
	       "  -P, --parallel K      probes per round (1)\n"
	       "      --no-confirm      no timing confirmation of the culprit, no revert\n"
	       "  -j, --json            the result as one JSON object (a line each board)\n"
	       "\n--arch and --board again: a bisection on each board in turn, each printed.\n"
	       "Defaults: --mode deterministic. Every build, boot and step is kept in the\n"
	       "store: the same command after a kill continues the bisection; after its end it\n"
	       "prints the result again. Progress, one line per step, on stderr.\n"
	       "\nexit: 0 the bisection ended (with a culprit or not: see the result), 1 it\n"
	       "could not go on (run it again to continue), 2 usage\n");
}

static const struct option bisect_opts[] = {
	CMD_RUN_OPTIONS,
	CMD_OPT_NAME,
	CMD_OPT_THRESHOLD,
	CMD_OPT_DB,
	CMD_OPT_JSON,
	CMD_OPT_PARALLEL,
	{ "good", required_argument, NULL, 'g' },
	{ "bad", required_argument, NULL, 'B' },
	{ "metric", required_argument, NULL, 'M' },
	{ "no-confirm", no_argument, NULL, OPT_NO_CONFIRM },
	{ NULL, 0, NULL, 0 },
};

/* The result of bisection id: its JSON object on a line, or as show prints it. */
static int print_bisection(struct bg_store *s, int64_t id, bool json)
{
	struct bg_json j;
	int ret = 0;

	if (!json)
		return cmd_show_bisection(s, id, stdout);
	fflush(stdout);
	bg_json_init(&j, STDOUT_FILENO, 0);
	if (bg_bisection_result_write(s, id, &j) < 0)
		ret = 1;
	bg_strbuf_addch(&j.out, '\n');
	if (bg_json_finish(&j) < 0 || ret) {
		log_errorx("%s", bg_error_last());
		ret = 1;
	}
	return ret;
}

static int cmd_bisect(int argc, char **argv)
{
	struct bg_bisection_opts o = { 0 };
	struct cmd_run_opts r;
	struct bg_store *s = NULL;
	int64_t id = 0;
	int opt, ret = 1;

	cmd_run_opts_init(&r);
	o.progress = bg_progress_stderr;
	o.progress_data = "bisect";
	while ((opt = cmd_run_getopt("bisect", argc, argv, shortopts, bisect_opts, &r)) != -1) {
		switch (opt) {
		case 'g': o.good = optarg; break;
		case 'B': o.bad = optarg; break;
		case 'M': o.metric = optarg; break;
		case OPT_NO_CONFIRM: o.no_confirm = true; break;
		default:
			ret = cmd_option_error("bisect", argv);
			goto out;
		}
	}
	if (optind < argc) {
		ret = cmd_usage_error("bisect", "unexpected argument '%s'", argv[optind]);
		goto out;
	}
	if (!r.tree || !o.good || !o.bad || !r.board) {
		ret = cmd_usage_error("bisect", "--tree, --good, --bad and --arch (or --board) are "
				      "needed");
		goto out;
	}
	cmd_run_give(&o, &r);
	o.tree_name = r.name;
	o.parallel = r.parallel;
	o.deterministic = !r.mode || !strcmp(r.mode, "deterministic");
	for (size_t i = 0; i < r.boards.n; i++)
		if ((ret = cmd_check_inputs("bisect", o.tree, (const char *[]){ o.good, o.bad },
					    2, r.boards.v[i], o.deterministic, o.lab,
					    &r.config)) != 0)
			goto out;
	if (o.metric && (!*o.metric || strcspn(o.metric, " \t\r\n") != strlen(o.metric))) {
		ret = cmd_usage_error("bisect", "--metric '%s' is not a metric's name", o.metric);
		goto out;
	}
	{
		/* a range that is none is the caller's mistake, never a retry */
		struct bg_strvec chain = BG_STRVEC_INIT;

		if (bg_git_first_parents(o.tree, o.good, o.bad, BG_BISECTION_MAX_CHAIN, &chain) < 0)
			ret = cmd_usage_error("bisect", "%s", bg_error_last());
		else if (chain.n < 2)
			ret = cmd_usage_error("bisect", "--good and --bad are the same commit");
		bg_strvec_release(&chain);
		if (ret)
			goto out;
	}
	ret = 1;
	o.compare = &r.compare;
	if (cmd_open_store_rw(r.db, &s) < 0)
		goto out;
	/* a board whose bisection cannot go on does not keep the others from theirs */
	ret = 0;
	for (size_t i = 0; i < r.boards.n; i++) {
		o.board = r.boards.v[i];
		if (bg_bisection_run(s, &o, &id) < 0) {
			ret = cmd_run_board_error(&r, o.board);
		} else if (print_bisection(s, id, r.json) != 0) {
			ret = 1;
		}
	}
out:
	bg_store_close(s);
	cmd_run_opts_release(&r);
	return ret;
}

const struct bg_cmd cmd_bisect_entry = {
	"bisect", cmd_bisect,
	"--tree DIR --good REV --bad REV --arch ARCH|--board NAME [--mode deterministic|timing] "
	"[--console verbose|quiet] [--metric M] [--parallel K] [--threshold P=PCT%[:US]]... "
	"[--no-confirm] [--name TREE] [--config BASE] [--fragment FILE]... [--perf-runs R] "
	"[--db FILE] [--lab DIR] [--json]",
	"find the commit that made boot slower, building and booting real kernels",
	bisect_help, bisect_opts,
};
