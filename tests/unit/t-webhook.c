/*
 * Unit tests of the webhook (libmicrohttpd behind lab/webhook.h): a server on a free
 * loopback port, and requests written byte by byte on plain sockets, so that what a
 * client library would never send (a raw CR in the path, half a body) can be sent too.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>

#include "unit.h"
#include "util/sha.h"
#include "net/http.h"
#include "net/webhook.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/strbuf.h"
#include "util/xmalloc.h"

#define SECRET "It's a Secret to Everybody"
#define REV "0123456789abcdef0123456789abcdef01234567"
/* well-formed, and wrong for any body */
#define WRONG_SIG "sha256=" REV "0123456789abcdef01234567"
#define PUSH "{\"ref\": \"refs/heads/for-next\", \"after\": \"" REV "\"}"

/* What the callback saw: it runs on the server's thread. */
struct calls {
	pthread_mutex_t lock;
	unsigned n;
	char tree[80], ref[80], rev[48];
};

static struct calls calls = { .lock = PTHREAD_MUTEX_INITIALIZER };
static struct bg_webhook *hook;

static void copy(char *dst, size_t size, const char *s)
{
	snprintf(dst, size, "%s", s ? s : "(null)");
}

/*
 * Takes every push but to the tree "busy", as a daemon that has no room for it, and to
 * "nosuch", as one that serves no such tree.
 */
static int on_push(const char *tree, const char *ref, const char *rev, void *data)
{
	struct calls *c = data;

	pthread_mutex_lock(&c->lock);
	c->n++;
	copy(c->tree, sizeof(c->tree), tree);
	copy(c->ref, sizeof(c->ref), ref);
	copy(c->rev, sizeof(c->rev), rev);
	pthread_mutex_unlock(&c->lock);
	if (!strcmp(tree, "nosuch"))
		return BG_WEBHOOK_NO_TREE;
	return strcmp(tree, "busy") ? 0 : -1;
}

static unsigned ncalls(void)
{
	unsigned n;

	pthread_mutex_lock(&calls.lock);
	n = calls.n;
	pthread_mutex_unlock(&calls.lock);
	return n;
}

/* A connection to the server from the loopback address 127.0.0.N (any for 0). */
static int connect_from(unsigned n)
{
	struct sockaddr_in sin = { .sin_family = AF_INET }, src = { .sin_family = AF_INET };
	struct timeval tv = { .tv_sec = 20 };
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	src.sin_addr.s_addr = htonl(INADDR_LOOPBACK - 1 + n);
	if (n)
		assert_int_equal(bind(fd, (struct sockaddr *)&src, sizeof(src)), 0);
	sin.sin_port = htons(bg_webhook_port(hook));
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(connect(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return fd;
}

static int connect_hook(void)
{
	return connect_from(0);
}

/* Sends what it can of len bytes; false once the server has stopped reading. */
static bool send_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n <= 0)
			return false;
		p += n;
		len -= n;
	}
	return true;
}

/* Reads the answer to its end; the status, or -1 when the server closed without one. */
static int read_answer(int fd, struct bg_strbuf *answer)
{
	char buf[4096];
	ssize_t n;
	int status;

	bg_strbuf_reset(answer);
	while ((n = recv(fd, buf, sizeof(buf), 0)) > 0)
		bg_strbuf_add(answer, buf, n);
	if (sscanf(answer->buf, "HTTP/1.%*d %d ", &status) != 1)
		return -1;
	return status;
}

/* One request on a connection of its own; the answer, headers and text, in answer. */
static int exchange(const void *req, size_t len, struct bg_strbuf *answer)
{
	int fd = connect_hook(), status;

	send_all(fd, req, len);
	status = read_answer(fd, answer);
	close(fd);
	return status;
}

/* The request's head; signature is the whole header value, or NULL for no header. */
static void head(struct bg_strbuf *req, const char *method, const char *path,
		 const char *signature, size_t len)
{
	bg_strbuf_addf(req, "%s %s HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n"
		       "Content-Type: application/json\r\nContent-Length: %zu\r\n",
		       method, path, len);
	if (signature)
		bg_strbuf_addf(req, "X-Hub-Signature-256: %s\r\n", signature);
	bg_strbuf_addstr(req, "\r\n");
}

