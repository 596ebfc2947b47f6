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

/* ln level of the last commit minus the first's; 0 until both have values. */
static double endpoints_shift(const struct bg_bisect *b)
{
	const struct commit *g = &b->c[0], *r = &b->c[b->N];

	return g->n && r->n ? mean_of(r) - mean_of(g) : 0;
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

/* ---- confirming the regression on the endpoints ---- */

enum verdict3 { V_DIFFERENT, V_SAME, V_UNKNOWN, V_SIGNIFICANT, V_PROMISING };

/*
 * Does the last commit's level exceed the first's? DIFFERENT when the shift is
 * significant (one-sided 1%) and at least the threshold, SAME when even its upper bound
 * (one-sided 5%) stays below the threshold. The known noise gives a z test; without it,
 * Welch's t.
 */
static enum verdict3 endpoints_verdict(const struct bg_bisect *b)
{
	const struct commit *g = &b->c[0], *r = &b->c[b->N];
	double diff, se, zc = Z_CONFIRM, zs = Z_SAME;

	if (g->n < 2 || r->n < 2)
		return V_UNKNOWN;
	diff = endpoints_shift(b);
	if (b->cfg.sigma > 0) {
		se = b->cfg.sigma * sqrt(1.0 / g->n + 1.0 / r->n);
	} else {
		struct bg_welch w;

		if (bg_stats_welch(g->v, g->n, r->v, r->n, &w) < 0)
			return V_UNKNOWN;
		se = w.se;
		zc = bg_t_quantile(0.99, w.df);
		zs = bg_t_quantile(1 - 0.01 / 6, w.df);
	}
	if (diff - zc * se > 0 && diff >= b->cfg.threshold)
		return V_DIFFERENT;
	if (diff + zs * se < b->cfg.threshold)
		return V_SAME;
	/* significant, but maybe smaller than the threshold: more boots may tell */
	if (diff - zc * se > 0)
		return V_SIGNIFICANT;
	/* not significant yet, but as large as the threshold: the bisection will boot more */
	return diff >= b->cfg.threshold ? V_PROMISING : V_UNKNOWN;
}

/* ---- the posterior ---- */

/* The upper median of v[0..n) (the element at n/2 once sorted), as the method uses. */
static double upper_median(const double *v, unsigned n, double *scratch)
{
	memcpy(scratch, v, n * sizeof(*v));
	qsort(scratch, n, sizeof(*scratch), bg_stats_cmp_double);
	return scratch[n / 2];
}

/* Cleans every commit's values and fills ts[], sn, ss, sq for the tested commits. */
static void clean_stats(struct bg_bisect *b)
{
	const struct commit *g = &b->c[b->lo], *r = &b->c[b->hi];
	double sigma = b->cfg.sigma, gmed = 0, rmed = 0, robust = 0;
	bool reject = false;
	unsigned maxn = 1, nres = 0;
	double *scratch, *res = NULL, *kept;

	for (int i = b->lo; i <= b->hi; i++)
		if (b->c[i].n > maxn)
			maxn = b->c[i].n;
	scratch = xmalloc(maxn * sizeof(double));
	kept = xmalloc(maxn * sizeof(double));
	if (sigma > 0 && g->n >= 3 && r->n >= 3) {
		gmed = upper_median(g->v, g->n, scratch);
		rmed = upper_median(r->v, r->n, scratch);
		reject = true;
	}
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

	b->T = 0;
	for (int i = b->lo; i <= b->hi; i++) {
		const struct commit *c = &b->c[i];
		double scale = sigma > 0 ? sigma : robust, sum = 0, sq = 0;
		unsigned n = 0;

		if (!c->n)
			continue;
		if (reject) {
			for (unsigned k = 0; k < c->n; k++)
				if (fmin(fabs(c->v[k] - gmed), fabs(c->v[k] - rmed)) <= REJECT * sigma)
					kept[n++] = c->v[k];
		}
		if (!n) {   /* nothing rejected, or everything: keep all */
			memcpy(kept, c->v, c->n * sizeof(double));
			n = c->n;
		}
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

/* Posterior mass of each segment (ts[j], ts[j+1]], and the levels under each. */
static void compute_posterior(struct bg_bisect *b)
{
	double nu0 = b->cfg.sigma > 0 ? NU0 : 0, s02 = b->cfg.sigma * b->cfg.sigma;
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
	return b->cfg.sigma > 0 ? b->cfg.sigma : fmax(b->split[0].sd, 1e-9);
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
	const struct commit *l = &b->c[b->lo], *h = &b->c[b->hi];
	const struct commit *before = &b->c[first - 1], *after = &b->c[last];
	double span, span_se, step, step_se;

	if (b->cfg.steps == BG_BISECT_ALL_STEPS)
		return true;
	if (b->cfg.steps == BG_BISECT_ONE_STEP || !l->n || !h->n || !before->n || !after->n)
		return false;
	span = mean_of(h) - mean_of(l);
	step = mean_of(after) - mean_of(before);
	if (span < 0) {
		span = -span;
		step = -step;
	}
	span_se = noise(b) * sqrt(1.0 / l->n + 1.0 / h->n);
	step_se = noise(b) * sqrt(1.0 / before->n + 1.0 / after->n);
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
	diff = mean_of(y) - mean_of(x);
	se = noise(b) * sqrt(1.0 / x->n + 1.0 / y->n);
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
		/* an endpoint without a single value yet: boot it */
		request(b, req, nreq, b->c[b->lo].n ? b->hi : b->lo, 1);
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
		if (b->depth == 0 && b->cfg.confirm && !b->confirmed &&
		    (fabs(b->cur_step) - Z_CONFIRM * b->cur_step_se <= 0 ||
		     fabs(b->cur_step) < b->cfg.threshold)) {
			/* a culprit whose step is not significant is no culprit */
			b->result.step = b->cur_step;
			b->result.step_se = b->cur_step_se;
			return finish(b, BG_BISECT_UNKNOWN, a + 1, c, pmax);
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
		enum verdict3 v = endpoints_verdict(b);

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
