/* bootgate parse: the boot-time figures of console logs, as tables or JSON. */
#include <getopt.h>

#include "cmd.h"
#include "parse/bootlog.h"
#include "report/boot-json.h"
#include "util/error.h"
#include "util/log.h"
#include "util/text.h"
#include "util/xmalloc.h"

struct parse_ctx {
	const char *file;
	bool json;
	bool summary;
	unsigned rows;
	unsigned top;
	struct bg_json *out;
	int write_err;        /* errno of the first write that failed (a table's) */
};

/* -1 once stdout has failed (a reader gone, a full disk): reading more is for no one. */
static int written(struct parse_ctx *c)
{
	if (!ferror(stdout))
		return 0;
	c->write_err = errno ? errno : EIO;
	return -1;
}

struct ranked {
	int64_t value;
	size_t index;
};

/* Larger value first; equal values keep log order. */
static int cmp_ranked(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	if (x->value != y->value)
		return x->value < y->value ? 1 : -1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* Indexes of the n largest values, largest first; *got says how many. */
static size_t *top_indexes(size_t count, int64_t (*value)(const void *, size_t),
			   const void *base, unsigned n, size_t *got)
{
	struct ranked *r = xcalloc(count ? count : 1, sizeof(*r));
	size_t *idx;

	for (size_t i = 0; i < count; i++)
		r[i] = (struct ranked){ value(base, i), i };
	qsort(r, count, sizeof(*r), cmp_ranked);
	*got = count < n ? count : n;
	idx = xcalloc(*got ? *got : 1, sizeof(*idx));
	for (size_t i = 0; i < *got; i++)
		idx[i] = r[i].index;
	free(r);
	return idx;
}

static int64_t initcall_usecs(const void *base, size_t i)
{
	return ((const struct bg_initcall *)base)[i].usecs;
}

static int64_t probe_usecs(const void *base, size_t i)
{
	return ((const struct bg_probe *)base)[i].usecs;
}

/* One row of "slowest initcalls" or "slowest probes": the name is a cell of its own. */
static void print_slow(const char *name, int64_t usecs, int64_t start_us, int ret)
{
	struct bg_strbuf line = BG_STRBUF_INIT;
	char ms[32];

	bg_strbuf_addstr(&line, "  ");
	bg_text_cell(&line, name, 44);
	bg_strbuf_addf(&line, " %10" PRId64 " %12s %5d\n", usecs,
		       cmd_fmt_ms(ms, sizeof(ms), start_us), ret);
	fputs(line.buf, stdout);
	bg_strbuf_release(&line);
}

/* A module's initcall is named with its module, as its metric is: two modules, two rows. */
static const char *initcall_name(struct bg_strbuf *buf, const struct bg_initcall *ic)
{
	if (!ic->module)
		return ic->name;
	bg_strbuf_reset(buf);
	bg_strbuf_addf(buf, "%s[%s]", ic->name, ic->module);
	return buf->buf;
}

static void print_table(const struct parse_ctx *c, const struct bg_boot *b)
{
	struct bg_strbuf name = BG_STRBUF_INIT;
	char t1[32], t2[32], t3[32];
	int64_t sum = 0;
	size_t n, *idx;

	for (size_t i = 0; i < b->nr_initcalls; i++)
		sum += b->initcalls[i].usecs;
	bg_text_println(stdout, "== %s (boot %u, lines %" PRIu64 "-%" PRIu64 ")", c->file, b->index,
			       b->first_line, b->last_line);
	bg_text_printf(stdout, "kernel      %s\n", b->kernel ? b->kernel : "-");
	bg_text_printf(stdout, "outcome     %s%s%s\n", bg_outcome_name(b->outcome), b->panic ? ": " : "",
			       b->panic ? b->panic : "");
	bg_text_printf(stdout, "boot.init   %s ms   boot.userspace %s ms   free initmem %s ms\n",
			       cmd_fmt_ms(t1, sizeof(t1), b->init_us), cmd_fmt_ms(t2, sizeof(t2), b->userspace_us),
			       cmd_fmt_ms(t3, sizeof(t3), b->free_initmem_us));
	bg_text_printf(stdout, "initcalls   %zu (%s ms in all)   probes %zu   problems %" PRIu64
			       "   unparsed lines %" PRIu64 "\n",
			       b->nr_initcalls, cmd_fmt_ms(t1, sizeof(t1), sum), b->nr_probes, b->problems_total,
			       b->unparsed_lines);

	idx = top_indexes(b->nr_initcalls, initcall_usecs, b->initcalls, c->top, &n);
	if (n) {
		bg_text_printf(stdout, "\n  %-44s %10s %12s %5s\n", "slowest initcalls", "usecs",
			       "start ms", "ret");
		for (size_t i = 0; i < n; i++) {
			const struct bg_initcall *ic = &b->initcalls[idx[i]];

			print_slow(initcall_name(&name, ic), ic->usecs, ic->start_us, ic->ret);
		}
	}
	free(idx);
	idx = top_indexes(b->nr_probes, probe_usecs, b->probes, c->top, &n);
	if (n) {
		bg_text_printf(stdout, "\n  %-44s %10s %12s %5s\n", "slowest probes", "usecs",
			       "start ms", "ret");
		for (size_t i = 0; i < n; i++) {
			const struct bg_probe *pr = &b->probes[idx[i]];

			print_slow(pr->device, pr->usecs, pr->start_us, pr->ret);
		}
	}
	free(idx);
	for (size_t i = 0; i < b->nr_problems; i++)
		bg_text_printf(stdout, "  problem: %s\n", b->problems[i]);
	bg_text_printf(stdout, "\n");
	bg_strbuf_release(&name);
}

/* One row per boot, for many logs at a glance. */
static void print_summary_row(struct parse_ctx *c, const struct bg_boot *b)
{
	const struct bg_initcall *slow = NULL;
	struct bg_strbuf name = BG_STRBUF_INIT;
	char t1[32], t2[32], t3[32], slowest[64];
	int64_t sum = 0;

	if (!c->rows++)
		bg_text_printf(stdout, "%-15s %-9s %5s %10s %10s  %-36s %s\n", "kernel", "outcome", "calls",
				       "sum ms", "init ms", "slowest initcall (ms)", "log (boot)");
	for (size_t i = 0; i < b->nr_initcalls; i++) {
		sum += b->initcalls[i].usecs;
		if (!slow || b->initcalls[i].usecs > slow->usecs)
			slow = &b->initcalls[i];
	}
	if (slow)
		snprintf(slowest, sizeof(slowest), "%s %s", initcall_name(&name, slow),
			 cmd_fmt_ms(t3, sizeof(t3), slow->usecs));
	else
		snprintf(slowest, sizeof(slowest), "-");
	bg_text_println(stdout, "%-15s %-9s %5zu %10s %10s  %-36s %s (%u)", b->kernel ? b->kernel : "-",
			       bg_outcome_name(b->outcome), b->nr_initcalls, cmd_fmt_ms(t1, sizeof(t1), sum),
			       cmd_fmt_ms(t2, sizeof(t2), b->init_us), slowest, c->file, b->index);
	bg_strbuf_release(&name);
}

static int on_boot(const struct bg_boot *b, void *data)
{
	struct parse_ctx *c = data;

	if (c->summary) {
		print_summary_row(c, b);
		return written(c);
	}
	if (c->json) {
		bg_boot_write_json(c->out, b, c->file);
		return c->out->err ? -1 : 0;
	}
	print_table(c, b);
	return written(c);
}

static void parse_help(FILE *out)
{
	fprintf(out, "\n"
	       "  --json      one JSON document: {\"logs\": [one object per boot]}\n"
	       "  --summary   one line per boot\n"
	       "  --top N     rows in the slowest-initcall and slowest-probe tables (10)\n"
	       "  LOG         a console capture, a dmesg dump or a LAVA job log; - is stdin\n"
	       "\nexit: 0 every log read, 1 a log could not be read, 2 usage\n");
}

static const struct option parse_opts[] = {
	{ "json", no_argument, NULL, 'j' },
	{ "top", required_argument, NULL, 't' },
	{ "summary", no_argument, NULL, 's' },
	{ NULL, 0, NULL, 0 },
};

static int cmd_parse(int argc, char **argv)
{
	struct parse_ctx c = { .top = 10 };
	struct bg_json out = { 0 };
	int opt, failed = 0;

	while ((opt = getopt_long(argc, argv, "jt:s", parse_opts, NULL)) != -1) {
		switch (opt) {
		case 'j':
			c.json = true;
			break;
		case 't':
			c.top = (unsigned)cmd_parse_count("parse", "--top", optarg, 1, 1000000);
			break;
		case 's':
			c.summary = true;
			break;
		default:
			return cmd_option_error("parse", argv);
		}
	}
	if (optind >= argc)
		return cmd_usage_error("parse", "no log given");
	if (c.json && c.summary)
		return cmd_usage_error("parse", "--json and --summary do not go together");

	if (c.json) {
		fflush(stdout);
		bg_json_init(&out, STDOUT_FILENO, 4);
		c.out = &out;
		bg_json_object_begin(&out);
		bg_json_key(&out, "logs");
		bg_json_array_begin(&out);
	}
	for (int i = optind; i < argc; i++) {
		struct bg_bootlog *p;
		int ret;

		c.file = argv[i];
		p = bg_bootlog_new(argv[i], on_boot, &c);
		bg_bootlog_set_warning(p, cmd_bootlog_warning);
		/* a file with no boot is named and exit 1, as a missing one: no empty row */
		bg_bootlog_require_boot(p, true);
		ret = bg_bootlog_parse_path(p, argv[i]);
		bg_bootlog_free(p);
		if (ret < 0 && (c.json ? out.err : c.write_err)) {
			log_errorx("cannot write the output: %s",
				   strerror(c.json ? out.err : c.write_err));
			return 1;
		}
		if (ret < 0) {
			log_errorx("%s", bg_error_last());
			failed = 1;
		}
	}
	if (c.json) {
		bg_json_array_end(&out);
		bg_json_object_end(&out);
		if (bg_json_finish(&out) < 0) {
			log_errorx("%s", bg_error_last());
			return 1;
		}
	} else if (fflush(stdout) == EOF) {
		log_error("cannot write the output");
		return 1;
	}
	return failed;
}

const struct bg_cmd cmd_parse_entry = {
	"parse", cmd_parse,
	"[--json | --summary] [--top N] LOG|- ...",
	"read boot-time figures (initcalls, probes, time to init) from console or LAVA logs",
	parse_help, parse_opts,
};
