/*
 * Same, different or unknown for every metric of two sets of boots (verdict.h). The rule
 * follows Pinpoint's three-way structure with a magnitude floor as Perfherder and LKP
 * have: different needs significance after Benjamini-Hochberg over all metrics, with the
 * error split over the looks (5, 10, 20 ... 320 boots), and a change beyond the metric's
 * practical threshold; same needs the shift's interval inside that threshold.
 */
#include <math.h>

#include "decide/verdict.h"
#include "util/error.h"
#include "util/num.h"
#include "decide/stats.h"
#include "util/xmalloc.h"

/* ---- sample sets ---- */

void bg_sample_set_init(struct bg_sample_set *set)
{
	memset(set, 0, sizeof(*set));
}

void bg_sample_set_release(struct bg_sample_set *set)
{
	for (size_t i = 0; i < set->n; i++) {
		free(set->s[i].metric);
		free(set->s[i].v);
	}
	free(set->s);
	bg_strmap_release(&set->index);
	memset(set, 0, sizeof(*set));
}

/* Work a boot did not print is zero work: initcalls and probes, not milestones. */
static bool zero_when_absent(const char *metric)
{
	return !strncmp(metric, "initcall.", 9) || !strncmp(metric, "probe.", 6);
}

static struct bg_series *find_or_add(struct bg_sample_set *set, const char *metric)
{
	struct bg_series *s;
	ssize_t i;

	/* boots of one kernel print their metrics in the same order: try the next one */
	if (set->hint < set->n && !strcmp(set->s[set->hint].metric, metric))
		return &set->s[set->hint++];
	if ((i = bg_strmap_get(&set->index, metric)) >= 0) {
		set->hint = (size_t)i + 1;
		return &set->s[i];
	}
	ALLOC_GROW(set->s, set->n + 1, set->alloc);
	s = &set->s[set->n];
	memset(s, 0, sizeof(*s));
	s->metric = xstrdup(metric);
	bg_strmap_put(&set->index, s->metric, set->n);
	set->hint = ++set->n;
	return s;
}

static void series_push(struct bg_series *s, double v)
{
	ALLOC_GROW(s->v, s->n + 1, s->alloc);
	s->v[s->n++] = v;
}

void bg_sample_set_boot_begin(struct bg_sample_set *set)
{
	set->hint = 0;
	set->refused = false;
}

int bg_sample_set_boot_add(struct bg_sample_set *set, const char *metric, double usecs)
{
	struct bg_series *s;

	if (bg_stats_check(&usecs, 1, metric) < 0) {
		set->refused = true;
		return -1;
	}
	s = find_or_add(set, metric);
	if (zero_when_absent(metric))
		while (s->n < set->boots)
			series_push(s, 0);     /* earlier boots did none of this work */
	if (s->added_in != set->boots + 1)
		s->boot_first = s->n;
	series_push(s, usecs);
	s->added_in = set->boots + 1;
	return 0;
}

int bg_sample_set_boot_end(struct bg_sample_set *set)
{
	if (set->refused) {
		/* the boot's values go again, each repeat too: a boot counts whole or not at all */
		for (size_t i = 0; i < set->n; i++)
			if (set->s[i].added_in == set->boots + 1) {
				set->s[i].n = set->s[i].boot_first;
				set->s[i].added_in = 0;
			}
		set->refused = false;
		set->excluded++;
		return bg_error("a boot with a value that is no duration was left out");
	}
	set->boots++;
	for (size_t i = 0; i < set->n; i++)
		if (zero_when_absent(set->s[i].metric))
			while (set->s[i].n < set->boots)
				series_push(&set->s[i], 0);
	return 0;
}

void bg_sample_set_exclude(struct bg_sample_set *set)
{
	set->excluded++;
}

int bg_sample_set_add(struct bg_sample_set *set, const char *metric, double usecs)
{
	if (bg_stats_check(&usecs, 1, metric) < 0)
		return -1;
	set->hint = 0;
	series_push(find_or_add(set, metric), usecs);
	return 0;
}

const struct bg_series *bg_sample_set_find(const struct bg_sample_set *set, const char *metric)
{
	ssize_t i = bg_strmap_get(&set->index, metric);

	return i >= 0 ? &set->s[i] : NULL;
}

/* ---- thresholds ---- */

void bg_compare_config_init(struct bg_compare_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->alpha = 0.05;
	cfg->beta = 0.05;
}