static void sign(const char *secret, const char *body, size_t len, char header[80])
{
	char hex[BG_SHA256_HEX];

	assert_int_equal(bg_hmac_sha256_hex(secret, strlen(secret), body, len, hex), 0);
	snprintf(header, 80, "sha256=%s", hex);
}

/* A request with any method, path, signature header (or none) and body. */
static int request(const char *method, const char *path, const char *signature,
		   const char *body, size_t len, struct bg_strbuf *answer)
{
	struct bg_strbuf req = BG_STRBUF_INIT;
	int status;

	head(&req, method, path, signature, len);
	bg_strbuf_add(&req, body, len);
	status = exchange(req.buf, req.len, answer);
	bg_strbuf_release(&req);
	return status;
}

/* A POST of body signed with the server's secret, as a git server would send it. */
static int push(const char *path, const char *body, size_t len, struct bg_strbuf *answer)
{
	char signature[80];

	sign(SECRET, body, len, signature);
	return request("POST", path, signature, body, len, answer);
}

static int push_str(const char *path, const char *body, struct bg_strbuf *answer)
{
	return push(path, body, strlen(body), answer);
}

/* The text of an answer, after its headers. */
static const char *text_of(const struct bg_strbuf *answer)
{
	const char *p = strstr(answer->buf, "\r\n\r\n");

	return p ? p + 4 : "";
}

static int start(void **state)
{
	(void)state;
	if (bg_webhook_start("127.0.0.1:0", SECRET, strlen(SECRET), on_push, &calls, &hook)) {
		fprintf(stderr, "t-webhook: %s\n", bg_error_last());
		return -1;
	}
	return 0;
}

static int stop(void **state)
{
	(void)state;
	bg_webhook_stop(hook);
	return 0;
}

static void test_push(void **state)
{
	struct bg_strbuf answer = BG_STRBUF_INIT;
	unsigned before = ncalls();

	(void)state;
	assert_true(bg_webhook_port(hook) > 0);
	assert_int_equal(push_str("/hook/linux-next", PUSH, &answer), 202);
	assert_string_equal(text_of(&answer), "accepted\n");
	assert_int_equal(ncalls(), before + 1);
	assert_string_equal(calls.tree, "linux-next");
	assert_string_equal(calls.ref, "refs/heads/for-next");
	assert_string_equal(calls.rev, REV);
	/* a query string is no part of the path; the longest tree name passes */
	assert_int_equal(push_str("/hook/net?x=1", PUSH, &answer), 202);
	assert_string_equal(calls.tree, "net");
	assert_int_equal(push_str("/hook/0123456789012345678901234567890123456789012345678901"
				  "234567.-_", PUSH, &answer), 202);
	assert_int_equal(ncalls(), before + 3);
	bg_strbuf_release(&answer);
}

/* A push the daemon cannot take now is a 503, never a 202 that is then dropped. */
static void test_busy(void **state)
{
	struct bg_strbuf answer = BG_STRBUF_INIT;
	unsigned before = ncalls();

	(void)state;
	assert_int_equal(push_str("/hook/busy", PUSH, &answer), 503);
	assert_string_equal(text_of(&answer), "the daemon is busy: send the push again later\n");
	assert_int_equal(ncalls(), before + 1);
	assert_int_equal(push_str("/hook/idle", PUSH, &answer), 202);
	bg_strbuf_release(&answer);
}

/* A signed push to a name the daemon does not serve is a 404: it reaches no queue. */
static void test_no_tree(void **state)
{
	struct bg_strbuf answer = BG_STRBUF_INIT;
	unsigned before = ncalls();

	(void)state;
	assert_int_equal(push_str("/hook/nosuch", PUSH, &answer), 404);
	assert_string_equal(text_of(&answer), "no tree or inbox of that name is served here\n");
	assert_int_equal(ncalls(), before + 1);
	bg_strbuf_release(&answer);
}

