/* The site's index.html: trees, recent commits, bisections and series (site-page.h). */
#include <math.h>

#include "publish/site-page.h"
#include "store/views.h"

/* How much of the store the index shows. */
#define RECENT_COMMITS 100
#define RECENT_OTHERS 50

/* Column col as text, NULL for NULL. */
static const char *col_text(const struct bg_store_row *r, int col)
{
	return bg_row_null(r, col) ? NULL : bg_row_text(r, col);
}

/* A row of an index table: the object's number linked to its page, then its tree. */
static void index_row_begin(struct bg_strbuf *p, const char *kind, const struct bg_store_row *r)
{
	bg_strbuf_addstr(p, "<tr><td>");
	site_link_id(p, "", kind, bg_row_int(r, 0));
	bg_strbuf_addstr(p, "</td><td>");
	site_tree(p, "", col_text(r, 1));
	bg_strbuf_addstr(p, "</td>");
}

static int index_tree(const struct bg_store_row *r, void *data)
{
	struct bg_strbuf *p = data;

	bg_strbuf_addstr(p, "<tr><td>");
	site_tree(p, "", bg_row_text(r, 0));
	bg_strbuf_addstr(p, "</td>");
	site_td(p, NULL, col_text(r, 1));
	bg_strbuf_addstr(p, "<td>");
	site_sha(p, col_text(r, 2));
	bg_strbuf_addstr(p, "</td><td>");
	site_sha(p, col_text(r, 3));
	bg_strbuf_addf(p, "</td><td class=\"num\">%" PRId64 "</td><td class=\"num\">%" PRId64
		       "</td></tr>\n", bg_row_int(r, 4), bg_row_int(r, 5));
	return 0;
}

static int index_commit(const struct bg_store_row *r, void *data)
{
	struct bg_strbuf *p = data;

	index_row_begin(p, "comparison", r);
	bg_strbuf_addstr(p, "<td>");
	site_time(p, bg_row_null(r, 7) ? NAN : bg_row_double(r, 7));
	bg_strbuf_addstr(p, "</td><td>");
	site_sha(p, bg_row_text(r, 2));
	bg_strbuf_addstr(p, "</td>");
	site_td(p, "subject", col_text(r, 3));
	site_verdict_cell(p, bg_row_text(r, 4));
	site_td(p, NULL, col_text(r, 5));
	bg_strbuf_addstr(p, "<td class=\"num\">");
	site_us(p, bg_row_null(r, 5) ? NAN : bg_row_double(r, 6), true);
	bg_strbuf_addstr(p, "</td></tr>\n");
	return 0;
}

static int index_bisection(const struct bg_store_row *r, void *data)
{
	struct bg_strbuf *p = data;

	index_row_begin(p, "bisection", r);
	site_td(p, NULL, col_text(r, 2));
	site_td(p, NULL, bg_row_text(r, 3));
	bg_strbuf_addstr(p, "<td>");
	site_sha(p, col_text(r, 4));
	bg_strbuf_addstr(p, "</td>");
	site_td(p, "subject", col_text(r, 5));
	if (bg_row_null(r, 6))
		bg_strbuf_addstr(p, "<td class=\"num\">-</td></tr>\n");
	else
		bg_strbuf_addf(p, "<td class=\"num\">%.3f</td></tr>\n", bg_row_double(r, 6));
	return 0;
}

static int index_series(const struct bg_store_row *r, void *data)
{
	struct bg_strbuf *p = data;

	index_row_begin(p, "series", r);
	site_td(p, "subject", bg_row_text(r, 2));
	bg_strbuf_addf(p, "<td class=\"num\">v%" PRId64 "</td><td class=\"num\">%" PRId64 "</td>",
		       bg_row_int(r, 3), bg_row_int(r, 4));
	site_td(p, NULL, bg_row_text(r, 5));
	bg_strbuf_addstr(p, "</tr>\n");
	return 0;
}

int site_index_page(struct site *w)
{
	struct bg_strbuf *p = &w->page;

	site_page_begin(w, "index.html", "Boot-time results");
	bg_strbuf_addstr(p, "<h2 id=\"trees\">Trees</h2>\n<table class=\"trees\">\n<thead><tr>"
			 "<th>tree</th><th>branch</th><th>last good</th><th>last tip</th>"
			 "<th>gated</th><th>regressions</th></tr></thead>\n<tbody>\n");
	if (bg_store_index_trees(w->s, index_tree, p) < 0)
		return -1;
	bg_strbuf_addf(p, "</tbody></table>\n<h2 id=\"commits\">Recent commits</h2>\n"
		       "<p>The last %d commits gated, newest first: each against its tree's last "
		       "good commit.</p>\n<table class=\"commits\">\n<thead><tr><th>#</th>"
		       "<th>tree</th><th>when</th><th>commit</th><th>subject</th><th>verdict</th>"
		       "<th>worst metric</th><th>delta us</th></tr></thead>\n<tbody>\n",
		       RECENT_COMMITS);
	if (bg_store_index_commits(w->s, RECENT_COMMITS, index_commit, p) < 0)
		return -1;
	bg_strbuf_addstr(p, "</tbody></table>\n<h2 id=\"bisections\">Recent bisections</h2>\n"
			 "<table class=\"bisections\">\n<thead><tr><th>#</th><th>tree</th>"
			 "<th>metric</th><th>state</th><th>culprit</th><th>subject</th>"
			 "<th>posterior</th></tr></thead>\n<tbody>\n");
	if (bg_store_index_bisections(w->s, RECENT_OTHERS, index_bisection, p) < 0)
		return -1;
	bg_strbuf_addstr(p, "</tbody></table>\n<h2 id=\"series\">Patch series</h2>\n"
			 "<table class=\"series\">\n<thead><tr><th>#</th><th>tree</th>"
			 "<th>subject</th><th>version</th><th>patches</th><th>state</th></tr>"
			 "</thead>\n<tbody>\n");
	if (bg_store_index_series(w->s, RECENT_OTHERS, index_series, p) < 0)
		return -1;
	bg_strbuf_addstr(p, "</tbody></table>\n");
	site_page_end(w, NULL);
	return site_put_page(w, "index.html");
}

