/* Bisections of real kernels (bisection.h). */
#include <math.h>

#include "ci/bisection.h"
#include "decide/bisect.h"
#include "decide/stats.h"
#include "conf/board.h"
#include "net/git.h"
#include "lab/pipeline.h"
#include "lab/record.h"
#include "lab/reuse.h"
#include "conf/tree.h"
#include "lab/workers.h"
#include "store/bisections.h"
#include "store/lab.h"
#include "store/results.h"
#include "util/error.h"
#include "util/log.h"
#include "util/fs.h"
#include "util/hash.h"
#include "util/path.h"
#include "util/strbuf.h"
#include "util/strvec.h"
#include "util/xmalloc.h"

/* Boots of each endpoint before the metric is chosen: two show a deterministic repeat. */
#define ENDPOINT_BOOTS_EXACT 2
#define ENDPOINT_BOOTS_TIMING 3
/* Timing confirmation: boots per side in all at the looks, up to the last. */
static const unsigned confirm_looks[] = { 5, 10, 20 };

enum report_kind { R_BUILT, R_UNBUILDABLE, R_VALUE, R_INFRA };
static const char *const report_names[] = { "built", "unbuildable", "value", "infra" };

struct report {
	enum report_kind kind;
	int64_t boot;
	double value;
};

struct queue {
	struct report *r;
	size_t n, alloc, next;
};

struct probe {
	char sha[BG_OID_HEX];
	bool known;               /* built or unbuildable, this run knows which */
	bool unbuildable;
	char *image, *image_sha256;
	int64_t build;
	struct queue replay;      /* what the store says the engine was told */
};

struct run {
	struct bg_store *s;
	const struct bg_bisection_opts *o;
	const char *lab;
	char *board;              /* the board's own name */
	const char *mode;
	struct bg_tree tree;
	int64_t id, tree_id, seq;
	char *metric;
	struct probe *c;
	int n;
	bool exact;
	struct bg_bisect *engine;
	struct bg_compare_config cmp;
	bool inner;               /* inside the branch a merge brought */
	int lock_fd;
	struct bg_reuse reuse;    /* its builds and boots */
};

/* ---- the bisection's row ---- */

static int add_chain(const struct bg_store_row *row, void *data)
{
	struct run *r = data;
	int idx = (int)bg_row_int(row, 0);

	if (idx != r->n || strlen(bg_row_text(row, 1)) != BG_OID_HEX - 1)
		return bg_error("bisection %" PRId64 ": its commits are not in order", r->id);
	r->c = xrealloc(r->c, (r->n + 1) * sizeof(*r->c));
	memset(&r->c[r->n], 0, sizeof(*r->c));
	memcpy(r->c[r->n].sha, bg_row_text(row, 1), BG_OID_HEX);
	r->n++;
	return 0;
}

static int add_report(const struct bg_store_row *row, void *data)
{
	struct run *r = data;
	int idx = (int)bg_row_int(row, 0);
	const char *kind = bg_row_text(row, 1);
	struct report rep = { R_BUILT, bg_row_int(row, 2), bg_row_double(row, 3) };
	struct queue *q;
	size_t k;

	if (idx < 0 || idx >= r->n)
		return bg_error("bisection %" PRId64 ": a report for commit %d of %d", r->id, idx,
				r->n);
	for (k = 0; k < ARRAY_SIZE(report_names); k++)
		if (!strcmp(kind, report_names[k]))
			break;
	if (k == ARRAY_SIZE(report_names))
		return bg_error("bisection %" PRId64 ": a report of kind '%s'", r->id, kind);
	rep.kind = (enum report_kind)k;
	q = &r->c[idx].replay;
	ALLOC_GROW(q->r, q->n + 1, q->alloc);
	q->r[q->n++] = rep;
	r->seq = bg_row_int(row, 4) + 1;
	return 0;
}

static int find_or_make(struct run *r, const char *good, const char *bad)
{
	const struct bg_bisection_opts *o = r->o;
	struct bg_strvec chain = BG_STRVEC_INIT;
	struct bg_bisection_key k = { r->tree_id, good, bad, r->board, r->mode,
				      bg_console_name(o->console), o->metric };
	int64_t id;
	int ret;

	if (bg_store_bisection_find(r->s, &k, &id) < 0)
		return -1;
	if (id) {
		r->id = id;
		return 0;
	}
	if (bg_git_first_parents(r->tree.real, good, bad, BG_BISECTION_MAX_CHAIN, &chain) < 0)
		return -1;
	if (chain.n < 2) {
		bg_strvec_release(&chain);
		return bg_error("good and bad are the same commit: nothing to bisect");
	}
	ret = bg_store_bisection_make(r->s, &k, chain.v, chain.n, &r->id);
	bg_strvec_release(&chain);
	return ret;
}