/* rev is "after" when it names a commit, NULL otherwise; the push is taken all the same. */
static void test_rev(void **state)
{
	static const char *bodies[] = {
		"{\"ref\": \"refs/heads/x\"}",
		"{\"ref\": \"refs/heads/x\", \"after\": \"0123456789ABCDEF0123456789abcdef01234567\"}",
		"{\"ref\": \"refs/heads/x\", \"after\": \"0123456789abcdef\"}",
		"{\"ref\": \"refs/heads/x\", \"after\": \"0000000000000000000000000000000000000000\"}",
	};
	struct bg_strbuf answer = BG_STRBUF_INIT;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bodies); i++) {
		unsigned before = ncalls();

		assert_int_equal(push_str("/hook/x", bodies[i], &answer), 202);
		assert_int_equal(ncalls(), before + 1);
		assert_string_equal(calls.ref, "refs/heads/x");
		assert_string_equal(calls.rev, "(null)");
	}
	bg_strbuf_release(&answer);
}

static void test_signature(void **state)
{
	static const char other[] = "{\"ref\": \"refs/heads/other\"}";
	struct bg_strbuf answer = BG_STRBUF_INIT;
	char sig[80], upper[80];
	unsigned before = ncalls();

	(void)state;
	/* no header at all */
	assert_int_equal(request("POST", "/hook/x", NULL, PUSH, strlen(PUSH), &answer), 401);
	/* under another secret */
	sign("not the secret", PUSH, strlen(PUSH), sig);
	assert_int_equal(request("POST", "/hook/x", sig, PUSH, strlen(PUSH), &answer), 401);
	assert_non_null(strstr(text_of(&answer), "does not match the body"));
	/* the signature of another body, replayed with this one */
	sign(SECRET, other, strlen(other), sig);
	assert_int_equal(request("POST", "/hook/x", sig, PUSH, strlen(PUSH), &answer), 401);
	/* the right digest in uppercase, cut short, or with another prefix */
	sign(SECRET, PUSH, strlen(PUSH), sig);
	memcpy(upper, sig, sizeof(upper));
	for (char *p = upper + 7; *p; p++)
		*p = toupper((unsigned char)*p);
	assert_int_equal(request("POST", "/hook/x", upper, PUSH, strlen(PUSH), &answer), 401);
	assert_non_null(strstr(text_of(&answer), "64 lowercase hex"));
	sig[70] = '\0';
	assert_int_equal(request("POST", "/hook/x", sig, PUSH, strlen(PUSH), &answer), 401);
	sign(SECRET, PUSH, strlen(PUSH), sig);
	memcpy(sig, "sha1=", 5);
	assert_int_equal(request("POST", "/hook/x", sig, PUSH, strlen(PUSH), &answer), 401);
	sign(SECRET, PUSH, strlen(PUSH), sig);
	assert_int_equal(request("POST", "/hook/x", sig + 7, PUSH, strlen(PUSH), &answer), 401);
	assert_int_equal(ncalls(), before);
	/* the same signature, whole, is taken */
	assert_int_equal(request("POST", "/hook/x", sig, PUSH, strlen(PUSH), &answer), 202);
	assert_int_equal(ncalls(), before + 1);
	bg_strbuf_release(&answer);
}

/* A body of 1 MiB is taken; one byte more is refused, announced or found counting. */
static void test_too_large(void **state)
{
	struct bg_strbuf answer = BG_STRBUF_INIT, req = BG_STRBUF_INIT;
	char *body = xmalloc(BG_WEBHOOK_MAX_BODY + 2);
	static const char start_[] = "{\"ref\": \"refs/heads/big\"";
	unsigned before = ncalls();
	int fd, status;

	(void)state;
	memset(body, ' ', BG_WEBHOOK_MAX_BODY);
	memcpy(body, start_, strlen(start_));
	body[BG_WEBHOOK_MAX_BODY - 1] = '}';
	assert_int_equal(push("/hook/big", body, BG_WEBHOOK_MAX_BODY, &answer), 202);
	assert_int_equal(ncalls(), before + 1);

	/* announced: refused on the headers, before a byte of the body is sent */
	head(&req, "POST", "/hook/big", WRONG_SIG,
	     BG_WEBHOOK_MAX_BODY + 1);
	fd = connect_hook();
	assert_true(send_all(fd, req.buf, req.len));
	assert_int_equal(read_answer(fd, &answer), 413);
	close(fd);

	/* chunked, so with no length: the server counts and stops reading */
	bg_strbuf_reset(&req);
	bg_strbuf_addstr(&req, "POST /hook/big HTTP/1.1\r\nHost: localhost\r\n"
			 "Transfer-Encoding: chunked\r\nX-Hub-Signature-256: " WRONG_SIG "\r\n\r\n");
	fd = connect_hook();
	assert_true(send_all(fd, req.buf, req.len));
	for (int i = 0; i < 2 * BG_WEBHOOK_MAX_BODY / 65536; i++) {
		char size[16];

		snprintf(size, sizeof(size), "%x\r\n", 65536);
		if (!send_all(fd, size, strlen(size)) || !send_all(fd, body, 65536) ||
		    !send_all(fd, "\r\n", 2))
			break;
	}
	send_all(fd, "0\r\n\r\n", 5);
	status = read_answer(fd, &answer);
	close(fd);
	/* a 413 if it got out before the connection closed; never an acceptance */
	assert_true(status == 413 || status == -1);
	assert_int_equal(ncalls(), before + 1);
	free(body);
	bg_strbuf_release(&req);
	bg_strbuf_release(&answer);
}

