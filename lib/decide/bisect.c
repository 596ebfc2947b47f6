/*
 * The bisection engine (bisect.h). Its constants and rules follow the method measured in
 * the project's statistics notes: a posterior over the culprit kept per segment between
 * tested commits, with the two levels and a noise prior from history integrated out in
 * closed form; probes scored by expected information per cost; gross outliers rejected
 * against the endpoints and every commit clipped at 3 sigma around its own median.
 */
#include <math.h>

#include "decide/bisect.h"
#include "decide/stats.h"
#include "util/xmalloc.h"

#define NU0 20.0              /* pseudo-degrees of freedom of the sigma prior */
#define BOOTS_PER_PROBE 2.0   /* b = ceil(2 / delta^2) boots per probe ... */
#define MAX_PER_PROBE 8       /* ... at most 8 */
#define REJECT 4.0            /* drop a boot 4 sigma from both endpoint medians */
#define WINSOR 3.0            /* clip a commit's boots at its median +- 3 sigma */
#define HYP_MIN 1e-5          /* hypotheses kept when scoring probes */
#define SEG_MIN 1e-4          /* segments probed inside */
#define Z_CONFIRM 2.326348    /* one-sided 1% for "the regression reproduces" */
#define Z_SAME 2.935199       /* one-sided 1% over the 6 looks for "it does not" */
#define EXPLAINED 0.8         /* look for more steps when one explains less than this */
#define MAX_DEPTH 6           /* residual ranges within residual ranges */
#define SUB_BUDGET 600        /* boots for bisecting one residual range */
#define CHECK_FIRST_LOOK 5    /* residual checks: 5, 10, 20, 40, 80 boots per side */
#define CHECK_LOOKS 5
#define Z_CHECK_DIFF 3.090232 /* two-sided 1% over the looks */
#define Z_CHECK_SAME 2.326348 /* one-sided 5% over the looks */
#define EDGE_ALPHA (0.001 / 6) /* the edge test, one-sided: Mann-Whitney at each look ... */
#define EDGE_ALPHA_ALL 0.001  /* ... z on all boots (normal, the noise from history) */
#define EDGE_CAP 0.9          /* the most an answer the edge test refused may claim */
#define WIDE_ENDPOINTS 12     /* endpoint boots when they fall in several modes */
#define OWN_LEVEL 5           /* boots that, all outliers, are a commit's own level */
#define PAIRS_MIN 12          /* pairs of boots of one commit that tell the noise */
#define PAIRS_BOOTS 32        /* boots of a commit those pairs are taken from, at most */
#define WIDE 1.5              /* boots spread wider than the noise: pooled SD over 1.5 sigma */

/*
 * The edge test's looks: boots of the culprit and of its parent, all of them, or new
 * ones (8 for Mann-Whitney to reach its level); both end at LAST_LOOK.
 */
static const unsigned all_looks[] = { 6, 12, 24, 48, 96 };
static const unsigned new_looks[] = { 8, 16, 32, 64, 96 };
#define LAST_LOOK 96

/* Gross outliers: a boot further than within from both centres (of the range's ends). */
struct centres {
	bool reject;                    /* none dropped when false */
	double g, r, within;
};

struct commit {
	double *v;            /* ln values, in the order they came */
	unsigned n, alloc;
	bool built;
	bool unbuildable;
	bool asked;           /* boots were requested (all may have hung) */
};

struct split {
	double ml, mr, sd;    /* level estimates if the culprit is in this segment */
	unsigned nl, nr;
};

enum phase { PH_START, PH_CONFIRM, PH_BISECT, PH_CHECK, PH_DONE };

struct range {
	int lo, hi;                     /* lo known good, hi known bad (relative to lo) */
	unsigned depth;
	bool check;                     /* test lo against hi first; else bisect lo..hi */
};

struct bg_bisect {
	struct bg_bisect_config cfg;
	int N;                          /* the last commit */
	int lo, hi;                     /* the range being bisected */
	unsigned depth;                 /* 0: the whole history; more: a residual range */
	/* ranges waiting: residual checks (x vs y) to run, then ranges to bisect */
	struct range *todo;
	size_t ntodo, alloc_todo;
	struct range check;             /* the residual check in progress */
	unsigned check_look;            /* its boots per side */
	double total_shift;             /* ln shift between the whole history's endpoints */
	unsigned range_boots;           /* boots when the current range began */
	double cur_step, cur_step_se;   /* the MAP split's step in the current range */
	int lead_first, lead_last;      /* the MAP set of the last round, for progress */
	double lead_p;
	bool confirmed;                 /* the endpoints were found to differ */
	double sigma;                   /* the noise the model takes: cfg.sigma, or wider */
	bool wide;                      /* the boots spread wider than the noise says */
	struct centres cur;             /* the outliers of the range being bisected */
	struct centres whole;           /* and of the whole history, for residual checks */
	int edge_a, edge_c;             /* the answer under the edge test, and the boots */
	unsigned edge_na, edge_nc;      /* its two commits had when it first came */
	bool edge_all;                  /* all their boots are tested, else the new ones */
	struct commit *c;
	enum phase phase;
	unsigned confirm_target;
	struct bg_bisect_counts counts;
	struct bg_bisect_result result;

	/* the posterior, over segments (ts[j], ts[j+1]] of tested commits */
	int *ts;
	unsigned T;
	double *sn, *ss, *sq;           /* cleaned n, sum, sum of squares per tested commit */
	double *mass, *cum;
	struct split *split;
};

const char *bg_bisect_outcome_name(enum bg_bisect_outcome o)
{
	switch (o) {
	case BG_BISECT_FOUND:
		return "found";
	case BG_BISECT_NOT_REPRODUCIBLE:
		return "not-reproducible";
	case BG_BISECT_INFRA:
		return "infra";
	case BG_BISECT_UNKNOWN:
		break;
	}
	return "unknown";
}

void bg_bisect_config_init(struct bg_bisect_config *cfg, int commits)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->commits = commits;
	cfg->workers = 1;
	cfg->build_cost = 5.0;   /* an incremental kernel build costs about 5 QEMU boots */
	cfg->eps = 0.005;
	cfg->n0 = 3;
	cfg->min_edge = 3;
	cfg->max_boots = 4000;
	cfg->confirm_max = 96;
	cfg->confirm = true;
	cfg->steps = BG_BISECT_STEPS_GATED;
	cfg->min_frac = 0.25;
	cfg->robust = true;
}

struct bg_bisect *bg_bisect_new(const struct bg_bisect_config *cfg)
{
	struct bg_bisect *b = xcalloc(1, sizeof(*b));
	int n = cfg->commits < 2 ? 2 : cfg->commits;

