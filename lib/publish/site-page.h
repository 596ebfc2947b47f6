/*
 * What the pages of the site share: the run, its files and manifest, and the pieces of
 * HTML every page is made of. Private to lib/publish/site*.c: one file per kind of page
 * (site-index.c, site-tree.c, site-comparison.c, site-bisection.c, site-series.c).
 */
#ifndef BG_SITE_PAGE_H
#define BG_SITE_PAGE_H

#include "util/compat.h"
#include "util/strbuf.h"
#include "util/strmap.h"
#include "publish/site.h"
#include "store/results.h"

struct site_manifest_entry {
	char *rel;
	uint64_t in, out;
};

struct site_manifest {
	struct site_manifest_entry *e;
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
	struct site_manifest old, now;
};

/* ---- files ---- */

/* Writes outdir/rel unless it already holds exactly data; kept in the manifest. */
int site_put(struct site *w, const char *rel, const char *data, size_t len);
/* The page being made (w->page) as rel. */
int site_put_page(struct site *w, const char *rel);
/*
 * What a result's page is made from: this program and the words given (the row's
 * columns that can change), NULL-terminated; 0 when nothing can be skipped.
 */
uint64_t site_inputs(const struct site *w, ...);
/*
 * A result's two files (KIND/ID.html and .json): both kept when they were made from
 * w->in and hold on disk what was made (true), else false and nothing done.
 */
bool site_keep_result(struct site *w, const char *rel, const char *rel_json);

/* ---- pieces ---- */

void site_page_begin(struct site *w, const char *rel, const char *title);
/* The page's footer, with the link to its JSON when json is given. */
void site_page_end(struct site *w, const char *json);
/* A Unix time as "2026-12-06 01:48 UTC", "-" for NAN. */
void site_time(struct bg_strbuf *p, double t);
/* A number of µs as a whole number, or "-" for NAN. */
void site_us(struct bg_strbuf *p, double v, bool sign);
/* A commit: its first 12 characters, the whole in a title. */
void site_sha(struct bg_strbuf *p, const char *sha);
/* A tree's name, linked to its page when the name can be a file name. */
void site_tree(struct bg_strbuf *p, const char *up, const char *name);
void site_link_id(struct bg_strbuf *p, const char *up, const char *kind, int64_t id);
void site_td(struct bg_strbuf *p, const char *cls, const char *text);
/* The gate's words for a comparison: pass is "same" to a reader. */
const char *site_verdict_word(const char *v);
/* <td class="v-WORD">WORD</td>, the word escaped (a class is a plain name or none). */
void site_verdict_cell(struct bg_strbuf *p, const char *v);
void site_dl(struct bg_strbuf *p, const char *term, const char *text);
/* <dt>TERM</dt><dd>sha12 subject</dd> */
void site_dl_commit(struct bg_strbuf *p, const char *term, const char *sha, const char *subject);
/* A commit's subject as the store noted it, escaped; nothing when unknown. */
void site_subject_of(struct site *w, struct bg_strbuf *p, const char *sha);
/*
 * The table of boots, rows given (nothing when there are none): the first column what
 * ran (a side, or a commit), then board, outcome, wall time and the LAVA job.
 */
void site_boots_table(struct bg_strbuf *p, const char *what, const struct bg_strbuf *rows);
/* One row's cells after the first; a job URL that is not http(s) is shown, not linked. */
void site_boot_cells(struct bg_strbuf *p, const char *board, const char *outcome, double wall,
		     const char *job_url);

/* ---- the pages ---- */

int site_index_page(struct site *w);
int site_tree_pages(struct site *w);
/* A result's page; 0 also when its row left the store since its id was read. */
int site_comparison_page(struct site *w, int64_t id);
int site_bisection_page(struct site *w, int64_t id);
int site_series_page(struct site *w, int64_t id);
/* The verdicts of a comparison as the comparison page shows them (for a bisection's too). */
void site_comparison_body(struct site *w, struct bg_strbuf *p, const struct bg_stored_comparison *c);

#endif
