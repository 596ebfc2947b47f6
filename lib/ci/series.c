/* Patch series, applied and measured patch by patch (series.h). */
#include <math.h>

#include "ci/series.h"
#include "conf/board.h"
#include "net/git.h"
#include "lab/record.h"
#include "lab/reuse.h"
#include "util/sha.h"
#include "conf/tree.h"
#include "store/results.h"
#include "store/series.h"
#include "util/error.h"
#include "util/log.h"
#include "util/strbuf.h"
#include "util/xmalloc.h"

/* The most patches a series may have: more is not a series a list carries. */
#define MAX_PATCHES 999

/* One commit of the run: [0] the base, [M] the tree after patch M. */
struct step {
	int idx;
	char *message_id, *subject, *author, *mbox;
	char commit[BG_OID_HEX];
	const char *status;        /* applied, failed, skipped; the base: NULL */
	char *error;
	bool built;                /* built with an image (not a commit that does not build) */
	struct bg_stored_build build;
	struct bg_sample_set set;
	int64_t boot_ids[64];      /* the stored boots in set */
	size_t nboot_ids;
};

/* A comparison of two steps and what it says. */
struct judged {
	int64_t id;                /* its comparisons row; 0 when nothing was compared */
	const char *verdict;
	char *metric;
	double delta;
};

struct run {
	struct bg_store *s;
	const struct bg_series_opts *o;
	int64_t id, tree_id, version, total;
	char *message_id, *subject, *author, *state, *stored_base, *tree_name;
	const char *lab, *base_from;
	char *board;
	unsigned boots;
	struct bg_tree tree;
	struct bg_reuse reuse;
	struct bg_compare_config cmp;
	char *cover_mbox;
	struct step *c;            /* total + 1 */
	int last;                  /* the last step applied */
	char *error;               /* why the series failed */
	struct judged *j;          /* [M]: patch M against M - 1; [0]: the whole series */
};

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

/* ---- taking a series in ---- */

/* Where line number line (1-based) of buf starts; len past the last. */
static size_t line_start(const char *buf, size_t len, size_t line)
{
	size_t k = 0;

	for (size_t l = 1; l < line && k < len; l++) {
		const char *nl = memchr(buf + k, '\n', len - k);

		k = nl ? (size_t)(nl - buf) + 1 : len;
	}
	return k;
}

/* Where a message begins: its "From " separator line when it has one. */
static size_t message_start(const char *buf, size_t len, size_t line)
{
	size_t at = line_start(buf, len, line), prev;

	if (line < 2)
		return at;
	prev = line_start(buf, len, line - 1);
	return len - prev >= 5 && !strncmp(buf + prev, "From ", 5) ? prev : at;
}

/* The bytes of msgs[i] as they came, from its separator line to the next message's. */
static void message_text(const struct bg_msg *msgs, size_t nmsgs, size_t i, const char *buf,
			 size_t len, const char **start, size_t *n)
{
	size_t from = message_start(buf, len, msgs[i].line);
	size_t to = i + 1 < nmsgs ? message_start(buf, len, msgs[i + 1].line) : len;

	*start = buf + from;
	*n = to > from ? to - from : 0;
}

static int add_patch(struct bg_store *s, int64_t id, unsigned idx, const struct bg_msg *m,
		     const struct bg_msg *msgs, size_t nmsgs, const char *buf, size_t len)
{
	const char *text;
	size_t n;
	char *mbox;
	int ret;

	message_text(msgs, nmsgs, (size_t)(m - msgs), buf, len, &text, &n);
	mbox = xstrndup(text, n);
	ret = bg_store_series_patch_add(s, id, idx, m->message_id, m->subject ? m->subject : "",
					m->from, mbox);
	free(mbox);
	return ret;
}