void bg_compare_config_release(struct bg_compare_config *cfg)
{
	for (size_t i = 0; i < cfg->nthresholds; i++)
		free(cfg->thresholds[i].pattern);
	free(cfg->thresholds);
	cfg->thresholds = NULL;
	cfg->nthresholds = 0;
}

void bg_compare_config_copy(struct bg_compare_config *dst,
			    const struct bg_compare_config *src)
{
	*dst = *src;
	dst->thresholds = xcalloc(src->nthresholds ? src->nthresholds : 1,
				  sizeof(*dst->thresholds));
	for (size_t i = 0; i < src->nthresholds; i++) {
		dst->thresholds[i] = src->thresholds[i];
		dst->thresholds[i].pattern = xstrdup(src->thresholds[i].pattern);
	}
}

int bg_threshold_pattern_check(const char *pattern)
{
	if (!*pattern)
		return bg_error("the pattern is empty");
	for (const char *p = pattern; *p; p++) {
		/* names are printed one a line and split on white space: none can hold one */
		if ((unsigned char)*p <= ' ' || *p == 0x7f)
			return bg_error("the pattern holds a space or a control character");
		/* "initcall.*_init" would be a name no metric has, never a suffix match */
		if (*p == '*' && p[1])
			return bg_error("'*' may only end the pattern");
	}
	return 0;
}

/* The threshold PATTERN with VALUE "PCT%[:ABS_US]"; -1 with why, naming neither. */
static int add_threshold(struct bg_compare_config *cfg, const char *pattern, const char *value)
{
	const char *p = value;
	char *num;
	double pct, abs_us = 0;
	size_t n;
	int bad;

	if (bg_threshold_pattern_check(pattern) < 0)
		return -1;
	n = bg_num_decimal_len(p);
	num = xstrndup(p, n);
	bad = !n || p[n] != '%' || bg_num_parse_double(num, 0, 1000, &pct) < 0;
	free(num);
	if (bad)
		return bg_error("the percentage must read like 5%% (0 to 1000)");
	for (size_t i = 0; i < cfg->nthresholds; i++)
		if (!strcmp(cfg->thresholds[i].pattern, pattern))
			return bg_error("its pattern is given twice");
	p += n + 1;
	if (*p == ':') {
		if (bg_num_parse_double(p + 1, 0, BG_STATS_MAX_VALUE, &abs_us) < 0)
			return bg_error("the absolute floor must be microseconds");
	} else if (*p) {
		return bg_error("unexpected '%s' after the percentage", p);
	}
	cfg->thresholds = xreallocarray(cfg->thresholds, cfg->nthresholds + 1,
					sizeof(*cfg->thresholds));
	cfg->thresholds[cfg->nthresholds++] = (struct bg_threshold){ xstrdup(pattern), pct / 100,
								      abs_us };
	return 0;
}

int bg_compare_config_add_threshold(struct bg_compare_config *cfg, const char *spec)
{
	const char *eq = strchr(spec, '=');
	char *pattern;
	int ret;

	if (!eq || eq == spec)
		return bg_error("threshold '%s': expected PATTERN=PCT%%[:ABS_US]", spec);
	pattern = xstrndup(spec, (size_t)(eq - spec));
	ret = add_threshold(cfg, pattern, eq + 1);
	free(pattern);
	if (ret < 0)
		return bg_error("threshold '%s': %s", spec, bg_error_last());
	return 0;
}

int bg_compare_config_add_threshold_pair(struct bg_compare_config *cfg, const char *pattern,
					 const char *value)
{
	if (add_threshold(cfg, pattern, value) < 0)
		return bg_error("threshold '%s': %s", pattern, bg_error_last());
	return 0;
}

bool bg_threshold_matches(const char *pattern, const char *metric)
{
	size_t n = strlen(pattern);

	if (n && pattern[n - 1] == '*')
		return !strncmp(pattern, metric, n - 1);
	return !strcmp(pattern, metric);
}

/* How specific a pattern is: an exact name beats any prefix, a longer prefix a shorter. */
static size_t specificity(const char *pattern)
{
	size_t n = strlen(pattern);

	return n && pattern[n - 1] == '*' ? n - 1 : SIZE_MAX;
}

struct bg_threshold bg_compare_threshold(const struct bg_compare_config *cfg, const char *metric)
{
	const struct bg_threshold *best = NULL;