	b->cfg = *cfg;
	b->N = n - 1;
	b->lo = 0;
	b->hi = b->N;
	if (!b->cfg.workers)
		b->cfg.workers = 1;
	if (!b->cfg.max_builds) {
		unsigned lg = 0;

		while ((1u << lg) < (unsigned)b->N)
			lg++;
		b->cfg.max_builds = 3 * (lg ? lg : 1) + 30;
	}
	b->c = xcalloc((size_t)n, sizeof(*b->c));
	/* the endpoints' kernels come from the CI run that raised the alert */
	b->c[0].built = b->c[b->N].built = true;
	b->ts = xcalloc((size_t)n, sizeof(*b->ts));
	b->sn = xcalloc((size_t)n, sizeof(double));
	b->ss = xcalloc((size_t)n, sizeof(double));
	b->sq = xcalloc((size_t)n, sizeof(double));
	b->mass = xcalloc((size_t)n, sizeof(double));
	b->cum = xcalloc((size_t)n + 1, sizeof(double));
	b->split = xcalloc((size_t)n, sizeof(*b->split));
	b->phase = PH_START;
	b->edge_a = b->edge_c = -1;
	b->sigma = cfg->sigma;
	return b;
}

void bg_bisect_free(struct bg_bisect *b)
{
	if (!b)
		return;
	for (int i = 0; i <= b->N; i++)
		free(b->c[i].v);
	free(b->c);
	free(b->ts);
	free(b->sn);
	free(b->ss);
	free(b->sq);
	free(b->mass);
	free(b->cum);
	free(b->split);
	free(b->todo);
	free(b);
}

static bool valid_commit(const struct bg_bisect *b, int commit)
{
	return commit >= 0 && commit <= b->N;
}

void bg_bisect_built(struct bg_bisect *b, int commit, bool ok)
{
	if (!valid_commit(b, commit))
		return;
	b->counts.builds++;
	if (ok) {
		b->c[commit].built = true;
	} else {
		b->counts.failed_builds++;
		b->c[commit].unbuildable = true;
	}
}

void bg_bisect_value(struct bg_bisect *b, int commit, double ln_value)
{
	struct commit *c;

	if (!valid_commit(b, commit) || !isfinite(ln_value))
		return;
	c = &b->c[commit];
	b->counts.boots++;
	ALLOC_GROW(c->v, c->n + 1, c->alloc);
	c->v[c->n++] = ln_value;
}

void bg_bisect_infra(struct bg_bisect *b, int commit)
{
	if (!valid_commit(b, commit))
		return;
	b->counts.boots++;
	b->counts.hung++;
}

const struct bg_bisect_result *bg_bisect_result(const struct bg_bisect *b)
{
	return &b->result;
}

void bg_bisect_leading(const struct bg_bisect *b, int *first, int *last, double *p)
{
	*first = b->lead_first;
	*last = b->lead_last;
	*p = b->lead_p;
}

void bg_bisect_counts(const struct bg_bisect *b, struct bg_bisect_counts *c)
{
	*c = b->counts;
}

/* ---- requests ---- */

static void request(struct bg_bisect *b, struct bg_bisect_request *req, size_t *n, int commit,
		    unsigned values)
{
	struct commit *c = &b->c[commit];

	if (!values)
		return;
	c->asked = true;
	req[*n].commit = commit;
	req[*n].build = !c->built;
	req[*n].values = values;
	req[*n].max_boots = 3 * values + 3;   /* retries for hung boots */
	(*n)++;
}

static unsigned ceil_div(unsigned a, unsigned k)
{
	return (a + k - 1) / k;
}

static double mean_of(const struct commit *c)
{
	return bg_stats_mean(c->v, c->n);
}

/*
 * The middle of the shortest interval that holds a majority of v[0..n): the centre of
 * the mode most boots are in, where the median can fall in a minority's mode.
 */
static double main_mode(const double *v, unsigned n, double *scratch)
{
	unsigned h = n / 2 + 1, best = 0;

	memcpy(scratch, v, n * sizeof(*v));
	qsort(scratch, n, sizeof(*scratch), bg_stats_cmp_double);
	for (unsigned i = 1; i + h <= n; i++)
		if (scratch[i + h - 1] - scratch[i] < scratch[best + h - 1] - scratch[best])
			best = i;
	return (scratch[best] + scratch[best + h - 1]) / 2;
}

/*
 * The values v[0..n) that are not gross outliers by o, into kept: within o->within of
 * one of its centres, or with cfg.robust between them (a step of several is no outlier).
 * All of them when that would keep none, unless cfg.robust and the commit has fewer than
 * OWN_LEVEL boots: one boot in a minority's mode is not its level, while five that all
 * sit outside are a level of their own (a regression partly undone). Returns how many.
 */
static unsigned keep(const struct bg_bisect *b, const struct centres *o, const double *v,
		     unsigned n, double *kept)
{
	unsigned m = 0;

	if (o->reject)
		for (unsigned k = 0; k < n; k++)
			if (fmin(fabs(v[k] - o->g), fabs(v[k] - o->r)) <= o->within ||
			    (b->cfg.robust && fmin(o->g, o->r) < v[k] && v[k] < fmax(o->g, o->r)))
				kept[m++] = v[k];
	if (!m && n && (!(o->reject && b->cfg.robust) || n >= OWN_LEVEL)) {
		memcpy(kept, v, n * sizeof(*v));
		m = n;
	}
	return m;
}

/*
 * The level of commit i: the mean of its boots, with cfg.robust of those o keeps;
 * their number in *n (0: no level yet).
 */
static double level(const struct bg_bisect *b, const struct centres *o, int i, unsigned *n)
{
	const struct commit *c = &b->c[i];
	double *k, m;

	if (!b->cfg.robust) {
		*n = c->n;
		return c->n ? mean_of(c) : 0;
	}
	k = xmalloc((c->n ? c->n : 1) * sizeof(double));
	*n = keep(b, o, c->v, c->n, k);
	m = *n ? bg_stats_mean(k, *n) : 0;
	free(k);
	return m;
}

/* ln level of the last commit minus the first's; 0 until both have values. */
static double endpoints_shift(const struct bg_bisect *b)
{
	unsigned ng, nr;
	double g = level(b, &b->whole, 0, &ng), r = level(b, &b->whole, b->N, &nr);

	return ng && nr ? r - g : 0;
}

static enum bg_bisect_status finish(struct bg_bisect *b, enum bg_bisect_outcome o, int first,
				    int last, double prob)
{
	b->result.outcome = o;
	b->result.first = first;
	b->result.last = last;
	b->result.probability = prob;
	b->result.endpoint_shift = endpoints_shift(b);
	b->phase = PH_DONE;
	return BG_BISECT_DONE;
}

static bool too_much_infra(const struct bg_bisect *b)
{
	return b->counts.boots >= 9 && 3 * b->counts.hung > b->counts.boots;
}

/* ---- the posterior ---- */