static int load(struct run *r)
{
	if (bg_store_bisection_chain(r->s, r->id, add_chain, r) < 0)
		return -1;
	if (r->n < 2)
		return bg_error("bisection %" PRId64 " has %d commits", r->id, r->n);
	if (bg_store_bisection_metric(r->s, r->id, &r->metric) < 0)
		return -1;
	return bg_store_bisection_report_rows(r->s, r->id, add_report, r);
}

static int store_report(struct run *r, int idx, enum report_kind kind, int64_t build,
			int64_t boot, double value)
{
	if (bg_store_bisection_report_add(r->s, r->id, r->seq, idx, report_names[kind], build,
					  boot, value) < 0)
		return -1;
	r->seq++;
	return 0;
}

/* ---- builds ---- */

/* The commit's build, reused or made (reuse.h). */
static int build(struct run *r, int idx)
{
	struct probe *p = &r->c[idx];
	struct bg_stored_build sb;
	char *what;
	int ret;

	if (p->known)
		return 0;
	what = xasprintf("%d of %d", idx, r->n - 1);
	ret = bg_reuse_build(&r->reuse, p->sha, what, &sb);
	free(what);
	if (ret < 0)
		return -1;
	p->known = true;
	p->build = sb.id;
	p->unbuildable = sb.status == BG_BUILD_FAILED;
	p->image = sb.image;
	p->image_sha256 = sb.image_sha256;
	return 0;
}

/* ---- boots ---- */

/* The metric's value in a stored boot: 1 with it, 0 when the boot gave none. */
static int boot_value(struct run *r, int64_t boot, double *value)
{
	char *outcome = NULL;
	bool complete;

	if (bg_store_boot_outcome(r->s, boot, &outcome) < 0)
		return -1;
	complete = outcome && !strcmp(outcome, "complete");
	free(outcome);
	if (!complete)
		return 0;
	/* an initcall a complete boot did not print took no time in it (verdict.h) */
	if (bg_store_boot_value(r->s, boot, r->metric, 0, value) < 0)
		return -1;
	return 1;
}

/* A stored boot of the commit's image this bisection has not used for it yet. */
static int unused_boot(struct run *r, int idx, int64_t *boot)
{
	return bg_store_bisection_unused_boot(r->s, r->id, idx, r->c[idx].image_sha256, r->board,
					      r->mode, bg_console_name(r->o->console), boot);
}

/* ---- the endpoints and the metric ---- */

static int load_set(struct run *r, int idx, unsigned max, struct bg_sample_set *set)
{
	return bg_reuse_load(&r->reuse, r->c[idx].image_sha256, max, set);
}

/* Larger is a clearer regression: exact shifts by their relative size, others by t. */
static double effect(const struct bg_verdict *v)
{
	double se = (v->ci_hi - v->ci_lo) / 3.92;

	if (v->exact || se <= 0)
		return 1e6 + v->delta_pct;
	return v->delta / se;
}

static int choose_metric(struct run *r, unsigned n0)
{
	struct bg_sample_set set[2];
	struct bg_comparison cmp;
	const struct bg_verdict *best = NULL;
	int ret = -1;

	bg_sample_set_init(&set[0]);
	bg_sample_set_init(&set[1]);
	if (load_set(r, 0, n0, &set[0]) < 0 || load_set(r, r->n - 1, n0, &set[1]) < 0)
		goto out;
	if (!set[0].boots || !set[1].boots) {
		bg_error("no boot of the %s endpoint reached userspace", set[0].boots ? "bad" : "good");
		goto out;
	}
	if (bg_compare(&set[0], &set[1], &r->cmp, &cmp) < 0)
		goto out;
	for (size_t i = 0; i < cmp.n; i++) {
		const struct bg_verdict *v = &cmp.v[i];

		if (v->verdict == BG_DIFFERENT && v->delta > 0 && (!best || effect(v) > effect(best)))
			best = v;
	}
	if (best) {
		r->metric = xstrdup(best->metric);
		bg_progress_to(r->o, "bisecting %s: %.0f -> %.0f us (%+.1f%%) between the "
			       "endpoints", best->metric, best->base_median, best->cand_median,
			       best->delta_pct);
	}
	bg_comparison_release(&cmp);
	ret = 0;
out:
	bg_sample_set_release(&set[0]);
	bg_sample_set_release(&set[1]);
	return ret;
}

