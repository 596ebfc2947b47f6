/* The static results site (site.h). */
#include <math.h>
#include <sys/stat.h>
#include <time.h>

#include "decide/bisect.h"
#include "decide/stats.h"
#include "util/json-read.h"
#include "publish/site.h"
#include "report/html.h"
#include "report/svg.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/hash.h"
#include "util/json.h"
#include "util/path.h"
#include "util/strbuf.h"
#include "util/strmap.h"
#include "util/xmalloc.h"

/* How much of the store the index shows. */
#define RECENT_COMMITS 100
#define RECENT_OTHERS 50
/* Initcalls charted per tree, beside boot.init. */
#define TOP_INITCALLS 5

/*
 * What each file was made from and what it holds, kept in OUTDIR/.bootgate-site: a result's
 * page whose inputs (its row, this program, the options) and whose file on disk are as they
 * were is not made again. Regenerating after each result then costs about what reading the
 * store does; a file changed by hand no longer matches and is made again.
 */
#define MANIFEST ".bootgate-site"

struct manifest_entry {
	char *rel;
	uint64_t in, out;
};

struct manifest {
	struct manifest_entry *e;
	size_t n, alloc;
	struct bg_strmap index;
};

struct site {
	struct bg_store *s;
	const struct bg_site_opts *o;
	struct bg_site_stats *st;
	struct bg_strbuf page;
	uint64_t program;         /* this program and its options; 0: nothing is skipped */
	uint64_t in;              /* the inputs of the page being made; 0: none known */
	struct manifest old, now;
};

static void manifest_add(struct manifest *m, const char *rel, uint64_t in, uint64_t out)
{
	struct manifest_entry *e;

	if (m->n == m->alloc) {
		m->alloc = m->alloc ? 2 * m->alloc : 256;
		/* the keys are the entries' own strings, which do not move with them */
		m->e = xrealloc(m->e, m->alloc * sizeof(*m->e));
	}
	e = &m->e[m->n];
	e->rel = xstrdup(rel);
	e->in = in;
	e->out = out;
	if (bg_strmap_put(&m->index, e->rel, m->n) == m->n)
		m->n++;
	else
		free(e->rel);   /* the first one stays */
}

static void manifest_release(struct manifest *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->e[i].rel);
	free(m->e);
	bg_strmap_release(&m->index);
}

/* Lines "IN OUT REL" in hex; a line that is not one is passed over (the file is ours). */
static void manifest_load(struct site *w)
{
	char *path = bg_path_join(w->o->outdir, MANIFEST);
	char *text = bg_read_file(path, (size_t)1 << 28, NULL), *line, *next;

	for (line = text; line && *line; line = next) {
		char *end, *rel, *slash;
		uint64_t in, out;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		else
			next = line + strlen(line);
		errno = 0;
		in = strtoull(line, &end, 16);
		if (errno || end != line + 16 || *end != ' ')
			continue;
		out = strtoull(end + 1, &rel, 16);
		if (errno || rel != end + 17 || *rel++ != ' ' || !in)
			continue;
		slash = strrchr(rel, '/');
		if (bg_path_name_ok(slash ? slash + 1 : rel))
			manifest_add(&w->old, rel, in, out);
	}
	free(text);
	free(path);
}

static int manifest_save(struct site *w)
{
	struct bg_strbuf sb = BG_STRBUF_INIT;
	char *path = bg_path_join(w->o->outdir, MANIFEST);
	int ret;

	for (size_t i = 0; i < w->now.n; i++)
		if (w->now.e[i].in)
			bg_strbuf_addf(&sb, "%016" PRIx64 " %016" PRIx64 " %s\n", w->now.e[i].in,
				       w->now.e[i].out, w->now.e[i].rel);
	ret = bg_write_file(path, sb.buf, sb.len);
	bg_strbuf_release(&sb);
	free(path);
	return ret;
}

/* This program (its own bytes), its style sheet and the options: what every page is made by. */
static uint64_t program_id(const struct bg_site_opts *o)
{
	size_t len;
	char *self = bg_read_file("/proc/self/exe", (size_t)1 << 30, &len);
	uint64_t h;

	if (!self)
		return 0;
	h = bg_hash64(self, len);
	free(self);
	h = bg_hash64_seed(bg_site_css, strlen(bg_site_css), h);
	if (o->url)
		h = bg_hash64_seed(o->url, strlen(o->url) + 1, h);
	return h ? h : 1;
}

/* ---- files ---- */

/* Writes outdir/rel unless it already holds exactly data. */
static int put(struct site *w, const char *rel, const char *data, size_t len)
{
	char *path = bg_path_join(w->o->outdir, rel), *old;
	size_t oldlen = 0;
	bool same;
	int ret = 0;

	old = bg_read_file(path, len + 1, &oldlen);
	same = old && oldlen == len && !memcmp(old, data, len);
	free(old);
	if (!same)
		ret = bg_write_file(path, data, len);
	if (!ret) {
		manifest_add(&w->now, rel, w->in, bg_hash64(data, len));
		if (same)
			w->st->unchanged++;
		else
			w->st->written++;
		if (w->o->on_file)
			w->o->on_file(rel, !same, w->o->data);
	}
	free(path);
	return ret;
}

static int put_page(struct site *w, const char *rel)
{
	return put(w, rel, w->page.buf, w->page.len);
}

/* ---- rows ---- */

#define MAX_COLS 20

/* One row's columns as owned strings (NULL for NULL), for pages made after the query. */
struct row {
	char *v[MAX_COLS];
	bool number[MAX_COLS];
	bool found;
};

static int take_row(const struct bg_store_row *r, void *data)
{
	struct row *row = data;

	for (int i = 0; i < bg_row_columns(r) && i < MAX_COLS; i++) {
		row->v[i] = bg_row_null(r, i) ? NULL : xstrdup(bg_row_text(r, i));
		row->number[i] = bg_row_number(r, i);
	}
	row->found = true;
	return 1;
}

static void row_release(struct row *row)
{
	for (int i = 0; i < MAX_COLS; i++)
		free(row->v[i]);
	memset(row, 0, sizeof(*row));
}

struct ids {
	int64_t *v;
	size_t n, alloc;
};

static int take_id(const struct bg_store_row *r, void *data)
{
	struct ids *ids = data;

	if (ids->n == ids->alloc) {
		ids->alloc = ids->alloc ? 2 * ids->alloc : 64;
		ids->v = xrealloc(ids->v, ids->alloc * sizeof(*ids->v));
	}
	ids->v[ids->n++] = bg_row_int(r, 0);
	return 0;
}

/* ---- pieces of pages ---- */

static void page_begin(struct site *w, const char *rel, const char *title)
{
	const char *up = strchr(rel, '/') ? "../" : "";
	struct bg_strbuf *p = &w->page;

	bg_strbuf_reset(p);
	bg_strbuf_addstr(p, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
			 "<meta name=\"viewport\" content=\"width=device-width\">\n<title>");
	bg_html_txt(p, title);
	bg_strbuf_addf(p, " - bootgate</title>\n<link rel=\"stylesheet\" href=\"%sstyle.css\">\n",
		       up);
	if (w->o->url) {
		bg_strbuf_addstr(p, "<link rel=\"canonical\" href=\"");
		bg_html_attr(p, w->o->url);
		bg_strbuf_addstr(p, w->o->url[strlen(w->o->url) - 1] == '/' ? "" : "/");
		bg_html_attr(p, rel);
		bg_strbuf_addstr(p, "\">\n");
	}
	bg_strbuf_addf(p, "</head>\n<body>\n<header><a href=\"%sindex.html\">bootgate</a> "
		       "&middot; boot-time results</header>\n<main>\n<h1>", up);
	bg_html_txt(p, title);
	bg_strbuf_addstr(p, "</h1>\n");
}

static void page_end(struct site *w, const char *json)
{
	bg_strbuf_addstr(&w->page, "</main>\n<footer>");
	if (json) {
		bg_strbuf_addstr(&w->page, "This result as data: ");
		bg_html_link(&w->page, json, json);
		bg_strbuf_addstr(&w->page, ". ");
	}
	bg_strbuf_addstr(&w->page, "Made by bootgate from its store.</footer>\n</body>\n</html>\n");
}

