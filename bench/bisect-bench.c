/* The bisection benchmark (bisect-bench.h): corpora, samples, git bisect, figures. */
#include <math.h>

#include "bisect-bench.h"
#include "decide/bisect.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/num.h"
#include "util/strbuf.h"
#include "util/xmalloc.h"

/* ---- samples ---- */

static uint64_t splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

static double unit_double(uint64_t *s)
{
	double u = (double)(splitmix64(s) >> 11) / 9007199254740992.0;

	return u > 0 ? u : 1.0 / 9007199254740992.0;
}

double bg_bb_level(const struct bg_bb_history *h, int commit)
{
	for (size_t i = 0; i < h->nlevels; i++)
		if (h->levels[i].from <= commit && commit <= h->levels[i].to)
			return h->levels[i].median;
	return NAN;
}

/*
 * Boot j of commit i depends on (seed, i, j) alone: every algorithm that boots commit i
 * for the j-th time sees the same value, whatever it did before (common random numbers).
 */
int bg_bb_sample(const struct bg_bb_history *h, int commit, uint64_t j, double *ms)
{
	uint64_t s = h->seed ^ ((uint64_t)commit * 0xD1B54A32D192ED03ULL) ^
		     ((j + 1) * 0x8CB92BA72F3D8DD7ULL);
	double u[4], z, v;

	for (int k = 0; k < 4; k++)
		u[k] = unit_double(&s);
	if (u[2] < h->hang)
		return -1;
	z = sqrt(-2.0 * log(u[0])) * cos(2.0 * M_PI * u[1]);
	if (h->df) {
		/* Student's t: z over the root of a chi-square of df normals, from more draws */
		double chi = 0;

		for (unsigned k = 0; k < h->df; k++) {
			double a = unit_double(&s), c = unit_double(&s);
			double n = sqrt(-2.0 * log(a)) * cos(2.0 * M_PI * c);

			chi += n * n;
		}
		z /= sqrt(chi / h->df);
	}
	v = bg_bb_level(h, commit) * exp(h->sigma * z);
	if (u[3] < h->p_slow)
		v *= h->slow;
	*ms = v;
	return 0;
}

void bg_bb_ideal(const struct bg_bb_history *h, int culprit, int *first, int *last)
{
	int g = culprit - 1, b = culprit;

	while (b < h->commits - 1 && h->fail[b])
		b++;
	while (g > 0 && h->fail[g])
		g--;
	*first = g + 1;
	*last = b;
}

/* ---- corpora ---- */

static void history_release(struct bg_bb_history *h)
{
	free(h->id);
	free(h->truth);
	free(h->levels);
	free(h->fail);
}

void bg_bb_corpus_release(struct bg_bb_corpus *c)
{
	for (size_t i = 0; i < c->n; i++)
		history_release(&c->h[i]);
	free(c->h);
	free(c->file);
	free(c->scenario);
	memset(c, 0, sizeof(*c));
}

#define MAX_TOKENS 4096

/* Splits a line into tokens in place; returns how many. */
static size_t tokenize(char *line, char **tok, size_t max, bool *too_many)
{
	size_t n = 0;
	char *p = line;

	*too_many = false;
	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\r')
			p++;
		if (!*p)
			break;
		if (n == max) {
			*too_many = true;
			break;
		}
		tok[n++] = p;
		while (*p && *p != ' ' && *p != '\t' && *p != '\r')
			p++;
		if (*p)
			*p++ = '\0';
	}
	return n;
}

static bool parse_long(const char *s, long *out)
{
	return bg_num_parse_long(s, LONG_MIN, LONG_MAX, out) == 0;
}

static bool parse_u64(const char *s, uint64_t *out)
{
	unsigned long v;

	if (bg_num_parse_ulong(s, 0, ULONG_MAX, &v) < 0)
		return false;
	*out = v;
	return true;
}

/*
 * Corpora write %g, which may be "1e-05": a number here may have an exponent, but no
 * hex, no "inf", and nothing so large that a boot time made from it is not finite.
 */
static bool parse_num(const char *s, double *out)
{
	char *end;

	if (strspn(s, "0123456789.-eE") != strlen(s))
		return false;
	errno = 0;
	*out = strtod(s, &end);
	return !errno && end != s && !*end && isfinite(*out) && fabs(*out) <= 1e12;
}