/* Whether every stored boot of both endpoints gave the metric the same value. */
static int endpoints_exact(struct run *r, unsigned n0)
{
	for (int e = 0; e < 2; e++) {
		struct bg_sample_set set;
		const struct bg_series *s;
		bool same = true;

		bg_sample_set_init(&set);
		if (load_set(r, e ? r->n - 1 : 0, n0, &set) < 0) {
			bg_sample_set_release(&set);
			return -1;
		}
		s = bg_sample_set_find(&set, r->metric);
		same = s && s->n >= 2;
		for (size_t i = 1; same && i < s->n; i++)
			same = s->v[i] == s->v[0];
		bg_sample_set_release(&set);
		if (!same)
			return 0;
	}
	return 1;
}

/*
 * Ends the bisection with its conclusion and, but inside a merge's branch (its outer one
 * reports), its one outbox row, together.
 */
static int finish(struct run *r, const struct bg_bisection_conclusion *cc)
{
	int ret;

	if (bg_store_begin(r->s) < 0)
		return -1;
	ret = bg_store_bisection_conclude(r->s, r->id, cc);
	/* one report per regression: a bisection inside a merge is its outer one's */
	if (!ret && !r->inner)
		ret = bg_store_outbox_add(r->s, "bisection", r->id);
	if (ret < 0) {
		bg_store_rollback(r->s);
		return -1;
	}
	return bg_store_commit(r->s);
}

static int endpoints(struct run *r)
{
	unsigned n0 = r->o->deterministic ? ENDPOINT_BOOTS_EXACT : ENDPOINT_BOOTS_TIMING;

	for (int e = 0; e < 2; e++) {
		int idx = e ? r->n - 1 : 0;

		if (build(r, idx) < 0)
			return -1;
		if (r->c[idx].unbuildable) {
			/* no run will do better: the bisection ends, failed, with why */
			bg_error("the %s endpoint %.12s does not build", e ? "bad" : "good",
				 r->c[idx].sha);
			bg_store_bisection_fail(r->s, r->id, bg_error_last());
			return -1;
		}
		if (bg_reuse_boots(&r->reuse, r->c[idx].image, r->c[idx].image_sha256, n0) < 0)
			return -1;
	}
	if (!r->metric) {
		if (choose_metric(r, n0) < 0)
			return -1;
		if (!r->metric) {
			bg_progress_to(r->o, "no metric is slower at %.12s than at %.12s: nothing "
				       "to bisect", r->c[r->n - 1].sha, r->c[0].sha);
			return 1;
		}
		if (bg_store_bisection_set_metric(r->s, r->id, r->metric) < 0)
			return -1;
	}
	if (r->o->deterministic) {
		int exact = endpoints_exact(r, n0);

		if (exact < 0)
			return -1;
		r->exact = exact;
	}
	return 0;
}

/* ---- the engine's requests ---- */

static void tell(struct run *r, int idx, const struct report *rep)
{
	switch (rep->kind) {
	case R_BUILT:
		bg_bisect_built(r->engine, idx, true);
		break;
	case R_UNBUILDABLE:
		bg_bisect_built(r->engine, idx, false);
		break;
	case R_VALUE:
		bg_bisect_value(r->engine, idx, log1p(rep->value));
		break;
	case R_INFRA:
		bg_bisect_infra(r->engine, idx);
		break;
	}
}

/* The next stored report for idx of one of the kinds wanted, taken. */
static const struct report *replayed(struct probe *p, bool build)
{
	struct queue *q = &p->replay;

	if (q->next >= q->n)
		return NULL;
	if ((q->r[q->next].kind == R_BUILT || q->r[q->next].kind == R_UNBUILDABLE) != build)
		return NULL;
	return &q->r[q->next++];
}

static int do_build(struct run *r, int idx)
{
	struct probe *p = &r->c[idx];
	const struct report *rep = replayed(p, true);
	struct report live;

	if (build(r, idx) < 0)
		return -1;
	if (rep) {
		tell(r, idx, rep);
		return 0;
	}
	live.kind = p->unbuildable ? R_UNBUILDABLE : R_BUILT;
	if (store_report(r, idx, live.kind, p->build, 0, 0) < 0)
		return -1;
	tell(r, idx, &live);
	if (p->unbuildable)
		bg_progress_to(r->o, "%.12s does not build: skipped", p->sha);
	return 0;
}

