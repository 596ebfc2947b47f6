/*
 * The reports' rows: the outbox (what to report on, queued by a bisection or a series
 * that ended) and the mails made of it, each sent once and tried again later while the
 * server refuses; and the lab pages of the boots a report cites (the other lookups of
 * the mailer are results.h's, views.h's and service.h's).
 */
#ifndef BG_STORE_MAIL_H
#define BG_STORE_MAIL_H

#include "util/compat.h"
#include "util/strvec.h"
#include "store/store.h"

/* ---- the outbox ---- */

struct bg_outbox_row {
	int64_t id, ref;          /* ref: the bisection or series it is about */
	char kind[32];            /* bisection, series */
};

struct bg_outbox_rows {
	struct bg_outbox_row *v;
	size_t n, alloc;
};

/* The rows not done yet, oldest first. */
int bg_store_outbox_waiting(struct bg_store *s, struct bg_outbox_rows *out);
void bg_outbox_rows_release(struct bg_outbox_rows *l);
/* Row id done without a mail, with why; left alone when another mailer did it first. */
int bg_store_outbox_skip(struct bg_store *s, int64_t id, const char *why);

/* ---- mails ---- */

/* A mail as the mailer composed it, for its outbox row. */
struct bg_mail_row {
	int64_t outbox_id;
	const char *about;        /* "culprit SHA METRIC", "series ID": one mail each */
	const char *message_id;   /* without <> */
	const char *from;         /* the envelope sender */
	const char *rcpt;         /* the envelope recipients, one a line */
	const char *subject, *message;
};

/*
 * The mail stored and its outbox row marked done, in one transaction: 1 with *id, 0 when
 * the row was done meanwhile (another mailer took it: nothing stored), -1 with why.
 */
int bg_store_mail_add(struct bg_store *s, const struct bg_mail_row *m, int64_t *id);
/* The mail about the same thing: its id, 0 when there is none. */
int bg_store_mail_about(struct bg_store *s, const char *about, int64_t *id);

/* An unsent mail whose time has come; the strings are owned by the list. */
struct bg_due_mail {
	int64_t id, attempts;
	char *from, *rcpt, *message, *message_id, *subject;
};

struct bg_due_mails {
	struct bg_due_mail *v;
	size_t n, alloc;
};

/* The unsent mails due at now (not_before at most now), oldest first. */
int bg_store_mails_due(struct bg_store *s, double now, struct bg_due_mails *out);
void bg_due_mails_release(struct bg_due_mails *l);
/*
 * Takes mail id for one try, until then (Unix seconds), so that no other mailer sends it
 * meanwhile: 1 taken, 0 not (sent, or taken by another), -1 with why.
 */
int bg_store_mail_lease(struct bg_store *s, int64_t id, double until);
/* The server took it: sent now, one more attempt, no error. */
int bg_store_mail_sent(struct bg_store *s, int64_t id);
/* A try that failed: one more attempt, why, and the next try not before not_before. */
int bg_store_mail_failed(struct bg_store *s, int64_t id, double not_before, const char *error);
/* How many mails are not sent, due or not. */
int bg_store_mails_unsent(struct bg_store *s, int64_t *n);
/* Work waiting at now: outbox rows not done plus unsent mails that are due. */
int bg_store_mail_pending(struct bg_store *s, double now, int64_t *n);

/* ---- what a report cites ---- */
/*
 * The lab pages (job_url) of the boots bisection id was told of, each once, in the order
 * they were first reported; pushed onto urls.
 */
int bg_store_bisection_job_urls(struct bg_store *s, int64_t id, struct bg_strvec *urls);
/*
 * The lab pages of the boots on board in mode of the images built from base or from the
 * tree after a patch of series id, each once, oldest boot first; pushed onto urls.
 */
int bg_store_series_job_urls(struct bg_store *s, int64_t id, const char *board,
			     const char *mode, const char *base, struct bg_strvec *urls);

#endif
