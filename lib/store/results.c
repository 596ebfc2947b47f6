/* Typed results in the store (results.h). */
#include <math.h>

#include "store/results.h"
#include "util/error.h"
#include "util/xmalloc.h"

static const char *const role_names[] = { "gate", "series", "step", "timing", "revert" };

const char *bg_role_name(enum bg_role r)
{
	return role_names[r];
}

static enum bg_role role_of(const char *s)
{
	for (size_t i = 0; i < ARRAY_SIZE(role_names); i++)
		if (!strcmp(s, role_names[i]))
			return (enum bg_role)i;
	return BG_ROLE_GATE;
}

static enum bg_verdict_kind verdict_of(const char *s)
{
	return !strcmp(s, "different") ? BG_DIFFERENT : !strcmp(s, "same") ? BG_SAME : BG_UNKNOWN;
}

/* A column as a string owned by the caller, or NULL for NULL. */
static char *col_str(const struct bg_store_row *r, int col)
{
	return bg_row_null(r, col) ? NULL : xstrdup(bg_row_text(r, col));
}

/* A column as a number, NAN for NULL (and for text that is no number). */
static double col_num(const struct bg_store_row *r, int col)
{
	return bg_row_number(r, col) ? bg_row_double(r, col) : NAN;
}

static int64_t col_id(const struct bg_store_row *r, int col)
{
	return bg_row_null(r, col) ? 0 : bg_row_int(r, col);
}

/* ---- comparisons ---- */

void bg_stored_comparison_init(struct bg_stored_comparison *c)
{
	memset(c, 0, sizeof(*c));
	c->delta = NAN;
}

void bg_stored_comparison_release(struct bg_stored_comparison *c)
{
	free(c->tree);
	free(c->base);
	free(c->cand);
	free(c->board);
	free(c->mode);
	free(c->console);
	free(c->verdict);
	free(c->metric);
	bg_comparison_release(&c->cmp);
	free(c->boot);
	bg_stored_comparison_init(c);
}

void bg_stored_comparison_add_boot(struct bg_stored_comparison *c, enum bg_side side,
				   int64_t boot_id)
{
	ALLOC_GROW(c->boot, c->nboot + 1, c->alloc_boot);
	c->boot[c->nboot++] = (struct bg_comparison_boot){ side, boot_id };
}

/* SQLite binds a NaN as NULL, and col_num reads NULL back as NAN. */
static int add_verdict(struct bg_store *s, int64_t id, size_t rank, const struct bg_verdict *v)
{
	return bg_store_exec(s, "INSERT INTO verdicts (comparison_id, rank, metric, verdict, "
			     "base_median, cand_median, mad_base, mad_cand, delta, delta_pct, ci_lo, "
			     "ci_hi, p, q, n_base, n_cand, more_boots, exact) VALUES (?, ?, ?, ?, ?, ?, "
			     "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", "iissddddddddddiiii", id,
			     (int64_t)rank, v->metric, bg_verdict_name(v->verdict), v->base_median,
			     v->cand_median, v->mad_base, v->mad_cand, v->delta, v->delta_pct,
			     v->ci_lo, v->ci_hi, v->p, v->q, (int64_t)v->n_base, (int64_t)v->n_cand,
			     (int64_t)v->more_boots, (int64_t)v->exact);
}

int bg_store_comparison_add(struct bg_store *s, struct bg_stored_comparison *c)
{
	int64_t id;

	if (bg_store_exec(s, "INSERT INTO comparisons (base, cand, board, mode, console_mode, "
			  "verdict, metric, delta, created, tree_id, job_id, bisection_id, role, "
			  "boots_base, boots_cand, excluded_base, excluded_cand) VALUES (?, ?, ?, ?, "
			  "?, ?, ?, ?, ?, nullif(?, 0), nullif(?, 0), nullif(?, 0), ?, ?, ?, ?, ?)",
			  "sssssssddiiisiiii", c->base, c->cand, c->board, c->mode,
			  c->console ? c->console : "verbose", c->verdict, c->metric, c->delta,
			  c->created > 0 ? c->created : bg_store_now(), c->tree_id, c->job_id,
			  c->bisection_id, bg_role_name(c->role), (int64_t)c->boots[BG_BASE],
			  (int64_t)c->boots[BG_CAND], (int64_t)c->excluded[BG_BASE],
			  (int64_t)c->excluded[BG_CAND]) < 0)
		return -1;
	id = bg_store_last_id(s);
	for (size_t i = 0; i < c->cmp.n; i++)
		if (add_verdict(s, id, i, &c->cmp.v[i]) < 0)
			return -1;
	for (size_t i = 0; i < c->cmp.na; i++)
		if (bg_store_exec(s, "INSERT INTO attributions (comparison_id, rank, metric, delta, "
				  "share) VALUES (?, ?, ?, ?, ?)", "iisdd", id, (int64_t)i,
				  c->cmp.a[i].metric, c->cmp.a[i].delta, c->cmp.a[i].share) < 0)
			return -1;
	for (size_t i = 0; i < c->nboot; i++)
		if (bg_store_exec(s, "INSERT INTO comparison_boots (comparison_id, seq, side, "
				  "boot_id) VALUES (?, ?, ?, nullif(?, 0))", "iisi", id, (int64_t)i,
				  c->boot[i].side == BG_BASE ? "base" : "cand", c->boot[i].boot_id) < 0)
			return -1;
	c->id = id;
	return 0;
}

