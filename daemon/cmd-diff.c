/* bootgate diff: two boots side by side, initcall by initcall, probe by probe. */
#include <getopt.h>

#include "cmd.h"
#include "parse/bootlog.h"
#include "util/error.h"
#include "util/json.h"
#include "util/log.h"
#include "util/text.h"
#include "util/strbuf.h"
#include "parse/metrics.h"
#include "util/xmalloc.h"

struct side_value {
	char *metric;          /* "initcall.NAME", "#N" added from the second occurrence on */
	int64_t usecs;
	const char *line;      /* the kernel's own line, or NULL for milestones */
	size_t order;          /* position in the boot */
};

struct row {
	const char *metric;
	int64_t a, b;          /* -1: missing on that side */
	const char *a_line, *b_line;
	int64_t delta;
};

struct side {
	const char *file;
	struct bg_boot *boot;
	unsigned boots;
	struct side_value *v;
	size_t n, alloc;
};

static int keep_first_boot(const struct bg_boot *b, void *data)
{
	struct side *s = data;

	if (!s->boot)
		s->boot = bg_boot_clone(b);
	s->boots++;
	return 0;
}

static int load(struct side *s)
{
	struct bg_bootlog *p = bg_bootlog_new(s->file, keep_first_boot, s);
	int ret;

	bg_bootlog_set_warning(p, cmd_bootlog_warning);
	bg_bootlog_keep_lines(p, true);
	/* a file with no boot would be a table of nothing and exit 0: a diff that never was */
	bg_bootlog_require_boot(p, true);
	ret = bg_bootlog_parse_path(p, s->file);
	bg_bootlog_free(p);
	if (ret < 0) {
		log_errorx("%s", bg_error_last());
		return -1;
	}
	if (s->boots > 1)
		log_warnx("'%s' holds %u boots; comparing the first", s->file, s->boots);
	return 0;
}

static int cmp_value(const void *a, const void *b)
{
	const struct side_value *x = a, *y = b;
	int c = strcmp(x->metric, y->metric);

	if (c)
		return c;
	return x->order < y->order ? -1 : x->order > y->order;
}

static void add_value(const struct bg_metric *m, void *data)
{
	struct side *s = data;
	struct side_value *v;

	ALLOC_GROW(s->v, s->n + 1, s->alloc);
	v = &s->v[s->n];
	v->metric = xstrdup(m->name);
	v->usecs = m->usecs;
	v->line = m->line;
	v->order = s->n++;
}

/* The metrics of a boot, sorted by name for merging. */
static void collect(struct side *s)
{
	bg_boot_metrics(s->boot, add_value, s);
	qsort(s->v, s->n, sizeof(*s->v), cmp_value);
}

static int64_t abs64(int64_t v)
{
	return v < 0 ? -v : v;
}

static int cmp_row(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (abs64(x->delta) != abs64(y->delta))
		return abs64(x->delta) < abs64(y->delta) ? 1 : -1;
	return strcmp(x->metric, y->metric);
}

/* Merges the two sorted sides into rows, sorted by the size of the change. */
static struct row *merge(const struct side *a, const struct side *b, size_t *nr)
{
	struct row *rows = xcalloc(a->n + b->n + 1, sizeof(*rows));
	size_t i = 0, j = 0, n = 0;

	while (i < a->n || j < b->n) {
		int c = i >= a->n ? 1 : j >= b->n ? -1 : strcmp(a->v[i].metric, b->v[j].metric);
		struct row *r = &rows[n++];

		r->a = r->b = -1;
		if (c <= 0) {
			r->metric = a->v[i].metric;
			r->a = a->v[i].usecs;
			r->a_line = a->v[i].line;
			i++;
		}
		if (c >= 0) {
			r->metric = b->v[j].metric;
			r->b = b->v[j].usecs;
			r->b_line = b->v[j].line;
			j++;
		}
		r->delta = (r->b < 0 ? 0 : r->b) - (r->a < 0 ? 0 : r->a);
	}
	qsort(rows, n, sizeof(*rows), cmp_row);
	*nr = n;
	return rows;
}

static void fmt_value(char *buf, size_t size, int64_t v)
{
	if (v < 0)
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, "%" PRId64, v);
}

static void fmt_pct(char *buf, size_t size, const struct row *r)
{
	if (r->a <= 0 || r->b < 0)
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, "%+.1f%%", 100.0 * (double)r->delta / (double)r->a);
}

static void print_side(const char *label, const struct side *s)
{
	const struct bg_boot *b = s->boot;

	bg_text_println(stdout, "%s  %s  %s  %s", label, s->file, b->kernel ? b->kernel : "-",
			bg_outcome_name(b->outcome));
}

static void print_rows(const struct side *a, const struct side *b, const struct row *rows,
		       size_t n)
{
	struct bg_strbuf line = BG_STRBUF_INIT;
	char va[32], vb[32], pct[32];

	print_side("A", a);
	print_side("B", b);
	bg_text_printf(stdout, "\n%-48s %10s %10s %10s %10s\n", "metric", "A usecs", "B usecs", "change",
			       "change %");
	for (size_t i = 0; i < n; i++) {
		const struct row *r = &rows[i];

		fmt_value(va, sizeof(va), r->a);
		fmt_value(vb, sizeof(vb), r->b);
		fmt_pct(pct, sizeof(pct), r);
		bg_strbuf_reset(&line);
		bg_text_cell(&line, r->metric, 48);
		bg_strbuf_addf(&line, " %10s %10s %+10" PRId64 " %10s\n", va, vb, r->delta, pct);
		fputs(line.buf, stdout);
		if (r->a_line || r->b_line)
			bg_text_printf(stdout, "    %s\n  \xe2\x86\x92 %s\n", r->a_line ? r->a_line : "(absent)",
					       r->b_line ? r->b_line : "(absent)");
	}
	bg_strbuf_release(&line);
}