int bg_series_add(struct bg_store *s, const struct bg_series_msgs *sm,
		  const struct bg_msg *msgs, size_t nmsgs, const char *buf, size_t len,
		  const char *source, int64_t tree_id, int64_t *id)
{
	const struct bg_msg *head = sm->cover ? sm->cover : sm->patches[0];
	const char *mid = head->message_id;
	struct bg_series_new n;
	char *made = NULL;
	int ret = -1;

	/*
	 * A message without an id still names its series, by what it holds: its line alone
	 * would name every such series the same, and a second would get the first's result.
	 */
	if (!mid || !*mid) {
		char hex[BG_SHA256_HEX];

		bg_sha256_mem(buf, len, hex);
		mid = made = xasprintf("%s:%s", source, hex);
	}
	if (bg_store_series_find(s, mid, id) < 0)
		goto out;
	if (*id) {
		ret = 1;
		goto out;
	}
	if (bg_store_begin(s) < 0)
		goto out;
	n = (struct bg_series_new){
		.tree_id = tree_id, .message_id = mid, .version = sm->version,
		.total = sm->total, .subject = head->subject ? head->subject : "",
		.author = head->from,
		.source = source,
	};
	if (bg_store_series_insert(s, &n, id) < 0)
		goto fail;
	if (sm->cover && add_patch(s, *id, 0, sm->cover, msgs, nmsgs, buf, len) < 0)
		goto fail;
	for (unsigned i = 0; i < sm->total; i++)
		if (add_patch(s, *id, i + 1, sm->patches[i], msgs, nmsgs, buf, len) < 0)
			goto fail;
	ret = bg_store_commit(s);
	goto out;
fail:
	bg_store_rollback(s);
out:
	free(made);
	return ret;
}

/* ---- loading ---- */

/* Moves a string read from the store to where the run keeps it. */
static void take(char **to, char **from)
{
	free(*to);
	*to = *from;
	*from = NULL;
}

/* Takes over what the run keeps of a stored patch. */
static int take_patch(struct run *r, struct bg_stored_patch *p)
{
	struct step *c;

	if (p->idx == 0) {
		free(r->cover_mbox);
		r->cover_mbox = p->mbox;
		p->mbox = NULL;
		return 0;
	}
	if (p->idx < 1 || p->idx > r->total)
		return bg_error("series %" PRId64 ": patch %d is not from 1 to its total %" PRId64,
				r->id, p->idx, r->total);
	c = &r->c[p->idx];
	if (c->mbox)
		return bg_error("series %" PRId64 ": patch %d is stored twice", r->id, p->idx);
	take(&c->message_id, &p->message_id);
	take(&c->subject, &p->subject);
	take(&c->author, &p->author);
	take(&c->mbox, &p->mbox);
	return 0;
}

static int load(struct run *r)
{
	struct bg_stored_series se;
	struct bg_stored_patches ps = { 0 };
	int ret = -1, found;

	found = bg_store_series_get(r->s, r->id, &se);
	if (found <= 0) {
		bg_stored_series_release(&se);
		return found < 0 ? -1 : bg_error("series %" PRId64 " does not exist", r->id);
	}
	take(&r->message_id, &se.message_id);
	take(&r->subject, &se.subject);
	take(&r->author, &se.author);
	take(&r->state, &se.state);
	take(&r->stored_base, &se.base);
	take(&r->tree_name, &se.tree);
	r->version = se.version;
	r->total = se.total;
	r->tree_id = se.tree_id;
	bg_stored_series_release(&se);
	if (r->total < 1 || r->total > MAX_PATCHES)
		return bg_error("series %" PRId64 " has %" PRId64 " patches, not 1 to %d", r->id,
				r->total, MAX_PATCHES);
	r->c = xcalloc((size_t)r->total + 1, sizeof(*r->c));
	r->j = xcalloc((size_t)r->total + 1, sizeof(*r->j));
	for (int64_t i = 0; i <= r->total; i++) {
		r->c[i].idx = (int)i;
		bg_sample_set_init(&r->c[i].set);
	}
	if (bg_store_series_patches(r->s, r->id, true, &ps) < 0)
		goto out;
	for (size_t i = 0; i < ps.n; i++)
		if (take_patch(r, &ps.v[i]) < 0)
			goto out;
	for (int64_t i = 1; i <= r->total; i++)
		if (!r->c[i].mbox) {
			bg_error("series %" PRId64 ": patch %" PRId64 " of %" PRId64 " is missing",
				 r->id, i, r->total);
			goto out;
		}
	ret = 0;
out:
	bg_stored_patches_release(&ps);
	return ret;
}

