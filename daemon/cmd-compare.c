/* bootgate compare: same, different or unknown for every metric of two sets of boots. */
#include "cmd.h"
#include "lab/samples.h"
#include "parse/bootlog.h"
#include "report/comparison.h"
#include "util/error.h"
#include "util/json.h"
#include "util/log.h"
#include "util/xmalloc.h"

/* One side's boots, and the arch family their lines show. */
struct side {
	const char *name;           /* "base" or "candidate" */
	struct bg_sample_set set;
	const char *arch;           /* the first boot's family, or NULL */
	char *arch_where;           /* which log showed it */
	char *mixed;                /* why this side mixes arches, or NULL */
	const char *file;           /* the log being read */
	unsigned refused;           /* boots with a value the verdict refuses */
};

static int add_boot(const struct bg_boot *b, void *data)
{
	struct side *s = data;

	if (b->arch && !s->arch) {
		s->arch = b->arch;
		s->arch_where = xstrdup(s->file);
	} else if (b->arch && strcmp(b->arch, s->arch) != 0 && !s->mixed) {
		s->mixed = xasprintf("%s boot %u is %s, but %s is %s", s->file, b->index, b->arch,
				     s->arch_where, s->arch);
	}
	if (bg_sample_set_add_boot(&s->set, b) < 0) {
		log_warnx("%s: boot %u: %s", s->file, b->index, bg_error_last());
		s->refused++;
	}
	return 0;
}

/* Reads every boot of every log; a log that cannot be read is named and skipped. */
static int load(char **logs, size_t n, struct side *s)
{
	int ret = 0;

	for (size_t i = 0; i < n; i++) {
		struct bg_bootlog *p = bg_bootlog_new(logs[i], add_boot, s);

		s->file = logs[i];
		bg_bootlog_set_warning(p, cmd_bootlog_warning);
		if (bg_bootlog_parse_path(p, logs[i]) < 0) {
			log_errorx("%s", bg_error_last());
			ret = -1;
		}
		bg_bootlog_free(p);
	}
	return ret;
}

static void side_release(struct side *s)
{
	bg_sample_set_release(&s->set);
	free(s->arch_where);
	free(s->mixed);
}

/* Whether the two sides can be compared at all; says why not. */
static bool comparable(const struct side *base, const struct side *cand)
{
	const struct side *sides[2] = { base, cand };

	for (int i = 0; i < 2; i++) {
		if (sides[i]->mixed) {
			log_errorx("the %s mixes arches: %s", sides[i]->name, sides[i]->mixed);
			return false;
		}
		if (!sides[i]->set.boots) {
			log_errorx("no boot of the %s reached init (%u left out): nothing to compare",
				  sides[i]->name, sides[i]->set.excluded);
			return false;
		}
	}
	return cmd_arches_comparable("the base", base->arch, base->arch_where, "the candidate",
				     cand->arch, cand->arch_where);
}

/* A threshold whose pattern matches no metric is most likely a typo. */
static void warn_unused_thresholds(const struct bg_compare_config *cfg,
				   const struct bg_comparison *c)
{
	for (size_t t = 0; t < cfg->nthresholds; t++) {
		bool used = false;

		for (size_t i = 0; i < c->n && !used; i++)
			used = bg_threshold_matches(cfg->thresholds[t].pattern, c->v[i].metric);
		if (!used)
			log_warnx("threshold '%s' matches no metric of these boots",
				  cfg->thresholds[t].pattern);
	}
}

static void compare_help(FILE *out)
{
	fprintf(out, "\n"
	       "  --base LOG...   boots of the base kernel (every boot of every log)\n"
	       "  --cand LOG...   boots of the candidate\n"
	       "  --json          every metric's verdict, and the attribution, as JSON\n"
	       "  --top N         rows shown (20)\n"
	       "  --all           the metrics judged same too\n"
	       "  --threshold P=PCT%%[:US]  a practical threshold for metrics matching P\n"
	       "                  (a name or a prefix ending in *), e.g. 'initcall.*=10%%:2000'\n"
	       "\nDefaults: boot.* 2%% and 1 ms; initcall.* and probe.* 5%% and 1 ms. Where\n"
	       "several patterns match, the most specific wins (a name, then the longest\n"
	       "prefix). Boots that never reached init are left out and counted.\n"
	       "\nexit: 0 compared, 1 a log could not be read (the others are compared) or\n"
	       "the boots cannot be compared (no boot reached init on a side, arches\n"
	       "mixed), 2 usage\n");
}

/*
 * Read by hand, not by getopt_long (--base and --cand take every following argument up
 * to the next option), from this table all the same: the help is held against it.
 */
