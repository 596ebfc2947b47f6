/* The site's tree/NAME.html: trends of boot.init and the slowest initcalls (site-page.h). */
#include <math.h>

#include "decide/stats.h"
#include "publish/site-page.h"
#include "store/views.h"
#include "report/html.h"
#include "report/svg.h"
#include "util/path.h"
#include "util/strvec.h"
#include "util/xmalloc.h"

/* Initcalls charted per tree, beside boot.init. */
#define TOP_INITCALLS 5

struct ids {
	int64_t *v;
	size_t n, alloc;
};

static int take_id(const struct bg_store_row *r, void *data)
{
	struct ids *ids = data;

	ALLOC_GROW(ids->v, ids->n + 1, ids->alloc);
	ids->v[ids->n++] = bg_row_int(r, 0);
	return 0;
}

struct trend_commit {
	char *sha, *board, *mode, *subject;
	int64_t comparison;       /* where it was the candidate; 0 for the first base */
};

struct trend_metric {
	char *name;
	double *median;           /* per commit; NAN where it has no boot */
	double *vals;             /* the commit being read */
	size_t nvals, alloc;
	double peak;
};

struct trend {
	const char *board;        /* the commits gated on it; NULL: every board's */
	struct bg_strvec boards;  /* the boards met, each once, in the order met */
	struct trend_commit *c;
	size_t nc, calloc_;
	struct trend_metric *m;
	size_t nm, malloc_;
	struct bg_strmap index;
};

static int take_commit(const struct bg_store_row *r, void *data)
{
	struct trend *t = data;
	struct trend_commit *c;
	bool met = false;

	for (size_t i = 0; i < t->boards.n && !met; i++)
		met = !strcmp(t->boards.v[i], bg_row_text(r, 1));
	if (!met)
		bg_strvec_push(&t->boards, bg_row_text(r, 1));
	/* a trend is of one board: another's boots are another machine's figures */
	if (t->board && strcmp(t->board, bg_row_text(r, 1)))
		return 0;
	if (t->nc == t->calloc_) {
		t->calloc_ = t->calloc_ ? 2 * t->calloc_ : 64;
		t->c = xrealloc(t->c, t->calloc_ * sizeof(*t->c));
	}
	c = &t->c[t->nc++];
	c->sha = xstrdup(bg_row_text(r, 0));
	c->board = xstrdup(bg_row_text(r, 1));
	c->mode = xstrdup(bg_row_text(r, 2));
	c->comparison = bg_row_null(r, 3) ? 0 : bg_row_int(r, 3);
	c->subject = bg_row_null(r, 4) ? NULL : xstrdup(bg_row_text(r, 4));
	return 0;
}

static int take_sample(const struct bg_store_row *r, void *data)
{
	struct trend *t = data;
	const char *name = bg_row_text(r, 0);
	ssize_t i = bg_strmap_get(&t->index, name);
	struct trend_metric *m;

	if (i < 0) {
		if (t->nm == t->malloc_) {
			t->malloc_ = t->malloc_ ? 2 * t->malloc_ : 64;
			/* the keys are the metrics' own strings, which do not move with them */
			t->m = xrealloc(t->m, t->malloc_ * sizeof(*t->m));
		}
		m = &t->m[t->nm];
		memset(m, 0, sizeof(*m));
		m->name = xstrdup(name);
		m->median = xmalloc(t->nc * sizeof(*m->median));
		for (size_t k = 0; k < t->nc; k++)
			m->median[k] = NAN;
		i = (ssize_t)bg_strmap_put(&t->index, m->name, t->nm++);
	}
	m = &t->m[i];
	if (m->nvals == m->alloc) {
		m->alloc = m->alloc ? 2 * m->alloc : 16;
		m->vals = xrealloc(m->vals, m->alloc * sizeof(*m->vals));
	}
	m->vals[m->nvals++] = bg_row_double(r, 1);
	return 0;
}

static void trend_release(struct trend *t)
{
	for (size_t i = 0; i < t->nc; i++) {
		free(t->c[i].sha);
		free(t->c[i].board);
		free(t->c[i].mode);
		free(t->c[i].subject);
	}
	for (size_t i = 0; i < t->nm; i++) {
		free(t->m[i].name);
		free(t->m[i].median);
		free(t->m[i].vals);
	}
	free(t->c);
	free(t->m);
	bg_strmap_release(&t->index);
	bg_strvec_release(&t->boards);
	memset(t, 0, sizeof(*t));
}

/* The medians of boot.init and every initcall, per commit, from the boots of its image. */
static int trend_read(struct site *w, int64_t tree, const char *board, struct trend *t)
{
	t->board = board;
	if (bg_store_trend_commits(w->s, tree, take_commit, t) < 0)
		return -1;
	for (size_t i = 0; i < t->nc; i++) {
		const struct trend_commit *c = &t->c[i];

		if (bg_store_trend_samples(w->s, c->sha, c->board, c->mode, take_sample, t) < 0)
			return -1;
		for (size_t k = 0; k < t->nm; k++) {
			struct trend_metric *m = &t->m[k];

			if (!m->nvals)
				continue;
			m->median[i] = bg_stats_median(m->vals, m->nvals);
			if (m->median[i] > m->peak)
				m->peak = m->median[i];
			m->nvals = 0;
		}
	}
	return 0;
}

static int by_peak(const void *a, const void *b, void *data)
{
	const struct trend *t = data;
	const struct trend_metric *x = &t->m[*(const size_t *)a], *y = &t->m[*(const size_t *)b];

	if (x->peak != y->peak)
		return x->peak > y->peak ? -1 : 1;
	return strcmp(x->name, y->name);
}