/* The one message of a stored mbox. */
static int parse_stored(const struct run *r, int idx, const char *text, struct bg_msg **msgs,
			size_t *n)
{
	char *name = xasprintf("series %" PRId64 " patch %d", r->id, idx);
	int ret = bg_mbox_parse(name, text, strlen(text), msgs, n);

	if (ret == 0 && *n != 1) {
		bg_msgs_free(*msgs, *n);
		*msgs = NULL;
		ret = bg_error("%s: %zu messages where one was stored", name, *n);
	}
	free(name);
	return ret;
}

/* ---- the base ---- */

/* The base-commit: line of the cover letter, else of the first patch that has one. */
static char *base_commit(const struct run *r)
{
	char *found = NULL;

	for (int64_t i = 0; i <= r->total && !found; i++) {
		const char *text = i ? r->c[i].mbox : r->cover_mbox;
		struct bg_msg *m;
		size_t n;

		if (!text || parse_stored(r, (int)i, text, &m, &n) < 0)
			continue;
		found = dup_or_null(m[0].base_commit);
		bg_msgs_free(m, n);
	}
	return found;
}

/* 0 with the base; 1 when the series fails for it (r->error); -1 on errors. */
static int find_base(struct run *r)
{
	char *trailer = base_commit(r);
	const char *rev;
	int ret = 0;

	if (trailer) {
		rev = trailer;
		r->base_from = "base-commit";
	} else if (r->o->base) {
		rev = r->o->base;
		r->base_from = "--base";
	} else {
		/* a series run again stays on the tip it was first measured on */
		rev = r->stored_base ? r->stored_base : "HEAD";
		r->base_from = "tip";
	}
	if (bg_git_resolve(r->tree.real, rev, r->c[0].commit) < 0) {
		r->error = xasprintf("its base %s%s is not in the tree: %s",
				     trailer ? "commit " : "", rev, bg_error_last());
		ret = 1;
	}
	free(trailer);
	return ret;
}

/* ---- applying ---- */

/* Lines of s[0..n) without the blank ones at either end. */
static void trim_blank_lines(const char **s, size_t *n)
{
	while (*n) {
		size_t k = 0;

		while (k < *n && ((*s)[k] == ' ' || (*s)[k] == '\t'))
			k++;
		if (k == *n || (*s)[k] != '\n')
			break;
		*s += k + 1;
		*n -= k + 1;
	}
	while (*n && ((*s)[*n - 1] == '\n' || (*s)[*n - 1] == ' ' || (*s)[*n - 1] == '\t'))
		(*n)--;
}

/*
 * Who wrote the patch and when: the in-body From:/Date: of a forwarded patch, else the
 * mail's, both read as the mail's headers are.
 */
static int authorship(const struct bg_msg *m, const char *from, const char *date,
		      struct bg_msg *who)
{
	char *hdr = xasprintf("From: %s\nDate: %s\n\n", from ? from : m->from,
			      date ? date : m->date ? m->date : "");
	int ret = bg_msg_parse("in-body headers", hdr, strlen(hdr), who);

	free(hdr);
	return ret;
}