static void test_method(void **state)
{
	struct bg_strbuf answer = BG_STRBUF_INIT;
	unsigned before = ncalls();

	(void)state;
	assert_int_equal(request("GET", "/hook/linux", NULL, "", 0, &answer), 405);
	assert_non_null(strstr(answer.buf, "\r\nAllow: POST\r\n"));
	assert_int_equal(request("PUT", "/hook/linux", NULL, PUSH, strlen(PUSH), &answer), 405);
	assert_int_equal(ncalls(), before);
	bg_strbuf_release(&answer);
}

static void test_paths(void **state)
{
	static const char *paths[] = {
		"/hook/../etc", "/hook/", "/hook", "/", "/other/linux", "/hook/Linux",
		"/hook/a/b", "/hook/.x", "/hook/-x", "/hook/%2e%2e", "/hook/lin%00ux",
		"/hook/linux%2fx", "/hook/a%0d%0ab", "//hook/linux", "/hooks/linux", "/hook/a..b",
		"/hook/0123456789012345678901234567890123456789012345678901234567890123x",
	};
	struct bg_strbuf answer = BG_STRBUF_INIT;
	unsigned before = ncalls();

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(paths); i++) {
		int status = push_str(paths[i], PUSH, &answer);

		if (status != 404)
			fail_msg("'%s': %d, not 404", paths[i], status);
	}
	assert_int_equal(ncalls(), before);
	bg_strbuf_release(&answer);
}

/* A CR or LF in the request line breaks the request: never a push. */
static void test_crlf(void **state)
{
	static const char *reqs[] = {
		"POST /hook/a\rb HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 0\r\n\r\n",
		"POST /hook/a\r\nb HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 0\r\n\r\n",
		"POST /hook/a\nX-Hub-Signature-256: sha256=0 HTTP/1.1\r\nHost: x\r\n\r\n",
	};
	struct bg_strbuf answer = BG_STRBUF_INIT;
	unsigned before = ncalls();

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(reqs); i++) {
		int status = exchange(reqs[i], strlen(reqs[i]), &answer);

		if (status != 400 && status != 404)
			fail_msg("request %zu: %d, not 400 or 404", i, status);
	}
	assert_int_equal(ncalls(), before);
	bg_strbuf_release(&answer);
}

/* A NUL in the request line or a header is no push either, signed as it may be. */
static void test_nul(void **state)
{
	static const char *const lines[] = {
		"POST /hook/x%c/y HTTP/1.1\r\n", "POST /hook/x%c HTTP/1.1\r\n",
		"POST%c /hook/x HTTP/1.1\r\n", "POST /hook/x?a%c HTTP/1.1\r\n",
	};
	struct bg_strbuf answer = BG_STRBUF_INIT, req = BG_STRBUF_INIT;
	unsigned before = ncalls();
	char signature[80];

	(void)state;
	sign(SECRET, PUSH, strlen(PUSH), signature);
	for (size_t i = 0; i < ARRAY_SIZE(lines); i++) {
		int status;

		bg_strbuf_reset(&req);
		bg_strbuf_addf(&req, lines[i], 'N');
		*strchr(req.buf, 'N') = '\0';
		bg_strbuf_addf(&req, "Host: x\r\nConnection: close\r\nContent-Length: %zu\r\n"
			       "X-Hub-Signature-256: %s\r\n\r\n%s", strlen(PUSH), signature, PUSH);
		status = exchange(req.buf, req.len, &answer);
		if (status != 400 && status != 404 && status != -1)
			fail_msg("request line %zu with a NUL: %d, not 400 or 404", i, status);
	}
	assert_int_equal(ncalls(), before);
	bg_strbuf_release(&req);
	bg_strbuf_release(&answer);
}