/* Checks a finished history; returns 0 or an error about it. */
static int check_history(const char *name, const struct bg_bb_history *h)
{
	for (int i = 0; i < h->commits; i++)
		if (isnan(bg_bb_level(h, i)))
			return bg_error("%s:%zu: history '%s': no level for commit %d", name, h->line,
					h->id, i);
	if (h->sigma <= 0 && h->p_slow <= 0)
		return bg_error("%s:%zu: history '%s': no noise line", name, h->line, h->id);
	/* a history without its truth cannot be scored: every answer would be wrong */
	if (!h->ntruth && !h->flat)
		return bg_error("%s:%zu: history '%s': no truth line ('truth none' for one "
				"without a regression)", name, h->line, h->id);
	return 0;
}

#define FAIL(...) do { ret = bg_error(__VA_ARGS__); goto out; } while (0)

int bg_bb_parse_mem(const char *name, const char *text, size_t len, struct bg_bb_corpus *c)
{
	char **tok = xmalloc(MAX_TOKENS * sizeof(*tok));
	struct bg_strbuf line = BG_STRBUF_INIT, orig = BG_STRBUF_INIT;
	struct bg_bb_history *h = NULL;
	const char *scenario;
	const char *p = text, *end = text + len;
	size_t lineno = 0;
	bool versioned = false;
	int ret = 0;

	memset(c, 0, sizeof(*c));
	c->file = xstrdup(name);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((nl ? nl : end) - p), ntok;
		char *hash;
		bool too_many;

		lineno++;
		bg_strbuf_reset(&line);
		bg_strbuf_add(&line, p, n);
		p = nl ? nl + 1 : end;
		if (memchr(line.buf, '\0', line.len))
			FAIL("%s:%zu: binary data", name, lineno);
		if ((hash = strchr(line.buf, '#')))
			*hash = '\0';
		bg_strbuf_reset(&orig);
		bg_strbuf_addstr(&orig, line.buf);
		scenario = orig.buf;
		ntok = tokenize(line.buf, tok, MAX_TOKENS, &too_many);
		if (too_many)
			FAIL("%s:%zu: more than %d words on one line", name, lineno, MAX_TOKENS);
		if (!ntok)
			continue;
		if (!versioned) {
			if (strcmp(tok[0], "bbench") != 0 || ntok != 2)
				FAIL("%s:%zu: a corpus starts with 'bbench 1'", name, lineno);
			if (strcmp(tok[1], "1") != 0)
				FAIL("%s:%zu: unknown corpus version '%s' (this reads 1)", name, lineno,
				     tok[1]);
			versioned = true;
			continue;
		}
		if (!strcmp(tok[0], "scenario")) {
			/* the free text after the word, from the line as it was */
			const char *s = scenario + strspn(scenario, " \t");

			if (c->scenario)
				FAIL("%s:%zu: a second 'scenario' line", name, lineno);
			s += strlen("scenario");
			s += strspn(s, " \t");
			c->scenario = xstrdup(s);
			if ((hash = strchr(c->scenario, '#')))
				*hash = '\0';
			continue;
		}
		if (!strcmp(tok[0], "history")) {
			long commits;
			uint64_t seed;

			if (h)
				FAIL("%s:%zu: 'history' before the 'end' of history '%s'", name, lineno,
				     h->id);
			if (ntok != 6 || strcmp(tok[2], "commits") != 0 || strcmp(tok[4], "seed") != 0)
				FAIL("%s:%zu: expected 'history ID commits C seed S'", name, lineno);
			if (!parse_long(tok[3], &commits) || commits < 2 || commits > 1000000)
				FAIL("%s:%zu: commits must be a number from 2 to 1000000, not '%s'",
				     name, lineno, tok[3]);
			for (size_t i = 0; i < c->n; i++)
				if (!strcmp(c->h[i].id, tok[1]))
					FAIL("%s:%zu: a second history '%s' (the first at line %zu)", name,
					     lineno, tok[1], c->h[i].line);
			if (!parse_u64(tok[5], &seed))
				FAIL("%s:%zu: the seed must be an unsigned 64-bit number, not '%s'",
				     name, lineno, tok[5]);
			ALLOC_GROW(c->h, c->n + 1, c->alloc);
			h = &c->h[c->n++];
			memset(h, 0, sizeof(*h));
			h->id = xstrdup(tok[1]);
			h->commits = (int)commits;
			h->seed = seed;
			h->slow = 1;
			h->line = lineno;
			h->fail = xcalloc((size_t)commits, sizeof(*h->fail));
			continue;
		}
		if (!h)
			FAIL("%s:%zu: '%s' outside a history", name, lineno, tok[0]);
		if (!strcmp(tok[0], "truth")) {
			if (ntok < 2)
				FAIL("%s:%zu: 'truth' needs at least one commit", name, lineno);
			if (h->truth || h->flat)
				FAIL("%s:%zu: history '%s' has a second 'truth' line", name, lineno, h->id);
			/* "truth none": no regression, the right answer is "not reproducible" */
			if (ntok == 2 && !strcmp(tok[1], "none")) {
				h->flat = true;
				continue;
			}
			h->truth = xcalloc(ntok - 1, sizeof(*h->truth));
			h->ntruth = 0;
			for (size_t i = 1; i < ntok; i++) {
				long v;

				if (!parse_long(tok[i], &v) || v < 1 || v >= h->commits)
					FAIL("%s:%zu: truth '%s' is not a commit from 1 to %d", name,
					     lineno, tok[i], h->commits - 1);
				if (h->ntruth && v <= h->truth[h->ntruth - 1])
					FAIL("%s:%zu: truth commits rise, one per step: '%s' after %d",
					     name, lineno, tok[i], h->truth[h->ntruth - 1]);
				h->truth[h->ntruth++] = (int)v;
			}
		} else if (!strcmp(tok[0], "level")) {
			long from, to;
			double m;

			if (ntok != 4)
				FAIL("%s:%zu: expected 'level FROM TO MEDIAN'", name, lineno);
			if (!parse_long(tok[1], &from) || !parse_long(tok[2], &to) || from < 0 ||
			    to < from || to >= h->commits)
				FAIL("%s:%zu: level range %s..%s is not within 0..%d", name, lineno,
				     tok[1], tok[2], h->commits - 1);
			if (!parse_num(tok[3], &m) || m <= 0)
				FAIL("%s:%zu: level median must be a positive number, not '%s'", name,
				     lineno, tok[3]);
			for (size_t i = 0; i < h->nlevels; i++)
				if (from <= h->levels[i].to && h->levels[i].from <= to)
					FAIL("%s:%zu: level %ld..%ld overlaps level %d..%d", name, lineno,
					     from, to, h->levels[i].from, h->levels[i].to);
			ALLOC_GROW(h->levels, h->nlevels + 1, h->alloc_levels);
			h->levels[h->nlevels++] = (struct bg_bb_level){ (int)from, (int)to, m };
		} else if (!strcmp(tok[0], "noise")) {
			bool mix = ntok == 5 && !strcmp(tok[1], "mix");
			bool t = ntok == 4 && !strcmp(tok[1], "t");
			long df;

			if (!(ntok == 3 && !strcmp(tok[1], "lognorm")) && !mix && !t)
				FAIL("%s:%zu: expected 'noise lognorm SIGMA', 'noise mix SIGMA P "
				     "FACTOR' or 'noise t SIGMA DF'", name, lineno);
			if (h->have_noise)
				FAIL("%s:%zu: history '%s' has a second 'noise' line", name, lineno, h->id);
			h->have_noise = true;
			if (!parse_num(tok[2], &h->sigma) || h->sigma < 0 || h->sigma > 5)
				FAIL("%s:%zu: noise sigma must be from 0 to 5, not '%s'", name, lineno,
				     tok[2]);
			if (mix && (!parse_num(tok[3], &h->p_slow) || h->p_slow < 0 || h->p_slow > 1 ||
				    !parse_num(tok[4], &h->slow) || h->slow <= 0))
				FAIL("%s:%zu: mix needs a probability and a positive factor", name,
				     lineno);
			/* 1 degree is Cauchy: a boot's time would overflow */
			if (t && (!parse_long(tok[3], &df) || df < 2 || df > 100))
				FAIL("%s:%zu: t needs degrees of freedom from 2 to 100, not '%s'", name,
				     lineno, tok[3]);
			h->df = t ? (unsigned)df : 0;
		} else if (!strcmp(tok[0], "hang")) {
			if (h->have_hang)
				FAIL("%s:%zu: history '%s' has a second 'hang' line", name, lineno, h->id);
			h->have_hang = true;
			if (ntok != 2 || !parse_num(tok[1], &h->hang) || h->hang < 0 || h->hang >= 1)
				FAIL("%s:%zu: hang needs a probability below 1", name, lineno);
		} else if (!strcmp(tok[0], "build_fail")) {
			for (size_t i = 1; i < ntok; i++) {
				long v;

				if (!parse_long(tok[i], &v) || v < 1 || v >= h->commits - 1)
					FAIL("%s:%zu: build_fail '%s' is not a commit from 1 to %d (the "
					     "endpoints build)", name, lineno, tok[i], h->commits - 2);
				if (h->fail[v])
					FAIL("%s:%zu: build_fail names commit %ld twice", name, lineno, v);
				h->fail[v] = true;
			}
		} else if (!strcmp(tok[0], "end")) {
			if ((ret = check_history(name, h)) < 0)
				goto out;
			h = NULL;
		} else {
			FAIL("%s:%zu: unknown directive '%s'", name, lineno, tok[0]);
		}
	}
	if (!versioned)
		FAIL("%s: empty corpus: no 'bbench 1' line", name);
	if (h)
		FAIL("%s:%zu: history '%s' has no 'end'", name, lineno, h->id);
	if (!c->n)
		FAIL("%s: no history in the corpus", name);
