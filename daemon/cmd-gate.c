/*
 * bootgate gate: a tree's tip against its last good commit (the store's), as the daemon
 * runs it for every new tip; a regression queues a bisection job. A person can run it
 * by hand the same way.
 */
#include "cmd.h"
#include "ci/gate.h"
#include "util/error.h"
#include "util/log.h"
#include "util/strvec.h"

/* The run options gate takes, and its own: --rev and --watch. */
static const char shortopts[] = CMD_RUN_SHORTOPTS "N:n:T:d:" "r:w:";

static void gate_help(FILE *out)
{
	fprintf(out, "\n"
	       "  -r, --rev REV         the tip to gate, against the tree's last good commit\n");
	cmd_print_run_help(out, shortopts);
	fprintf(out, "  -w, --watch PATTERN   a metric, or a prefix ending in *, the verdict looks at\n"
	       "                        (again for more; none: every metric)\n"
	       "\n--arch and --board again: each board gated in turn, \"REV VERDICT BOARD\" a line\n"
	       "each. Defaults: --mode deterministic; --boots 2 deterministic, 5 timing. A tree's\n"
	       "first commit becomes its last good; a regression queues a bisection job.\n"
	       "Progress on stderr; the verdict on stdout.\n"
	       "\nexit: 0 gated (a regression too), 1 it could not be gated (infra: the lab\n"
	       "failed every boot), 2 usage\n");
}

static const struct option gate_opts[] = {
	CMD_RUN_OPTIONS,
	CMD_OPT_NAME,
	CMD_OPT_BOOTS,
	CMD_OPT_THRESHOLD,
	CMD_OPT_DB,
	{ "rev", required_argument, NULL, 'r' },
	{ "watch", required_argument, NULL, 'w' },
	{ NULL, 0, NULL, 0 },
};

static int cmd_gate(int argc, char **argv)
{
	struct bg_gate_opts o = { 0 };
	struct cmd_run_opts r;
	struct bg_strvec watch = BG_STRVEC_INIT;
	struct bg_store *s = NULL;
	enum bg_gate_verdict v;
	int opt, ret = 1;

	cmd_run_opts_init(&r);
	o.progress = bg_progress_stderr;
	o.progress_data = "gate";
	while ((opt = cmd_run_getopt("gate", argc, argv, shortopts, gate_opts, &r)) != -1) {
		switch (opt) {
		case 'r': o.rev = optarg; break;
		case 'w': bg_strvec_push(&watch, optarg); break;
		default:
			ret = cmd_option_error("gate", argv);
			goto out;
		}
	}
	if (optind < argc) {
		ret = cmd_usage_error("gate", "unexpected argument '%s'", argv[optind]);
		goto out;
	}
	if (!r.tree || !r.name || !o.rev || !r.board) {
		ret = cmd_usage_error("gate", "--tree, --name, --rev and --arch (or --board) are "
				      "needed");
		goto out;
	}
	cmd_run_give(&o, &r);
	o.tree_name = r.name;
	o.boots = r.boots;
	o.deterministic = !r.mode || !strcmp(r.mode, "deterministic");
	/* every board checked before any is gated */
	for (size_t i = 0; i < r.boards.n; i++)
		if ((ret = cmd_check_inputs("gate", o.tree, (const char *[]){ o.rev }, 1,
					    r.boards.v[i], o.deterministic, o.lab,
					    &r.config)) != 0)
			goto out;
	ret = 1;
	r.compare.deterministic = o.deterministic;
	o.compare = &r.compare;
	o.metrics = watch.v;
	o.nmetrics = watch.n;
	if (cmd_open_store_rw(r.db, &s) < 0)
		goto out;
	/* a board that cannot be gated does not keep the others from it */
	ret = 0;
	for (size_t i = 0; i < r.boards.n; i++) {
		o.board = r.boards.v[i];
		if (bg_gate_run(s, &o, &v) < 0) {
			ret = cmd_run_board_error(&r, o.board);
			continue;
		}
		if (r.boards.n == 1)
			printf("%s %s\n", o.rev, bg_gate_verdict_name(v));
		else
			printf("%s %s %s\n", o.rev, bg_gate_verdict_name(v), o.board);
		/* no verdict: the daemon's job is tried again */
		if (v == BG_GATE_INFRA)
			ret = 1;
	}
out:
	bg_store_close(s);
	bg_strvec_release(&watch);
	cmd_run_opts_release(&r);
	return ret;
}

const struct bg_cmd cmd_gate_entry = {
	"gate", cmd_gate,
	"--tree DIR --name TREE --rev REV --arch ARCH|--board NAME [--mode M] [--console C] "
	"[--boots N] [--threshold P=PCT%[:US]]... [--watch PATTERN]... [--config BASE] "
	"[--fragment FILE]... [--perf-runs R] [--db FILE] [--lab DIR]",
	"a tip against the tree's last good commit; a regression queues a bisection",
	gate_help, gate_opts,
};
