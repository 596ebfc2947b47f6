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
#include "report/comparison.h"
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
/* Timing confirmation: boots per side at the looks, up to the last. */
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
	int64_t id;
	int ret = -1;

	if (bg_store_int(r->s, 0, &id, "SELECT id FROM bisections WHERE tree_id = ? AND good = ? "
			 "AND bad = ? AND board = ? AND mode = ? AND console_mode = ? AND "
			 "asked_metric IS ? AND state != 'failed' ORDER BY id DESC LIMIT 1",
			 "issssss", r->tree_id, good, bad, r->board, r->mode,
			 bg_console_name(o->console), o->metric) < 0)
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
	if (bg_store_begin(r->s) < 0)
		goto out;
	if (bg_store_exec(r->s, "INSERT INTO bisections (tree_id, good, bad, board, mode, "
			  "console_mode, asked_metric, metric, created) VALUES (?, ?, ?, ?, ?, ?, ?, "
			  "?, ?)", "isssssssd", r->tree_id, good, bad, r->board, r->mode,
			  bg_console_name(o->console), o->metric, o->metric, bg_store_now()) < 0)
		goto fail;
	r->id = bg_store_last_id(r->s);
	for (size_t i = 0; i < chain.n; i++)
		if (bg_store_exec(r->s, "INSERT INTO bisection_commits (bisection_id, idx, sha) "
				  "VALUES (?, ?, ?)", "iis", r->id, (int64_t)i, chain.v[i]) < 0)
			goto fail;
	ret = bg_store_commit(r->s);
	goto out;
fail:
	bg_store_rollback(r->s);
out:
	bg_strvec_release(&chain);
	return ret;
}

static int load(struct run *r)
{
	if (bg_store_query(r->s, add_chain, r, "SELECT idx, sha FROM bisection_commits "
			   "WHERE bisection_id = ? ORDER BY idx", "i", r->id) < 0)
		return -1;
	if (r->n < 2)
		return bg_error("bisection %" PRId64 " has %d commits", r->id, r->n);
	if (bg_store_text(r->s, &r->metric, "SELECT metric FROM bisections WHERE id = ?", "i",
			  r->id) < 0)
		return -1;
	return bg_store_query(r->s, add_report, r, "SELECT idx, kind, boot_id, value, seq "
			      "FROM bisection_reports WHERE bisection_id = ? ORDER BY seq", "i",
			      r->id);
}

static int store_report(struct run *r, int idx, enum report_kind kind, int64_t build,
			int64_t boot, double value)
{
	/* no build or boot is NULL, not row 0 */
	if (bg_store_exec(r->s, "INSERT INTO bisection_reports (bisection_id, seq, idx, kind, "
			  "build_id, boot_id, value) VALUES (?, ?, ?, ?, nullif(?, 0), "
			  "nullif(?, 0), ?)", "iiisiid", r->id, r->seq, (int64_t)idx,
			  report_names[kind], build, boot, value) < 0)
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
	int64_t complete;

	if (bg_store_int(r->s, 0, &complete, "SELECT outcome = 'complete' FROM boots WHERE id = ?",
			 "i", boot) < 0)
		return -1;
	if (!complete)
		return 0;
	/* an initcall a complete boot did not print took no time in it (verdict.h) */
	if (bg_store_double(r->s, 0, value, "SELECT value FROM samples WHERE boot_id = ? AND "
			    "metric = ?", "is", boot, r->metric) < 0)
		return -1;
	return 1;
}

