/* Allocation helpers that never return NULL: out of memory ends the program. */
#ifndef BG_XMALLOC_H
#define BG_XMALLOC_H

#include "util/compat.h"

void *xmalloc(size_t size);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *ptr, size_t size);
void *xreallocarray(void *ptr, size_t nmemb, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) BG_PRINTF(1, 2);
char *xvasprintf(const char *fmt, va_list ap);

/* Grows array x of alloc slots so that it holds at least nr elements. */
#define ALLOC_GROW(x, nr, alloc) \
	do { \
		if ((size_t)(nr) > (alloc)) { \
			size_t alloc_new_ = (alloc) < 16 ? 16 : (alloc) * 2; \
			if (alloc_new_ < (size_t)(nr)) \
				alloc_new_ = (nr); \
			(x) = xreallocarray((x), alloc_new_, sizeof(*(x))); \
			(alloc) = alloc_new_; \
		} \
	} while (0)

#endif
