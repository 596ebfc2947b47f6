/* bootgate bench-bisect: bootgate's bisection against plain git bisect on simulated histories. */
#include <getopt.h>
#include <math.h>

#include "cmd.h"
#include "bisect-bench.h"
#include "util/error.h"
#include "util/json.h"
#include "util/log.h"
#include "util/text.h"
#include "util/xmalloc.h"
#include "decide/stats.h"

/* "F,F,...": the share of the regression each step makes, adding up to 1. */
static void parse_steps(struct bg_bb_gen *g, const char *arg)
{
	char *copy = xstrdup(arg), *p = copy;
	double sum = 0;

	g->nsteps = 0;
	for (;;) {
		char *comma = strchr(p, ',');

		if (comma)
			*comma = '\0';
		if (g->nsteps == ARRAY_SIZE(g->steps))
			exit(cmd_usage_error("bench-bisect", "--steps takes at most %zu fractions",
					     ARRAY_SIZE(g->steps)));
		g->steps[g->nsteps] = cmd_parse_real("bench-bisect", "--steps", p, 1e-6, 1);
		sum += g->steps[g->nsteps++];
		if (!comma)
			break;
		p = comma + 1;
	}
	free(copy);
	if (fabs(sum - 1) > 1e-6)
		exit(cmd_usage_error("bench-bisect", "--steps are the shares of the regression: "
				     "they add up to 1, not %g", sum));
}

/* "P,FACTOR": a share of boots that are FACTOR times slower. */
static void parse_mix(struct bg_bb_gen *g, const char *arg)
{
	char *copy = xstrdup(arg), *comma = strchr(copy, ',');

	if (!comma)
		exit(cmd_usage_error("bench-bisect", "--mix is P,FACTOR (e.g. 0.3,1.5), not '%s'",
				     arg));
	*comma = '\0';
	g->p_slow = cmd_parse_real("bench-bisect", "--mix", copy, 1e-6, 1);
	g->slow = cmd_parse_real("bench-bisect", "--mix", comma + 1, 1e-3, 1e6);
	free(copy);
}

struct row {
	const char *name;
	unsigned k;
	double accuracy, lo, hi, in_set, mean_set, mean_boots, mean_builds, mean_rounds, unknown;
	double confident_wrong;
	unsigned p95;
	bool multi;                 /* a corpus of regressions made of several commits */
	double recall, false_culprits;
};

static void to_row(const struct bg_bb_score *s, struct row *r)
{
	double n = s->histories ? (double)s->histories : 1;

	r->name = bg_bb_algo_name(s->algo);
	r->k = s->k;
	r->accuracy = (double)s->correct / n;
	bg_stats_wilson(s->correct, s->histories, 1.959963984540054, &r->lo, &r->hi);
	r->in_set = (double)s->in_set / n;
	r->mean_set = s->set_size / n;
	r->mean_boots = s->boots / n;
	r->p95 = bg_bb_score_boots_quantile(s, 0.95);
	r->mean_builds = s->builds / n;
	r->mean_rounds = s->rounds / n;
	r->unknown = (double)s->unknown / n;
	r->confident_wrong = (double)s->confident_wrong / n;
	r->multi = s->steps > s->histories;
	r->recall = s->steps ? (double)s->steps_found / (double)s->steps : 0;
	r->false_culprits = (double)s->false_culprits / n;
}

static void print_row(const struct row *r)
{
	bool git = !strcmp(r->name, "git-bisect");
	char name[32], wrong[16];

	if (!git)
		snprintf(name, sizeof(name), "%s k=%u", r->name, r->k);
	else
		snprintf(name, sizeof(name), "%s", r->name);
	/* git bisect names a commit with no posterior */
	if (!git)
		snprintf(wrong, sizeof(wrong), "%6.1f%%", 100 * r->confident_wrong);
	else
		snprintf(wrong, sizeof(wrong), "%7s", "-");
	bg_text_printf(stdout, "  %-16s %6.1f%% [%5.1f, %5.1f] %6.1f%% %6.2f %8.1f %6u %7.1f %7.1f "
			       "%6.1f%% %s", name, 100 * r->accuracy, 100 * r->lo, 100 * r->hi,
			       100 * r->in_set, r->mean_set,
			       r->mean_boots, r->p95, r->mean_builds, r->mean_rounds, 100 * r->unknown,
			       wrong);
	if (r->multi)
		bg_text_printf(stdout, "   steps found %.1f%%, false culprits %.2f", 100 * r->recall,
				       r->false_culprits);
	bg_text_printf(stdout, "\n");
}