out:
	free(tok);
	bg_strbuf_release(&line);
	bg_strbuf_release(&orig);
	if (ret < 0)
		bg_bb_corpus_release(c);
	return ret;
}

int bg_bb_parse(const char *path, struct bg_bb_corpus *c)
{
	size_t len;
	char *text = bg_read_file(path, (size_t)1 << 30, &len);
	int ret;

	if (!text)
		return -1;
	ret = bg_bb_parse_mem(path, text, len, c);
	free(text);
	return ret;
}

/* ---- generating corpora ---- */

#define BB_PER_LINE 64

void bg_bb_gen_init(struct bg_bb_gen *g)
{
	memset(g, 0, sizeof(*g));
	g->N = 128;
	g->d = 0.05;
	g->cv = 0.05;
	g->hang = 0.01;
	g->bf = 0.05;
	g->base = 2500;
	g->histories = 1000;
	g->seed = 1;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return x < y ? -1 : x > y;
}

int bg_bb_generate(FILE *out, const struct bg_bb_gen *g)
{
	uint64_t rng = g->seed;
	double sigma = sqrt(log1p(g->cv * g->cv));
	unsigned nsteps = g->nsteps ? g->nsteps : 1;

	fprintf(out, "bbench 1\n");
	fprintf(out, "scenario N=%d d=%g cv=%g hang=%g build_fail=%g histories=%u seed=%" PRIu64,
		g->N, g->d, g->cv, g->hang, g->bf, g->histories, g->seed);
	if (g->p_slow > 0)
		fprintf(out, " mix=%g,%g", g->p_slow, g->slow);
	if (g->df)
		fprintf(out, " tails=%u", g->df);
	if (g->nsteps) {
		fprintf(out, " steps=");
		for (unsigned i = 0; i < g->nsteps; i++)
			fprintf(out, "%s%g", i ? "," : "", g->steps[i]);
	}
	fprintf(out, "\n");
	for (unsigned hid = 0; hid < g->histories; hid++) {
		int pos[8] = { 0 };
		unsigned placed = 0;
		double level = g->base;
		int from = 0;

		/* distinct culprits, uniform over 1..N */
		while (placed < nsteps && placed < (unsigned)g->N) {
			int c = 1 + (int)(unit_double(&rng) * g->N);
			bool dup = false;

			if (c > g->N)
				c = g->N;
			for (unsigned i = 0; i < placed; i++)
				dup |= pos[i] == c;
			if (!dup)
				pos[placed++] = c;
		}
		qsort(pos, placed, sizeof(*pos), cmp_int);
		fprintf(out, "history %u commits %d seed %" PRIu64 "\n", hid, g->N + 1,
			splitmix64(&rng));
		fprintf(out, "truth");
		for (unsigned i = 0; i < placed; i++)
			fprintf(out, " %d", pos[i]);
		fprintf(out, "\n");
		for (unsigned i = 0; i < placed; i++) {
			double frac = g->nsteps ? g->steps[i] : 1.0;

			fprintf(out, "level %d %d %.6f\n", from, pos[i] - 1, level);
			level *= exp(log1p(g->d) * frac);
			from = pos[i];
		}
		fprintf(out, "level %d %d %.6f\n", from, g->N, level);
		if (g->p_slow > 0)
			fprintf(out, "noise mix %.6f %g %g\n", sigma, g->p_slow, g->slow);
		else if (g->df)
			fprintf(out, "noise t %.6f %u\n", sigma, g->df);
		else
			fprintf(out, "noise lognorm %.6f\n", sigma);
		fprintf(out, "hang %g\n", g->hang);
		{
			/* several lines for many failures: the reader takes so many words a line */
			unsigned on_line = 0;

			for (int i = 1; i < g->N; i++) {
				if (unit_double(&rng) < g->bf) {
					fprintf(out, "%s %d", on_line ? "" : "build_fail", i);
					if (++on_line == BB_PER_LINE) {
						fprintf(out, "\n");
						on_line = 0;
					}
				}
			}
			if (on_line)
				fprintf(out, "\n");
		}
		fprintf(out, "end\n");
	}
	return ferror(out) ? -1 : 0;
}

