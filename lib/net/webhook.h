/*
 * The daemon's webhook: an HTTP endpoint on which a git server announces a push, signed
 * as GitHub signs it (wraps libmicrohttpd).
 *
 * Only "POST /hook/TREE" is served, TREE being [a-z0-9][a-z0-9._-]{0,63} without "..".
 * The body is at most BG_WEBHOOK_MAX_BODY bytes of JSON in the shape of GitHub's push
 * event,
 *
 *	{"ref": "refs/heads/for-next", "after": "<40 hex>", ...}
 *
 * and the header "X-Hub-Signature-256: sha256=<64 lowercase hex>" carries HMAC-SHA256 of
 * those exact bytes under the shared secret. The answers: 202 accepted, 400 a body that is
 * not such JSON, 401 a signature missing, malformed or wrong, 404 another path, 405
 * another method, 413 a body too large, 503 a push the daemon cannot take now. Each refusal is logged once; the secret never is.
 * The signature covers the body alone, not the path, and nothing stops a replay: whoever
 * has seen a signed push can send it again, to any tree.
 */
#ifndef BG_WEBHOOK_H
#define BG_WEBHOOK_H

#include "util/compat.h"

#define BG_WEBHOOK_MAX_BODY ((size_t)1024 * 1024)
#define BG_WEBHOOK_TIMEOUT 10       /* seconds a connection may stay silent */
#define BG_WEBHOOK_CONNECTIONS 64   /* connections open at once; more wait to be accepted */
#define BG_WEBHOOK_PER_CLIENT 16    /* of them from one address; more are closed at once */
#define BG_WEBHOOK_REQUEST 20       /* seconds for a request to come whole; a late one is closed */
#define BG_WEBHOOK_TREE_MAX 64      /* bytes of a tree's name in the path */

/* A request as the webhook reads it; every string NUL-terminated, borrowed. */
struct bg_webhook_request {
	const char *method;
	const char *path;           /* the target up to a '?' */
	const char *length;         /* the Content-Length header; NULL when not sent */
	const char *signature;      /* the X-Hub-Signature-256 header; NULL when not sent */
	const char *body;           /* NULL while only the headers are in */
	size_t body_len;
};

/* An accepted push: what the daemon is told. */
struct bg_webhook_push {
	char tree[BG_WEBHOOK_TREE_MAX + 1];   /* from the path */
	char *ref;                  /* the pushed ref as the body names it */
	char rev[41];               /* as fn's rev below; "" for NULL */
};

/*
 * The webhook's whole decision on rq, without a socket. With rq->body NULL: 0 when the
 * headers pass and the body is to be read, else the refusal's status. With the body:
 * 202 and *push filled, or the refusal's status. *why says why in either case (borrowed,
 * valid until the next call); *push is released with bg_webhook_push_release() always.
 */
unsigned bg_webhook_judge(const struct bg_webhook_request *rq, const void *secret,
			  size_t secret_len, struct bg_webhook_push *push, const char **why);
void bg_webhook_push_release(struct bg_webhook_push *push);

struct bg_webhook;

/*
 * Called once for each accepted push, on the webhook's own thread, before the 202 goes
 * out: it must be thread-safe and quick (hand the push to the daemon's loop, through a
 * pipe for instance). tree comes from the path; ref is the pushed ref as the body names
 * it; rev is "after" when that is 40 lowercase hex digits, NULL when it is missing, of
 * another form, or all zeros (the ref was deleted). All are borrowed for the call.
 * 0 when the push is taken (202), -1 when it cannot be now (503: the sender tries again),
 * BG_WEBHOOK_NO_TREE when no tree or inbox has that name (404: nothing is kept of it).
 */
typedef int (*bg_webhook_fn)(const char *tree, const char *ref, const char *rev,
			     void *data);
#define BG_WEBHOOK_NO_TREE (-2)

/*
 * Serves the webhook on listen, "127.0.0.1:8787" or "[::1]:8787" (numeric addresses
 * only; port 0 takes any free port), until bg_webhook_stop(). The secret, which may not
 * be empty, is copied. *out belongs to the caller. -1 with bg_error_last() when listen
 * is malformed or the server cannot start.
 */
int bg_webhook_start(const char *listen, const void *secret, size_t secret_len,
		     bg_webhook_fn fn, void *data, struct bg_webhook **out);
/*
 * Replaces the secret (copied; not empty) while w serves: a request whose body is in is
 * judged by one secret or the other, whole. -1 with why for an empty one.
 */
int bg_webhook_set_secret(struct bg_webhook *w, const void *secret, size_t secret_len);
/* The port it listens on: the one chosen when listen asked for port 0. */
unsigned bg_webhook_port(const struct bg_webhook *w);
/* Closes every connection and frees w; once it returns, fn is not called again. */
void bg_webhook_stop(struct bg_webhook *w);

#endif
