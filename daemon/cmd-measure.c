/*
 * bootgate measure: build a commit, boot it, read its boots, and with --against compare
 * it with another commit booted in the same run (interleaved). It drives the workers,
 * bootgate-build and bootgate-boot, as the daemon will.
 */
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>

#include "cmd.h"
#include "bootlog.h"
#include "bootlog-json.h"
#include "error.h"
#include "json.h"
#include "json-read.h"
#include "log.h"
#include "proc.h"
#include "strbuf.h"
#include "verdict.h"
#include "xmalloc.h"

/* A worker next to this program. */
static char *worker_path(const char *name)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		return xstrdup(name);
	exe[n] = '\0';
	return xasprintf("%s/%s", dirname(exe), name);
}

/* Runs a worker, its progress on our stderr; its stdout (a JSON result) is returned. */
static int run_worker(char **argv, char **out, int *exit_code)
{
	struct bg_proc_opts o = { argv, NULL, NULL, -1, -1, STDERR_FILENO };
	struct bg_proc_result r;

	if (bg_proc_capture(&o, 0, 64 << 20, out, &r) < 0)
		return -1;
	*exit_code = r.exit_code;
	return 0;
}

struct side {
	const char *rev;
	char *result;               /* the build worker's JSON */
	struct bg_json_doc *doc;
	struct bg_sample_set set;
};

static int build(const char *tree, const char *board, const char *lab, struct side *s)
{
	char *prog = worker_path("bootgate-build");
	char *argv[] = { prog, "--tree", (char *)tree, "--commit", (char *)s->rev, "--board",
			 (char *)board, lab ? "--lab" : NULL, (char *)lab, NULL };
	int code = 0, ret = -1;

	if (run_worker(argv, &s->result, &code) < 0) {
		log_warnx("%s", bg_error_last());
		goto out;
	}
	if (code == 1) {
		log_warnx("'%s' does not build (bootgate-build exit 1)", s->rev);
		goto out;
	}
	if (code) {
		log_warnx("building '%s' failed for the machine's reasons (bootgate-build exit %d)",
			  s->rev, code);
		goto out;
	}
	if (!(s->doc = bg_json_doc_parse("bootgate-build", s->result)) ||
	    !bg_json_doc_str(s->doc, "image")) {
		log_warnx("bootgate-build gave no image: %s", bg_error_last());
		goto out;
	}
	ret = 0;
out:
	free(prog);
	return ret;
}

struct collect {
	struct bg_sample_set *set;
	struct bg_json *j;          /* NULL: no JSON wanted */
	const char *file;
};

static int collect_boot(const struct bg_boot *b, void *data)
{
	struct collect *c = data;

	bg_sample_set_add_boot(c->set, b);
	if (c->j)
		bg_boot_write_json(c->j, b, c->file);
	return 0;
}

