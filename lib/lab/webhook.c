/* The daemon's webhook (webhook.h): a signed push announced over HTTP (lab/http.h). */
#include "lab/http.h"
#include "lab/json-read.h"
#include "lab/sha.h"
#include "lab/webhook.h"
#include "util/error.h"
#include "util/log.h"
#include "util/num.h"
#include "util/xmalloc.h"

#define HOOK_PREFIX "/hook/"
#define TREE_MAX 64
#define SIGNATURE_HEADER "X-Hub-Signature-256"
#define SIGNATURE_PREFIX "sha256="

struct bg_webhook {
	struct bg_http *http;
	unsigned char *secret;
	size_t secret_len;
	bg_webhook_fn fn;
	void *data;
};

/* A request whose headers passed: judged whole once its body is in. */
struct request {
	char tree[TREE_MAX + 1];
	char signature[BG_SHA256_HEX];
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

#define TOO_LARGE "the body is over 1 MiB"

/*
 * What the headers alone can refuse, before a byte of the body is read: NULL, or why,
 * with *status set.
 */
static const char *judge_headers(const struct bg_http_request *hr, struct request *r,
				 unsigned *status)
{
	const char *len = bg_http_header(hr, "Content-Length");
	const char *sig = bg_http_header(hr, SIGNATURE_HEADER);
	unsigned long n;

	*status = 404;
	if (!tree_of(hr->path, r->tree))
		return "no such hook: POST /hook/TREE";
	*status = 405;
	if (strcmp(hr->method, "POST") != 0)
		return "a push is POSTed";
	/* MHD refuses a malformed length itself; what it lets through can be too large */
	*status = 413;
	if (len && bg_num_parse_ulong(len, 0, BG_WEBHOOK_MAX_BODY, &n) < 0)
		return TOO_LARGE;
	*status = 401;
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

static bool head(void *data, struct bg_http_request *hr, struct bg_http_answer *a)
{
	struct request *r = xcalloc(1, sizeof(*r));

	hr->state = r;
	a->text = judge_headers(hr, r, &a->status);
	a->allow = "POST";
	return a->text != NULL;
}

/* The whole body is in: checks its signature, then its content, then hands it on. */
static void body(void *data, struct bg_http_request *hr, struct bg_http_answer *a)
{
	struct bg_webhook *w = data;
	const struct request *r = hr->state;
	char mac[BG_SHA256_HEX];
	struct bg_json_doc *d;
	const char *ref = NULL, *rev = NULL;

	a->status = 500;
	if (bg_hmac_sha256_hex(w->secret, w->secret_len, hr->body, hr->body_len, mac) < 0) {
		a->text = bg_error_last();
		return;
	}
	a->status = 401;
	a->text = SIGNATURE_HEADER " does not match the body";
	if (!bg_sha256_hex_equal(mac, r->signature))
		return;
	/* the JSON reader stops at a NUL: what follows one would go unread */
	a->status = 400;
	a->text = "body: holds a NUL byte";
	if (memchr(hr->body, '\0', hr->body_len))
		return;
	d = bg_json_doc_parse("body", hr->body);
	if (!d) {
		a->text = bg_error_last();
		return;
	}
	a->text = judge_push(d, &ref, &rev);
	if (!a->text) {
		log_debug("webhook: push of '%s' to tree '%s' at %s", ref, r->tree,
			  rev ? rev : "(no revision)");
		w->fn(r->tree, ref, rev, w->data);
		a->status = 202;
		a->text = "accepted";
	}
	bg_json_doc_free(d);
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
	struct bg_http_service svc = {
		.name = "webhook",
		.timeout = BG_WEBHOOK_TIMEOUT,
		.connections = BG_WEBHOOK_CONNECTIONS,
		.max_body = BG_WEBHOOK_MAX_BODY,
		.too_large = TOO_LARGE,
		.head = head,
		.body = body,
		.release = free,
	};
	struct bg_webhook *w;

	*out = NULL;
	if (!secret_len)
		return bg_error("webhook: the secret is empty");
	w = xcalloc(1, sizeof(*w));
	w->secret = xmalloc(secret_len);
	memcpy(w->secret, secret, secret_len);
	w->secret_len = secret_len;
	w->fn = fn;
	w->data = data;
	svc.data = w;
	if (bg_http_start(listen, &svc, &w->http) < 0) {
		webhook_free(w);
		return -1;
	}
	*out = w;
	return 0;
}

unsigned bg_webhook_port(const struct bg_webhook *w)
{
	return bg_http_port(w->http);
}

void bg_webhook_stop(struct bg_webhook *w)
{
	if (!w)
		return;
	bg_http_stop(w->http);
	webhook_free(w);
}