static int take_comparison(const struct bg_store_row *r, void *data)
{
	struct bg_stored_comparison *c = data;

	c->id = bg_row_int(r, 0);
	c->tree_id = col_id(r, 1);
	c->bisection_id = col_id(r, 2);
	c->job_id = col_id(r, 3);
	c->role = role_of(bg_row_text(r, 4));
	c->tree = col_str(r, 5);
	c->base = col_str(r, 6);
	c->cand = col_str(r, 7);
	c->board = col_str(r, 8);
	c->mode = col_str(r, 9);
	c->console = col_str(r, 10);
	c->verdict = col_str(r, 11);
	c->metric = col_str(r, 12);
	c->delta = col_num(r, 13);
	c->created = col_num(r, 14);
	c->boots[BG_BASE] = (unsigned)bg_row_int(r, 15);
	c->boots[BG_CAND] = (unsigned)bg_row_int(r, 16);
	c->excluded[BG_BASE] = (unsigned)bg_row_int(r, 17);
	c->excluded[BG_CAND] = (unsigned)bg_row_int(r, 18);
	return 1;
}

static int take_verdict(const struct bg_store_row *r, void *data)
{
	struct bg_comparison *cmp = data;
	struct bg_verdict *v;

	cmp->v = xreallocarray(cmp->v, cmp->n + 1, sizeof(*cmp->v));
	v = &cmp->v[cmp->n++];
	memset(v, 0, sizeof(*v));
	v->metric = xstrdup(bg_row_text(r, 0));
	v->verdict = verdict_of(bg_row_text(r, 1));
	v->base_median = col_num(r, 2);
	v->cand_median = col_num(r, 3);
	v->mad_base = col_num(r, 4);
	v->mad_cand = col_num(r, 5);
	v->delta = col_num(r, 6);
	v->delta_pct = col_num(r, 7);
	v->ci_lo = col_num(r, 8);
	v->ci_hi = col_num(r, 9);
	v->p = col_num(r, 10);
	v->q = col_num(r, 11);
	v->n_base = (size_t)bg_row_int(r, 12);
	v->n_cand = (size_t)bg_row_int(r, 13);
	v->more_boots = (unsigned)bg_row_int(r, 14);
	v->exact = bg_row_int(r, 15) != 0;
	return 0;
}

static int take_attribution(const struct bg_store_row *r, void *data)
{
	struct bg_comparison *cmp = data;

	cmp->a = xreallocarray(cmp->a, cmp->na + 1, sizeof(*cmp->a));
	cmp->a[cmp->na++] = (struct bg_attribution){ xstrdup(bg_row_text(r, 0)), col_num(r, 1),
						     col_num(r, 2) };
	return 0;
}

static int take_boot(const struct bg_store_row *r, void *data)
{
	bg_stored_comparison_add_boot(data, strcmp(bg_row_text(r, 0), "base") ? BG_CAND : BG_BASE,
				      col_id(r, 1));
	return 0;
}

#define COMPARISON_COLUMNS "SELECT c.id, c.tree_id, c.bisection_id, c.job_id, c.role, t.name, " 	"c.base, c.cand, c.board, c.mode, c.console_mode, c.verdict, c.metric, c.delta, " 	"c.created, c.boots_base, c.boots_cand, c.excluded_base, c.excluded_cand FROM " 	"comparisons c LEFT JOIN trees t ON t.id = c.tree_id "

