/*
 * bootgated: the service. One event loop watches the configured trees (a fetch every
 * poll interval, at once on a trigger from the Unix socket or a signed webhook), queues
 * a gate job for every new tip and a bisection for every regression a gate finds, and
 * runs the jobs as `bootgate gate` and `bootgate bisect` processes, as many at once as
 * the limits allow. Every decision is a row in the store before it is acted on: killed
 * at any moment, it starts again where it was.
 */
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <netdb.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "bootgated-opts.h"
#include "net/artifacts.h"
#include "conf/board.h"
#include "net/git.h"
#include "publish/mailer.h"
#include "net/smtp.h"
#include "lab/record.h"
#include "conf/service-conf.h"
#include "conf/tree.h"
#include "net/webhook.h"
#include "lab/workers.h"
#include "store/service.h"
#include "store/store.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/num.h"
#include "util/path.h"
#include "util/proc.h"
#include "util/secret.h"
#include "util/strbuf.h"
#include "util/strvec.h"
#include "util/text.h"
#include "util/xmalloc.h"

#define MAX_JOBS 64
#define FETCH_TIMEOUT 600        /* s */
#define FETCH_BACKOFF_MAX 600    /* s between fetches of a tree that keeps failing */
#define JOB_TRIES 5
#define JOB_BACKOFF 30           /* s, doubled at each try */
#define LINE_MAX_BYTES 1024
#define STOP_GRACE_MS 20000
#define CLIENT_SECONDS 2         /* a socket request's whole time */
#define HOOK_LINE 128            /* "TREE REV\n" from the webhook's thread */
#define HOOK_PENDING_MAX 256     /* trees of pushes that found the pipe full, each once */
#define INBOX_TIMEOUT 1800       /* s for one `bootgate inbox` (a first read of a large mirror) */
#define DROP_POLL 60             /* s between looks at the drop directory */
#define MAIL_TICK 5              /* s between looks at the outbox and the due mails */
#define MAIL_TIMEOUT 600         /* s: a mail child past it is killed */
/* ms a stopping mail child has to finish the mail under way: one SMTP exchange at most */
#define MAIL_GRACE_MS ((BG_SMTP_TIMEOUT + 5) * 1000)
#define SITE_TIMEOUT 1800        /* s: a site child past it is killed */

struct tree {
	char *name;
	int64_t id;
	char *mirror;
	double next_fetch;       /* monotonic */
	unsigned failures;
	bool fetching, again;
	struct bg_proc fetch;
};

/* An inbox read on its poll (and the drop directory, name NULL): one child at a time. */
struct inbox {
	char *name;
	double next;             /* monotonic */
};

struct job {
	int64_t id;
	struct bg_proc p;
	unsigned boots;          /* QEMU boots it may run at once (bg_service_boot_slots) */
	bool used;
};

struct daemon {
	const char *conf_path;
	char *db;
	const char *lab;
	struct bg_service_conf conf;
	struct bg_store *s;
	struct tree *trees;
	size_t ntrees;
	struct job jobs[MAX_JOBS];
	int sock, sigfd, hook_pipe[2];
	struct bg_webhook *hook;
	char *hook_listen;       /* the address hook listens on, numeric; NULL: no hook */
	struct bg_artifacts *artifacts;   /* NULL: none configured */
	char *artifacts_listen;
	char *sock_path;         /* the socket's path at start: reloads do not move it */
	bool sock_bound;
	int lock_fd;
	char *self;              /* the bootgate program */
	char *logs;              /* STATE/jobs: one log per job */
	bool stopping;
	char hook_buf[4 * HOOK_LINE];   /* what the webhook's thread wrote, not yet read */
	size_t hook_len;
	pthread_mutex_t hook_lock;
	struct bg_strvec hook_pending;  /* under hook_lock: pushed while the pipe was full */
	double backoff;          /* s before a failed job's second try, doubled after */
	struct inbox *inboxes;   /* the configured inboxes, then the drop directory */
	size_t ninboxes;
	struct bg_proc inbox_proc;
	struct inbox *inbox_reading;   /* the one whose child runs, or NULL */
	struct bg_proc mail;     /* `bootgate mail --send`, one at a time */
	struct bg_proc site;     /* `bootgate site`, one at a time */
	bool siting;
	bool site_dirty;         /* a result came since the site was last written */
	bool mailing;
	double next_mail;        /* monotonic */
};

static void event(struct daemon *d, const char *level, int64_t tree, int64_t job,
		  const char *fmt, ...) BG_PRINTF(5, 6);
static void event(struct daemon *d, const char *level, int64_t tree, int64_t job,
		  const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = bg_record_eventv(d->s, level, tree, job, fmt, ap);
	va_end(ap);
	if (!strcmp(level, "info"))
		log_info("%s", msg);
	else
		log_warnx("%s", msg);
	free(msg);
}

static struct tree *find_tree(struct daemon *d, const char *name)
{
	for (size_t i = 0; i < d->ntrees; i++)
		if (!strcmp(d->trees[i].name, name))
			return &d->trees[i];
	return NULL;
}

static const struct bg_service_tree *tree_conf(struct daemon *d, const struct tree *t)
{
	return bg_service_conf_tree(&d->conf, t->name);
}

/* ---- the configuration ---- */

static void free_trees(struct daemon *d)
{
	for (size_t i = 0; i < d->ntrees; i++) {
		struct bg_proc_result r;

		if (d->trees[i].fetching) {
			bg_proc_kill(&d->trees[i].fetch, 0, &r);
			close(d->trees[i].fetch.out);
		}
		free(d->trees[i].name);
		free(d->trees[i].mirror);
	}
	free(d->trees);
	d->trees = NULL;
	d->ntrees = 0;
}

/* The trees of the configuration into the store and the loop; all fetched soon. */
static int setup_trees(struct daemon *d)
{
	char *mirrors = bg_path_join(bg_cache_dir(), "mirrors");
	int ret = 0;

	free_trees(d);
	d->trees = xcalloc(d->conf.ntrees ? d->conf.ntrees : 1, sizeof(*d->trees));
	for (size_t i = 0; i < d->conf.ntrees && !ret; i++) {
		const struct bg_service_tree *c = &d->conf.trees[i];
		struct tree *t = &d->trees[d->ntrees++];

		t->name = xstrdup(c->name);
		t->mirror = xasprintf("%s/%s.git", mirrors, c->name);
		t->next_fetch = bg_now();
		ret = bg_store_tree_configure(d->s, c->name, t->mirror, c->url, c->branch, &t->id);
	}
	free(mirrors);
	return ret;
}

static int hook_push(const char *tree, const char *ref, const char *rev, void *data);

/* ---- inboxes: `bootgate inbox` as a child, one at a time ---- */

static void free_inboxes(struct daemon *d)
{
	struct bg_proc_result r;

	if (d->inbox_reading)
		bg_proc_kill(&d->inbox_proc, 0, &r);
	d->inbox_reading = NULL;
	for (size_t i = 0; i < d->ninboxes; i++)
		free(d->inboxes[i].name);
	free(d->inboxes);
	d->inboxes = NULL;
	d->ninboxes = 0;
}

