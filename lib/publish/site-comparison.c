/*
 * The site's comparison/ID.html and .json: a comparison's facts, its boot timeline, what
 * explains boot.init, its verdict tables and its boots, all from the store's typed rows.
 */
#include <math.h>

#include "publish/site-page.h"
#include "store/views.h"
#include "report/html.h"
#include "report/results-json.h"
#include "report/svg.h"
#include "util/path.h"
#include "util/xmalloc.h"

/* ---- the timeline ---- */

struct lane_boot {
	int64_t id;
	double init_us;
};

static int by_init(const void *a, const void *b)
{
	const struct lane_boot *x = a, *y = b;

	return x->init_us < y->init_us ? -1 : x->init_us > y->init_us;
}

/*
 * The boot of one side with the median time to init, else the first one stored; 0 when
 * the side has none.
 */
static int64_t pick_boot(struct site *w, const struct bg_stored_comparison *c,
			 enum bg_side side)
{
	struct lane_boot *b = xcalloc(c->nboot ? c->nboot : 1, sizeof(*b));
	size_t n = 0;
	int64_t any = 0, id;

	for (size_t i = 0; i < c->nboot; i++) {
		struct bg_stored_boot sb;

		if (c->boot[i].side != side || !c->boot[i].boot_id)
			continue;
		bg_stored_boot_init(&sb);
		if (bg_store_boot_get(w->s, c->boot[i].boot_id, &sb) > 0 && sb.outcome &&
		    !strcmp(sb.outcome, "complete")) {
			if (!any)
				any = sb.id;
			if (!isnan(sb.init_us))
				b[n++] = (struct lane_boot){ sb.id, sb.init_us };
		}
		bg_stored_boot_release(&sb);
	}
	qsort(b, n, sizeof(*b), by_init);
	id = n ? b[(n - 1) / 2].id : any;
	free(b);
	return id;
}

/*
 * The lane of one boot: its initcalls with both times, the regressed ones marked. The
 * bars borrow their names from samples, whose metrics lose their "#K".
 */
static void boot_lane(struct site *w, int64_t boot, const struct bg_strmap *regressed,
		      struct bg_stored_samples *samples, struct bg_svg_lane *lane)
{
	struct bg_stored_boot sb;

	lane->n = 0;
	lane->init_us = -1;
	if (bg_store_boot_samples(w->s, boot, "initcall.", samples) < 0)
		return;
	lane->bars = xcalloc(samples->n ? samples->n : 1, sizeof(*lane->bars));
	for (size_t i = 0; i < samples->n; i++) {
		struct bg_stored_sample *x = &samples->v[i];
		struct bg_svg_bar *b;
		char *hash;

		if (!(x->start_us >= 0) || !(x->end_us >= x->start_us) || x->end_us > 1e15)
			continue;
		b = &lane->bars[lane->n++];
		b->regressed = bg_strmap_get(regressed, x->metric) >= 0;
		b->start_us = (int64_t)x->start_us;
		b->end_us = (int64_t)x->end_us;
		/* the initcall's own name: a second call of one function is "#2" (parse/metrics.c) */
		hash = strrchr(x->metric, '#');
		if (hash)
			*hash = '\0';
		b->name = x->metric + strlen("initcall.");
	}
	bg_stored_boot_init(&sb);
	if (bg_store_boot_get(w->s, boot, &sb) > 0 && sb.init_us >= 0 && sb.init_us < 1e15)
		lane->init_us = (int64_t)sb.init_us;
	bg_stored_boot_release(&sb);
	bg_svg_critical_path(lane);
}

static void timeline(struct site *w, struct bg_strbuf *p, const struct bg_stored_comparison *c,
		     const struct bg_strmap *regressed)
{
	struct bg_svg_lane lanes[2];
	struct bg_stored_samples samples[2];
	struct bg_strbuf label[2] = { BG_STRBUF_INIT, BG_STRBUF_INIT };
	size_t n = 0;

	memset(samples, 0, sizeof(samples));
	for (int side = 0; side < 2; side++) {
		int64_t b = pick_boot(w, c, side ? BG_CAND : BG_BASE);
		const char *sha = side ? c->cand : c->base;

		if (!b)
			continue;
		bg_strbuf_addstr(&label[n], side ? "cand " : "base ");
		bg_strbuf_add(&label[n], sha, strnlen(sha, 12));
		lanes[n].label = label[n].buf;
		boot_lane(w, b, regressed, &samples[n], &lanes[n]);
		n++;
	}
	bg_strbuf_addstr(p, "<h2 id=\"timeline\">Boot timeline</h2>\n");
	if (!n) {
		bg_strbuf_addstr(p, "<p>No parsed boot to draw.</p>\n");
	} else {
		bg_strbuf_addstr(p, "<p>One boot of each side (the one with the median time to init): "
				 "each initcall a bar at the time it ran; <span class=\"key-regressed\">"
				 "regressed</span> ones marked and named; the line under the bars is "
				 "the critical path, the chain of initcalls that <code>Run /init</code> "
				 "waited for.</p>\n<figure>");
		bg_svg_timeline(p, lanes, n);
		bg_strbuf_addstr(p, "</figure>\n");
	}
	for (size_t i = 0; i < n; i++) {
		free(lanes[i].bars);
		bg_stored_samples_release(&samples[i]);
	}
	bg_strbuf_release(&label[0]);
	bg_strbuf_release(&label[1]);
}