	for (size_t i = 0; i < cfg->nthresholds; i++)
		if (bg_threshold_matches(cfg->thresholds[i].pattern, metric) &&
		    (!best || specificity(cfg->thresholds[i].pattern) > specificity(best->pattern)))
			best = &cfg->thresholds[i];
	if (best)
		return *best;
	/*
	 * The whole boot: 2% (Perfherder's default) and 1 ms. An initcall or a probe: 5% and
	 * 1 ms (LKP's 5% ratio; the floor because a 20 µs initcall's percentages say nothing).
	 */
	if (!strncmp(metric, "boot.", 5))
		return (struct bg_threshold){ NULL, 0.02, 1000 };
	return (struct bg_threshold){ NULL, 0.05, 1000 };
}

/* ---- the verdict ---- */

const struct bg_verdict *bg_comparison_find(const struct bg_comparison *c, const char *metric)
{
	for (size_t i = 0; metric && i < c->n; i++)
		if (!strcmp(c->v[i].metric, metric))
			return &c->v[i];
	return NULL;
}

double bg_change_pct(double delta_us, double base_us)
{
	return base_us > 0 ? 100 * delta_us / base_us : NAN;
}

void bg_compare_config_for_revert(struct bg_compare_config *dst,
				  const struct bg_compare_config *src, const char *metric,
				  double regression_us)
{
	struct bg_threshold t = { NULL, 0, BG_REVERT_MIN_SHARE * regression_us };

	bg_compare_config_copy(dst, src);
	if (!(regression_us > 0) || !metric)
		return;
	/* the metric's own name is the most specific match: it wins over any pattern */
	for (size_t i = 0; i < dst->nthresholds; i++)
		if (!strcmp(dst->thresholds[i].pattern, metric)) {
			t.pattern = dst->thresholds[i].pattern;
			dst->thresholds[i] = t;
			return;
		}
	t.pattern = xstrdup(metric);
	dst->thresholds = xreallocarray(dst->thresholds, dst->nthresholds + 1,
					sizeof(*dst->thresholds));
	dst->thresholds[dst->nthresholds++] = t;
}

void bg_revert_judge(const struct bg_verdict *v, double regression_us, bool decided,
		     struct bg_restore *out)
{
	out->restored_us = v ? v->delta : NAN;
	out->regression_us = regression_us > 0 ? regression_us : NAN;
	out->share = isnan(out->regression_us) ? NAN : out->restored_us / out->regression_us;
	out->restores = v && v->verdict == BG_DIFFERENT && v->delta > 0;
	out->contradicts = v && !out->restores && (v->verdict != BG_UNKNOWN || decided);
}

void bg_headline_pick(const struct bg_verdict *step, bool step_deterministic,
		      const struct bg_verdict *timing, struct bg_headline *out)
{
	out->paid = step;
	out->exact = NULL;
	out->ratio = NAN;
	if (!timing || !step_deterministic)
		return;
	out->paid = timing;
	out->exact = step;
	if (step && !isnan(step->delta) && !isnan(timing->delta) && timing->delta != 0)
		out->ratio = step->delta / timing->delta;
}

const char *bg_verdict_name(enum bg_verdict_kind v)
{
	return v == BG_SAME ? "same" : v == BG_DIFFERENT ? "different" : "unknown";
}

/*
 * Log of microseconds, floored at 1 µs so zero-work boots stay finite, then clipped at 4
 * robust standard deviations (1.4826 MAD) around the median: a host stall lands inside
 * whatever initcall runs (an 80 µs initcall read 22 ms in 2 of 6 boots here), and one such
 * boot must not decide a t test.
 */
static double *logs_of(const double *v, size_t n)
{
	double *l = xmalloc((n ? n : 1) * sizeof(*l)), md, s;

	for (size_t i = 0; i < n; i++)
		l[i] = log(fmax(v[i], 1.0));
	/* a median and a MAD of fewer boots than the first look say too little to clip by */
	if (n >= BG_VERDICT_FIRST_LOOK) {
		md = bg_stats_median(l, n);
		s = bg_stats_mad(l, n);
		if (s > 0)
			for (size_t i = 0; i < n; i++)
				l[i] = fmin(fmax(l[i], md - 4 * s), md + 4 * s);
	}
	return l;
}

/*
 * Whether v[0..n) lies on a grid: at most half its values are distinct (durations on the
 * 4 ms jiffies grid before the clocksource switch read 0, 4000, 8000). One coincidental
 * repeat is not a grid.
 */
static bool on_a_grid(const double *v, size_t n)
{
	double *s = xmalloc((n ? n : 1) * sizeof(*s));
	size_t distinct = n ? 1 : 0;

	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), bg_stats_cmp_double);
	for (size_t i = 1; i < n; i++)
		distinct += s[i] != s[i - 1];
	free(s);
	return 2 * distinct <= n;
}

