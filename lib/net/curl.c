/*
 * The one file that includes curl.h: sending a mail over SMTP (smtp.h) and one HTTP
 * request to a lab (http-client.h). curl's errors are translated here.
 */
#include <ctype.h>

#include <curl/curl.h>

#include "net/http-client.h"
#include "net/smtp.h"
#include "util/error.h"
#include "util/strbuf.h"

struct upload {
	const char *p;
	size_t left;
};

static size_t read_cb(char *buf, size_t size, size_t nitems, void *data)
{
	struct upload *u = data;
	size_t n = size * nitems < u->left ? size * nitems : u->left;

	memcpy(buf, u->p, n);
	u->p += n;
	u->left -= n;
	return n;
}

int bg_smtp_url_check(const char *url)
{
	const char *host;

	if (!url || (strncmp(url, "smtp://", 7) && strncmp(url, "smtps://", 8)))
		return bg_error("'%s' is not an smtp:// or smtps:// URL", url ? url : "");
	host = strstr(url, "://") + 3;
	if (!*host || *host == '/' || *host == ':')
		return bg_error("'%s' names no host", url);
	for (const char *p = url; *p; p++) {
		unsigned v;

		if ((unsigned char)*p <= ' ' || *p == 0x7f)
			return bg_error("the SMTP URL may not hold a space or a control character");
		/* libcurl decodes %XX: a %0d%0a would reach the server as a command of its own */
		if (*p == '%' && isxdigit((unsigned char)p[1]) && isxdigit((unsigned char)p[2]) &&
		    sscanf(p + 1, "%2x", &v) == 1 && (v <= ' ' || v == 0x7f))
			return bg_error("the SMTP URL may not hold a space or a control character, "
					"even %%-escaped ('%.3s')", p);
	}
	/* a password in the URL would end up in logs and errors: smtp-password-file is for it */
	if (strchr(host, '@'))
		return bg_error("the SMTP URL may not hold a login: give smtp-user and "
				"smtp-password-file");
	return 0;
}

/* What every transfer sets: the URL, its protocols, the error buffer, the timeouts. */
static void base_opts(CURL *c, const char *url, const char *protocols, char *errbuf,
		      long connect_timeout, long timeout)
{
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, protocols);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, connect_timeout);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, timeout);
}