static void json_side(struct bg_json *j, const char *key, const struct side *s)
{
	bg_json_key(j, key);
	bg_json_object_begin(j);
	bg_json_key(j, "file");
	bg_json_str(j, s->file);
	bg_json_key(j, "kernel");
	bg_json_str(j, s->boot->kernel);
	bg_json_key(j, "outcome");
	bg_json_str(j, bg_outcome_name(s->boot->outcome));
	bg_json_object_end(j);
}

static void json_value(struct bg_json *j, const char *key, int64_t v)
{
	bg_json_key(j, key);
	if (v < 0)
		bg_json_null(j);
	else
		bg_json_int(j, v);
}

static int print_json(const struct side *a, const struct side *b, const struct row *rows,
		      size_t n)
{
	struct bg_json j;

	fflush(stdout);
	bg_json_init(&j, STDOUT_FILENO, 2);
	bg_json_object_begin(&j);
	json_side(&j, "a", a);
	json_side(&j, "b", b);
	bg_json_key(&j, "rows");
	bg_json_array_begin(&j);
	for (size_t i = 0; i < n; i++) {
		const struct row *r = &rows[i];

		bg_json_object_begin(&j);
		bg_json_key(&j, "metric");
		bg_json_str(&j, r->metric);
		json_value(&j, "a_usecs", r->a);
		json_value(&j, "b_usecs", r->b);
		bg_json_key(&j, "delta");
		bg_json_int(&j, r->delta);
		bg_json_key(&j, "delta_pct");
		if (r->a > 0 && r->b >= 0)
			bg_json_double(&j, 100.0 * (double)r->delta / (double)r->a);
		else
			bg_json_null(&j);
		bg_json_key(&j, "a_line");
		bg_json_str(&j, r->a_line);
		bg_json_key(&j, "b_line");
		bg_json_str(&j, r->b_line);
		bg_json_object_end(&j);
	}
	bg_json_array_end(&j);
	bg_json_object_end(&j);
	return bg_json_finish(&j);
}

static void side_release(struct side *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i].metric);
	free(s->v);
	bg_boot_free(s->boot);
}

static void diff_help(FILE *out)
{
	fprintf(out, "\n"
	       "  --json      the rows as JSON\n"
	       "  --top N     the N largest changes (20)\n"
	       "  --all       every initcall and probe\n"
	       "\nThe first boot of each log is compared. Initcalls are matched by name and\n"
	       "occurrence, never by +off/size, which patches change.\n"
	       "\nexit: 0 compared, 1 a log could not be read, 2 usage\n");
}

static const struct option diff_opts[] = {
	{ "json", no_argument, NULL, 'j' },
	{ "top", required_argument, NULL, 't' },
	{ "all", no_argument, NULL, 'a' },
	{ NULL, 0, NULL, 0 },
};

static int cmd_diff(int argc, char **argv)
{
	struct side a = { 0 }, b = { 0 };
	unsigned long top = 20;
	bool json = false, all = false, top_given = false;
	struct row *rows;
	size_t n;
	int opt, ret = 0;

	while ((opt = getopt_long(argc, argv, "jt:a", diff_opts, NULL)) != -1) {
		switch (opt) {
		case 'j':
			json = true;
			break;
		case 't':
			top = cmd_parse_count("diff", "--top", optarg, 1, 1000000);
			top_given = true;
			break;
		case 'a':
			all = true;
			break;
		default:
			return cmd_option_error("diff", argv);
		}
	}
	if (argc - optind != 2)
		return cmd_usage_error("diff", "needs exactly two logs");
	/* one of them would be ignored, and the table would not be what was asked */
	if (all && top_given)
		return cmd_usage_error("diff", "--top and --all: one or the other");
	a.file = argv[optind];
	b.file = argv[optind + 1];
	if (load(&a) < 0 || load(&b) < 0 ||
	    !cmd_arches_comparable("A", a.boot->arch, a.file, "B", b.boot->arch, b.file)) {
		side_release(&a);
		side_release(&b);
		return 1;
	}
	collect(&a);
	collect(&b);
	rows = merge(&a, &b, &n);
	if (!all && n > top)
		n = top;
	if (json) {
		if (print_json(&a, &b, rows, n) < 0) {
			log_errorx("%s", bg_error_last());
			ret = 1;
		}
	} else {
		print_rows(&a, &b, rows, n);
		if (fflush(stdout) == EOF) {
			log_error("cannot write the output");
			ret = 1;
		}
	}
	free(rows);
	side_release(&a);
	side_release(&b);
	return ret;
}

const struct bg_cmd cmd_diff_entry = {
	"diff", cmd_diff,
	"[--json] [--top N | --all] A.log B.log",
	"compare two boots initcall by initcall, quoting the kernel's own lines",
	diff_help, diff_opts,
};