/* The inboxes of the configuration, each read soon; a read under way is stopped. */
static void setup_inboxes(struct daemon *d)
{
	free_inboxes(d);
	d->inboxes = xcalloc(d->conf.ninboxes + 1, sizeof(*d->inboxes));
	for (size_t i = 0; i < d->conf.ninboxes; i++) {
		d->inboxes[d->ninboxes].name = xstrdup(d->conf.inboxes[i].name);
		d->inboxes[d->ninboxes++].next = bg_now();
	}
	if (d->conf.drop_dir)
		d->inboxes[d->ninboxes++].next = bg_now();
}

static long inbox_poll(struct daemon *d, const struct inbox *b)
{
	const struct bg_service_inbox *c = b->name ? bg_service_conf_inbox(&d->conf, b->name) :
					   NULL;

	return c ? c->poll : DROP_POLL;
}

static struct inbox *find_inbox(struct daemon *d, const char *name)
{
	for (size_t i = 0; i < d->ninboxes; i++)
		if (d->inboxes[i].name && !strcmp(d->inboxes[i].name, name))
			return &d->inboxes[i];
	return NULL;
}

/* A read as soon as possible: 0, or -1 when no inbox has that name. */
static int trigger_inbox(struct daemon *d, const char *name)
{
	struct inbox *b = find_inbox(d, name);

	if (!b)
		return -1;
	b->next = bg_now();
	return 0;
}

static void start_inbox(struct daemon *d, struct inbox *b)
{
	struct bg_strvec argv = BG_STRVEC_INIT;
	struct bg_proc_opts o = { .in_fd = -1, .out_fd = -1, .err_fd = STDERR_FILENO };

	bg_strvec_pushv(&argv, (char *const[]){ d->self, "inbox", "--config", (char *)d->conf_path,
						"--db", d->db, NULL });
	if (b->name)
		bg_strvec_pushv(&argv, (char *const[]){ "--inbox", b->name, NULL });
	else
		bg_strvec_push(&argv, "--drop");
	o.argv = bg_strvec_argv(&argv);
	b->next = bg_now() + inbox_poll(d, b);
	if (bg_proc_start(&d->inbox_proc, &o) < 0)
		event(d, "error", 0, 0, "inbox %s: cannot read: %s", b->name ? b->name : "drop",
		      bg_error_last());
	else
		d->inbox_reading = b;
	bg_strvec_release(&argv);
}

/* The child's end, then the next inbox whose time has come; returns when to look again. */
static double check_inboxes(struct daemon *d, double next)
{
	struct bg_proc_result r;
	struct inbox *b = d->inbox_reading;

	if (b) {
		if (bg_now() - d->inbox_proc.started > INBOX_TIMEOUT) {
			bg_proc_kill(&d->inbox_proc, BG_PROC_GRACE_MS, &r);
			r.exit_code = 111;
		} else if (bg_proc_wait(&d->inbox_proc, 0, &r) != 0) {
			return next;
		}
		d->inbox_reading = NULL;
		if (r.exit_code)
			event(d, "warning", 0, 0, "inbox %s: reading ended with exit %d: again in "
			      "%ld s", b->name ? b->name : "drop", r.exit_code, inbox_poll(d, b));
	}
	for (size_t i = 0; i < d->ninboxes && !d->inbox_reading && !d->stopping; i++)
		if (d->inboxes[i].next <= bg_now())
			start_inbox(d, &d->inboxes[i]);
	for (size_t i = 0; i < d->ninboxes && !d->inbox_reading; i++)
		next = fmin(next, d->inboxes[i].next);
	return next;
}

/*
 * "ADDR:PORT" (or "[ADDR]:PORT") for host, owned by the caller: a host name is resolved
 * here, the servers listen on an address. NULL with why.
 */
static char *numeric_listen(const char *what, const char *host, unsigned port)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai = NULL;
	char addr[NI_MAXHOST];
	int e = getaddrinfo(host, NULL, &hints, &ai);

	if (e || getnameinfo(ai->ai_addr, ai->ai_addrlen, addr, sizeof(addr), NULL, 0,
			     NI_NUMERICHOST)) {
		if (ai)
			freeaddrinfo(ai);
		bg_error("%s: cannot resolve '%s': %s", what, host,
			 e ? gai_strerror(e) : "no address");
		return NULL;
	}
	freeaddrinfo(ai);
	return strchr(addr, ':') ? xasprintf("[%s]:%u", addr, port) :
	       xasprintf("%s:%u", addr, port);
}

/* The servers c asks for, before any is started: what a start or a reload needs. */
struct servers {
	char *hook_listen, *secret;    /* NULL: no webhook */
	size_t secret_len;
	char *artifacts_listen;        /* NULL: no artifact server */
};

static void servers_release(struct servers *sv)
{
	free(sv->hook_listen);
	bg_secret_free(sv->secret);
	free(sv->artifacts_listen);
	memset(sv, 0, sizeof(*sv));
}

/* Reads what c's servers need, the webhook's secret too: 0, or -1 with why. */
static int servers_of(const struct bg_service_conf *c, struct servers *sv)
{
	memset(sv, 0, sizeof(*sv));
	if (c->webhook_host) {
		/* read as scripts/webhook-sign.sh reads it, which signs the pushes */
		sv->secret = bg_service_conf_webhook_secret(c, 4096, &sv->secret_len);
		if (!sv->secret)
			goto fail;
		sv->hook_listen = numeric_listen("webhook", c->webhook_host, c->webhook_port);
		if (!sv->hook_listen)
			goto fail_file;
	}
	if (c->artifacts_host) {
		sv->artifacts_listen = numeric_listen("artifacts", c->artifacts_host,
						      c->artifacts_port);
		if (!sv->artifacts_listen)
			goto fail_file;
	}
	return 0;
fail_file:
	/* a name that does not resolve is no mistake of a line: the file is named */
	bg_error("%s: %s", c->file, bg_error_last());
fail:
	servers_release(sv);
	return -1;
}

