/* Writes a parsed boot in the JSON shape documented in schemas/parse.schema.json. */
#include "report/boot-json.h"

static void time_or_null(struct bg_json *j, const char *key, int64_t us)
{
	bg_json_key(j, key);
	if (us >= 0)
		bg_json_int(j, us);
	else
		bg_json_null(j);
}

/* Appends a literal to a buffer whose room was reserved. */
#define PUT(sb, lit) \
	do { \
		memcpy((sb)->buf + (sb)->len, (lit), sizeof(lit) - 1); \
		(sb)->len += sizeof(lit) - 1; \
	} while (0)

static void put_str(struct bg_strbuf *sb, const char *s)
{
	if (!s) {
		PUT(sb, "null");
		return;
	}
	sb->buf[sb->len++] = '"';
	bg_json_escape(sb, s, strlen(s));
	sb->buf[sb->len++] = '"';
}

static void put_time(struct bg_strbuf *sb, int64_t us)
{
	if (us >= 0)
		bg_strbuf_addint(sb, us);
	else
		PUT(sb, "null");
}

/*
 * Initcalls and probes are most of the output of a large log: they are written straight
 * into the output buffer, in the shape bg_json_* would give them.
 */
static void put_initcall(struct bg_json *j, const struct bg_initcall *ic)
{
	struct bg_strbuf *o = &j->out;

	bg_json_raw_begin(j, 200 + 6 * (strlen(ic->name) + (ic->module ? strlen(ic->module) : 0)));
	PUT(o, "{\"name\":");
	put_str(o, ic->name);
	PUT(o, ",\"module\":");
	put_str(o, ic->module);
	PUT(o, ",\"ret\":");
	bg_strbuf_addint(o, ic->ret);
	PUT(o, ",\"usecs\":");
	bg_strbuf_addint(o, ic->usecs);
	PUT(o, ",\"start_us\":");
	put_time(o, ic->start_us);
	PUT(o, ",\"end_us\":");
	put_time(o, ic->end_us);
	PUT(o, ",\"line\":");
	bg_strbuf_addint(o, (int64_t)ic->lineno);
	PUT(o, "}");
	bg_json_raw_end(j);
}

static void put_probe(struct bg_json *j, const struct bg_probe *pr)
{
	struct bg_strbuf *o = &j->out;

	bg_json_raw_begin(j, 200 + 6 * strlen(pr->device));
	PUT(o, "{\"device\":");
	put_str(o, pr->device);
	PUT(o, ",\"ret\":");
	bg_strbuf_addint(o, pr->ret);
	PUT(o, ",\"usecs\":");
	bg_strbuf_addint(o, pr->usecs);
	PUT(o, ",\"start_us\":");
	put_time(o, pr->start_us);
	PUT(o, ",\"end_us\":");
	put_time(o, pr->end_us);
	PUT(o, ",\"line\":");
	bg_strbuf_addint(o, (int64_t)pr->lineno);
	PUT(o, "}");
	bg_json_raw_end(j);
}

void bg_boot_write_json(struct bg_json *j, const struct bg_boot *b, const char *file)
{
	bg_json_object_begin(j);
	bg_json_key(j, "file");
	bg_json_str(j, file);
	bg_json_key(j, "boot");
	bg_json_int(j, b->index);
	bg_json_key(j, "kernel");
	bg_json_str(j, b->kernel);
	bg_json_key(j, "banner");
	bg_json_str(j, b->banner);
	bg_json_key(j, "cmdline");
	bg_json_str(j, b->cmdline);
	bg_json_key(j, "arch");
	bg_json_str(j, b->arch);
	bg_json_key(j, "outcome");
	bg_json_str(j, bg_outcome_name(b->outcome));
	bg_json_key(j, "panic");
	bg_json_str(j, b->panic);

	bg_json_key(j, "initcalls");
	bg_json_array_begin(j);
	for (size_t i = 0; i < b->nr_initcalls; i++)
		put_initcall(j, &b->initcalls[i]);
	bg_json_array_end(j);

	bg_json_key(j, "probes");
	bg_json_array_begin(j);
	for (size_t i = 0; i < b->nr_probes; i++)
		put_probe(j, &b->probes[i]);
	bg_json_array_end(j);

	bg_json_key(j, "milestones");
	bg_json_object_begin(j);
	time_or_null(j, "init_us", b->init_us);
	bg_json_key(j, "init_line");
	if (b->init_line)
		bg_json_int(j, (int64_t)b->init_line);
	else
		bg_json_null(j);
	time_or_null(j, "userspace_us", b->userspace_us);
	time_or_null(j, "free_initmem_us", b->free_initmem_us);
	bg_json_object_end(j);

	/* only where the init ran perf: every other boot's JSON stays as it was */
	if (b->nr_perf_runs || b->perf_failed) {
		bg_json_key(j, "perf");
		bg_json_object_begin(j);
		bg_json_key(j, "trace_startup_us");
		bg_json_array_begin(j);
		for (size_t i = 0; i < b->nr_perf_runs; i++)
			bg_json_int(j, b->perf_runs[i]);
		bg_json_array_end(j);
		bg_json_key(j, "failed_runs");
		bg_json_int(j, b->perf_failed);
		bg_json_object_end(j);
	}

	bg_json_key(j, "problems");
	bg_json_array_begin(j);
	for (size_t i = 0; i < b->nr_problems; i++)
		bg_json_str(j, b->problems[i]);
	bg_json_array_end(j);
	bg_json_key(j, "problems_total");
	bg_json_int(j, (int64_t)b->problems_total);
	bg_json_key(j, "unparsed_lines");
	bg_json_int(j, (int64_t)b->unparsed_lines);
	bg_json_key(j, "log_lines");
	bg_json_array_begin(j);
	bg_json_int(j, (int64_t)b->first_line);
	bg_json_int(j, (int64_t)b->last_line);
	bg_json_array_end(j);
	bg_json_object_end(j);
}