static void add_time(struct bg_strbuf *p, const char *unix_s)
{
	char buf[64];
	struct tm tm;
	time_t t;

	if (!unix_s) {
		bg_strbuf_addstr(p, "-");
		return;
	}
	t = (time_t)strtod(unix_s, NULL);
	if (!gmtime_r(&t, &tm) || !strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M UTC", &tm)) {
		bg_strbuf_addstr(p, "-");
		return;
	}
	bg_strbuf_addstr(p, buf);
}

/* A number of µs as a whole number, or "-" for none. */
static void add_us(struct bg_strbuf *p, double v, bool sign)
{
	if (isnan(v))
		bg_strbuf_addstr(p, "-");
	else
		bg_strbuf_addf(p, sign ? "%+.0f" : "%.0f", v);
}

/* A commit: its first 12 characters, the whole in a title. */
static void add_sha(struct bg_strbuf *p, const char *sha)
{
	if (!sha) {
		bg_strbuf_addstr(p, "-");
		return;
	}
	bg_strbuf_addstr(p, "<code title=\"");
	bg_html_attr(p, sha);
	bg_strbuf_addstr(p, "\">");
	bg_html_txt_prefix(p, sha, 12);
	bg_strbuf_addstr(p, "</code>");
}

/* The gate's words for a comparison: pass is "same" to a reader. */
static const char *verdict_word(const char *v)
{
	return !v ? "-" : !strcmp(v, "pass") ? "same" : v;
}

/* <td class="v-WORD">WORD</td>, the word escaped (a class is a plain name or none). */
static void add_verdict_cell(struct bg_strbuf *p, const char *v)
{
	const char *word = verdict_word(v);

	if (bg_path_name_ok(word)) {
		bg_strbuf_addstr(p, "<td class=\"v-");
		bg_html_attr(p, word);
		bg_strbuf_addstr(p, "\">");
	} else {
		bg_strbuf_addstr(p, "<td>");
	}
	bg_html_txt(p, word);
	bg_strbuf_addstr(p, "</td>");
}

static void dl_item(struct bg_strbuf *p, const char *term, const char *text)
{
	bg_strbuf_addstr(p, "<dt>");
	bg_html_txt(p, term);
	bg_strbuf_addstr(p, "</dt><dd>");
	bg_html_txt(p, text ? text : "-");
	bg_strbuf_addstr(p, "</dd>\n");
}

/* <dt>TERM</dt><dd>sha12 subject</dd> */
static void dl_commit(struct bg_strbuf *p, const char *term, const char *sha, const char *subject)
{
	bg_strbuf_addstr(p, "<dt>");
	bg_html_txt(p, term);
	bg_strbuf_addstr(p, "</dt><dd>");
	add_sha(p, sha);
	if (subject) {
		bg_strbuf_addstr(p, " <span class=\"subject\">");
		bg_html_txt(p, subject);
		bg_strbuf_addstr(p, "</span>");
	}
	bg_strbuf_addstr(p, "</dd>\n");
}

/* A path of the JSON document, built with printf. */
static const char *jpath(struct bg_strbuf *b, const char *fmt, ...) BG_PRINTF(2, 3);
static const char *jpath(struct bg_strbuf *b, const char *fmt, ...)
{
	va_list ap;

	bg_strbuf_reset(b);
	va_start(ap, fmt);
	bg_strbuf_vaddf(b, fmt, ap);
	va_end(ap);
	return b->buf;
}

/*
 * The stored result as the page's JSON when it is JSON; else fallback (what the row
 * says), so that the file beside the page is always valid JSON. *out: the parsed stored
 * result, or NULL; *why: why there is none (owned by the caller).
 */
static int put_json(struct site *w, const char *rel, const char *stored, const char *fallback,
		    struct bg_json_doc **out, char **why)
{
	struct bg_json_doc *d = stored ? bg_json_doc_parse(rel, stored) : NULL;
	struct bg_strbuf text = BG_STRBUF_INIT;
	int ret;

	*why = xstrdup(d ? "" : stored ? bg_error_last() : "no result was kept");
	bg_strbuf_addstr(&text, d ? stored : fallback);
	bg_strbuf_addch(&text, '\n');
	ret = put(w, rel, text.buf, text.len);
	bg_strbuf_release(&text);
	if (ret < 0) {
		bg_json_doc_free(d);
		d = NULL;
	}
	*out = d;
	return ret;
}

/* A tree's name, linked to its page when the name can be a file name. */
static void add_tree(struct bg_strbuf *p, const char *up, const char *name)
{
	if (name && bg_path_name_ok(name)) {
		bg_strbuf_addf(p, "<a href=\"%stree/", up);
		bg_html_attr(p, name);
		bg_strbuf_addstr(p, ".html\">");
		bg_html_txt(p, name);
		bg_strbuf_addstr(p, "</a>");
	} else {
		bg_html_txt(p, name ? name : "-");
	}
}

static void add_link_id(struct bg_strbuf *p, const char *up, const char *kind, int64_t id)
{
	bg_strbuf_addf(p, "<a href=\"%s%s/%" PRId64 ".html\">%" PRId64 "</a>", up, kind, id, id);
}

static void add_td_text(struct bg_strbuf *p, const char *cls, const char *text)
{
	if (cls)
		bg_strbuf_addf(p, "<td class=\"%s\">", cls);
	else
		bg_strbuf_addstr(p, "<td>");
	bg_html_txt(p, text ? text : "-");
	bg_strbuf_addstr(p, "</td>");
}

static void add_no_result(struct bg_strbuf *p, const char *why)
{
	bg_strbuf_addstr(p, "<p class=\"error\">No result to show: ");
	bg_html_txt(p, why);
	bg_strbuf_addstr(p, ".</p>\n");
}

/* ---- index.html ---- */

/* Column col as text, NULL for NULL. */
static const char *col_text(const struct bg_store_row *r, int col)
{
	return bg_row_null(r, col) ? NULL : bg_row_text(r, col);
}

/* A row of an index table: the object's number linked to its page, then its tree. */
static void index_row_begin(struct bg_strbuf *p, const char *kind, const struct bg_store_row *r)
{
	bg_strbuf_addstr(p, "<tr><td>");
	add_link_id(p, "", kind, bg_row_int(r, 0));
	bg_strbuf_addstr(p, "</td><td>");
	add_tree(p, "", col_text(r, 1));
	bg_strbuf_addstr(p, "</td>");
}

static int index_tree(const struct bg_store_row *r, void *data)
{
	struct bg_strbuf *p = data;

	bg_strbuf_addstr(p, "<tr><td>");
	add_tree(p, "", bg_row_text(r, 0));
	bg_strbuf_addstr(p, "</td>");
	add_td_text(p, NULL, col_text(r, 1));
	bg_strbuf_addstr(p, "<td>");
	add_sha(p, col_text(r, 2));
	bg_strbuf_addstr(p, "</td><td>");
	add_sha(p, col_text(r, 3));
	bg_strbuf_addf(p, "</td><td class=\"num\">%" PRId64 "</td><td class=\"num\">%" PRId64
		       "</td></tr>\n", bg_row_int(r, 4), bg_row_int(r, 5));
	return 0;
}

static int index_commit(const struct bg_store_row *r, void *data)
{
	struct bg_strbuf *p = data;

	index_row_begin(p, "comparison", r);
	bg_strbuf_addstr(p, "<td>");
	add_time(p, col_text(r, 7));
	bg_strbuf_addstr(p, "</td><td>");
	add_sha(p, bg_row_text(r, 2));
	bg_strbuf_addstr(p, "</td>");
	add_td_text(p, "subject", col_text(r, 3));
	add_verdict_cell(p, bg_row_text(r, 4));
	add_td_text(p, NULL, col_text(r, 5));
	bg_strbuf_addstr(p, "<td class=\"num\">");
	add_us(p, bg_row_null(r, 5) ? NAN : bg_row_double(r, 6), true);
	bg_strbuf_addstr(p, "</td></tr>\n");
	return 0;
}

static int index_bisection(const struct bg_store_row *r, void *data)
{
	struct bg_strbuf *p = data;

	index_row_begin(p, "bisection", r);
	add_td_text(p, NULL, col_text(r, 2));
	add_td_text(p, NULL, bg_row_text(r, 3));
	bg_strbuf_addstr(p, "<td>");
	add_sha(p, col_text(r, 4));
	bg_strbuf_addstr(p, "</td>");
	add_td_text(p, "subject", col_text(r, 5));
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
	add_td_text(p, "subject", bg_row_text(r, 2));
	bg_strbuf_addf(p, "<td class=\"num\">v%" PRId64 "</td><td class=\"num\">%" PRId64 "</td>",
		       bg_row_int(r, 3), bg_row_int(r, 4));
	add_td_text(p, NULL, bg_row_text(r, 5));
	bg_strbuf_addstr(p, "</tr>\n");
	return 0;
}

