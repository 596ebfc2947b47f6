/*
 * The site's bisection/ID.html and .json: a bisection's facts, its headline figure, its
 * steps, its confirmations and its boots, all from the store's typed rows.
 */
#include <ctype.h>
#include <math.h>

#include "decide/bisect.h"
#include "publish/results.h"
#include "publish/site-page.h"
#include "report/comparison.h"
#include "store/views.h"
#include "report/html.h"
#include "util/xmalloc.h"

static void steps(struct site *w, struct bg_strbuf *p, const struct bg_bisection_steps *st)
{
	bg_strbuf_addstr(p, "<h2 id=\"steps\">Steps</h2>\n<p>Every commit the bisection measured, "
			 "in the order of the range; values in us, one per boot.</p>\n"
			 "<table class=\"steps\">\n<thead><tr><th>position</th><th>commit</th>"
			 "<th>subject</th><th>built</th><th>values us</th><th>verdict</th></tr>"
			 "</thead>\n<tbody>\n");
	for (size_t i = 0; i < st->n; i++) {
		const struct bg_bisection_step *s = &st->v[i];

		bg_strbuf_addf(p, "<tr class=\"s-%s\"><td class=\"num\">%d</td><td>", s->verdict,
			       s->idx);
		site_sha(p, s->commit);
		bg_strbuf_addstr(p, "</td><td class=\"subject\">");
		site_subject_of(w, p, s->commit);
		bg_strbuf_addf(p, "</td><td>%s</td><td class=\"values\">", s->built ? "yes" : "no");
		for (size_t k = 0; k < s->nvalues; k++) {
			bg_strbuf_addstr(p, k ? " " : "");
			site_us(p, s->values[k], false);
		}
		bg_strbuf_addstr(p, "</td>");
		site_td(p, NULL, s->verdict);
		bg_strbuf_addstr(p, "</tr>\n");
	}
	bg_strbuf_addstr(p, "</tbody></table>\n");
}

/* "+N us (+P%), B -> C us", linked to the comparison it comes from */
static void change(struct bg_strbuf *p, const struct bg_verdict *v, int64_t comparison)
{
	site_us(p, v->delta, true);
	bg_strbuf_addstr(p, " us (");
	if (isnan(v->delta_pct))
		bg_strbuf_addstr(p, "-");
	else
		bg_strbuf_addf(p, "%+.1f%%", v->delta_pct);
	bg_strbuf_addstr(p, "), ");
	site_us(p, v->base_median, false);
	bg_strbuf_addstr(p, " &rarr; ");
	site_us(p, v->cand_median, false);
	bg_strbuf_addstr(p, " us, comparison ");
	site_link_id(p, "../", "comparison", comparison);
}

static const struct bg_verdict *in(const struct bg_stored_comparison *c, const char *metric)
{
	return c->id ? bg_comparison_find(&c->cmp, metric) : NULL;
}

/* The figure it leads with: timing mode's, what a boot pays, when it was confirmed there. */
static void headline(struct bg_strbuf *p, const struct bg_stored_bisection *b,
		     const struct bg_stored_comparison c[3])
{
	struct bg_headline h;

	bg_headline_pick(in(&c[0], b->metric), b->mode && !strcmp(b->mode, "deterministic"),
			 in(&c[1], b->metric), &h);
	if (!h.paid)
		return;
	bg_strbuf_addf(p, "<dt>%s</dt><dd class=\"headline\">", h.exact ?
		       "what a boot pays (timing mode)" : "the step");
	change(p, h.paid, h.exact ? c[1].id : c[0].id);
	bg_strbuf_addstr(p, "</dd>\n");
	if (h.exact) {
		bg_strbuf_addstr(p, "<dt>the exact evidence (deterministic mode)</dt><dd>");
		change(p, h.exact, c[0].id);
		if (!isnan(h.ratio))
			bg_strbuf_addf(p, "; %.1f times the timing figure", h.ratio);
		bg_strbuf_addstr(p, "</dd>\n");
	}
}

