/* The artifact server (artifacts.h): images read-only by their sha256. */
#include <sys/stat.h>

#include "net/artifacts.h"
#include "net/http.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/xmalloc.h"

#define PREFIX "/artifacts/"
#define SUFFIX "/image"

struct bg_artifacts {
	struct bg_http *http;
	char *cache;
};

char *bg_artifacts_url(const char *base, const char *sha256)
{
	return xasprintf("%s/artifacts/%s/image", base, sha256);
}

bool bg_artifact_target(const char *target, char sha[BG_SHA256_HEX])
{
	const char *hex = target + strlen(PREFIX);

	if (strncmp(target, PREFIX, strlen(PREFIX)) != 0 ||
	    strspn(hex, "0123456789abcdef") != BG_SHA256_HEX - 1 ||
	    strcmp(hex + BG_SHA256_HEX - 1, SUFFIX) != 0)
		return false;
	memcpy(sha, hex, BG_SHA256_HEX - 1);
	sha[BG_SHA256_HEX - 1] = '\0';
	return true;
}

/* Every answer is given from the request line and headers: nothing has a body. */
static bool head(void *data, struct bg_http_request *r, struct bg_http_answer *a)
{
	const struct bg_artifacts *srv = data;
	char sha[BG_SHA256_HEX], *rel;
	struct stat st;
	int fd;

	a->status = 404;
	a->text = "no such artifact: GET /artifacts/SHA256/image";
	/* the target as sent: a query or an escape is another name, never this one */
	if (!bg_artifact_target(r->target, sha))
		return true;
	a->status = 405;
	a->text = "artifacts are read with GET or HEAD";
	a->allow = "GET, HEAD";
	if (strcmp(r->method, "GET") != 0 && strcmp(r->method, "HEAD") != 0)
		return true;
	rel = xasprintf("artifacts/%s/image", sha);
	fd = bg_open_beneath(srv->cache, rel);
	free(rel);
	if (fd < 0) {
		/* where the cache is, and why, is for the log, not for the client */
		a->status = 404;
		a->text = "no such artifact";
		a->detail = bg_error_last();
		a->allow = NULL;
		return true;
	}
	if (fstat(fd, &st) < 0) {
		close(fd);
		a->status = 500;
		a->text = "cannot read the artifact";
		return true;
	}
	log_debug("artifacts: %s %s: %lld bytes", r->method, sha, (long long)st.st_size);
	a->status = 200;
	a->text = NULL;
	a->fd = fd;
	a->size = (uint64_t)st.st_size;
	return true;
}

static void no_body(void *data, struct bg_http_request *r, struct bg_http_answer *a)
{
	a->status = 400;
	a->text = "no request here has a body";
}

int bg_artifacts_start(const char *listen, const char *cache, struct bg_artifacts **out)
{
	struct bg_http_service svc = {
		.name = "artifacts",
		.timeout = BG_ARTIFACTS_TIMEOUT,
		.connections = BG_ARTIFACTS_CONNECTIONS,
		.max_body = 0,
		.too_large = "no request here has a body",
		.head = head,
		.body = no_body,
	};
	struct bg_artifacts *a = xcalloc(1, sizeof(*a));

	*out = NULL;
	a->cache = xstrdup(cache);
	svc.data = a;
	if (bg_http_start(listen, &svc, &a->http) < 0) {
		free(a->cache);
		free(a);
		return -1;
	}
	*out = a;
	return 0;
}

unsigned bg_artifacts_port(const struct bg_artifacts *a)
{
	return bg_http_port(a->http);
}

void bg_artifacts_stop(struct bg_artifacts *a)
{
	if (!a)
		return;
	bg_http_stop(a->http);
	free(a->cache);
	free(a);
}