static bool all_equal(const struct bg_series *s)
{
	for (size_t i = 1; i < s->n; i++)
		if (s->v[i] != s->v[0])
			return false;
	return s->n > 0;
}

/* Whether both sides read the same value in every boot. */
static bool repeatable(const struct bg_sample_set *base, const struct bg_sample_set *cand,
		       const char *metric)
{
	const struct bg_series *a = bg_sample_set_find(base, metric);
	const struct bg_series *b = bg_sample_set_find(cand, metric);

	return a && b && all_equal(a) && all_equal(b);
}

static unsigned boots_to_next_look(size_t n)
{
	size_t look = BG_VERDICT_FIRST_LOOK;

	for (int i = 0; i < BG_VERDICT_LOOKS; i++, look *= 2)
		if (look > n)
			return (unsigned)(look - n);
	return 0;
}

static int verdict_rank(const struct bg_verdict *v)
{
	return v->verdict == BG_DIFFERENT ? 0 : v->verdict == BG_UNKNOWN ? 1 : 2;
}

static int cmp_verdict(const void *x, const void *y)
{
	const struct bg_verdict *a = x, *b = y;
	double da = isnan(a->delta) ? -1 : fabs(a->delta), db = isnan(b->delta) ? -1 : fabs(b->delta);

	if (verdict_rank(a) != verdict_rank(b))
		return verdict_rank(a) - verdict_rank(b);
	if (da != db)
		return da < db ? 1 : -1;
	return strcmp(a->metric, b->metric);
}

static int cmp_attribution(const void *x, const void *y)
{
	const struct bg_attribution *a = x, *b = y;

	if (a->share != b->share)
		return a->share < b->share ? 1 : -1;
	return strcmp(a->metric, b->metric);
}

static void add_metric_name(char ***names, size_t *n, size_t *alloc, struct bg_strmap *seen,
			    char *m)
{
	if (bg_strmap_put(seen, m, *n) != *n)
		return;
	ALLOC_GROW(*names, *n + 1, *alloc);
	(*names)[(*n)++] = m;
}

