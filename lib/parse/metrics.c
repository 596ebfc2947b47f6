/* The names of a boot's metrics (metrics.h). */
#include "parse/metrics.h"
#include "util/hash.h"
#include "util/strbuf.h"
#include "util/xmalloc.h"

struct name_count {
	const char *name;
	int kind;
	unsigned count;
};

static unsigned next_occurrence(struct name_count *t, size_t size, int kind, const char *name)
{
	size_t i = (bg_hash64(name, strlen(name)) ^ (uint64_t)kind) & (size - 1);

	while (t[i].name && (t[i].kind != kind || strcmp(t[i].name, name) != 0))
		i = (i + 1) & (size - 1);
	if (!t[i].name) {
		t[i].name = name;
		t[i].kind = kind;
	}
	return ++t[i].count;
}

/* Calls fn with "PREFIX.NAME", or "PREFIX.NAME#K" for the K-th occurrence (K > 1). */
static void emit(struct name_count *t, size_t size, int kind, const char *prefix,
		 const char *name, int64_t usecs, const char *line, struct bg_strbuf *buf,
		 void (*fn)(const char *, int64_t, const char *, void *), void *data)
{
	unsigned k = next_occurrence(t, size, kind, name);

	bg_strbuf_reset(buf);
	bg_strbuf_addf(buf, "%s.%s", prefix, name);
	if (k > 1)
		bg_strbuf_addf(buf, "#%u", k);
	fn(buf->buf, usecs, line, data);
}

void bg_boot_metrics(const struct bg_boot *b,
		     void (*fn)(const char *metric, int64_t usecs, const char *line, void *data),
		     void *data)
{
	struct bg_strbuf buf = BG_STRBUF_INIT;
	size_t size = 16;
	struct name_count *t;

	while (size < 2 * (b->nr_initcalls + b->nr_probes) + 2)
		size *= 2;
	t = xcalloc(size, sizeof(*t));
	for (size_t i = 0; i < b->nr_initcalls; i++)
		emit(t, size, 0, "initcall", b->initcalls[i].name, b->initcalls[i].usecs,
		     b->initcalls[i].line, &buf, fn, data);
	for (size_t i = 0; i < b->nr_probes; i++)
		emit(t, size, 1, "probe", b->probes[i].device, b->probes[i].usecs,
		     b->probes[i].line, &buf, fn, data);
	if (b->init_us >= 0)
		fn("boot.init", b->init_us, NULL, data);
	if (b->userspace_us >= 0)
		fn("boot.userspace", b->userspace_us, NULL, data);
	bg_strbuf_release(&buf);
	free(t);
}