static int do_values(struct run *r, const struct bg_bisect_request *req, struct bg_strbuf *vals)
{
	struct probe *p = &r->c[req->commit];
	unsigned got = 0, tried = 0;

	if (build(r, req->commit) < 0)
		return -1;
	if (p->unbuildable)
		return 0;
	while (got < req->values && tried < req->max_boots) {
		const struct report *rep = replayed(p, false);
		struct report live;
		int64_t boot;
		int v;

		if (rep) {
			tell(r, req->commit, rep);
		} else {
			if (unused_boot(r, req->commit, &boot) < 0)
				return -1;
			if (!boot) {
				if (bg_reuse_boot(&r->reuse, p->image, p->image_sha256, req->values - got) < 0)
					return -1;
				continue;
			}
			if ((v = boot_value(r, boot, &live.value)) < 0)
				return -1;
			/* the store keeps what boots said; a negative time is none (verdict.h) */
			live.kind = v && isfinite(live.value) && live.value >= 0 ? R_VALUE : R_INFRA;
			live.boot = boot;
			if (store_report(r, req->commit, live.kind, 0, boot, live.value) < 0)
				return -1;
			tell(r, req->commit, &live);
			rep = &live;
		}
		tried++;
		if (rep->kind == R_VALUE) {
			got++;
			bg_strbuf_addf(vals, "%s%.0f", vals->len ? " " : "", rep->value);
		}
	}
	return 0;
}

/* Prints the lines of the round just reported, each with the most likely set now. */
static void lead_progress(struct run *r, struct bg_strvec *round, bool done)
{
	const struct bg_bisect_result *res = bg_bisect_result(r->engine);
	int first, last;
	double p;

	if (done) {
		first = res->first;
		last = res->last;
		p = res->probability;
	} else {
		bg_bisect_leading(r->engine, &first, &last, &p);
	}
	for (size_t i = 0; i < round->n; i++) {
		if (first > 0 && first < r->n && last >= first && last < r->n)
			bg_progress_to(r->o, "%s; leading %.12s%s%.12s p=%.3f", round->v[i],
				       r->c[first].sha, last > first ? ".." : "",
				       last > first ? r->c[last].sha : "", p);
		else
			bg_progress_to(r->o, "%s", round->v[i]);
	}
	bg_strvec_release(round);
}

static int drive(struct run *r)
{
	struct bg_bisect_config cfg;
	unsigned k = r->o->parallel ? r->o->parallel : 1;
	struct bg_bisect_request *req = xcalloc(k < 2 ? 2 : k, sizeof(*req));
	struct bg_threshold t = bg_compare_threshold(&r->cmp, r->metric);
	struct bg_strvec round = BG_STRVEC_INIT;
	int ret = -1, step = 0;

	bg_bisect_config_init(&cfg, r->n);
	cfg.workers = k;
	cfg.n0 = r->o->deterministic ? ENDPOINT_BOOTS_EXACT : ENDPOINT_BOOTS_TIMING;
	cfg.min_edge = r->exact ? 1 : cfg.min_edge;
	/* an incremental build costs about 3 deterministic boots, 8 timing ones */
	cfg.build_cost = r->o->deterministic ? 3 : 8;
	cfg.threshold = log1p(t.pct);
	r->engine = bg_bisect_new(&cfg);
	for (;;) {
		enum bg_bisect_status st;
		size_t n;

		st = bg_bisect_next(r->engine, req, k < 2 ? 2 : k, &n);
		/* the round's steps, with the posterior that their values made */
		lead_progress(r, &round, st == BG_BISECT_DONE);
		if (st == BG_BISECT_DONE)
			break;
		for (size_t i = 0; i < n; i++) {
			struct bg_strbuf vals = BG_STRBUF_INIT;
			int idx = req[i].commit;

			if ((req[i].build && do_build(r, idx) < 0) ||
			    do_values(r, &req[i], &vals) < 0) {
				bg_strbuf_release(&vals);
				goto out;
			}
			bg_strvec_pushf(&round, "step %d: %.12s (%d of %d) %s%s%s", ++step,
					r->c[idx].sha, idx, r->n - 1,
					r->c[idx].unbuildable ? "does not build" : r->metric,
					vals.len ? " = " : "", vals.buf);
			bg_strbuf_release(&vals);
		}
	}
	ret = 0;
out:
	bg_strvec_release(&round);
	free(req);
	return ret;
}