/* ---- running the algorithms ---- */

struct oracle {
	const struct bg_bb_history *h;
	uint64_t *next_j;       /* boots of each commit so far */
	double log_base;
	unsigned boots, hung, builds, failed_builds, rounds;
};

/* The next boot of a commit: 0 and its ln value relative to commit 0, -1 if it hung. */
static int oracle_boot(struct oracle *o, int commit, double *v)
{
	double ms;

	o->boots++;
	if (bg_bb_sample(o->h, commit, o->next_j[commit]++, &ms) < 0) {
		o->hung++;
		return -1;
	}
	*v = log(ms) - o->log_base;
	return 0;
}

static void serve(struct oracle *o, struct bg_bisect *b, const struct bg_bisect_config *cfg)
{
	const struct bg_bb_history *h = o->h;
	struct bg_bisect_request req[64];
	size_t n;

	(void)cfg;
	while (bg_bisect_next(b, req, ARRAY_SIZE(req), &n) == BG_BISECT_MEASURE) {
		for (size_t i = 0; i < n; i++) {
			unsigned got = 0, tries = 0;
			int c = req[i].commit;

			if (req[i].build) {
				bg_bisect_built(b, c, !h->fail[c]);
				if (h->fail[c])
					continue;
			}
			while (got < req[i].values && tries < req[i].max_boots) {
				double v;

				tries++;
				if (oracle_boot(o, c, &v) == 0) {
					bg_bisect_value(b, c, v);
					got++;
				} else {
					bg_bisect_infra(b, c);
				}
			}
		}
	}
}

