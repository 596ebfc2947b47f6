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

/* Calls fn with m named "PREFIX.NAME", or "PREFIX.NAME#K" for the K-th occurrence (K > 1). */
static void emit(struct seen *s, size_t capacity, const char *prefix, const char *name,
		 struct bg_metric *m, struct bg_strbuf *buf,
		 void (*fn)(const struct bg_metric *, void *), void *data)
{
	unsigned k = next_occurrence(s, name, capacity);

	bg_strbuf_reset(buf);
	bg_strbuf_addf(buf, "%s.%s", prefix, name);
	if (k > 1)
		bg_strbuf_addf(buf, "#%u", k);
	m->name = buf->buf;
	fn(m, data);
}

void bg_boot_metrics(const struct bg_boot *b,
		     void (*fn)(const struct bg_metric *m, void *data), void *data)
{
	struct bg_strbuf buf = BG_STRBUF_INIT, name = BG_STRBUF_INIT;
	struct seen calls = { BG_STRMAP_INIT, NULL, 0 }, probes = { BG_STRMAP_INIT, NULL, 0 };
	struct bg_metric m;

	for (size_t i = 0; i < b->nr_initcalls; i++) {
		const struct bg_initcall *ic = &b->initcalls[i];

		m = (struct bg_metric){ .usecs = ic->usecs, .start_us = ic->start_us,
					.end_us = ic->end_us, .lineno = ic->lineno,
					.line = ic->line };
		/* a module's function is its own: nf_defrag_ipv4's nf_defrag_init is not ipv6's */
		if (ic->module) {
			bg_strbuf_reset(&name);
			bg_strbuf_addf(&name, "%s[%s]", ic->name, ic->module);
		}
		emit(&calls, b->nr_initcalls, "initcall", ic->module ? name.buf : ic->name, &m,
		     &buf, fn, data);
	}
	for (size_t i = 0; i < b->nr_probes; i++) {
		const struct bg_probe *pr = &b->probes[i];

		m = (struct bg_metric){ .usecs = pr->usecs, .start_us = pr->start_us,
					.end_us = pr->end_us, .lineno = pr->lineno,
					.line = pr->line };
		emit(&probes, b->nr_probes, "probe", pr->device, &m, &buf, fn, data);
	}
	if (b->init_us >= 0) {
		m = (struct bg_metric){ "boot.init", b->init_us, -1, -1, b->init_line, NULL };
		fn(&m, data);
	}
	if (b->userspace_us >= 0) {
		m = (struct bg_metric){ "boot.userspace", b->userspace_us, -1, -1, 0, NULL };
		fn(&m, data);
	}
	/* one value a run, under one name: the runs of a boot are samples alike */
	for (size_t i = 0; i < b->nr_perf_runs; i++) {
		m = (struct bg_metric){ "perf.trace_startup", b->perf_runs[i], -1, -1, 0, NULL };
		fn(&m, data);
	}
	bg_strbuf_release(&buf);
	bg_strbuf_release(&name);
	bg_strmap_release(&calls.index);
	bg_strmap_release(&probes.index);
	free(calls.count);
	free(probes.count);
}
