/* The stored results as JSON (results-json.h). */
#include <math.h>

#include "report/comparison.h"
#include "report/results-json.h"

static void key_str(struct bg_json *j, const char *key, const char *s)
{
	bg_json_key(j, key);
	bg_json_str(j, s);
}

static void key_num(struct bg_json *j, const char *key, double v)
{
	bg_json_key(j, key);
	bg_json_double(j, v);
}

static void key_int(struct bg_json *j, const char *key, int64_t v)
{
	bg_json_key(j, key);
	bg_json_int(j, v);
}

/* An id, or null for none (0). */
static void key_id(struct bg_json *j, const char *key, int64_t id)
{
	bg_json_key(j, key);
	if (id)
		bg_json_int(j, id);
	else
		bg_json_null(j);
}

/* A count the store may not know (-1): null then. */
static void key_count(struct bg_json *j, const char *key, int64_t n)
{
	bg_json_key(j, key);
	if (n >= 0)
		bg_json_int(j, n);
	else
		bg_json_null(j);
}

static void boot_ids(struct bg_json *j, const struct bg_stored_comparison *c, enum bg_side side)
{
	bg_json_key(j, side == BG_BASE ? "base" : "cand");
	bg_json_array_begin(j);
	for (size_t i = 0; i < c->nboot; i++)
		if (c->boot[i].side == side) {
			if (c->boot[i].boot_id)
				bg_json_int(j, c->boot[i].boot_id);
			else
				bg_json_null(j);
		}
	bg_json_array_end(j);
}

void bg_stored_comparison_write_json(struct bg_json *j, const struct bg_stored_comparison *c)
{
	bg_json_object_begin(j);
	key_int(j, "id", c->id);
	key_str(j, "role", bg_role_name(c->role));
	key_str(j, "tree", c->tree);
	key_str(j, "base", c->base);
	key_str(j, "cand", c->cand);
	key_str(j, "board", c->board);
	key_str(j, "mode", c->mode);
	key_str(j, "console", c->console);
	key_str(j, "verdict", c->verdict);
	key_str(j, "metric", c->metric);
	key_num(j, "delta", c->delta);
	key_num(j, "created", c->created);
	key_id(j, "bisection", c->bisection_id);
	bg_comparison_write_boots(j, c->boots[BG_BASE], c->excluded[BG_BASE], c->boots[BG_CAND],
				  c->excluded[BG_CAND]);
	bg_json_key(j, "boot_ids");
	bg_json_object_begin(j);
	boot_ids(j, c, BG_BASE);
	boot_ids(j, c, BG_CAND);
	bg_json_object_end(j);
	bg_comparison_write_members(j, &c->cmp);
	bg_json_object_end(j);
}

/* ---- bisections ---- */

static const struct bg_verdict *metric_of(const struct bg_stored_comparison *c, const char *metric)
{
	return c ? bg_comparison_find(&c->cmp, metric ? metric : c->metric) : NULL;
}

/* {"mode", "boots", "base_us", "cand_us", "delta_us", "delta_pct", "exact", "p", "verdict"} */
static void figure(struct bg_json *j, const struct bg_stored_comparison *c, const char *metric)
{
	const struct bg_verdict *v = metric_of(c, metric);

	key_str(j, "mode", c->mode);
	key_int(j, "boots", c->boots[BG_CAND]);
	key_str(j, "verdict", v ? bg_verdict_name(v->verdict) : NULL);
	key_num(j, "base_us", v ? v->base_median : NAN);
	key_num(j, "cand_us", v ? v->cand_median : NAN);
	key_num(j, "delta_us", v ? v->delta : NAN);
	key_num(j, "delta_pct", v ? v->delta_pct : NAN);
	key_num(j, "p", v ? v->p : NAN);
	bg_json_key(j, "exact");
	bg_json_bool(j, v && v->exact);
}

static void steps(struct bg_json *j, const struct bg_bisection_steps *st)
{
	bg_json_key(j, "steps");
	bg_json_array_begin(j);
	for (size_t i = 0; st && i < st->n; i++) {
		const struct bg_bisection_step *p = &st->v[i];

		bg_json_object_begin(j);
		key_str(j, "commit", p->commit);
		key_int(j, "index", p->idx);
		bg_json_key(j, "built");
		bg_json_bool(j, p->built);
		bg_json_key(j, "values");
		bg_json_array_begin(j);
		for (size_t k = 0; k < p->nvalues; k++)
			bg_json_double(j, p->values[k]);
		bg_json_array_end(j);
		key_str(j, "verdict", p->verdict);
		bg_json_object_end(j);
	}
	bg_json_array_end(j);
}