/* ---- trust before telling ---- */

/* What one confirmation measured: the metric's verdict in its stored comparison. */
struct measured {
	bool have;                /* the metric was compared */
	bool decided;             /* no later look would have added boots */
	struct bg_verdict v;      /* v.metric is not kept */
};

/*
 * Measures cand against base in one mode, with boots at the looks a verdict asks for,
 * records the builds and boots, and stores the comparison of the metric in role.
 */
static int measure_pair(struct run *r, enum bg_role role, const char *cand, const char *base,
			bool deterministic, const struct bg_compare_config *cfg,
			struct measured *out)
{
	struct bg_measure_opts mo = {
		.tree = r->tree.real, .commit = cand, .against = base, .board = r->board,
		.lab = r->o->lab, .config = r->o->config, .deterministic = deterministic,
		.console = r->o->console, .compare = cfg, .progress = r->o->progress,
		.progress_data = r->o->progress_data,
	};
	struct bg_stored_comparison c;
	struct bg_measure m;
	const struct bg_verdict *v = NULL;
	int64_t *ids;
	char *why = NULL;         /* a later look failed: why */
	int ret = -1;

	memset(out, 0, sizeof(*out));
	mo.boots = deterministic ? ENDPOINT_BOOTS_EXACT : confirm_looks[0];
	bg_measure_init(&m);
	if (bg_measure_check(&mo, &m) < 0 || bg_measure_run(&mo, &m) < 0) {
		bg_measure_release(&m);
		return -1;
	}
	/*
	 * Each look adds boots to the earlier looks' (the verdict spends its alpha per look).
	 * When a later look fails, the boots so far are still recorded, undecided.
	 */
	for (size_t look = 0;; look++) {
		v = bg_comparison_find(&m.cmp, r->metric);
		out->decided = deterministic || look + 1 == ARRAY_SIZE(confirm_looks);
		if (out->decided || !v || v->verdict != BG_UNKNOWN)
			break;
		if (bg_measure_more(&mo, &m, confirm_looks[look + 1] - confirm_looks[look]) < 0) {
			why = xstrdup(bg_error_last());
			break;
		}
	}
	if (v) {
		out->have = true;
		out->v = *v;
		out->v.metric = NULL;
	}
	ids = xcalloc(m.nboots ? m.nboots : 1, sizeof(*ids));
	bg_measure_stored_comparison(&mo, &m, ids, &c);
	c.role = role;
	c.tree_id = r->tree_id;
	c.bisection_id = r->id;
	c.verdict = v ? xstrdup(bg_verdict_name(v->verdict)) : NULL;
	c.metric = xstrdup(r->metric);
	c.delta = v ? v->delta : NAN;
	if (bg_measure_record(r->s, &mo, &m, ids) == 0 && bg_store_begin(r->s) == 0) {
		ret = bg_store_comparison_add(r->s, &c);
		if (ret < 0)
			bg_store_rollback(r->s);
		else
			ret = bg_store_commit(r->s);
	}
	if (why && ret == 0)
		ret = bg_error("%s", why);
	free(why);
	/* the verdicts are the measure's: it frees them */
	memset(&c.cmp, 0, sizeof(c.cmp));
	bg_stored_comparison_release(&c);
	free(ids);
	bg_measure_release(&m);
	return ret;
}

/*
 * The metric's comparison of two commits of the range from the boots the store has
 * (their ids into c, each side's): base, else the nearest commit before it that was
 * booted, against cand. 1 compared, 0 when a side has no boot, -1 with why.
 */