static bool same_listen(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

/*
 * Starts the servers of sv that are not running on the same address already, into
 * *hook and *artifacts (NULL for those kept or not asked for): 0, or -1 with why and
 * none started. The old ones serve on until the caller swaps them.
 */
static int servers_start(struct daemon *d, const struct servers *sv, struct bg_webhook **hook,
			 struct bg_artifacts **artifacts)
{
	*hook = NULL;
	*artifacts = NULL;
	if (sv->hook_listen && !same_listen(sv->hook_listen, d->hook_listen) &&
	    bg_webhook_start(sv->hook_listen, sv->secret, sv->secret_len, hook_push, d, hook) < 0)
		return -1;
	if (sv->artifacts_listen && !same_listen(sv->artifacts_listen, d->artifacts_listen) &&
	    bg_artifacts_start(sv->artifacts_listen, bg_cache_dir(), artifacts) < 0) {
		bg_webhook_stop(*hook);
		*hook = NULL;
		return -1;
	}
	if (*hook)
		log_info("webhook on %s", sv->hook_listen);
	if (*artifacts)
		log_info("artifacts of %s on http://%s", bg_cache_dir(), sv->artifacts_listen);
	return 0;
}

/*
 * The servers of sv in place of the running ones: one started anew replaces the old,
 * one kept on its address takes the new secret, one no longer asked for stops. Takes
 * sv's addresses.
 */
static void servers_swap(struct daemon *d, struct servers *sv, struct bg_webhook *hook,
			 struct bg_artifacts *artifacts)
{
	if (hook || !sv->hook_listen) {
		bg_webhook_stop(d->hook);
		d->hook = hook;
	} else {
		bg_webhook_set_secret(d->hook, sv->secret, sv->secret_len);
	}
	free(d->hook_listen);
	d->hook_listen = sv->hook_listen;
	sv->hook_listen = NULL;
	if (artifacts || !sv->artifacts_listen) {
		bg_artifacts_stop(d->artifacts);
		d->artifacts = artifacts;
	}
	free(d->artifacts_listen);
	d->artifacts_listen = sv->artifacts_listen;
	sv->artifacts_listen = NULL;
}

/* The webhook and the artifact server of the configuration, at start. */
static int start_servers(struct daemon *d)
{
	struct bg_webhook *hook;
	struct bg_artifacts *artifacts;
	struct servers sv;

	if (servers_of(&d->conf, &sv) < 0)
		return -1;
	if (servers_start(d, &sv, &hook, &artifacts) < 0) {
		servers_release(&sv);
		return -1;
	}
	servers_swap(d, &sv, hook, artifacts);
	servers_release(&sv);
	return 0;
}

/*
 * SIGHUP: the new file, or the old configuration kept running with why. Whatever the
 * new one needs is read and started before anything of the old stops: a secret that
 * cannot be read, or an address that cannot be listened on, keeps the old webhook. A
 * server whose address is the same keeps listening: a reload refuses no connection.
 */
static void reload(struct daemon *d)
{
	struct bg_webhook *hook;
	struct bg_artifacts *artifacts;
	struct bg_service_conf c;
	struct servers sv;

	if (bg_service_conf_load(d->conf_path, &c) < 0) {
		event(d, "error", 0, 0, "keeping the old configuration: %s", bg_error_last());
		return;
	}
	if (servers_of(&c, &sv) < 0 || servers_start(d, &sv, &hook, &artifacts) < 0) {
		event(d, "error", 0, 0, "keeping the old configuration: %s", bg_error_last());
		servers_release(&sv);
		bg_service_conf_release(&c);
		return;
	}
	if (strcmp(c.state, d->conf.state) || strcmp(c.socket, d->sock_path))
		event(d, "warning", 0, 0, "a new state or socket takes effect at the next start: "
		      "%s and %s stay", d->conf.state, d->sock_path);
	servers_swap(d, &sv, hook, artifacts);
	servers_release(&sv);
	/* the webhook's thread reads d->conf (hook_push) */
	pthread_mutex_lock(&d->hook_lock);
	bg_service_conf_release(&d->conf);
	d->conf = c;
	pthread_mutex_unlock(&d->hook_lock);
	if (setup_trees(d) < 0)
		event(d, "error", 0, 0, "%s", bg_error_last());
	setup_inboxes(d);
	event(d, "info", 0, 0, "configuration reloaded from %s: %zu trees", d->conf_path,
	      d->ntrees);
}

/* ---- triggers ---- */

/* A fetch as soon as possible; one under way is followed by another. None is lost. */
static int trigger(struct daemon *d, const char *name, const char *how, const char *rev)
{
	struct tree *t = find_tree(d, name);
	struct bg_strbuf safe = BG_STRBUF_INIT;

	if (!t && trigger_inbox(d, name) == 0)
		return 0;

	if (!t)
		return -1;
	if (t->fetching)
		t->again = true;
	else
		t->next_fetch = bg_now();
	/* the commit said to be pushed is only noted: what counts is what the fetch finds */
	if (rev)
		bg_text_escape_line(&safe, rev, strlen(rev));
	event(d, "info", t->id, 0, "%s: fetch asked by %s%s%.12s", name, how, rev ? " for " : "",
	      rev ? safe.buf : "");
	bg_strbuf_release(&safe);
	return 0;
}

/*
 * The webhook's thread: the loop reads the tree's name from the pipe. A pipe full while
 * the loop is busy (a slow socket client holds it 2 s) loses nothing: the tree is noted
 * once in hook_pending, which the loop takes after the pipe, and only when that too is
 * full is the push refused (503), never accepted and dropped. A name no tree or inbox of
 * the configuration has is refused first (404), so that neither is filled with made-up
 * names. The configuration is read on this thread: reload() stops the webhook before it
 * replaces it.
 */
static int hook_push(const char *tree, const char *ref, const char *rev, void *data)
{
	struct daemon *d = data;
	char line[HOOK_LINE];
	/* tree names are at most 64 bytes (the webhook checks): one write, under PIPE_BUF */
	int n = snprintf(line, sizeof(line), "%s %s\n", tree, rev ? rev : "-");
	bool known, noted = false;

	(void)ref;
	/* under the lock a reload replaces the configuration with */
	pthread_mutex_lock(&d->hook_lock);
	known = bg_service_conf_tree(&d->conf, tree) || bg_service_conf_inbox(&d->conf, tree);
	pthread_mutex_unlock(&d->hook_lock);
	if (!known) {
		log_info("webhook: a signed push to '%s', which no tree or inbox is: 404", tree);
		return BG_WEBHOOK_NO_TREE;
	}
	if (n > 0 && (size_t)n < sizeof(line) && write(d->hook_pipe[1], line, n) == n)
		return 0;
	pthread_mutex_lock(&d->hook_lock);
	for (size_t i = 0; i < d->hook_pending.n && !noted; i++)
		noted = !strcmp(d->hook_pending.v[i], tree);
	if (!noted && d->hook_pending.n < HOOK_PENDING_MAX) {
		bg_strvec_push(&d->hook_pending, tree);
		noted = true;
	}
	pthread_mutex_unlock(&d->hook_lock);
	/* the loop may have emptied the pipe meanwhile: an empty line wakes it */
	if (noted && write(d->hook_pipe[1], "\n", 1) < 0 && errno != EAGAIN)
		log_warn("webhook: cannot wake the loop");
	if (!noted)
		log_warnx("webhook: cannot pass on a push to %s: the daemon is busy", tree);
	return noted ? 0 : -1;
}

/*
 * The webhook took only names of the configuration; one is not set up when its setup
 * failed, or when a reload removed it while its push waited.
 */
static void hook_trigger(struct daemon *d, const char *tree, const char *how, const char *rev)
{
	if (trigger(d, tree, how, rev) < 0)
		event(d, "warning", 0, 0, "webhook: a push to '%s', which is not set up", tree);
}

static void hook_line(struct daemon *d, char *line)
{
	char *rev = strchr(line, ' ');

	if (!*line)
		return;
	if (rev)
		*rev++ = '\0';
	hook_trigger(d, line, "webhook", rev && strcmp(rev, "-") ? rev : NULL);
}

static void read_hook_pipe(struct daemon *d)
{
	struct bg_strvec pending;
	char *line, *nl;
	ssize_t n;

	/* all there is: a push waits in the pipe no longer than the loop's turn */
	while ((n = read(d->hook_pipe[0], d->hook_buf + d->hook_len,
			 sizeof(d->hook_buf) - 1 - d->hook_len)) > 0) {
		d->hook_len += n;
		d->hook_buf[d->hook_len] = '\0';
		/* whole lines only: the rest waits for the next read */
		for (line = d->hook_buf; (nl = strchr(line, '\n')); line = nl + 1) {
			*nl = '\0';
			hook_line(d, line);
		}
		d->hook_len = strlen(line);
		memmove(d->hook_buf, line, d->hook_len + 1);
	}
	pthread_mutex_lock(&d->hook_lock);
	pending = d->hook_pending;
	bg_strvec_init(&d->hook_pending);
	pthread_mutex_unlock(&d->hook_lock);
	for (size_t i = 0; i < pending.n; i++)
		hook_trigger(d, pending.v[i], "webhook (pushes while the daemon was busy)", NULL);
	bg_strvec_release(&pending);
}

static void answer(int fd, const char *fmt, ...) BG_PRINTF(2, 3);
static void answer(int fd, const char *fmt, ...)
{
	struct bg_strbuf sb = BG_STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	bg_strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	if (write(fd, sb.buf, sb.len) != (ssize_t)sb.len)
		log_debug("a client left before its answer");
	bg_strbuf_release(&sb);
}

/* One request per connection: "trigger TREE [REV]", "wake" or "ping"; one line back. */
static void serve_client(struct daemon *d)
{
	char line[LINE_MAX_BYTES + 1], *words[4], *nl = NULL;
	size_t len = 0, nw = 0;
	int fd = accept4(d->sock, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	double deadline = bg_now() + CLIENT_SECONDS;
	char *save = NULL;

	if (fd < 0)
		return;
	/* a client holds the loop CLIENT_SECONDS at most, however slowly it writes */
	while (len < LINE_MAX_BYTES && !nl) {
		struct pollfd pfd = { fd, POLLIN, 0 };
		int ms = (int)((deadline - bg_now()) * 1000);
		ssize_t n;

		if (ms <= 0 || poll(&pfd, 1, ms) <= 0)
			break;
		n = read(fd, line + len, LINE_MAX_BYTES - len);
		if (n <= 0 && !(n < 0 && errno == EAGAIN))
			break;
		if (n > 0) {
			nl = memchr(line + len, '\n', n);
			len += n;
		}
	}
	line[len] = '\0';
	if (!nl || memchr(line, '\0', nl - line)) {
		answer(fd, "error: a request is one line of text, at most %d bytes, within %d s\n",
		       LINE_MAX_BYTES, CLIENT_SECONDS);
		goto out;
	}
	*nl = '\0';
	for (char *w = strtok_r(line, " \t\r", &save); w && nw < ARRAY_SIZE(words);
	     w = strtok_r(NULL, " \t\r", &save))
		words[nw++] = w;
	if (nw == 1 && !strcmp(words[0], "ping")) {
		answer(fd, "ok %d\n", (int)getpid());
	} else if (nw == 1 && !strcmp(words[0], "wake")) {
		answer(fd, "ok\n");
	} else if ((nw == 2 || nw == 3) && !strcmp(words[0], "trigger")) {
		if (!find_tree(d, words[1]) && !find_inbox(d, words[1])) {
			struct bg_strbuf safe = BG_STRBUF_INIT;

			bg_text_escape_line(&safe, words[1], strlen(words[1]));
			answer(fd, "error: no tree '%s'\n", safe.buf);
			bg_strbuf_release(&safe);
		} else {
			/*
			 * answered and closed first: recording the trigger may wait for a store
			 * that another process holds locked (30 s), longer than a client waits
			 */
			answer(fd, "ok: %s will be fetched\n", words[1]);
			close(fd);
			trigger(d, words[1], "the socket", nw == 3 ? words[2] : NULL);
			return;
		}
	} else {
		answer(fd, "error: the requests are 'trigger TREE [REV]', 'wake' and 'ping'\n");
	}
out:
	close(fd);
}

/*
 * The trigger socket, at the path the configuration had when the daemon started (a
 * reload does not move it). Only a socket is ever replaced there: a file that is not
 * one is a mistake in the configuration, never something to delete.
 */
static int open_socket(struct daemon *d)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st;
	mode_t old;
	char *dir;

	d->sock_path = xstrdup(d->conf.socket);
	if (strlen(d->sock_path) >= sizeof(sa.sun_path))
		return bg_error("%s: too long for a Unix socket", d->sock_path);
	if (lstat(d->sock_path, &st) == 0 && !S_ISSOCK(st.st_mode))
		return bg_error("%s: there and not a socket: not replaced", d->sock_path);
	dir = xstrdup(d->sock_path);
	if (strrchr(dir, '/') && strrchr(dir, '/') != dir) {
		*strrchr(dir, '/') = '\0';
		if (bg_mkdirs(dir) < 0) {
			free(dir);
			return -1;
		}
	}
	free(dir);
	memcpy(sa.sun_path, d->sock_path, strlen(d->sock_path) + 1);
	d->sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (d->sock < 0)
		return bg_error_errno("socket");
	/* a socket left by a daemon that was killed (the state lock says none runs) */
	unlink(d->sock_path);
	/* no moment when another user could connect */
	old = umask(077);
	if (bind(d->sock, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		umask(old);
		return bg_error_errno("cannot bind '%s'", d->sock_path);
	}
	umask(old);
	if (chmod(d->sock_path, 0600) < 0 || listen(d->sock, 64) < 0)
		return bg_error_errno("cannot listen on '%s'", d->sock_path);
	d->sock_bound = true;
	return 0;
}

/* One daemon per state directory: a second one would run the first one's jobs again. */
static int lock_state(struct daemon *d)
{
	char *path = bg_path_join(d->conf.state, "bootgated.lock"), *other;
	char pid[32];
	int n, ret;

	if (bg_mkdirs(d->conf.state) < 0 ||
	    (ret = bg_lock_file(path, false, NULL, NULL, &d->lock_fd)) == -1) {
		free(path);
		return -1;
	}
	if (ret == BG_LOCK_BUSY) {
		/* the holder wrote its pid there; an empty or unreadable file is a "?" */
		other = bg_read_file(path, sizeof(pid), NULL);
		if (other)
			other[strcspn(other, "\n")] = '\0';
		bg_error("another bootgated (pid %s) runs on %s", other && *other ? other : "?",
			 d->conf.state);
		free(other);
		free(path);
		return -1;
	}
	n = snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
	if (ftruncate(d->lock_fd, 0) < 0 || write(d->lock_fd, pid, n) != n)
		log_warn("cannot write '%s'", path);
	free(path);
	return 0;
}

/* ---- fetches ---- */

static void start_fetch(struct daemon *d, struct tree *t)
{
	const struct bg_service_tree *c = tree_conf(d, t);
	struct bg_strvec argv = BG_STRVEC_INIT;
	struct bg_proc_opts o = { .in_fd = -1, .out_fd = BG_PROC_PIPE, .err_fd = STDERR_FILENO };

	if (!c)
		return;
	bg_strvec_pushv(&argv, (char *const[]){ d->self, "fetch", "--mirror", t->mirror, "--url",
						(char *)c->url, "--branch", (char *)c->branch,
						NULL });
	if (c->reference)
		bg_strvec_pushv(&argv, (char *const[]){ "--reference", c->reference, NULL });
	o.argv = bg_strvec_argv(&argv);
	t->again = false;
	if (bg_proc_start(&t->fetch, &o) < 0) {
		event(d, "error", t->id, 0, "%s: cannot fetch: %s", t->name, bg_error_last());
		t->next_fetch = bg_now() + 60;
	} else {
		t->fetching = true;
		log_debug("%s: fetching %s", t->name, c->url);
	}
	bg_strvec_release(&argv);
}

/* A new tip is gated; a gate still queued for the tree takes the newer tip instead. */
static int new_tip(struct daemon *d, struct tree *t, const char *tip)
{
	const struct bg_service_tree *c = tree_conf(d, t);

	if (!c || bg_store_tree_new_tip(d->s, t->id, tip, (const char *const *)c->gated,
					c->ngated) < 0)
		return -1;
	event(d, "info", t->id, 0, "%s: new tip %.12s: gate queued on %zu board%s", t->name, tip,
	      c->ngated, c->ngated == 1 ? "" : "s");
	return 0;
}

static void fetch_done(struct daemon *d, struct tree *t, char *out,
		       const struct bg_proc_result *r)
{
	const struct bg_service_tree *c = tree_conf(d, t);
	long poll = c ? c->poll : d->conf.poll;
	char *last = NULL;

	t->fetching = false;
	out[strcspn(out, "\n")] = '\0';
	if (r->exit_code || strlen(out) != BG_OID_HEX - 1) {
		double wait = fmin(FETCH_BACKOFF_MAX,
				   fmin(poll, 10.0 * (1u << (t->failures < 10 ? t->failures : 10))));

		t->failures++;
		t->next_fetch = bg_now() + wait;
		bg_store_tree_fetch_failed(d->s, t->id, t->failures, "fetch failed");
		event(d, "warning", t->id, 0, "%s: fetch failed (exit %d, %u in a row): next try in "
		      "%.0f s", t->name, r->exit_code, t->failures, wait);
		return;
	}
	t->failures = 0;
	t->next_fetch = bg_now() + poll;
	bg_store_tree_fetched(d->s, t->id);
	if (bg_store_tree_last_tip(d->s, t->id, &last) == 0 &&
	    (!last || strcmp(last, out)) && new_tip(d, t, out) < 0)
		event(d, "error", t->id, 0, "%s: %s", t->name, bg_error_last());
	free(last);
	if (t->again)
		t->next_fetch = bg_now();
}

static void check_fetch(struct daemon *d, struct tree *t)
{
	struct bg_proc_result r;
	char buf[256];
	ssize_t n;

	if (!t->fetching)
		return;
	if (bg_now() - t->fetch.started > FETCH_TIMEOUT) {
		bg_proc_kill(&t->fetch, BG_PROC_GRACE_MS, &r);
		close(t->fetch.out);
		buf[0] = '\0';
		r.exit_code = 111;
		fetch_done(d, t, buf, &r);
		return;
	}
	if (bg_proc_wait(&t->fetch, 0, &r) != 0)
		return;
	n = read(t->fetch.out, buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	close(t->fetch.out);
	fetch_done(d, t, buf, &r);
}

/* ---- jobs ---- */

static struct tree *tree_by_id(struct daemon *d, int64_t id)
{
	for (size_t i = 0; i < d->ntrees; i++)
		if (d->trees[i].id == id)
			return &d->trees[i];
	return NULL;
}

static void job_args(struct daemon *d, const struct bg_job_row *j, const struct tree *t,
		     const struct bg_service_tree *c, struct bg_strvec *a)
{
	/* a job without a board (a bisection from before boards): the tree's first */
	const char *board = j->board[0] ? j->board : c->gated[0];

	bg_strvec_pushv(a, (char *const[]){ d->self, (char *)j->kind, "--tree", t->mirror,
					    "--name", t->name, "--board", (char *)board, "--mode",
					    c->deterministic ? "deterministic" : "timing", "--db",
					    d->db, NULL });
	if (c->console != BG_CONSOLE_VERBOSE)
		bg_strvec_pushf(a, "--console=%s", bg_console_name(c->console));
	if (!strcmp(j->kind, "gate")) {
		bg_strvec_pushv(a, (char *const[]){ "--rev", (char *)j->rev, NULL });
		for (size_t i = 0; i < c->nmetrics; i++)
			bg_strvec_pushv(a, (char *const[]){ "--watch", c->metrics[i], NULL });
	} else if (!strcmp(j->kind, "series")) {
		/*
		 * on the commit the job names (a rerun's rev, or the base the inbox read from
		 * the mails), else on the branch as the mirror has it now
		 */
		const char *on = j->rev[0] ? j->rev : j->base;

		bg_strvec_pushf(a, "--id=%" PRId64, j->series_id);
		if (on[0])
			bg_strvec_pushv(a, (char *const[]){ "--base", (char *)on, NULL });
		else
			bg_strvec_pushf(a, "--base=refs/heads/%s", c->branch);
	} else {
		char *metric = NULL;

		bg_strvec_pushv(a, (char *const[]){ "--good", (char *)j->base, "--bad",
						    (char *)j->rev, NULL });
		/*
		 * the metric its gate called a regression, which may be a watched one smaller
		 * than another that moved (a bisection by hand picks the largest)
		 */
		if (bg_store_gate_metric(d->s, t->id, board, j->rev, &metric) == 0 && metric)
			bg_strvec_pushv(a, (char *const[]){ "--metric", metric, NULL });
		free(metric);
	}
	for (size_t i = 0; i < c->compare.nthresholds; i++) {
		const struct bg_threshold *th = &c->compare.thresholds[i];

		bg_strvec_pushf(a, "--threshold=%s=%.17g%%:%.17g", th->pattern, 100 * th->pct,
				th->abs_us);
	}
	if (c->config != BG_KCONFIG_TINY)
		bg_strvec_pushv(a, (char *const[]){ "--config", c->config_name, NULL });
	for (size_t i = 0; i < c->nfragments; i++)
		bg_strvec_pushv(a, (char *const[]){ "--fragment", c->fragments[i], NULL });
	if (c->perf_runs)
		bg_strvec_pushf(a, "--perf-runs=%ld", c->perf_runs);
	if (d->lab)
		bg_strvec_pushv(a, (char *const[]){ "--lab", (char *)d->lab, NULL });
}

/* Whether the environment entry e sets name. */
static bool env_sets(const char *e, const char *name)
{
	size_t len = strlen(name);

	return !strncmp(e, name, len) && e[len] == '=';
}

/*
 * The daemon's environment, the job's QEMU boots at once when it has any, and the
 * configuration's ccache remote storage (none when it has none, whatever the daemon's
 * own environment said).
 */
static void job_env(unsigned boots, const char *ccache_remote, struct bg_strvec *env)
{
	for (char **e = environ; *e; e++)
		if (!env_sets(*e, BG_BOOT_SLOTS_ENV) && !env_sets(*e, BG_CCACHE_REMOTE_ENV))
			bg_strvec_push(env, *e);
	if (boots)
		bg_strvec_pushf(env, "%s=%u", BG_BOOT_SLOTS_ENV, boots);
	if (ccache_remote)
		bg_strvec_pushf(env, "%s=%s", BG_CCACHE_REMOTE_ENV, ccache_remote);
}

static int running_jobs(const struct daemon *d)
{
	int n = 0;

	for (size_t i = 0; i < MAX_JOBS; i++)
		n += d->jobs[i].used;
	return n;
}

static void finish_job(struct daemon *d, struct job *j, const struct bg_proc_result *r,
		       bool stopping)
{
	int64_t attempts = 0;
	bool ended = false;

	/* the row stays "running" if these updates fail: the next start queues it again */
	j->used = false;
	d->next_mail = 0;     /* its result may be a report */
	d->site_dirty = true;
	bg_store_job_attempts(d->s, j->id, &attempts);
	/* a series that did not apply exits 1 but has ended: its result is the report */
	bg_store_job_series_ended(d->s, j->id, &ended);
	if (stopping) {
		/* not its fault: the next start runs it again, from where the store says */
		bg_store_job_requeue(d->s, j->id, 0, true);
	} else if (r->exit_code == 0 || ended) {
		bg_store_job_done(d->s, j->id, NULL);
		event(d, "info", 0, j->id, "job %" PRId64 " done", j->id);
	} else if (r->exit_code == 2 || attempts >= JOB_TRIES) {
		/* its bisection, if it began one, ends with it: a rerun starts afresh */
		bg_store_job_failed(d->s, j->id, r->exit_code == 2 ? "usage" : "too many tries");
		event(d, "error", 0, j->id, "job %" PRId64 " failed (exit %d, try %" PRId64 ")",
		      j->id, r->exit_code, attempts);
	} else {
		double wait = d->backoff * (double)(1u << (attempts > 0 ? attempts - 1 : 0));

		bg_store_job_requeue(d->s, j->id, bg_store_now() + wait, false);
		event(d, "warning", 0, j->id, "job %" PRId64 " ended with exit %d (try %" PRId64
		      "): again in %.0f s", j->id, r->exit_code, attempts, wait);
	}
}

static void check_jobs(struct daemon *d)
{
	for (size_t i = 0; i < MAX_JOBS; i++) {
		struct bg_proc_result r;

		if (d->jobs[i].used && bg_proc_wait(&d->jobs[i].p, 0, &r) == 0)
			finish_job(d, &d->jobs[i], &r, false);
	}
}

static int start_job(struct daemon *d, const struct bg_job_row *jr)
{
	struct tree *t = tree_by_id(d, jr->tree_id);
	const struct bg_service_tree *c = t ? tree_conf(d, t) : NULL;
	struct bg_strvec argv = BG_STRVEC_INIT, env = BG_STRVEC_INIT;
	struct bg_proc_opts o = { .in_fd = -1, .out_fd = -1, .err_fd = -1 };
	struct job *j = NULL;
	unsigned boots;
	char *logpath;
	int fd, ret = 0;

	for (size_t i = 0; i < MAX_JOBS && !j; i++)
		if (!d->jobs[i].used)
			j = &d->jobs[i];
	if (!j)
		return -1;
	if (!c)
		return bg_store_job_failed(d->s, jr->id, "its tree is no longer configured");
	/* a gate asked for without a board is the tree's gate on each of its boards */
	if (!jr->board[0] && !strcmp(jr->kind, "gate")) {
		if (bg_store_job_per_board(d->s, jr->id, (const char *const *)c->gated,
					   c->ngated) < 0)
			return -1;
		event(d, "info", t->id, jr->id, "%s: gate %.12s queued on %zu board%s", t->name,
		      jr->rev, c->ngated, c->ngated == 1 ? "" : "s");
		return 0;
	}
	if (!strcmp(jr->kind, "series")) {
		char *state = NULL;
		bool superseded;

		/* a newer version of the series came while this one waited: it is not run */
		if (bg_store_series_state(d->s, jr->series_id, &state) < 0)
			return -1;
		superseded = state && !strcmp(state, "superseded");
		free(state);
		if (superseded) {
			event(d, "info", t->id, jr->id, "%s: series %" PRId64 " superseded: job %"
			      PRId64 " skipped", t->name, jr->series_id, jr->id);
			return bg_store_job_done(d->s, jr->id, "superseded");
		}
	}
	/*
	 * The row says running before the process runs: a daemon killed in between finds
	 * it running and queues it again; the other order could run it twice.
	 */
	if (bg_store_job_running(d->s, jr->id) < 0)
		return -1;
	logpath = xasprintf("%s/%" PRId64 ".log", d->logs, jr->id);
	fd = open(logpath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0644);
	job_args(d, jr, t, c, &argv);
	boots = bg_service_boot_slots(&d->conf, c, jr->board[0] ? jr->board : c->gated[0]);
	job_env(boots, d->conf.ccache_remote, &env);
	o.argv = bg_strvec_argv(&argv);
	o.envp = bg_strvec_argv(&env);
	o.out_fd = fd;
	o.err_fd = BG_PROC_SAME;
	if (fd < 0 || bg_proc_start(&j->p, &o) < 0) {
		event(d, "error", t->id, jr->id, "cannot start job %" PRId64 ": %s", jr->id,
		      fd < 0 ? strerror(errno) : bg_error_last());
		ret = bg_store_job_requeue(d->s, jr->id, bg_store_now() + 60, true);
	} else {
		j->used = true;
		j->id = jr->id;
		j->boots = boots;
		bg_store_job_pid(d->s, jr->id, (int64_t)j->p.pid);
		event(d, "info", t->id, jr->id, "%s: %s %.12s on %s started (job %" PRId64 ", log "
		      "%s)", t->name, jr->kind, jr->rev, jr->board[0] ? jr->board : c->gated[0],
		      jr->id, logpath);
	}
	if (fd >= 0)
		close(fd);
	free(logpath);
	bg_strvec_release(&argv);
	bg_strvec_release(&env);
	return ret;
}

/*
 * Whether job j fits beside the running ones: its QEMU boots within limits.boots (a
 * LAVA board's take none). A gate without a board always does: it is only split.
 */
static bool job_fits(const struct bg_job_row *j, void *data)
{
	struct daemon *d = data;
	struct tree *t = tree_by_id(d, j->tree_id);
	const struct bg_service_tree *c = t ? tree_conf(d, t) : NULL;
	unsigned busy = 0;

	/* one with no tree any more fails at its start: nothing of it runs */
	if (!c || (!j->board[0] && !strcmp(j->kind, "gate")))
		return true;
	for (size_t i = 0; i < MAX_JOBS; i++)
		if (d->jobs[i].used)
			busy += d->jobs[i].boots;
	return busy + bg_service_boot_slots(&d->conf, c, j->board[0] ? j->board : c->gated[0]) <=
	       (unsigned)d->conf.boots;
}

/* Queued jobs whose time has come, while the limits allow: the oldest first. */
static void schedule(struct daemon *d)
{
	/*
	 * A wait further ahead than any retry sets (the last backoff, or a minute after a
	 * job that could not start) was set by a clock that has since stepped back: the job
	 * is due, not held for as long as the step.
	 */
	double longest = fmax(d->backoff * (double)(1u << (JOB_TRIES - 1)), 60) + 60;

	while (!d->stopping && running_jobs(d) < d->conf.builds && running_jobs(d) < MAX_JOBS) {
		struct bg_job_row jr;

		if (bg_store_job_next(d->s, bg_store_now(), longest, job_fits, d, &jr) < 0) {
			event(d, "error", 0, 0, "%s", bg_error_last());
			return;
		}
		if (!jr.id)
			return;
		/* a store that cannot be written stops the scheduling, not the loop */
		if (start_job(d, &jr) < 0) {
			event(d, "error", 0, jr.id, "job %" PRId64 ": %s", jr.id, bg_error_last());
			return;
		}
	}
}

/* ---- the mail and the site: a child each, its output in STATE/NAME.log ---- */

static void start_logged(struct daemon *d, struct bg_proc *p, bool *running, const char *what,
			 char **argv)
{
	struct bg_strbuf log = BG_STRBUF_INIT;
	struct bg_proc_opts o = { .in_fd = -1, .out_fd = -1, .err_fd = BG_PROC_SAME };

	bg_strbuf_addf(&log, "%s/%s.log", d->conf.state, what);
	o.argv = argv;
	o.out_fd = open(log.buf, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (o.out_fd < 0)
		event(d, "error", 0, 0, "%s: cannot open '%s': %s", what, log.buf, strerror(errno));
	else if (bg_proc_start(p, &o) < 0)
		event(d, "error", 0, 0, "%s: cannot start: %s", what, bg_error_last());
	else
		*running = true;
	if (o.out_fd >= 0)
		close(o.out_fd);
	bg_strbuf_release(&log);
}

/* 1 when the child ended (*r), 0 while it runs; one past its time is killed (-1). */
static int logged_ended(struct daemon *d, struct bg_proc *p, bool *running, const char *what,
			int timeout, struct bg_proc_result *r)
{
	if (bg_now() - p->started > timeout) {
		bg_proc_kill(p, BG_PROC_GRACE_MS, r);
		*running = false;
		event(d, "warning", 0, 0, "%s: killed after %d s", what, timeout);
		return -1;
	}
	if (bg_proc_wait(p, 0, r) != 0)
		return 0;
	*running = false;
	return 1;
}

/*
 * With a report: configured, the outbox and the due mails are looked at after each job
 * and every MAIL_TICK; when there is work, `bootgate mail --send` runs as a child, so a
 * mail server that hangs never holds the loop.
 */
static void check_mail(struct daemon *d)
{
	char *argv[] = { d->self, "mail", "--send", "--config", (char *)d->conf_path, "--db",
			 d->db, NULL };
	struct bg_proc_result r;
	int64_t pending = 0;

	if (d->mailing) {
		if (logged_ended(d, &d->mail, &d->mailing, "mail", MAIL_TIMEOUT, &r) <= 0)
			return;
		if (r.exit_code == 0)
			event(d, "info", 0, 0, "mail: the outbox is sent");
		else
			event(d, "warning", 0, 0, "mail: exit %d: mails wait (see %s/mail.log)",
			      r.exit_code, d->conf.state);
		return;
	}
	if (d->stopping || !d->conf.report.enabled || !d->conf.report.from ||
	    bg_now() < d->next_mail)
		return;
	d->next_mail = bg_now() + MAIL_TICK;
	if (bg_mailer_pending(d->s, &pending) < 0 || !pending)
		return;
	start_logged(d, &d->mail, &d->mailing, "mail", argv);
}

/*
 * After each job (and once at start) `bootgate site` rewrites what changed of the results
 * site, as a child: pages are replaced by rename, so a reader never sees half of one.
 */
static void check_site(struct daemon *d)
{
	char *argv[] = { d->self, "site", "--db", d->db, d->conf.site, NULL };
	struct bg_proc_result r;

	if (d->siting) {
		if (logged_ended(d, &d->site, &d->siting, "site", SITE_TIMEOUT, &r) > 0 &&
		    r.exit_code != 0)
			event(d, "warning", 0, 0, "site: exit %d (see %s/site.log)", r.exit_code,
			      d->conf.state);
		return;
	}
	if (d->stopping || !d->site_dirty)
		return;
	d->site_dirty = false;
	start_logged(d, &d->site, &d->siting, "site", argv);
}

/* ---- the loop ---- */

static void stop_all(struct daemon *d)
{
	d->stopping = true;
	if (d->mailing) {
		struct bg_proc_result r;

		/*
		 * SIGTERM: the child ends the mail under way, marks it and stops (cmd-mail.c);
		 * only a server slower than the SMTP timeout leaves it to SIGKILL
		 */
		bg_proc_kill(&d->mail, MAIL_GRACE_MS, &r);
		d->mailing = false;
	}
	if (d->siting) {
		struct bg_proc_result r;

		/* every page is whole (renamed into place): the next start writes the rest */
		bg_proc_kill(&d->site, BG_PROC_GRACE_MS, &r);
		d->siting = false;
	}
	for (size_t i = 0; i < MAX_JOBS; i++) {
		struct bg_proc_result r;

		if (!d->jobs[i].used)
			continue;
		bg_proc_kill(&d->jobs[i].p, STOP_GRACE_MS, &r);
		finish_job(d, &d->jobs[i], &r, true);
	}
}

static int signals(struct daemon *d)
{
	struct signalfd_siginfo si;

	while (read(d->sigfd, &si, sizeof(si)) == sizeof(si)) {
		switch (si.ssi_signo) {
		case SIGHUP:
			reload(d);
			break;
		case SIGTERM:
		case SIGINT:
			log_info("stopping (signal %u): jobs go back to the queue", si.ssi_signo);
			return 1;
		default:
			break;   /* SIGCHLD: the children are looked at every turn */
		}
	}
	return 0;
}

static int loop(struct daemon *d)
{
	for (;;) {
		struct pollfd pfd[8 + MAX_JOBS];
		double now = bg_now(), next = now + 60;
		nfds_t n = 0;

		for (size_t i = 0; i < d->ntrees; i++) {
			struct tree *t = &d->trees[i];

			check_fetch(d, t);
			if (!t->fetching && t->next_fetch <= now)
				start_fetch(d, t);
			if (!t->fetching && t->next_fetch < next)
				next = t->next_fetch;
		}
		next = check_inboxes(d, next);
		check_jobs(d);
		schedule(d);
		check_mail(d);
		check_site(d);
		pfd[n++] = (struct pollfd){ d->sigfd, POLLIN, 0 };
		pfd[n++] = (struct pollfd){ d->sock, POLLIN, 0 };
		pfd[n++] = (struct pollfd){ d->hook_pipe[0], POLLIN, 0 };
		/* children end: their pidfds wake the loop; without pidfds, SIGCHLD does */
		for (size_t i = 0; i < d->ntrees; i++)
			if (d->trees[i].fetching && d->trees[i].fetch.pidfd >= 0 && n < ARRAY_SIZE(pfd))
				pfd[n++] = (struct pollfd){ d->trees[i].fetch.pidfd, POLLIN, 0 };
		for (size_t i = 0; i < MAX_JOBS; i++)
			if (d->jobs[i].used && d->jobs[i].p.pidfd >= 0 && n < ARRAY_SIZE(pfd))
				pfd[n++] = (struct pollfd){ d->jobs[i].p.pidfd, POLLIN, 0 };
		if (d->inbox_reading && d->inbox_proc.pidfd >= 0 && n < ARRAY_SIZE(pfd))
			pfd[n++] = (struct pollfd){ d->inbox_proc.pidfd, POLLIN, 0 };
		if (d->mailing && d->mail.pidfd >= 0 && n < ARRAY_SIZE(pfd))
			pfd[n++] = (struct pollfd){ d->mail.pidfd, POLLIN, 0 };
		if (d->siting && d->site.pidfd >= 0 && n < ARRAY_SIZE(pfd))
			pfd[n++] = (struct pollfd){ d->site.pidfd, POLLIN, 0 };
		{
			/* queued jobs waiting for their time, fetches that may time out */
			int ms = (int)fmax(0, fmin(next - now, 5) * 1000);

			if (poll(pfd, n, ms) < 0 && errno != EINTR)
				return bg_error_errno("poll");
		}
		if (pfd[0].revents && signals(d))
			return 0;
		if (pfd[1].revents)
			serve_client(d);
		if (pfd[2].revents)
			read_hook_pipe(d);
	}
}

/* For -n: each tree and the boards it is gated on, a line each. */
static void print_boards(const struct bg_service_conf *c)
{
	for (size_t i = 0; i < c->ntrees; i++) {
		const struct bg_service_tree *t = &c->trees[i];
		struct bg_strbuf sb = BG_STRBUF_INIT;

		for (size_t k = 0; k < t->ngated; k++)
			bg_strbuf_addf(&sb, "%s%s%s", k ? " " : "", t->gated[k],
				       t->gated_lava[k] ? " (lava)" : "");
		bg_text_println(stdout, "  %s: gated on %s", t->name, sb.buf);
		bg_strbuf_release(&sb);
	}
}

/* The configuration's error, 2: on one line, whatever the file held. */
static int bad_conf(void)
{
	struct bg_strbuf safe = BG_STRBUF_INIT;

	/* a name in it cannot forge a second message */
	bg_text_escape_line(&safe, bg_error_last(), strlen(bg_error_last()));
	fprintf(stderr, "%s\n", safe.buf);
	bg_strbuf_release(&safe);
	return 2;
}

/*
 * The command line: 1 with what to do, 0 when it is answered (--help, -n), 2 usage. The
 * configuration is loaded here, so that -n checks what a start would read.
 */
static int parse_args(struct daemon *d, int argc, char **argv)
{
	bool check = false;
	int opt, verbose = 0;
	char real[PATH_MAX];

	opterr = 0;
	while ((opt = getopt_long(argc, argv, bootgated_shortopts, bootgated_opts, NULL)) != -1) {
		switch (opt) {
		case 'f': d->conf_path = optarg; break;
		case 'n': check = true; break;
		case 'd': free(d->db); d->db = xstrdup(optarg); break;
		case 'l': d->lab = optarg; break;
		case 'v': verbose++; break;
		case 'h': bootgated_usage(stdout); return 0;
		default:
			log_warnx("unknown option, or one without its value: '%s'", argv[optind - 1]);
			bootgated_usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		bootgated_usage(stderr);
		return 2;
	}
	log_init("bootgated", verbose);
	if (!d->conf_path)
		d->conf_path = bg_project_file("lab-configs/bootgate.yaml");
	/* a copy away from a checkout finds none: say so, not "cannot open '(null)'" */
	if (!d->conf_path) {
		log_errorx("no configuration: give -f FILE");
		return 2;
	}
	if (d->lab)
		setenv("BOOTGATE_LAB", d->lab, 1);
	/* -n also checks what only a start opens: the trees' reference repositories */
	if (bg_service_conf_load(d->conf_path, &d->conf) < 0 ||
	    (check && bg_service_conf_check_references(&d->conf) < 0))
		return bad_conf();
	/* every build it starts hides the secrets this file names (bootgate-build --service) */
	if (realpath(d->conf_path, real))
		setenv("BOOTGATE_SERVICE", real, 1);
	if (check) {
		struct servers sv;

		/* what a start would read: the webhook's secret-file too */
		if (servers_of(&d->conf, &sv) < 0)
			return bad_conf();
		servers_release(&sv);
		bg_text_println(stdout, "%s: %zu trees, ok", d->conf_path, d->conf.ntrees);
		print_boards(&d->conf);
		return 0;
	}
	return 1;
}

/* Where it keeps what, and how long a job that failed waits before its next try. */
static void settle(struct daemon *d)
{
	/* the tests' shortcut: BOOTGATE_JOB_BACKOFF=SECONDS */
	const char *b = getenv("BOOTGATE_JOB_BACKOFF");
	unsigned long v;

	if (!d->db)
		d->db = bg_path_join(d->conf.state, "bootgate.db");
	d->logs = bg_path_join(d->conf.state, "jobs");
	d->self = bg_worker_path("bootgate");
	d->backoff = JOB_BACKOFF;
	d->site_dirty = true;     /* the site as the store has it now */
	if (b && bg_num_parse_ulong(b, 0, 86400, &v) == 0)
		d->backoff = v;
	else if (b)
		log_warnx("BOOTGATE_JOB_BACKOFF='%s' is not a number of seconds: 30 s", b);
}

/* Signals through a descriptor of the loop; the webhook's wake-ups through a pipe. */
static int setup_signals(struct daemon *d)
{
	sigset_t mask;

	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGCHLD);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	signal(SIGPIPE, SIG_IGN);
	if ((d->sigfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK)) < 0 ||
	    pipe2(d->hook_pipe, O_CLOEXEC | O_NONBLOCK) < 0)
		return bg_error_errno("cannot set up the loop");
	return 0;
}

/* Everything it serves, up; what ran when the last daemon died queued again. */
static int start(struct daemon *d)
{
	int64_t n;

	if (setup_signals(d) < 0 || lock_state(d) < 0 || bg_mkdirs(d->logs) < 0 ||
	    bg_store_open(d->db, &d->s) < 0 || setup_trees(d) < 0 || open_socket(d) < 0 ||
	    start_servers(d) < 0)
		return -1;
	setup_inboxes(d);
	if (bg_store_jobs_interrupted(d->s, &n) == 0 && n)
		event(d, "info", 0, 0, "%" PRId64 " interrupted jobs queued again", n);
	event(d, "info", 0, 0, "started: %zu trees, store %s, socket %s", d->ntrees, d->db,
	      d->conf.socket);
	return 0;
}

static void release(struct daemon *d)
{
	bg_webhook_stop(d->hook);
	free(d->hook_listen);
	bg_strvec_release(&d->hook_pending);
	pthread_mutex_destroy(&d->hook_lock);
	bg_artifacts_stop(d->artifacts);
	free(d->artifacts_listen);
	free_inboxes(d);
	free_trees(d);
	if (d->sock >= 0)
		close(d->sock);
	if (d->sock_bound)
		unlink(d->sock_path);
	free(d->sock_path);
	if (d->lock_fd >= 0)
		close(d->lock_fd);
	bg_store_close(d->s);
	bg_service_conf_release(&d->conf);
	free(d->db);
	free(d->logs);
	free(d->self);
}

int main(int argc, char **argv)
{
	struct daemon d;
	int ret;

	memset(&d, 0, sizeof(d));
	d.sock = d.sigfd = d.hook_pipe[0] = d.hook_pipe[1] = d.lock_fd = -1;
	pthread_mutex_init(&d.hook_lock, NULL);
	log_init("bootgated", 0);
	ret = parse_args(&d, argc, argv);
	if (ret != 1)
		goto out;
	settle(&d);
	if (start(&d) < 0) {
		log_errorx("%s", bg_error_last());
		goto out;
	}
	ret = loop(&d) < 0;
	if (ret)
		log_errorx("%s", bg_error_last());
	stop_all(&d);
	event(&d, "info", 0, 0, "stopped");
out:
	release(&d);
	return ret;
}
