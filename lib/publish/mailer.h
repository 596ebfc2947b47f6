/*
 * The mailer: turns the store's outbox rows (a finished bisection, a measured series)
 * into mails kept in the store, and sends those that are due through SMTP, each once,
 * again later with a doubling delay while the server refuses or is down.
 */
#ifndef BG_MAILER_H
#define BG_MAILER_H

#include <signal.h>

#include "util/compat.h"
#include "conf/service-conf.h"
#include "store/store.h"

#define BG_MAILER_BACKOFF 30        /* s before the second try, doubled after each */
#define BG_MAILER_BACKOFF_MAX 3600

/* What happened to one outbox row or one mail, for the caller to print. */
struct bg_mailer_event {
	const char *what;       /* composed, skipped, dry-run, sent, waiting */
	int64_t outbox_id;      /* 0 for a send */
	int64_t mail_id;        /* 0 when none was made */
	const char *kind;       /* bisection, series (composing) */
	int64_t ref;
	const char *message_id; /* without <> */
	const char *subject;    /* decoded, as composed */
	const char *note;       /* why skipped; the error of a try that failed */
	const char *message;    /* dry-run: the whole message */
	int64_t attempts;
	double not_before;      /* waiting: the next try, Unix seconds */
};
typedef void (*bg_mailer_fn)(const struct bg_mailer_event *e, void *data);

/*
 * A mail for each outbox row not done yet, stored in mails with the row marked done in
 * one transaction; a row that makes no mail is marked done with why. dry_run: composed
 * and told, nothing stored. The number of rows made into mails, or -1 on a store error
 * or when report.from is not configured while rows wait.
 */
int bg_mailer_compose(struct bg_store *s, const struct bg_service_conf *c, bool dry_run,
		      bg_mailer_fn fn, void *data);
/*
 * Sends every unsent mail whose time has come. backoff: the first retry's delay (s).
 * stop (NULL: none) is looked at before each mail, never during one: a caller whose
 * signal handler sets it lets the mail under way finish and be marked sent, so that a
 * signal between the server's answer and the mark cannot make it go twice.
 * Returns how many still wait for a later try (0: all went), -1 on a store error.
 */
int bg_mailer_send(struct bg_store *s, const struct bg_service_conf *c, double backoff,
		   const volatile sig_atomic_t *stop, bg_mailer_fn fn, void *data);
/* Rows and mails waiting: undone outbox rows plus unsent mails already due. */
int bg_mailer_pending(struct bg_store *s, int64_t *n);

#endif
