/*
 * bootgate measure: build a commit, boot it, read its boots, and with --against compare
 * it with another commit booted in the same run (interleaved). The work is the pipeline
 * of lib/lab/pipeline.c, which the daemon shares; this file reads options and prints.
 */
#include <getopt.h>

#include "cmd.h"
#include "lab/pipeline.h"
#include "report/comparison.h"
#include "util/error.h"
#include "util/log.h"
#include "util/strvec.h"
#include "util/text.h"

int cmd_measure(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "tree", required_argument, NULL, 't' },
		{ "commit", required_argument, NULL, 'c' },
		{ "arch", required_argument, NULL, 'a' },
		{ "board", required_argument, NULL, 'b' },
		{ "mode", required_argument, NULL, 'm' },
		{ "boots", required_argument, NULL, 'n' },
		{ "against", required_argument, NULL, 'A' },
		{ "lab", required_argument, NULL, 'l' },
		{ "json", no_argument, NULL, 'j' },
		{ "top", required_argument, NULL, 'T' },
		{ "parallel", required_argument, NULL, 'P' },
		{ "config", required_argument, NULL, 'K' },
		{ "fragment", required_argument, NULL, 'F' },
		{ "console", required_argument, NULL, 'C' },
		{ "perf-runs", required_argument, NULL, 'R' },
		{ NULL, 0, NULL, 0 },
	};
	struct bg_measure_opts o = { 0 };
	struct bg_build_config kc = { 0 };
	struct bg_strvec frags = BG_STRVEC_INIT;
	struct bg_measure m;
	const char *mode = "timing";
	unsigned long top = 20;
	bool json = false;
	int opt, ret = 1;

	o.boots = 3;
	o.progress = bg_progress_stderr;
	o.progress_data = "measure";
	while ((opt = getopt_long(argc, argv, "t:c:a:b:m:n:A:l:jT:P:K:F:C:R:", opts, NULL)) != -1) {
		switch (opt) {
		case 't': o.tree = optarg; break;
		case 'c': o.commit = optarg; break;
		case 'a':
		case 'b': o.board = optarg; break;
		case 'm': mode = optarg; break;
		case 'n': o.boots = cmd_parse_count("measure", "--boots", optarg, 1, 1000); break;
		case 'A': o.against = optarg; break;
		case 'l': o.lab = optarg; break;
		case 'j': json = true; break;
		case 'T': top = cmd_parse_count("measure", "--top", optarg, 1, 1000000); break;
		case 'P':
			o.parallel = cmd_parse_count("measure", "--parallel", optarg, 1, 64);
			break;
		case 'K': kc.base = optarg; break;
		case 'F': bg_strvec_push(&frags, optarg); break;
		case 'C': o.console = cmd_parse_console("measure", optarg); break;
		case 'R':
			kc.perf_runs = (unsigned)cmd_parse_count("measure", "--perf-runs", optarg, 0,
								 100);
			break;
		default: return cmd_option_error("measure", argv);
		}
	}
	if (optind < argc)
		return cmd_usage_error("measure", "unexpected argument '%s'", argv[optind]);
	if (!o.tree || !o.commit || !o.board)
		return cmd_usage_error("measure", "--tree, --commit and --arch (or --board) are "
				       "needed");
	if (strcmp(mode, "timing") != 0 && strcmp(mode, "deterministic") != 0)
		return cmd_usage_error("measure", "--mode is timing or deterministic, not '%s'", mode);
	o.deterministic = !strcmp(mode, "deterministic");
	kc.fragments = frags.v;
	kc.nfragments = frags.n;
	o.config = &kc;

	/* the tree, the commits and the board are checked before anything is built */
	bg_measure_init(&m);
	if (bg_measure_check(&o, &m) < 0) {
		ret = cmd_usage_error("measure", "%s", bg_error_last());
		bg_measure_release(&m);
		return ret;
	}
	if (bg_measure_run(&o, &m) < 0) {
		log_warnx("%s", bg_error_last());
		goto out;
	}
	if (json) {
		struct bg_json j;

		fflush(stdout);
		bg_json_init(&j, STDOUT_FILENO, 3);
		bg_measure_write_json(&j, &o, &m);
		if (bg_json_finish(&j) < 0) {
			log_warnx("%s", bg_error_last());
			goto out;
		}
	} else if (m.compared) {
		bg_text_printf(stdout, "%s against %s, %s mode, %s console, board %s\n", o.commit,
			       o.against, mode, bg_console_name(o.console),
			       m.run.board ? m.run.board : o.board);
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
		log_warn("cannot write the output");
		goto out;
	}
	/* every boot reached userspace: 0; a boot panicked, hung or failed: 1 (after reporting) */
	ret = m.boots_failed ? 1 : 0;
out:
	bg_measure_release(&m);
	bg_strvec_release(&frags);
	return ret;
}