static void json_row(struct bg_json *j, const struct row *r)
{
	bg_json_object_begin(j);
	bg_json_key(j, "name");
	bg_json_str(j, r->name);
	bg_json_key(j, "k");
	bg_json_int(j, r->k);
	bg_json_key(j, "accuracy");
	bg_json_double(j, r->accuracy);
	bg_json_key(j, "accuracy_ci");
	bg_json_array_begin(j);
	bg_json_double(j, r->lo);
	bg_json_double(j, r->hi);
	bg_json_array_end(j);
	bg_json_key(j, "in_set");
	bg_json_double(j, r->in_set);
	bg_json_key(j, "mean_set");
	bg_json_double(j, r->mean_set);
	bg_json_key(j, "mean_boots");
	bg_json_double(j, r->mean_boots);
	bg_json_key(j, "p95_boots");
	bg_json_int(j, r->p95);
	bg_json_key(j, "mean_builds");
	bg_json_double(j, r->mean_builds);
	bg_json_key(j, "mean_rounds");
	bg_json_double(j, r->mean_rounds);
	bg_json_key(j, "unknown");
	bg_json_double(j, r->unknown);
	bg_json_key(j, "confident_wrong");
	bg_json_double(j, r->confident_wrong);
	if (r->multi) {
		bg_json_key(j, "steps_found");
		bg_json_double(j, r->recall);
		bg_json_key(j, "false_culprits");
		bg_json_double(j, r->false_culprits);
	}
	bg_json_object_end(j);
}

static void bench_bisect_help(FILE *out)
{
	fprintf(out, "\n"
	       "  FILE.bb     corpora of histories (format: README, 'Bisection benchmark')\n"
	       "  --json      the figures as JSON\n"
	       "  --generate  write a corpus instead (below)\n"
	       "  --k N       parallel workers for bootgate's bisection (1)\n"
	       "  --all-steps\n"
	       "              check beside every culprit for further steps (else only when\n"
	       "              the step found clearly explains less than 80%% of the shift)\n"
	       "  --no-history\n"
	       "              bootgate learns the noise from the boots alone, as the service\n"
	       "              bisects (else it knows the lognormal noise, as from history)\n"
	       "\nRows: bootgate; git bisect, one boot a commit; model-only, the same engine\n"
	       "without its robust part (outliers around main modes, the test of the culprit's\n"
	       "boots against its parent's). wrong>0.9: the share of histories where a wrong\n"
	       "culprit was named with a posterior over 0.9.\n"
	       "\nWith --generate, writes a corpus to stdout instead:\n"
	       "  --N N       commits after the good one (128)\n"
	       "  --d D       the regression, as a fraction (0.05)\n"
	       "  --cv CV     boot-time noise, coefficient of variation (0.05)\n"
	       "  --hang P    share of boots that hang (0.01)\n"
	       "  --bf P      share of commits that do not build (0.05)\n"
	       "  --base MS   median boot time of the good commits (2500)\n"
	       "  --histories N   histories in the corpus (1000)\n"
	       "  --seed S    the generator's seed (1)\n"
	       "  --steps F,F,...\n"
	       "              a regression made of several commits, fractions of D\n"
	       "  --mix P,FACTOR\n"
	       "              bimodal noise: a share P of boots are FACTOR times slower\n"
	       "  --tails DF  heavy-tailed noise: Student's t of DF degrees for the normal\n"
	       "\nexit: 0 every corpus read, 1 a corpus could not be read, 2 usage\n");
}

/* the generator's options have no letter */
enum { O_N = 256, O_D, O_CV, O_HANG, O_BF, O_BASE, O_HIST, O_SEED, O_STEPS, O_MIX, O_TAILS,
       O_NO_HISTORY };
static const struct option bench_bisect_opts[] = {
	{ "json", no_argument, NULL, 'j' },
	{ "k", required_argument, NULL, 'k' },
	{ "generate", no_argument, NULL, 'g' },
	{ "all-steps", no_argument, NULL, 'a' },
	{ "N", required_argument, NULL, O_N },
	{ "d", required_argument, NULL, O_D },
	{ "cv", required_argument, NULL, O_CV },
	{ "hang", required_argument, NULL, O_HANG },
	{ "bf", required_argument, NULL, O_BF },
	{ "base", required_argument, NULL, O_BASE },
	{ "histories", required_argument, NULL, O_HIST },
	{ "seed", required_argument, NULL, O_SEED },
	{ "steps", required_argument, NULL, O_STEPS },
	{ "mix", required_argument, NULL, O_MIX },
	{ "tails", required_argument, NULL, O_TAILS },
	{ "no-history", no_argument, NULL, O_NO_HISTORY },
	{ NULL, 0, NULL, 0 },
};

