/* The gate (gate.h). */
#include "ci/gate.h"
#include "lab/pipeline.h"
#include "lab/record.h"
#include "util/error.h"
#include "util/xmalloc.h"

static const char *const verdict_names[] = {
	"baseline", "pass", "regression", "unknown", "unbuildable",
};

const char *bg_gate_verdict_name(enum bg_gate_verdict v)
{
	return verdict_names[v];
}

static bool watched(const struct bg_gate_opts *o, const char *metric)
{
	if (!o->nmetrics)
		return true;
	for (size_t i = 0; i < o->nmetrics; i++)
		if (bg_threshold_matches(o->metrics[i], metric))
			return true;
	return false;
}

/* Every build and boot of the measure, so that a bisection starts from them. */
static int record(struct bg_store *s, const struct bg_measure_opts *mo, struct bg_measure *m)
{
	const char *mode = mo->deterministic ? "deterministic" : "timing";
	int64_t id;

	for (int side = 0; side < (mo->against ? 2 : 1); side++) {
		if (!m->build[side].commit)
			continue;   /* never tried */
		bg_record_commit(s, m->tree.real, m->rev[side]);
		if (bg_record_build(s, &m->build[side], &id) < 0)
			return -1;
	}
	for (size_t i = 0; i < m->nboots; i++) {
		const struct bg_measure_boot *b = &m->boots[i];
		const struct bg_boot_record *rec = &m->run.boots[i];

		if (bg_record_boot(s, m->build[b->side].image_sha256, m->build[b->side].board, mode,
				   mo->console, rec, b->parsed, &id) < 0)
			return -1;
	}
	return 0;
}

static int conclude(struct bg_store *s, const struct bg_gate_opts *o, int64_t tree,
		    const char *base, const struct bg_measure_opts *mo, struct bg_measure *m,
		    enum bg_gate_verdict *v)
{
	const struct bg_verdict *worst = NULL;
	bool unknown = false;
	struct bg_json j;
	int ret = -1;

	for (size_t i = 0; m->compared && i < m->cmp.n; i++) {
		const struct bg_verdict *x = &m->cmp.v[i];

		if (!watched(o, x->metric))
			continue;
		unknown |= x->verdict == BG_UNKNOWN;
		if (x->verdict == BG_DIFFERENT && x->delta > 0 &&
		    (!worst || x->delta_pct > worst->delta_pct))
			worst = x;
	}
	*v = !base ? BG_GATE_BASELINE : worst ? BG_GATE_REGRESSION :
	     unknown ? BG_GATE_UNKNOWN : BG_GATE_PASS;
	bg_json_init(&j, -1, 0);
	bg_measure_write_json(&j, mo, m);
	if (bg_store_begin(s) < 0)
		goto out;
	if (base && bg_store_exec(s, "INSERT INTO comparisons (base, cand, board, mode, verdict, "
				  "metric, delta, result, created, tree_id) VALUES (?, ?, ?, ?, ?, ?, ?, "
				  "?, ?, ?)", "ssssssdsdi", m->rev[1], m->rev[0], m->build[0].board,
				  mo->deterministic ? "deterministic" : "timing",
				  bg_gate_verdict_name(*v), worst ? worst->metric : NULL,
				  worst ? worst->delta : 0.0, j.out.buf, bg_store_now(), tree) < 0)
		goto fail;
	/* a regression is bisected and reported once: later tips are gated against this one */
	if (*v != BG_GATE_UNKNOWN &&
	    bg_store_exec(s, "UPDATE trees SET last_good = ? WHERE id = ?", "si", m->rev[0],
			  tree) < 0)
		goto fail;
	if (*v == BG_GATE_REGRESSION &&
	    bg_store_exec(s, "INSERT INTO jobs (kind, origin, tree_id, rev, base, created) VALUES "
			  "('bisect', 'gate', ?, ?, ?, ?)", "issd", tree, m->rev[0], m->rev[1],
			  bg_store_now()) < 0)
		goto fail;
	if (*v == BG_GATE_REGRESSION)
		bg_record_event(s, "warning", tree, 0, "%.12s: %s %+.0f us (%+.1f%%) against %.12s: "
				"bisecting", m->rev[0], worst->metric, worst->delta, worst->delta_pct,
				m->rev[1]);
	else
		bg_record_event(s, "info", tree, 0, "%.12s: %s%s%.12s", m->rev[0],
				bg_gate_verdict_name(*v), base ? " against " : "", base ? m->rev[1] : "");
	ret = bg_store_commit(s);
	goto out;
fail:
	bg_store_rollback(s);
out:
	bg_strbuf_release(&j.out);
	return ret;
}

int bg_gate_run(struct bg_store *s, const struct bg_gate_opts *o, enum bg_gate_verdict *v)
{
	struct bg_measure_opts mo = { 0 };
	struct bg_measure m;
	char *base = NULL;
	int64_t tree;
	int ret = -1;

	bg_measure_init(&m);
	mo.tree = o->tree;
	mo.commit = o->rev;
	mo.board = o->board;
	mo.lab = o->lab;
	mo.config = o->config;
	mo.deterministic = o->deterministic;
	mo.console = o->console;
	mo.boots = o->boots ? o->boots : o->deterministic ? 2 : 5;
	mo.compare = o->compare;
	mo.progress = o->progress;
	mo.progress_data = o->progress_data;
	if (bg_measure_check(&mo, &m) < 0 ||
	    bg_record_tree(s, o->tree_name, m.tree.real, &tree) < 0 ||
	    bg_store_text(s, &base, "SELECT last_good FROM trees WHERE id = ?", "i", tree) < 0)
		goto out;
	if (base && !strcmp(base, m.rev[0])) {
		*v = BG_GATE_PASS;
		ret = 0;
		goto out;
	}
	mo.against = base;
	if (base) {
		bg_measure_release(&m);
		bg_measure_init(&m);
		if (bg_measure_check(&mo, &m) < 0)
			goto out;
	}
	if (bg_measure_run(&mo, &m) < 0) {
		if (m.build[0].status == BG_BUILD_FAILED) {
			*v = BG_GATE_UNBUILDABLE;
			record(s, &mo, &m);
			bg_record_event(s, "warning", tree, 0, "%.12s does not build", m.rev[0]);
			ret = 0;
		}
		goto out;
	}
	if (record(s, &mo, &m) < 0 || conclude(s, o, tree, base, &mo, &m, v) < 0)
		goto out;
	ret = 0;
out:
	free(base);
	bg_measure_release(&m);
	return ret;
}
