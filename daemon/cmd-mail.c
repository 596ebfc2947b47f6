/*
 * bootgate mail: the reports of the outbox as mails. Each row not done yet is composed
 * into a mail kept in the store (or printed, --dry-run); --send sends the mails whose
 * time has come, once each, and leaves those the server did not take for a later try.
 */
#include <getopt.h>
#include <math.h>
#include <signal.h>

#include "cmd.h"
#include "conf/board.h"
#include "publish/mailer.h"
#include "conf/service-conf.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/log.h"
#include "util/num.h"
#include "util/path.h"
#include "util/text.h"
#include "util/xmalloc.h"

struct out {
	struct bg_json *j;      /* NULL: text */
	unsigned waiting;
};

static void tell(const struct bg_mailer_event *e, void *data)
{
	struct out *o = data;

	o->waiting += !strcmp(e->what, "waiting");
	if (o->j) {
		bg_json_object_begin(o->j);
		bg_json_key(o->j, "what");
		bg_json_str(o->j, e->what);
		if (e->outbox_id) {
			bg_json_key(o->j, "outbox");
			bg_json_int(o->j, e->outbox_id);
			bg_json_key(o->j, "kind");
			bg_json_str(o->j, e->kind);
			bg_json_key(o->j, "ref");
			bg_json_int(o->j, e->ref);
		}
		if (e->mail_id) {
			bg_json_key(o->j, "mail");
			bg_json_int(o->j, e->mail_id);
		}
		bg_json_key(o->j, "message_id");
		bg_json_str(o->j, e->message_id);
		bg_json_key(o->j, "subject");
		bg_json_str(o->j, e->subject);
		bg_json_key(o->j, "note");
		bg_json_str(o->j, e->note);
		if (e->attempts) {
			bg_json_key(o->j, "attempts");
			bg_json_int(o->j, e->attempts);
		}
		if (e->not_before > 0) {
			bg_json_key(o->j, "not_before");
			bg_json_double(o->j, e->not_before);
		}
		if (e->message) {
			bg_json_key(o->j, "message");
			bg_json_str(o->j, e->message);
		}
		bg_json_object_end(o->j);
		return;
	}
	if (e->message) {
		/* the message as it would go: escaped for the terminal, CRs dropped */
		struct bg_strbuf sb = BG_STRBUF_INIT;

		for (const char *p = e->message; *p; p++)
			if (*p != '\r')
				bg_strbuf_addch(&sb, *p);
		bg_text_printf(stdout, "-- outbox %" PRId64 " (%s %" PRId64 ")\n%s\n", e->outbox_id,
			       e->kind, e->ref, sb.buf);
		bg_strbuf_release(&sb);
	} else if (e->outbox_id) {
		bg_text_printf(stdout, "outbox %" PRId64 " (%s %" PRId64 "): %s%s%s%s\n",
			       e->outbox_id, e->kind, e->ref, e->what,
			       e->message_id ? " <" : "", e->message_id ? e->message_id : "",
			       e->message_id ? ">" : "");
		if (e->note)
			bg_text_printf(stdout, "  %s\n", e->note);
	} else if (!strcmp(e->what, "sent")) {
		bg_text_printf(stdout, "mail %" PRId64 ": sent <%s> (try %" PRId64 ")\n", e->mail_id,
			       e->message_id, e->attempts);
	} else {
		bg_text_printf(stdout, "mail %" PRId64 ": waiting <%s>: try %" PRId64 " failed: %s; "
			       "again in %.0f s\n", e->mail_id, e->message_id, e->attempts, e->note,
			       e->not_before - bg_store_now());
	}
}

/* Set by SIGTERM, SIGINT or SIGHUP while sending: the mail under way ends first. */
static volatile sig_atomic_t stopping;

static void on_stop(int sig)
{
	(void)sig;
	stopping = 1;
}

/*
 * One sender per store, for as long as it lives: bootgated's mail child gets SIGTERM when
 * bootgated dies and finishes its mail first, and the child of a restarted bootgated must
 * not send beside it. The lock (DB-mail.lock) goes with the process: no stale lock. The
 * descriptor, or -1 when another sender holds it or it cannot be opened.
 */
static int lock_sending(const char *db)
{
	char *path = xasprintf("%s-mail.lock", db);
	int fd, ret = bg_lock_file(path, false, NULL, NULL, &fd);

	if (ret == BG_LOCK_BUSY)
		log_errorx("another 'bootgate mail --send' holds '%s': its mails are its own", path);
	else if (ret < 0)
		log_errorx("%s", bg_error_last());
	free(path);
	return fd;
}

/*
 * From here a stop signal waits for the mail under way (bg_mailer_send's stop), however
 * often it comes: a SIGKILLed bootgated's death signal reaches this child once for each
 * of the daemon's threads it is handed to as they die, so a second one is no user's.
 */
static void defer_stop_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

