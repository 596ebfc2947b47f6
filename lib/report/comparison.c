/* The comparison's table and JSON (comparison.h). */
#include <math.h>

#include "report/comparison.h"
#include "util/text.h"

/* A number, or null for NaN (what bg_json_double writes for what is not finite). */
static void json_number(struct bg_json *j, const char *key, double v)
{
	bg_json_key(j, key);
	bg_json_double(j, v);
}

void bg_comparison_write_json(struct bg_json *j, const struct bg_comparison *c,
			      const struct bg_sample_set *base, const struct bg_sample_set *cand)
{
	bg_json_object_begin(j);
	bg_comparison_write_boots(j, base->boots, base->excluded, cand->boots, cand->excluded);
	bg_comparison_write_members(j, c);
	bg_json_object_end(j);
}

void bg_comparison_write_boots(struct bg_json *j, unsigned base, unsigned base_excluded,
			       unsigned cand, unsigned cand_excluded)
{
	bg_json_key(j, "boots");
	bg_json_object_begin(j);
	bg_json_key(j, "base");
	bg_json_int(j, base);
	bg_json_key(j, "cand");
	bg_json_int(j, cand);
	bg_json_key(j, "base_excluded");
	bg_json_int(j, base_excluded);
	bg_json_key(j, "cand_excluded");
	bg_json_int(j, cand_excluded);
	bg_json_object_end(j);
}

void bg_comparison_write_verdict(struct bg_json *j, const struct bg_verdict *v)
{
	bg_json_object_begin(j);
	bg_json_key(j, "metric");
	bg_json_str(j, v->metric);
	bg_json_key(j, "unit");
	bg_json_str(j, "us");
	bg_json_key(j, "verdict");
	bg_json_str(j, bg_verdict_name(v->verdict));
	json_number(j, "base_median", v->base_median);
	json_number(j, "cand_median", v->cand_median);
	json_number(j, "mad_base", v->mad_base);
	json_number(j, "mad_cand", v->mad_cand);
	json_number(j, "delta", v->delta);
	json_number(j, "delta_pct", v->delta_pct);
	bg_json_key(j, "ci");
	bg_json_array_begin(j);
	bg_json_double(j, v->ci_lo);
	bg_json_double(j, v->ci_hi);
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

void bg_comparison_write_members(struct bg_json *j, const struct bg_comparison *c)
{
	bg_json_key(j, "verdicts");
	bg_json_array_begin(j);
	for (size_t i = 0; i < c->n; i++)
		bg_comparison_write_verdict(j, &c->v[i]);
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
}

static void fmt(char *buf, size_t size, const char *f, double v)
{
	if (isnan(v))
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, f, v);
}

void bg_comparison_print(FILE *f, const struct bg_comparison *c, const struct bg_sample_set *base,
			 const struct bg_sample_set *cand, size_t top, bool all)
{
	struct bg_strbuf line = BG_STRBUF_INIT;
	size_t counts[3] = { 0 }, shown = 0;

	for (size_t i = 0; i < c->n; i++)
		counts[c->v[i].verdict]++;
	bg_text_printf(f, "base: %u boots (%u excluded)   candidate: %u boots (%u excluded)\n",
		       base->boots, base->excluded, cand->boots, cand->excluded);
	bg_text_printf(f, "%zu metrics: %zu different, %zu unknown, %zu same\n\n", c->n,
		       counts[BG_DIFFERENT], counts[BG_UNKNOWN], counts[BG_SAME]);
	bg_text_printf(f, "%-40s %-9s %11s %11s %11s %8s %23s %9s %5s\n", "metric", "verdict",
		       "base us", "cand us", "delta us", "delta %", "95% interval", "q", "more");
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
		bg_strbuf_reset(&line);
		bg_text_cell(&line, v->metric, 40);
		bg_strbuf_addf(&line, " %-9s %11s %11s %11s %8s %23s %9s %5u%s\n",
			       bg_verdict_name(v->verdict), bm, cm, d, dp, ci, q, v->more_boots,
			       v->exact ? "  (repeatable: exact)" : "");
		fputs(line.buf, f);
		shown++;
	}
	if (c->na) {
		bg_text_printf(f, "\nboot.init moved; what explains it:\n");
		for (size_t i = 0; i < c->na; i++) {
			bg_strbuf_reset(&line);
			bg_strbuf_addstr(&line, "  ");
			bg_text_cell(&line, c->a[i].metric, 40);
			bg_strbuf_addf(&line, " %+11.0f us  %5.1f%% of the shift\n", c->a[i].delta,
				       100 * c->a[i].share);
			fputs(line.buf, f);
		}
	}
	bg_strbuf_release(&line);
}


const char *bg_pct_text(char *buf, size_t n, double pct)
{
	if (isfinite(pct))
		snprintf(buf, n, "%+.1f%%", pct);
	else
		snprintf(buf, n, "from 0");
	return buf;
}

void bg_revert_text(struct bg_strbuf *t, int applies, const struct bg_verdict *revert,
		    double regression_us)
{
	struct bg_restore r;

	if (applies == 0) {
		bg_strbuf_addstr(t, "a revert of it does not apply to the bad tip");
		return;
	}
	if (applies != 1)
		return;
	bg_revert_judge(revert, regression_us, true, &r);
	if (isnan(r.restored_us)) {
		bg_strbuf_addstr(t, "a revert of it applies to the bad tip, but was not measured");
		return;
	}
	bg_strbuf_addf(t, "reverting it on the bad tip restores %.0f \xc2\xb5s", r.restored_us);
	if (!isnan(r.regression_us))
		bg_strbuf_addf(t, " of %.0f", r.regression_us);
	if (!isnan(r.share))
		bg_strbuf_addf(t, " (%.0f%%)", 100 * r.share);
	bg_strbuf_addf(t, ": %s", bg_verdict_name(revert->verdict));
}