void bg_bb_bisect(const struct bg_bb_history *h, const struct bg_bisect_config *cfg,
		  struct bg_bisect_result *res, struct bg_bisect_counts *counts)
{
	struct oracle o = { h, xcalloc((size_t)h->commits, sizeof(uint64_t)),
			    log(bg_bb_level(h, 0)), 0, 0, 0, 0, 0 };
	struct bg_bisect_config c = *cfg;
	struct bg_bisect *b;

	c.commits = h->commits;
	b = bg_bisect_new(&c);
	serve(&o, b, &c);
	*res = *bg_bisect_result(b);
	bg_bisect_counts(b, counts);
	bg_bisect_free(b);
	free(o.next_j);
}

/*
 * bootgate's engine as CI would run it: the noise known from history (the lognormal
 * part's, for a bimodal or heavy-tailed corpus), or from the boots alone as the service
 * bisects; robust off is the model alone, as before (bisect.h).
 */
static void run_bootgate(struct oracle *o, const struct bg_bb_opts *opt, bool robust,
			 struct bg_bisect_result *res)
{
	unsigned k = opt->k;
	const struct bg_bb_history *h = o->h;
	struct bg_bisect_config cfg;
	struct bg_bisect *b;
	struct bg_bisect_counts counts;

	bg_bisect_config_init(&cfg, h->commits);
	cfg.sigma = opt->no_history ? 0 : h->sigma;
	cfg.robust = robust;
	cfg.workers = k > 64 ? 64 : k;
	if (opt->all_steps)
		cfg.steps = BG_BISECT_ALL_STEPS;
	/* the smallest regression worth a report: half the planted one */
	cfg.threshold = 0.5 * fabs(log(bg_bb_level(h, h->commits - 1)) - o->log_base);
	b = bg_bisect_new(&cfg);
	serve(o, b, &cfg);
	bg_bisect_counts(b, &counts);
	o->builds = counts.builds;
	o->failed_builds = counts.failed_builds;
	o->rounds = counts.rounds;
	*res = *bg_bisect_result(b);
	bg_bisect_free(b);
}

