/* The one file that includes microhttpd.h: the daemon's HTTP servers (http.h). */
#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>

#include "net/http.h"
#include "util/error.h"
#include "util/log.h"
#include "util/num.h"
#include "util/proc.h"
#include "util/strbuf.h"
#include "util/text.h"
#include "util/xmalloc.h"

#define TARGET_LOGGED 100      /* bytes of a refused target that reach the log */

/*
 * A connection, watched for the request deadline: MHD's own timeout is for silence
 * alone, so a client sending a byte every few seconds would otherwise keep it forever.
 */
struct watch {
	int fd;
	double deadline;     /* monotonic; 0 while an answer goes out, or once cut */
	char addr[INET6_ADDRSTRLEN];
	struct watch *prev, *next;
};

struct bg_http {
	struct MHD_Daemon *mhd;
	struct bg_http_service svc;
	unsigned port;
	/* the watched connections and the thread that cuts the late ones */
	pthread_mutex_t lock;
	pthread_cond_t wake;
	struct watch *watched;
	unsigned open;         /* connections MHD has, for naming the limit it hit */
	pthread_t reaper;
	bool reaping, stopping;
	/* the log's window: BG_HTTP_LOG_BURST lines in it, the rest counted (log_lock) */
	pthread_mutex_t log_lock;
	double log_start;
	unsigned log_lines;
	unsigned long log_left_out;
};

/*
 * One request: made when its first line is read, freed when it is done. Its body is a
 * mapping of max_body + 1 bytes, made at its first byte, of which only the pages written
 * are memory, and unmapped when the request is done: malloc would keep a freed MiB for
 * its next call (62 of 64 MiB stayed once 64 bodies were answered), and grow a buffer
 * by copies on its way to 1 MiB (82 MiB for 64 of them).
 */
struct conn {
	struct bg_http_request req;
	char *target;
	char *body;        /* NULL until the body's first byte */
	size_t body_len;
	bool started;      /* head() was called */
	bool answered;     /* whatever else comes is not read */
};

static size_t body_map_size(const struct bg_http *h)
{
	return h->svc.max_body + 1;
}

/* Adds n bytes to k's body: 0, -1 past max_body, -2 when no memory can be mapped. */
static int body_add(const struct bg_http *h, struct conn *k, const char *data, size_t n)
{
	if (!h->svc.max_body || n > h->svc.max_body - k->body_len)
		return -1;
	if (!k->body) {
		void *p = mmap(NULL, body_map_size(h), PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

		if (p == MAP_FAILED)
			return -2;
		k->body = p;
	}
	memcpy(k->body + k->body_len, data, n);
	k->body_len += n;
	k->body[k->body_len] = '\0';
	return 0;
}

/* Says how many lines the window left out, and opens a new one. Under log_lock. */
static void log_window_end(struct bg_http *h, double now)
{
	if (h->log_left_out)
		log_warnx("%s: %lu lines suppressed in %.0f s (at most %u in %u s are logged)",
			  h->svc.name, h->log_left_out, now - h->log_start, BG_HTTP_LOG_BURST,
			  BG_HTTP_LOG_WINDOW);
	h->log_start = now;
	h->log_lines = 0;
	h->log_left_out = 0;
}

/*
 * Whether a line may be logged now, counted either way. Any client can make a line
 * (a refusal, a connection over the limit): a flood of them makes a few lines and a
 * count, the count within a window and a second (the reaper's turn) of its end.
 */
static bool log_allowed(struct bg_http *h)
{
	double now = bg_now();
	bool ok;

	pthread_mutex_lock(&h->log_lock);
	if (now - h->log_start >= BG_HTTP_LOG_WINDOW)
		log_window_end(h, now);
	ok = h->log_lines < BG_HTTP_LOG_BURST;
	if (ok)
		h->log_lines++;
	else
		h->log_left_out++;
	pthread_mutex_unlock(&h->log_lock);
	return ok;
}

/* The count of a window that has ended, or of the last one when the server stops. */
static void log_flush(struct bg_http *h, bool stopping)
{
	double now = bg_now();

	pthread_mutex_lock(&h->log_lock);
	if (stopping || now - h->log_start >= BG_HTTP_LOG_WINDOW)
		log_window_end(h, now);
	pthread_mutex_unlock(&h->log_lock);
}

static void client_of(struct MHD_Connection *c, char addr[INET6_ADDRSTRLEN])
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	const struct sockaddr *sa = ci ? ci->client_addr : NULL;
	const void *in = NULL;

	if (sa && sa->sa_family == AF_INET)
		in = &((const struct sockaddr_in *)sa)->sin_addr;
	else if (sa && sa->sa_family == AF_INET6)
		in = &((const struct sockaddr_in6 *)sa)->sin6_addr;
	if (!in || !inet_ntop(sa->sa_family, in, addr, INET6_ADDRSTRLEN))
		memcpy(addr, "?", 2);
}