/* Signed, so the sender holds the secret, but not a push: 400, and why. */
static void test_not_a_push(void **state)
{
	static const struct {
		const char *body;
		size_t len;
		const char *why;
	} cases[] = {
		{ "not json", 8, "body:1:3: '[' or '{' expected near 'not'" },
		{ "{\"ref\": \"refs/heads/x\"", 22, "body:1:22: " },
		{ "[1, 2]", 6, "a push is a JSON object" },
		{ "{}", 2, "'ref' is missing" },
		{ "{\"ref\": 7}", 10, "'ref' is not a string" },
		{ "{\"ref\": \"\"}", 11, "'ref' is not a ref's name" },
		{ "{\"ref\": \"refs/heads/x\\r\\nX-Bad: 1\"}", 35, "'ref' is not a ref's name" },
		{ "{\"ref\": \"refs/heads/x\", \"after\": 7}", 35, "'after' is not a string" },
		{ "{\"ref\": \"refs/heads/x\", \"after\": null}", 38, "'after' is not a string" },
		{ "{\"ref\": \"refs/heads/x\"}\0{\"ref\": 7}", 33, "holds a NUL byte" },
		{ "", 0, "body:1:0: '[' or '{' expected near end of file" },
	};
	struct bg_strbuf answer = BG_STRBUF_INIT;
	unsigned before = ncalls();

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		int status = push("/hook/x", cases[i].body, cases[i].len, &answer);

		if (status != 400 || !strstr(text_of(&answer), cases[i].why))
			fail_msg("'%s': %d '%s', not 400 '%s'", cases[i].body, status,
				 text_of(&answer), cases[i].why);
	}
	assert_int_equal(ncalls(), before);
	bg_strbuf_release(&answer);
}

