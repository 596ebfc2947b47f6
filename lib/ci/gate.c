/* The gate (gate.h). */
#include "ci/gate.h"
#include "conf/board.h"
#include "lab/pipeline.h"
#include "lab/record.h"
#include "store/results.h"
#include "store/service.h"
#include "util/error.h"
#include "util/xmalloc.h"

static const char *const verdict_names[] = {
	"baseline", "pass", "regression", "unknown", "unbuildable", "infra",
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

static int conclude(struct bg_store *s, const struct bg_gate_opts *o, int64_t tree,
		    const char *board, const char *base, const struct bg_measure_opts *mo, struct bg_measure *m,
		    const int64_t *boot_ids, enum bg_gate_verdict *v)
{
	const struct bg_verdict *worst = NULL;
	struct bg_stored_comparison c;
	bool unknown = false;
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
	bg_measure_stored_comparison(mo, m, boot_ids, &c);
	c.role = BG_ROLE_GATE;
	c.tree_id = tree;
	c.verdict = xstrdup(bg_gate_verdict_name(*v));
	c.metric = worst ? xstrdup(worst->metric) : NULL;
	c.delta = worst ? worst->delta : 0.0;
	if (bg_store_begin(s) < 0)
		goto out;
	if (base && bg_store_comparison_add(s, &c) < 0)
		goto fail;
	/* a regression is bisected and reported once: later tips are gated against this one */
	if (*v != BG_GATE_UNKNOWN && bg_store_board_set_last_good(s, tree, board, m->rev[0]) < 0)
		goto fail;
	/* bisected on the board that saw it: another may not run the code at all */
	if (*v == BG_GATE_REGRESSION &&
	    bg_store_job_bisect(s, tree, m->rev[0], m->rev[1], board) < 0)
		goto fail;
	if (*v == BG_GATE_REGRESSION)
		bg_record_event(s, "warning", tree, 0, "%.12s on %s: %s %+.0f us (%+.1f%%) against "
				"%.12s: bisecting", m->rev[0], board, worst->metric, worst->delta,
				worst->delta_pct, m->rev[1]);
	else
		bg_record_event(s, "info", tree, 0, "%.12s on %s: %s%s%.12s", m->rev[0], board,
				bg_gate_verdict_name(*v), base ? " against " : "", base ? m->rev[1] : "");
	ret = bg_store_commit(s);
	goto out;
fail:
	bg_store_rollback(s);
out:
	/* the verdicts were the measure's: it frees them */
	memset(&c.cmp, 0, sizeof(c.cmp));
	bg_stored_comparison_release(&c);
	return ret;
}

int bg_gate_run(struct bg_store *s, const struct bg_gate_opts *o, enum bg_gate_verdict *v)
{
	struct bg_measure_opts mo = { 0 };
	struct bg_measure m;
	struct bg_board b;
	char *base = NULL, *board = NULL;
	bool own;
	int64_t tree, *boot_ids = NULL;
	int ret = -1, measured;

	bg_measure_init(&m);
	/* the board's own name (an arch names qemu-ARCH): its last good commit is its own */
	if (bg_board_load(o->lab ? o->lab : bg_lab_dir(), o->board, &b) < 0)
		goto out;
	board = xstrdup(b.name);
	bg_board_release(&b);
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
	    bg_store_board_last_good(s, tree, board, &base, &own) < 0)
		goto out;
	if (base && !strcmp(base, m.rev[0])) {
		if (own) {
			*v = BG_GATE_PASS;
			ret = 0;
			goto out;
		}
		/*
		 * the tree's last good, which another board has just passed: this board has
		 * never booted it, and its boots of it are its baseline
		 */
		free(base);
		base = NULL;
	}
	mo.against = base;
	if (base) {
		bg_measure_release(&m);
		bg_measure_init(&m);
		if (bg_measure_check(&mo, &m) < 0)
			goto out;
	}
	measured = bg_measure_run(&mo, &m);
	/*
	 * Every boot failed for the lab: the board says nothing of the tip, so its last good
	 * commit stays and no other board's verdict is touched; the boots are kept, for the
	 * report, and the job tries again (bootgate gate exits 1).
	 */
	if (bg_measure_all_infra(&m)) {
		*v = BG_GATE_INFRA;
		if (bg_measure_record(s, &mo, &m, NULL) == 0)
			ret = 0;
		bg_record_event(s, "warning", tree, 0, "%.12s on %s: infra: the lab failed all %zu "
				"boots: no verdict, tried again", m.rev[0], board, m.nboots);
		goto out;
	}
	if (measured < 0) {
		if (m.build[0].status == BG_BUILD_FAILED) {
			*v = BG_GATE_UNBUILDABLE;
			bg_measure_record(s, &mo, &m, NULL);
			bg_record_event(s, "warning", tree, 0, "%.12s does not build for %s",
					m.rev[0], board);
			ret = 0;
		}
		goto out;
	}
	boot_ids = xcalloc(m.nboots ? m.nboots : 1, sizeof(*boot_ids));
	if (bg_measure_record(s, &mo, &m, boot_ids) < 0 || conclude(s, o, tree, board, base, &mo, &m, boot_ids, v) < 0)
		goto out;
	ret = 0;
out:
	free(boot_ids);
	free(base);
	free(board);
	bg_measure_release(&m);
	return ret;
}