/* The verdicts, attributions and boots of out->id. */
static int comparison_parts(struct bg_store *s, struct bg_stored_comparison *out)
{
	if (bg_store_query(s, take_verdict, &out->cmp, "SELECT metric, verdict, base_median, "
			   "cand_median, mad_base, mad_cand, delta, delta_pct, ci_lo, ci_hi, p, q, "
			   "n_base, n_cand, more_boots, exact FROM verdicts WHERE comparison_id = ? ORDER BY rank",
			   "i", out->id) < 0 ||
	    bg_store_query(s, take_attribution, &out->cmp, "SELECT metric, delta, share FROM "
			   "attributions WHERE comparison_id = ? ORDER BY rank", "i", out->id) < 0 ||
	    bg_store_query(s, take_boot, out, "SELECT side, boot_id FROM comparison_boots WHERE "
			   "comparison_id = ? ORDER BY seq", "i", out->id) < 0)
		return -1;
	return 1;
}

int bg_store_comparison_get(struct bg_store *s, int64_t id, struct bg_stored_comparison *out)
{
	int ret;

	bg_stored_comparison_init(out);
	ret = bg_store_query(s, take_comparison, out, COMPARISON_COLUMNS "WHERE c.id = ?", "i", id);
	if (ret <= 0)
		return ret;
	return comparison_parts(s, out);
}

int bg_store_comparison_of_bisection(struct bg_store *s, int64_t bisection, enum bg_role role,
				     struct bg_stored_comparison *out)
{
	int ret;

	bg_stored_comparison_init(out);
	ret = bg_store_query(s, take_comparison, out, COMPARISON_COLUMNS "WHERE c.bisection_id = ? "
			     "AND c.role = ? ORDER BY c.id DESC LIMIT 1", "is", bisection,
			     bg_role_name(role));
	if (ret <= 0)
		return ret;
	return comparison_parts(s, out);
}

struct where {
	char **console;
	uint64_t *line;
};

static int take_where(const struct bg_store_row *r, void *data)
{
	struct where *w = data;

	*w->console = xstrdup(bg_row_text(r, 0));
	*w->line = (uint64_t)bg_row_int(r, 1);
	return 1;
}

int bg_store_comparison_line(struct bg_store *s, int64_t id, enum bg_side side,
			     const char *metric, char **console, uint64_t *line)
{
	struct where w = { console, line };

	*console = NULL;
	*line = 0;
	return bg_store_query(s, take_where, &w, "SELECT o.console, x.line FROM comparison_boots "
			      "cb JOIN boots o ON o.id = cb.boot_id JOIN samples x ON x.boot_id = "
			      "o.id AND x.metric = ? WHERE cb.comparison_id = ? AND cb.side = ? AND "
			      "x.line IS NOT NULL AND o.console IS NOT NULL ORDER BY cb.seq LIMIT 1",
			      "sis", metric, id, side == BG_BASE ? "base" : "cand");
}

struct ids {
	int64_t *v;
	size_t n, alloc;
};

static int take_id(const struct bg_store_row *r, void *data)
{
	struct ids *l = data;

	ALLOC_GROW(l->v, l->n + 1, l->alloc);
	l->v[l->n++] = bg_row_int(r, 0);
	return 0;
}

static int ids_of(struct bg_store *s, const char *sql, int64_t **ids, size_t *n)
{
	struct ids l = { NULL, 0, 0 };

	if (bg_store_query(s, take_id, &l, sql, "") < 0) {
		free(l.v);
		return -1;
	}
	*ids = l.v;
	*n = l.n;
	return 0;
}

int bg_store_comparison_ids(struct bg_store *s, int64_t **ids, size_t *n)
{
	return ids_of(s, "SELECT id FROM comparisons ORDER BY id", ids, n);
}

/* ---- boots ---- */

void bg_stored_boot_init(struct bg_stored_boot *b)
{
	memset(b, 0, sizeof(*b));
	b->wall_s = b->init_us = NAN;
}

void bg_stored_boot_release(struct bg_stored_boot *b)
{
	free(b->image_sha256);
	free(b->board);
	free(b->mode);
	free(b->console_mode);
	free(b->outcome);
	free(b->console);
	free(b->job_url);
	free(b->kernel);
	free(b->cmdline);
	bg_stored_boot_init(b);
}