/* git bisect.c's skip_away(): a deterministic, sqrt-biased pick among unskipped commits. */
static int skip_away(const int *flt, size_t count)
{
	unsigned long prn = ((count * 1103515245ul + 12345ul) & 0xFFFFFFFFul) / 65536 % 32768;
	size_t idx = (size_t)((count * prn / 32768) * (unsigned long)sqrt((double)prn) /
			      (unsigned long)sqrt(32768.0));

	return flt[idx < count ? idx : count - 1];
}

/*
 * git bisect run with a script that boots once and compares with a fixed threshold at
 * the geometric middle of the true good and bad levels (the best a fixed threshold can
 * do); a build failure is "git bisect skip", a hung boot is booted again.
 */
static void run_git_bisect(struct oracle *o, int *first, int *last)
{
	const struct bg_bb_history *h = o->h;
	int N = h->commits - 1, good = 0, bad = N;
	double thr = 0.5 * (log(bg_bb_level(h, N)) - o->log_base);
	bool *skipped = xcalloc((size_t)N + 1, sizeof(*skipped));
	int *order = xmalloc(((size_t)N + 1) * sizeof(*order));
	int *flt = xmalloc(((size_t)N + 1) * sizeof(*flt));

	for (;;) {
		size_t n = 0, nf = 0;
		int m;

		if (bad - good <= 1) {
			*first = *last = bad;
			break;
		}
		/*
		 * git's order for a linear history: by (-min(i - good, bad - i), i), nearest the
		 * middle first. The commits at distance k from an end are good + k and bad - k,
		 * so the order is written out from the largest k down, in linear time.
		 */
		for (int k = (bad - good) / 2; k >= 0; k--) {
			int lo = good + k, hi = bad - k;

			if (lo > good && lo <= bad)
				order[n++] = lo;
			if (hi != lo && hi > good)
				order[n++] = hi;
		}
		for (size_t i = 0; i < n; i++)
			if (!skipped[order[i]])
				flt[nf++] = order[i];
		if (nf == 1 && flt[0] == bad) {   /* only skipped commits left */
			*first = good + 1;
			*last = bad;
			break;
		}
		if (!skipped[order[0]]) {
			m = order[0];
		} else {
			size_t idx;

			m = skip_away(flt, nf);
			for (idx = 0; idx < nf && flt[idx] != m; idx++)
				;
			if (m == bad)
				m = idx > 0 ? flt[idx - 1] : flt[0];
			if (m == bad) {
				*first = good + 1;
				*last = bad;
				break;
			}
		}
		o->rounds++;
		o->builds++;
		if (h->fail[m]) {
			o->failed_builds++;
			skipped[m] = true;
			continue;
		}
		{
			double v;

			while (oracle_boot(o, m, &v) < 0)
				;
			if (v > thr)
				bad = m;
			else
				good = m;
		}
	}
	free(skipped);
	free(order);
	free(flt);
}

const char *bg_bb_algo_name(enum bg_bb_algo a)
{
	return a == BG_BB_BOOTGATE ? "bootgate" : a == BG_BB_MODEL_ONLY ? "model-only" : "git-bisect";
}

/* The reported set is a step of the history, or there is none and none was reported. */
static bool is_truth(const struct bg_bb_history *h, int first, int last)
{
	for (size_t t = 0; t < h->ntruth; t++) {
		int f, l;

		bg_bb_ideal(h, h->truth[t], &f, &l);
		if (first == f && last == l)
			return true;
	}
	return false;
}

