/* String-to-index hash table (strmap.h): open addressing, linear probing, load <= 1/2. */
#include "util/strmap.h"
#include "util/hash.h"
#include "util/xmalloc.h"

struct bg_strmap_slot {
	const char *key;          /* NULL: empty */
	uint64_t hash;
	size_t index;
};

static size_t find_slot(const struct bg_strmap_slot *slots, size_t size, const char *key,
			uint64_t hash)
{
	size_t i = (size_t)hash & (size - 1);

	while (slots[i].key && (slots[i].hash != hash || strcmp(slots[i].key, key) != 0))
		i = (i + 1) & (size - 1);
	return i;
}

ssize_t bg_strmap_get(const struct bg_strmap *m, const char *key)
{
	uint64_t h;
	size_t i;

	if (!m->size)
		return -1;
	h = bg_hash64(key, strlen(key));
	i = find_slot(m->slots, m->size, key, h);
	return m->slots[i].key ? (ssize_t)m->slots[i].index : -1;
}

static void grow(struct bg_strmap *m)
{
	size_t size = m->size ? m->size * 2 : 64;
	struct bg_strmap_slot *slots = xcalloc(size, sizeof(*slots));

	for (size_t i = 0; i < m->size; i++)
		if (m->slots[i].key)
			slots[find_slot(slots, size, m->slots[i].key, m->slots[i].hash)] = m->slots[i];
	free(m->slots);
	m->slots = slots;
	m->size = size;
}

size_t bg_strmap_put(struct bg_strmap *m, const char *key, size_t index)
{
	uint64_t h = bg_hash64(key, strlen(key));
	size_t i;

	if (2 * (m->used + 1) > m->size)
		grow(m);
	i = find_slot(m->slots, m->size, key, h);
	if (m->slots[i].key)
		return m->slots[i].index;
	m->slots[i] = (struct bg_strmap_slot){ key, h, index };
	m->used++;
	return index;
}

void bg_strmap_release(struct bg_strmap *m)
{
	free(m->slots);
	m->slots = NULL;
	m->size = m->used = 0;
}