/* 0 applied; 1 it does not apply (c->error); -1 on errors of the repository. */
static int apply_one(struct run *r, int idx)
{
	struct step *c = &r->c[idx], *before = &r->c[idx - 1];
	struct bg_git_patch p = { 0 };
	struct bg_msg *msgs = NULL, who;
	struct bg_strbuf msg = BG_STRBUF_INIT;
	const char *body, *diff;
	size_t body_len, diff_len, n = 0;
	char *from = NULL, *date = NULL, *label, *ref;
	int ret = 1;

	memset(&who, 0, sizeof(who));
	label = xasprintf("patch %d/%" PRId64, idx, r->total);
	ref = xasprintf("refs/bootgate/series/%" PRId64 "/%d", r->id, idx);
	if (parse_stored(r, idx, c->mbox, &msgs, &n) < 0 ||
	    bg_msg_patch(&msgs[0], &body, &body_len, &diff, &diff_len, &from, &date) < 0) {
		c->error = xasprintf("%s cannot be applied: %s", label, bg_error_last());
		goto out;
	}
	if (authorship(&msgs[0], from, date, &who) < 0 || !*msgs[0].author_addr) {
		c->error = xasprintf("%s: its author cannot be read: %s", label,
				     who.from_addr ? "no address" : bg_error_last());
		goto out;
	}
	/* git am's message: its subject (mbox.h), then the body up to --- */
	trim_blank_lines(&body, &body_len);
	bg_strbuf_addf(&msg, "%s\n", msgs[0].commit_subject);
	if (body_len) {
		bg_strbuf_addstr(&msg, "\n");
		bg_strbuf_add(&msg, body, body_len);
		bg_strbuf_addstr(&msg, "\n");
	}
	p.label = label;
	p.diff = diff;
	p.diff_len = diff_len;
	p.message = msg.buf;
	p.author_name = msgs[0].author_name;
	p.author_email = msgs[0].author_addr;
	p.when = who.when;
	p.tz_minutes = who.tz_minutes;
	p.ref = ref;
	ret = bg_git_apply(r->tree.real, before->commit, &p, c->commit);
	if (ret == 1)
		c->error = xstrdup(bg_error_last());
out:
	if (ret == 1 && !c->error)
		c->error = xasprintf("%s does not apply", label);
	bg_msg_release(&who);
	bg_msgs_free(msgs, n);
	bg_strbuf_release(&msg);
	free(from);
	free(date);
	free(label);
	free(ref);
	return ret;
}

static int apply_all(struct run *r)
{
	r->last = 0;
	for (int i = 1; i <= r->total; i++) {
		struct step *c = &r->c[i];
		int ret;

		if (r->error) {
			c->status = "skipped";
			continue;
		}
		if ((ret = apply_one(r, i)) < 0)
			return -1;
		if (ret) {
			c->status = "failed";
			r->error = xstrdup(c->error);
			bg_progress_to(r->o, "%s", c->error);
			continue;
		}
		c->status = "applied";
		r->last = i;
		bg_progress_to(r->o, "patch %d/%" PRId64 " applied: %.12s %s", i, r->total,
			       c->commit, c->subject);
	}
	return 0;
}

/* ---- measuring ---- */

static int measure(struct run *r)
{
	for (int i = 0; i <= r->last; i++) {
		struct step *c = &r->c[i];
		char *what = i ? xasprintf("patch %d/%" PRId64, i, r->total) : xstrdup("the base");
		int ret = bg_reuse_build(&r->reuse, c->commit, what, &c->build);

		free(what);
		if (ret < 0)
			return -1;
		if (c->build.status == BG_BUILD_FAILED) {
			if (!i) {
				if (!r->error)
					r->error = xasprintf("its base %.12s does not build", c->commit);
				return 1;
			}
			free(c->error);
			c->error = xasprintf("patch %d/%" PRId64 " does not build", i, r->total);
			bg_progress_to(r->o, "%s", c->error);
			continue;
		}
		c->built = true;
		if (bg_reuse_boots(&r->reuse, c->build.image, c->build.image_sha256, r->boots) < 0 ||
		    bg_reuse_load_ids(&r->reuse, c->build.image_sha256,
				      r->boots < 64 ? r->boots : 64, &c->set, c->boot_ids,
				      &c->nboot_ids) < 0)
			return -1;
		if (!i && !c->set.boots) {
			if (!r->error)
				r->error = xasprintf("no boot of the base %.12s reached userspace",
						     c->commit);
			return 1;
		}
	}
	return 0;
}

/* Specific metrics (an initcall, a probe) say more than the whole boot's. */
static bool ranks_above(const struct bg_verdict *a, const struct bg_verdict *b)
{
	bool sa = strncmp(a->metric, "boot.", 5) != 0, sb = strncmp(b->metric, "boot.", 5) != 0;

	if (sa != sb)
		return sa;
	return fabs(a->delta) > fabs(b->delta);
}

/*
 * A regression when any metric is slower, else an improvement when any is faster, else
 * unknown when one is undecided, else the same; the metric named is the one that moved
 * most in that direction.
 */