/* Adds the squared deviations of v[0..n) about their mean to *ss, their freedom to *df. */
static void pool_add(double *ss, double *df, const double *v, unsigned n)
{
	if (n < 2)
		return;
	*ss += (n - 1) * bg_stats_var(v, n);
	*df += n - 1;
}

/* The pooled standard deviation of every commit's boots about its own mean; 0 if none. */
static double pooled_sd(const struct bg_bisect *b)
{
	double ss = 0, df = 0;

	for (int i = 0; i <= b->N; i++)
		pool_add(&ss, &df, b->c[i].v, b->c[i].n);
	return df > 0 ? sqrt(ss / df) : 0;
}

/* The upper median of v[0..n) (the element at n/2 once sorted), as the method uses. */
static double upper_median(const double *v, unsigned n, double *scratch)
{
	memcpy(scratch, v, n * sizeof(*v));
	qsort(scratch, n, sizeof(*scratch), bg_stats_cmp_double);
	return scratch[n / 2];
}

/*
 * The noise from the differences between two boots of one commit: their median, over
 * every pair of every commit, is 0.6745 sqrt(2) sigma for normal noise. A slow mode or
 * heavy tails move only the pairs that straddle them, so unlike the pooled SD it stays
 * near the main mode's noise. 0 with fewer than PAIRS_MIN pairs; the first PAIRS_BOOTS
 * boots of a commit are enough.
 */
static double pairs_sd(const struct bg_bisect *b)
{
	size_t n = 0, k = 0;
	double *d, sd = 0;

	for (int i = b->lo; i <= b->hi; i++) {
		size_t m = b->c[i].n < PAIRS_BOOTS ? b->c[i].n : PAIRS_BOOTS;

		n += m * (m ? m - 1 : 0) / 2;
	}
	if (n < PAIRS_MIN)
		return 0;
	d = xmalloc(n * sizeof(*d));
	for (int i = b->lo; i <= b->hi; i++) {
		const struct commit *c = &b->c[i];
		unsigned m = c->n < PAIRS_BOOTS ? c->n : PAIRS_BOOTS;

		for (unsigned j = 0; j < m; j++)
			for (unsigned l = j + 1; l < m; l++)
				d[k++] = fabs(c->v[j] - c->v[l]);
	}
	qsort(d, n, sizeof(*d), bg_stats_cmp_double);
	sd = d[n / 2] / (0.6744898 * M_SQRT2);
	free(d);
	return sd;
}

/*
 * With cfg.robust: the centres of the main modes of the range's two ends, and how far
 * from both a boot is a gross outlier: 4 ref (the noise from history, or pairs_sd).
 * scratch holds as many values as the ends have boots.
 */
static void set_centres(struct bg_bisect *b, double ref, double *scratch)
{
	const struct commit *g = &b->c[b->lo], *r = &b->c[b->hi];

	b->cur.reject = ref > 0 && g->n >= 3 && r->n >= 3;
	if (b->cur.reject) {
		b->cur.g = main_mode(g->v, g->n, scratch);
		b->cur.r = main_mode(r->v, r->n, scratch);
		b->cur.within = REJECT * ref;
	}
	if (b->depth == 0)
		b->whole = b->cur;
}

/*
 * Cleans every commit's values and fills ts[], sn, ss, sq for the tested commits: a boot
 * 4 sigma from both endpoints' centres is dropped as a gross outlier, and every commit's
 * boots are clipped at their median +- 3 sigma.
 *
 * With cfg.robust the centres are the endpoints' main modes, and the sigma of the
 * rejection, when no noise comes from history, is the pairs' (pairs_sd): a slow mode
 * that a share of the boots fall in is dropped with the outliers, whichever mode the
 * median of a few boots fell in. A metric whose boots, all of them, spread wider than
 * that noise (pooled SD over WIDE times it: a slow mode, heavy tails) is "wide": taken
 * with the spread of the boots kept as its noise, and clipped only at 3 of it.
 */
static void clean_stats(struct bg_bisect *b)
{
	const struct commit *g = &b->c[b->lo], *r = &b->c[b->hi];
	double sigma = b->cfg.sigma, robust = 0, pooled = 0;
	unsigned maxn = 1, nres = 0;
	double *scratch, *res = NULL, *kept;

	for (int i = b->lo; i <= b->hi; i++)
		if (b->c[i].n > maxn)
			maxn = b->c[i].n;
	scratch = xmalloc(maxn * sizeof(double));
	kept = xmalloc(maxn * sizeof(double));
	if (sigma <= 0) {
		/* no noise from history: the pooled MAD of the commits' residuals */
		unsigned total = 0;

		for (int i = b->lo; i <= b->hi; i++)
			if (b->c[i].n >= 2)
				total += b->c[i].n;
		res = xmalloc((total ? total : 1) * sizeof(double));
		for (int i = b->lo; i <= b->hi; i++) {
			const struct commit *c = &b->c[i];
			double md;

			if (c->n < 2)
				continue;
			md = upper_median(c->v, c->n, scratch);
			for (unsigned k = 0; k < c->n; k++)
				res[nres++] = fabs(c->v[k] - md);
		}
		if (nres >= 6) {
			qsort(res, nres, sizeof(*res), bg_stats_cmp_double);
			robust = 1.4826 * res[nres / 2];
		}
	}
	b->cur.reject = false;
	b->wide = false;
	b->sigma = sigma;
	if (b->cfg.robust) {
		double ref = sigma > 0 ? sigma : pairs_sd(b), spread = pooled_sd(b), ss = 0, df = 0;

		set_centres(b, ref, scratch);
		for (int i = b->lo; i <= b->hi; i++)
			pool_add(&ss, &df, kept, keep(b, &b->cur, b->c[i].v, b->c[i].n, kept));
		pooled = df > 0 ? sqrt(ss / df) : 0;
		/* too few pairs to tell the noise: nothing is known to be normal */
		b->wide = spread > 0 && (ref <= 0 || spread > WIDE * ref);
		if (sigma > 0 && b->wide)
			b->sigma = fmax(sigma, pooled);
	} else if (sigma > 0 && g->n >= 3 && r->n >= 3) {
		b->cur.g = upper_median(g->v, g->n, scratch);
		b->cur.r = upper_median(r->v, r->n, scratch);
		b->cur.within = REJECT * sigma;
		b->cur.reject = true;
	}
	sigma = b->sigma;

	b->T = 0;
	for (int i = b->lo; i <= b->hi; i++) {
		const struct commit *c = &b->c[i];
		double scale = sigma > 0 ? sigma : b->wide ? pooled : robust, sum = 0, sq = 0;
		unsigned n;

		if (!c->n)
			continue;
		n = keep(b, &b->cur, c->v, c->n, kept);
		if (!n)
			continue;
		if (scale > 0 && n >= 3) {
			double md = upper_median(kept, n, scratch);

			for (unsigned k = 0; k < n; k++)
				kept[k] = fmin(fmax(kept[k], md - WINSOR * scale), md + WINSOR * scale);
		}
		for (unsigned k = 0; k < n; k++) {
			sum += kept[k];
			sq += kept[k] * kept[k];
		}
		b->ts[b->T] = i;
		b->sn[b->T] = n;
		b->ss[b->T] = sum;
		b->sq[b->T] = sq;
		b->T++;
	}
	free(scratch);
	free(kept);
	free(res);
}

