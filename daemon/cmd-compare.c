/* bootgate compare: same, different or unknown for every metric of two sets of boots. */
#include <math.h>

#include "cmd.h"
#include "bootlog.h"
#include "error.h"
#include "json.h"
#include "log.h"
#include "verdict.h"

static int add_boot(const struct bg_boot *b, void *data)
{
	bg_sample_set_add_boot(data, b);
	return 0;
}

/* Reads every boot of the logs into a sample set; -1 when a log cannot be read. */
static int load(char **logs, size_t n, struct bg_sample_set *set)
{
	int ret = 0;

	for (size_t i = 0; i < n; i++) {
		struct bg_bootlog *p = bg_bootlog_new(logs[i], add_boot, set);

		bg_bootlog_set_warning(p, cmd_bootlog_warning);
		if (bg_bootlog_parse_path(p, logs[i]) < 0) {
			log_warnx("%s", bg_error_last());
			ret = -1;
		}
		bg_bootlog_free(p);
	}
	return ret;
}

static void json_number(struct bg_json *j, const char *key, double v)
{
	bg_json_key(j, key);
	if (isnan(v))
		bg_json_null(j);
	else
		bg_json_double(j, v);
}

void cmd_comparison_json(struct bg_json *j, const struct bg_comparison *c,
			 const struct bg_sample_set *base, const struct bg_sample_set *cand)
{
	bg_json_object_begin(j);
	bg_json_key(j, "boots");
	bg_json_object_begin(j);
	bg_json_key(j, "base");
	bg_json_int(j, base->boots);
	bg_json_key(j, "cand");
	bg_json_int(j, cand->boots);
	bg_json_key(j, "base_excluded");
	bg_json_int(j, base->excluded);
	bg_json_key(j, "cand_excluded");
	bg_json_int(j, cand->excluded);
	bg_json_object_end(j);
	bg_json_key(j, "verdicts");
	bg_json_array_begin(j);
	for (size_t i = 0; i < c->n; i++) {
		const struct bg_verdict *v = &c->v[i];

		bg_json_object_begin(j);
		bg_json_key(j, "metric");
		bg_json_str(j, v->metric);
		bg_json_key(j, "unit");
		bg_json_str(j, "us");
		bg_json_key(j, "verdict");
		bg_json_str(j, bg_verdict_name(v->verdict));
		json_number(j, "base_median", v->base_median);
		json_number(j, "cand_median", v->cand_median);
		json_number(j, "delta", v->delta);
		json_number(j, "delta_pct", v->delta_pct);
		bg_json_key(j, "ci");
		bg_json_array_begin(j);
		if (isnan(v->ci_lo)) {
			bg_json_null(j);
			bg_json_null(j);
		} else {
			bg_json_double(j, v->ci_lo);
			bg_json_double(j, v->ci_hi);
		}
		bg_json_array_end(j);
		json_number(j, "p", v->p);
		json_number(j, "q", v->q);
		bg_json_key(j, "n_base");
		bg_json_int(j, (int64_t)v->n_base);
		bg_json_key(j, "n_cand");
		bg_json_int(j, (int64_t)v->n_cand);
		bg_json_key(j, "more_boots");
		bg_json_int(j, v->more_boots);
		bg_json_key(j, "exact");
		bg_json_bool(j, v->exact);
		bg_json_object_end(j);
	}
	bg_json_array_end(j);
	bg_json_key(j, "attribution");
	bg_json_array_begin(j);
	for (size_t i = 0; i < c->na; i++) {
		bg_json_object_begin(j);
		bg_json_key(j, "metric");
		bg_json_str(j, c->a[i].metric);
		bg_json_key(j, "delta");
		bg_json_double(j, c->a[i].delta);
		bg_json_key(j, "share");
		bg_json_double(j, c->a[i].share);
		bg_json_object_end(j);
	}
	bg_json_array_end(j);
	bg_json_object_end(j);
}

static int print_json(const struct bg_comparison *c, const struct bg_sample_set *base,
		      const struct bg_sample_set *cand)
{
	struct bg_json j;

	fflush(stdout);
	bg_json_init(&j, STDOUT_FILENO, 2);
	cmd_comparison_json(&j, c, base, cand);
	return bg_json_finish(&j);
}

static void fmt(char *buf, size_t size, const char *f, double v)
{
	if (isnan(v))
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, f, v);
}

