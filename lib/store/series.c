/* Patches that come by mail (series.h). */
#include <math.h>
#include "store/series.h"
#include "util/xmalloc.h"

/* ---- a series as it arrives ---- */

int bg_store_series_find(struct bg_store *s, const char *message_id, int64_t *id)
{
	return bg_store_int(s, 0, id, "SELECT id FROM series WHERE message_id = ?", "s",
			    message_id);
}

int bg_store_series_insert(struct bg_store *s, const struct bg_series_new *n, int64_t *id)
{
	double now = bg_store_now();

	if (bg_store_exec(s, "INSERT INTO series (tree_id, message_id, version, total, subject, "
			  "author, title, addr, source, base, patchset_hash, state, superseded_by, "
			  "error, created, finished) VALUES (nullif(?, 0), ?, ?, ?, ?, ?, ?, ?, ?, "
			  "?, ?, ?, nullif(?, 0), ?, ?, ?)", "isiissssssssisdd", n->tree_id,
			  n->message_id, (int64_t)n->version, (int64_t)n->total, n->subject,
			  n->author, n->title, n->addr, n->source,
			  n->base, n->patchset_hash, n->superseded_by ? "superseded" : "queued",
			  n->superseded_by, n->superseded_by ? n->error : NULL, now,
			  n->superseded_by ? now : NAN) < 0)
		return -1;
	*id = bg_store_last_id(s);
	return 0;
}

int bg_store_series_patch_add(struct bg_store *s, int64_t series, unsigned idx,
			      const char *message_id, const char *subject, const char *author,
			      const char *mbox)
{
	return bg_store_exec(s, "INSERT INTO series_patches (series_id, idx, message_id, subject, "
			     "author, mbox) VALUES (?, ?, ?, ?, ?, ?)", "iissss", series,
			     (int64_t)idx, message_id ? message_id : "", subject, author, mbox);
}

struct versions {
	struct bg_series_version *v;
	size_t n, alloc;
};

static int take_version(const struct bg_store_row *r, void *data)
{
	struct versions *v = data;

	ALLOC_GROW(v->v, v->n + 1, v->alloc);
	v->v[v->n].id = bg_row_int(r, 0);
	v->v[v->n].version = bg_row_int(r, 1);
	v->v[v->n++].ended = bg_row_int(r, 2) != 0;
	return 0;
}

int bg_store_series_versions(struct bg_store *s, const char *title, const char *addr,
			     struct bg_series_version **v, size_t *n)
{
	struct versions all = { 0 };

	if (bg_store_query(s, take_version, &all, "SELECT id, version, state IN ('done', "
			   "'failed') FROM series WHERE title = ? "
			   "AND addr = ? AND state != 'superseded' ORDER BY version DESC, id DESC",
			   "ss", title, addr) < 0) {
		free(all.v);
		return -1;
	}
	*v = all.v;
	*n = all.n;
	return 0;
}

int bg_store_series_supersede(struct bg_store *s, int64_t old, int64_t by, const char *why)
{
	if (bg_store_exec(s, "UPDATE series SET state = 'superseded', superseded_by = ? WHERE "
			  "id = ?", "ii", by, old) < 0)
		return -1;
	return bg_store_exec(s, "UPDATE jobs SET state = 'done', error = ?, finished = ? WHERE "
			     "series_id = ? AND state = 'queued'", "sdi", why, bg_store_now(), old);
}

/* ---- a series' run ---- */

int bg_store_series_start(struct bg_store *s, int64_t id, int64_t tree_id, const char *base,
			  const char *board, const char *mode)
{
	return bg_store_exec(s, "UPDATE series SET state = 'running', tree_id = ?, base = ?, "
			     "board = ?, mode = ? WHERE id = ?", "isssi", tree_id, base, board, mode,
			     id);
}

int bg_store_series_patch_result(struct bg_store *s, int64_t series, unsigned idx,
				 const struct bg_series_patch_result *p)
{
	return bg_store_exec(s, "UPDATE series_patches SET commit_sha = ?, status = ?, error = ?, "
			     "comparison_id = nullif(?, 0), verdict = ?, metric = ?, delta = ?, "
			     "image_sha256 = ?, boots = ? WHERE series_id = ? AND idx = ?",
			     "sssissdsiii", p->commit, p->status, p->error, p->comparison_id,
			     p->verdict, p->metric, p->delta, p->image_sha256, p->boots, series,
			     (int64_t)idx);
}

