/*
 * One HTTP request, for talking to a lab's REST API (implemented with libcurl in
 * lab/curl.c): timeouts, a cap on the answer, and curl's errors said once. A credential
 * travels in a header and never appears in an error.
 */
#ifndef BG_HTTP_CLIENT_H
#define BG_HTTP_CLIENT_H

#include "util/compat.h"
#include "util/strbuf.h"

#define BG_HTTP_CONNECT_TIMEOUT 10   /* s */
#define BG_HTTP_TIMEOUT 60           /* s, the whole exchange */

struct bg_http_client_request {
	const char *method;       /* GET or POST */
	const char *url;          /* http:// or https:// */
	const char *auth;         /* a whole header line ("Authorization: Token ..."), or NULL */
	const char *content_type; /* of a POST's body */
	const char *body;
	size_t body_len;
	size_t max_answer;        /* bytes of body kept at most; 0: 16 MiB */
	long connect_timeout;     /* s; 0: BG_HTTP_CONNECT_TIMEOUT */
	long timeout;             /* s; 0: BG_HTTP_TIMEOUT */
};

struct bg_http_client_response {
	long status;              /* the HTTP status */
	struct bg_strbuf body;    /* NUL-terminated */
};

/*
 * 0 once a whole answer came, whatever its status; -1 with bg_error_last() = "URL: why"
 * when none did (no connection, a timeout, a cut answer, one longer than max_answer).
 * a->body is initialised either way and belongs to the caller.
 */
int bg_http_client_send(const struct bg_http_client_request *rq,
			struct bg_http_client_response *a);

#endif
