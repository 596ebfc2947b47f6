/* The one file that includes microhttpd.h: the webhook's HTTP server (webhook.h). */
#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "lab/json-read.h"
#include "lab/sha.h"
#include "lab/webhook.h"
#include "util/error.h"
#include "util/log.h"
#include "util/num.h"
#include "util/strbuf.h"
#include "util/text.h"
#include "util/xmalloc.h"

#define HOOK_PREFIX "/hook/"
#define TREE_MAX 64
#define SIGNATURE_HEADER "X-Hub-Signature-256"
#define SIGNATURE_PREFIX "sha256="
#define URL_LOGGED 100      /* bytes of a refused path that reach the log */

struct bg_webhook {
	struct MHD_Daemon *mhd;
	unsigned char *secret;
	size_t secret_len;
	bg_webhook_fn fn;
	void *data;
	unsigned port;
};

/* A request whose headers passed: its body arrives in pieces, then it is judged whole. */
struct request {
	char tree[TREE_MAX + 1];
	char signature[BG_SHA256_HEX];
	struct bg_strbuf body;
	bool refused;      /* answered already: whatever else comes is not read */
};

static bool is_lower_hex(const char *s, size_t len)
{
	return strlen(s) == len && strspn(s, "0123456789abcdef") == len;
}

/* The tree named by a path "/hook/TREE", copied to tree; false for any other path. */
static bool tree_of(const char *url, char tree[TREE_MAX + 1])
{
	static const char first[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	const char *name;
	size_t len;

	if (strncmp(url, HOOK_PREFIX, strlen(HOOK_PREFIX)) != 0)
		return false;
	name = url + strlen(HOOK_PREFIX);
	len = strlen(name);
	if (!len || len > TREE_MAX || !strchr(first, name[0]) ||
	    strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789._-") != len)
		return false;
	memcpy(tree, name, len + 1);
	return true;
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

/*
 * Queues status with why as its one-line text. A refusal is logged once, with what the
 * client sent cut short: log.c escapes the whole line (bg_text_escape_line), so nothing
 * from the request reaches the terminal raw. MHD_NO closes the connection.
 */
static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, const char *method,
			     const char *url, const char *why)
{
	struct bg_strbuf text = BG_STRBUF_INIT;
	struct MHD_Response *resp;
	enum MHD_Result ret;

	if (status >= 400) {
		char addr[INET6_ADDRSTRLEN];

		client_of(c, addr);
		log_warnx("webhook: %s: %.16s '%.*s': %u %s", addr, method,
			  (int)strnlen(url, URL_LOGGED), url, status, why);
	}
	bg_text_escape_line(&text, why, strlen(why));
	bg_strbuf_addch(&text, '\n');
	resp = MHD_create_response_from_buffer(text.len, text.buf, MHD_RESPMEM_MUST_COPY);
	bg_strbuf_release(&text);
	if (!resp)
		return MHD_NO;
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, "POST");
	ret = MHD_queue_response(c, status, resp);
	MHD_destroy_response(resp);
	return ret;
}

/*
 * What the headers alone can refuse, before a byte of the body is read: NULL, or why,
 * with *status set.
 */
static const char *judge_headers(struct MHD_Connection *c, const char *url,
				 const char *method, struct request *r, unsigned *status)
{
	const char *len = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
						      MHD_HTTP_HEADER_CONTENT_LENGTH);
	const char *sig = MHD_lookup_connection_value(c, MHD_HEADER_KIND, SIGNATURE_HEADER);
	unsigned long n;

	*status = MHD_HTTP_NOT_FOUND;
	if (!tree_of(url, r->tree))
		return "no such hook: POST /hook/TREE";
	*status = MHD_HTTP_METHOD_NOT_ALLOWED;
	if (strcmp(method, MHD_HTTP_METHOD_POST) != 0)
		return "a push is POSTed";
	/* MHD refuses a malformed length itself; what it lets through can be too large */
	*status = MHD_HTTP_CONTENT_TOO_LARGE;
	if (len && bg_num_parse_ulong(len, 0, BG_WEBHOOK_MAX_BODY, &n) < 0)
		return "the body is over 1 MiB";
	*status = MHD_HTTP_UNAUTHORIZED;
	if (!sig)
		return "no " SIGNATURE_HEADER " header";
	if (strncmp(sig, SIGNATURE_PREFIX, strlen(SIGNATURE_PREFIX)) != 0 ||
	    !is_lower_hex(sig + strlen(SIGNATURE_PREFIX), BG_SHA256_HEX - 1))
		return SIGNATURE_HEADER " is not sha256=<64 lowercase hex digits>";
	memcpy(r->signature, sig + strlen(SIGNATURE_PREFIX), BG_SHA256_HEX);
	return NULL;
}