static void judge(const struct bg_comparison *cmp, struct judged *j)
{
	const struct bg_verdict *slower = NULL, *faster = NULL, *most;
	bool unknown = false;

	for (size_t i = 0; i < cmp->n; i++) {
		const struct bg_verdict *v = &cmp->v[i];

		unknown |= v->verdict == BG_UNKNOWN;
		if (v->verdict != BG_DIFFERENT)
			continue;
		if (v->delta > 0 && (!slower || ranks_above(v, slower)))
			slower = v;
		if (v->delta < 0 && (!faster || ranks_above(v, faster)))
			faster = v;
	}
	most = slower ? slower : faster;
	j->verdict = slower ? "regression" : faster ? "improvement" : unknown ? "unknown" : "same";
	if (most) {
		j->metric = xstrdup(most->metric);
		j->delta = most->delta;
	}
}

/* Compares step a with step b into a comparisons row (in the caller's transaction). */
static int compare(struct run *r, int a, int b, struct judged *j)
{
	struct step *x = &r->c[a], *y = &r->c[b];
	struct bg_stored_comparison c;
	int ret;

	j->verdict = "unknown";
	if (!x->built || !y->built || !x->set.boots || !y->set.boots)
		return 0;
	bg_stored_comparison_init(&c);
	if (bg_compare(&x->set, &y->set, &r->cmp, &c.cmp) < 0)
		return -1;
	judge(&c.cmp, j);
	c.role = BG_ROLE_SERIES;
	c.tree_id = r->tree_id;
	c.base = xstrdup(x->commit);
	c.cand = xstrdup(y->commit);
	c.board = xstrdup(r->board);
	c.mode = xstrdup(bg_reuse_mode(&r->reuse));
	c.console = xstrdup(bg_console_name(r->o->console));
	c.verdict = xstrdup(j->verdict);
	c.metric = j->metric ? xstrdup(j->metric) : NULL;
	c.delta = j->metric ? j->delta : NAN;
	c.boots[BG_BASE] = x->set.boots;
	c.boots[BG_CAND] = y->set.boots;
	c.excluded[BG_BASE] = x->set.excluded;
	c.excluded[BG_CAND] = y->set.excluded;
	for (size_t i = 0; i < x->nboot_ids; i++)
		bg_stored_comparison_add_boot(&c, BG_BASE, x->boot_ids[i]);
	for (size_t i = 0; i < y->nboot_ids; i++)
		bg_stored_comparison_add_boot(&c, BG_CAND, y->boot_ids[i]);
	ret = bg_store_comparison_add(r->s, &c);
	if (!ret)
		j->id = c.id;
	bg_stored_comparison_release(&c);
	return ret;
}

/* The verdicts, the result, the final state and the one outbox row, together. */
static int conclude(struct run *r)
{
	struct bg_series_end e;
	int ret = -1;

	if (bg_store_begin(r->s) < 0)
		return -1;
	/* the patches applied are judged even when a later one did not apply */
	for (int i = 1; i <= r->last; i++)
		if (compare(r, i - 1, i, &r->j[i]) < 0)
			goto fail;
	if (!r->error && r->last && compare(r, 0, r->last, &r->j[0]) < 0)
		goto fail;
	for (int i = 1; i <= r->total; i++) {
		const struct step *c = &r->c[i];
		const struct judged *j = &r->j[i];
		bool applied = c->status && !strcmp(c->status, "applied");
		struct bg_series_patch_result p = {
			.commit = applied ? c->commit : NULL, .status = c->status,
			.error = c->error, .comparison_id = j->id,
			.verdict = i <= r->last ? j->verdict : NULL, .metric = j->metric,
			.delta = j->metric ? j->delta : NAN,
			.image_sha256 = c->built ? c->build.image_sha256 : NULL,
			.boots = (int64_t)c->set.boots,
		};

		if (bg_store_series_patch_result(r->s, r->id, i, &p) < 0)
			goto fail;
	}
	e = (struct bg_series_end){
		.error = r->error, .base_from = r->base_from,
		.base_image_sha256 = r->c[0].built ? r->c[0].build.image_sha256 : NULL,
		.base_boots = (int64_t)r->c[0].set.boots, .boots_per_commit = (int64_t)r->boots,
		.whole_comparison_id = !r->error && r->last ? r->j[0].id : 0,
	};
	if (bg_store_series_end(r->s, r->id, &e) < 0 ||
	    bg_store_outbox_add_once(r->s, "series", r->id) < 0)
		goto fail;
	ret = bg_store_commit(r->s);
	if (!ret)
		bg_record_event(r->s, r->error ? "warning" : "info", r->tree_id, 0,
				"series %" PRId64 " %s%s", r->id, r->error ? "failed: " : "done",
				r->error ? r->error : "");
	return ret;
fail:
	bg_store_rollback(r->s);
	return -1;
}

