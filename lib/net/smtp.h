/*
 * Sending one mail over SMTP (implemented with libcurl in lab/curl.c, the only file that
 * includes curl/curl.h): an smtp:// or smtps:// URL, an optional login, timeouts, and
 * curl's errors said once.
 */
#ifndef BG_SMTP_H
#define BG_SMTP_H

#include "util/compat.h"

#define BG_SMTP_CONNECT_TIMEOUT 10   /* s */
#define BG_SMTP_TIMEOUT 60           /* s, the whole exchange */

struct bg_smtp {
	const char *url;        /* smtp://HOST[:PORT] or smtps://HOST[:PORT] */
	const char *user;       /* NULL: no login; with smtp://, STARTTLS is then required */
	const char *password;   /* never logged nor put in a message */
	long connect_timeout;   /* s; 0: BG_SMTP_CONNECT_TIMEOUT */
	long timeout;           /* s; 0: BG_SMTP_TIMEOUT */
};

/* Whether url is one bootgate sends through: smtp:// or smtps://, a host, no login in it. */
int bg_smtp_url_check(const char *url);
/*
 * Sends msg (headers and body, CRLF line ends) from the envelope sender to every
 * recipient. 0 once the server accepted it, else -1 with bg_error_last() = "URL: why"
 * (the server's answer code when it gave one).
 */
int bg_smtp_send(const struct bg_smtp *srv, const char *from, char *const *rcpt, size_t nrcpt,
		 const char *msg, size_t len);

#endif
