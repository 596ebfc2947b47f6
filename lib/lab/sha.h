/* SHA-256 of files, for content-addressed artifacts (wraps OpenSSL). */
#ifndef BG_SHA_H
#define BG_SHA_H

#include "util/compat.h"

#define BG_SHA256_HEX 65

int bg_sha256_file(const char *path, char hex[BG_SHA256_HEX]);
void bg_sha256_mem(const void *data, size_t len, char hex[BG_SHA256_HEX]);

#endif