static void usage_text(void)
{
	cmd_print_help("measure");
}

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
		{ NULL, 0, NULL, 0 },
	};
	const char *tree = NULL, *board = NULL, *mode = "timing", *lab = NULL;
	struct side cand = { 0 }, base = { 0 };
	unsigned long boots = 3, top = 20;
	bool json = false, against;
	char *boot_out = NULL, boots_arg[32], *prog = NULL, *parallel = NULL;
	struct bg_json_doc *summary = NULL;
	struct bg_json j;
	int opt, code = 0, ret = 1;

	while ((opt = getopt_long(argc, argv, "t:c:a:b:m:n:A:l:jT:P:", opts, NULL)) != -1) {
		switch (opt) {
		case 't': tree = optarg; break;
		case 'c': cand.rev = optarg; break;
		case 'a':
		case 'b': board = optarg; break;
		case 'm': mode = optarg; break;
		case 'n': boots = cmd_parse_count("measure", "--boots", optarg); break;
		case 'A': base.rev = optarg; break;
		case 'l': lab = optarg; break;
		case 'j': json = true; break;
		case 'T': top = cmd_parse_count("measure", "--top", optarg); break;
		case 'P':
			cmd_parse_count("measure", "--parallel", optarg);
			parallel = optarg;
			break;
		default: return cmd_usage_error("measure", "unknown option");
		}
	}
	if (!tree || !cand.rev || !board || optind < argc) {
		usage_text();
		return 2;
	}
	if (strcmp(mode, "timing") != 0 && strcmp(mode, "deterministic") != 0)
		return cmd_usage_error("measure", "--mode is timing or deterministic, not '%s'", mode);
	if (!boots || boots > 1000)
		return cmd_usage_error("measure", "--boots takes 1 to 1000");
	against = base.rev != NULL;
	bg_sample_set_init(&cand.set);
	bg_sample_set_init(&base.set);

	/* build: one at a time (the build worker also waits for any other build) */
	fprintf(stderr, "measure: building %s\n", cand.rev);
	if (build(tree, board, lab, &cand) < 0)
		goto out;
	if (against) {
		fprintf(stderr, "measure: building %s\n", base.rev);
		if (build(tree, board, lab, &base) < 0)
			goto out;
	}

	/* boot: the base is image A, the candidate B, interleaved A B A B */
	prog = worker_path("bootgate-boot");
	snprintf(boots_arg, sizeof(boots_arg), "%lu", boots);
	{
		char *bargv[16];
		size_t n = 0;

		bargv[n++] = prog;
		bargv[n++] = "--board";
		bargv[n++] = (char *)board;
		bargv[n++] = "--boots";
		bargv[n++] = boots_arg;
		bargv[n++] = "--mode";
		bargv[n++] = (char *)mode;
		bargv[n++] = "--image";
		bargv[n++] = (char *)bg_json_doc_str(against ? base.doc : cand.doc, "image");
		if (against) {
			bargv[n++] = "--image2";
			bargv[n++] = (char *)bg_json_doc_str(cand.doc, "image");
		}
		if (lab) {
			bargv[n++] = "--lab";
			bargv[n++] = (char *)lab;
		}
		if (parallel) {
			bargv[n++] = "--parallel";
			bargv[n++] = parallel;
		}
		bargv[n] = NULL;
		fprintf(stderr, "measure: booting %lu time%s each (%s mode)\n", boots,
			boots == 1 ? "" : "s", mode);
		if (run_worker(bargv, &boot_out, &code) < 0) {
			log_warnx("%s", bg_error_last());
			goto out;
		}
	}
	if (code == 127 || code == 2 ||
	    !(summary = bg_json_doc_parse("bootgate-boot", boot_out))) {
		log_warnx("bootgate-boot failed (exit %d)", code);
		goto out;
	}

	if (json) {
		char *dump;

		fflush(stdout);
		bg_json_init(&j, STDOUT_FILENO, 3);
		bg_json_object_begin(&j);
		bg_json_key(&j, "mode");
		bg_json_str(&j, mode);
		bg_json_key(&j, "board");
		bg_json_str(&j, bg_json_doc_str(summary, "board"));
		bg_json_key(&j, "commit");
		dump = bg_json_doc_dump(cand.doc, "");
		bg_json_raw_begin(&j, strlen(dump));
		bg_strbuf_addstr(&j.out, dump);
		bg_json_raw_end(&j);
		free(dump);
		bg_json_key(&j, "against");
		if (against) {
			dump = bg_json_doc_dump(base.doc, "");
			bg_json_raw_begin(&j, strlen(dump));
			bg_strbuf_addstr(&j.out, dump);
			bg_json_raw_end(&j);
			free(dump);
		} else {
			bg_json_null(&j);
		}
		bg_json_key(&j, "boots");
		bg_json_array_begin(&j);
	}
	for (size_t i = 0; i < bg_json_doc_len(summary, "boots"); i++) {
		char key[64];
		const char *image, *outcome, *log;
		struct collect c;
		struct bg_bootlog *p;

		snprintf(key, sizeof(key), "boots.%zu.image", i);
		image = bg_json_doc_str(summary, key);
		snprintf(key, sizeof(key), "boots.%zu.outcome", i);
		outcome = bg_json_doc_str(summary, key);
		snprintf(key, sizeof(key), "boots.%zu.log", i);
		log = bg_json_doc_str(summary, key);
		if (!image || !outcome || !log)
			continue;
		c.set = against && !strcmp(image, "A") ? &base.set : &cand.set;
		c.file = log;
		c.j = json ? &j : NULL;
		if (json) {
			bg_json_object_begin(&j);
			bg_json_key(&j, "side");
			bg_json_str(&j, c.set == &base.set ? "against" : "commit");
			bg_json_key(&j, "outcome");
			bg_json_str(&j, outcome);
			snprintf(key, sizeof(key), "boots.%zu.wall_seconds", i);
			bg_json_key(&j, "wall_seconds");
			bg_json_double(&j, bg_json_doc_num(summary, key));
			bg_json_key(&j, "parsed");
		}
		/* a hang or a lab failure is never timing data: it is only counted */
		if (strcmp(outcome, "complete") != 0) {
			c.set->excluded++;
			if (json)
				bg_json_null(&j);
		} else {
			p = bg_bootlog_new(log, collect_boot, &c);
			bg_bootlog_set_warning(p, cmd_bootlog_warning);
			if (bg_bootlog_parse_path(p, log) < 0)
				log_warnx("%s", bg_error_last());
			bg_bootlog_free(p);
		}
		if (json)
			bg_json_object_end(&j);
		if (!json)
			fprintf(stderr, "measure: boot %zu (%s) %s\n", i,
				c.set == &base.set ? base.rev : cand.rev, outcome);
	}

	if (json) {
		bg_json_array_end(&j);
		bg_json_key(&j, "comparison");
	}
	if (against) {
		struct bg_compare_config cfg;
		struct bg_comparison cmp;

		bg_compare_config_init(&cfg);
		cfg.deterministic = !strcmp(mode, "deterministic");
		if (bg_compare(&base.set, &cand.set, &cfg, &cmp) < 0) {
			log_warnx("%s", bg_error_last());
			bg_compare_config_release(&cfg);
			if (json) {
				bg_json_null(&j);
				bg_json_object_end(&j);
				bg_json_finish(&j);
			}
			goto out;
		}
		if (json) {
			cmd_comparison_json(&j, &cmp, &base.set, &cand.set);
		} else {
			printf("%s against %s, %s mode, board %s\n", cand.rev, base.rev, mode, board);
			cmd_comparison_table(&cmp, &base.set, &cand.set, top, false);
		}
		bg_comparison_release(&cmp);
		bg_compare_config_release(&cfg);
	} else if (json) {
		bg_json_null(&j);
	} else {
		const struct bg_series *s = bg_sample_set_find(&cand.set, "boot.init");

		printf("%s: %u boots reached userspace, %u did not\n", cand.rev, cand.set.boots,
		       cand.set.excluded);
		if (s)
			for (size_t i = 0; i < s->n; i++)
				printf("  boot.init %.3f ms\n", s->v[i] / 1000);
	}
	if (json) {
		bg_json_object_end(&j);
		if (bg_json_finish(&j) < 0) {
			log_warnx("%s", bg_error_last());
			goto out;
		}
	}
	/* every boot reached userspace: 0; a boot panicked or hung: 1 (after reporting) */
	ret = code == 0 ? 0 : 1;
out:
	free(prog);
	free(boot_out);
	bg_json_doc_free(summary);
	bg_json_doc_free(cand.doc);
	bg_json_doc_free(base.doc);
	free(cand.result);
	free(base.result);
	bg_sample_set_release(&cand.set);
	bg_sample_set_release(&base.set);
	return ret;
}