static int once_init(void)
{
	static bool done;

	if (!done && curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
		return bg_error("libcurl cannot start");
	done = true;
	return 0;
}

int bg_smtp_send(const struct bg_smtp *srv, const char *from, char *const *rcpt, size_t nrcpt,
		 const char *msg, size_t len)
{
	char errbuf[CURL_ERROR_SIZE] = "";
	struct curl_slist *to = NULL;
	struct bg_strbuf sender = BG_STRBUF_INIT;
	struct upload up = { msg, len };
	CURL *c = NULL;
	CURLcode rc;
	long code = 0;
	int ret = -1;

	if (bg_smtp_url_check(srv->url) < 0 || once_init() < 0)
		return -1;
	if (!nrcpt)
		return bg_error("%s: no recipient", srv->url);
	if (!(c = curl_easy_init()))
		return bg_error("%s: libcurl cannot make a handle", srv->url);
	bg_strbuf_addf(&sender, "<%s>", from);
	for (size_t i = 0; i < nrcpt; i++) {
		struct bg_strbuf r = BG_STRBUF_INIT;
		struct curl_slist *n;

		bg_strbuf_addf(&r, "<%s>", rcpt[i]);
		n = curl_slist_append(to, r.buf);
		bg_strbuf_release(&r);
		if (!n) {
			bg_error("%s: out of memory", srv->url);
			goto out;
		}
		to = n;
	}
	base_opts(c, srv->url, "smtp,smtps", errbuf, srv->connect_timeout > 0 ?
		  srv->connect_timeout : (long)BG_SMTP_CONNECT_TIMEOUT,
		  srv->timeout > 0 ? srv->timeout : (long)BG_SMTP_TIMEOUT);
	curl_easy_setopt(c, CURLOPT_MAIL_FROM, sender.buf);
	curl_easy_setopt(c, CURLOPT_MAIL_RCPT, to);
	curl_easy_setopt(c, CURLOPT_UPLOAD, 1L);
	curl_easy_setopt(c, CURLOPT_READFUNCTION, read_cb);
	curl_easy_setopt(c, CURLOPT_READDATA, &up);
	curl_easy_setopt(c, CURLOPT_INFILESIZE_LARGE, (curl_off_t)len);
	if (srv->user) {
		curl_easy_setopt(c, CURLOPT_USERNAME, srv->user);
		curl_easy_setopt(c, CURLOPT_PASSWORD, srv->password ? srv->password : "");
		/* a password never crosses the network in clear */
		curl_easy_setopt(c, CURLOPT_USE_SSL, (long)CURLUSESSL_ALL);
	}
	rc = curl_easy_perform(c);
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
	if (rc != CURLE_OK) {
		if (code)
			bg_error("%s: %s (the server answered %ld)", srv->url,
				 *errbuf ? errbuf : curl_easy_strerror(rc), code);
		else
			bg_error("%s: %s", srv->url, *errbuf ? errbuf : curl_easy_strerror(rc));
		goto out;
	}
	ret = 0;
out:
	curl_slist_free_all(to);
	curl_easy_cleanup(c);
	bg_strbuf_release(&sender);
	return ret;
}

/* ---- HTTP ---- */

struct sink {
	struct bg_strbuf *b;
	size_t max;
	bool over;
};

static size_t write_cb(char *buf, size_t size, size_t nmemb, void *data)
{
	struct sink *s = data;
	size_t n = size * nmemb;

	if (s->b->len + n > s->max) {
		s->over = true;
		return 0;      /* curl stops with CURLE_WRITE_ERROR */
	}
	bg_strbuf_add(s->b, buf, n);
	return n;
}

int bg_http_client_send(const struct bg_http_client_request *rq,
			struct bg_http_client_response *a)
{
	char errbuf[CURL_ERROR_SIZE] = "";
	struct curl_slist *hdr = NULL;
	struct sink sink = { &a->body, rq->max_answer ? rq->max_answer : (size_t)16 << 20,
			     false };
	bool post = !strcmp(rq->method, "POST");
	CURL *c;
	CURLcode rc;
	int ret = -1;

	a->status = 0;
	bg_strbuf_init(&a->body, 0);
	if (strncmp(rq->url, "http://", 7) != 0 && strncmp(rq->url, "https://", 8) != 0)
		return bg_error("'%s' is not an http:// or https:// URL", rq->url);
	if (!post && strcmp(rq->method, "GET") != 0)
		return bg_error("%s: method %s is not GET or POST", rq->url, rq->method);
	if (once_init() < 0)
		return -1;
	if (!(c = curl_easy_init()))
		return bg_error("%s: libcurl cannot make a handle", rq->url);
	if (rq->auth && !(hdr = curl_slist_append(hdr, rq->auth)))
		goto oom;
	if (post && rq->content_type) {
		struct bg_strbuf ct = BG_STRBUF_INIT;
		struct curl_slist *n;

		bg_strbuf_addf(&ct, "Content-Type: %s", rq->content_type);
		n = curl_slist_append(hdr, ct.buf);
		bg_strbuf_release(&ct);
		if (!n)
			goto oom;
		hdr = n;
	}
	base_opts(c, rq->url, "http,https", errbuf, rq->connect_timeout > 0 ?
		  rq->connect_timeout : (long)BG_HTTP_CONNECT_TIMEOUT,
		  rq->timeout > 0 ? rq->timeout : (long)BG_HTTP_TIMEOUT);
	/* a redirect would carry the token to wherever it points */
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdr);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, write_cb);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &sink);
	if (post) {
		curl_easy_setopt(c, CURLOPT_POST, 1L);
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, rq->body ? rq->body : "");
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE,
				 (curl_off_t)(rq->body ? rq->body_len : 0));
	}
	rc = curl_easy_perform(c);
	if (rc != CURLE_OK) {
		if (sink.over)
			bg_error("%s: the answer is longer than %zu bytes", rq->url, sink.max);
		else
			bg_error("%s: %s", rq->url, *errbuf ? errbuf : curl_easy_strerror(rc));
		goto out;
	}
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &a->status);
	ret = 0;
	goto out;
oom:
	bg_error("%s: out of memory", rq->url);
out:
	curl_slist_free_all(hdr);
	curl_easy_cleanup(c);
	return ret;
}