static int take_stored_boot(const struct bg_store_row *r, void *data)
{
	struct bg_stored_boot *b = data;

	b->id = bg_row_int(r, 0);
	b->image_sha256 = col_str(r, 1);
	b->board = col_str(r, 2);
	b->mode = col_str(r, 3);
	b->console_mode = col_str(r, 4);
	b->outcome = col_str(r, 5);
	b->console = col_str(r, 6);
	b->job_url = col_str(r, 7);
	b->kernel = col_str(r, 8);
	b->cmdline = col_str(r, 9);
	b->wall_s = col_num(r, 10);
	b->created = col_num(r, 11);
	b->init_us = col_num(r, 12);
	return 1;
}

int bg_store_boot_get(struct bg_store *s, int64_t id, struct bg_stored_boot *out)
{
	bg_stored_boot_init(out);
	return bg_store_query(s, take_stored_boot, out, "SELECT o.id, o.image_sha256, o.board, "
			      "o.mode, o.console_mode, o.outcome, o.console, o.job_url, o.kernel, "
			      "o.cmdline, o.wall_s, o.created, (SELECT value FROM samples WHERE "
			      "boot_id = o.id AND metric = 'boot.init') FROM boots o WHERE o.id = ?",
			      "i", id);
}

static int take_sample(const struct bg_store_row *r, void *data)
{
	struct bg_stored_samples *l = data;

	ALLOC_GROW(l->v, l->n + 1, l->alloc);
	l->v[l->n++] = (struct bg_stored_sample){ xstrdup(bg_row_text(r, 0)), col_num(r, 1),
						  col_num(r, 2), col_num(r, 3),
						  bg_row_null(r, 4) ? 0 : (uint64_t)bg_row_int(r, 4) };
	return 0;
}

int bg_store_boot_samples(struct bg_store *s, int64_t id, const char *prefix,
			  struct bg_stored_samples *out)
{
	size_t n = strlen(prefix);

	memset(out, 0, sizeof(*out));
	/* substr, not LIKE: a metric's name may hold '%' or '_' */
	return bg_store_query(s, take_sample, out, "SELECT metric, value, start_us, end_us, line "
			      "FROM samples WHERE boot_id = ? AND substr(metric, 1, ?) = ? ORDER BY "
			      "seq", "iis", id, (int64_t)n, prefix);
}

void bg_stored_samples_release(struct bg_stored_samples *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].metric);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/* ---- bisections ---- */

void bg_stored_bisection_init(struct bg_stored_bisection *b)
{
	memset(b, 0, sizeof(*b));
	b->confidence = b->finished = b->wall_s = b->regression_us = NAN;
	b->range_first = b->range_last = -1;
	b->builds = b->boots = -1;
	b->revert_applies = -1;
}

void bg_stored_bisection_release(struct bg_stored_bisection *b)
{
	free(b->tree);
	free(b->good);
	free(b->bad);
	free(b->board);
	free(b->mode);
	free(b->console);
	free(b->asked_metric);
	free(b->metric);
	free(b->state);
	free(b->outcome);
	free(b->culprit);
	free(b->error);
	free(b->culprit_subject);
	free(b->culprit_author);
	free(b->merge_commit);
	free(b->revert_commit);
	bg_stored_bisection_init(b);
}

static int take_bisection(const struct bg_store_row *r, void *data)
{
	struct bg_stored_bisection *b = data;

	b->id = bg_row_int(r, 0);
	b->tree_id = col_id(r, 1);
	b->parent_id = col_id(r, 2);
	b->inner_id = col_id(r, 3);
	b->tree = col_str(r, 4);
	b->good = col_str(r, 5);
	b->bad = col_str(r, 6);
	b->board = col_str(r, 7);
	b->mode = col_str(r, 8);
	b->console = col_str(r, 9);
	b->asked_metric = col_str(r, 10);
	b->metric = col_str(r, 11);
	b->state = col_str(r, 12);
	b->outcome = col_str(r, 13);
	b->culprit = col_str(r, 14);
	b->error = col_str(r, 15);
	b->culprit_subject = col_str(r, 16);
	b->culprit_author = col_str(r, 17);
	b->confidence = col_num(r, 18);
	b->created = col_num(r, 19);
	b->finished = col_num(r, 20);
	b->ncommits = (int)bg_row_int(r, 21);
	b->range_first = bg_row_null(r, 22) ? -1 : (int)bg_row_int(r, 22);
	b->range_last = bg_row_null(r, 23) ? -1 : (int)bg_row_int(r, 23);
	b->builds = bg_row_null(r, 24) ? -1 : bg_row_int(r, 24);
	b->boots = bg_row_null(r, 25) ? -1 : bg_row_int(r, 25);
	b->wall_s = col_num(r, 26);
	b->exact = bg_row_int(r, 27) != 0;
	b->merge_commit = col_str(r, 28);
	b->revert_applies = bg_row_null(r, 29) ? -1 : bg_row_int(r, 29) != 0;
	b->revert_commit = col_str(r, 30);
	b->regression_us = col_num(r, 31);
	return 1;
}

