/*
 * bootgate bisect: finds the commit that made boot slower, building and booting real
 * kernels (lib/ci/bisection.c). Every step is kept in the store, so that running the
 * same command again after a kill continues the bisection where it was.
 */
#include <getopt.h>

#include "cmd.h"
#include "ci/bisection.h"
#include "net/git.h"
#include "util/error.h"
#include "util/log.h"
#include "util/path.h"
#include "util/strvec.h"
#include "util/xmalloc.h"

int cmd_bisect(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "tree", required_argument, NULL, 't' },
		{ "name", required_argument, NULL, 'N' },
		{ "good", required_argument, NULL, 'g' },
		{ "bad", required_argument, NULL, 'B' },
		{ "arch", required_argument, NULL, 'a' },
		{ "board", required_argument, NULL, 'b' },
		{ "mode", required_argument, NULL, 'm' },
		{ "metric", required_argument, NULL, 'M' },
		{ "parallel", required_argument, NULL, 'P' },
		{ "threshold", required_argument, NULL, 'T' },
		{ "no-confirm", no_argument, NULL, 'C' },
		{ "db", required_argument, NULL, 'd' },
		{ "lab", required_argument, NULL, 'l' },
		{ "json", no_argument, NULL, 'j' },
		{ "config", required_argument, NULL, 'K' },
		{ "fragment", required_argument, NULL, 'F' },
		{ "console", required_argument, NULL, 'O' },
		{ "perf-runs", required_argument, NULL, 'R' },
		{ NULL, 0, NULL, 0 },
	};
	struct bg_bisection_opts o = { 0 };
	struct bg_build_config kc = { 0 };
	struct bg_strvec frags = BG_STRVEC_INIT;
	struct bg_compare_config cmp;
	struct bg_store *s = NULL;
	const char *mode = "deterministic";
	char *db = NULL;
	bool json = false;
	int64_t id = 0;
	int opt, ret = 1;

	bg_compare_config_init(&cmp);
	o.progress = bg_progress_stderr;
	o.progress_data = "bisect";
	while ((opt = getopt_long(argc, argv, "t:N:g:B:a:b:m:M:P:T:Cd:l:jK:F:O:R:", opts, NULL)) != -1) {
		switch (opt) {
		case 't': o.tree = optarg; break;
		case 'N': o.tree_name = optarg; break;
		case 'g': o.good = optarg; break;
		case 'B': o.bad = optarg; break;
		case 'a':
		case 'b': o.board = optarg; break;
		case 'm': mode = optarg; break;
		case 'M': o.metric = optarg; break;
		case 'P':
			o.parallel = cmd_parse_count("bisect", "--parallel", optarg, 1, 64);
			break;
		case 'T':
			if (bg_compare_config_add_threshold(&cmp, optarg) < 0) {
				ret = cmd_usage_error("bisect", "--threshold: %s", bg_error_last());
				goto out;
			}
			break;
		case 'C': o.no_confirm = true; break;
		case 'd': free(db); db = xstrdup(optarg); break;
		case 'l': o.lab = optarg; break;
		case 'j': json = true; break;
		case 'O': o.console = cmd_parse_console("bisect", optarg); break;
		case 'K': kc.base = optarg; break;
		case 'F': bg_strvec_push(&frags, optarg); break;
		case 'R':
			kc.perf_runs = (unsigned)cmd_parse_count("bisect", "--perf-runs", optarg, 0,
								 100);
			break;
		default:
			ret = cmd_option_error("bisect", argv);
			goto out;
		}
	}
	if (optind < argc) {
		ret = cmd_usage_error("bisect", "unexpected argument '%s'", argv[optind]);
		goto out;
	}
	if (!o.tree || !o.good || !o.bad || !o.board) {
		ret = cmd_usage_error("bisect", "--tree, --good, --bad and --arch (or --board) are "
				      "needed");
		goto out;
	}
	if (strcmp(mode, "timing") != 0 && strcmp(mode, "deterministic") != 0) {
		ret = cmd_usage_error("bisect", "--mode is deterministic or timing, not '%s'", mode);
		goto out;
	}
	if (o.tree_name && !bg_path_name_ok(o.tree_name)) {
		ret = cmd_usage_error("bisect", "--name '%s' is not a name", o.tree_name);
		goto out;
	}
	kc.fragments = frags.v;
	kc.nfragments = frags.n;
	if ((ret = cmd_check_inputs("bisect", o.tree, (const char *[]){ o.good, o.bad }, 2,
				    o.board, !strcmp(mode, "deterministic"), o.lab, &kc)) != 0)
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
	o.deterministic = !strcmp(mode, "deterministic");
	o.compare = &cmp;
	kc.fragments = frags.v;
	kc.nfragments = frags.n;
	o.config = &kc;
	if (!db)
		db = bg_store_default_path();
	if (bg_store_open(db, &s) < 0) {
		log_warnx("%s", bg_error_last());
		goto out;
	}
	if (bg_bisection_run(s, &o, &id) < 0) {
		log_warnx("%s", bg_error_last());
		goto out;
	}
	ret = 0;
	if (json) {
		struct bg_json j;

		fflush(stdout);
		bg_json_init(&j, STDOUT_FILENO, 0);
		if (bg_bisection_write_json(s, id, &j) < 0)
			ret = 1;
		bg_strbuf_addch(&j.out, '\n');
		if (bg_json_finish(&j) < 0 || ret) {
			log_warnx("%s", bg_error_last());
			ret = 1;
		}
	} else {
		ret = cmd_show_bisection(s, id, stdout);
	}
out:
	bg_store_close(s);
	bg_compare_config_release(&cmp);
	bg_strvec_release(&frags);
	free(db);
	return ret;
}
