/*
 * bootgate gate: a tree's tip against its last good commit (the store's), as the daemon
 * runs it for every new tip; a regression queues a bisection job. A person can run it
 * by hand the same way.
 */
#include <getopt.h>

#include "cmd.h"
#include "ci/gate.h"
#include "util/error.h"
#include "util/log.h"
#include "util/path.h"
#include "util/strvec.h"
#include "util/xmalloc.h"

int cmd_gate(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "tree", required_argument, NULL, 't' },
		{ "name", required_argument, NULL, 'N' },
		{ "rev", required_argument, NULL, 'r' },
		{ "arch", required_argument, NULL, 'a' },
		{ "board", required_argument, NULL, 'b' },
		{ "mode", required_argument, NULL, 'm' },
		{ "boots", required_argument, NULL, 'n' },
		{ "threshold", required_argument, NULL, 'T' },
		{ "watch", required_argument, NULL, 'w' },
		{ "db", required_argument, NULL, 'd' },
		{ "lab", required_argument, NULL, 'l' },
		{ "config", required_argument, NULL, 'K' },
		{ "fragment", required_argument, NULL, 'F' },
		{ "console", required_argument, NULL, 'C' },
		{ "perf-runs", required_argument, NULL, 'R' },
		{ NULL, 0, NULL, 0 },
	};
	struct bg_gate_opts o = { 0 };
	struct bg_build_config kc = { 0 };
	struct bg_strvec frags = BG_STRVEC_INIT;
	struct bg_compare_config cmp;
	struct bg_strvec watch = BG_STRVEC_INIT;
	struct bg_store *s = NULL;
	enum bg_gate_verdict v;
	const char *mode = "deterministic";
	char *db = NULL;
	int opt, ret = 1;

	bg_compare_config_init(&cmp);
	o.progress = bg_progress_stderr;
	o.progress_data = "gate";
	while ((opt = getopt_long(argc, argv, "t:N:r:a:b:m:n:T:w:d:l:K:F:C:R:", opts, NULL)) != -1) {
		switch (opt) {
		case 't': o.tree = optarg; break;
		case 'N': o.tree_name = optarg; break;
		case 'r': o.rev = optarg; break;
		case 'a':
		case 'b': o.board = optarg; break;
		case 'm': mode = optarg; break;
		case 'n': o.boots = cmd_parse_count("gate", "--boots", optarg, 1, 1000); break;
		case 'T':
			if (bg_compare_config_add_threshold(&cmp, optarg) < 0) {
				ret = cmd_usage_error("gate", "--threshold: %s", bg_error_last());
				goto out;
			}
			break;
		case 'w': bg_strvec_push(&watch, optarg); break;
		case 'd': free(db); db = xstrdup(optarg); break;
		case 'l': o.lab = optarg; break;
		case 'K': kc.base = optarg; break;
		case 'F': bg_strvec_push(&frags, optarg); break;
		case 'C': o.console = cmd_parse_console("gate", optarg); break;
		case 'R':
			kc.perf_runs = (unsigned)cmd_parse_count("gate", "--perf-runs", optarg, 0,
								 100);
			break;
		default:
			ret = cmd_option_error("gate", argv);
			goto out;
		}
	}
	if (optind < argc) {
		ret = cmd_usage_error("gate", "unexpected argument '%s'", argv[optind]);
		goto out;
	}
	if (!o.tree || !o.tree_name || !o.rev || !o.board) {
		ret = cmd_usage_error("gate", "--tree, --name, --rev and --arch (or --board) are "
				      "needed");
		goto out;
	}
	if (!bg_path_name_ok(o.tree_name)) {
		ret = cmd_usage_error("gate", "--name '%s' is not a name", o.tree_name);
		goto out;
	}
	if (strcmp(mode, "timing") != 0 && strcmp(mode, "deterministic") != 0) {
		ret = cmd_usage_error("gate", "--mode is deterministic or timing, not '%s'", mode);
		goto out;
	}
	kc.fragments = frags.v;
	kc.nfragments = frags.n;
	if ((ret = cmd_check_inputs("gate", o.tree, (const char *[]){ o.rev }, 1, o.board,
				    !strcmp(mode, "deterministic"), o.lab, &kc)) != 0)
		goto out;
	ret = 1;
	o.deterministic = !strcmp(mode, "deterministic");
	cmp.deterministic = o.deterministic;
	o.compare = &cmp;
	o.metrics = watch.v;
	o.nmetrics = watch.n;
	kc.fragments = frags.v;
	kc.nfragments = frags.n;
	o.config = &kc;
	if (!db)
		db = bg_store_default_path();
	if (bg_store_open(db, &s) < 0 || bg_gate_run(s, &o, &v) < 0) {
		log_warnx("%s", bg_error_last());
		goto out;
	}
	printf("%s %s\n", o.rev, bg_gate_verdict_name(v));
	ret = 0;
out:
	bg_store_close(s);
	bg_compare_config_release(&cmp);
	bg_strvec_release(&watch);
	bg_strvec_release(&frags);
	free(db);
	return ret;
}