static int index_page(struct site *w)
{
	struct bg_strbuf *p = &w->page;

	page_begin(w, "index.html", "Boot-time results");
	bg_strbuf_addstr(p, "<h2 id=\"trees\">Trees</h2>\n<table class=\"trees\">\n<thead><tr>"
			 "<th>tree</th><th>branch</th><th>last good</th><th>last tip</th>"
			 "<th>gated</th><th>regressions</th></tr></thead>\n<tbody>\n");
	if (bg_store_query(w->s, index_tree, p, "SELECT t.name, t.branch, t.last_good, "
			   "t.last_tip, (SELECT count(*) FROM comparisons c WHERE c.tree_id = t.id), "
			   "(SELECT count(*) FROM comparisons c WHERE c.tree_id = t.id AND "
			   "c.verdict = 'regression') FROM trees t ORDER BY t.name", "") < 0)
		return -1;
	bg_strbuf_addf(p, "</tbody></table>\n<h2 id=\"commits\">Recent commits</h2>\n"
		       "<p>The last %d commits gated, newest first: each against its tree's last "
		       "good commit.</p>\n<table class=\"commits\">\n<thead><tr><th>#</th>"
		       "<th>tree</th><th>when</th><th>commit</th><th>subject</th><th>verdict</th>"
		       "<th>worst metric</th><th>delta us</th></tr></thead>\n<tbody>\n",
		       RECENT_COMMITS);
	if (bg_store_query(w->s, index_commit, p, "SELECT c.id, t.name, c.cand, cm.subject, "
			   "c.verdict, c.metric, c.delta, c.created FROM comparisons c LEFT JOIN "
			   "trees t ON t.id = c.tree_id LEFT JOIN commits cm ON cm.sha = c.cand "
			   "ORDER BY c.created DESC, c.id DESC LIMIT ?", "i",
			   (int64_t)RECENT_COMMITS) < 0)
		return -1;
	bg_strbuf_addstr(p, "</tbody></table>\n<h2 id=\"bisections\">Recent bisections</h2>\n"
			 "<table class=\"bisections\">\n<thead><tr><th>#</th><th>tree</th>"
			 "<th>metric</th><th>state</th><th>culprit</th><th>subject</th>"
			 "<th>posterior</th></tr></thead>\n<tbody>\n");
	/* a culprit its revert contradicted reads "unconfirmed" where others read their state */
	if (bg_store_query(w->s, index_bisection, p, "SELECT b.id, t.name, b.metric, CASE WHEN "
			   "b.outcome = '" BG_BISECT_UNCONFIRMED "' THEN b.outcome ELSE b.state END, "
			   "b.culprit, cm.subject, b.confidence FROM bisections b LEFT JOIN trees t "
			   "ON t.id = b.tree_id LEFT JOIN commits cm ON cm.sha = b.culprit "
			   "ORDER BY b.id DESC LIMIT ?", "i", (int64_t)RECENT_OTHERS) < 0)
		return -1;
	bg_strbuf_addstr(p, "</tbody></table>\n<h2 id=\"series\">Patch series</h2>\n"
			 "<table class=\"series\">\n<thead><tr><th>#</th><th>tree</th>"
			 "<th>subject</th><th>version</th><th>patches</th><th>state</th></tr>"
			 "</thead>\n<tbody>\n");
	if (bg_store_query(w->s, index_series, p, "SELECT s.id, t.name, s.subject, s.version, "
			   "s.total, s.state FROM series s LEFT JOIN trees t ON t.id = s.tree_id "
			   "ORDER BY s.id DESC LIMIT ?", "i", (int64_t)RECENT_OTHERS) < 0)
		return -1;
	bg_strbuf_addstr(p, "</tbody></table>\n");
	page_end(w, NULL);
	return put_page(w, "index.html");
}

/* ---- tree/NAME.html ---- */

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
}