static void confirmation(struct bg_strbuf *p, const struct bg_stored_bisection *b,
			 const struct bg_stored_comparison c[3])
{
	const struct bg_verdict *timing = in(&c[1], b->metric), *revert = in(&c[2], b->metric);

	if (!timing && b->revert_applies < 0)
		return;
	bg_strbuf_addstr(p, "<h2 id=\"confirmation\">Confirmation</h2>\n<ul>\n");
	if (timing) {
		const struct bg_verdict *init = in(&c[1], "boot.init");

		bg_strbuf_addstr(p, "<li class=\"confirmed\">");
		bg_html_txtf(p, "Against its parent in timing mode (%u boots each): %s, ",
			     c[1].boots[BG_CAND], bg_verdict_name(timing->verdict));
		change(p, timing, c[1].id);
		bg_strbuf_addf(p, "; p = %.2g; boot.init ", timing->p);
		if (init) {
			site_us(p, init->delta, true);
			bg_strbuf_addf(p, " us (%s)", bg_verdict_name(init->verdict));
		} else {
			bg_strbuf_addstr(p, "-");
		}
		bg_strbuf_addstr(p, ".</li>\n");
	}
	if (b->revert_applies == 0 || b->revert_applies == 1) {
		struct bg_strbuf t = BG_STRBUF_INIT;

		/* words and figures only: nothing in them to escape */
		bg_revert_text(&t, b->revert_applies, revert, b->regression_us);
		t.buf[0] = (char)toupper((unsigned char)t.buf[0]);
		bg_strbuf_addf(p, "<li class=\"revert\">%s", t.buf);
		bg_strbuf_release(&t);
		if (c[2].id) {
			bg_strbuf_addstr(p, ", comparison ");
			site_link_id(p, "../", "comparison", c[2].id);
		}
		bg_strbuf_addstr(p, ".</li>\n");
	}
	bg_strbuf_addstr(p, "</ul>\n");
}

static int report_row(const struct bg_store_row *r, void *data)
{
	struct bg_strbuf *p = data;

	bg_strbuf_addf(p, "<tr><td class=\"num\">%" PRId64 "</td><td>", bg_row_int(r, 0));
	site_sha(p, bg_row_text(r, 1));
	bg_strbuf_addstr(p, "</td>");
	site_td(p, NULL, bg_row_text(r, 2));
	bg_strbuf_addstr(p, "<td class=\"num\">");
	site_us(p, bg_row_null(r, 3) ? NAN : bg_row_double(r, 3), false);
	bg_strbuf_addstr(p, "</td></tr>\n");
	return 0;
}

static int boot_row(const struct bg_store_row *r, void *data)
{
	struct bg_strbuf *rows = data;

	bg_strbuf_addstr(rows, "<tr><td>");
	site_sha(rows, bg_row_text(r, 0));
	bg_strbuf_addstr(rows, "</td>");
	site_boot_cells(rows, bg_row_text(r, 1), bg_row_text(r, 2),
			bg_row_null(r, 3) ? NAN : bg_row_double(r, 3),
			bg_row_null(r, 4) ? NULL : bg_row_text(r, 4));
	return 0;
}

/* The boots the engine was told of, in the order it was told. */
static int boots(struct site *w, struct bg_strbuf *p, int64_t id)
{
	struct bg_strbuf rows = BG_STRBUF_INIT;
	int ret = bg_store_bisection_boots(w->s, id, boot_row, &rows);

	if (ret >= 0)
		site_boots_table(p, "commit", &rows);
	bg_strbuf_release(&rows);
	return ret;
}

static void facts(struct bg_strbuf *p, const struct bg_stored_bisection *b,
		  const struct bg_stored_comparison c[3])
{
	char conf[32];

	bg_strbuf_addstr(p, "<dl class=\"facts\">\n<dt>tree</dt><dd>");
	site_tree(p, "../", b->tree);
	bg_strbuf_addstr(p, "</dd>\n");
	site_dl(p, "state", b->state);
	site_dl(p, "outcome", b->outcome);
	site_dl_commit(p, "culprit", b->culprit, b->culprit_subject);
	site_dl(p, "author", b->culprit_author);
	snprintf(conf, sizeof(conf), "%.6g", b->confidence);
	site_dl(p, "posterior", isnan(b->confidence) ? NULL : conf);
	site_dl_commit(p, "good", b->good, NULL);
	site_dl_commit(p, "bad", b->bad, NULL);
	site_dl(p, "board", b->board);
	site_dl(p, "mode", b->mode);
	site_dl(p, "console", b->console);
	if (b->error)
		site_dl(p, "error", b->error);
	bg_strbuf_addstr(p, "<dt>started</dt><dd>");
	site_time(p, b->created);
	bg_strbuf_addstr(p, "</dd>\n");
	if (b->parent_id) {
		bg_strbuf_addstr(p, "<dt>inside the merge of</dt><dd>");
		site_link_id(p, "../", "bisection", b->parent_id);
		bg_strbuf_addstr(p, "</dd>\n");
	}
	headline(p, b, c);
	if (b->builds >= 0)
		bg_strbuf_addf(p, "<dt>work</dt><dd>%" PRId64 " builds, %" PRId64 " boots, %.0f s"
			       "</dd>\n", b->builds, b->boots, b->wall_s);
	if (b->merge_commit && b->inner_id) {
		bg_strbuf_addstr(p, "<dt>the merge's branch</dt><dd>");
		site_link_id(p, "../", "bisection", b->inner_id);
		bg_strbuf_addstr(p, "</dd>\n");
	}
	bg_strbuf_addstr(p, "</dl>\n");
}