static void mail_help(FILE *out)
{
	fprintf(out, "\n"
	       "  --config FILE   the service's configuration (report:, each tree's mail:)\n"
	       "  --db FILE       the store (STATE/bootgate.db of the configuration)\n"
	       "  --dry-run       print the mails the outbox would make; store nothing\n"
	       "  --send          also send the mails whose time has come\n"
	       "  --json          what was done, as JSON\n"
	       "\nA mail is made for a bisection that found a culprit with at least\n"
	       "report.min-confidence, and for a measured series; one per culprit and\n"
	       "metric. A mail the server does not take waits 30 s, then twice as long\n"
	       "after each failure, up to an hour (BOOTGATE_MAIL_BACKOFF=S: the first).\n"
	       "\nexit: 0 done (all sent, with --send), 1 an error or a mail waits for a\n"
	       "later try, 2 usage\n");
}

static const struct option mail_opts[] = {
	{ "db", required_argument, NULL, 'd' },
	{ "config", required_argument, NULL, 'c' },
	{ "dry-run", no_argument, NULL, 'n' },
	{ "send", no_argument, NULL, 's' },
	{ "json", no_argument, NULL, 'j' },
	{ NULL, 0, NULL, 0 },
};

static int cmd_mail(int argc, char **argv)
{
	struct bg_service_conf conf;
	struct bg_store *s = NULL;
	struct bg_json j;
	struct out o = { NULL, 0 };
	const char *config = NULL, *b;
	char *db = NULL;
	bool dry_run = false, send = false, json = false;
	double backoff = BG_MAILER_BACKOFF;
	int opt, ret = 1, waiting = 0, lock = -1;

	memset(&conf, 0, sizeof(conf));
	while ((opt = getopt_long(argc, argv, "d:c:nsj", mail_opts, NULL)) != -1) {
		switch (opt) {
		case 'd': free(db); db = xstrdup(optarg); break;
		case 'c': config = optarg; break;
		case 'n': dry_run = true; break;
		case 's': send = true; break;
		case 'j': json = true; break;
		default:
			ret = cmd_option_error("mail", argv);
			goto out;
		}
	}
	if (optind < argc) {
		ret = cmd_usage_error("mail", "unexpected argument '%s'", argv[optind]);
		goto out;
	}
	if (dry_run && send) {
		ret = cmd_usage_error("mail", "--dry-run sends nothing: not with --send");
		goto out;
	}
	/* the tests' shortcut: BOOTGATE_MAIL_BACKOFF=SECONDS for the first retry */
	if ((b = getenv("BOOTGATE_MAIL_BACKOFF"))) {
		unsigned long v;

		if (bg_num_parse_ulong(b, 0, BG_MAILER_BACKOFF_MAX, &v) == 0)
			backoff = (double)v;
		else
			log_warnx("BOOTGATE_MAIL_BACKOFF='%s' is not a number of seconds: %d s", b,
				  BG_MAILER_BACKOFF);
	}
	if (!config)
		config = bg_project_file("lab-configs/bootgate.yaml");
	if (!config || bg_service_conf_load(config, &conf) < 0) {
		log_errorx("%s", config ? bg_error_last() : "no configuration: give --config FILE");
		ret = 2;
		goto out;
	}
	if (!db)
		db = bg_path_join(conf.state, "bootgate.db");
	/* mails come from a store that has an outbox: a mistyped --db must not make one */
	if (cmd_open_store_existing(db, "the configuration's state", false, &s) < 0)
		goto out;
	if (json) {
		o.j = &j;
		bg_json_init(&j, STDOUT_FILENO, 2);
		bg_json_object_begin(&j);
		bg_json_key(&j, "events");
		bg_json_array_begin(&j);
	}
	ret = 0;
	if (bg_mailer_compose(s, &conf, dry_run, tell, &o) < 0) {
		log_errorx("%s", bg_error_last());
		ret = 1;
	}
	if (send && ret == 0 && (lock = lock_sending(db)) < 0)
		ret = 1;
	if (send && ret == 0) {
		defer_stop_signals();
		waiting = bg_mailer_send(s, &conf, backoff, &stopping, tell, &o);
		if (waiting < 0) {
			log_errorx("%s", bg_error_last());
			ret = 1;
		} else if (waiting > 0) {
			if (!json)
				log_warnx("%d mail%s wait%s for a later try", waiting,
					  waiting == 1 ? "" : "s", waiting == 1 ? "s" : "");
			ret = 1;
		}
	}
	if (json) {
		bg_json_array_end(&j);
		bg_json_key(&j, "waiting");
		bg_json_int(&j, waiting > 0 ? waiting : 0);
		bg_json_object_end(&j);
		if (bg_json_finish(&j) < 0) {
			log_errorx("%s", bg_error_last());
			ret = 1;
		}
	}
out:
	if (lock >= 0)
		close(lock);
	bg_store_close(s);
	bg_service_conf_release(&conf);
	free(db);
	return ret;
}

const struct bg_cmd cmd_mail_entry = {
	"mail", cmd_mail,
	"[--db FILE] [--config FILE] [--dry-run | --send] [--json]",
	"compose the outbox's reports into mails, and send those due (SMTP, retried)",
	mail_help, mail_opts,
};