/* A client that stops mid-body, gone or silent, holds up nobody else. */
static void test_half_body(void **state)
{
	struct bg_strbuf answer = BG_STRBUF_INIT, req = BG_STRBUF_INIT;
	char signature[80];
	unsigned before = ncalls();
	int gone, silent;

	(void)state;
	sign(SECRET, PUSH, strlen(PUSH), signature);
	head(&req, "POST", "/hook/x", signature, strlen(PUSH));
	bg_strbuf_add(&req, PUSH, strlen(PUSH) / 2);
	gone = connect_hook();
	silent = connect_hook();
	assert_true(send_all(gone, req.buf, req.len));
	assert_true(send_all(silent, req.buf, req.len));
	close(gone);
	assert_int_equal(push_str("/hook/x", PUSH, &answer), 202);
	assert_int_equal(ncalls(), before + 1);
	close(silent);
	bg_strbuf_release(&req);
	bg_strbuf_release(&answer);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A client silent mid-body is cut off after BG_WEBHOOK_TIMEOUT seconds, not kept. */
static void test_timeout(void **state)
{
	struct bg_strbuf answer = BG_STRBUF_INIT, req = BG_STRBUF_INIT;
	double t0 = now(), waited;
	int fd;

	(void)state;
	head(&req, "POST", "/hook/x", WRONG_SIG, 100);
	bg_strbuf_addstr(&req, "{\"ref\":");
	fd = connect_hook();
	assert_true(send_all(fd, req.buf, req.len));
	/* the receive timeout is 20 s: an answer or a close well before it is the server's */
	assert_int_equal(read_answer(fd, &answer), -1);
	waited = now() - t0;
	close(fd);
	if (waited < BG_WEBHOOK_TIMEOUT - 1 || waited > BG_WEBHOOK_TIMEOUT + 5)
		fail_msg("closed after %.1f s, not %d", waited, BG_WEBHOOK_TIMEOUT);
	bg_strbuf_release(&req);
	bg_strbuf_release(&answer);
}

/* Where stderr goes until log_end(): a file of its own; its text then, owned. */
struct captured {
	char path[32];
	int saved;
};

static void log_begin(struct captured *c)
{
	int fd;

	snprintf(c->path, sizeof(c->path), "/tmp/t-webhook.XXXXXX");
	fd = mkstemp(c->path);
	c->saved = dup(2);
	assert_true(fd >= 0 && c->saved >= 0);
	assert_int_equal(dup2(fd, 2), 2);
	close(fd);
}

static char *log_end(struct captured *c)
{
	char *log;

	assert_int_equal(dup2(c->saved, 2), 2);
	close(c->saved);
	log = bg_read_file(c->path, 1 << 24, NULL);
	unlink(c->path);
	assert_non_null(log);
	return log;
}

/* One line for a refusal, escaped; neither the secret nor the MAC it expected. */
static void test_log(void **state)
{
	struct bg_strbuf answer = BG_STRBUF_INIT;
	struct bg_webhook *shared = hook;
	struct captured c;
	char mac[80], *log;

	(void)state;
	/* a server of its own: the other tests' refusals may have used the log's rate */
	assert_int_equal(bg_webhook_start("127.0.0.1:0", SECRET, strlen(SECRET), on_push,
					  &calls, &hook), 0);
	log_begin(&c);
	assert_int_equal(request("POST", "/hook/x", WRONG_SIG, PUSH, strlen(PUSH), &answer), 401);
	assert_int_equal(push_str("/hook/a\x1b[2Jb", PUSH, &answer), 404);
	{
		/* cut at the NUL, the path would read as the real hook refused */
		static const char nul[] = "POST /hook/x\0/y HTTP/1.1\r\nHost: x\r\n"
					  "Connection: close\r\nContent-Length: 0\r\n\r\n";

		assert_int_equal(exchange(nul, sizeof(nul) - 1, &answer), 400);
	}
	log = log_end(&c);
	bg_webhook_stop(hook);
	hook = shared;
	assert_string_equal(log,
		"bootgate: warning: webhook: 127.0.0.1: POST '/hook/x': 401 "
		"X-Hub-Signature-256 does not match the body\n"
		"bootgate: warning: webhook: 127.0.0.1: POST '/hook/a\\x1b[2Jb': 404 "
		"no such hook: POST /hook/TREE\n"
		"bootgate: warning: webhook: 127.0.0.1: POST '/hook/x<NUL>/y': 400 "
		"a NUL in the request line\n");
	sign(SECRET, PUSH, strlen(PUSH), mac);
	assert_null(strstr(log, mac + 7));
	assert_null(strstr(log, SECRET));
	free(log);
	bg_strbuf_release(&answer);
}

/* How many lines of log hold what, and the sum of the numbers after each "after". */
static unsigned count_lines(const char *log, const char *what, const char *after,
			    unsigned long *sum)
{
	unsigned n = 0;

	for (const char *p = log, *nl; *p; p = nl + 1) {
		char line[512];
		const char *a;

		nl = strchr(p, '\n');
		if (!nl)
			nl = p + strlen(p) - 1;
		snprintf(line, sizeof(line), "%.*s", (int)(nl - p), p);
		if (!strstr(line, what))
			continue;
		n++;
		if (sum && after && (a = strstr(line, after)))
			*sum += strtoul(a + strlen(after), NULL, 10);
	}
	return n;
}

/*
 * A flood from one client, connections over its limit and unsigned posts, makes a few
 * lines and a count of the rest, not a line each: the log is not the attacker's to fill.
 */
static void test_flood(void **state)
{
	enum { FLOOD = 2000 };
	struct bg_strbuf answer = BG_STRBUF_INIT;
	struct bg_webhook *shared = hook;
	int held[BG_WEBHOOK_PER_CLIENT];
	unsigned long suppressed = 0;
	unsigned refused = 0, lines, limit_lines, bound;
	struct captured c;
	double t0 = now(), took;
	char *log, which[96];

	(void)state;
	/* a server of its own: what the other tests logged counts for nothing here */
	log_begin(&c);
	assert_int_equal(bg_webhook_start("127.0.0.1:0", SECRET, strlen(SECRET), on_push,
					  &calls, &hook), 0);
	for (size_t i = 0; i < ARRAY_SIZE(held); i++)
		held[i] = connect_hook();
	for (unsigned i = 0; i < FLOOD; i++) {
		int fd = connect_hook();

		/* closed at once, unanswered: the client's limit is reached */
		refused += read_answer(fd, &answer) == -1;
		close(fd);
	}
	for (size_t i = 0; i < ARRAY_SIZE(held); i++)
		close(held[i]);
	/* until the server has seen them go, a new connection is still over the limit */
	usleep(500 * 1000);
	for (unsigned i = 0; i < FLOOD; i++)
		/* no body: one left unread when the 401 goes out could be reset */
		if (request("POST", "/hook/x", NULL, "", 0, &answer) != 401)
			fail_msg("unsigned post %u: not 401", i);
	bg_webhook_stop(hook);
	hook = shared;
	took = now() - t0;
	log = log_end(&c);
	assert_int_equal(refused, FLOOD);
	lines = count_lines(log, "", NULL, NULL);
	limit_lines = count_lines(log, "limit", NULL, NULL);
	/* MHD says the same of both limits: the line says the one it is */
	assert_int_equal(count_lines(log, "Server reached", NULL, NULL), 0);
	snprintf(which, sizeof(which), "a client reached the per-address limit of %u connections",
		 BG_WEBHOOK_PER_CLIENT);
	assert_int_equal(count_lines(log, which, NULL, NULL), limit_lines);
	/* each window lets BG_HTTP_LOG_BURST lines through, then one line counts the rest */
	bound = ((unsigned)(took / BG_HTTP_LOG_WINDOW) + 2) * (BG_HTTP_LOG_BURST + 1);
	if (lines > bound)
		fail_msg("%u lines of log for %d refused connections and %d unsigned posts in "
			 "%.1f s, more than %u", lines, FLOOD, FLOOD, took, bound);
	assert_true(count_lines(log, "lines suppressed", " webhook: ", &suppressed) >= 1);
	/* nothing is lost from the count: each refusal is a line or in a sum */
	if (limit_lines + count_lines(log, ": 401 ", NULL, NULL) + suppressed != 2 * FLOOD)
		fail_msg("%u lines of the limit, %u of 401, %lu suppressed: not %d", limit_lines,
			 count_lines(log, ": 401 ", NULL, NULL), suppressed, 2 * FLOOD);
	print_message("flood: %u lines of log for %d refusals in %.1f s, %lu suppressed\n",
		      lines, 2 * FLOOD, took, suppressed);
	free(log);
	bg_strbuf_release(&answer);
}

/* The process's resident memory, in KiB. */
static long rss_kib(void)
{
	char *status = bg_read_file("/proc/self/status", 1 << 16, NULL), *p;
	long kib = -1;

	assert_non_null(status);
	if ((p = strstr(status, "\nVmRSS:")))
		kib = strtol(p + 7, NULL, 10);
	free(status);
	assert_true(kib > 0);
	return kib;
}

/*
 * 64 connections at once, 16 from each of four addresses, each with a body of almost
 * 1 MiB: the server holds at most what docs/design/service.md says, and gives it back
 * once they are answered (it kept 76 MB of 102 once, for a body's 1 MiB held each).
 */
static void test_memory(void **state)
{
	enum { CONNS = BG_WEBHOOK_CONNECTIONS, LEN = BG_WEBHOOK_MAX_BODY - 100 };
	struct bg_strbuf answer = BG_STRBUF_INIT, req = BG_STRBUF_INIT;
	long base, held = 0, last = -1, after;
	int fds[CONNS];
	char *body;

	(void)state;
#ifdef UNDER_ASAN
	skip();      /* the sanitizer's allocator keeps what is freed: nothing to measure */
#endif
	body = xmalloc(LEN);
	memset(body, 'x', LEN);
	head(&req, "POST", "/hook/x", WRONG_SIG, LEN);
	base = rss_kib();
	for (unsigned i = 0; i < CONNS; i++) {
		fds[i] = connect_from(1 + i / BG_WEBHOOK_PER_CLIENT);
		assert_true(send_all(fds[i], req.buf, req.len));
		assert_true(send_all(fds[i], body, LEN - 1));
	}
	/* the server has read them all when its memory stops growing */
	for (int i = 0; i < 50 && held != last; i++) {
		last = held;
		usleep(100 * 1000);
		held = rss_kib() - base;
	}
	for (unsigned i = 0; i < CONNS; i++) {
		assert_true(send_all(fds[i], body, 1));
		assert_int_equal(read_answer(fds[i], &answer), 401);
		close(fds[i]);
	}
	usleep(200 * 1000);
	after = rss_kib() - base;
	print_message("memory: %d bodies of %d bytes held: +%ld KiB; once answered: +%ld KiB\n",
		      CONNS, LEN, held, after);
	/* each body, and libmicrohttpd's 32 KiB of each connection, and a little more */
	if (held > CONNS * (long)(BG_WEBHOOK_MAX_BODY / 1024 + 64) || after > 4096)
		fail_msg("+%ld KiB held, +%ld KiB after: over %ld and 4096", held, after,
			 CONNS * (long)(BG_WEBHOOK_MAX_BODY / 1024 + 64));
	free(body);
	bg_strbuf_release(&req);
	bg_strbuf_release(&answer);
}

static void test_start_errors(void **state)
{
	static const char *bad[] = {
		"localhost:8787", "127.0.0.1", "127.0.0.1:", "127.0.0.1:65536", "127.0.0.1:-1",
		"::1:8787", "[::1]", "[::1:8787", "[127.0.0.1]:8787", ":8787", "[]:8787",
	};
	struct bg_webhook *w = (void *)1;
	char listen[32];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		if (bg_webhook_start(bad[i], SECRET, strlen(SECRET), on_push, NULL, &w) != -1)
			fail_msg("'%s' taken", bad[i]);
		assert_null(w);
	}
	assert_int_equal(bg_webhook_start("127.0.0.1:8787", "", 0, on_push, NULL, &w), -1);
	assert_string_equal(bg_error_last(), "webhook: the secret is empty");
	/* the port the shared server holds */
	snprintf(listen, sizeof(listen), "127.0.0.1:%u", bg_webhook_port(hook));
	assert_int_equal(bg_webhook_start(listen, SECRET, strlen(SECRET), on_push, NULL, &w), -1);
	assert_non_null(strstr(bg_error_last(), "cannot listen on '127.0.0.1:"));
	bg_webhook_stop(NULL);
}

