/* The site's series/ID.html and .json: a patch series and its patches, one row each. */
#include <math.h>

#include "publish/results.h"
#include "publish/site-page.h"
#include "report/html.h"
#include "util/path.h"

static void patch_row(struct bg_strbuf *p, const struct bg_stored_patch *x)
{
	bg_strbuf_addstr(p, "<tr");
	if (x->status && bg_path_name_ok(x->status)) {
		bg_strbuf_addstr(p, " class=\"p-");
		bg_html_attr(p, x->status);
		bg_strbuf_addch(p, '"');
	}
	if (x->idx)
		bg_strbuf_addf(p, "><td class=\"num\">%d</td>", x->idx);
	else
		bg_strbuf_addstr(p, "><td>cover</td>");
	site_td(p, "subject", x->subject);
	bg_strbuf_addstr(p, "<td>");
	site_sha(p, x->commit);
	bg_strbuf_addstr(p, "</td>");
	site_td(p, NULL, x->status);
	if (x->verdict)
		site_verdict_cell(p, x->verdict);
	else
		site_td(p, NULL, NULL);
	site_td(p, NULL, x->metric);
	bg_strbuf_addstr(p, "<td class=\"num\">");
	site_us(p, x->delta, true);
	bg_strbuf_addstr(p, "</td>");
	site_td(p, "error", x->error);
	bg_strbuf_addstr(p, "<td>");
	if (x->comparison_id)
		site_link_id(p, "../", "comparison", x->comparison_id);
	else
		bg_strbuf_addstr(p, "-");
	bg_strbuf_addstr(p, "</td></tr>\n");
}

static void facts(struct bg_strbuf *p, const struct bg_stored_series *se)
{
	char n[32];

	bg_strbuf_addstr(p, "<dl class=\"facts\">\n<dt>tree</dt><dd>");
	site_tree(p, "../", se->tree);
	bg_strbuf_addstr(p, "</dd>\n");
	site_dl(p, "author", se->author);
	site_dl(p, "message-id", se->message_id);
	snprintf(n, sizeof(n), "%" PRId64, se->version);
	site_dl(p, "version", n);
	snprintf(n, sizeof(n), "%" PRId64, se->total);
	site_dl(p, "patches", n);
	site_dl(p, "from", se->source);
	site_dl_commit(p, "base", se->base, NULL);
	site_dl(p, "state", se->state);
	if (se->superseded_by) {
		bg_strbuf_addstr(p, "<dt>superseded by</dt><dd>");
		site_link_id(p, "../", "series", se->superseded_by);
		bg_strbuf_addstr(p, "</dd>\n");
	}
	if (se->error)
		site_dl(p, "error", se->error);
	if (se->whole_comparison_id) {
		bg_strbuf_addstr(p, "<dt>the whole series</dt><dd>comparison ");
		site_link_id(p, "../", "comparison", se->whole_comparison_id);
		bg_strbuf_addstr(p, "</dd>\n");
	}
	bg_strbuf_addstr(p, "<dt>received</dt><dd>");
	site_time(p, se->created);
	bg_strbuf_addstr(p, "</dd>\n</dl>\n");
}

int site_series_page(struct site *w, int64_t id)
{
	struct bg_strbuf *p = &w->page, title = BG_STRBUF_INIT;
	struct bg_stored_series se;
	struct bg_stored_patches ps = { NULL, 0, 0 };
	struct bg_json j;
	char rel[64], rel_json[64], idtext[32], finished[32], by[32];
	int ret;

	bg_stored_series_init(&se);
	bg_json_init(&j, -1, 0);
	ret = bg_store_series_get(w->s, id, &se);
	if (ret <= 0)
		goto out;
	snprintf(rel, sizeof(rel), "series/%" PRId64 ".html", id);
	snprintf(rel_json, sizeof(rel_json), "series/%" PRId64 ".json", id);
	snprintf(idtext, sizeof(idtext), "%" PRId64, id);
	snprintf(finished, sizeof(finished), "%.6f", se.finished);
	snprintf(by, sizeof(by), "%" PRId64, se.superseded_by);
	/* an ended series changes no more but for a later version superseding it */
	w->in = isnan(se.finished) ? 0 : site_inputs(w, "series", idtext, se.state, finished, by,
						     NULL);
	if (site_keep_result(w, rel, rel_json)) {
		ret = 0;
		goto out;
	}
	if (bg_store_series_patches(w->s, id, false, &ps) < 0 ||
	    bg_series_result_write(w->s, id, &j) < 0) {
		ret = -1;
		goto out;
	}
	bg_strbuf_addch(&j.out, '\n');
	ret = site_put(w, rel_json, j.out.buf, j.out.len);
	if (ret < 0)
		goto out;
	bg_strbuf_addf(&title, "Series %" PRId64 ": %s", id, se.subject ? se.subject : "");
	site_page_begin(w, rel, title.buf);
	facts(p, &se);
	bg_strbuf_addstr(p, "<h2 id=\"patches\">Patches</h2>\n<p>Each patch measured against the "
			 "tree before it.</p>\n<table class=\"patches\">\n<thead><tr><th>#</th>"
			 "<th>subject</th><th>commit</th><th>status</th><th>verdict</th>"
			 "<th>metric</th><th>delta us</th><th>error</th><th>comparison</th></tr>"
			 "</thead>\n<tbody>\n");
	for (size_t i = 0; i < ps.n; i++)
		patch_row(p, &ps.v[i]);
	bg_strbuf_addstr(p, "</tbody></table>\n");
	site_page_end(w, strrchr(rel_json, '/') + 1);
	ret = site_put_page(w, rel);
out:
	w->in = 0;
	bg_strbuf_release(&title);
	bg_strbuf_release(&j.out);
	bg_stored_patches_release(&ps);
	bg_stored_series_release(&se);
	return ret < 0 ? -1 : 0;
}