static int compare_stored(struct run *r, int base, int cand, struct bg_stored_comparison *c)
{
	struct bg_sample_set set[2];
	int64_t ids[2][64];
	size_t nids[2] = { 0, 0 };
	int idx[2] = { base, cand }, ret = -1;

	bg_sample_set_init(&set[0]);
	bg_sample_set_init(&set[1]);
	for (int side = 1; side >= 0; side--) {
		for (;;) {
			if (build(r, idx[side]) < 0)
				goto out;
			if (!r->c[idx[side]].unbuildable &&
			    bg_reuse_load_ids(&r->reuse, r->c[idx[side]].image_sha256, 64,
					      &set[side], ids[side], &nids[side]) < 0)
				goto out;
			if (set[side].boots || side == 1 || idx[side] == 0)
				break;
			idx[side]--;
		}
		if (!set[side].boots) {
			ret = 0;
			goto out;
		}
	}
	bg_stored_comparison_init(c);
	if (bg_compare(&set[0], &set[1], &r->cmp, &c->cmp) < 0)
		goto out;
	c->base = xstrdup(r->c[idx[0]].sha);
	c->cand = xstrdup(r->c[idx[1]].sha);
	c->board = xstrdup(r->board);
	c->mode = xstrdup(r->mode);
	c->console = xstrdup(bg_console_name(r->o->console));
	c->tree_id = r->tree_id;
	c->bisection_id = r->id;
	c->metric = xstrdup(r->metric);
	for (int side = 0; side < 2; side++) {
		c->boots[side] = set[side].boots;
		c->excluded[side] = set[side].excluded;
		for (size_t i = 0; i < nids[side]; i++)
			bg_stored_comparison_add_boot(c, side ? BG_CAND : BG_BASE, ids[side][i]);
	}
	{
		const struct bg_verdict *v = bg_comparison_find(&c->cmp, r->metric);

		c->verdict = v ? xstrdup(bg_verdict_name(v->verdict)) : NULL;
		c->delta = v ? v->delta : NAN;
	}
	ret = 1;
out:
	bg_sample_set_release(&set[0]);
	bg_sample_set_release(&set[1]);
	return ret;
}

/* The culprit against its parent in the bisection's mode: the step its report gives. */
static int store_step(struct run *r, int culprit)
{
	struct bg_stored_comparison c;
	int ret = culprit > 0 ? compare_stored(r, culprit - 1, culprit, &c) : 0;

	if (ret <= 0)
		return ret;
	c.role = BG_ROLE_STEP;
	ret = -1;
	if (bg_store_begin(r->s) == 0) {
		if (bg_store_comparison_add(r->s, &c) < 0)
			bg_store_rollback(r->s);
		else
			ret = bg_store_commit(r->s);
	}
	bg_stored_comparison_release(&c);
	return ret;
}

/* The regression the revert is judged against: the metric's change from good to bad. */
static double regression_of(struct run *r)
{
	struct bg_stored_comparison c;
	double d = NAN;

	if (compare_stored(r, 0, r->n - 1, &c) > 0) {
		const struct bg_verdict *v = bg_comparison_find(&c.cmp, r->metric);

		d = v ? v->delta : NAN;
		bg_stored_comparison_release(&c);
	}
	return d;
}

/*
 * Measures the culprit against its parent in timing mode (after a deterministic
 * bisection) and the bad tip with the culprit reverted, each stored as a comparison of
 * the bisection; what the revert restores of the regression decides. *contradicted: the
 * revert applied, was measured, and is evidence against the culprit.
 */
static int confirm(struct run *r, const char *culprit, struct bg_bisection_conclusion *cc,
		   char *revert, bool *contradicted)
{
	struct bg_git_commit c;
	struct measured m;
	int applies;

	*contradicted = false;
	if (bg_git_commit_info(r->tree.real, culprit, &c) < 0)
		return -1;
	if (r->o->deterministic && c.nparents) {
		bg_progress_to(r->o, "confirming %.12s against its parent in timing mode", culprit);
		if (measure_pair(r, BG_ROLE_TIMING, culprit, c.parents[0], false, &r->cmp, &m) < 0)
			bg_progress_to(r->o, "warning: the timing confirmation failed: %s", bg_error_last());
	}
	applies = bg_git_revert_onto(r->tree.real, culprit, r->c[r->n - 1].sha, revert);
	cc->revert_applies = applies == 0;
	if (applies == 0) {
		struct bg_compare_config cfg;
		struct bg_restore res;

		cc->revert_commit = revert;
		cc->regression_us = regression_of(r);
		bg_compare_config_for_revert(&cfg, &r->cmp, r->metric, cc->regression_us);
		bg_progress_to(r->o, "measuring the bad tip with %.12s reverted", culprit);
		if (measure_pair(r, BG_ROLE_REVERT, r->c[r->n - 1].sha, revert, r->o->deterministic,
				 &cfg, &m) < 0) {
			bg_progress_to(r->o, "warning: measuring the revert failed: %s", bg_error_last());
		} else {
			bg_revert_judge(m.have ? &m.v : NULL, cc->regression_us, m.decided, &res);
			*contradicted = res.contradicts;
			bg_progress_to(r->o, "the revert restores %.0f us of %.0f (%s)", res.restored_us,
				 res.regression_us, m.have ? bg_verdict_name(m.v.verdict) : "-");
		}
		bg_compare_config_release(&cfg);
	}
	bg_git_commit_release(&c);
	return 0;
}