static void confirmation(struct bg_json *j, const struct bg_stored_bisection *b,
			 const struct bg_bisection_figures *f)
{
	bg_json_key(j, "confirmation");
	if (!f->timing && b->revert_applies < 0) {
		bg_json_null(j);
		return;
	}
	bg_json_object_begin(j);
	if (f->timing) {
		const struct bg_verdict *init = bg_comparison_find(&f->timing->cmp, "boot.init");

		figure(j, f->timing, b->metric);
		key_num(j, "boot_init_delta_us", init ? init->delta : NAN);
		key_str(j, "boot_init_verdict", init ? bg_verdict_name(init->verdict) : NULL);
	}
	bg_json_key(j, "revert");
	if (b->revert_applies < 0) {
		bg_json_null(j);
	} else {
		const struct bg_verdict *v = metric_of(f->revert, b->metric);
		struct bg_restore r;

		bg_revert_judge(v, b->regression_us, true, &r);
		bg_json_object_begin(j);
		bg_json_key(j, "applies");
		bg_json_bool(j, b->revert_applies == 1);
		key_str(j, "commit", b->revert_commit);
		if (f->revert) {
			key_str(j, "mode", f->revert->mode);
			key_int(j, "boots", f->revert->boots[BG_CAND]);
			key_str(j, "verdict", v ? bg_verdict_name(v->verdict) : NULL);
			/* the revert is the comparison's base, the bad tip its candidate */
			key_num(j, "reverted_us", v ? v->base_median : NAN);
			key_num(j, "tip_us", v ? v->cand_median : NAN);
			key_num(j, "restored_us", r.restored_us);
			key_num(j, "restored_share", r.share);
			key_num(j, "p", v ? v->p : NAN);
			bg_json_key(j, "restores");
			bg_json_bool(j, r.restores);
		}
		key_num(j, "regression_us", b->regression_us);
		bg_json_object_end(j);
	}
	bg_json_object_end(j);
}

void bg_stored_bisection_write_json(struct bg_json *j, const struct bg_stored_bisection *b,
			     const struct bg_bisection_steps *st,
			     const struct bg_bisection_figures *f)
{
	const struct bg_verdict *step = metric_of(f->step, b->metric);
	const struct bg_verdict *timing = metric_of(f->timing, b->metric);
	struct bg_headline h;

	bg_json_object_begin(j);
	key_int(j, "id", b->id);
	key_str(j, "tree", b->tree);
	key_str(j, "state", b->state);
	key_str(j, "outcome", b->outcome);
	key_str(j, "culprit", b->culprit);
	key_str(j, "subject", b->culprit_subject);
	bg_json_key(j, "range");
	bg_json_array_begin(j);
	for (size_t i = 0; i < f->nrange; i++)
		bg_json_str(j, f->range[i]);
	bg_json_array_end(j);
	key_num(j, "confidence", b->confidence);
	key_str(j, "metric", b->metric);
	key_str(j, "mode", b->mode);
	key_str(j, "console", b->console);
	key_str(j, "board", b->board);
	key_str(j, "good", b->good);
	key_str(j, "bad", b->bad);
	key_int(j, "commits", b->ncommits);
	key_count(j, "builds", b->builds);
	key_count(j, "boots", b->boots);
	bg_json_key(j, "exact");
	bg_json_bool(j, b->exact);
	key_num(j, "wall_s", b->wall_s);
	key_str(j, "error", b->error);
	key_str(j, "merge", b->merge_commit);
	key_id(j, "inner", b->inner_id);
	key_id(j, "outer", b->parent_id);
	steps(j, st);
	bg_json_key(j, "step");
	if (f->step) {
		bg_json_object_begin(j);
		key_str(j, "base", f->step->base);
		key_str(j, "cand", f->step->cand);
		figure(j, f->step, b->metric);
		bg_json_object_end(j);
	} else {
		bg_json_null(j);
	}
	bg_headline_pick(step, b->mode && !strcmp(b->mode, "deterministic"), timing, &h);
	bg_json_key(j, "headline");
	if (h.paid) {
		bg_json_object_begin(j);
		key_str(j, "mode", h.exact ? "timing" : b->mode);
		key_num(j, "base_us", h.paid->base_median);
		key_num(j, "cand_us", h.paid->cand_median);
		key_num(j, "delta_us", h.paid->delta);
		key_num(j, "delta_pct", h.paid->delta_pct);
		key_num(j, "exact_delta_us", h.exact ? h.exact->delta : NAN);
		key_num(j, "exact_delta_pct", h.exact ? h.exact->delta_pct : NAN);
		key_num(j, "ratio", h.ratio);
		bg_json_object_end(j);
	} else {
		bg_json_null(j);
	}
	confirmation(j, b, f);
	bg_json_object_end(j);
}