static struct MHD_Response *text_response(const char *why)
{
	struct bg_strbuf text = BG_STRBUF_INIT;
	struct MHD_Response *resp;

	bg_text_escape_line(&text, why, strlen(why));
	bg_strbuf_addch(&text, '\n');
	resp = MHD_create_response_from_buffer(text.len, text.buf, MHD_RESPMEM_MUST_COPY);
	bg_strbuf_release(&text);
	if (resp)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE,
					"text/plain; charset=utf-8");
	return resp;
}

/* The deadline of c's request: 0 stops it (an answer goes out), else from now. */
static void watch_set(struct bg_http *h, struct MHD_Connection *c, bool on)
{
	const union MHD_ConnectionInfo *ci;
	struct watch *w;

	if (!h->svc.request_seconds)
		return;
	ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	if (!ci || !(w = ci->socket_context))
		return;
	pthread_mutex_lock(&h->lock);
	w->deadline = on ? bg_now() + h->svc.request_seconds : 0;
	pthread_mutex_unlock(&h->lock);
}

/*
 * Queues the answer. A refusal is logged once, with what the client sent cut short:
 * log.c escapes the whole line (bg_text_escape_line), so nothing from the request
 * reaches the terminal raw. MHD_NO closes the connection.
 */
static enum MHD_Result send_answer(struct bg_http *h, struct MHD_Connection *c,
				   const struct conn *k, struct bg_http_answer *a)
{
	const char *why = a->text ? a->text : "";
	struct MHD_Response *resp;
	enum MHD_Result ret;

	/* the request is whole: a slow reader of a large file is MHD's timeout's */
	watch_set(h, c, false);
	if (a->status >= 400 && log_allowed(h)) {
		char addr[INET6_ADDRSTRLEN];

		client_of(c, addr);
		log_warnx("%s: %s: %.16s '%.*s': %u %s%s%s", h->svc.name, addr, k->req.method,
			  (int)strnlen(k->target, TARGET_LOGGED), k->target, a->status, why,
			  a->detail ? ": " : "", a->detail ? a->detail : "");
	}
	if (a->fd >= 0) {
		resp = MHD_create_response_from_fd64(a->size, a->fd);
		if (!resp)
			close(a->fd);
		else
			MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE,
						a->type ? a->type : "application/octet-stream");
		a->fd = -1;
	} else {
		resp = text_response(why);
	}
	if (!resp)
		return MHD_NO;
	if (a->status == MHD_HTTP_METHOD_NOT_ALLOWED && a->allow)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, a->allow);
	ret = MHD_queue_response(c, a->status, resp);
	MHD_destroy_response(resp);
	return ret;
}

/*
 * A target MHD cut at a NUL (the layout handle() describes; MHD ends the target with a NUL
 * where the space was): k->target becomes the whole of it, each NUL shown as "<NUL>", so
 * that the log does not name the path it passed for.
 */