static void trend_chart(struct bg_strbuf *p, const struct trend *t, const struct trend_metric *m)
{
	struct bg_svg_point *pts = xcalloc(t->nc ? t->nc : 1, sizeof(*pts));

	for (size_t i = 0; i < t->nc; i++) {
		pts[i].label = t->c[i].sha;
		pts[i].v = m->median[i];
	}
	bg_strbuf_addstr(p, "<figure>");
	bg_svg_trend(p, m->name, pts, t->nc);
	bg_strbuf_addstr(p, "</figure>\n");
	free(pts);
}

/* The charts and commits of trend t, under headings of level h (h2, or h3 in a board's). */
static void trend_section(struct bg_strbuf *p, struct trend *t, int h)
{
	const struct trend_metric *init = NULL;
	size_t *order = xmalloc((t->nm ? t->nm : 1) * sizeof(*order)), nic = 0;

	for (size_t k = 0; k < t->nm; k++) {
		if (!strcmp(t->m[k].name, "boot.init"))
			init = &t->m[k];
		else
			order[nic++] = k;
	}
	qsort_r(order, nic, sizeof(*order), by_peak, t);
	if (!t->nc) {
		bg_strbuf_addstr(p, "<p>No commit of this tree has been gated yet.</p>\n");
	} else {
		bg_strbuf_addf(p, "<p>%zu commits, in the order they were gated; each point is the "
			       "median of the commit's boots. The initcalls shown are the %zu "
			       "slowest.</p>\n<h%d>boot.init</h%d>\n", t->nc,
			       nic < TOP_INITCALLS ? nic : (size_t)TOP_INITCALLS, h, h);
		if (init)
			trend_chart(p, t, init);
		else
			bg_strbuf_addstr(p, "<p>No boot reached init.</p>\n");
		bg_strbuf_addf(p, "<h%d>Slowest initcalls</h%d>\n", h, h);
		for (size_t k = 0; k < nic && k < TOP_INITCALLS; k++)
			trend_chart(p, t, &t->m[order[k]]);
	}
	bg_strbuf_addf(p, "<h%d>Commits</h%d>\n<table class=\"trend-commits\">\n<thead><tr>"
		       "<th>#</th><th>commit</th><th>board</th><th>subject</th><th>boot.init us</th>"
		       "<th>comparison</th></tr></thead>\n<tbody>\n", h, h);
	for (size_t i = 0; i < t->nc; i++) {
		bg_strbuf_addf(p, "<tr><td class=\"num\">%zu</td><td>", i + 1);
		site_sha(p, t->c[i].sha);
		bg_strbuf_addstr(p, "</td>");
		site_td(p, "board", t->c[i].board);
		site_td(p, "subject", t->c[i].subject);
		bg_strbuf_addstr(p, "<td class=\"num\">");
		site_us(p, init ? init->median[i] : NAN, false);
		bg_strbuf_addstr(p, "</td><td>");
		if (t->c[i].comparison)
			site_link_id(p, "../", "comparison", t->c[i].comparison);
		else
			bg_strbuf_addstr(p, "base");
		bg_strbuf_addstr(p, "</td></tr>\n");
	}
	bg_strbuf_addstr(p, "</tbody></table>\n");
	free(order);
}

/* A tree's page: its trend, or a section per board when it was gated on several. */
static int tree_page(struct site *w, int64_t id, const char *name)
{
	struct bg_strbuf *p = &w->page, rel = BG_STRBUF_INIT, title = BG_STRBUF_INIT;
	struct bg_strvec boards = BG_STRVEC_INIT;
	struct trend t;
	int ret = -1;

	memset(&t, 0, sizeof(t));
	if (trend_read(w, id, NULL, &t) < 0)
		goto out;
	bg_strbuf_addf(&rel, "tree/%s.html", name);
	bg_strbuf_addf(&title, "Tree %s", name);
	site_page_begin(w, rel.buf, title.buf);
	if (t.boards.n <= 1) {
		trend_section(p, &t, 2);
	} else {
		/* the boards of the whole read; each section reads its own */
		boards = t.boards;
		bg_strvec_init(&t.boards);
		for (size_t b = 0; b < boards.n; b++) {
			trend_release(&t);
			if (trend_read(w, id, boards.v[b], &t) < 0)
				goto out;
			bg_strbuf_addstr(p, "<h2>board ");
			bg_html_txt(p, boards.v[b]);
			bg_strbuf_addstr(p, "</h2>\n");
			trend_section(p, &t, 3);
		}
	}
	site_page_end(w, NULL);
	ret = site_put_page(w, rel.buf);
out:
	trend_release(&t);
	bg_strvec_release(&boards);
	bg_strbuf_release(&rel);
	bg_strbuf_release(&title);
	return ret;
}

struct tree_list {
	struct ids ids;
	char **names;
};

static int take_tree(const struct bg_store_row *r, void *data)
{
	struct tree_list *l = data;

	take_id(r, &l->ids);
	l->names = xrealloc(l->names, l->ids.alloc * sizeof(*l->names));
	l->names[l->ids.n - 1] = xstrdup(bg_row_text(r, 1));
	return 0;
}

int site_tree_pages(struct site *w)
{
	struct tree_list l = { { NULL, 0, 0 }, NULL };
	int ret = 0;

	if (bg_store_tree_rows(w->s, take_tree, &l) < 0)
		return -1;
	for (size_t i = 0; i < l.ids.n; i++) {
		/* a name that cannot be a file name has no page (the index shows it unlinked) */
		if (!ret && bg_path_name_ok(l.names[i]))
			ret = tree_page(w, l.ids.v[i], l.names[i]);
		free(l.names[i]);
	}
	free(l.names);
	free(l.ids.v);
	return ret;
}

