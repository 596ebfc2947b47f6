/* The statistics bootgate decides with; formulas and their sources are in the comments. */
#include <math.h>

#include "decide/stats.h"
#include "util/error.h"
#include "util/xmalloc.h"

int bg_stats_check(const double *x, size_t n, const char *what)
{
	for (size_t i = 0; i < n; i++) {
		if (isnan(x[i]))
			return bg_error("sample %zu of '%s' is not a number", i + 1, what);
		if (x[i] < 0)
			return bg_error("sample %zu of '%s' is negative (%g)", i + 1, what, x[i]);
		if (!(x[i] <= BG_STATS_MAX_VALUE))
			return bg_error("sample %zu of '%s' is absurd (%g us)", i + 1, what, x[i]);
	}
	return 0;
}

int bg_stats_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double *sorted_copy(const double *x, size_t n)
{
	double *s = xmalloc((n ? n : 1) * sizeof(*s));

	memcpy(s, x, n * sizeof(*s));
	qsort(s, n, sizeof(*s), bg_stats_cmp_double);
	return s;
}

double bg_stats_quantile(const double *x, size_t n, double q)
{
	double *s, h, v;
	size_t lo;

	if (!n)
		return NAN;
	s = sorted_copy(x, n);
	h = (double)(n - 1) * q;
	lo = (size_t)floor(h);
	v = lo + 1 < n ? s[lo] + (h - (double)lo) * (s[lo + 1] - s[lo]) : s[n - 1];
	free(s);
	return v;
}

double bg_stats_median(const double *x, size_t n)
{
	return bg_stats_quantile(x, n, 0.5);
}

double bg_stats_mad(const double *x, size_t n)
{
	double m, *d, v;

	if (!n)
		return NAN;
	m = bg_stats_median(x, n);
	d = xmalloc(n * sizeof(*d));
	for (size_t i = 0; i < n; i++)
		d[i] = fabs(x[i] - m);
	v = 1.4826 * bg_stats_median(d, n);
	free(d);
	return v;
}

double bg_stats_mean(const double *x, size_t n)
{
	double s = 0;

	if (!n)
		return NAN;
	for (size_t i = 0; i < n; i++)
		s += x[i];
	return s / (double)n;
}

double bg_stats_var(const double *x, size_t n)
{
	double m, s = 0;

	if (n < 2)
		return 0;
	m = bg_stats_mean(x, n);
	for (size_t i = 0; i < n; i++)
		s += (x[i] - m) * (x[i] - m);
	return s / (double)(n - 1);
}

/* ---- distributions ---- */

double bg_norm_cdf(double x)
{
	return 0.5 * erfc(-x / M_SQRT2);
}

double bg_norm_quantile(double p)
{
	double q, t, x;

	if (!(p > 0 && p < 1))
		return p == 0 ? -INFINITY : p == 1 ? INFINITY : NAN;
	/* Abramowitz & Stegun 26.2.23 (error < 4.5e-4), then Newton steps on erfc */
	q = p < 0.5 ? p : 1 - p;
	t = sqrt(-2 * log(q));
	x = t - (2.515517 + 0.802853 * t + 0.010328 * t * t) /
		(1 + 1.432788 * t + 0.189269 * t * t + 0.001308 * t * t * t);
	if (p < 0.5)
		x = -x;
	for (int i = 0; i < 6; i++) {
		double pdf = exp(-0.5 * x * x) / sqrt(2 * M_PI);
		double step;

		if (pdf <= 0)
			break;
		step = (bg_norm_cdf(x) - p) / pdf;
		x -= step;
		if (fabs(step) < 1e-15 * (1 + fabs(x)))
			break;
	}
	return x;
}

/* Continued fraction of the incomplete beta function, by the modified Lentz method. */
static double betacf(double a, double b, double x)
{
	const double tiny = 1e-300;
	double c = 1, d = 1 - (a + b) * x / (a + 1), h;

	if (fabs(d) < tiny)
		d = tiny;
	d = 1 / d;
	h = d;
	for (int m = 1; m <= 500; m++) {
		double m2 = 2.0 * m, aa, del;

		aa = m * (b - m) * x / ((a - 1 + m2) * (a + m2));
		d = 1 + aa * d;
		d = fabs(d) < tiny ? 1 / tiny : 1 / d;
		c = 1 + aa / c;
		if (fabs(c) < tiny)
			c = tiny;
		h *= d * c;
		aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + 1 + m2));
		d = 1 + aa * d;
		d = fabs(d) < tiny ? 1 / tiny : 1 / d;
		c = 1 + aa / c;
		if (fabs(c) < tiny)
			c = tiny;
		del = d * c;
		h *= del;
		if (fabs(del - 1) < 1e-15)
			break;
	}
	return h;
}

