/* The names of a boot's metrics (metrics.h). */
#include "parse/metrics.h"
#include "util/strbuf.h"
#include "util/strmap.h"
#include "util/xmalloc.h"

/* The names seen so far of one kind and how often each: a second dup_init is "#2". */
struct seen {
	struct bg_strmap index;
	unsigned *count;
	size_t n;
};

static unsigned next_occurrence(struct seen *s, const char *name, size_t capacity)
{
	size_t i;

	if (!s->count)
		s->count = xcalloc(capacity ? capacity : 1, sizeof(*s->count));
	i = bg_strmap_put(&s->index, name, s->n);
	if (i == s->n)
		s->n++;
	return ++s->count[i];
}

/* Calls fn with "PREFIX.NAME", or "PREFIX.NAME#K" for the K-th occurrence (K > 1). */
static void emit(struct seen *s, size_t capacity, const char *prefix, const char *name,
		 int64_t usecs, const char *line, struct bg_strbuf *buf,
		 void (*fn)(const char *, int64_t, const char *, void *), void *data)
{
	unsigned k = next_occurrence(s, name, capacity);

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
	struct seen calls = { BG_STRMAP_INIT, NULL, 0 }, probes = { BG_STRMAP_INIT, NULL, 0 };

	for (size_t i = 0; i < b->nr_initcalls; i++)
		emit(&calls, b->nr_initcalls, "initcall", b->initcalls[i].name,
		     b->initcalls[i].usecs, b->initcalls[i].line, &buf, fn, data);
	for (size_t i = 0; i < b->nr_probes; i++)
		emit(&probes, b->nr_probes, "probe", b->probes[i].device, b->probes[i].usecs,
		     b->probes[i].line, &buf, fn, data);
	if (b->init_us >= 0)
		fn("boot.init", b->init_us, NULL, data);
	if (b->userspace_us >= 0)
		fn("boot.userspace", b->userspace_us, NULL, data);
	/* one value a run, under one name: the runs of a boot are samples alike */
	for (size_t i = 0; i < b->nr_perf_runs; i++)
		fn("perf.trace_startup", b->perf_runs[i], NULL, data);
	bg_strbuf_release(&buf);
	bg_strmap_release(&calls.index);
	bg_strmap_release(&probes.index);
	free(calls.count);
	free(probes.count);
}