/* The medians of boot.init and every initcall, per commit, from the boots of its image. */
static int trend_read(struct site *w, int64_t tree, struct trend *t)
{
	if (bg_store_query(w->s, take_commit, t, "SELECT x.sha, x.board, x.mode, max(x.cid), "
			   "cm.subject FROM (SELECT base sha, board, mode, created - 1e-6 t, NULL cid "
			   "FROM comparisons WHERE tree_id = ? UNION ALL SELECT cand, board, mode, "
			   "created, id FROM comparisons WHERE tree_id = ?) x LEFT JOIN commits cm "
			   "ON cm.sha = x.sha GROUP BY x.sha ORDER BY min(x.t), x.sha", "ii", tree,
			   tree) < 0)
		return -1;
	for (size_t i = 0; i < t->nc; i++) {
		const struct trend_commit *c = &t->c[i];

		if (bg_store_query(w->s, take_sample, t, "SELECT s.metric, s.value FROM boots o "
				   "JOIN samples s ON s.boot_id = o.id WHERE o.image_sha256 IN "
				   "(SELECT image_sha256 FROM builds WHERE commit_sha = ? AND board = ? "
				   "AND status = 'built') AND o.board = ? AND o.mode = ? AND "
				   "o.outcome = 'complete' AND (s.metric = 'boot.init' OR "
				   "s.metric GLOB 'initcall.*')", "ssss", c->sha, c->board, c->board,
				   c->mode) < 0)
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

static int tree_page(struct site *w, int64_t id, const char *name)
{
	struct bg_strbuf *p = &w->page, rel = BG_STRBUF_INIT, title = BG_STRBUF_INIT;
	struct trend t;
	const struct trend_metric *init = NULL;
	size_t *order = NULL, nic = 0;
	int ret = -1;

	memset(&t, 0, sizeof(t));
	if (trend_read(w, id, &t) < 0)
		goto out;
	bg_strbuf_addf(&rel, "tree/%s.html", name);
	bg_strbuf_addf(&title, "Tree %s", name);
	page_begin(w, rel.buf, title.buf);
	order = xmalloc((t.nm ? t.nm : 1) * sizeof(*order));
	for (size_t k = 0; k < t.nm; k++) {
		if (!strcmp(t.m[k].name, "boot.init"))
			init = &t.m[k];
		else
			order[nic++] = k;
	}
	qsort_r(order, nic, sizeof(*order), by_peak, &t);
	if (!t.nc) {
		bg_strbuf_addstr(p, "<p>No commit of this tree has been gated yet.</p>\n");
	} else {
		bg_strbuf_addf(p, "<p>%zu commits, in the order they were gated; each point is the "
			       "median of the commit's boots. The initcalls shown are the %zu "
			       "slowest.</p>\n<h2>boot.init</h2>\n", t.nc,
			       nic < TOP_INITCALLS ? nic : (size_t)TOP_INITCALLS);
		if (init)
			trend_chart(p, &t, init);
		else
			bg_strbuf_addstr(p, "<p>No boot reached init.</p>\n");
		bg_strbuf_addstr(p, "<h2>Slowest initcalls</h2>\n");
		for (size_t k = 0; k < nic && k < TOP_INITCALLS; k++)
			trend_chart(p, &t, &t.m[order[k]]);
	}
	bg_strbuf_addstr(p, "<h2>Commits</h2>\n<table class=\"trend-commits\">\n<thead><tr>"
			 "<th>#</th><th>commit</th><th>subject</th><th>boot.init us</th>"
			 "<th>comparison</th></tr></thead>\n<tbody>\n");
	for (size_t i = 0; i < t.nc; i++) {
		bg_strbuf_addf(p, "<tr><td class=\"num\">%zu</td><td>", i + 1);
		add_sha(p, t.c[i].sha);
		bg_strbuf_addstr(p, "</td>");
		add_td_text(p, "subject", t.c[i].subject);
		bg_strbuf_addstr(p, "<td class=\"num\">");
		add_us(p, init ? init->median[i] : NAN, false);
		bg_strbuf_addstr(p, "</td><td>");
		if (t.c[i].comparison)
			add_link_id(p, "../", "comparison", t.c[i].comparison);
		else
			bg_strbuf_addstr(p, "base");
		bg_strbuf_addstr(p, "</td></tr>\n");
	}
	bg_strbuf_addstr(p, "</tbody></table>\n");
	page_end(w, NULL);
	ret = put_page(w, rel.buf);
out:
	free(order);
	trend_release(&t);
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

static int tree_pages(struct site *w)
{
	struct tree_list l = { { NULL, 0, 0 }, NULL };
	int ret = 0;

	if (bg_store_query(w->s, take_tree, &l, "SELECT id, name FROM trees ORDER BY id", "") < 0)
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

/* ---- comparison/ID.html ---- */

struct cmp_doc {
	const struct bg_json_doc *d;
	struct bg_strbuf path;
	struct bg_strmap regressed;   /* metric names borrowed from d */
};

static double num_at(struct cmp_doc *c, const char *fmt, size_t i, const char *field)
{
	bg_strbuf_reset(&c->path);
	bg_strbuf_addf(&c->path, fmt, i);
	bg_strbuf_addstr(&c->path, field);
	return bg_json_doc_num(c->d, c->path.buf);
}

static const char *str_at(struct cmp_doc *c, const char *fmt, size_t i, const char *field)
{
	bg_strbuf_reset(&c->path);
	bg_strbuf_addf(&c->path, fmt, i);
	bg_strbuf_addstr(&c->path, field);
	return bg_json_doc_str(c->d, c->path.buf);
}

#define VERDICT "comparison.verdicts.%zu."

/* The boot of one side with the median time to init (the first parsed one if none has). */
static ssize_t pick_boot(struct cmp_doc *c, const char *side)
{
	size_t n = bg_json_doc_len(c->d, "boots"), *idx = xmalloc((n ? n : 1) * sizeof(*idx));
	size_t k = 0;
	ssize_t any = -1, ret;

	for (size_t i = 0; i < n; i++) {
		const char *s = str_at(c, "boots.%zu.", i, "side");

		if (!s || strcmp(s, side) != 0 || !bg_json_doc_is_object(c->d,
				jpath(&c->path, "boots.%zu.parsed", i)))
			continue;
		if (any < 0)
			any = (ssize_t)i;
		if (!isnan(num_at(c, "boots.%zu.", i, "parsed.milestones.init_us")))
			idx[k++] = i;
	}
	/* insertion sort by init: a side has a few boots */
	for (size_t i = 1; i < k; i++)
		for (size_t j = i; j > 0 && num_at(c, "boots.%zu.", idx[j - 1],
				"parsed.milestones.init_us") > num_at(c, "boots.%zu.", idx[j],
				"parsed.milestones.init_us"); j--) {
			size_t tmp = idx[j];

			idx[j] = idx[j - 1];
			idx[j - 1] = tmp;
		}
	ret = k ? (ssize_t)idx[(k - 1) / 2] : any;
	free(idx);
	return ret;
}

/* The lane of one boot: its initcalls with both times, the regressed ones marked. */
static void boot_lane(struct cmp_doc *c, size_t boot, struct bg_svg_lane *lane)
{
	struct bg_strbuf fmt = BG_STRBUF_INIT, metric = BG_STRBUF_INIT;
	struct bg_strmap seen = BG_STRMAP_INIT;
	unsigned *count;
	size_t n, nseen = 0;
	double init;

	bg_strbuf_addf(&fmt, "boots.%zu.parsed.initcalls.%%zu.", boot);
	n = bg_json_doc_len(c->d, jpath(&c->path, "boots.%zu.parsed.initcalls", boot));
	lane->bars = xcalloc(n ? n : 1, sizeof(*lane->bars));
	count = xcalloc(n ? n : 1, sizeof(*count));
	lane->n = 0;
	for (size_t i = 0; i < n; i++) {
		const char *name = str_at(c, fmt.buf, i, "name");
		double start = num_at(c, fmt.buf, i, "start_us"), end = num_at(c, fmt.buf, i, "end_us");
		struct bg_svg_bar *b;
		size_t k;

		if (!name)
			continue;
		/* the metric's name: a second call of one function is "#2" (parse/metrics.c) */
		k = bg_strmap_put(&seen, name, nseen);
		if (k == nseen)
			nseen++;
		count[k]++;
		if (!(start >= 0) || !(end >= start) || end > 1e15)
			continue;
		bg_strbuf_reset(&metric);
		bg_strbuf_addf(&metric, "initcall.%s", name);
		if (count[k] > 1)
			bg_strbuf_addf(&metric, "#%u", count[k]);
		b = &lane->bars[lane->n++];
		b->name = name;
		b->start_us = (int64_t)start;
		b->end_us = (int64_t)end;
		b->regressed = bg_strmap_get(&c->regressed, metric.buf) >= 0;
	}
	init = num_at(c, "boots.%zu.", boot, "parsed.milestones.init_us");
	lane->init_us = init >= 0 && init < 1e15 ? (int64_t)init : -1;
	bg_svg_critical_path(lane);
	free(count);
	bg_strmap_release(&seen);
	bg_strbuf_release(&fmt);
	bg_strbuf_release(&metric);
}

static void timeline(struct bg_strbuf *p, struct cmp_doc *c, const char *base, const char *cand)
{
	static const char *const sides[2] = { "against", "commit" };
	struct bg_svg_lane lanes[2];
	struct bg_strbuf label[2] = { BG_STRBUF_INIT, BG_STRBUF_INIT };
	size_t n = 0;

	for (int i = 0; i < 2; i++) {
		ssize_t b = pick_boot(c, sides[i]);

		if (b < 0)
			continue;
		bg_strbuf_addstr(&label[n], i ? "cand " : "base ");
		bg_strbuf_add(&label[n], i ? cand : base, strnlen(i ? cand : base, 12));
		lanes[n].label = label[n].buf;
		boot_lane(c, (size_t)b, &lanes[n]);
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
	for (size_t i = 0; i < n; i++)
		free(lanes[i].bars);
	bg_strbuf_release(&label[0]);
	bg_strbuf_release(&label[1]);
}

static void verdict_rows(struct bg_strbuf *p, struct cmp_doc *c, bool probes)
{
	size_t n = bg_json_doc_len(c->d, "comparison.verdicts");

	for (size_t i = 0; i < n; i++) {
		const char *metric = str_at(c, VERDICT, i, "metric");
		const char *v = str_at(c, VERDICT, i, "verdict");
		double lo = num_at(c, VERDICT, i, "ci.0"), hi = num_at(c, VERDICT, i, "ci.1");
		double pct = num_at(c, VERDICT, i, "delta_pct"), q = num_at(c, VERDICT, i, "q");

		if (!metric || !strncmp(metric, "probe.", 6) != probes)
			continue;
		bg_strbuf_addstr(p, "<tr");
		if (v && bg_path_name_ok(v)) {
			bg_strbuf_addstr(p, " class=\"v-");
			bg_html_attr(p, v);
			if (bg_strmap_get(&c->regressed, metric) >= 0)
				bg_strbuf_addstr(p, " regressed");
			bg_strbuf_addch(p, '"');
		}
		bg_strbuf_addch(p, '>');
		add_td_text(p, "metric", metric);
		add_td_text(p, NULL, v);
		bg_strbuf_addstr(p, "<td class=\"num\">");
		add_us(p, num_at(c, VERDICT, i, "base_median"), false);
		bg_strbuf_addstr(p, "</td><td class=\"num\">");
		add_us(p, num_at(c, VERDICT, i, "cand_median"), false);
		bg_strbuf_addstr(p, "</td><td class=\"num\">");
		add_us(p, num_at(c, VERDICT, i, "delta"), true);
		if (isnan(pct))
			bg_strbuf_addstr(p, "</td><td class=\"num\">-");
		else
			bg_strbuf_addf(p, "</td><td class=\"num\">%+.1f%%", pct);
		if (isnan(lo) || isnan(hi))
			bg_strbuf_addstr(p, "</td><td class=\"num\">-");
		else
			bg_strbuf_addf(p, "</td><td class=\"num\">[%+.0f, %+.0f]", lo, hi);
		if (isnan(q))
			bg_strbuf_addstr(p, "</td><td class=\"num\">-");
		else
			bg_strbuf_addf(p, "</td><td class=\"num\">%.2g", q);
		bg_strbuf_addf(p, "</td><td class=\"num\">%.0f/%.0f</td></tr>\n",
			       num_at(c, VERDICT, i, "n_base"), num_at(c, VERDICT, i, "n_cand"));
	}
}

static void verdict_table(struct bg_strbuf *p, struct cmp_doc *c, bool probes)
{
	bg_strbuf_addf(p, "<h2 id=\"%s\">%s</h2>\n<table class=\"metrics %s\">\n<thead><tr>"
		       "<th>metric</th><th>verdict</th><th>base median us</th>"
		       "<th>cand median us</th><th>delta us</th><th>delta %%</th>"
		       "<th>95%% interval us</th><th>q</th><th>boots</th></tr></thead>\n<tbody>\n",
		       probes ? "probes" : "initcalls", probes ? "Probes" : "Boot and initcalls",
		       probes ? "probes" : "initcalls");
	verdict_rows(p, c, probes);
	bg_strbuf_addstr(p, "</tbody></table>\n");
}

/* ---- the boots of a page: where each ran, and the lab's page of it ---- */

/*
 * The table of boots, rows given (nothing when there are none): the first column what
 * ran (a side, or a commit), then board, outcome, wall time and the LAVA job.
 */
static void boots_table(struct bg_strbuf *p, const char *what, const struct bg_strbuf *rows)
{
	if (!rows->len)
		return;
	bg_strbuf_addf(p, "<h2 id=\"boots\">Boots</h2>\n<table class=\"boots\">\n<thead><tr>"
		       "<th>%s</th><th>board</th><th>outcome</th><th>wall s</th><th>lab job</th>"
		       "</tr></thead>\n<tbody>\n", what);
	bg_strbuf_add(p, rows->buf, rows->len);
	bg_strbuf_addstr(p, "</tbody></table>\n");
}

/* The row's cells after the first; a job URL that is not http(s) is shown, not linked. */
static void boot_cells(struct bg_strbuf *p, const char *board, const char *outcome, double wall,
		       const char *job_url)
{
	add_td_text(p, NULL, board);
	add_td_text(p, NULL, outcome);
	if (isnan(wall))
		bg_strbuf_addstr(p, "<td class=\"num\">-</td>");
	else
		bg_strbuf_addf(p, "<td class=\"num\">%.1f</td>", wall);
	if (job_url && bg_site_url_ok(job_url)) {
		bg_strbuf_addstr(p, "<td>");
		bg_html_link(p, job_url, job_url);
		bg_strbuf_addstr(p, "</td>");
	} else {
		add_td_text(p, NULL, job_url);
	}
	bg_strbuf_addstr(p, "</tr>\n");
}

/* The boots a comparison's result lists, base first, each with the comparison's board. */
static void comparison_boots(struct bg_strbuf *p, struct cmp_doc *c, const char *board)
{
	struct bg_strbuf rows = BG_STRBUF_INIT;
	size_t n = bg_json_doc_len(c->d, "boots");

	for (int against = 1; against >= 0; against--) {
		for (size_t i = 0; i < n; i++) {
			const char *side = str_at(c, "boots.%zu.", i, "side");

			if (!side || (strcmp(side, "against") == 0) != (against == 1))
				continue;
			bg_strbuf_addf(&rows, "<tr><td>%s</td>", against ? "base" : "candidate");
			boot_cells(&rows, board, str_at(c, "boots.%zu.", i, "outcome"),
				   num_at(c, "boots.%zu.", i, "wall_seconds"),
				   str_at(c, "boots.%zu.", i, "job_url"));
		}
	}
	boots_table(p, "side", &rows);
	bg_strbuf_release(&rows);
}

static int bisection_boot_row(const struct bg_store_row *r, void *data)
{
	struct bg_strbuf *rows = data;

	bg_strbuf_addstr(rows, "<tr><td>");
	add_sha(rows, bg_row_text(r, 0));
	bg_strbuf_addstr(rows, "</td>");
	boot_cells(rows, bg_row_text(r, 1), bg_row_text(r, 2),
		   bg_row_null(r, 3) ? NAN : bg_row_double(r, 3),
		   bg_row_null(r, 4) ? NULL : bg_row_text(r, 4));
	return 0;
}

/* The boots the engine was told of, in the order it was told. */
static int bisection_boots(struct site *w, struct bg_strbuf *p, int64_t id)
{
	struct bg_strbuf rows = BG_STRBUF_INIT;
	int ret = bg_store_query(w->s, bisection_boot_row, &rows, "SELECT c.sha, o.board, "
				 "o.outcome, o.wall_s, o.job_url FROM bisection_reports r JOIN "
				 "boots o ON o.id = r.boot_id JOIN bisection_commits c ON "
				 "c.bisection_id = r.bisection_id AND c.idx = r.idx WHERE "
				 "r.bisection_id = ? ORDER BY r.seq", "i", id);

	if (ret >= 0)
		boots_table(p, "commit", &rows);
	bg_strbuf_release(&rows);
	return ret;
}

static void comparison_body(struct bg_strbuf *p, struct cmp_doc *c, const char *base,
			    const char *cand)
{
	size_t n = bg_json_doc_len(c->d, "comparison.verdicts");
	size_t na = bg_json_doc_len(c->d, "comparison.attribution");

	for (size_t i = 0; i < n; i++) {
		const char *v = str_at(c, VERDICT, i, "verdict"), *m = str_at(c, VERDICT, i, "metric");

		if (v && m && !strcmp(v, "different") && num_at(c, VERDICT, i, "delta") > 0)
			bg_strmap_put(&c->regressed, m, i);
	}
	if (bg_json_doc_is_object(c->d, "comparison.boots"))
		bg_strbuf_addf(p, "<p class=\"boots\">Boots: base %.0f (%.0f left out), candidate "
			       "%.0f (%.0f left out); a boot that did not reach init is left out, "
			       "never counted as a regression.</p>\n",
			       bg_json_doc_num(c->d, "comparison.boots.base"),
			       bg_json_doc_num(c->d, "comparison.boots.base_excluded"),
			       bg_json_doc_num(c->d, "comparison.boots.cand"),
			       bg_json_doc_num(c->d, "comparison.boots.cand_excluded"));
	timeline(p, c, base, cand);
	if (na) {
		bg_strbuf_addstr(p, "<h2 id=\"attribution\">What explains boot.init</h2>\n<ul>\n");
		for (size_t i = 0; i < na; i++) {
			bg_strbuf_addstr(p, "<li>");
			bg_html_txt(p, str_at(c, "comparison.attribution.%zu.", i, "metric"));
			bg_strbuf_addstr(p, ": ");
			add_us(p, num_at(c, "comparison.attribution.%zu.", i, "delta"), true);
			bg_strbuf_addf(p, " us, %.1f%% of the shift</li>\n",
				       100 * num_at(c, "comparison.attribution.%zu.", i, "share"));
		}
		bg_strbuf_addstr(p, "</ul>\n");
	}
	verdict_table(p, c, false);
	verdict_table(p, c, true);
}

/* keys[i]: the row's column i, as a number, a string or null. */
static void row_members(struct bg_json *j, const char *const *keys, const struct row *r,
			size_t n)
{
	for (size_t i = 0; i < n; i++) {
		bg_json_key(j, keys[i]);
		if (r->v[i] && r->number[i])
			bg_json_double(j, strtod(r->v[i], NULL));
		else
			bg_json_str(j, r->v[i]);
	}
}

/* The JSON of a row whose stored result is missing or not JSON: what the row says. */
static char *row_json(const char *const *keys, const struct row *r, size_t n)
{
	struct bg_json j;

	bg_json_init(&j, -1, 0);
	bg_json_object_begin(&j);
	row_members(&j, keys, r, n);
	bg_json_key(&j, "result");
	bg_json_null(&j);
	bg_json_object_end(&j);
	return bg_strbuf_detach(&j.out, NULL);
}

/* What a result's page is made from: this program and every column of its row. */
static uint64_t row_inputs(const struct site *w, const struct row *r)
{
	uint64_t h = w->program;

	if (!h)
		return 0;
	for (int i = 0; i < MAX_COLS; i++)
		h = bg_hash64_seed(r->v[i] ? r->v[i] : "", r->v[i] ? strlen(r->v[i]) + 1 : 0,
				   h + (r->v[i] ? 1 : 2));
	return h ? h : 1;
}

/* Whether rel was made from the inputs of the page being made and still holds that. */
static bool fresh(struct site *w, const char *rel)
{
	ssize_t i = w->in ? bg_strmap_get(&w->old.index, rel) : -1;
	char *path, *data;
	size_t len;
	bool same;

	if (i < 0 || w->old.e[i].in != w->in)
		return false;
	path = bg_path_join(w->o->outdir, rel);
	data = bg_read_file(path, (size_t)1 << 30, &len);
	same = data && bg_hash64(data, len) == w->old.e[i].out;
	free(data);
	free(path);
	return same;
}

/* A fresh file: counted unchanged, kept in the manifest. */
static void keep(struct site *w, const char *rel)
{
	manifest_add(&w->now, rel, w->in, w->old.e[bg_strmap_get(&w->old.index, rel)].out);
	w->st->unchanged++;
	if (w->o->on_file)
		w->o->on_file(rel, false, w->o->data);
}

/* A page of one stored result (a comparison, a bisection): its row, its JSON, its paths. */
struct result {
	struct row r;
	struct bg_json_doc *d;    /* the stored result, when it is JSON */
	char *why;                /* else why there is none */
	char rel[64], rel_json[64];
	struct bg_strbuf title;
};

/*
 * Reads the row of sql (one "?", the id) and writes KIND/ID.json: the stored result of
 * column col, else what the columns named by keys say. 1 when the page is to be made, 0
 * when it is fresh (both files kept) or its row is gone since the ids were read, -1 with
 * why.
 */
static int result_begin(struct site *w, struct result *res, const char *kind, int64_t id,
			const char *sql, const char *const *keys, size_t nkeys, int col)
{
	char *fallback;
	int ret;

	memset(res, 0, sizeof(*res));
	bg_strbuf_init(&res->title, 0);
	if (bg_store_query(w->s, take_row, &res->r, sql, "i", id) < 0)
		return -1;
	if (!res->r.found)
		return 0;
	snprintf(res->rel, sizeof(res->rel), "%s/%" PRId64 ".html", kind, id);
	snprintf(res->rel_json, sizeof(res->rel_json), "%s/%" PRId64 ".json", kind, id);
	/* without a stored result the page shows rows elsewhere (a bisection's reports so
	   far): it is made every time */
	w->in = res->r.v[col] ? row_inputs(w, &res->r) : 0;
	if (fresh(w, res->rel) && fresh(w, res->rel_json)) {
		keep(w, res->rel_json);
		keep(w, res->rel);
		return 0;
	}
	fallback = row_json(keys, &res->r, nkeys);
	ret = put_json(w, res->rel_json, res->r.v[col], fallback, &res->d, &res->why);
	free(fallback);
	return ret < 0 ? -1 : 1;
}

/* The page's end, with its link to the JSON, and the page written. */
static int result_end(struct site *w, struct result *res)
{
	page_end(w, strrchr(res->rel_json, '/') + 1);
	return put_page(w, res->rel);
}

static void result_release(struct result *res)
{
	bg_json_doc_free(res->d);
	free(res->why);
	bg_strbuf_release(&res->title);
	row_release(&res->r);
}

/* The console mode of a result (lab/board.h); results from before it was said: verbose. */
static const char *console_word(const struct bg_json_doc *d)
{
	const char *c = d ? bg_json_doc_str(d, "console") : NULL;

	return c && !strcmp(c, "quiet") ? "quiet" : "verbose";
}

static int comparison_page(struct site *w, int64_t id)
{
	static const char *const keys[] = { "id", "tree", "base", "cand", "board", "mode",
					     "verdict", "metric", "delta" };
	struct bg_strbuf *p = &w->page;
	struct cmp_doc c = { NULL, BG_STRBUF_INIT, BG_STRMAP_INIT };
	struct result res;
	char **v;
	int ret = result_begin(w, &res, "comparison", id, "SELECT c.id, t.name, c.base, c.cand, "
			       "c.board, c.mode, c.verdict, c.metric, c.delta, c.result, c.created, "
			       "cb.subject, cc.subject, cc.author FROM comparisons c LEFT JOIN trees "
			       "t ON t.id = c.tree_id LEFT JOIN commits cb ON cb.sha = c.base LEFT "
			       "JOIN commits cc ON cc.sha = c.cand WHERE c.id = ?", keys,
			       ARRAY_SIZE(keys), 9);

	if (ret <= 0)
		goto out;
	v = res.r.v;
	bg_strbuf_addf(&res.title, "Comparison %" PRId64 ": %.12s against %.12s", id, v[3], v[2]);
	page_begin(w, res.rel, res.title.buf);
	bg_strbuf_addstr(p, "<dl class=\"facts\">\n<dt>tree</dt><dd>");
	add_tree(p, "../", v[1]);
	bg_strbuf_addstr(p, "</dd>\n");
	dl_commit(p, "candidate", v[3], v[12]);
	dl_item(p, "author", v[13]);
	dl_commit(p, "base", v[2], v[11]);
	dl_item(p, "board", v[4]);
	dl_item(p, "mode", v[5]);
	dl_item(p, "console", console_word(res.d));
	bg_strbuf_addstr(p, "<dt>verdict</dt><dd class=\"verdict\">");
	bg_html_txt(p, verdict_word(v[6]));
	if (v[7]) {
		bg_strbuf_addstr(p, ": ");
		bg_html_txt(p, v[7]);
		bg_strbuf_addstr(p, " ");
		add_us(p, v[8] ? strtod(v[8], NULL) : NAN, true);
		bg_strbuf_addstr(p, " us");
	}
	bg_strbuf_addstr(p, "</dd>\n<dt>when</dt><dd>");
	add_time(p, v[10]);
	bg_strbuf_addstr(p, "</dd>\n</dl>\n");
	if (res.d) {
		c.d = res.d;
		comparison_body(p, &c, v[2], v[3]);
		comparison_boots(p, &c, v[4]);
	} else {
		add_no_result(p, res.why);
	}
	ret = result_end(w, &res);
out:
	w->in = 0;
	bg_strmap_release(&c.regressed);
	bg_strbuf_release(&c.path);
	result_release(&res);
	return ret < 0 ? -1 : 0;
}

/* ---- bisection/ID.html ---- */

static void add_subject_of(struct site *w, struct bg_strbuf *p, const char *sha)
{
	char *subject = NULL;

	if (sha && bg_store_text(w->s, &subject, "SELECT subject FROM commits WHERE sha = ?", "s",
				 sha) == 0 && subject)
		bg_html_txt(p, subject);
	free(subject);
}

static void bisection_steps(struct site *w, struct bg_strbuf *p, struct cmp_doc *c)
{
	size_t n = bg_json_doc_len(c->d, "steps");

	bg_strbuf_addstr(p, "<h2 id=\"steps\">Steps</h2>\n<p>Every commit the bisection measured, "
			 "in the order of the range; values in us, one per boot.</p>\n"
			 "<table class=\"steps\">\n<thead><tr><th>position</th><th>commit</th>"
			 "<th>subject</th><th>built</th><th>values us</th><th>verdict</th></tr>"
			 "</thead>\n<tbody>\n");
	for (size_t i = 0; i < n; i++) {
		const char *v = str_at(c, "steps.%zu.", i, "verdict");
		const char *sha = str_at(c, "steps.%zu.", i, "commit");
		size_t nv = bg_json_doc_len(c->d, jpath(&c->path, "steps.%zu.values", i));
		int built = bg_json_doc_bool(c->d, jpath(&c->path, "steps.%zu.built", i));

		bg_strbuf_addstr(p, "<tr");
		if (v && bg_path_name_ok(v)) {
			bg_strbuf_addstr(p, " class=\"s-");
			bg_html_attr(p, v);
			bg_strbuf_addch(p, '"');
		}
		bg_strbuf_addf(p, "><td class=\"num\">%.0f</td><td>", num_at(c, "steps.%zu.", i,
									"index"));
		add_sha(p, sha);
		bg_strbuf_addstr(p, "</td><td class=\"subject\">");
		add_subject_of(w, p, sha);
		bg_strbuf_addf(p, "</td><td>%s</td><td class=\"values\">", built == 1 ? "yes" :
			       built == 0 ? "no" : "-");
		for (size_t k = 0; k < nv; k++) {
			bg_strbuf_addstr(p, k ? " " : "");
			add_us(p, bg_json_doc_num(c->d, jpath(&c->path, "steps.%zu.values.%zu", i, k)),
			       false);
		}
		bg_strbuf_addstr(p, "</td>");
		add_td_text(p, NULL, v);
		bg_strbuf_addstr(p, "</tr>\n");
	}
	bg_strbuf_addstr(p, "</tbody></table>\n");
}

static void bisection_confirmation(struct bg_strbuf *p, const struct bg_json_doc *d)
{
	const char *v = bg_json_doc_str(d, "confirmation.verdict");
	int applies = bg_json_doc_bool(d, "confirmation.revert.applies");

	if (!v && applies < 0)
		return;
	bg_strbuf_addstr(p, "<h2 id=\"confirmation\">Confirmation</h2>\n<ul>\n");
	if (v) {
		bg_strbuf_addstr(p, "<li class=\"confirmed\">");
		bg_html_txtf(p, "Against its parent in %s mode (%.0f boots each): %s, ",
			     bg_json_doc_str(d, "confirmation.mode") ?
			     bg_json_doc_str(d, "confirmation.mode") : "-",
			     bg_json_doc_num(d, "confirmation.boots"), v);
		add_us(p, bg_json_doc_num(d, "confirmation.delta_us"), true);
		bg_strbuf_addstr(p, " us (");
		add_us(p, bg_json_doc_num(d, "confirmation.base_us"), false);
		bg_strbuf_addstr(p, " &rarr; ");
		add_us(p, bg_json_doc_num(d, "confirmation.cand_us"), false);
		bg_strbuf_addf(p, "), p = %.2g; boot.init ", bg_json_doc_num(d, "confirmation.p"));
		add_us(p, bg_json_doc_num(d, "confirmation.boot_init_delta_us"), true);
		bg_strbuf_addstr(p, " us (");
		bg_html_txt(p, bg_json_doc_str(d, "confirmation.boot_init_verdict") ?
			    bg_json_doc_str(d, "confirmation.boot_init_verdict") : "-");
		bg_strbuf_addstr(p, ").</li>\n");
	}
	if (applies == 0)
		bg_strbuf_addstr(p, "<li class=\"revert\">A revert of the culprit does not apply to "
				 "the bad tip.</li>\n");
	else if (applies == 1) {
		bg_strbuf_addstr(p, "<li class=\"revert\">Reverting it on the bad tip restores ");
		add_us(p, -bg_json_doc_num(d, "confirmation.revert.delta_us"), false);
		bg_strbuf_addstr(p, " us of ");
		add_us(p, bg_json_doc_num(d, "confirmation.revert.regression_us"), false);
		bg_strbuf_addstr(p, " (");
		bg_html_txt(p, bg_json_doc_str(d, "confirmation.revert.verdict") ?
			    bg_json_doc_str(d, "confirmation.revert.verdict") : "-");
		bg_strbuf_addstr(p, ").</li>\n");
	}
	bg_strbuf_addstr(p, "</ul>\n");
}

static int report_row(const struct bg_store_row *r, void *data)
{
	struct bg_strbuf *p = data;

	bg_strbuf_addf(p, "<tr><td class=\"num\">%" PRId64 "</td><td>", bg_row_int(r, 0));
	add_sha(p, bg_row_text(r, 1));
	bg_strbuf_addstr(p, "</td>");
	add_td_text(p, NULL, bg_row_text(r, 2));
	bg_strbuf_addstr(p, "<td class=\"num\">");
	add_us(p, bg_row_null(r, 3) ? NAN : bg_row_double(r, 3), false);
	bg_strbuf_addstr(p, "</td></tr>\n");
	return 0;
}

static int bisection_page(struct site *w, int64_t id)
{
	static const char *const keys[] = { "id", "tree", "good", "bad", "board", "mode",
					     "metric", "state", "outcome", "culprit", "confidence" };
	struct bg_strbuf *p = &w->page;
	struct cmp_doc c = { NULL, BG_STRBUF_INIT, BG_STRMAP_INIT };
	struct result res;
	char **v;
	const struct bg_json_doc *d;
	int ret = result_begin(w, &res, "bisection", id, "SELECT b.id, t.name, b.good, b.bad, "
			       "b.board, b.mode, b.metric, b.state, b.outcome, b.culprit, "
			       "b.confidence, b.result, b.error, b.created, b.finished, c.subject, "
			       "c.author, b.parent_id FROM bisections b LEFT JOIN trees t ON "
			       "t.id = b.tree_id LEFT JOIN commits c ON c.sha = b.culprit "
			       "WHERE b.id = ?", keys, ARRAY_SIZE(keys), 11);

	if (ret <= 0)
		goto out;
	v = res.r.v;
	d = res.d;
	bg_strbuf_addf(&res.title, "Bisection %" PRId64 " of %s", id, v[6] ? v[6] : "a metric");
	page_begin(w, res.rel, res.title.buf);
	bg_strbuf_addstr(p, "<dl class=\"facts\">\n<dt>tree</dt><dd>");
	add_tree(p, "../", v[1]);
	bg_strbuf_addstr(p, "</dd>\n");
	dl_item(p, "state", v[7]);
	dl_item(p, "outcome", v[8]);
	dl_commit(p, "culprit", v[9], v[15]);
	dl_item(p, "author", v[16]);
	dl_item(p, "posterior", v[10]);
	dl_commit(p, "good", v[2], NULL);
	dl_commit(p, "bad", v[3], NULL);
	dl_item(p, "board", v[4]);
	dl_item(p, "mode", v[5]);
	dl_item(p, "console", console_word(d));
	if (v[12])
		dl_item(p, "error", v[12]);
	bg_strbuf_addstr(p, "<dt>started</dt><dd>");
	add_time(p, v[13]);
	bg_strbuf_addstr(p, "</dd>\n");
	if (v[17]) {
		bg_strbuf_addstr(p, "<dt>inside the merge of</dt><dd>");
		add_link_id(p, "../", "bisection", strtoll(v[17], NULL, 10));
		bg_strbuf_addstr(p, "</dd>\n");
	}
	if (d) {
		bg_strbuf_addf(p, "<dt>the step</dt><dd>%+.1f%%</dd>\n<dt>work</dt><dd>%.0f builds, "
			       "%.0f boots, %.0f s</dd>\n", bg_json_doc_num(d, "step_pct"),
			       bg_json_doc_num(d, "builds"), bg_json_doc_num(d, "boots"),
			       bg_json_doc_num(d, "wall_s"));
		if (!isnan(bg_json_doc_num(d, "inner"))) {
			bg_strbuf_addstr(p, "<dt>the merge's branch</dt><dd>");
			add_link_id(p, "../", "bisection", (int64_t)bg_json_doc_num(d, "inner"));
			bg_strbuf_addstr(p, "</dd>\n");
		}
	}
	bg_strbuf_addstr(p, "</dl>\n");
	if (d) {
		c.d = d;
		bisection_steps(w, p, &c);
		bisection_confirmation(p, d);
	} else {
		add_no_result(p, res.why);
		bg_strbuf_addstr(p, "<h2 id=\"reports\">Reports so far</h2>\n<table class=\"reports\">"
				 "\n<thead><tr><th>#</th><th>commit</th><th>kind</th><th>value us</th>"
				 "</tr></thead>\n<tbody>\n");
		ret = bg_store_query(w->s, report_row, p, "SELECT r.seq, c.sha, r.kind, r.value "
				     "FROM bisection_reports r JOIN bisection_commits c ON "
				     "c.bisection_id = r.bisection_id AND c.idx = r.idx WHERE "
				     "r.bisection_id = ? ORDER BY r.seq", "i", id);
		if (ret < 0)
			goto out;
		bg_strbuf_addstr(p, "</tbody></table>\n");
	}
	if (bisection_boots(w, p, id) < 0) {
		ret = -1;
		goto out;
	}
	ret = result_end(w, &res);
out:
	w->in = 0;
	bg_strbuf_release(&c.path);
	result_release(&res);
	return ret < 0 ? -1 : 0;
}

/* ---- series/ID.html ---- */

struct patches {
	struct bg_strbuf *p;
	struct bg_json *j;
};

static int patch_row(const struct bg_store_row *r, void *data)
{
	static const char *const keys[] = { "idx", "message_id", "subject", "author", "commit",
					     "status", "error", "comparison", "verdict", "metric",
					     "delta" };
	struct patches *ps = data;
	struct bg_strbuf *p = ps->p;
	int64_t idx = bg_row_int(r, 0);
	const char *status = col_text(r, 5);

	bg_json_object_begin(ps->j);
	for (int i = 0; i < (int)ARRAY_SIZE(keys); i++) {
		bg_json_key(ps->j, keys[i]);
		if (bg_row_null(r, i))
			bg_json_null(ps->j);
		else if (bg_row_number(r, i))
			bg_json_double(ps->j, bg_row_double(r, i));
		else
			bg_json_str(ps->j, bg_row_text(r, i));
	}
	bg_json_object_end(ps->j);

	bg_strbuf_addstr(p, "<tr");
	if (status && bg_path_name_ok(status)) {
		bg_strbuf_addstr(p, " class=\"p-");
		bg_html_attr(p, status);
		bg_strbuf_addch(p, '"');
	}
	if (idx)
		bg_strbuf_addf(p, "><td class=\"num\">%" PRId64 "</td>", idx);
	else
		bg_strbuf_addstr(p, "><td>cover</td>");
	add_td_text(p, "subject", bg_row_text(r, 2));
	bg_strbuf_addstr(p, "<td>");
	add_sha(p, col_text(r, 4));
	bg_strbuf_addstr(p, "</td>");
	add_td_text(p, NULL, status);
	if (bg_row_null(r, 8))
		add_td_text(p, NULL, NULL);
	else
		add_verdict_cell(p, bg_row_text(r, 8));
	add_td_text(p, NULL, col_text(r, 9));
	bg_strbuf_addstr(p, "<td class=\"num\">");
	add_us(p, bg_row_null(r, 10) ? NAN : bg_row_double(r, 10), true);
	bg_strbuf_addstr(p, "</td>");
	add_td_text(p, "error", col_text(r, 6));
	bg_strbuf_addstr(p, "<td>");
	if (!bg_row_null(r, 7))
		add_link_id(p, "../", "comparison", bg_row_int(r, 7));
	else
		bg_strbuf_addstr(p, "-");
	bg_strbuf_addstr(p, "</td></tr>\n");
	return 0;
}

static int series_page(struct site *w, int64_t id)
{
	static const char *const keys[] = { "id", "tree", "message_id", "version", "total",
					     "subject", "author", "source", "base", "state",
					     "superseded_by", "error" };
	struct bg_strbuf *p = &w->page, rel = BG_STRBUF_INIT, title = BG_STRBUF_INIT;
	struct bg_strbuf rows = BG_STRBUF_INIT;
	struct bg_json_doc *d = NULL;
	struct row r = { { NULL }, { false }, false };
	struct bg_json j;
	struct patches ps = { &rows, &j };
	char *why = NULL, rel_json[64];
	int ret = -1;

	bg_json_init(&j, -1, 0);
	if (bg_store_query(w->s, take_row, &r, "SELECT s.id, t.name, s.message_id, s.version, "
			   "s.total, s.subject, s.author, s.source, s.base, s.state, "
			   "s.superseded_by, s.error, s.result, s.created, s.finished "
			   "FROM series s LEFT JOIN trees t ON t.id = s.tree_id WHERE s.id = ?", "i",
			   id) < 0)
		goto out;
	if (!r.found) {
		ret = 0;
		goto out;
	}
	/* without a stored result, the rows themselves, as data */
	bg_json_object_begin(&j);
	row_members(&j, keys, &r, ARRAY_SIZE(keys));
	bg_json_key(&j, "patches");
	bg_json_array_begin(&j);
	if (bg_store_query(w->s, patch_row, &ps, "SELECT idx, message_id, subject, author, "
			   "commit_sha, status, error, comparison_id, verdict, metric, delta "
			   "FROM series_patches WHERE series_id = ? ORDER BY idx", "i", id) < 0)
		goto out;
	bg_json_array_end(&j);
	bg_json_object_end(&j);
	snprintf(rel_json, sizeof(rel_json), "series/%" PRId64 ".json", id);
	if (put_json(w, rel_json, r.v[12], j.out.buf, &d, &why) < 0)
		goto out;
	bg_strbuf_addf(&rel, "series/%" PRId64 ".html", id);
	bg_strbuf_addf(&title, "Series %" PRId64 ": %s", id, r.v[5] ? r.v[5] : "");
	page_begin(w, rel.buf, title.buf);
	bg_strbuf_addstr(p, "<dl class=\"facts\">\n<dt>tree</dt><dd>");
	add_tree(p, "../", r.v[1]);
	bg_strbuf_addstr(p, "</dd>\n");
	dl_item(p, "author", r.v[6]);
	dl_item(p, "message-id", r.v[2]);
	dl_item(p, "version", r.v[3]);
	dl_item(p, "patches", r.v[4]);
	dl_item(p, "from", r.v[7]);
	dl_commit(p, "base", r.v[8], NULL);
	dl_item(p, "state", r.v[9]);
	if (r.v[10]) {
		bg_strbuf_addstr(p, "<dt>superseded by</dt><dd>");
		add_link_id(p, "../", "series", strtoll(r.v[10], NULL, 10));
		bg_strbuf_addstr(p, "</dd>\n");
	}
	if (r.v[11])
		dl_item(p, "error", r.v[11]);
	bg_strbuf_addstr(p, "<dt>received</dt><dd>");
	add_time(p, r.v[13]);
	bg_strbuf_addstr(p, "</dd>\n</dl>\n<h2 id=\"patches\">Patches</h2>\n<p>Each patch "
			 "measured against the tree before it.</p>\n<table class=\"patches\">\n"
			 "<thead><tr><th>#</th><th>subject</th><th>commit</th><th>status</th>"
			 "<th>verdict</th><th>metric</th><th>delta us</th><th>error</th>"
			 "<th>comparison</th></tr></thead>\n<tbody>\n");
	bg_strbuf_add(p, rows.buf, rows.len);
	bg_strbuf_addstr(p, "</tbody></table>\n");
	page_end(w, strrchr(rel_json, '/') + 1);
	ret = put_page(w, rel.buf);
out:
	bg_json_doc_free(d);
	bg_strbuf_release(&j.out);
	bg_strbuf_release(&rows);
	bg_strbuf_release(&rel);
	bg_strbuf_release(&title);
	free(why);
	row_release(&r);
	return ret;
}

/* ---- the whole ---- */

static int pages_of(struct site *w, const char *sql, int (*page)(struct site *, int64_t))
{
	struct ids ids = { NULL, 0, 0 };
	int ret = bg_store_query(w->s, take_id, &ids, sql, "");

	for (size_t i = 0; i < ids.n && ret >= 0; i++)
		ret = page(w, ids.v[i]);
	free(ids.v);
	return ret < 0 ? -1 : 0;
}

bool bg_site_url_ok(const char *url)
{
	if (strncmp(url, "http://", 7) != 0 && strncmp(url, "https://", 8) != 0)
		return false;
	for (const char *c = url; *c; c++)
		if (*c <= 0x20 || *c >= 0x7f || strchr("\"'<>\\`", *c))
			return false;
	return strlen(url) <= 2048;
}

int bg_site_generate(struct bg_store *s, const struct bg_site_opts *o, struct bg_site_stats *st)
{
	static const char *const dirs[] = { "tree", "comparison", "bisection", "series" };
	struct site w;
	struct stat sb;
	int ret = -1;

	memset(&w, 0, sizeof(w));
	w.s = s;
	w.o = o;
	w.st = st;
	bg_strbuf_init(&w.page, 0);

	memset(st, 0, sizeof(*st));
	if (o->url && !bg_site_url_ok(o->url))
		return bg_error("'%s' is no site URL (http:// or https://, no spaces or quotes)",
				o->url);
	if (bg_mkdirs(o->outdir) < 0)
		return -1;
	if (stat(o->outdir, &sb) < 0)
		return bg_error_errno("cannot read '%s'", o->outdir);
	if (!S_ISDIR(sb.st_mode))
		return bg_error("'%s' is not a directory", o->outdir);
	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		char *d = bg_path_join(o->outdir, dirs[i]);
		int r = bg_mkdirs(d);

		free(d);
		if (r < 0)
			return -1;
	}
	w.program = program_id(o);
	manifest_load(&w);
	if (put(&w, "style.css", bg_site_css, strlen(bg_site_css)) < 0 ||
	    pages_of(&w, "SELECT id FROM comparisons ORDER BY id", comparison_page) < 0 ||
	    pages_of(&w, "SELECT id FROM bisections ORDER BY id", bisection_page) < 0 ||
	    pages_of(&w, "SELECT id FROM series ORDER BY id", series_page) < 0 ||
	    tree_pages(&w) < 0 || index_page(&w) < 0 || manifest_save(&w) < 0)
		goto out;
	ret = 0;
out:
	manifest_release(&w.old);
	manifest_release(&w.now);
	bg_strbuf_release(&w.page);
	return ret;
}