double bg_betainc(double a, double b, double x)
{
	double lbt;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	lbt = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x);
	/* the fraction converges fast for x < (a+1)/(a+b+2); else use the symmetry */
	if (x < (a + 1) / (a + b + 2))
		return exp(lbt) * betacf(a, b, x) / a;
	return 1 - exp(lbt) * betacf(b, a, 1 - x) / b;
}

double bg_t_cdf(double t, double df)
{
	double tail;

	if (isinf(t))
		return t > 0 ? 1 : 0;
	tail = 0.5 * bg_betainc(df / 2, 0.5, df / (df + t * t));
	return t > 0 ? 1 - tail : tail;
}

double bg_t_quantile(double p, double df)
{
	double lo = -1e4, hi = 1e4;

	if (!(p > 0 && p < 1))
		return p == 0 ? -INFINITY : p == 1 ? INFINITY : NAN;
	if (df > 1e7)
		return bg_norm_quantile(p);
	for (int i = 0; i < 200; i++) {
		double mid = 0.5 * (lo + hi);

		if (bg_t_cdf(mid, df) < p)
			lo = mid;
		else
			hi = mid;
	}
	return 0.5 * (lo + hi);
}

/* ---- tests ---- */

int bg_stats_welch(const double *a, size_t na, const double *b, size_t nb, struct bg_welch *out)
{
	double va, vb, se2, den = 0;

	if (na < 2 || nb < 2)
		return bg_error("Welch's t needs two values on each side (%zu and %zu)", na, nb);
	va = bg_stats_var(a, na);
	vb = bg_stats_var(b, nb);
	out->diff = bg_stats_mean(b, nb) - bg_stats_mean(a, na);
	se2 = va / (double)na + vb / (double)nb;
	if (se2 <= 0) {
		/* no spread at all: any difference is certain, none is certainly none */
		out->se = 0;
		out->df = (double)(na + nb - 2);
		out->t = out->diff == 0 ? 0 : copysign(INFINITY, out->diff);
		out->p = out->diff == 0 ? 1 : 0;
		return 0;
	}
	out->se = sqrt(se2);
	den += (va / (double)na) * (va / (double)na) / (double)(na - 1);
	den += (vb / (double)nb) * (vb / (double)nb) / (double)(nb - 1);
	out->df = den > 0 ? se2 * se2 / den : (double)(na + nb - 2);
	out->t = out->diff / out->se;
	out->p = bg_betainc(out->df / 2, 0.5, out->df / (out->df + out->t * out->t));
	return 0;
}

struct ranked {
	double v;
	int group;        /* 0: a, 1: b */
};

static int cmp_ranked(const void *x, const void *y)
{
	return bg_stats_cmp_double(&((const struct ranked *)x)->v, &((const struct ranked *)y)->v);
}

/*
 * Twice the mid-ranks of the pooled sample (integers), in r2[], with the group of each.
 * Returns the tie correction sum(t^3 - t) over groups of ties.
 */
static double midranks2(const double *a, size_t na, const double *b, size_t nb,
			long *r2, int *group)
{
	size_t n = na + nb;
	struct ranked *all = xmalloc(n * sizeof(*all));
	double tcorr = 0;

	for (size_t i = 0; i < na; i++)
		all[i] = (struct ranked){ a[i], 0 };
	for (size_t i = 0; i < nb; i++)
		all[na + i] = (struct ranked){ b[i], 1 };
	qsort(all, n, sizeof(*all), cmp_ranked);
	for (size_t i = 0; i < n;) {
		size_t j = i;

		while (j + 1 < n && all[j + 1].v == all[i].v)
			j++;
		for (size_t k = i; k <= j; k++) {
			r2[k] = (long)(i + j + 2);     /* 2 * ((i+1) + (j+1)) / 2 */
			group[k] = all[k].group;
		}
		tcorr += pow((double)(j - i + 1), 3) - (double)(j - i + 1);
		i = j + 1;
	}
	free(all);
	return tcorr;
}

/*
 * The exact null distribution of S = the sum of nb of the scores r2[0..n), every subset
 * equally likely: counts[s] for s in 0..max. Exact with ties too, since the scores are
 * the (doubled) mid-ranks actually observed.
 */