int bg_store_bisection_get(struct bg_store *s, int64_t id, struct bg_stored_bisection *out)
{
	bg_stored_bisection_init(out);
	return bg_store_query(s, take_bisection, out, "SELECT b.id, b.tree_id, b.parent_id, "
			      "(SELECT max(i.id) FROM bisections i WHERE i.parent_id = b.id), t.name, "
			      "b.good, b.bad, b.board, b.mode, b.console_mode, b.asked_metric, "
			      "b.metric, b.state, b.outcome, b.culprit, b.error, c.subject, c.author, "
			      "b.confidence, b.created, b.finished, (SELECT count(*) FROM "
			      "bisection_commits k WHERE k.bisection_id = b.id), b.range_first, "
			      "b.range_last, b.builds, b.boots, b.wall_s, b.exact, b.merge_commit, "
			      "b.revert_applies, b.revert_commit, b.regression_us FROM bisections b "
			      "LEFT JOIN trees t ON t.id = b.tree_id LEFT JOIN commits c ON "
			      "c.sha = b.culprit WHERE b.id = ?", "i", id);
}

int bg_store_bisection_ids(struct bg_store *s, int64_t **ids, size_t *n)
{
	return ids_of(s, "SELECT id FROM bisections ORDER BY id", ids, n);
}

int bg_store_bisection_comparisons(struct bg_store *s, const struct bg_stored_bisection *b,
				   struct bg_stored_comparison out[3])
{
	static const enum bg_role roles[3] = { BG_ROLE_STEP, BG_ROLE_TIMING, BG_ROLE_REVERT };
	int64_t id = b->merge_commit && b->inner_id ? b->inner_id : b->id;

	for (int i = 0; i < 3; i++)
		if (bg_store_comparison_of_bisection(s, id, roles[i], &out[i]) < 0)
			return -1;
	return 0;
}

struct strings {
	char **v;
	size_t n, alloc;
};

static int take_string(const struct bg_store_row *r, void *data)
{
	struct strings *l = data;

	ALLOC_GROW(l->v, l->n + 1, l->alloc);
	l->v[l->n++] = xstrdup(bg_row_text(r, 0));
	return 0;
}

int bg_store_bisection_range(struct bg_store *s, const struct bg_stored_bisection *b,
			     char ***range, size_t *n)
{
	struct strings l = { NULL, 0, 0 };
	int ret = 0;

	if (b->range_first >= 0)
		ret = bg_store_query(s, take_string, &l, "SELECT sha FROM bisection_commits WHERE "
				     "bisection_id = ? AND idx BETWEEN ? AND ? ORDER BY idx", "iii",
				     b->id, (int64_t)b->range_first, (int64_t)b->range_last);
	*range = l.v;
	*n = l.n;
	return ret < 0 ? -1 : 0;
}

struct steps_ctx {
	const struct bg_stored_bisection *b;
	struct bg_bisection_steps *st;
	bool found;
};

/* One report (idx, commit, kind, value), in the order of the range then of the reports. */
static int take_report(const struct bg_store_row *r, void *data)
{
	struct steps_ctx *x = data;
	struct bg_bisection_steps *st = x->st;
	int idx = (int)bg_row_int(r, 0);
	const char *kind = bg_row_text(r, 2);
	struct bg_bisection_step *p;

	if (!st->n || st->v[st->n - 1].idx != idx) {
		ALLOC_GROW(st->v, st->n + 1, st->alloc);
		p = &st->v[st->n++];
		memset(p, 0, sizeof(*p));
		p->idx = idx;
		p->commit = xstrdup(bg_row_text(r, 1));
		p->built = true;
		p->verdict = !x->found ? "unknown" : idx < x->b->range_first ? "good" :
			     idx > x->b->range_last ? "bad" : "culprit";
	}
	p = &st->v[st->n - 1];
	if (!strcmp(kind, "unbuildable")) {
		p->built = false;
		p->verdict = "skip";
	} else if (!strcmp(kind, "value") && bg_row_number(r, 3)) {
		p->values = xreallocarray(p->values, p->nvalues + 1, sizeof(*p->values));
		p->values[p->nvalues++] = bg_row_double(r, 3);
	}
	return 0;
}

