/* Sending one mail through libcurl's SMTP (smtp.h); curl's errors are translated here. */
#include <ctype.h>

#include <curl/curl.h>

#include "lab/smtp.h"
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
	curl_easy_setopt(c, CURLOPT_URL, srv->url);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "smtp,smtps");
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, srv->connect_timeout > 0 ?
			 srv->connect_timeout : (long)BG_SMTP_CONNECT_TIMEOUT);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, srv->timeout > 0 ? srv->timeout :
			 (long)BG_SMTP_TIMEOUT);
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