static const struct option compare_opts[] = {
	{ "json", no_argument, NULL, 'j' },
	{ "all", no_argument, NULL, 'a' },
	{ "base", no_argument, NULL, 'b' },
	{ "cand", no_argument, NULL, 'c' },
	{ "top", required_argument, NULL, 't' },
	{ "threshold", required_argument, NULL, 'T' },
	{ NULL, 0, NULL, 0 },
};

/* The option of compare_opts that a is, or NULL. */
static const struct option *compare_opt(const char *a)
{
	for (const struct option *o = compare_opts; a[0] == '-' && a[1] == '-' && o->name; o++)
		if (!strcmp(a + 2, o->name))
			return o;
	return NULL;
}

static int cmd_compare(int argc, char **argv)
{
	struct bg_compare_config cfg;
	struct side base = { .name = "base" }, cand = { .name = "candidate" };
	struct bg_comparison c;
	char **base_logs = xcalloc((size_t)argc, sizeof(char *));
	char **cand_logs = xcalloc((size_t)argc, sizeof(char *));
	size_t nb = 0, nc = 0, top = 20;
	bool json = false, all = false, top_given = false, unreadable;
	int side = 0, ret = 0;

	bg_compare_config_init(&cfg);
	/* --base and --cand take every following argument up to the next option */
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const struct option *o = compare_opt(a);

		if (o && o->has_arg && i + 1 >= argc) {
			ret = cmd_usage_error("compare", "%s needs a value", a);
			goto out;
		}
		if (o && o->val == 'j') {
			json = true;
		} else if (o && o->val == 'a') {
			all = true;
		} else if (o && o->val == 'b') {
			side = 1;
		} else if (o && o->val == 'c') {
			side = 2;
		} else if (o && o->val == 't') {
			top = cmd_parse_count("compare", "--top", argv[++i], 1, 1000000);
			top_given = true;
			side = 0;
		} else if (o && o->val == 'T') {
			if (bg_compare_config_add_threshold(&cfg, argv[++i]) < 0) {
				ret = cmd_usage_error("compare", "%s", bg_error_last());
				goto out;
			}
			side = 0;
		} else if (a[0] == '-' && a[1]) {
			ret = cmd_usage_error("compare", "unknown option '%s'", a);
			goto out;
		} else if (side == 1) {
			base_logs[nb++] = argv[i];
		} else if (side == 2) {
			cand_logs[nc++] = argv[i];
		} else {
			ret = cmd_usage_error("compare", "'%s': say whether it is --base or --cand", a);
			goto out;
		}
	}
	if (!nb || !nc) {
		ret = cmd_usage_error("compare", "needs logs after --base and after --cand");
		goto out;
	}
	/* --all shows every row: a --top beside it would be ignored without a word */
	if (all && top_given) {
		ret = cmd_usage_error("compare", "--top and --all: one or the other");
		goto out;
	}
	bg_sample_set_init(&base.set);
	bg_sample_set_init(&cand.set);
	/* a log that cannot be read is named; the others are still compared, and exit 1 */
	unreadable = load(base_logs, nb, &base) < 0;
	unreadable |= load(cand_logs, nc, &cand) < 0;
	if (!comparable(&base, &cand)) {
		ret = 1;
	} else if (bg_compare(&base.set, &cand.set, &cfg, &c) < 0) {
		log_errorx("%s", bg_error_last());
		ret = 1;
	} else {
		warn_unused_thresholds(&cfg, &c);
		if (json) {
			struct bg_json j;

			fflush(stdout);
			bg_json_init(&j, STDOUT_FILENO, 2);
			bg_comparison_write_json(&j, &c, &base.set, &cand.set);
			if (bg_json_finish(&j) < 0) {
				log_errorx("%s", bg_error_last());
				ret = 1;
			}
		} else {
			bg_comparison_print(stdout, &c, &base.set, &cand.set, top, all);
			if (fflush(stdout) == EOF) {
				log_error("cannot write the output");
				ret = 1;
			}
		}
		bg_comparison_release(&c);
		if (unreadable || base.refused || cand.refused)
			ret = 1;
	}
	side_release(&base);
	side_release(&cand);
out:
	bg_compare_config_release(&cfg);
	free(base_logs);
	free(cand_logs);
	return ret;
}

const struct bg_cmd cmd_compare_entry = {
	"compare", cmd_compare,
	"[--json] [--top N | --all] [--threshold PATTERN=PCT%[:US]]... --base LOG... --cand LOG...",
	"same, different or unknown for every metric of two sets of boots",
	compare_help, compare_opts,
};