int site_bisection_page(struct site *w, int64_t id)
{
	struct bg_strbuf *p = &w->page, title = BG_STRBUF_INIT;
	struct bg_stored_bisection b;
	struct bg_stored_comparison c[3];
	struct bg_bisection_steps st = { NULL, 0, 0 };
	struct bg_json j;
	char rel[64], rel_json[64], idtext[32], finished[32], inner[32];
	bool done;
	int ret;

	bg_stored_bisection_init(&b);
	for (int i = 0; i < 3; i++)
		bg_stored_comparison_init(&c[i]);
	bg_json_init(&j, -1, 0);
	ret = bg_store_bisection_get(w->s, id, &b);
	if (ret <= 0)
		goto out;
	snprintf(rel, sizeof(rel), "bisection/%" PRId64 ".html", id);
	snprintf(rel_json, sizeof(rel_json), "bisection/%" PRId64 ".json", id);
	snprintf(idtext, sizeof(idtext), "%" PRId64, id);
	snprintf(finished, sizeof(finished), "%.6f", b.finished);
	snprintf(inner, sizeof(inner), "%" PRId64, b.inner_id);
	/*
	 * an ended bisection changes no more (but for the one its merge's branch had); one
	 * that runs shows its reports so far and is made every time
	 */
	done = !isnan(b.finished);
	w->in = done ? site_inputs(w, "bisection", idtext, b.state, finished, inner, NULL) : 0;
	if (site_keep_result(w, rel, rel_json)) {
		ret = 0;
		goto out;
	}
	if (bg_bisection_result_write(w->s, id, &j) < 0 ||
	    (done && (bg_store_bisection_steps(w->s, &b, &st) < 0 ||
		      bg_store_bisection_comparisons(w->s, &b, c) < 0))) {
		ret = -1;
		goto out;
	}
	bg_strbuf_addch(&j.out, '\n');
	ret = site_put(w, rel_json, j.out.buf, j.out.len);
	if (ret < 0)
		goto out;
	bg_strbuf_addf(&title, "Bisection %" PRId64 " of %s", id, b.metric ? b.metric : "a metric");
	site_page_begin(w, rel, title.buf);
	facts(p, &b, c);
	if (done) {
		steps(w, p, &st);
		confirmation(p, &b, c);
	} else {
		bg_strbuf_addstr(p, "<h2 id=\"reports\">Reports so far</h2>\n<table class=\"reports\">"
				 "\n<thead><tr><th>#</th><th>commit</th><th>kind</th><th>value us</th>"
				 "</tr></thead>\n<tbody>\n");
		ret = bg_store_bisection_reports(w->s, id, report_row, p);
		if (ret < 0)
			goto out;
		bg_strbuf_addstr(p, "</tbody></table>\n");
	}
	if (boots(w, p, id) < 0) {
		ret = -1;
		goto out;
	}
	site_page_end(w, strrchr(rel_json, '/') + 1);
	ret = site_put_page(w, rel);
out:
	w->in = 0;
	bg_strbuf_release(&title);
	bg_strbuf_release(&j.out);
	bg_bisection_steps_release(&st);
	for (int i = 0; i < 3; i++)
		bg_stored_comparison_release(&c[i]);
	bg_stored_bisection_release(&b);
	return ret < 0 ? -1 : 0;
}