int bg_store_bisection_steps(struct bg_store *s, const struct bg_stored_bisection *b,
			     struct bg_bisection_steps *out)
{
	struct steps_ctx x = { b, out, b->range_first >= 0 && b->range_last >= b->range_first };

	memset(out, 0, sizeof(*out));
	return bg_store_query(s, take_report, &x, "SELECT r.idx, c.sha, r.kind, r.value FROM "
			      "bisection_reports r JOIN bisection_commits c ON c.bisection_id = "
			      "r.bisection_id AND c.idx = r.idx WHERE r.bisection_id = ? ORDER BY "
			      "r.idx, r.seq", "i", b->id);
}

void bg_bisection_steps_release(struct bg_bisection_steps *st)
{
	for (size_t i = 0; i < st->n; i++) {
		free(st->v[i].commit);
		free(st->v[i].values);
	}
	free(st->v);
	memset(st, 0, sizeof(*st));
}

int bg_store_bisection_conclude(struct bg_store *s, int64_t id,
				const struct bg_bisection_conclusion *c)
{
	double now = bg_store_now();

	return bg_store_exec(s, "UPDATE bisections SET state = 'done', outcome = ?, culprit = ?, "
			     "confidence = ?, range_first = nullif(?, -1), range_last = nullif(?, "
			     "-1), exact = ?, merge_commit = ?, revert_applies = nullif(?, -1), "
			     "revert_commit = ?, regression_us = ?, finished = ?, wall_s = ? - "
			     "created, builds = (SELECT count(*) FROM builds WHERE reused = 0 AND "
			     "status = 'built' AND board = bisections.board AND id IN (SELECT "
			     "build_id FROM bisection_reports WHERE bisection_id = ?)), boots = "
			     "(SELECT count(DISTINCT boot_id) FROM bisection_reports WHERE "
			     "bisection_id = ?) WHERE id = ?", "ssdiiisisddd" "iii", c->outcome,
			     c->culprit, c->confidence, (int64_t)c->range_first,
			     (int64_t)c->range_last, (int64_t)c->exact, c->merge_commit,
			     (int64_t)c->revert_applies, c->revert_commit, c->regression_us, now, now,
			     id, id, id);
}

/* ---- series ---- */

void bg_stored_series_init(struct bg_stored_series *se)
{
	memset(se, 0, sizeof(*se));
	se->base_boots = se->boots_per_commit = -1;
	se->finished = NAN;
}

void bg_stored_series_release(struct bg_stored_series *se)
{
	free(se->tree);
	free(se->tree_path);
	free(se->message_id);
	free(se->subject);
	free(se->author);
	free(se->title);
	free(se->addr);
	free(se->source);
	free(se->base);
	free(se->base_from);
	free(se->base_image_sha256);
	free(se->patchset_hash);
	free(se->board);
	free(se->mode);
	free(se->state);
	free(se->error);
	bg_stored_series_init(se);
}

static int take_series(const struct bg_store_row *r, void *data)
{
	struct bg_stored_series *se = data;

	se->id = bg_row_int(r, 0);
	se->tree_id = col_id(r, 1);
	se->superseded_by = col_id(r, 2);
	se->tree = col_str(r, 3);
	se->message_id = col_str(r, 4);
	se->subject = col_str(r, 5);
	se->author = col_str(r, 6);
	se->title = col_str(r, 7);
	se->addr = col_str(r, 8);
	se->source = col_str(r, 9);
	se->version = bg_row_int(r, 10);
	se->total = bg_row_int(r, 11);
	se->base = col_str(r, 12);
	se->base_from = col_str(r, 13);
	se->base_image_sha256 = col_str(r, 14);
	se->base_boots = bg_row_null(r, 15) ? -1 : bg_row_int(r, 15);
	se->patchset_hash = col_str(r, 16);
	se->board = col_str(r, 17);
	se->mode = col_str(r, 18);
	se->state = col_str(r, 19);
	se->error = col_str(r, 20);
	se->boots_per_commit = bg_row_null(r, 21) ? -1 : bg_row_int(r, 21);
	se->whole_comparison_id = col_id(r, 22);
	se->created = col_num(r, 23);
	se->finished = col_num(r, 24);
	se->tree_path = col_str(r, 25);
	return 1;
}

