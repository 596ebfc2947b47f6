/* Non-cryptographic hashing for in-memory tables (wraps libxxhash). */
#ifndef BG_HASH_H
#define BG_HASH_H

#include "util/compat.h"

uint64_t bg_hash64(const void *data, size_t len);
/* Hash of data continued from an earlier hash (for keys made of two parts). */
uint64_t bg_hash64_seed(const void *data, size_t len, uint64_t seed);

#endif