/* ---- the verdicts ---- */

static void verdict_rows(struct bg_strbuf *p, const struct bg_comparison *cmp,
			 const struct bg_strmap *regressed, bool probes)
{
	for (size_t i = 0; i < cmp->n; i++) {
		const struct bg_verdict *v = &cmp->v[i];
		const char *word = bg_verdict_name(v->verdict);

		if ((strncmp(v->metric, "probe.", 6) == 0) != probes)
			continue;
		bg_strbuf_addf(p, "<tr class=\"v-%s%s\">", word,
			       bg_strmap_get(regressed, v->metric) >= 0 ? " regressed" : "");
		site_td(p, "metric", v->metric);
		site_td(p, NULL, word);
		bg_strbuf_addstr(p, "<td class=\"num\">");
		site_us(p, v->base_median, false);
		bg_strbuf_addstr(p, "</td><td class=\"num\">");
		site_us(p, v->cand_median, false);
		bg_strbuf_addstr(p, "</td><td class=\"num\">");
		site_us(p, v->delta, true);
		if (isnan(v->delta_pct))
			bg_strbuf_addstr(p, "</td><td class=\"num\">-");
		else
			bg_strbuf_addf(p, "</td><td class=\"num\">%+.1f%%", v->delta_pct);
		if (isnan(v->ci_lo) || isnan(v->ci_hi))
			bg_strbuf_addstr(p, "</td><td class=\"num\">-");
		else
			bg_strbuf_addf(p, "</td><td class=\"num\">[%+.0f, %+.0f]", v->ci_lo, v->ci_hi);
		if (isnan(v->q))
			bg_strbuf_addstr(p, "</td><td class=\"num\">-");
		else
			bg_strbuf_addf(p, "</td><td class=\"num\">%.2g", v->q);
		bg_strbuf_addf(p, "</td><td class=\"num\">%zu/%zu</td></tr>\n", v->n_base, v->n_cand);
	}
}

static void verdict_table(struct bg_strbuf *p, const struct bg_comparison *cmp,
			  const struct bg_strmap *regressed, bool probes)
{
	bg_strbuf_addf(p, "<h2 id=\"%s\">%s</h2>\n<table class=\"metrics %s\">\n<thead><tr>"
		       "<th>metric</th><th>verdict</th><th>base median us</th>"
		       "<th>cand median us</th><th>delta us</th><th>delta %%</th>"
		       "<th>95%% interval us</th><th>q</th><th>boots</th></tr></thead>\n<tbody>\n",
		       probes ? "probes" : "initcalls", probes ? "Probes" : "Boot and initcalls",
		       probes ? "probes" : "initcalls");
	verdict_rows(p, cmp, regressed, probes);
	bg_strbuf_addstr(p, "</tbody></table>\n");
}

void site_comparison_body(struct site *w, struct bg_strbuf *p, const struct bg_stored_comparison *c)
{
	struct bg_strmap regressed = BG_STRMAP_INIT;

	for (size_t i = 0; i < c->cmp.n; i++)
		if (c->cmp.v[i].verdict == BG_DIFFERENT && c->cmp.v[i].delta > 0)
			bg_strmap_put(&regressed, c->cmp.v[i].metric, i);
	bg_strbuf_addf(p, "<p class=\"boots\">Boots: base %u (%u left out), candidate %u (%u left "
		       "out); a boot that did not reach init is left out, never counted as a "
		       "regression.</p>\n", c->boots[BG_BASE], c->excluded[BG_BASE],
		       c->boots[BG_CAND], c->excluded[BG_CAND]);
	timeline(w, p, c, &regressed);
	if (c->cmp.na) {
		bg_strbuf_addstr(p, "<h2 id=\"attribution\">What explains boot.init</h2>\n<ul>\n");
		for (size_t i = 0; i < c->cmp.na; i++) {
			bg_strbuf_addstr(p, "<li>");
			bg_html_txt(p, c->cmp.a[i].metric);
			bg_strbuf_addstr(p, ": ");
			site_us(p, c->cmp.a[i].delta, true);
			bg_strbuf_addf(p, " us, %.1f%% of the shift</li>\n", 100 * c->cmp.a[i].share);
		}
		bg_strbuf_addstr(p, "</ul>\n");
	}
	verdict_table(p, &c->cmp, &regressed, false);
	verdict_table(p, &c->cmp, &regressed, true);
	bg_strmap_release(&regressed);
}

/* ---- the boots ---- */

