/*
 * The static results site (site.h): its run, files and manifest, and the pieces every
 * page is made of (site-page.h); each kind of page has a file of its own.
 */
#include <math.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <time.h>

#include "publish/site-page.h"
#include "store/views.h"
#include "report/html.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/hash.h"
#include "util/num.h"
#include "util/path.h"
#include "util/xmalloc.h"

/*
 * What each file was made from and what it holds, kept in OUTDIR/.bootgate-site: a result's
 * page whose inputs (its row, this program, the options) and whose file on disk are as they
 * were is not made again. Regenerating after each result then costs about what reading the
 * store does; a file changed by hand no longer matches and is made again.
 */
#define MANIFEST ".bootgate-site"

static void manifest_add(struct site_manifest *m, const char *rel, uint64_t in, uint64_t out)
{
	struct site_manifest_entry *e;

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

static void manifest_release(struct site_manifest *m)
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
int site_put(struct site *w, const char *rel, const char *data, size_t len)
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

int site_put_page(struct site *w, const char *rel)
{
	return site_put(w, rel, w->page.buf, w->page.len);
}

uint64_t site_inputs(const struct site *w, ...)
{
	uint64_t h = w->program;
	const char *s;
	va_list ap;

	if (!h)
		return 0;
	va_start(ap, w);
	while ((s = va_arg(ap, const char *)))
		h = bg_hash64_seed(s, strlen(s) + 1, h);
	va_end(ap);
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

bool site_keep_result(struct site *w, const char *rel, const char *rel_json)
{
	if (!fresh(w, rel) || !fresh(w, rel_json))
		return false;
	keep(w, rel_json);
	keep(w, rel);
	return true;
}

/* ---- pieces of pages ---- */

void site_page_begin(struct site *w, const char *rel, const char *title)
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

void site_page_end(struct site *w, const char *json)
{
	bg_strbuf_addstr(&w->page, "</main>\n<footer>");
	if (json) {
		bg_strbuf_addstr(&w->page, "This result as data: ");
		bg_html_link(&w->page, json, json);
		bg_strbuf_addstr(&w->page, ". ");
	}
	bg_strbuf_addstr(&w->page, "Made by bootgate from its store.</footer>\n</body>\n</html>\n");
}

void site_time(struct bg_strbuf *p, double t)
{
	char buf[64];

	bg_strbuf_addstr(p, bg_num_time_utc(t, "%Y-%m-%d %H:%M UTC", buf, sizeof(buf)) ? buf :
			 "-");
}

/* A number of µs as a whole number, or "-" for none. */
void site_us(struct bg_strbuf *p, double v, bool sign)
{
	if (isnan(v))
		bg_strbuf_addstr(p, "-");
	else
		bg_strbuf_addf(p, sign ? "%+.0f" : "%.0f", v);
}

/* A commit: its first 12 characters, the whole in a title. */
void site_sha(struct bg_strbuf *p, const char *sha)
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
const char *site_verdict_word(const char *v)
{
	return !v ? "-" : !strcmp(v, "pass") ? "same" : v;
}

/* <td class="v-WORD">WORD</td>, the word escaped (a class is a plain name or none). */
void site_verdict_cell(struct bg_strbuf *p, const char *v)
{
	const char *word = site_verdict_word(v);

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

void site_dl(struct bg_strbuf *p, const char *term, const char *text)
{
	bg_strbuf_addstr(p, "<dt>");
	bg_html_txt(p, term);
	bg_strbuf_addstr(p, "</dt><dd>");
	bg_html_txt(p, text ? text : "-");
	bg_strbuf_addstr(p, "</dd>\n");
}

/* <dt>TERM</dt><dd>sha12 subject</dd> */
void site_dl_commit(struct bg_strbuf *p, const char *term, const char *sha, const char *subject)
{
	bg_strbuf_addstr(p, "<dt>");
	bg_html_txt(p, term);
	bg_strbuf_addstr(p, "</dt><dd>");
	site_sha(p, sha);
	if (subject) {
		bg_strbuf_addstr(p, " <span class=\"subject\">");
		bg_html_txt(p, subject);
		bg_strbuf_addstr(p, "</span>");
	}
	bg_strbuf_addstr(p, "</dd>\n");
}

/* A tree's name, linked to its page when the name can be a file name. */
void site_tree(struct bg_strbuf *p, const char *up, const char *name)
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

void site_link_id(struct bg_strbuf *p, const char *up, const char *kind, int64_t id)
{
	bg_strbuf_addf(p, "<a href=\"%s%s/%" PRId64 ".html\">%" PRId64 "</a>", up, kind, id, id);
}

void site_td(struct bg_strbuf *p, const char *cls, const char *text)
{
	if (cls)
		bg_strbuf_addf(p, "<td class=\"%s\">", cls);
	else
		bg_strbuf_addstr(p, "<td>");
	bg_html_txt(p, text ? text : "-");
	bg_strbuf_addstr(p, "</td>");
}

void site_subject_of(struct site *w, struct bg_strbuf *p, const char *sha)
{
	char *subject = NULL;

	if (sha && bg_store_commit_subject(w->s, sha, &subject) == 0 && subject)
		bg_html_txt(p, subject);
	free(subject);
}

void site_boots_table(struct bg_strbuf *p, const char *what, const struct bg_strbuf *rows)
{
	if (!rows->len)
		return;
	bg_strbuf_addf(p, "<h2 id=\"boots\">Boots</h2>\n<table class=\"boots\">\n<thead><tr>"
		       "<th>%s</th><th>board</th><th>outcome</th><th>wall s</th><th>lab job</th>"
		       "</tr></thead>\n<tbody>\n", what);
	bg_strbuf_add(p, rows->buf, rows->len);
	bg_strbuf_addstr(p, "</tbody></table>\n");
}

void site_boot_cells(struct bg_strbuf *p, const char *board, const char *outcome, double wall,
		     const char *job_url)
{
	site_td(p, NULL, board);
	site_td(p, NULL, outcome);
	if (isnan(wall))
		bg_strbuf_addstr(p, "<td class=\"num\">-</td>");
	else
		bg_strbuf_addf(p, "<td class=\"num\">%.1f</td>", wall);
	if (job_url && bg_site_url_ok(job_url)) {
		bg_strbuf_addstr(p, "<td>");
		bg_html_link(p, job_url, job_url);
		bg_strbuf_addstr(p, "</td>");
	} else {
		site_td(p, NULL, job_url);
	}
	bg_strbuf_addstr(p, "</tr>\n");
}

/* ---- the whole ---- */

/* Each result of a kind, by the ids the store lists. */
static int pages_of(struct site *w, int (*ids)(struct bg_store *, int64_t **, size_t *),
		    int (*page)(struct site *, int64_t))
{
	int64_t *v = NULL;
	size_t n = 0;
	int ret = ids(w->s, &v, &n);

	for (size_t i = 0; i < n && ret >= 0; i++)
		ret = page(w, v[i]);
	free(v);
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
	if (site_put(&w, "style.css", bg_site_css, strlen(bg_site_css)) < 0 ||
	    pages_of(&w, bg_store_comparison_ids, site_comparison_page) < 0 ||
	    pages_of(&w, bg_store_bisection_ids, site_bisection_page) < 0 ||
	    pages_of(&w, bg_store_series_ids, site_series_page) < 0 ||
	    site_tree_pages(&w) < 0 || site_index_page(&w) < 0 || manifest_save(&w) < 0)
		goto out;
	ret = 0;
out:
	manifest_release(&w.old);
	manifest_release(&w.now);
	bg_strbuf_release(&w.page);
	return ret;
}
