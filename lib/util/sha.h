/*
 * SHA-256 of files, for content-addressed artifacts, and HMAC-SHA256 of messages, for
 * signed webhooks (wraps OpenSSL).
 */
#ifndef BG_SHA_H
#define BG_SHA_H

#include "util/compat.h"

#define BG_SHA256_HEX 65

int bg_sha256_file(const char *path, char hex[BG_SHA256_HEX]);
void bg_sha256_mem(const void *data, size_t len, char hex[BG_SHA256_HEX]);
/* HMAC-SHA256 of data under key, in lowercase hex; -1 only for a key OpenSSL refuses. */
int bg_hmac_sha256_hex(const void *key, size_t key_len, const void *data, size_t len,
		       char hex[BG_SHA256_HEX]);
/* Whether two hex digests are equal, in a time that does not tell where they differ. */
bool bg_sha256_hex_equal(const char a[BG_SHA256_HEX], const char b[BG_SHA256_HEX]);

#endif