/* ---- confirming the regression on the endpoints ---- */

enum verdict3 { V_DIFFERENT, V_SAME, V_UNKNOWN, V_SIGNIFICANT, V_PROMISING };

/*
 * Does the last commit's level exceed the first's? DIFFERENT when the shift is
 * significant (one-sided 1%) and at least the threshold, SAME when even its upper bound
 * (one-sided 5%) stays below the threshold. The known noise gives a z test; without it,
 * Welch's t. With cfg.robust, on the boots of the endpoints' main modes (set_centres).
 */
static enum verdict3 endpoints_verdict(struct bg_bisect *b)
{
	const struct commit *g = &b->c[0], *r = &b->c[b->N];
	double diff, se, zc = Z_CONFIRM, zs = Z_SAME, sigma = b->cfg.sigma;
	double *kg = xmalloc((g->n ? g->n : 1) * sizeof(double));
	double *kr = xmalloc((r->n ? r->n : 1) * sizeof(double));
	unsigned ng = g->n, nr = r->n;
	enum verdict3 v = V_UNKNOWN;

	if (b->cfg.robust) {
		/* the main modes' boots, and their own spread when it is wider than history's */
		double *scratch = xmalloc(((g->n > r->n ? g->n : r->n) + 1) * sizeof(double));
		double ss = 0, df = 0;

		set_centres(b, sigma > 0 ? sigma : pairs_sd(b), scratch);
		free(scratch);
		ng = keep(b, &b->cur, g->v, g->n, kg);
		nr = keep(b, &b->cur, r->v, r->n, kr);
		pool_add(&ss, &df, kg, ng);
		pool_add(&ss, &df, kr, nr);
		if (ng >= 2 && nr >= 2 && sqrt(ss / df) > WIDE * sigma)
			sigma = 0;
	} else {
		if (g->n)
			memcpy(kg, g->v, g->n * sizeof(double));
		if (r->n)
			memcpy(kr, r->v, r->n * sizeof(double));
	}
	if (ng < 2 || nr < 2)
		goto out;
	diff = bg_stats_mean(kr, nr) - bg_stats_mean(kg, ng);
	if (sigma > 0) {
		se = sigma * sqrt(1.0 / ng + 1.0 / nr);
	} else {
		struct bg_welch w;

		if (bg_stats_welch(kg, ng, kr, nr, &w) < 0)
			goto out;
		se = w.se;
		zc = bg_t_quantile(0.99, w.df);
		zs = bg_t_quantile(1 - 0.01 / 6, w.df);
	}
	if (diff - zc * se > 0 && diff >= b->cfg.threshold)
		v = V_DIFFERENT;
	else if (diff + zs * se < b->cfg.threshold)
		v = V_SAME;
	/* significant, but maybe smaller than the threshold: more boots may tell */
	else if (diff - zc * se > 0)
		v = V_SIGNIFICANT;
	/* not significant yet, but as large as the threshold: the bisection will boot more */
	else if (diff >= b->cfg.threshold)
		v = V_PROMISING;
out:
	free(kg);
	free(kr);
	return v;
}

/* Posterior mass of each segment (ts[j], ts[j+1]], and the levels under each. */
static void compute_posterior(struct bg_bisect *b)
{
	double nu0 = b->sigma > 0 ? NU0 : 0, s02 = b->sigma * b->sigma;
	double pn = 0, ps = 0, pq = 0, ntot = 0, stot = 0, qtot = 0, mx = -INFINITY, z = 0;
	unsigned T = b->T;

	for (unsigned t = 0; t < T; t++) {
		ntot += b->sn[t];
		stot += b->ss[t];
		qtot += b->sq[t];
	}
	for (unsigned j = 0; j + 1 < T; j++) {
		double nl, sl, ql, nr, sr, qr, rss, ll;

		pn += b->sn[j];
		ps += b->ss[j];
		pq += b->sq[j];
		nl = pn;
		sl = ps;
		ql = pq;
		nr = ntot - nl;
		sr = stot - sl;
		qr = qtot - ql;
		rss = (ql - sl * sl / nl) + (qr - sr * sr / nr);
		if (rss < 1e-12)
			rss = 1e-12;
		ll = -0.5 * (ntot - 2 + nu0) * log(rss + nu0 * s02) - 0.5 * log(nl * nr);
		/* uniform prior over commits: a segment weighs its width */
		b->mass[j] = ll + log((double)(b->ts[j + 1] - b->ts[j]));
		b->split[j].ml = sl / nl;
		b->split[j].mr = sr / nr;
		b->split[j].sd = sqrt((rss + nu0 * s02) / fmax(ntot - 2 + nu0, 1));
		b->split[j].nl = (unsigned)nl;
		b->split[j].nr = (unsigned)nr;
		if (b->mass[j] > mx)
			mx = b->mass[j];
	}
	for (unsigned j = 0; j + 1 < T; j++) {
		b->mass[j] = exp(b->mass[j] - mx);
		z += b->mass[j];
	}
	b->cum[0] = 0;
	for (unsigned j = 0; j + 1 < T; j++) {
		b->mass[j] /= z;
		b->cum[j + 1] = b->cum[j] + b->mass[j];
	}
}