struct inner {
	int64_t id;
	char *culprit;
	char *outcome;
};

/*
 * A culprit that is a merge: the change is in the branch it brought. That branch, from
 * where it left the first parent's line to the merge's second parent, is bisected in
 * turn for the same metric.
 */
static int inside_merge(struct run *r, const char *merge, struct inner *in)
{
	struct bg_bisection_opts so = *r->o;
	struct bg_git_commit c;
	char base[BG_OID_HEX];
	int ret = -1;

	if (bg_git_commit_info(r->tree.real, merge, &c) < 0)
		return -1;
	if (c.nparents < 2) {
		bg_git_commit_release(&c);
		return 0;
	}
	if (bg_git_merge_base(r->tree.real, c.parents[0], c.parents[1], base) < 0)
		goto out;
	bg_progress_to(r->o, "%.12s is a merge: bisecting the branch it brought, %.12s..%.12s",
		       merge, base, c.parents[1]);
	so.good = base;
	so.bad = c.parents[1];
	so.metric = r->metric;
	so.inner = true;
	if (bg_bisection_run(r->s, &so, &in->id) < 0 ||
	    bg_store_bisection_set_outer(r->s, in->id, r->id) < 0)
		goto out;
	{
		struct bg_stored_bisection ib;

		bg_stored_bisection_init(&ib);
		if (bg_store_bisection_get(r->s, in->id, &ib) < 0) {
			bg_stored_bisection_release(&ib);
			goto out;
		}
		in->culprit = ib.culprit ? xstrdup(ib.culprit) : NULL;
		in->outcome = ib.outcome ? xstrdup(ib.outcome) : NULL;
		bg_stored_bisection_release(&ib);
	}
	ret = 0;
out:
	bg_git_commit_release(&c);
	return ret;
}

static int conclude(struct run *r)
{
	const struct bg_bisect_result *res = bg_bisect_result(r->engine);
	bool found = res->outcome == BG_BISECT_FOUND;
	const char *culprit = found && res->first == res->last ? r->c[res->first].sha : NULL;
	struct inner inner = { 0, NULL, NULL };
	struct bg_bisection_conclusion cc = {
		.confidence = res->probability, .range_first = found ? res->first : -1,
		.range_last = found ? res->last : -1, .exact = r->exact, .revert_applies = -1,
		.regression_us = NAN,
	};
	char revert[BG_OID_HEX];
	bool contradicted = false;
	int ret;

	if (culprit && inside_merge(r, culprit, &inner) < 0)
		return -1;
	if (inner.id) {
		/* the merge brought the culprit: its own bisection confirmed it */
		cc.merge_commit = culprit;
		if (inner.culprit)
			culprit = inner.culprit;
		/* the branch's own revert check speaks for the merge's */
		contradicted = inner.outcome && !strcmp(inner.outcome, BG_BISECT_UNCONFIRMED);
	} else if (culprit) {
		if (store_step(r, res->first) < 0)
			bg_progress_to(r->o, "warning: the culprit's step: %s", bg_error_last());
		if (!r->o->no_confirm && confirm(r, culprit, &cc, revert, &contradicted) < 0)
			bg_progress_to(r->o, "warning: %s", bg_error_last());
	}
	/* a culprit its own revert contradicts is never reported as found (nor mailed) */
	cc.outcome = contradicted ? BG_BISECT_UNCONFIRMED : bg_bisect_outcome_name(res->outcome);
	cc.culprit = culprit;
	ret = finish(r, &cc);
	if (contradicted)
		bg_progress_to(r->o, "unconfirmed: %.12s (p=%.3f), but reverting it on the bad tip does not "
			 "take the regression back", culprit, res->probability);
	else if (culprit)
		bg_progress_to(r->o, "culprit: %.12s (p=%.3f)", culprit, res->probability);
	else
		bg_progress_to(r->o, "no single culprit: %s", cc.outcome);
	free(inner.culprit);
	free(inner.outcome);
	return ret;
}

/* ---- the whole ---- */