static double *subset_sum_counts(const long *r2, size_t n, size_t nb, long *max)
{
	long total = 0;
	double *dp;
	size_t width;

	for (size_t i = 0; i < n; i++)
		total += r2[i];
	*max = total;
	width = (size_t)total + 1;
	dp = xcalloc((nb + 1) * width, sizeof(*dp));
	dp[0] = 1;
	for (size_t i = 0; i < n; i++) {
		size_t top = i + 1 < nb ? i + 1 : nb;

		for (size_t k = top; k >= 1; k--) {
			double *to = dp + k * width, *from = dp + (k - 1) * width;

			for (long s = total; s >= r2[i]; s--)
				to[s] += from[s - r2[i]];
		}
	}
	memmove(dp, dp + nb * width, width * sizeof(*dp));
	return xrealloc(dp, width * sizeof(*dp));
}

/* Largest na * nb for which the exact distribution is computed. */
#define MWU_EXACT_MAX 400

int bg_stats_mwu(const double *a, size_t na, const double *b, size_t nb, struct bg_mwu *out)
{
	size_t n = na + nb;
	long *r2, w2 = 0;
	int *group;
	double tcorr, mu, sd;

	if (!na || !nb)
		return bg_error("Mann-Whitney U needs values on both sides (%zu and %zu)", na, nb);
	r2 = xmalloc(n * sizeof(*r2));
	group = xmalloc(n * sizeof(*group));
	tcorr = midranks2(a, na, b, nb, r2, group);
	for (size_t i = 0; i < n; i++)
		if (group[i])
			w2 += r2[i];
	/* U_b = W_b - nb(nb+1)/2, with W_b the rank sum of b */
	out->u = (double)w2 / 2 - (double)nb * (double)(nb + 1) / 2;
	if (na * nb <= MWU_EXACT_MAX) {
		long max;
		double *cnt = subset_sum_counts(r2, n, nb, &max);
		double total = 0, le = 0, ge = 0;

		for (long s = 0; s <= max; s++) {
			total += cnt[s];
			if (s <= w2)
				le += cnt[s];
			if (s >= w2)
				ge += cnt[s];
		}
		out->p = fmin(1, 2 * fmin(le, ge) / total);
		out->exact = true;
		free(cnt);
	} else {
		mu = (double)na * (double)nb / 2;
		sd = sqrt((double)na * (double)nb / 12 *
			  ((double)(n + 1) - tcorr / ((double)n * (double)(n - 1))));
		out->p = sd > 0 ? fmin(1, 2 * (1 - bg_norm_cdf((fabs(out->u - mu) - 0.5) / sd))) : 1;
		out->exact = false;
	}
	free(r2);
	free(group);
	return 0;
}

/*
 * The k-th smallest (from 0) of the na * nb differences b[j] - a[i], a and b sorted,
 * without forming them: in the matrix of differences each row rises with j and each
 * column falls with i, so the differences below a pivot are counted in one O(na + nb)
 * walk. Each round keeps, per row, the columns still in play and narrows them around a
 * pivot drawn at random from them (a Johnson-Mizoguchi-style selection in a sorted
 * matrix): O((na + nb) log(na nb)) expected, memory O(na + nb). Comparisons use the
 * computed differences themselves, so the answer is exactly one of them.
 */
static double select_pairwise(const double *a, size_t na, const double *b, size_t nb, size_t k)
{
	size_t *lo = xmalloc(na * sizeof(*lo)), *hi = xmalloc(na * sizeof(*hi));
	uint64_t rng = 0x9E3779B97F4A7C15ULL ^ (uint64_t)na * 31 ^ (uint64_t)nb * 131 ^ k;
	double answer = NAN;

	if (!na || !nb || k >= na * nb) {
		free(lo);
		free(hi);
		return NAN;
	}
	for (size_t i = 0; i < na; i++) {
		lo[i] = 0;
		hi[i] = nb;
	}
	for (int round = 0;; round++) {
		size_t active = 0, below = 0, lt = 0, le = 0, cnt_lt = 0, cnt_le = 0, r;
		double p = 0;

		for (size_t i = 0; i < na; i++) {
			active += hi[i] - lo[i];
			below += lo[i];
		}
		/* few left (or, never seen, no progress): sort them */
		if (active == 0 || active <= na + nb || round >= 256) {
			double *v = xmalloc((active ? active : 1) * sizeof(*v));
			size_t n = 0;

			for (size_t i = 0; i < na; i++)
				for (size_t j = lo[i]; j < hi[i]; j++)
					v[n++] = b[j] - a[i];
			qsort(v, n, sizeof(*v), bg_stats_cmp_double);
			answer = v[k - below];
			free(v);
			break;
		}
		rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
		/* active > na + nb here; clang-tidy 14 loses that on its way round the loop */
		r = (size_t)((rng >> 11) % active);   /* NOLINT(clang-analyzer-core.DivideZero) */
		for (size_t i = 0; i < na; i++) {
			if (r < hi[i] - lo[i]) {
				p = b[lo[i] + r] - a[i];
				break;
			}
			r -= hi[i] - lo[i];
		}
		/* differences < p and <= p in each row: both counts only grow with i */
		for (size_t i = 0; i < na; i++) {
			while (lt < nb && b[lt] - a[i] < p)
				lt++;
			while (le < nb && b[le] - a[i] <= p)
				le++;
			cnt_lt += lt;
			cnt_le += le;
		}
		if (k >= cnt_lt && k < cnt_le) {
			answer = p;
			break;
		}
		lt = le = 0;
		for (size_t i = 0; i < na; i++) {
			while (lt < nb && b[lt] - a[i] < p)
				lt++;
			while (le < nb && b[le] - a[i] <= p)
				le++;
			if (k < cnt_lt && hi[i] > lt)
				hi[i] = lt < lo[i] ? lo[i] : lt;
			else if (k >= cnt_le && lo[i] < le)
				lo[i] = le > hi[i] ? hi[i] : le;
		}
	}
	free(lo);
	free(hi);
	return answer;
}