/* Reads a push out of its body: NULL, or why it is not one. */
static const char *judge_push(const struct bg_json_doc *d, const char **ref, const char **rev)
{
	const char *after;

	if (!bg_json_doc_is_object(d, ""))
		return "body: a push is a JSON object";
	*ref = bg_json_doc_str(d, "ref");
	if (!*ref)
		return bg_json_doc_has(d, "ref") ? "body: 'ref' is not a string" :
			"body: 'ref' is missing";
	after = bg_json_doc_str(d, "after");
	if (!after && bg_json_doc_has(d, "after"))
		return "body: 'after' is not a string";
	/* git names a deleted ref's new value with zeros: there is nothing to test */
	if (after && is_lower_hex(after, 40) && strspn(after, "0") != 40)
		*rev = after;
	return NULL;
}

/* The whole body is in: checks its signature, then its content, then hands it on. */
static enum MHD_Result finish(struct bg_webhook *w, struct MHD_Connection *c,
			      const char *url, struct request *r)
{
	char mac[BG_SHA256_HEX];
	struct bg_json_doc *d;
	const char *ref = NULL, *rev = NULL, *why;
	enum MHD_Result ret;

	if (bg_hmac_sha256_hex(w->secret, w->secret_len, r->body.buf, r->body.len, mac) < 0)
		return reply(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "POST", url, bg_error_last());
	if (!bg_sha256_hex_equal(mac, r->signature))
		return reply(c, MHD_HTTP_UNAUTHORIZED, "POST", url,
			     SIGNATURE_HEADER " does not match the body");
	/* the JSON reader stops at a NUL: what follows one would go unread */
	if (memchr(r->body.buf, '\0', r->body.len))
		return reply(c, MHD_HTTP_BAD_REQUEST, "POST", url, "body: holds a NUL byte");
	d = bg_json_doc_parse("body", r->body.buf);
	if (!d)
		return reply(c, MHD_HTTP_BAD_REQUEST, "POST", url, bg_error_last());
	why = judge_push(d, &ref, &rev);
	if (why) {
		ret = reply(c, MHD_HTTP_BAD_REQUEST, "POST", url, why);
	} else {
		log_debug("webhook: push of '%s' to tree '%s' at %s", ref, r->tree,
			  rev ? rev : "(no revision)");
		w->fn(r->tree, ref, rev, w->data);
		ret = reply(c, MHD_HTTP_ACCEPTED, "POST", url, "accepted");
	}
	bg_json_doc_free(d);
	return ret;
}

/*
 * MHD calls this first with the headers alone (*state NULL), then once for each piece
 * of the body, then once more with nothing left (*size 0): that last call answers.
 */