static void release(struct run *r)
{
	for (int i = 0; i < r->n; i++) {
		free(r->c[i].image);
		free(r->c[i].image_sha256);
		free(r->c[i].replay.r);
	}
	free(r->c);
	if (r->lock_fd >= 0)
		close(r->lock_fd);
	free(r->board);
	free(r->metric);
	bg_tree_release(&r->tree);
	bg_compare_config_release(&r->cmp);
	if (r->engine)
		bg_bisect_free(r->engine);
}

static void lock_waiting(void *r)
{
	bg_progress_to(((struct run *)r)->o, "another process runs this bisection: waiting for it");
}

/*
 * One process per bisection: a second one (its daemon restarted while the first was
 * still ending) waits here until the first is gone, then replays what it stored.
 */
static int lock(struct run *r, const char *good, const char *bad)
{
	char *key = xasprintf("%s %s %s %s %s %s %s", r->tree.real, good, bad, r->board, r->mode,
			      bg_console_name(r->o->console), r->o->metric ? r->o->metric : "");
	char *dir = bg_path_join(bg_cache_dir(), "locks");
	char *path = xasprintf("%s/bisection-%016" PRIx64, dir, bg_hash64(key, strlen(key)));
	int ret = -1;

	if (bg_mkdirs(dir) < 0 || bg_lock_file(path, true, lock_waiting, r, &r->lock_fd) < 0)
		goto out;
	ret = 0;
out:
	free(key);
	free(dir);
	free(path);
	return ret;
}

static int start(struct run *r, const struct bg_bisection_opts *o)
{
	struct bg_board board;
	char good[BG_OID_HEX], bad[BG_OID_HEX];

	r->lab = o->lab ? o->lab : bg_lab_dir();
	r->mode = o->deterministic ? "deterministic" : "timing";
	if (bg_board_load(r->lab, o->board, &board) < 0)
		return -1;
	if (bg_board_check_mode(&board, o->deterministic) < 0) {
		bg_board_release(&board);
		return -1;
	}
	r->board = xstrdup(board.name);
	bg_board_release(&board);
	if (bg_tree_open(o->tree, &r->tree) < 0 ||
	    bg_git_resolve(r->tree.real, o->good, good) < 0 ||
	    bg_git_resolve(r->tree.real, o->bad, bad) < 0)
		return -1;
	if (bg_record_tree(r->s, o->tree_name ? o->tree_name : r->tree.id, r->tree.real,
			   &r->tree_id) < 0)
		return -1;
	r->reuse = (struct bg_reuse){ r->s, r->tree.real, r->board, r->lab, o->config,
				      o->deterministic, o->progress, o->progress_data, o->console };
	/* what another process stored before we had the lock is read after it */
	if (lock(r, good, bad) < 0 || find_or_make(r, good, bad) < 0 || load(r) < 0)
		return -1;
	return 0;
}

int bg_bisection_run(struct bg_store *s, const struct bg_bisection_opts *o, int64_t *id)
{
	struct run r;
	char *state = NULL;
	int ret = -1, e;

	memset(&r, 0, sizeof(r));
	r.lock_fd = -1;
	r.s = s;
	r.o = o;
	r.inner = o->inner;
	if (o->compare)
		bg_compare_config_copy(&r.cmp, o->compare);
	else
		bg_compare_config_init(&r.cmp);
	r.cmp.deterministic = o->deterministic;
	if (start(&r, o) < 0)
		goto out;
	*id = r.id;
	if (bg_store_bisection_state(s, r.id, &state) < 0)
		goto out;
	if (state && !strcmp(state, "done")) {
		bg_progress_to(r.o, "bisection %" PRId64 " is done", r.id);
		ret = 0;
		goto out;
	}
	bg_progress_to(r.o, "bisection %" PRId64 ": %d commits from %.12s to %.12s (%s, %s)%s",
		       r.id, r.n, r.c[0].sha, r.c[r.n - 1].sha, r.board, r.mode,
		       r.seq ? ", continuing" : "");
	if ((e = endpoints(&r)) < 0)
		goto out;
	if (e > 0) {
		struct bg_bisection_conclusion cc = {
			.outcome = "not_reproducible", .confidence = NAN, .range_first = -1,
			.range_last = -1, .revert_applies = -1, .regression_us = NAN,
		};

		ret = finish(&r, &cc);
		goto out;
	}
	if (r.exact)
		bg_progress_to(r.o, "%s repeats exactly at both endpoints: one boot per probe",
			       r.metric);
	if (drive(&r) < 0)
		goto out;
	ret = conclude(&r);
out:
	free(state);
	release(&r);
	return ret;
}