int bg_stats_hodges_lehmann(const double *a, size_t na, const double *b, size_t nb,
			    double alpha, struct bg_hl *out)
{
	size_t m = na * nb, k = 0;
	double *sa, *sb;

	if (!na || !nb)
		return bg_error("Hodges-Lehmann needs values on both sides (%zu and %zu)", na, nb);
	sa = sorted_copy(a, na);
	sb = sorted_copy(b, nb);
	out->shift = m % 2 ? select_pairwise(sa, na, sb, nb, m / 2) :
		     0.5 * (select_pairwise(sa, na, sb, nb, m / 2 - 1) +
			    select_pairwise(sa, na, sb, nb, m / 2));

	/*
	 * The interval [D(k), D(m+1-k)] of the ordered differences, k the largest count with
	 * P(U < k) <= alpha/2 under the null (exact for small samples, else normal).
	 */
	if (m <= MWU_EXACT_MAX) {
		size_t n = na + nb;
		long *r2 = xmalloc(n * sizeof(*r2)), max;
		double *cnt, total = 0, cum = 0;

		for (size_t i = 0; i < n; i++)
			r2[i] = (long)(2 * (i + 1));
		cnt = subset_sum_counts(r2, n, nb, &max);
		for (long s = 0; s <= max; s++)
			total += cnt[s];
		/* U = S/2 - nb(nb+1)/2: walk U = 0, 1, ... while P(U <= u) stays within alpha/2 */
		for (long s = (long)(nb * (nb + 1)); s <= max; s += 2) {
			cum += cnt[s];
			if (cum / total > alpha / 2)
				break;
			k++;
		}
		free(cnt);
		free(r2);
	} else {
		double c = (double)m / 2 - bg_norm_quantile(1 - alpha / 2) *
			   sqrt((double)na * (double)nb * (double)(na + nb + 1) / 12);

		k = c > 0 ? (size_t)floor(c) : 0;
	}
	if (k < 1 || k > m / 2)
		k = 1;   /* too few values for this confidence: the widest interval there is */
	out->lo = select_pairwise(sa, na, sb, nb, k - 1);
	out->hi = select_pairwise(sa, na, sb, nb, m - k);
	free(sa);
	free(sb);
	return 0;
}

struct pidx {
	double p;
	size_t i;
};

static int cmp_pidx(const void *x, const void *y)
{
	const struct pidx *a = x, *b = y;

	if (a->p != b->p)
		return a->p < b->p ? -1 : 1;
	return a->i < b->i ? -1 : a->i > b->i;
}

void bg_stats_bh(const double *p, size_t m, double *q)
{
	struct pidx *s;
	double run = 1;

	if (!m)
		return;
	s = xmalloc(m * sizeof(*s));
	for (size_t i = 0; i < m; i++)
		s[i] = (struct pidx){ p[i], i };
	qsort(s, m, sizeof(*s), cmp_pidx);
	/* q_(i) = min over j >= i of p_(j) m / j, capped at 1 */
	for (size_t r = m; r >= 1; r--) {
		double v = s[r - 1].p * (double)m / (double)r;

		if (v < run)
			run = v;
		q[s[r - 1].i] = run;
	}
	free(s);
}

void bg_stats_wilson(size_t k, size_t n, double z, double *lo, double *hi)
{
	double nn = (double)n, p, center, half;

	if (!n) {
		*lo = 0;
		*hi = 1;
		return;
	}
	p = (double)k / nn;
	center = (p + z * z / (2 * nn)) / (1 + z * z / nn);
	half = z / (1 + z * z / nn) * sqrt(p * (1 - p) / nn + z * z / (4 * nn * nn));
	*lo = fmax(0, center - half);
	*hi = fmin(1, center + half);
}