static bool nul_target(struct conn *k, const char *url, const char *version)
{
	size_t len, cut = strlen(url);
	struct bg_strbuf sb = BG_STRBUF_INIT;

	if ((uintptr_t)version <= (uintptr_t)url + cut + 1)
		return false;
	len = (uintptr_t)version - (uintptr_t)url - 1;
	if (len > TARGET_LOGGED || url[len] != '\0')
		return false;
	for (size_t i = 0; i < len; i++)
		if (url[i])
			bg_strbuf_addch(&sb, url[i]);
		else
			bg_strbuf_addstr(&sb, "<NUL>");
	free(k->target);
	k->target = bg_strbuf_detach(&sb, NULL);
	k->req.target = k->target;
	return true;
}

/*
 * MHD calls this first with the headers alone, then once for each piece of the body,
 * then once more with nothing left (*size 0): that last call answers.
 */
static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url,
			      const char *method, const char *version, const char *upload,
			      size_t *size, void **state)
{
	struct bg_http *h = cls;
	struct conn *k = *state;
	struct bg_http_answer a = { .fd = -1 };

	if (!k)     /* never: the first line made it; refused rather than guessed */
		return MHD_NO;
	if (!k->started) {
		k->started = true;
		k->req.method = method;
		k->req.path = url;
		k->req.conn = c;
		/*
		 * A NUL in the target ends every string MHD gives of it, and "/hook/x<NUL>/y"
		 * would pass for "/hook/x". MHD 0.9.75 tells no target's length, but leaves
		 * the request line in place, the target ending where the version starts, one
		 * space before it: a target that ends earlier held a NUL (and a method that
		 * ends before the space before the target). Any other layout is refused
		 * too, so that a new MHD fails this loudly, not silently.
		 */
		if ((strcmp(version, MHD_HTTP_VERSION_1_1) &&
		     strcmp(version, MHD_HTTP_VERSION_1_0)) ||
		    (uintptr_t)version - (uintptr_t)url != strlen(k->target) + 1 ||
		    (uintptr_t)url - (uintptr_t)method != strlen(method) + 1) {
			k->answered = true;
			a.status = MHD_HTTP_BAD_REQUEST;
			a.text = "the request line is not METHOD TARGET HTTP/1.x";
			if (nul_target(k, url, version))
				a.text = "a NUL in the request line";
			return send_answer(h, c, k, &a);
		}
		if (h->svc.head(h->svc.data, &k->req, &a)) {
			k->answered = true;
			return send_answer(h, c, k, &a);
		}
		return MHD_YES;
	}
	if (k->answered)
		return MHD_NO;
	if (*size) {
		/*
		 * Without a Content-Length (chunked), only counting stops a large body. MHD
		 * 0.9.75 takes no answer mid-body: the connection is then closed unanswered.
		 */
		int added = body_add(h, k, upload, *size);

		if (added < 0) {
			k->answered = true;
			a.status = added == -1 ? MHD_HTTP_CONTENT_TOO_LARGE :
				   MHD_HTTP_SERVICE_UNAVAILABLE;
			a.text = added == -1 ? h->svc.too_large :
				 "no memory for the body now: send it again later";
			return send_answer(h, c, k, &a);
		}
		*size = 0;
		return MHD_YES;
	}
	k->answered = true;
	k->req.body = k->body ? k->body : "";
	k->req.body_len = k->body_len;
	h->svc.body(h->svc.data, &k->req, &a);
	return send_answer(h, c, k, &a);
}

/* The request line is read: the target as sent, before MHD cuts and decodes it. */
static void *begin(void *cls, const char *uri, struct MHD_Connection *c)
{
	struct conn *k = xcalloc(1, sizeof(*k));

	(void)cls;
	k->target = xstrdup(uri);
	k->req.target = k->target;
	return k;
}

static void completed(void *cls, struct MHD_Connection *c, void **state,
		      enum MHD_RequestTerminationCode toe)
{
	struct bg_http *h = cls;
	struct conn *k = *state;

	if (!k)
		return;
	/* the next request on a kept connection has the whole time again */
	watch_set(h, c, true);
	if (k->req.state && h->svc.release)
		h->svc.release(k->req.state);
	if (k->body)
		munmap(k->body, body_map_size(h));
	free(k->target);
	free(k);
	*state = NULL;
}

