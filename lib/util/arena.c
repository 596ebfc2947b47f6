/* Carves small allocations out of 64 KiB blocks so a boot's strings cost one free. */
#include "util/arena.h"
#include "util/xmalloc.h"

#define BLOCK_SIZE 65536

struct bg_arena_block {
	struct bg_arena_block *next;
	size_t size;
	max_align_t data[];
};

void *bg_arena_alloc(struct bg_arena *a, size_t size)
{
	size_t align = _Alignof(max_align_t);
	size_t need = (size + align - 1) & ~(align - 1);
	struct bg_arena_block *b = a->head;
	char *p;

	if (!b || a->used + need > b->size) {
		size_t bsize = need > BLOCK_SIZE ? need : BLOCK_SIZE;

		b = xmalloc(sizeof(*b) + bsize);
		b->size = bsize;
		b->next = a->head;
		a->head = b;
		a->used = 0;
	}
	p = (char *)b->data + a->used;
	a->used += need;
	a->total += size;
	return p;
}

char *bg_arena_strndup(struct bg_arena *a, const char *s, size_t len)
{
	char *p = bg_arena_alloc(a, len + 1);

	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

void bg_arena_reset(struct bg_arena *a)
{
	struct bg_arena_block *b = a->head, *next;

	if (!b)
		return;
	/* keep the oldest block: it is the one sized BLOCK_SIZE in the common case */
	while (b->next) {
		next = b->next;
		free(b);
		b = next;
	}
	a->head = b;
	a->used = 0;
	a->total = 0;
}

void bg_arena_release(struct bg_arena *a)
{
	struct bg_arena_block *b = a->head, *next;

	while (b) {
		next = b->next;
		free(b);
		b = next;
	}
	a->head = NULL;
	a->used = 0;
	a->total = 0;
}