/* ---- series ---- */

void bg_series_write_judged(struct bg_json *j, const char *verdict, const char *metric,
			    const struct bg_stored_comparison *c)
{
	const struct bg_verdict *v = c && c->id ? metric_of(c, metric) : NULL;
	const struct bg_verdict *init = c && c->id ? bg_comparison_find(&c->cmp, "boot.init") : NULL;
	size_t shown = 0;

	key_str(j, "verdict", verdict);
	key_str(j, "metric", metric);
	key_num(j, "delta_us", v ? v->delta : NAN);
	key_num(j, "delta_pct", v ? v->delta_pct : NAN);
	key_num(j, "base_us", v ? v->base_median : NAN);
	key_num(j, "cand_us", v ? v->cand_median : NAN);
	key_num(j, "boot_init_delta_us", init ? init->delta : NAN);
	key_id(j, "comparison", c ? c->id : 0);
	bg_json_key(j, "moved");
	bg_json_array_begin(j);
	for (size_t i = 0; c && i < c->cmp.n && shown < 8; i++) {
		const struct bg_verdict *m = &c->cmp.v[i];

		if (m->verdict != BG_DIFFERENT)
			continue;
		shown++;
		bg_json_object_begin(j);
		key_str(j, "metric", m->metric);
		key_num(j, "base_us", m->base_median);
		key_num(j, "cand_us", m->cand_median);
		key_num(j, "delta_us", m->delta);
		key_num(j, "delta_pct", m->delta_pct);
		bg_json_object_end(j);
	}
	bg_json_array_end(j);
}

static void image(struct bg_json *j, const char *sha, const char *parent, int64_t boots)
{
	key_str(j, "image_sha256", sha);
	/* a patch that changed nothing the board builds boots its parent's image */
	bg_json_key(j, "image_same_as_parent");
	bg_json_bool(j, sha && parent && !strcmp(sha, parent));
	key_count(j, "boots", boots);
}

void bg_stored_series_write_json(struct bg_json *j, const struct bg_stored_series *se,
			  const struct bg_stored_patches *ps,
			  const struct bg_stored_comparison *cmp,
			  const struct bg_stored_comparison *whole)
{
	const char *parent = se->base_image_sha256;

	bg_json_object_begin(j);
	key_int(j, "series", se->id);
	key_str(j, "message_id", se->message_id);
	key_str(j, "subject", se->subject);
	key_str(j, "author", se->author);
	key_int(j, "version", se->version);
	key_int(j, "total", se->total);
	key_str(j, "tree", se->tree);
	key_str(j, "board", se->board);
	key_str(j, "mode", se->mode);
	key_count(j, "boots_per_commit", se->boots_per_commit);
	key_str(j, "state", se->state);
	key_str(j, "error", se->error);
	bg_json_key(j, "base");
	bg_json_object_begin(j);
	key_str(j, "commit", se->base);
	key_str(j, "from", se->base_from);
	image(j, se->base_image_sha256, NULL, se->base_boots);
	bg_json_object_end(j);
	bg_json_key(j, "patches");
	bg_json_array_begin(j);
	for (size_t i = 0; i < ps->n; i++) {
		const struct bg_stored_patch *p = &ps->v[i];

		if (p->idx < 1)
			continue;   /* the cover letter is no patch */
		bg_json_object_begin(j);
		key_int(j, "idx", p->idx);
		key_str(j, "subject", p->subject);
		key_str(j, "message_id", p->message_id);
		key_str(j, "author", p->author);
		key_str(j, "status", p->status);
		key_str(j, "error", p->error);
		key_str(j, "commit", p->status && !strcmp(p->status, "applied") ? p->commit : NULL);
		image(j, p->image_sha256, parent, p->boots);
		if (p->verdict) {
			bg_series_write_judged(j, p->verdict, p->metric, &cmp[i]);
		} else {
			bg_json_key(j, "verdict");
			bg_json_null(j);
		}
		bg_json_object_end(j);
		parent = p->image_sha256;
	}
	bg_json_array_end(j);
	bg_json_key(j, "whole");
	if (whole) {
		bg_json_object_begin(j);
		bg_series_write_judged(j, whole->verdict, whole->metric, whole);
		bg_json_object_end(j);
	} else {
		bg_json_null(j);
	}
	bg_json_object_end(j);
}