int bg_store_series_end(struct bg_store *s, int64_t id, const struct bg_series_end *e)
{
	return bg_store_exec(s, "UPDATE series SET state = CASE state WHEN 'superseded' THEN state "
			     "ELSE ? END, error = ?, finished = ?, base_from = ?, base_image_sha256 "
			     "= ?, base_boots = ?, boots_per_commit = ?, whole_comparison_id = "
			     "nullif(?, 0) WHERE id = ?", "ssdssiiii", e->error ? "failed" : "done",
			     e->error, bg_store_now(), e->base_from, e->base_image_sha256,
			     e->base_boots, e->boots_per_commit, e->whole_comparison_id, id);
}

/* ---- the inbox reader's mails ---- */

int bg_store_inbox_message_add(struct bg_store *s, const struct bg_inbox_message *m,
			       bool *added)
{
	if (bg_store_exec(s, "INSERT INTO inbox_messages (message_id, inbox, in_reply_to, thread, "
			  "version, idx, total, subject, author, mbox, sha256, epoch, commit_sha, "
			  "seen) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO "
			  "NOTHING", "ssssiiissssisd", m->message_id, m->inbox, m->in_reply_to,
			  m->thread, (int64_t)m->version, (int64_t)m->idx, (int64_t)m->total,
			  m->subject, m->author, m->mbox, m->sha256, (int64_t)m->epoch, m->commit,
			  bg_store_now()) < 0)
		return -1;
	*added = bg_store_changes(s) > 0;
	return 0;
}

int bg_store_inbox_message_count(struct bg_store *s, const char *message_id, const char *inbox,
				 unsigned version, unsigned total, int64_t *n)
{
	return bg_store_int(s, 0, n, "SELECT count(*) FROM inbox_messages WHERE message_id = ?1 "
			    "AND (?2 IS NULL OR (inbox = ?2 AND version = ?3 AND total = ?4))",
			    "ssii", message_id, inbox, (int64_t)version, (int64_t)total);
}

int bg_store_inbox_thread(struct bg_store *s, const char *message_id, char **thread)
{
	return bg_store_text(s, thread, "SELECT thread FROM inbox_messages WHERE message_id = ?",
			     "s", message_id);
}

int bg_store_inbox_rethread(struct bg_store *s, const struct bg_inbox_group *g,
			    const char *from)
{
	return bg_store_exec(s, "UPDATE inbox_messages SET thread = ? WHERE inbox = ? AND thread = "
			     "? AND version = ? AND total = ?", "sssii", g->thread, g->inbox, from,
			     (int64_t)g->version, (int64_t)g->total);
}

int bg_store_inbox_group_patches(struct bg_store *s, const struct bg_inbox_group *g,
				 int64_t *n)
{
	return bg_store_int(s, 0, n, "SELECT count(DISTINCT idx) FROM inbox_messages WHERE inbox = "
			    "? AND thread = ? AND version = ? AND total = ? AND idx >= 1 AND "
			    "series_id IS NULL", "ssii", g->inbox, g->thread, (int64_t)g->version,
			    (int64_t)g->total);
}

int bg_store_inbox_group_rows(struct bg_store *s, const struct bg_inbox_group *g,
			      bg_store_row_fn fn, void *data)
{
	return bg_store_query(s, fn, data, "SELECT message_id, mbox FROM inbox_messages WHERE inbox "
			      "= ? AND thread = ? AND version = ? AND total = ? AND series_id IS "
			      "NULL ORDER BY seen, epoch, commit_sha", "ssii", g->inbox, g->thread,
			      (int64_t)g->version, (int64_t)g->total);
}

int bg_store_inbox_group_assign(struct bg_store *s, const struct bg_inbox_group *g,
				int64_t series)
{
	return bg_store_exec(s, "UPDATE inbox_messages SET series_id = ? WHERE inbox = ? AND "
			     "thread = ? AND version = ? AND total = ? AND series_id IS NULL",
			     "issii", series, g->inbox, g->thread, (int64_t)g->version,
			     (int64_t)g->total);
}

int bg_store_inbox_cursor(struct bg_store *s, const char *inbox, unsigned epoch, char **commit)
{
	return bg_store_text(s, commit, "SELECT last_commit FROM inbox_cursors WHERE inbox = ? AND "
			     "epoch = ?", "si", inbox, (int64_t)epoch);
}

int bg_store_inbox_cursor_set(struct bg_store *s, const char *inbox, unsigned epoch,
			      const char *commit)
{
	return bg_store_exec(s, "INSERT INTO inbox_cursors (inbox, epoch, last_commit) VALUES (?, "
			     "?, ?) ON CONFLICT (inbox, epoch) DO UPDATE SET last_commit = "
			     "excluded.last_commit", "sis", inbox, (int64_t)epoch, commit);
}
