/* The daemon's webhook (webhook.h): a signed push announced over HTTP (lab/http.h). */
#include <pthread.h>

#include "net/http.h"
#include "util/json-read.h"
#include "util/sha.h"
#include "net/webhook.h"
#include "util/error.h"
#include "util/log.h"
#include "util/num.h"
#include "util/text.h"
#include "util/xmalloc.h"

#define HOOK_PREFIX "/hook/"
#define SIGNATURE_HEADER "X-Hub-Signature-256"
#define SIGNATURE_PREFIX "sha256="

struct bg_webhook {
	struct bg_http *http;
	pthread_mutex_t lock;    /* the secret: a reload replaces it while requests come */
	unsigned char *secret;
	size_t secret_len;
	bg_webhook_fn fn;
	void *data;
};

static bool is_lower_hex(const char *s, size_t len)
{
	return strlen(s) == len && strspn(s, "0123456789abcdef") == len;
}

/* The tree named by a path "/hook/TREE", copied to tree; false for any other path. */
static bool tree_of(const char *url, char tree[BG_WEBHOOK_TREE_MAX + 1])
{
	static const char first[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	const char *name;
	size_t len;

	if (strncmp(url, HOOK_PREFIX, strlen(HOOK_PREFIX)) != 0)
		return false;
	name = url + strlen(HOOK_PREFIX);
	len = strlen(name);
	/* as the service's tree names: "a..b" is no tree, and a step up to some readers */
	if (!len || len > BG_WEBHOOK_TREE_MAX || !strchr(first, name[0]) ||
	    strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789._-") != len || strstr(name, ".."))
		return false;
	memcpy(tree, name, len + 1);
	return true;
}

#define TOO_LARGE "the body is over 1 MiB"

/* What the headers alone can refuse, before a byte of the body is read: 0, or the status. */
static unsigned judge_headers(const struct bg_webhook_request *rq, struct bg_webhook_push *p,
			      const char **why)
{
	const char *sig = rq->signature;
	unsigned long n;

	*why = "no such hook: POST /hook/TREE";
	if (!tree_of(rq->path, p->tree))
		return 404;
	*why = "a push is POSTed";
	if (strcmp(rq->method, "POST") != 0)
		return 405;
	/* MHD refuses a malformed length itself; what it lets through can be too large */
	*why = TOO_LARGE;
	if (rq->length && bg_num_parse_ulong(rq->length, 0, BG_WEBHOOK_MAX_BODY, &n) < 0)
		return 413;
	*why = "no " SIGNATURE_HEADER " header";
	if (!sig)
		return 401;
	*why = SIGNATURE_HEADER " is not sha256=<64 lowercase hex digits>";
	if (strncmp(sig, SIGNATURE_PREFIX, strlen(SIGNATURE_PREFIX)) != 0 ||
	    !is_lower_hex(sig + strlen(SIGNATURE_PREFIX), BG_SHA256_HEX - 1))
		return 401;
	*why = NULL;
	return 0;
}

/* Reads a push out of its body into p: NULL, or why it is not one. */
static const char *judge_push(const struct bg_json_doc *d, struct bg_webhook_push *p)
{
	const struct bg_json_value *o = bg_json_doc_root(d);
	const char *ref, *after;

	if (!bg_json_is_object(o))
		return "body: a push is a JSON object";
	ref = bg_json_text(bg_json_get(o, "ref"));
	if (!ref)
		return bg_json_get(o, "ref") ? "body: 'ref' is not a string" :
			"body: 'ref' is missing";
	/* a ref reaches the log: a name git could give it, never empty or a control byte */
	if (!*ref || strlen(ref) > 4096 || bg_text_has_control(ref))
		return "body: 'ref' is not a ref's name";
	after = bg_json_text(bg_json_get(o, "after"));
	if (!after && bg_json_get(o, "after"))
		return "body: 'after' is not a string";
	p->ref = xstrdup(ref);
	/* git names a deleted ref's new value with zeros: there is nothing to test */
	if (after && is_lower_hex(after, 40) && strspn(after, "0") != 40)
		memcpy(p->rev, after, 41);
	return NULL;
}

unsigned bg_webhook_judge(const struct bg_webhook_request *rq, const void *secret,
			  size_t secret_len, struct bg_webhook_push *p, const char **why)
{
	char mac[BG_SHA256_HEX];
	struct bg_json_doc *d;
	unsigned status;

	memset(p, 0, sizeof(*p));
	if ((status = judge_headers(rq, p, why)) || !rq->body)
		return status;
	if (bg_hmac_sha256_hex(secret, secret_len, rq->body, rq->body_len, mac) < 0) {
		*why = bg_error_last();
		return 500;
	}
	*why = SIGNATURE_HEADER " does not match the body";
	if (!bg_sha256_hex_equal(mac, rq->signature + strlen(SIGNATURE_PREFIX)))
		return 401;
	/* the JSON reader stops at a NUL: what follows one would go unread */
	*why = "body: holds a NUL byte";
	if (memchr(rq->body, '\0', rq->body_len))
		return 400;
	if (!(d = bg_json_doc_parse("body", rq->body))) {
		*why = bg_error_last();
		return 400;
	}
	*why = judge_push(d, p);
	bg_json_doc_free(d);
	if (*why)
		return 400;
	*why = "accepted";
	return 202;
}

void bg_webhook_push_release(struct bg_webhook_push *p)
{
	free(p->ref);
	memset(p, 0, sizeof(*p));
}

/* The request as the judge reads it, from the server's; body NULL until it is in. */
static void request_of(const struct bg_http_request *hr, bool with_body,
		       struct bg_webhook_request *rq)
{
	rq->method = hr->method;
	rq->path = hr->path;
	rq->length = bg_http_header(hr, "Content-Length");
	rq->signature = bg_http_header(hr, SIGNATURE_HEADER);
	/* an empty body is still a body: NULL would mean the headers alone */
	rq->body = with_body ? (hr->body ? hr->body : "") : NULL;
	rq->body_len = with_body ? hr->body_len : 0;
}

static bool head(void *data, struct bg_http_request *hr, struct bg_http_answer *a)
{
	struct bg_webhook_request rq;
	struct bg_webhook_push p;

	request_of(hr, false, &rq);
	a->status = bg_webhook_judge(&rq, NULL, 0, &p, &a->text);
	a->allow = "POST";
	bg_webhook_push_release(&p);
	return a->status != 0;
}

/* The whole body is in: checks its signature, then its content, then hands it on. */
static void body(void *data, struct bg_http_request *hr, struct bg_http_answer *a)
{
	struct bg_webhook *w = data;
	struct bg_webhook_request rq;
	struct bg_webhook_push p;
	int taken;

	request_of(hr, true, &rq);
	pthread_mutex_lock(&w->lock);
	a->status = bg_webhook_judge(&rq, w->secret, w->secret_len, &p, &a->text);
	pthread_mutex_unlock(&w->lock);
	if (a->status == 202) {
		log_debug("webhook: push of '%s' to tree '%s' at %s", p.ref, p.tree,
			  *p.rev ? p.rev : "(no revision)");
		taken = w->fn(p.tree, p.ref, *p.rev ? p.rev : NULL, w->data);
		if (taken == BG_WEBHOOK_NO_TREE) {
			a->status = 404;
			a->text = "no tree or inbox of that name is served here";
		} else if (taken < 0) {
			a->status = 503;
			a->text = "the daemon is busy: send the push again later";
		}
	}
	bg_webhook_push_release(&p);
}

static void secret_free(struct bg_webhook *w)
{
	if (!w->secret)
		return;
	explicit_bzero(w->secret, w->secret_len);
	free(w->secret);
}

static void webhook_free(struct bg_webhook *w)
{
	secret_free(w);
	pthread_mutex_destroy(&w->lock);
	free(w);
}

int bg_webhook_set_secret(struct bg_webhook *w, const void *secret, size_t secret_len)
{
	unsigned char *copy;

	if (!secret_len)
		return bg_error("webhook: the secret is empty");
	copy = xmalloc(secret_len);
	memcpy(copy, secret, secret_len);
	pthread_mutex_lock(&w->lock);
	secret_free(w);
	w->secret = copy;
	w->secret_len = secret_len;
	pthread_mutex_unlock(&w->lock);
	return 0;
}

int bg_webhook_start(const char *listen, const void *secret, size_t secret_len,
		     bg_webhook_fn fn, void *data, struct bg_webhook **out)
{
	struct bg_http_service svc = {
		.name = "webhook",
		.timeout = BG_WEBHOOK_TIMEOUT,
		.connections = BG_WEBHOOK_CONNECTIONS,
		.per_client = BG_WEBHOOK_PER_CLIENT,
		.request_seconds = BG_WEBHOOK_REQUEST,
		.max_body = BG_WEBHOOK_MAX_BODY,
		.too_large = TOO_LARGE,
		.head = head,
		.body = body,
	};
	struct bg_webhook *w;

	*out = NULL;
	if (!secret_len)
		return bg_error("webhook: the secret is empty");
	w = xcalloc(1, sizeof(*w));
	pthread_mutex_init(&w->lock, NULL);
	bg_webhook_set_secret(w, secret, secret_len);
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