static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url,
			      const char *method, const char *version, const char *upload,
			      size_t *size, void **state)
{
	struct bg_webhook *w = cls;
	struct request *r = *state;
	unsigned status;
	const char *why;

	if (!r) {
		r = xcalloc(1, sizeof(*r));
		bg_strbuf_init(&r->body, BG_WEBHOOK_MAX_BODY);
		*state = r;
		why = judge_headers(c, url, method, r, &status);
		r->refused = why != NULL;
		return why ? reply(c, status, method, url, why) : MHD_YES;
	}
	if (r->refused)
		return MHD_NO;
	if (*size) {
		/*
		 * Without a Content-Length (chunked), only counting stops a large body. MHD
		 * 0.9.75 takes no answer mid-body: the connection is then closed unanswered.
		 */
		if (bg_strbuf_add(&r->body, upload, *size) < 0) {
			r->refused = true;
			return reply(c, MHD_HTTP_CONTENT_TOO_LARGE, method, url,
				     "the body is over 1 MiB");
		}
		*size = 0;
		return MHD_YES;
	}
	r->refused = true;      /* answered now, whatever the answer */
	return finish(w, c, url, r);
}

static void completed(void *cls, struct MHD_Connection *c, void **state,
		      enum MHD_RequestTerminationCode toe)
{
	struct request *r = *state;

	if (!r)
		return;
	bg_strbuf_release(&r->body);
	free(r);
	*state = NULL;
}

/*
 * Paths are taken as sent: a tree name needs no %-escape, and decoding one would let
 * "%2F" or "%00" pass for what the path does not show.
 */
static size_t unescape_none(void *cls, struct MHD_Connection *c, char *s)
{
	return strlen(s);
}

BG_PRINTF(2, 0)
static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	char msg[512];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	msg[strcspn(msg, "\n")] = '\0';
	log_warnx("webhook: %s", msg);
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

static uint16_t port_of(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)ss)->sin6_port);
	return ntohs(((const struct sockaddr_in *)ss)->sin_port);
}

static void webhook_free(struct bg_webhook *w)
{
	explicit_bzero(w->secret, w->secret_len);
	free(w->secret);
	free(w);
}

int bg_webhook_start(const char *listen, const void *secret, size_t secret_len,
		     bg_webhook_fn fn, void *data, struct bg_webhook **out)
{
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO | MHD_USE_ERROR_LOG;
	const union MHD_DaemonInfo *info;
	struct sockaddr_storage ss;
	struct bg_webhook *w;

	*out = NULL;
	if (!secret_len)
		return bg_error("webhook: the secret is empty");
	if (parse_listen(listen, &ss) < 0)
		return -1;
	if (ss.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	w = xcalloc(1, sizeof(*w));
	w->secret = xmalloc(secret_len);
	memcpy(w->secret, secret, secret_len);
	w->secret_len = secret_len;
	w->fn = fn;
	w->data = data;
	errno = 0;
	/* the port is in the address already: given again, MHD names it when bind fails */
	w->mhd = MHD_start_daemon(flags, port_of(&ss), NULL, NULL, handle, w,
				  MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL,
				  MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
				  MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)BG_WEBHOOK_TIMEOUT,
				  MHD_OPTION_CONNECTION_LIMIT, (unsigned)BG_WEBHOOK_CONNECTIONS,
				  MHD_OPTION_NOTIFY_COMPLETED, completed, NULL,
				  MHD_OPTION_UNESCAPE_CALLBACK, unescape_none, NULL,
				  MHD_OPTION_END);
	if (!w->mhd) {
		if (errno)
			bg_error_errno("webhook: cannot listen on '%s'", listen);
		else
			bg_error("webhook: cannot listen on '%s'", listen);
		webhook_free(w);
		return -1;
	}
	info = MHD_get_daemon_info(w->mhd, MHD_DAEMON_INFO_BIND_PORT);
	w->port = info ? info->port : 0;
	*out = w;
	return 0;
}

unsigned bg_webhook_port(const struct bg_webhook *w)
{
	return w->port;
}

void bg_webhook_stop(struct bg_webhook *w)
{
	if (!w)
		return;
	MHD_stop_daemon(w->mhd);
	webhook_free(w);
}
