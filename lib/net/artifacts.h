/*
 * The artifact store served read-only over HTTP, for LAVA's workers to fetch kernels and
 * initramfs by URL: "GET /artifacts/<sha256>/image" (and HEAD) answers the file
 * CACHE/artifacts/<sha256>/image, where bootgate-build stores each image under its
 * sha256 (and the LAVA boot worker each initramfs).
 *
 * Nothing else is served and nothing is listed: any other target, including a query
 * string, a %-escape, "..", "//" or uppercase hex, is 404; another method on an
 * artifact's path 405; a file that is missing, or reached through a symbolic link, 404.
 */
#ifndef BG_ARTIFACTS_H
#define BG_ARTIFACTS_H

#include "util/compat.h"
#include "util/sha.h"

#define BG_ARTIFACTS_LISTEN "127.0.0.1:8788"
#define BG_ARTIFACTS_TIMEOUT 30       /* seconds a connection may stay silent */
#define BG_ARTIFACTS_CONNECTIONS 256  /* open at once; more are refused */

struct bg_artifacts;

/*
 * The sha256 that target names when it is exactly "/artifacts/<64 lowercase hex>/image",
 * copied to sha (NUL-terminated); false for anything else.
 */
bool bg_artifact_target(const char *target, char sha[BG_SHA256_HEX]);
/* The URL base (an artifact server's, no trailing slash) serves sha256's image at. Caller frees. */
char *bg_artifacts_url(const char *base, const char *sha256);
/*
 * Serves cache's artifacts on listen, a numeric "ADDR:PORT" as bg_http_start() takes
 * it, until bg_artifacts_stop(). *out belongs to the caller; -1 with bg_error_last().
 */
int bg_artifacts_start(const char *listen, const char *cache, struct bg_artifacts **out);
unsigned bg_artifacts_port(const struct bg_artifacts *a);
void bg_artifacts_stop(struct bg_artifacts *a);

#endif