/* ---- the run ---- */

static int start(struct run *r)
{
	const struct bg_series_opts *o = r->o;
	struct bg_board board;

	r->lab = o->lab ? o->lab : bg_lab_dir();
	if (bg_board_load(r->lab, o->board, &board) < 0)
		return -1;
	if (bg_board_check_mode(&board, o->deterministic) < 0) {
		bg_board_release(&board);
		return -1;
	}
	r->board = xstrdup(board.name);
	bg_board_release(&board);
	if (bg_tree_open(o->tree, &r->tree) < 0)
		return -1;
	if (o->tree_name || !r->tree_id) {
		free(r->tree_name);
		r->tree_name = xstrdup(o->tree_name ? o->tree_name : r->tree.id);
		if (bg_record_tree(r->s, r->tree_name, r->tree.real, &r->tree_id) < 0)
			return -1;
	}
	r->boots = o->boots ? o->boots : o->deterministic ? 2 : 5;
	r->reuse = (struct bg_reuse){ r->s, r->tree.real, r->board, r->lab, o->config,
				      o->deterministic, o->progress, o->progress_data, o->console };
	if (o->compare)
		bg_compare_config_copy(&r->cmp, o->compare);
	else
		bg_compare_config_init(&r->cmp);
	r->cmp.deterministic = o->deterministic;
	return 0;
}

static void release(struct run *r)
{
	for (int64_t i = 0; r->c && i <= r->total; i++) {
		struct step *c = &r->c[i];

		free(c->message_id);
		free(c->subject);
		free(c->author);
		free(c->mbox);
		free(c->error);
		bg_stored_build_release(&c->build);
		bg_sample_set_release(&c->set);
		free(r->j[i].metric);
	}
	free(r->c);
	free(r->j);
	free(r->message_id);
	free(r->subject);
	free(r->author);
	free(r->state);
	free(r->stored_base);
	free(r->tree_name);
	free(r->board);
	free(r->cover_mbox);
	free(r->error);
	bg_tree_release(&r->tree);
	bg_compare_config_release(&r->cmp);
}

int bg_series_run(struct bg_store *s, const struct bg_series_opts *o, int64_t id)
{
	struct run r;
	int ret = -1, e;

	memset(&r, 0, sizeof(r));
	r.s = s;
	r.o = o;
	r.id = id;
	bg_compare_config_init(&r.cmp);
	if (load(&r) < 0)
		goto out;
	if (!strcmp(r.state, "done") || !strcmp(r.state, "failed") ||
	    !strcmp(r.state, "superseded")) {
		bg_progress_to(r.o, "series %" PRId64 " is %s", id, r.state);
		ret = 1;
		goto out;
	}
	bg_compare_config_release(&r.cmp);
	if (start(&r) < 0)
		goto out;
	bg_progress_to(r.o, "series %" PRId64 ": %s (%" PRId64 " patch%s)", id, r.subject, r.total,
		       r.total == 1 ? "" : "es");
	if ((e = find_base(&r)) < 0)
		goto out;
	if (bg_store_series_start(s, id, r.tree_id, e ? NULL : r.c[0].commit, r.board,
				  bg_reuse_mode(&r.reuse)) < 0)
		goto out;
	if (!e) {
		bg_progress_to(r.o, "base %.12s (%s)", r.c[0].commit, r.base_from);
		/* with no patch applied there is nothing to measure */
		if (apply_all(&r) < 0 || (r.last && measure(&r) < 0))
			goto out;
	}
	if (conclude(&r) < 0)
		goto out;
	ret = 0;
out:
	release(&r);
	return ret;
}
