/*
 * libFuzzer target of the webhook's decision on a request. An input is
 *
 *	METHOD\nPATH\nCONTENT-LENGTH\nSIGNATURE\nSECRET\nBODY
 *
 * where a header of "-" is not sent and a SIGNATURE of "!" is the body's right one (a
 * fuzzer would never guess an HMAC). Besides "no crash, no leak", it checks that the
 * answer is one the webhook documents, that the headers alone refuse what the whole
 * request would, and that a push accepted was signed and names a tree that is a plain
 * name: no '/', no "..", no CR or LF.
 */
#include "util/sha.h"
#include "net/webhook.h"
#include "util/xmalloc.h"

#define fuzz_assert(cond) do { if (!(cond)) __builtin_trap(); } while (0)

/* The next field up to '\n' (the rest for the last), NUL-terminated, owned. */
static char *field(const char **p, const char *end, bool last)
{
	const char *nl = last ? NULL : memchr(*p, '\n', (size_t)(end - *p));
	const char *stop = nl ? nl : end;
	char *f = xmalloc((size_t)(stop - *p) + 1);

	memcpy(f, *p, (size_t)(stop - *p));
	f[stop - *p] = '\0';
	*p = nl ? nl + 1 : end;
	return f;
}

static bool tree_ok(const char *t)
{
	size_t n = strlen(t);

	return n >= 1 && n <= BG_WEBHOOK_TREE_MAX && !strchr(t, '/') && !strstr(t, "..") &&
	       !strpbrk(t, "\r\n") && strspn(t, "abcdefghijklmnopqrstuvwxyz0123456789._-") == n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size, *why;
	char *method = field(&p, end, false), *path = field(&p, end, false);
	char *length = field(&p, end, false), *sig = field(&p, end, false);
	char *secret = field(&p, end, false);
	size_t body_len = (size_t)(end - p);
	char *body = field(&p, end, true);
	char good[7 + BG_SHA256_HEX] = "sha256=";
	bool signed_right = !strcmp(sig, "!");
	struct bg_webhook_request rq = { method, path, strcmp(length, "-") ? length : NULL,
					 strcmp(sig, "-") ? sig : NULL, NULL, 0 };
	struct bg_webhook_push push;
	unsigned head, status;

	if (!*secret) {
		free(secret);
		secret = xstrdup("s3cret");
	}
	fuzz_assert(!bg_hmac_sha256_hex(secret, strlen(secret), body, body_len, good + 7));
	if (signed_right)
		rq.signature = good;
	head = bg_webhook_judge(&rq, NULL, 0, &push, &why);
	fuzz_assert(head == 0 || head == 401 || head == 404 || head == 405 || head == 413);
	fuzz_assert(head == 0 ? !why : why && *why);
	fuzz_assert(!push.ref);
	bg_webhook_push_release(&push);

	rq.body = body;
	rq.body_len = body_len;
	status = bg_webhook_judge(&rq, secret, strlen(secret), &push, &why);
	fuzz_assert(why && *why);
	/* what the headers refuse, the whole request refuses alike */
	fuzz_assert(!head || status == head);
	fuzz_assert(status == 202 || status == 400 || status == 401 || status == 404 ||
		    status == 405 || status == 413);
	if (status == 202) {
		fuzz_assert(!head && !strcmp(method, "POST"));
		fuzz_assert(rq.signature && !strcmp(rq.signature, good));
		fuzz_assert(tree_ok(push.tree) && push.ref);
		fuzz_assert(!memchr(body, '\0', body_len));
		fuzz_assert(!*push.rev || (strlen(push.rev) == 40 &&
					   strspn(push.rev, "0123456789abcdef") == 40 &&
					   strspn(push.rev, "0") != 40));
	} else {
		fuzz_assert(!push.ref);
	}
	bg_webhook_push_release(&push);
	free(method);
	free(path);
	free(length);
	free(sig);
	free(secret);
	free(body);
	return 0;
}
