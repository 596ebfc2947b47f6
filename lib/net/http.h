/*
 * A small HTTP server for the daemon's endpoints, the webhook and the artifacts (wraps
 * libmicrohttpd): it listens on a numeric address, reads a request's headers and at most
 * a bounded body, and sends what a service's handlers answer, a line of text or a file.
 *
 * One thread per server runs every connection (epoll); the handlers run on it, so they
 * must be quick and thread-safe. Every answer of status 400 or more is logged once, as
 * "NAME: CLIENT: METHOD 'TARGET': STATUS WHY", the target cut short and escaped by log.c,
 * within the rate below.
 */
#ifndef BG_HTTP_H
#define BG_HTTP_H

#include "util/compat.h"

/*
 * What a server logs (its refusals, the reaper's cuts and libmicrohttpd's own lines) is
 * rate-limited, as a client can make a line with each connection: BG_HTTP_LOG_BURST
 * lines in each BG_HTTP_LOG_WINDOW seconds, then one line counts those left out.
 */
#define BG_HTTP_LOG_BURST 60
#define BG_HTTP_LOG_WINDOW 10

struct bg_http;

/* A request, borrowed by the handlers for the call. */
struct bg_http_request {
	const char *method;
	const char *target;   /* as sent: the path and any query, never %-decoded */
	const char *path;     /* the target up to a '?' */
	const char *body;     /* in body() only: the whole body, NUL-terminated */
	size_t body_len;
	void *state;          /* the handlers': set by head(), freed by release() */
	void *conn;           /* the server's own */
};

/* An answer: a line of text, or the whole of a regular file. */
struct bg_http_answer {
	unsigned status;
	const char *text;     /* the body (a newline is added), and why in the log */
	const char *detail;   /* NULL, or more of why for the log alone */
	int fd;               /* >= 0: the body is size bytes of this file, which is taken */
	uint64_t size;
	const char *type;     /* of the file: default application/octet-stream */
	const char *allow;    /* the Allow header of a 405 */
};

struct bg_http_service {
	const char *name;     /* "webhook": its log lines and errors start with it */
	unsigned timeout;     /* seconds a connection may stay silent */
	unsigned connections; /* open at once; more wait in the listen queue */
	unsigned per_client;  /* open at once from one address, more are closed; 0: any */
	/*
	 * Seconds for a request to come whole, headers and body, from its connection's
	 * start or the previous answer on it; a late one is closed unanswered. 0: no limit
	 * (then a client sending a byte every few seconds holds a connection for ever).
	 */
	unsigned request_seconds;
	/*
	 * Bytes; a longer body (any, for 0) is 413 with too_large. A request holds at most
	 * this much memory for its body (a mapping, unmapped when it is answered).
	 */
	size_t max_body;
	const char *too_large;
	/*
	 * The headers are in: true when a is filled to answer at once (the body is not
	 * read), false to read the body and call body().
	 */
	bool (*head)(void *data, struct bg_http_request *r, struct bg_http_answer *a);
	void (*body)(void *data, struct bg_http_request *r, struct bg_http_answer *a);
	void (*release)(void *state);     /* NULL: state is never set */
	void *data;
};

/*
 * Serves svc (copied; its strings and data must outlive the server) on listen,
 * "127.0.0.1:8787" or "[::1]:8787" (numeric only; port 0 takes any free port), until
 * bg_http_stop(). *out belongs to the caller. -1 with bg_error_last() when listen is
 * malformed or the server cannot start.
 */
int bg_http_start(const char *listen, const struct bg_http_service *svc,
		  struct bg_http **out);
/* 0 when listen is an address bg_http_start() takes, else -1 with why. */
int bg_http_check_listen(const char *listen);
/* The port it listens on: the one chosen when listen asked for port 0. */
unsigned bg_http_port(const struct bg_http *h);
/* A header of the request, borrowed; NULL when it was not sent. */
const char *bg_http_header(const struct bg_http_request *r, const char *name);
/* Closes every connection and frees h; once it returns, no handler is called again. */
void bg_http_stop(struct bg_http *h);

#endif