/* A stored boot of the commit's image this bisection has not used for it yet. */
static int unused_boot(struct run *r, int idx, int64_t *boot)
{
	return bg_store_int(r->s, 0, boot, "SELECT id FROM boots WHERE image_sha256 = ? AND "
			    "board = ? AND mode = ? AND console_mode = ? AND id NOT IN (SELECT "
			    "boot_id FROM bisection_reports WHERE bisection_id = ? AND idx = ? AND "
			    "boot_id IS NOT NULL) ORDER BY id LIMIT 1", "ssssii",
			    r->c[idx].image_sha256, r->board, r->mode,
			    bg_console_name(r->o->console), r->id, (int64_t)idx);
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

static int finish(struct run *r, const char *outcome, const char *culprit, double confidence,
		  const char *result)
{
	if (bg_store_begin(r->s) < 0)
		return -1;
	if (bg_store_exec(r->s, "UPDATE bisections SET state = 'done', outcome = ?, culprit = ?, "
			  "confidence = ?, result = ?, finished = ? WHERE id = ?", "ssdsdi", outcome,
			  culprit, confidence, result, bg_store_now(), r->id) < 0 ||
	    /* one report per regression: a bisection inside a merge is its outer one's */
	    (!r->inner && bg_store_exec(r->s, "INSERT INTO outbox (kind, ref, body, created) "
					"VALUES ('bisection', ?, ?, ?)", "isd", r->id,
					result ? result : "{}", bg_store_now()) < 0)) {
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
			bg_store_exec(r->s, "UPDATE bisections SET state = 'failed', error = ?, "
				      "finished = ? WHERE id = ?", "sdi", bg_error_last(),
				      bg_store_now(), r->id);
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
		if (bg_store_exec(r->s, "UPDATE bisections SET metric = ? WHERE id = ?", "si",
				  r->metric, r->id) < 0)
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

/*
 * The metric's verdict between two commits in one mode, boots as the verdict asks;
 * *contradicts (when asked): commit, a revert on the bad tip (against), took nothing back.
 */
static int measure_pair(struct run *r, const char *commit, const char *against,
			bool deterministic, struct bg_json *j, bool *contradicts)
{
	struct bg_measure_opts mo = { 0 };
	struct bg_measure m;
	const struct bg_verdict *v = NULL;
	int ret = -1;

	mo.tree = r->tree.real;
	mo.commit = commit;
	mo.against = against;
	mo.board = r->board;
	mo.lab = r->o->lab;
	mo.config = r->o->config;
	mo.deterministic = deterministic;
	mo.console = r->o->console;
	mo.compare = &r->cmp;
	mo.progress = r->o->progress;
	mo.progress_data = r->o->progress_data;
	for (size_t look = 0; look < ARRAY_SIZE(confirm_looks); look++) {
		mo.boots = deterministic ? ENDPOINT_BOOTS_EXACT : confirm_looks[look];
		bg_measure_init(&m);
		if (bg_measure_check(&mo, &m) < 0 || bg_measure_run(&mo, &m) < 0) {
			bg_measure_release(&m);
			return -1;
		}
		v = NULL;
		for (size_t i = 0; i < m.cmp.n; i++)
			if (!strcmp(m.cmp.v[i].metric, r->metric))
				v = &m.cmp.v[i];
		if (deterministic || !v || v->verdict != BG_UNKNOWN ||
		    look + 1 == ARRAY_SIZE(confirm_looks))
			break;
		bg_measure_release(&m);
	}
	/*
	 * Only evidence contradicts: the same, or slower, or still unknown once timing
	 * mode's looks are spent. Deterministic mode's two boots a side leave a board whose
	 * boots do not repeat exactly unknown: that is no evidence either way.
	 */
	if (contradicts)
		*contradicts = v && !bg_verdict_restores(v) &&
			       !(v->verdict == BG_UNKNOWN && deterministic);
	bg_json_key(j, "mode");
	bg_json_str(j, deterministic ? "deterministic" : "timing");
	bg_json_key(j, "boots");
	bg_json_int(j, mo.boots);
	bg_json_key(j, "verdict");
	bg_json_str(j, v ? bg_verdict_name(v->verdict) : NULL);
	bg_json_key(j, "base_us");
	bg_json_double(j, v ? v->base_median : NAN);
	bg_json_key(j, "cand_us");
	bg_json_double(j, v ? v->cand_median : NAN);
	bg_json_key(j, "delta_us");
	bg_json_double(j, v ? v->delta : NAN);
	bg_json_key(j, "p");
	bg_json_double(j, v ? v->p : NAN);
	/* the whole boot, for "did wall-clock time move too" */
	for (size_t i = 0; i < m.cmp.n; i++)
		if (!strcmp(m.cmp.v[i].metric, "boot.init")) {
			bg_json_key(j, "boot_init_delta_us");
			bg_json_double(j, m.cmp.v[i].delta);
			bg_json_key(j, "boot_init_verdict");
			bg_json_str(j, bg_verdict_name(m.cmp.v[i].verdict));
		}
	ret = 0;
	bg_measure_release(&m);
	return ret;
}

/* ---- the result ---- */

static int median_value(struct run *r, int idx, double *out)
{
	struct bg_sample_set set;
	const struct bg_series *s;
	int ret = -1;

	bg_sample_set_init(&set);
	if (load_set(r, idx, 64, &set) == 0 && (s = bg_sample_set_find(&set, r->metric)) && s->n) {
		*out = bg_stats_median(s->v, s->n);
		ret = 0;
	}
	bg_sample_set_release(&set);
	return ret;
}

/*
 * Measures the culprit against its parent in timing mode (after a deterministic
 * bisection) and the bad tip with the culprit reverted. *contradicted: the revert
 * applied and was measured, and took nothing back.
 */
static int confirm(struct run *r, const char *culprit, struct bg_json *j, bool *contradicted)
{
	struct bg_git_commit c;
	char revert[BG_OID_HEX];
	int applies;

	*contradicted = false;
	if (bg_git_commit_info(r->tree.real, culprit, &c) < 0)
		return -1;
	bg_json_key(j, "confirmation");
	bg_json_object_begin(j);
	if (r->o->deterministic && c.nparents) {
		bg_progress_to(r->o, "confirming %.12s against its parent in timing mode", culprit);
		if (measure_pair(r, culprit, c.parents[0], false, j, NULL) < 0)
			bg_progress_to(r->o, "warning: the timing confirmation failed: %s",
				       bg_error_last());
	}
	bg_json_key(j, "revert");
	bg_json_object_begin(j);
	applies = bg_git_revert_onto(r->tree.real, culprit, r->c[r->n - 1].sha, revert);
	bg_json_key(j, "applies");
	bg_json_bool(j, applies == 0);
	if (applies == 0) {
		double good, bad;

		bg_progress_to(r->o, "measuring the bad tip with %.12s reverted", culprit);
		bg_json_key(j, "commit");
		bg_json_str(j, revert);
		if (measure_pair(r, revert, r->c[r->n - 1].sha, r->o->deterministic, j,
				 contradicted) < 0) {
			bg_progress_to(r->o, "warning: measuring the revert failed: %s",
				       bg_error_last());
		} else if (median_value(r, 0, &good) == 0 && median_value(r, r->n - 1, &bad) == 0) {
			bg_json_key(j, "regression_us");
			bg_json_double(j, bad - good);
		}
	}
	bg_json_object_end(j);
	bg_json_object_end(j);
	bg_git_commit_release(&c);
	return 0;
}

static void write_steps(struct run *r, struct bg_json *j, int first, int last, bool found)
{
	bg_json_key(j, "steps");
	bg_json_array_begin(j);
	for (int i = 0; i < r->n; i++) {
		const struct queue *q = &r->c[i].replay;

		if (!q->n)
			continue;
		bg_json_object_begin(j);
		bg_json_key(j, "commit");
		bg_json_str(j, r->c[i].sha);
		bg_json_key(j, "index");
		bg_json_int(j, i);
		bg_json_key(j, "built");
		bg_json_bool(j, !r->c[i].unbuildable);
		bg_json_key(j, "values");
		bg_json_array_begin(j);
		for (size_t k = 0; k < q->n; k++)
			if (q->r[k].kind == R_VALUE)
				bg_json_double(j, q->r[k].value);
		bg_json_array_end(j);
		bg_json_key(j, "verdict");
		bg_json_str(j, r->c[i].unbuildable ? "skip" : !found ? "unknown" :
			       i < first ? "good" : i > last ? "bad" : "culprit");
		bg_json_object_end(j);
	}
	bg_json_array_end(j);
}

static int reload_reports(struct run *r)
{
	for (int i = 0; i < r->n; i++) {
		free(r->c[i].replay.r);
		memset(&r->c[i].replay, 0, sizeof(r->c[i].replay));
	}
	return bg_store_query(r->s, add_report, r, "SELECT idx, kind, boot_id, value, seq "
			      "FROM bisection_reports WHERE bisection_id = ? ORDER BY seq", "i",
			      r->id);
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
	    bg_store_exec(r->s, "UPDATE bisections SET parent_id = ? WHERE id = ?", "ii", r->id,
			  in->id) < 0 ||
	    bg_store_text(r->s, &in->culprit, "SELECT culprit FROM bisections WHERE id = ?", "i",
			  in->id) < 0 ||
	    bg_store_text(r->s, &in->outcome, "SELECT outcome FROM bisections WHERE id = ?", "i",
			  in->id) < 0)
		goto out;
	ret = 0;
out:
	bg_git_commit_release(&c);
	return ret;
}

static int conclude(struct run *r)
{
	const struct bg_bisect_result *res = bg_bisect_result(r->engine);
	struct bg_bisect_counts counts;
	struct bg_json j;
	bool found = res->outcome == BG_BISECT_FOUND;
	const char *culprit = found && res->first == res->last ? r->c[res->first].sha : NULL;
	struct inner inner = { 0, NULL, NULL };
	bool contradicted = false;
	const char *outcome;
	int64_t builds, boots;
	double created;
	int ret;

	bg_bisect_counts(r->engine, &counts);
	if (culprit && inside_merge(r, culprit, &inner) < 0)
		return -1;
	if (bg_store_int(r->s, 0, &builds, "SELECT count(*) FROM builds WHERE reused = 0 AND "
			 "status = 'built' AND board = ? AND id IN (SELECT build_id FROM "
			 "bisection_reports WHERE bisection_id = ?)", "si", r->board, r->id) < 0 ||
	    bg_store_int(r->s, 0, &boots, "SELECT count(DISTINCT boot_id) FROM bisection_reports "
			 "WHERE bisection_id = ?", "i", r->id) < 0)
		return -1;
	if (bg_store_double(r->s, bg_store_now(), &created, "SELECT created FROM bisections "
			    "WHERE id = ?", "i", r->id) < 0)
		return -1;
	bg_json_init(&j, -1, 1);
	bg_json_object_begin(&j);
	bg_json_key(&j, "id");
	bg_json_int(&j, r->id);
	bg_json_key(&j, "culprit");
	bg_json_str(&j, inner.culprit ? inner.culprit : culprit);
	bg_json_key(&j, "range");
	bg_json_array_begin(&j);
	for (int i = res->first; found && i <= res->last; i++)
		bg_json_str(&j, r->c[i].sha);
	bg_json_array_end(&j);
	bg_json_key(&j, "confidence");
	bg_json_double(&j, res->probability);
	bg_json_key(&j, "metric");
	bg_json_str(&j, r->metric);
	bg_json_key(&j, "mode");
	bg_json_str(&j, r->mode);
	bg_json_key(&j, "console");
	bg_json_str(&j, bg_console_name(r->o->console));
	bg_json_key(&j, "board");
	bg_json_str(&j, r->board);
	bg_json_key(&j, "good");
	bg_json_str(&j, r->c[0].sha);
	bg_json_key(&j, "bad");
	bg_json_str(&j, r->c[r->n - 1].sha);
	bg_json_key(&j, "commits");
	bg_json_int(&j, r->n);
	bg_json_key(&j, "step_pct");
	bg_json_double(&j, 100 * expm1(res->step));
	bg_json_key(&j, "builds");
	bg_json_int(&j, builds);
	bg_json_key(&j, "boots");
	bg_json_int(&j, boots);
	bg_json_key(&j, "exact");
	bg_json_bool(&j, r->exact);
	if (reload_reports(r) == 0)
		write_steps(r, &j, res->first, res->last, found);
	if (inner.id) {
		/* the merge brought the culprit: its own bisection confirmed it */
		bg_json_key(&j, "merge");
		bg_json_str(&j, culprit);
		bg_json_key(&j, "inner");
		bg_json_int(&j, inner.id);
		if (inner.culprit)
			culprit = inner.culprit;
		/* the branch's own revert check speaks for the merge's */
		contradicted = inner.outcome && !strcmp(inner.outcome, BG_BISECT_UNCONFIRMED);
	} else if (culprit && !r->o->no_confirm && confirm(r, culprit, &j, &contradicted) < 0) {
		bg_progress_to(r->o, "warning: %s", bg_error_last());
	}
	/* a culprit its own revert contradicts is never reported as found (nor mailed) */
	outcome = contradicted ? BG_BISECT_UNCONFIRMED : bg_bisect_outcome_name(res->outcome);
	bg_json_key(&j, "outcome");
	bg_json_str(&j, outcome);
	bg_json_key(&j, "wall_s");
	bg_json_double(&j, bg_store_now() - created);
	bg_json_object_end(&j);
	ret = finish(r, outcome, culprit, res->probability, j.out.buf);
	bg_strbuf_release(&j.out);
	if (contradicted)
		bg_progress_to(r->o, "unconfirmed: %.12s (p=%.3f), but reverting it on the bad tip "
			       "takes nothing back", culprit, res->probability);
	else if (culprit)
		bg_progress_to(r->o, "culprit: %.12s (p=%.3f)", culprit, res->probability);
	else
		bg_progress_to(r->o, "no single culprit: %s", outcome);
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
	if (bg_store_text(s, &state, "SELECT state FROM bisections WHERE id = ?", "i", r.id) < 0)
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
		ret = finish(&r, "not_reproducible", NULL, 0,
			     "{\"outcome\": \"not_reproducible\", \"culprit\": null}");
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

int bg_bisection_write_json(struct bg_store *s, int64_t id, struct bg_json *j)
{
	char *result = NULL;

	if (bg_store_text(s, &result, "SELECT result FROM bisections WHERE id = ?", "i", id) < 0)
		return -1;
	if (!result)
		return bg_error("bisection %" PRId64 " has no result yet", id);
	bg_json_raw_begin(j, strlen(result));
	bg_strbuf_addstr(&j->out, result);
	bg_json_raw_end(j);
	free(result);
	return 0;
}
