/*
 * Secrets kept in files (the webhook's shared secret, a LAVA token, the SMTP password):
 * read by one rule, the one scripts/webhook-sign.sh follows too, and wiped from memory
 * before it is given back, on every path.
 */
#ifndef BG_SECRET_H
#define BG_SECRET_H

#include "util/compat.h"

/*
 * The length of the secret at the start of s[0..len): its first line, without the LF
 * that ends it or the CR LF an editor on Windows writes (one CR before the end of the
 * text too). Any other CR stays: it is the secret's, for its user to refuse.
 */
size_t bg_secret_line(const char *s, size_t len);
/*
 * The secret in the regular file path (at most max bytes) by bg_secret_line, NUL-
 * terminated, *len (may be NULL) its length; free it with bg_secret_free. The buffer is
 * max + 1 bytes and holds nothing after the secret's NUL: the rest of the file is wiped at
 * once. An empty secret, or one holding a NUL byte, is refused. NULL with why, naming the
 * file, never the secret.
 */
char *bg_secret_read(const char *path, size_t max, size_t *len);
/* Wipes the secret (explicit_bzero, which no compiler leaves out), then frees it. */
void bg_secret_free(char *secret);

#endif