void cmd_comparison_table(const struct bg_comparison *c, const struct bg_sample_set *base,
			  const struct bg_sample_set *cand, size_t top, bool all)
{
	size_t counts[3] = { 0 }, shown = 0;

	for (size_t i = 0; i < c->n; i++)
		counts[c->v[i].verdict]++;
	printf("base: %u boots (%u excluded)   candidate: %u boots (%u excluded)\n", base->boots,
	       base->excluded, cand->boots, cand->excluded);
	printf("%zu metrics: %zu different, %zu unknown, %zu same\n\n", c->n,
	       counts[BG_DIFFERENT], counts[BG_UNKNOWN], counts[BG_SAME]);
	printf("%-40s %-9s %11s %11s %11s %8s %23s %9s %5s\n", "metric", "verdict", "base us",
	       "cand us", "delta us", "delta %", "95% interval", "q", "more");
	for (size_t i = 0; i < c->n && (all || shown < top); i++) {
		const struct bg_verdict *v = &c->v[i];
		char bm[32], cm[32], d[32], dp[32], ci[64], q[32];

		if (v->verdict == BG_SAME && !all)
			continue;
		fmt(bm, sizeof(bm), "%.0f", v->base_median);
		fmt(cm, sizeof(cm), "%.0f", v->cand_median);
		fmt(d, sizeof(d), "%+.0f", v->delta);
		fmt(dp, sizeof(dp), "%+.1f", v->delta_pct);
		fmt(q, sizeof(q), "%.2g", v->q);
		if (isnan(v->ci_lo))
			snprintf(ci, sizeof(ci), "-");
		else
			snprintf(ci, sizeof(ci), "[%+.0f, %+.0f]", v->ci_lo, v->ci_hi);
		printf("%-40s %-9s %11s %11s %11s %8s %23s %9s %5u%s\n", v->metric,
		       bg_verdict_name(v->verdict), bm, cm, d, dp, ci, q, v->more_boots,
		       v->exact ? "  (repeatable: exact)" : "");
		shown++;
	}
	if (c->na) {
		printf("\nboot.init moved; what explains it:\n");
		for (size_t i = 0; i < c->na; i++)
			printf("  %-40s %+11.0f us  %5.1f%% of the shift\n", c->a[i].metric,
			       c->a[i].delta, 100 * c->a[i].share);
	}
}

int cmd_compare(int argc, char **argv)
{
	struct bg_compare_config cfg;
	struct bg_sample_set base, cand;
	struct bg_comparison c;
	char **base_logs = calloc((size_t)argc, sizeof(char *));
	char **cand_logs = calloc((size_t)argc, sizeof(char *));
	size_t nb = 0, nc = 0, top = 20;
	bool json = false, all = false;
	int side = 0, ret = 0;

	if (!base_logs || !cand_logs)
		fatalx("out of memory");
	bg_compare_config_init(&cfg);
	/* --base and --cand take every following argument up to the next option */
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--json")) {
			json = true;
		} else if (!strcmp(a, "--all")) {
			all = true;
		} else if (!strcmp(a, "--base")) {
			side = 1;
		} else if (!strcmp(a, "--cand")) {
			side = 2;
		} else if (!strcmp(a, "--top") || !strcmp(a, "--threshold")) {
			if (i + 1 >= argc) {
				ret = cmd_usage_error("compare", "%s needs a value", a);
				goto out;
			}
			if (!strcmp(a, "--top")) {
				top = cmd_parse_count("compare", "--top", argv[++i]);
			} else if (bg_compare_config_add_threshold(&cfg, argv[++i]) < 0) {
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
	bg_sample_set_init(&base);
	bg_sample_set_init(&cand);
	if (load(base_logs, nb, &base) < 0 || load(cand_logs, nc, &cand) < 0) {
		ret = 1;
	} else if (bg_compare(&base, &cand, &cfg, &c) < 0) {
		log_warnx("%s", bg_error_last());
		ret = 1;
	} else {
		if (json)
			ret = print_json(&c, &base, &cand) < 0 ? 1 : 0;
		else
			cmd_comparison_table(&c, &base, &cand, top, all);
		if (ret)
			log_warnx("%s", bg_error_last());
		bg_comparison_release(&c);
	}
	bg_sample_set_release(&base);
	bg_sample_set_release(&cand);
out:
	bg_compare_config_release(&cfg);
	free(base_logs);
	free(cand_logs);
	return ret;
}