/* The segment j with ts[j] < m <= ts[j+1]. */
static unsigned seg_of(const struct bg_bisect *b, int m)
{
	unsigned lo = 0, hi = b->T - 1;

	while (hi - lo > 1) {
		unsigned mid = (lo + hi) / 2;

		if (b->ts[mid] < m)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* P(culprit <= m). */
static double cdf(const struct bg_bisect *b, int m)
{
	unsigned j;
	int a, c;

	if (m <= b->lo)
		return 0;
	if (m >= b->hi)
		return 1;
	j = seg_of(b, m);
	a = b->ts[j];
	c = b->ts[j + 1];
	return b->cum[j] + b->mass[j] * (double)(m - a) / (double)(c - a);
}

/* The real-valued commit position where the posterior CDF crosses q. */
static double quantile_commit(const struct bg_bisect *b, double q)
{
	unsigned j = 0;
	int a, c;

	while (j + 2 < b->T && b->cum[j + 1] < q)
		j++;
	a = b->ts[j];
	c = b->ts[j + 1];
	if (b->mass[j] <= 0)
		return a;
	return a + (q - b->cum[j]) / b->mass[j] * (double)(c - a);
}

/* ---- probes ---- */

struct candidate {
	double score, F;
	int commit;
};

static int cmp_candidate_desc(const void *x, const void *y)
{
	const struct candidate *a = x, *c = y;

	if (a->score != c->score)
		return a->score < c->score ? 1 : -1;
	if (a->F != c->F)
		return a->F < c->F ? 1 : -1;
	return a->commit < c->commit ? 1 : a->commit > c->commit ? -1 : 0;
}

/* Variance, over the culprit hypotheses, of the level tested commit ts[idx] would show. */
static double var_tested(const struct bg_bisect *b, unsigned idx)
{
	double s1 = 0, s2 = 0;

	for (unsigned j = 0; j + 1 < b->T; j++) {
		double mu;

		if (b->mass[j] <= HYP_MIN)
			continue;
		mu = idx <= j ? b->split[j].ml : b->split[j].mr;
		s1 += b->mass[j] * mu;
		s2 += b->mass[j] * mu * mu;
	}
	return fmax(0, s2 - s1 * s1);
}

/* The same for an untested commit m inside segment j0. */
static double var_untested(const struct bg_bisect *b, int m, unsigned j0)
{
	int a = b->ts[j0], c = b->ts[j0 + 1];
	double f = (double)(m - a) / (double)(c - a), s1 = 0, s2 = 0;

	for (unsigned j = 0; j + 1 < b->T; j++) {
		double ml = b->split[j].ml, mr = b->split[j].mr, p = b->mass[j];

		if (p <= HYP_MIN)
			continue;
		if (j < j0) {
			s1 += p * mr;
			s2 += p * mr * mr;
		} else if (j > j0) {
			s1 += p * ml;
			s2 += p * ml * ml;
		} else {
			s1 += p * (f * mr + (1 - f) * ml);
			s2 += p * (f * mr * mr + (1 - f) * ml * ml);
		}
	}
	return fmax(0, s2 - s1 * s1);
}

/* The admissible commit nearest m inside (a0, b0): buildable as far as known. */
static int nearest_admissible(const struct bg_bisect *b, int m, int a0, int b0)
{
	for (int off = 0; off < b0 - a0; off++) {
		int c1 = m - off, c2 = m + off;

		if (c1 > a0 && c1 < b0 && !b->c[c1].unbuildable)
			return c1;
		if (c2 > a0 && c2 < b0 && !b->c[c2].unbuildable)
			return c2;
	}
	return -1;
}

static void add_candidate(struct candidate **cands, size_t *n, size_t *alloc, double score,
			  double F, int commit)
{
	ALLOC_GROW(*cands, *n + 1, *alloc);
	(*cands)[(*n)++] = (struct candidate){ score, F, commit };
}

/* ---- several steps ---- */

static enum bg_bisect_status next_task(struct bg_bisect *b, struct bg_bisect_request *req,
				       size_t *nreq);
static enum bg_bisect_status bisect_round(struct bg_bisect *b, struct bg_bisect_request *req,
					  size_t *nreq);

/* The noise of one boot's ln value: known from history, else the current fit's. */
static double noise(const struct bg_bisect *b)
{
	return b->sigma > 0 ? b->sigma : fmax(b->split[0].sd, 1e-9);
}

static void push(struct bg_bisect *b, int lo, int hi, unsigned depth, bool check)
{
	ALLOC_GROW(b->todo, b->ntodo + 1, b->alloc_todo);
	b->todo[b->ntodo++] = (struct range){ lo, hi, depth, check };
}

/*
 * Does the step just found leave part of its range's shift unexplained? Only then are
 * the ranges on both sides checked: on a single step that would cost many boots for
 * nothing. The step is measured at the culprit's own edges (pooled levels would mix in
 * the other steps), and both estimates are taken at their least favourable, 2 standard
 * errors away.
 */
static bool explains_little(const struct bg_bisect *b, int first, int last)
{
	unsigned nl, nh, nb, na;
	double l = level(b, &b->cur, b->lo, &nl), h = level(b, &b->cur, b->hi, &nh);
	double before = level(b, &b->cur, first - 1, &nb), after = level(b, &b->cur, last, &na);
	double span, span_se, step, step_se;

	if (b->cfg.steps == BG_BISECT_ALL_STEPS)
		return true;
	if (b->cfg.steps == BG_BISECT_ONE_STEP || !nl || !nh || !nb || !na)
		return false;
	span = h - l;
	step = after - before;
	if (span < 0) {
		span = -span;
		step = -step;
	}
	span_se = noise(b) * sqrt(1.0 / nl + 1.0 / nh);
	step_se = noise(b) * sqrt(1.0 / nb + 1.0 / na);
	return step + 2 * step_se < EXPLAINED * (span - 2 * span_se);
}

/* A step is found in the current range: record it, and maybe look on both sides. */
static enum bg_bisect_status found(struct bg_bisect *b, struct bg_bisect_request *req,
				   size_t *nreq, int first, int last, double prob)
{
	struct bg_bisect_result *r = &b->result;

	if (r->nculprits < BG_BISECT_MAX_CULPRITS)
		r->culprits[r->nculprits++] = (struct bg_bisect_culprit){
			first, last, prob, b->cur_step, b->cur_step_se };
	if (b->depth < MAX_DEPTH && explains_little(b, first, last)) {
		if (first - 1 > b->lo)
			push(b, b->lo, first - 1, b->depth + 1, true);
		if (last < b->hi)
			push(b, last, b->hi, b->depth + 1, true);
	}
	return next_task(b, req, nreq);
}

/*
 * A residual check: do commits x and y differ by at least min_frac of the whole shift?
 * Both are booted 5, 10, 20, 40, 80 times as needed (the error split over the looks);
 * different starts a bisection of x..y, same or the last look moves on.
 */
static enum bg_bisect_status check_round(struct bg_bisect *b, struct bg_bisect_request *req,
					 size_t *nreq)
{
	const struct commit *x = &b->c[b->check.lo], *y = &b->c[b->check.hi];
	double diff, se, target = b->cfg.min_frac * fabs(b->total_shift);

	if (x->n < b->check_look || y->n < b->check_look) {
		unsigned want = 0;

		for (int i = 0; i < 2; i++) {
			int commit = i ? b->check.hi : b->check.lo;
			unsigned have = b->c[commit].n;

			if (have < b->check_look) {
				request(b, req, nreq, commit, b->check_look - have);
				want += b->check_look - have;
			}
		}
		b->counts.rounds += ceil_div(want, b->cfg.workers);
		return BG_BISECT_MEASURE;
	}
	{
		unsigned nx, ny;
		double lx = level(b, &b->whole, b->check.lo, &nx);
		double ly = level(b, &b->whole, b->check.hi, &ny);

		if (!nx || !ny) {   /* every boot of one in a minority's mode: boot more */
			b->check_look *= 2;
			if (b->check_look > CHECK_FIRST_LOOK << (CHECK_LOOKS - 1))
				return next_task(b, req, nreq);
			return check_round(b, req, nreq);
		}
		diff = ly - lx;
		se = noise(b) * sqrt(1.0 / nx + 1.0 / ny);
	}
	if (fabs(diff) > Z_CHECK_DIFF * se) {
		push(b, b->check.lo, b->check.hi, b->check.depth, false);
		return next_task(b, req, nreq);
	}
	if (fabs(diff) + Z_CHECK_SAME * se < target ||
	    b->check_look * 2 > CHECK_FIRST_LOOK << (CHECK_LOOKS - 1))
		return next_task(b, req, nreq);
	b->check_look *= 2;
	return check_round(b, req, nreq);
}

/* Takes the next residual check or range; when none is left, the answer is complete. */
static enum bg_bisect_status next_task(struct bg_bisect *b, struct bg_bisect_request *req,
				       size_t *nreq)
{
	struct bg_bisect_result *r = &b->result;
	double explained = 0;

	while (b->ntodo) {
		struct range t = b->todo[--b->ntodo];

		if (t.check) {
			b->check = t;
			b->check_look = CHECK_FIRST_LOOK;
			b->phase = PH_CHECK;
			return check_round(b, req, nreq);
		}
		b->lo = t.lo;
		b->hi = t.hi;
		b->depth = t.depth;
		b->range_boots = b->counts.boots;
		b->phase = PH_BISECT;
		return bisect_round(b, req, nreq);
	}
	if (!r->nculprits)
		return finish(b, BG_BISECT_UNKNOWN, 1, b->N, 0);
	for (unsigned i = 0; i < r->nculprits; i++)
		explained += r->culprits[i].step;
	r->step = r->culprits[0].step;
	r->step_se = r->culprits[0].step_se;
	r->unexplained = b->total_shift - explained;
	return finish(b, BG_BISECT_FOUND, r->culprits[0].first, r->culprits[0].last,
		      r->culprits[0].probability);
}

/* Every value of the commit the same (exact mode, or a single boot). */
static bool repeats(const struct commit *c)
{
	for (unsigned k = 1; k < c->n; k++)
		if (c->v[k] != c->v[0])
			return false;
	return c->n > 0;
}

enum edge { EDGE_SHOWN, EDGE_MORE, EDGE_NOT_SHOWN };

/* Do boots y[0..ny) exceed boots x[0..nx) in the direction dir? One-sided Mann-Whitney. */
static bool mwu_exceeds(const double *x, unsigned nx, const double *y, unsigned ny, double dir)
{
	struct bg_mwu m;

	return nx >= 2 && ny >= 2 && bg_stats_mwu(x, nx, y, ny, &m) == 0 &&
	       dir * (m.u - (double)nx * ny / 2) > 0 && m.p / 2 <= EDGE_ALPHA;
}

/*
 * Are the values v[0..n) (kept, as keep leaves them) at the level of commit e, an end of
 * the range, within 3 standard errors of the difference?
 */
static bool like(const struct bg_bisect *b, const double *v, unsigned n, int e, double sd)
{
	const struct commit *c = &b->c[e];
	double *ke = xmalloc((c->n ? c->n : 1) * sizeof(double));
	unsigned ne = keep(b, &b->cur, c->v, c->n, ke);
	bool ok = n && ne &&
		  fabs(bg_stats_mean(v, n) - bg_stats_mean(ke, ne)) <= 3 * sd * sqrt(1.0 / n + 1.0 / ne);

	free(ke);
	return ok;
}

/*
 * The same by a z test whose noise is the larger of floor and the two samples' own (a
 * wide spread between them is no evidence of a step), or by Mann-Whitney.
 */
static bool exceeds(const double *x, unsigned nx, const double *y, unsigned ny, double dir,
		    double floor)
{
	double ss = 0, df = 0, se, z;

	if (nx < 2 || ny < 2)
		return false;
	pool_add(&ss, &df, x, nx);
	pool_add(&ss, &df, y, ny);
	se = fmax(sqrt(ss / df), floor) * sqrt(1.0 / nx + 1.0 / ny);
	z = se > 0 ? dir * (bg_stats_mean(y, ny) - bg_stats_mean(x, nx)) / se : 0;
	return 1 - bg_norm_cdf(z) <= EDGE_ALPHA_ALL || mwu_exceeds(x, nx, y, ny, dir);
}

/*
 * Do the culprit's own boots (commit c) differ from its parent's (commit a) in the
 * direction of the step? The posterior rests on normal noise around one level per
 * commit; boots that are bimodal (a share of them wait) or heavy-tailed can make it sure
 * of a commit whose boots look like its parent's. Values that repeat exactly at both:
 * they differ or not. With the noise from history, a metric whose boots spread as it
 * says, and edges at the levels of the range's ends: all of their boots (outliers
 * dropped) are tested, by z or Mann-Whitney. Else only the boots taken since this answer
 * first came, by Mann-Whitney: the ones that made the model choose it are no independent
 * evidence, and a noise learnt from the same boots was measured as no safeguard (0.3% of
 * bimodal histories sure and wrong). One-sided, at each look: z at 0.1%, Mann-Whitney at
 * 0.1/6%; more boots on both up to 96 a side (all_looks, new_looks), then it is not
 * shown. Over five looks and a change of answer the level is not 0.1%: the benchmark's
 * share of wrong answers is the measure (bench/bench-bisect.sh).
 */
static enum edge edge_support(struct bg_bisect *b, int a, int c, double step)
{
	const struct commit *x = &b->c[a], *y = &b->c[c];
	double dir = step < 0 ? -1 : 1, *kx, *ky;
	unsigned fx, fy, nx, ny;
	enum edge e = EDGE_MORE;

	if (repeats(x) && repeats(y))
		return dir * (y->v[0] - x->v[0]) > 0 ? EDGE_SHOWN : EDGE_NOT_SHOWN;
	if (a != b->edge_a || c != b->edge_c) {
		b->edge_a = a;
		b->edge_c = c;
		b->edge_na = x->n;
		b->edge_nc = y->n;
	}
	fx = x->n - b->edge_na;
	fy = y->n - b->edge_nc;
	kx = xmalloc((x->n ? x->n : 1) * sizeof(double));
	ky = xmalloc((y->n ? y->n : 1) * sizeof(double));
	b->edge_all = false;
	if (!b->wide && b->cfg.sigma > 0) {
		nx = keep(b, &b->cur, x->v, x->n, kx);
		ny = keep(b, &b->cur, y->v, y->n, ky);
		b->edge_all = like(b, kx, nx, b->lo, b->sigma) && like(b, ky, ny, b->hi, b->sigma);
		if (b->edge_all && exceeds(kx, nx, ky, ny, dir, b->sigma))
			e = EDGE_SHOWN;
		else if (b->edge_all && (x->n < y->n ? x->n : y->n) >= LAST_LOOK)
			e = EDGE_NOT_SHOWN;
	}
	if (e == EDGE_MORE && !b->edge_all) {
		nx = keep(b, &b->cur, x->v + b->edge_na, fx, kx);
		ny = keep(b, &b->cur, y->v + b->edge_nc, fy, ky);
		if (mwu_exceeds(kx, nx, ky, ny, dir))
			e = EDGE_SHOWN;
		else if ((fx < fy ? fx : fy) >= LAST_LOOK)
			e = EDGE_NOT_SHOWN;
	}
	free(kx);
	free(ky);
	return e;
}

/*
 * The edge test's next look: both edges booted up to its number of boots, all of them
 * when all are tested, else new ones.
 */
static enum bg_bisect_status edge_look(struct bg_bisect *b, struct bg_bisect_request *req,
				       size_t *nreq, int a, int c)
{
	unsigned fa = b->c[a].n, fc = b->c[c].n, look = 0;
	const unsigned *looks = b->edge_all ? all_looks : new_looks;

	if (!b->edge_all) {
		fa -= b->edge_na;
		fc -= b->edge_nc;
	}
	for (size_t i = 0; i < ARRAY_SIZE(new_looks) && look <= (fa < fc ? fa : fc); i++)
		look = looks[i];
	b->counts.rounds++;
	request(b, req, nreq, a, fa < look ? look - fa : 0);
	request(b, req, nreq, c, fc < look ? look - fc : 0);
	return BG_BISECT_MEASURE;
}

/* One round of the bisection: stop, or choose the probes and their boots. */
static enum bg_bisect_status bisect_round(struct bg_bisect *b, struct bg_bisect_request *req,
					  size_t *nreq)
{
	unsigned k = b->cfg.workers, j = 0, bsize, nprobes = 0;
	double pmax = -1, sd, s2, dhat;
	struct candidate *cands = NULL;
	size_t ncands = 0, alloc = 0;
	int a, c, probes[64];
	unsigned per[64];
	bool interior_resolved = true, edges_ok;

	clean_stats(b);
	if (b->depth == 0)
		b->total_shift = endpoints_shift(b);
	if (b->depth == 0 && b->cfg.confirm && !b->confirmed) {
		enum verdict3 v = endpoints_verdict(b);

		if (v == V_SAME)
			return finish(b, BG_BISECT_NOT_REPRODUCIBLE, 1, b->N, 0);
		b->confirmed = v == V_DIFFERENT || v == V_SIGNIFICANT;
	}
	if (b->T < 2 || b->ts[0] != b->lo || b->ts[b->T - 1] != b->hi) {
		/* an endpoint without a single value yet: boot it (within the budget) */
		if (b->counts.boots >= b->cfg.max_boots) {
			if (b->depth == 0)
				return finish(b, BG_BISECT_UNKNOWN, 1, b->N, 0);
			b->ntodo = 0;
			return next_task(b, req, nreq);
		}
		request(b, req, nreq, b->T && b->ts[0] == b->lo ? b->hi : b->lo, 1);
		b->counts.rounds++;
		return BG_BISECT_MEASURE;
	}
	compute_posterior(b);
	for (unsigned i = 0; i + 1 < b->T; i++)
		if (b->mass[i] > pmax) {
			pmax = b->mass[i];
			j = i;
		}
	a = b->ts[j];
	c = b->ts[j + 1];
	for (int i = a + 1; i < c; i++)
		if (!b->c[i].unbuildable)
			interior_resolved = false;
	edges_ok = b->c[a].n >= b->cfg.min_edge && b->c[c].n >= b->cfg.min_edge;
	b->lead_first = a + 1;
	b->lead_last = c;
	b->lead_p = pmax;
	b->cur_step = b->split[j].mr - b->split[j].ml;
	b->cur_step_se = b->split[j].sd *
			 sqrt(1.0 / fmax(b->split[j].nl, 1) + 1.0 / fmax(b->split[j].nr, 1));
	if (pmax >= 1 - b->cfg.eps && interior_resolved && edges_ok) {
		enum edge e = EDGE_SHOWN;

		if (b->depth == 0 && b->cfg.confirm && !b->confirmed &&
		    (fabs(b->cur_step) - Z_CONFIRM * b->cur_step_se <= 0 ||
		     fabs(b->cur_step) < b->cfg.threshold)) {
			/* a culprit whose step is not significant is no culprit */
			b->result.step = b->cur_step;
			b->result.step_se = b->cur_step_se;
			return finish(b, BG_BISECT_UNKNOWN, a + 1, c, pmax);
		}
		if (b->cfg.robust)
			e = edge_support(b, a, c, b->cur_step);
		/* the budget is spent: what the edges' boots did not show yet is not shown */
		if (e == EDGE_MORE && b->counts.boots >= b->cfg.max_boots)
			e = EDGE_NOT_SHOWN;
		if (e == EDGE_MORE)
			return edge_look(b, req, nreq, a, c);
		if (e == EDGE_NOT_SHOWN) {
			/*
			 * Sure by the model, not by the boots: no culprit, and no such claim. In
			 * a residual range, no further step.
			 */
			if (b->depth > 0)
				return next_task(b, req, nreq);
			b->result.step = b->cur_step;
			b->result.step_se = b->cur_step_se;
			return finish(b, BG_BISECT_UNKNOWN, a + 1, c, fmin(pmax, EDGE_CAP));
		}
		return found(b, req, nreq, a + 1, c, pmax);
	}
	if (b->counts.boots >= b->cfg.max_boots || b->counts.builds >= b->cfg.max_builds) {
		if (b->depth == 0) {
			b->result.step = b->cur_step;
			b->result.step_se = b->cur_step_se;
			return finish(b, BG_BISECT_UNKNOWN, a + 1, c, pmax);
		}
		b->ntodo = 0;   /* out of budget: report the steps found so far */
		return next_task(b, req, nreq);
	}
	if (b->depth > 0 && b->counts.boots - b->range_boots >= SUB_BUDGET)
		return next_task(b, req, nreq);
	if (pmax >= 1 - b->cfg.eps && interior_resolved) {
		/* the answer stands; make sure both of its edges were booted enough */
		b->counts.rounds++;
		request(b, req, nreq, a, b->c[a].n < b->cfg.min_edge ? b->cfg.min_edge - b->c[a].n : 0);
		request(b, req, nreq, c, b->c[c].n < b->cfg.min_edge ? b->cfg.min_edge - b->c[c].n : 0);
		return BG_BISECT_MEASURE;
	}

	sd = b->split[j].sd;
	s2 = fmax(sd * sd, 1e-18);
	dhat = sd > 0 ? fabs(b->split[j].mr - b->split[j].ml) / sd : 10.0;
	{
		double want = ceil(BOOTS_PER_PROBE / pow(fmax(dhat, 1e-3), 2));

		bsize = (unsigned)fmin(MAX_PER_PROBE, fmax(1, want));
	}

	/* re-boot a tested commit when the doubt is about the levels, not the position */
	for (unsigned t = 0; t < b->T; t++) {
		double v = var_tested(b, t);

		if (v <= 0)
			continue;
		add_candidate(&cands, &ncands, &alloc, 0.5 * log1p(bsize * v / s2) / bsize,
			      cdf(b, b->ts[t]), b->ts[t]);
	}
	/* inside each likely segment: the posterior median, the middle, the k-quantiles */
	for (unsigned j0 = 0; j0 + 1 < b->T; j0++) {
		int a0 = b->ts[j0], b0 = b->ts[j0 + 1], pts[66];
		unsigned npts = 0;
		double x;

		if (b->mass[j0] < SEG_MIN || b0 - a0 < 2)
			continue;
		x = quantile_commit(b, 0.5);
		pts[npts++] = (int)nearbyint(fmin(fmax(x, a0 + 1), b0 - 1));
		pts[npts++] = (a0 + b0) / 2;
		for (unsigned q = 1; q <= k && npts < ARRAY_SIZE(pts); q++) {
			x = quantile_commit(b, (double)q / (k + 1.0));
			if (a0 < x && x < b0)
				pts[npts++] = (int)nearbyint(fmin(fmax(x, a0 + 1), b0 - 1));
		}
		for (unsigned i = 0; i < npts; i++) {
			int m = nearest_admissible(b, pts[i], a0, b0);
			double v;

			if (m < 0)
				continue;
			v = var_untested(b, m, j0);
			if (v <= 0)
				continue;
			add_candidate(&cands, &ncands, &alloc,
				      0.5 * log1p(bsize * v / s2) / (bsize + b->cfg.build_cost),
				      cdf(b, m), m);
		}
	}
	if (!ncands) {
		free(cands);
		if (b->depth > 0)
			return next_task(b, req, nreq);
		b->result.step = b->cur_step;
		b->result.step_se = b->cur_step_se;
		return finish(b, BG_BISECT_UNKNOWN, a + 1, c, pmax);
	}
	qsort(cands, ncands, sizeof(*cands), cmp_candidate_desc);

	/* k probes spread over the posterior CDF */
	if (k > ARRAY_SIZE(probes))
		k = ARRAY_SIZE(probes);
	for (size_t i = 0; i < ncands && nprobes < k; i++) {
		bool ok = true;

		for (unsigned p = 0; p < nprobes && ok; p++)
			if (probes[p] == cands[i].commit ||
			    fabs(cands[i].F - cdf(b, probes[p])) < 0.8 / (k + 1.0))
				ok = false;
		if (ok)
			probes[nprobes++] = cands[i].commit;
	}
	free(cands);
	for (unsigned p = 0; p < nprobes; p++)
		per[p] = 0;
	for (unsigned w = 0; w < k; w++)
		per[w % nprobes] += bsize;
	b->counts.rounds++;
	for (unsigned p = 0; p < nprobes; p++)
		request(b, req, nreq, probes[p], per[p]);
	return BG_BISECT_MEASURE;
}

/*
 * Do the endpoints' boots spread wider about their means than the noise says (from
 * history, or from pairs)? A share of them in a slow mode, most often.
 */
static bool endpoints_wide(const struct bg_bisect *b)
{
	double ref = b->cfg.sigma > 0 ? b->cfg.sigma : pairs_sd(b);

	return ref > 0 && pooled_sd(b) > WIDE * ref;
}

/* Endpoint boots up to target each. */
static void request_endpoints(struct bg_bisect *b, struct bg_bisect_request *req, size_t *n,
			      unsigned target)
{
	unsigned want = 0;

	for (int e = 0; e <= b->N; e += b->N) {
		unsigned have = b->c[e].n, more = have < target ? target - have : 0;

		request(b, req, n, e, more);
		want += more;
	}
	b->counts.rounds += ceil_div(want, b->cfg.workers);
}

enum bg_bisect_status bg_bisect_next(struct bg_bisect *b, struct bg_bisect_request *req,
				     size_t max, size_t *n)
{
	*n = 0;
	if (b->phase == PH_DONE)
		return BG_BISECT_DONE;
	if (max < 2 || max < b->cfg.workers)
		return finish(b, BG_BISECT_UNKNOWN, 1, b->N, 0);
	if (b->N < 1)
		return finish(b, BG_BISECT_FOUND, 1, 1, 1);
	if (too_much_infra(b))
		return finish(b, BG_BISECT_INFRA, 1, b->N, 0);

	switch (b->phase) {
	case PH_START:
		b->confirm_target = b->cfg.n0;
		b->phase = b->cfg.confirm ? PH_CONFIRM : PH_BISECT;
		request_endpoints(b, req, n, b->cfg.n0);
		if (*n)
			return BG_BISECT_MEASURE;
		return bg_bisect_next(b, req, max, n);
	case PH_CONFIRM: {
		enum verdict3 v;

		/* endpoints whose boots fall in several modes: enough of them to tell the main one */
		if (b->cfg.robust && b->confirm_target < WIDE_ENDPOINTS &&
		    WIDE_ENDPOINTS <= b->cfg.confirm_max && endpoints_wide(b)) {
			b->confirm_target = WIDE_ENDPOINTS;
			request_endpoints(b, req, n, b->confirm_target);
			if (*n)
				return BG_BISECT_MEASURE;
		}
		v = endpoints_verdict(b);

		switch (v) {
		case V_DIFFERENT:
			b->confirmed = true;
			b->phase = PH_BISECT;
			break;
		case V_SAME:
			return finish(b, BG_BISECT_NOT_REPRODUCIBLE, 1, b->N, 0);
		case V_PROMISING:
			/*
			 * As large as the threshold but not yet significant: bisect now. Every
			 * round keeps checking the endpoints, and the culprit's step has to be
			 * significant before it is reported.
			 */
			b->phase = PH_BISECT;
			break;
		case V_SIGNIFICANT:
		case V_UNKNOWN:
			if (b->confirm_target * 2 > b->cfg.confirm_max) {
				/*
				 * Out of confirmation boots. A significant shift is bisected; so is
				 * one that is merely upward, since the culprit's own step must then
				 * be significant before it is reported.
				 */
				b->confirmed = v == V_SIGNIFICANT;
				if (v == V_SIGNIFICANT || endpoints_shift(b) > 0) {
					b->phase = PH_BISECT;
					return bisect_round(b, req, n);
				}
				return finish(b, BG_BISECT_UNKNOWN, 1, b->N, 0);
			}
			b->confirm_target *= 2;
			request_endpoints(b, req, n, b->confirm_target);
			return BG_BISECT_MEASURE;
		}
		return bisect_round(b, req, n);
	}
	case PH_BISECT:
		return bisect_round(b, req, n);
	case PH_CHECK:
		return check_round(b, req, n);
	case PH_DONE:
		break;
	}
	return BG_BISECT_DONE;
}
