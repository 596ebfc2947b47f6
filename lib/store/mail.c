/* The outbox, the mails made of it and what the mailer looks up to write them (mail.h). */
#include "store/mail.h"
#include "util/xmalloc.h"

/* ---- the outbox ---- */

static int take_outbox(const struct bg_store_row *r, void *data)
{
	struct bg_outbox_rows *l = data;
	struct bg_outbox_row *o;

	ALLOC_GROW(l->v, l->n + 1, l->alloc);
	o = &l->v[l->n++];
	o->id = bg_row_int(r, 0);
	o->ref = bg_row_int(r, 2);
	snprintf(o->kind, sizeof(o->kind), "%s", bg_row_text(r, 1));
	return 0;
}

int bg_store_outbox_waiting(struct bg_store *s, struct bg_outbox_rows *out)
{
	return bg_store_query(s, take_outbox, out, "SELECT id, kind, ref FROM outbox WHERE done "
			      "IS NULL ORDER BY id", "");
}

void bg_outbox_rows_release(struct bg_outbox_rows *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}

int bg_store_outbox_skip(struct bg_store *s, int64_t id, const char *why)
{
	return bg_store_exec(s, "UPDATE outbox SET done = ?, note = ? WHERE id = ? AND done IS "
			     "NULL", "dsi", bg_store_now(), why, id);
}

/* ---- mails ---- */

int bg_store_mail_add(struct bg_store *s, const struct bg_mail_row *m, int64_t *id)
{
	int64_t done = 0;

	*id = 0;
	if (bg_store_begin(s) < 0)
		return -1;
	/* another mailer may have taken the row since it was read */
	if (bg_store_int(s, 1, &done, "SELECT done IS NOT NULL FROM outbox WHERE id = ?", "i",
			 m->outbox_id) < 0)
		goto fail;
	if (!done) {
		if (bg_store_exec(s, "INSERT INTO mails (outbox_id, about, message_id, mail_from, "
				  "rcpt, subject, message) VALUES (?, ?, ?, ?, ?, ?, ?)", "issssss",
				  m->outbox_id, m->about, m->message_id, m->from, m->rcpt,
				  m->subject, m->message) < 0)
			goto fail;
		*id = bg_store_last_id(s);
		if (bg_store_exec(s, "UPDATE outbox SET done = ? WHERE id = ?", "di",
				  bg_store_now(), m->outbox_id) < 0)
			goto fail;
	}
	if (bg_store_commit(s) < 0) {
		*id = 0;
		return -1;
	}
	return !done;
fail:
	*id = 0;
	bg_store_rollback(s);
	return -1;
}

int bg_store_mail_about(struct bg_store *s, const char *about, int64_t *id)
{
	return bg_store_int(s, 0, id, "SELECT id FROM mails WHERE about = ?", "s", about);
}

static int take_due(const struct bg_store_row *r, void *data)
{
	struct bg_due_mails *l = data;
	struct bg_due_mail *d;

	ALLOC_GROW(l->v, l->n + 1, l->alloc);
	d = &l->v[l->n++];
	d->id = bg_row_int(r, 0);
	d->attempts = bg_row_int(r, 1);
	d->from = xstrdup(bg_row_text(r, 2));
	d->rcpt = xstrdup(bg_row_text(r, 3));
	d->message = xstrdup(bg_row_text(r, 4));
	d->message_id = xstrdup(bg_row_text(r, 5));
	d->subject = xstrdup(bg_row_text(r, 6));
	return 0;
}

int bg_store_mails_due(struct bg_store *s, double now, struct bg_due_mails *out)
{
	return bg_store_query(s, take_due, out, "SELECT id, attempts, mail_from, rcpt, message, "
			      "message_id, subject FROM mails WHERE sent IS NULL AND "
			      "not_before <= ? ORDER BY id", "d", now);
}

void bg_due_mails_release(struct bg_due_mails *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].from);
		free(l->v[i].rcpt);
		free(l->v[i].message);
		free(l->v[i].message_id);
		free(l->v[i].subject);
	}
	free(l->v);
	memset(l, 0, sizeof(*l));
}

int bg_store_mail_lease(struct bg_store *s, int64_t id, double until)
{
	if (bg_store_exec(s, "UPDATE mails SET not_before = ? WHERE id = ? AND sent IS NULL AND "
			  "not_before <= ?", "did", until, id, bg_store_now()) < 0)
		return -1;
	return bg_store_changes(s) == 1;
}

int bg_store_mail_sent(struct bg_store *s, int64_t id)
{
	return bg_store_exec(s, "UPDATE mails SET sent = ?, attempts = attempts + 1, error = NULL "
			     "WHERE id = ?", "di", bg_store_now(), id);
}

int bg_store_mail_failed(struct bg_store *s, int64_t id, double not_before, const char *error)
{
	return bg_store_exec(s, "UPDATE mails SET attempts = attempts + 1, not_before = ?, "
			     "error = ? WHERE id = ?", "dsi", not_before, error, id);
}

int bg_store_mails_unsent(struct bg_store *s, int64_t *n)
{
	return bg_store_int(s, 0, n, "SELECT count(*) FROM mails WHERE sent IS NULL", "");
}

int bg_store_mail_pending(struct bg_store *s, double now, int64_t *n)
{
	return bg_store_int(s, 0, n, "SELECT (SELECT count(*) FROM outbox WHERE done IS NULL) + "
			    "(SELECT count(*) FROM mails WHERE sent IS NULL AND not_before <= ?)",
			    "d", now);
}

/* ---- what a report cites ---- */

static int take_url(const struct bg_store_row *r, void *data)
{
	bg_strvec_push(data, bg_row_text(r, 0));
	return 0;
}

int bg_store_bisection_job_urls(struct bg_store *s, int64_t id, struct bg_strvec *urls)
{
	return bg_store_query(s, take_url, urls, "SELECT o.job_url FROM bisection_reports r "
			      "JOIN boots o ON o.id = r.boot_id WHERE r.bisection_id = ? AND "
			      "o.job_url IS NOT NULL GROUP BY o.job_url ORDER BY min(r.seq)", "i",
			      id);
}

int bg_store_series_job_urls(struct bg_store *s, int64_t id, const char *board,
			     const char *mode, const char *base, struct bg_strvec *urls)
{
	return bg_store_query(s, take_url, urls, "SELECT o.job_url FROM boots o WHERE "
			      "o.board = ?1 AND o.mode = ?2 AND o.job_url IS NOT NULL AND "
			      "o.image_sha256 IN (SELECT image_sha256 FROM builds WHERE "
			      "board = ?1 AND (commit_sha = ?3 OR commit_sha IN (SELECT commit_sha "
			      "FROM series_patches WHERE series_id = ?4))) GROUP BY o.job_url "
			      "ORDER BY min(o.id)", "sssi", board, mode, base, id);
}