int bg_compare(const struct bg_sample_set *base, const struct bg_sample_set *cand,
	       const struct bg_compare_config *cfg, struct bg_comparison *out)
{
	char **names = NULL;
	struct bg_strmap seen = BG_STRMAP_INIT;
	size_t nn = 0, alloc = 0, ntested = 0;
	double *p, *q, alpha_look = cfg->alpha / BG_VERDICT_LOOKS;
	double same_alpha = 2 * cfg->beta / BG_VERDICT_LOOKS;
	struct bg_verdict *init = NULL;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < base->n; i++)
		add_metric_name(&names, &nn, &alloc, &seen, base->s[i].metric);
	for (size_t i = 0; i < cand->n; i++)
		add_metric_name(&names, &nn, &alloc, &seen, cand->s[i].metric);
	bg_strmap_release(&seen);
	out->v = xcalloc(nn ? nn : 1, sizeof(*out->v));
	p = xcalloc(nn ? nn : 1, sizeof(*p));
	q = xcalloc(nn ? nn : 1, sizeof(*q));

	for (size_t i = 0; i < nn; i++) {
		const struct bg_series *a = bg_sample_set_find(base, names[i]);
		const struct bg_series *b = bg_sample_set_find(cand, names[i]);
		struct bg_verdict *v = &out->v[out->n++];
		size_t na = a ? a->n : 0, nb = b ? b->n : 0;

		v->metric = xstrdup(names[i]);
		v->n_base = na;
		v->n_cand = nb;
		v->base_median = na ? bg_stats_median(a->v, na) : NAN;
		v->cand_median = nb ? bg_stats_median(b->v, nb) : NAN;
		v->mad_base = na ? bg_stats_mad(a->v, na) : NAN;
		v->mad_cand = nb ? bg_stats_mad(b->v, nb) : NAN;
		v->delta = v->delta_pct = v->ci_lo = v->ci_hi = v->p = v->q = NAN;
		v->verdict = BG_UNKNOWN;
		if ((na && bg_stats_check(a->v, na, names[i]) < 0) ||
		    (nb && bg_stats_check(b->v, nb, names[i]) < 0)) {
			bg_comparison_release(out);
			free(names);
			free(p);
			free(q);
			return -1;
		}
		if (na && nb) {
			struct bg_hl hl;

			bg_stats_hodges_lehmann(a->v, na, b->v, nb, 0.05, &hl);
			v->delta = hl.shift;
			v->ci_lo = hl.lo;
			v->ci_hi = hl.hi;
			v->delta_pct = bg_change_pct(hl.shift, v->base_median);
		}
		if (na >= 2 && nb >= 2) {
			double *la = logs_of(a->v, na), *lb = logs_of(b->v, nb);
			struct bg_welch w;
			struct bg_mwu m;

			/*
			 * Welch's t on log values; Mann-Whitney when a side lies on a grid
			 * (durations on the 4 ms jiffies grid before the clocksource switch),
			 * since a t test takes a grid's zero spread for certainty.
			 */
			if (on_a_grid(a->v, na) || on_a_grid(b->v, nb)) {
				bg_stats_mwu(a->v, na, b->v, nb, &m);
				v->p = m.p;
			} else {
				bg_stats_welch(la, na, lb, nb, &w);
				v->p = w.p;
			}
			p[ntested++] = v->p;
			free(la);
			free(lb);
		}
	}
	/* Benjamini-Hochberg over every metric that could be tested */
	bg_stats_bh(p, ntested, q);
	for (size_t i = 0, t = 0; i < out->n; i++) {
		struct bg_verdict *v = &out->v[i];
		struct bg_threshold thr = bg_compare_threshold(cfg, v->metric);
		double floor_us = fmax(thr.pct * (isnan(v->base_median) ? 0 : v->base_median),
				       thr.abs_us);
		size_t n = v->n_base < v->n_cand ? v->n_base : v->n_cand;

		if (cfg->deterministic && n >= 1 && repeatable(base, cand, v->metric)) {
			/* every boot of each kernel agrees: the difference is the difference */
			v->exact = true;
			v->delta = v->cand_median - v->base_median;
			v->ci_lo = v->ci_hi = v->delta;
			v->verdict = fabs(v->delta) >= floor_us ? BG_DIFFERENT : BG_SAME;
			if (!isnan(v->p))
				t++;
			continue;
		}
		if (isnan(v->p)) {
			v->more_boots = n < 2 ? (unsigned)(BG_VERDICT_FIRST_LOOK - n) :
				       boots_to_next_look(n);
			continue;
		}
		v->q = q[t++];
		if (v->q <= alpha_look && fabs(v->delta) >= floor_us) {
			v->verdict = BG_DIFFERENT;
		} else if (n >= BG_VERDICT_FIRST_LOOK) {
			const struct bg_series *a = bg_sample_set_find(base, v->metric);
			const struct bg_series *b = bg_sample_set_find(cand, v->metric);
			struct bg_hl wide;

			/* same: even the wide interval of the shift stays within the threshold */
			bg_stats_hodges_lehmann(a->v, a->n, b->v, b->n, same_alpha, &wide);
			if (wide.lo > -floor_us && wide.hi < floor_us)
				v->verdict = BG_SAME;
		}
		if (v->verdict == BG_UNKNOWN)
			v->more_boots = boots_to_next_look(n);
	}
	qsort(out->v, out->n, sizeof(*out->v), cmp_verdict);

	/* what explains a change of boot.init: significant shifts the same way, >= 5% of it */
	for (size_t i = 0; i < out->n; i++)
		if (!strcmp(out->v[i].metric, "boot.init"))
			init = &out->v[i];
	if (init && init->verdict == BG_DIFFERENT && init->delta != 0) {
		out->a = xcalloc(out->n, sizeof(*out->a));
		for (size_t i = 0; i < out->n; i++) {
			const struct bg_verdict *v = &out->v[i];
			double share;

			if (strncmp(v->metric, "boot.", 5) == 0)
				continue;
			/* significant, or a repeatable difference in deterministic boots */
			if (v->exact ? v->verdict != BG_DIFFERENT : isnan(v->q) || v->q > cfg->alpha)
				continue;
			share = v->delta / init->delta;
			if (share < 0.05)
				continue;
			out->a[out->na++] = (struct bg_attribution){ xstrdup(v->metric), v->delta,
								    share };
		}
		qsort(out->a, out->na, sizeof(*out->a), cmp_attribution);
	}
	free(names);
	free(p);
	free(q);
	return 0;
}

void bg_comparison_release(struct bg_comparison *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->v[i].metric);
	for (size_t i = 0; i < c->na; i++)
		free(c->a[i].metric);
	free(c->v);
	free(c->a);
	memset(c, 0, sizeof(*c));
}