static int cmd_bench_bisect(int argc, char **argv)
{
	struct bg_bb_gen gen;
	struct bg_json out;
	struct bg_bb_opts bo = { .k = 1 };
	bool json = false, generate = false;
	int opt, failed = 0;

	bg_bb_gen_init(&gen);
	while ((opt = getopt_long(argc, argv, "jk:ga", bench_bisect_opts, NULL)) != -1) {
		switch (opt) {
		case 'j':
			json = true;
			break;
		case 'k':
			bo.k = (unsigned)cmd_parse_count("bench-bisect", "--k", optarg, 1, 64);
			break;
		case 'g':
			generate = true;
			break;
		case 'a':
			bo.all_steps = true;
			break;
		case O_NO_HISTORY:
			bo.no_history = true;
			break;
		case O_N:
			gen.N = (int)cmd_parse_count("bench-bisect", "--N", optarg, 2, 100000);
			break;
		case O_D:
			/* no regression is no bisection: the generator plants one */
			gen.d = cmd_parse_real("bench-bisect", "--d", optarg, 1e-4, 10);
			break;
		case O_CV:
			gen.cv = cmd_parse_real("bench-bisect", "--cv", optarg, 1e-4, 5);
			break;
		case O_HANG:
			gen.hang = cmd_parse_real("bench-bisect", "--hang", optarg, 0, 0.99);
			break;
		case O_BF:
			gen.bf = cmd_parse_real("bench-bisect", "--bf", optarg, 0, 0.99);
			break;
		case O_BASE:
			gen.base = cmd_parse_real("bench-bisect", "--base", optarg, 1e-3, 1e9);
			break;
		case O_HIST:
			gen.histories = (unsigned)cmd_parse_count("bench-bisect", "--histories", optarg,
								  1, 10000000);
			break;
		case O_SEED:
			gen.seed = cmd_parse_count("bench-bisect", "--seed", optarg, 0, ULONG_MAX);
			break;
		case O_STEPS:
			parse_steps(&gen, optarg);
			break;
		case O_MIX:
			parse_mix(&gen, optarg);
			break;
		case O_TAILS:
			gen.df = (unsigned)cmd_parse_count("bench-bisect", "--tails", optarg, 2, 100);
			break;
		default:
			return cmd_option_error("bench-bisect", argv);
		}
	}
	if (generate) {
		if (optind < argc)
			return cmd_usage_error("bench-bisect", "--generate writes to stdout and "
					       "takes no corpus");
		if (gen.p_slow > 0 && gen.df)
			return cmd_usage_error("bench-bisect", "--mix and --tails are two kinds of "
					       "noise: one at a time");
		if (bg_bb_generate(stdout, &gen) < 0 || fflush(stdout) == EOF) {
			log_error("cannot write the corpus");
			return 1;
		}
		return 0;
	}
	if (optind >= argc)
		return cmd_usage_error("bench-bisect", "no corpus given");

	if (json) {
		fflush(stdout);
		bg_json_init(&out, STDOUT_FILENO, 3);
		bg_json_object_begin(&out);
		bg_json_key(&out, "corpora");
		bg_json_array_begin(&out);
	}
	for (int i = optind; i < argc; i++) {
		struct bg_bb_corpus c;
		struct bg_bb_score s[3];
		struct row r[3];

		if (bg_bb_parse(argv[i], &c) < 0) {
			log_errorx("%s", bg_error_last());
			failed = 1;
			continue;
		}
		log_info("bench-bisect: %s: %zu histories", argv[i], c.n);
		bg_bb_run(&c, BG_BB_BOOTGATE, &bo, &s[0]);
		bg_bb_run(&c, BG_BB_GIT_BISECT, &bo, &s[1]);
		bg_bb_run(&c, BG_BB_MODEL_ONLY, &bo, &s[2]);
		for (size_t a = 0; a < ARRAY_SIZE(s); a++)
			to_row(&s[a], &r[a]);
		if (json) {
			bg_json_object_begin(&out);
			bg_json_key(&out, "file");
			bg_json_str(&out, argv[i]);
			bg_json_key(&out, "scenario");
			bg_json_str(&out, c.scenario);
			bg_json_key(&out, "histories");
			bg_json_int(&out, (int64_t)c.n);
			bg_json_key(&out, "algorithms");
			bg_json_array_begin(&out);
			for (size_t a = 0; a < ARRAY_SIZE(r); a++)
				json_row(&out, &r[a]);
			bg_json_array_end(&out);
			bg_json_object_end(&out);
		} else {
			bg_text_printf(stdout, "%s: %zu histories%s%s\n", argv[i], c.n, c.scenario ? ", " : "",
					       c.scenario ? c.scenario : "");
			bg_text_printf(stdout, "  %-16s %7s %14s %7s %6s %8s %6s %7s %7s %7s %7s\n",
					       "algorithm", "accuracy", "(95% CI)", "in set", "set", "boots",
					       "p95", "builds", "rounds", "unknown", "wrong>0.9");
			for (size_t a = 0; a < ARRAY_SIZE(r); a++)
				print_row(&r[a]);
		}
		for (size_t a = 0; a < ARRAY_SIZE(s); a++)
			bg_bb_score_release(&s[a]);
		bg_bb_corpus_release(&c);
	}
	if (json) {
		bg_json_array_end(&out);
		bg_json_object_end(&out);
		if (bg_json_finish(&out) < 0) {
			log_errorx("%s", bg_error_last());
			return 1;
		}
	}
	return failed;
}

const struct bg_cmd cmd_bench_bisect_entry = {
	"bench-bisect", cmd_bench_bisect,
	"[--json] [--k N] [--all-steps] [--no-history] FILE.bb ... | --generate [--N N] [--d D] ...",
	"bootgate's noise-aware bisection against plain git bisect on simulated histories",
	bench_bisect_help, bench_bisect_opts,
};