/* IPv6 loopback, where the machine has it. */
static void test_ipv6(void **state)
{
	struct sockaddr_in6 sin6 = { .sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT };
	struct bg_webhook *w;
	int fd;

	(void)state;
	if (bg_webhook_start("[::1]:0", SECRET, strlen(SECRET), on_push, NULL, &w) < 0)
		skip();
	assert_true(bg_webhook_port(w) > 0);
	sin6.sin6_port = htons(bg_webhook_port(w));
	fd = socket(AF_INET6, SOCK_STREAM, 0);
	assert_int_equal(connect(fd, (struct sockaddr *)&sin6, sizeof(sin6)), 0);
	close(fd);
	bg_webhook_stop(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_push),
		cmocka_unit_test(test_rev),
		cmocka_unit_test(test_busy),
		cmocka_unit_test(test_no_tree),
		cmocka_unit_test(test_signature),
		cmocka_unit_test(test_too_large),
		cmocka_unit_test(test_method),
		cmocka_unit_test(test_paths),
		cmocka_unit_test(test_crlf),
		cmocka_unit_test(test_nul),
		cmocka_unit_test(test_not_a_push),
		cmocka_unit_test(test_half_body),
		cmocka_unit_test(test_timeout),
		cmocka_unit_test(test_log),
		cmocka_unit_test(test_flood),
		cmocka_unit_test(test_memory),
		cmocka_unit_test(test_start_errors),
		cmocka_unit_test(test_ipv6),
	};

	return cmocka_run_group_tests_name("webhook", tests, start, stop);
}