/* Scores a report against a history's truth. */
static void score(struct bg_bb_score *s, const struct bg_bb_history *h,
		  const struct bg_bisect_result *r)
{
	bool all = true;
	size_t matched = 0;

	/* a culprit named with a posterior over 0.9, and wrong */
	if (r->outcome == BG_BISECT_FOUND) {
		bool wrong = !r->nculprits && r->probability > 0.9 && !is_truth(h, r->first, r->last);

		for (unsigned i = 0; i < r->nculprits; i++)
			wrong |= r->culprits[i].probability > 0.9 &&
				 !is_truth(h, r->culprits[i].first, r->culprits[i].last);
		s->confident_wrong += wrong;
	}
	if (h->flat) {
		s->correct += r->outcome == BG_BISECT_NOT_REPRODUCIBLE;
		s->false_culprits += r->nculprits;
		return;
	}
	for (size_t t = 0; t < h->ntruth; t++) {
		int f, l;
		bool hit = false;

		bg_bb_ideal(h, h->truth[t], &f, &l);
		for (unsigned i = 0; i < r->nculprits; i++)
			hit |= r->culprits[i].first == f && r->culprits[i].last == l;
		if (!r->nculprits && t == 0)
			hit = r->first == f && r->last == l;
		all &= hit;
		s->steps_found += hit;
		matched += hit;
	}
	s->steps += h->ntruth;
	s->false_culprits += r->nculprits > matched ? r->nculprits - matched : 0;
	/* right, and said: an unknown with the right set as its most likely is not an answer */
	s->correct += all && r->nculprits <= h->ntruth && r->outcome == BG_BISECT_FOUND;
	for (size_t t = 0; t < h->ntruth; t++)
		if (r->first <= h->truth[t] && h->truth[t] <= r->last) {
			s->in_set++;
			break;
		}
}

void bg_bb_run(const struct bg_bb_corpus *c, enum bg_bb_algo algo, const struct bg_bb_opts *opt,
	       struct bg_bb_score *s)
{
	memset(s, 0, sizeof(*s));
	s->algo = algo;
	s->k = algo == BG_BB_GIT_BISECT ? 1 : opt->k;
	s->boot_counts = xcalloc(c->n ? c->n : 1, sizeof(*s->boot_counts));
	for (size_t i = 0; i < c->n; i++) {
		const struct bg_bb_history *h = &c->h[i];
		struct oracle o = { h, xcalloc((size_t)h->commits, sizeof(uint64_t)),
				    log(bg_bb_level(h, 0)), 0, 0, 0, 0, 0 };
		struct bg_bisect_result r;

		memset(&r, 0, sizeof(r));
		if (algo != BG_BB_GIT_BISECT) {
			run_bootgate(&o, opt, algo == BG_BB_BOOTGATE, &r);
		} else {
			run_git_bisect(&o, &r.first, &r.last);
			r.outcome = BG_BISECT_FOUND;
			r.culprits[0] = (struct bg_bisect_culprit){ r.first, r.last, 1, 0, 0 };
			r.nculprits = 1;
		}
		score(s, h, &r);
		s->unknown += r.outcome != BG_BISECT_FOUND;
		s->set_size += r.last - r.first + 1;
		s->boots += o.boots;
		s->boot_counts[s->histories] = o.boots;
		s->builds += o.builds;
		s->rounds += o.rounds;
		s->hung += o.hung;
		s->failed_builds += o.failed_builds;
		s->histories++;
		free(o.next_j);
	}
}

void bg_bb_score_release(struct bg_bb_score *s)
{
	free(s->boot_counts);
	s->boot_counts = NULL;
}

static int cmp_unsigned(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return x < y ? -1 : x > y;
}

unsigned bg_bb_score_boots_quantile(const struct bg_bb_score *s, double q)
{
	unsigned *v, r;

	if (!s->histories)
		return 0;
	v = xmalloc(s->histories * sizeof(*v));
	memcpy(v, s->boot_counts, s->histories * sizeof(*v));
	qsort(v, s->histories, sizeof(*v), cmp_unsigned);
	/* the nearest rank: the smallest value with at least q of the histories at or below */
	{
		size_t rank = (size_t)ceil(q * (double)s->histories);

		r = v[rank ? rank - 1 : 0];
	}
	free(v);
	return r;
}