static void notify(void *cls, struct MHD_Connection *c, void **socket_context,
		   enum MHD_ConnectionNotificationCode toe)
{
	struct bg_http *h = cls;
	struct watch *w = *socket_context;
	const union MHD_ConnectionInfo *ci;

	pthread_mutex_lock(&h->lock);
	h->open += toe == MHD_CONNECTION_NOTIFY_STARTED ? 1 : -1;
	pthread_mutex_unlock(&h->lock);
	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
		if (!h->svc.request_seconds || !ci)
			return;
		w = xcalloc(1, sizeof(*w));
		w->fd = ci->connect_fd;
		client_of(c, w->addr);
		pthread_mutex_lock(&h->lock);
		w->deadline = bg_now() + h->svc.request_seconds;
		w->next = h->watched;
		if (w->next)
			w->next->prev = w;
		h->watched = w;
		pthread_mutex_unlock(&h->lock);
		*socket_context = w;
	} else if (w) {
		/* MHD closes the socket after this: the reaper never touches it again */
		pthread_mutex_lock(&h->lock);
		if (w->prev)
			w->prev->next = w->next;
		else
			h->watched = w->next;
		if (w->next)
			w->next->prev = w->prev;
		pthread_mutex_unlock(&h->lock);
		free(w);
		*socket_context = NULL;
	}
}

/*
 * Once a second, cuts the connections whose request is late. shutdown() rather than
 * close(): MHD still owns the socket, and its next read sees the end and closes it.
 */
static void *reap(void *data)
{
	struct bg_http *h = data;
	struct timespec ts;

	pthread_mutex_lock(&h->lock);
	while (!h->stopping) {
		double now = bg_now();

		for (struct watch *w = h->watched; w; w = w->next) {
			if (!w->deadline || now < w->deadline)
				continue;
			w->deadline = 0;
			if (log_allowed(h))
				log_warnx("%s: %s: no whole request within %u s: closed",
					  h->svc.name, w->addr, h->svc.request_seconds);
			shutdown(w->fd, SHUT_RDWR);
		}
		log_flush(h, false);
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_sec++;
		pthread_cond_timedwait(&h->wake, &h->lock, &ts);
	}
	pthread_mutex_unlock(&h->lock);
	return NULL;
}

static void reaper_stop(struct bg_http *h)
{
	if (h->reaping) {
		pthread_mutex_lock(&h->lock);
		h->stopping = true;
		pthread_cond_signal(&h->wake);
		pthread_mutex_unlock(&h->lock);
		pthread_join(h->reaper, NULL);
		h->reaping = false;
	}
}

static void http_free(struct bg_http *h)
{
	pthread_mutex_destroy(&h->log_lock);
	pthread_cond_destroy(&h->wake);
	pthread_mutex_destroy(&h->lock);
	free(h);
}

/*
 * Paths are taken as sent: the paths served need no %-escape, and decoding one would
 * let "%2F" or "%00" pass for what the path does not show.
 */
static size_t unescape_none(void *cls, struct MHD_Connection *c, char *s)
{
	return strlen(s);
}

BG_PRINTF(2, 0)
static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	struct bg_http *h = cls;
	char msg[512];

	if (!log_allowed(h))
		return;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	msg[strcspn(msg, "\n")] = '\0';
	/*
	 * MHD 0.9.75 says this of both its limits: below the total, it is the one of an
	 * address (a flood from one client, not a server full)
	 */
	if (!strncmp(msg, "Server reached connection limit", 31)) {
		unsigned open;

		pthread_mutex_lock(&h->lock);
		open = h->open;
		pthread_mutex_unlock(&h->lock);
		if (open < h->svc.connections)
			snprintf(msg, sizeof(msg), "a client reached the per-address limit of %u "
				 "connections: closed", h->svc.per_client);
		else
			snprintf(msg, sizeof(msg), "the server reached its limit of %u connections: "
				 "closed", h->svc.connections);
	}
	log_warnx("%s: %s", h->svc.name, msg);
}