/* The comparison's boots, base first, each with its board. */
static void comparison_boots(struct site *w, struct bg_strbuf *p,
			     const struct bg_stored_comparison *c)
{
	struct bg_strbuf rows = BG_STRBUF_INIT;

	for (int side = 0; side < 2; side++)
		for (size_t i = 0; i < c->nboot; i++) {
			struct bg_stored_boot sb;

			if (c->boot[i].side != (side ? BG_CAND : BG_BASE))
				continue;
			bg_stored_boot_init(&sb);
			bg_strbuf_addf(&rows, "<tr><td>%s</td>", side ? "candidate" : "base");
			if (c->boot[i].boot_id && bg_store_boot_get(w->s, c->boot[i].boot_id, &sb) > 0)
				site_boot_cells(&rows, sb.board, sb.outcome, sb.wall_s, sb.job_url);
			else
				site_boot_cells(&rows, c->board, NULL, NAN, NULL);
			bg_stored_boot_release(&sb);
		}
	site_boots_table(p, "side", &rows);
	bg_strbuf_release(&rows);
}

/* ---- the page ---- */

/* What made the comparison: a gate, a series, or a bisection's step or confirmation. */
static void made_by(struct bg_strbuf *p, const struct bg_stored_comparison *c)
{
	bg_strbuf_addstr(p, "<dt>made by</dt><dd>");
	if (c->bisection_id) {
		bg_strbuf_addf(p, "the %s of bisection ", c->role == BG_ROLE_STEP ? "culprit's step" :
			       c->role == BG_ROLE_TIMING ? "timing confirmation" :
			       c->role == BG_ROLE_REVERT ? "revert check" : "work");
		site_link_id(p, "../", "bisection", c->bisection_id);
	} else {
		bg_html_txt(p, c->role == BG_ROLE_SERIES ? "a patch series" : "the gate");
	}
	bg_strbuf_addstr(p, "</dd>\n");
}

int site_comparison_page(struct site *w, int64_t id)
{
	struct bg_strbuf *p = &w->page, title = BG_STRBUF_INIT;
	struct bg_stored_comparison c;
	struct bg_json j;
	char rel[64], rel_json[64], idtext[32], created[32];
	char *author = NULL, *subject = NULL, *base_subject = NULL;
	int ret;

	bg_stored_comparison_init(&c);
	bg_json_init(&j, -1, 0);
	ret = bg_store_comparison_get(w->s, id, &c);
	if (ret <= 0)
		goto out;
	snprintf(rel, sizeof(rel), "comparison/%" PRId64 ".html", id);
	snprintf(rel_json, sizeof(rel_json), "comparison/%" PRId64 ".json", id);
	snprintf(idtext, sizeof(idtext), "%" PRId64, id);
	snprintf(created, sizeof(created), "%.6f", c.created);
	if (bg_store_commit_subject(w->s, c.base, &base_subject) < 0 ||
	    bg_store_commit_subject(w->s, c.cand, &subject) < 0 ||
	    bg_store_commit_author(w->s, c.cand, &author) < 0) {
		ret = -1;
		goto out;
	}
	/* a comparison is written once: its id and time, and the commits' words, say it all */
	w->in = site_inputs(w, "comparison", idtext, created, base_subject ? base_subject : "",
			    subject ? subject : "", author ? author : "", NULL);
	if (site_keep_result(w, rel, rel_json)) {
		ret = 0;
		goto out;
	}
	bg_stored_comparison_write_json(&j, &c);
	bg_strbuf_addch(&j.out, '\n');
	ret = site_put(w, rel_json, j.out.buf, j.out.len);
	if (ret < 0)
		goto out;
	bg_strbuf_addf(&title, "Comparison %" PRId64 ": %.12s against %.12s", id,
		       c.cand ? c.cand : "-", c.base ? c.base : "-");
	site_page_begin(w, rel, title.buf);
	bg_strbuf_addstr(p, "<dl class=\"facts\">\n<dt>tree</dt><dd>");
	site_tree(p, "../", c.tree);
	bg_strbuf_addstr(p, "</dd>\n");
	site_dl_commit(p, "candidate", c.cand, subject);
	site_dl(p, "author", author);
	site_dl_commit(p, "base", c.base, base_subject);
	site_dl(p, "board", c.board);
	site_dl(p, "mode", c.mode);
	site_dl(p, "console", c.console);
	made_by(p, &c);
	bg_strbuf_addstr(p, "<dt>verdict</dt><dd class=\"verdict\">");
	bg_html_txt(p, site_verdict_word(c.verdict));
	if (c.metric) {
		bg_strbuf_addstr(p, ": ");
		bg_html_txt(p, c.metric);
		bg_strbuf_addstr(p, " ");
		site_us(p, c.delta, true);
		bg_strbuf_addstr(p, " us");
	}
	bg_strbuf_addstr(p, "</dd>\n<dt>when</dt><dd>");
	site_time(p, c.created);
	bg_strbuf_addstr(p, "</dd>\n</dl>\n");
	site_comparison_body(w, p, &c);
	comparison_boots(w, p, &c);
	site_page_end(w, strrchr(rel_json, '/') + 1);
	ret = site_put_page(w, rel);
out:
	w->in = 0;
	free(author);
	free(subject);
	free(base_subject);
	bg_strbuf_release(&title);
	bg_strbuf_release(&j.out);
	bg_stored_comparison_release(&c);
	return ret < 0 ? -1 : 0;
}
