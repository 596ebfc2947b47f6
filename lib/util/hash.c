/* The one file that includes xxhash.h. */
#include "util/hash.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

uint64_t bg_hash64(const void *data, size_t len)
{
	return XXH3_64bits(data, len);
}

uint64_t bg_hash64_seed(const void *data, size_t len, uint64_t seed)
{
	return XXH3_64bits_withSeed(data, len, seed);
}