static int parse_listen(const char *listen, struct sockaddr_storage *ss)
{
	struct sockaddr_in *in4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;
	const char *colon = strrchr(listen, ':'), *host = listen;
	char addr[INET6_ADDRSTRLEN];
	unsigned long port;
	size_t len;

	memset(ss, 0, sizeof(*ss));
	if (!colon || bg_num_parse_ulong(colon + 1, 0, 65535, &port) < 0)
		goto bad;
	len = colon - listen;
	if (listen[0] == '[') {
		if (len < 2 || listen[len - 1] != ']')
			goto bad;
		host++;
		len -= 2;
	}
	if (len >= sizeof(addr))
		goto bad;
	memcpy(addr, host, len);
	addr[len] = '\0';
	if (host != listen) {
		if (inet_pton(AF_INET6, addr, &in6->sin6_addr) != 1)
			goto bad;
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(port);
	} else {
		if (inet_pton(AF_INET, addr, &in4->sin_addr) != 1)
			goto bad;
		in4->sin_family = AF_INET;
		in4->sin_port = htons(port);
	}
	return 0;
bad:
	return bg_error("listen address '%s' is not IPV4:PORT or [IPV6]:PORT", listen);
}

int bg_http_check_listen(const char *listen)
{
	struct sockaddr_storage ss;

	return parse_listen(listen, &ss);
}

static uint16_t port_of(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)ss)->sin6_port);
	return ntohs(((const struct sockaddr_in *)ss)->sin_port);
}

int bg_http_start(const char *listen, const struct bg_http_service *svc,
		  struct bg_http **out)
{
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO | MHD_USE_ERROR_LOG;
	const union MHD_DaemonInfo *info;
	struct sockaddr_storage ss;
	pthread_condattr_t ca;
	struct bg_http *h;

	*out = NULL;
	if (parse_listen(listen, &ss) < 0)
		return -1;
	if (ss.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	h = xcalloc(1, sizeof(*h));
	h->svc = *svc;
	pthread_mutex_init(&h->lock, NULL);
	pthread_mutex_init(&h->log_lock, NULL);
	h->log_start = bg_now();
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&h->wake, &ca);
	pthread_condattr_destroy(&ca);
	/* it runs without a request deadline too: it says what the log left out */
	if (pthread_create(&h->reaper, NULL, reap, h) != 0) {
		http_free(h);
		return bg_error("%s: cannot start a thread", svc->name);
	}
	h->reaping = true;
	errno = 0;
	/* the port is in the address already: given again, MHD names it when bind fails */
	h->mhd = MHD_start_daemon(flags, port_of(&ss), NULL, NULL, handle, h,
				  MHD_OPTION_EXTERNAL_LOGGER, mhd_log, h,
				  MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
				  MHD_OPTION_CONNECTION_TIMEOUT, svc->timeout,
				  MHD_OPTION_CONNECTION_LIMIT, svc->connections,
				  MHD_OPTION_PER_IP_CONNECTION_LIMIT, svc->per_client,
				  MHD_OPTION_URI_LOG_CALLBACK, begin, h,
				  MHD_OPTION_NOTIFY_COMPLETED, completed, h,
				  MHD_OPTION_UNESCAPE_CALLBACK, unescape_none, NULL,
				  MHD_OPTION_NOTIFY_CONNECTION, notify, h,
				  MHD_OPTION_END);
	if (!h->mhd) {
		if (errno)
			bg_error_errno("%s: cannot listen on '%s'", svc->name, listen);
		else
			bg_error("%s: cannot listen on '%s'", svc->name, listen);
		reaper_stop(h);
		http_free(h);
		return -1;
	}
	info = MHD_get_daemon_info(h->mhd, MHD_DAEMON_INFO_BIND_PORT);
	h->port = info ? info->port : 0;
	*out = h;
	return 0;
}

unsigned bg_http_port(const struct bg_http *h)
{
	return h->port;
}

const char *bg_http_header(const struct bg_http_request *r, const char *name)
{
	return MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, name);
}

void bg_http_stop(struct bg_http *h)
{
	if (!h)
		return;
	MHD_stop_daemon(h->mhd);
	reaper_stop(h);
	log_flush(h, true);
	http_free(h);
}