int bg_store_series_get(struct bg_store *s, int64_t id, struct bg_stored_series *out)
{
	bg_stored_series_init(out);
	return bg_store_query(s, take_series, out, "SELECT s.id, s.tree_id, s.superseded_by, "
			      "t.name, s.message_id, s.subject, s.author, s.title, s.addr, s.source, "
			      "s.version, s.total, s.base, s.base_from, s.base_image_sha256, "
			      "s.base_boots, s.patchset_hash, s.board, s.mode, s.state, s.error, "
			      "s.boots_per_commit, s.whole_comparison_id, s.created, s.finished, t.path "
			      "FROM series s LEFT JOIN trees t ON t.id = s.tree_id WHERE s.id = ?", "i", id);
}

static int take_patch(const struct bg_store_row *r, void *data)
{
	struct bg_stored_patches *ps = data;
	struct bg_stored_patch *p;

	ALLOC_GROW(ps->v, ps->n + 1, ps->alloc);
	p = &ps->v[ps->n++];
	p->idx = (int)bg_row_int(r, 0);
	p->message_id = col_str(r, 1);
	p->subject = col_str(r, 2);
	p->author = col_str(r, 3);
	p->mbox = col_str(r, 4);
	p->commit = col_str(r, 5);
	p->status = col_str(r, 6);
	p->error = col_str(r, 7);
	p->comparison_id = col_id(r, 8);
	p->verdict = col_str(r, 9);
	p->metric = col_str(r, 10);
	p->delta = col_num(r, 11);
	p->image_sha256 = col_str(r, 12);
	p->boots = bg_row_null(r, 13) ? -1 : bg_row_int(r, 13);
	return 0;
}

int bg_store_series_patches(struct bg_store *s, int64_t id, bool with_mbox,
			    struct bg_stored_patches *out)
{
	memset(out, 0, sizeof(*out));
	return bg_store_query(s, take_patch, out, with_mbox ?
			      "SELECT idx, message_id, subject, author, mbox, commit_sha, status, "
			      "error, comparison_id, verdict, metric, delta, image_sha256, boots FROM "
			      "series_patches WHERE series_id = ? ORDER BY idx" :
			      "SELECT idx, message_id, subject, author, NULL, commit_sha, status, "
			      "error, comparison_id, verdict, metric, delta, image_sha256, boots FROM "
			      "series_patches WHERE series_id = ? ORDER BY idx", "i", id);
}

void bg_stored_patches_release(struct bg_stored_patches *ps)
{
	for (size_t i = 0; i < ps->n; i++) {
		struct bg_stored_patch *p = &ps->v[i];

		free(p->message_id);
		free(p->subject);
		free(p->author);
		free(p->mbox);
		free(p->commit);
		free(p->status);
		free(p->error);
		free(p->verdict);
		free(p->metric);
		free(p->image_sha256);
	}
	free(ps->v);
	memset(ps, 0, sizeof(*ps));
}

int bg_store_series_ids(struct bg_store *s, int64_t **ids, size_t *n)
{
	return ids_of(s, "SELECT id FROM series ORDER BY id", ids, n);
}

/* ---- reports ---- */

int bg_store_outbox_add(struct bg_store *s, const char *kind, int64_t ref)
{
	char body[96];

	snprintf(body, sizeof(body), "{\"kind\": \"%s\", \"id\": %" PRId64 "}", kind, ref);
	return bg_store_exec(s, "INSERT INTO outbox (kind, ref, body, created) VALUES (?, ?, ?, ?)",
			     "sisd", kind, ref, body, bg_store_now());
}

int bg_store_outbox_add_once(struct bg_store *s, const char *kind, int64_t ref)
{
	int64_t have;

	if (bg_store_int(s, 0, &have, "SELECT count(*) FROM outbox WHERE kind = ? AND ref = ?",
			 "si", kind, ref) < 0)
		return -1;
	return have ? 0 : bg_store_outbox_add(s, kind, ref);
}
