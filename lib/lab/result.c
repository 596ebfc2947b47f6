/* The workers' result files (result.h). */
#include <math.h>

#include "lab/result.h"
#include "util/fs.h"
#include "util/json-read.h"
#include "util/error.h"
#include "util/xmalloc.h"

static const struct {
	const char *name;
	enum bg_exit exit;
} statuses[] = {
	[BG_BUILD_BUILT] = { "built", BG_EXIT_OK },
	[BG_BUILD_FAILED] = { "failed", BG_EXIT_FAILED },
	[BG_BUILD_USAGE] = { "usage", BG_EXIT_USAGE },
	[BG_BUILD_INFRA] = { "infra", BG_EXIT_INFRA },
	[BG_BUILD_EXEC] = { "exec", BG_EXIT_EXEC },
};

const char *bg_build_status_name(enum bg_build_status s)
{
	return (size_t)s < ARRAY_SIZE(statuses) ? statuses[s].name : "infra";
}

enum bg_exit bg_build_status_exit(enum bg_build_status s)
{
	return (size_t)s < ARRAY_SIZE(statuses) ? statuses[s].exit : BG_EXIT_INFRA;
}

void bg_build_result_init(struct bg_build_result *r)
{
	memset(r, 0, sizeof(*r));
	r->status = BG_BUILD_INFRA;
	r->identical_to_parent = -1;
}

void bg_build_result_release(struct bg_build_result *r)
{
	char **strs[] = { &r->error, &r->tree, &r->tree_id, &r->commit, &r->parent, &r->board,
			  &r->arch, &r->config_hash, &r->compiler, &r->image, &r->image_sha256,
			  &r->artifact, &r->log, &r->perf, &r->perf_sha256, &r->kernel_sha256 };

	for (size_t i = 0; i < ARRAY_SIZE(strs); i++)
		free(*strs[i]);
	bg_build_result_init(r);
}

static void key_str(struct bg_json *j, const char *key, const char *v)
{
	bg_json_key(j, key);
	bg_json_str(j, v);
}

void bg_build_result_write(struct bg_json *j, const struct bg_build_result *r)
{
	bg_json_object_begin(j);
	key_str(j, "status", bg_build_status_name(r->status));
	key_str(j, "error", r->error);
	key_str(j, "tree", r->tree);
	key_str(j, "tree_id", r->tree_id);
	key_str(j, "commit", r->commit);
	key_str(j, "parent", r->parent);
	key_str(j, "board", r->board);
	key_str(j, "arch", r->arch);
	key_str(j, "config_hash", r->config_hash);
	key_str(j, "compiler", r->compiler);
	key_str(j, "image", r->image);
	key_str(j, "image_sha256", r->image_sha256);
	bg_json_key(j, "identical_to_parent");
	if (r->identical_to_parent < 0)
		bg_json_null(j);
	else
		bg_json_bool(j, r->identical_to_parent);
	key_str(j, "artifact", r->artifact);
	/* only with perf: the results of every other build stay as they were */
	if (r->perf || r->perf_sha256) {
		key_str(j, "perf", r->perf);
		key_str(j, "perf_sha256", r->perf_sha256);
		key_str(j, "kernel_sha256", r->kernel_sha256);
	}
	bg_json_key(j, "reused");
	bg_json_bool(j, r->reused);
	bg_json_key(j, "ccache_hits");
	bg_json_int(j, r->ccache_hits);
	bg_json_key(j, "ccache_misses");
	bg_json_int(j, r->ccache_misses);
	bg_json_key(j, "ccache_remote_hits");
	bg_json_int(j, r->ccache_remote_hits);
	bg_json_key(j, "ccache_remote_errors");
	bg_json_int(j, r->ccache_remote_errors);
	bg_json_key(j, "build_seconds");
	bg_json_double(j, r->build_seconds);
	key_str(j, "log", r->log);
	bg_json_object_end(j);
}

/* The member key of object o as a string of its own, or NULL. */
static char *str_of(const struct bg_json_value *o, const char *key)
{
	return bg_json_text_dup(bg_json_get(o, key));
}

int bg_build_result_read(const char *name, const char *text, struct bg_build_result *r)
{
	struct bg_json_doc *d = bg_json_doc_parse(name, text);
	const struct bg_json_value *o = bg_json_doc_root(d);
	const char *status;
	size_t i;

	bg_build_result_init(r);
	if (!d)
		return -1;
	if (!bg_json_is_object(o)) {
		bg_json_doc_free(d);
		return bg_error("%s: a build result is a JSON object", name);
	}
	status = bg_json_text(bg_json_get(o, "status"));
	for (i = 0; i < ARRAY_SIZE(statuses); i++)
		if (status && !strcmp(status, statuses[i].name))
			break;
	if (i == ARRAY_SIZE(statuses)) {
		bg_json_doc_free(d);
		return bg_error("%s: 'status' is none of built, failed, usage, infra, exec", name);
	}
	r->status = (enum bg_build_status)i;
	r->error = str_of(o, "error");
	r->tree = str_of(o, "tree");
	r->tree_id = str_of(o, "tree_id");
	r->commit = str_of(o, "commit");
	r->parent = str_of(o, "parent");
	r->board = str_of(o, "board");
	r->arch = str_of(o, "arch");
	r->config_hash = str_of(o, "config_hash");
	r->compiler = str_of(o, "compiler");
	r->image = str_of(o, "image");
	r->image_sha256 = str_of(o, "image_sha256");
	r->artifact = str_of(o, "artifact");
	r->log = str_of(o, "log");
	r->perf = str_of(o, "perf");
	r->perf_sha256 = str_of(o, "perf_sha256");
	r->kernel_sha256 = str_of(o, "kernel_sha256");
	r->identical_to_parent = bg_json_truth(bg_json_get(o, "identical_to_parent"));
	r->build_seconds = bg_json_num(bg_json_get(o, "build_seconds"));
	r->reused = bg_json_truth(bg_json_get(o, "reused")) == 1;
	r->ccache_hits = (long)fmax(0, bg_json_num(bg_json_get(o, "ccache_hits")));
	r->ccache_misses = (long)fmax(0, bg_json_num(bg_json_get(o, "ccache_misses")));
	r->ccache_remote_hits = (long)fmax(0, bg_json_num(bg_json_get(o, "ccache_remote_hits")));
	r->ccache_remote_errors = (long)fmax(0, bg_json_num(bg_json_get(o, "ccache_remote_errors")));
	bg_json_doc_free(d);
	if (r->status == BG_BUILD_BUILT && (!r->image || !r->commit)) {
		bg_build_result_release(r);
		return bg_error("%s: a built result names its commit and its image", name);
	}
	return 0;
}

/* ---- boots ---- */

void bg_boot_run_init(struct bg_boot_run *r)
{
	memset(r, 0, sizeof(*r));
}

void bg_boot_run_release(struct bg_boot_run *r)
{
	free(r->board);
	free(r->mode);
	free(r->console);
	free(r->accel);
	free(r->cmdline);
	free(r->out);
	for (size_t i = 0; i < r->n; i++) {
		free(r->boots[i].image_path);
		free(r->boots[i].log);
		free(r->boots[i].parsed);
		free(r->boots[i].job_url);
	}
	free(r->boots);
	bg_boot_run_init(r);
}

void bg_boot_run_append(struct bg_boot_run *dst, struct bg_boot_run *src)
{
	ALLOC_GROW(dst->boots, dst->n + src->n, dst->alloc);
	memcpy(dst->boots + dst->n, src->boots, src->n * sizeof(*src->boots));
	dst->n += src->n;
	src->n = 0;
}

struct bg_boot_record *bg_boot_run_add(struct bg_boot_run *r, int image, const char *image_path,
				       enum bg_outcome outcome, const char *log)
{
	struct bg_boot_record *b;

	ALLOC_GROW(r->boots, r->n + 1, r->alloc);
	b = &r->boots[r->n++];
	memset(b, 0, sizeof(*b));
	b->image = image;
	b->image_path = image_path ? xstrdup(image_path) : NULL;
	b->outcome = outcome;
	b->log = log ? xstrdup(log) : NULL;
	b->userspace_wall_seconds = NAN;
	return b;
}

void bg_boot_run_write(struct bg_json *j, const struct bg_boot_run *r)
{
	bg_json_object_begin(j);
	key_str(j, "board", r->board);
	key_str(j, "mode", r->mode);
	key_str(j, "console", r->console);
	key_str(j, "accel", r->accel);
	key_str(j, "cmdline", r->cmdline);
	key_str(j, "out", r->out);
	bg_json_key(j, "boots");
	bg_json_array_begin(j);
	for (size_t i = 0; i < r->n; i++) {
		const struct bg_boot_record *b = &r->boots[i];

		bg_json_object_begin(j);
		key_str(j, "image", b->image ? "B" : "A");
		key_str(j, "path", b->image_path);
		key_str(j, "outcome", bg_outcome_name(b->outcome));
		bg_json_key(j, "wall_seconds");
		bg_json_double(j, b->wall_seconds);
		bg_json_key(j, "userspace_wall_seconds");
		bg_json_double(j, b->userspace_wall_seconds);   /* NaN: null */
		key_str(j, "log", b->log);
		key_str(j, "parsed", b->parsed);
		key_str(j, "job_url", b->job_url);
		bg_json_object_end(j);
	}
	bg_json_array_end(j);
	bg_json_object_end(j);
}

int bg_boot_run_read(const char *name, const char *text, struct bg_boot_run *r)
{
	struct bg_json_doc *d = bg_json_doc_parse(name, text);
	const struct bg_json_value *o = bg_json_doc_root(d), *boots;

	bg_boot_run_init(r);
	if (!d)
		return -1;
	if (!bg_json_is_object(o)) {
		bg_json_doc_free(d);
		return bg_error("%s: a boot result is a JSON object", name);
	}
	r->board = str_of(o, "board");
	r->mode = str_of(o, "mode");
	r->console = str_of(o, "console");
	r->accel = str_of(o, "accel");
	r->cmdline = str_of(o, "cmdline");
	r->out = str_of(o, "out");
	boots = bg_json_get(o, "boots");
	for (size_t i = 0; i < bg_json_len(boots); i++) {
		const struct bg_json_value *x = bg_json_at(boots, i);
		const char *image = bg_json_text(bg_json_get(x, "image"));
		const char *outcome = bg_json_text(bg_json_get(x, "outcome"));
		const char *log = bg_json_text(bg_json_get(x, "log"));
		enum bg_outcome e;
		struct bg_boot_record *b;

		if (!image || (strcmp(image, "A") != 0 && strcmp(image, "B") != 0) || !log ||
		    bg_outcome_parse(outcome, &e) < 0) {
			bg_json_doc_free(d);
			bg_boot_run_release(r);
			return bg_error("%s: boot %zu has no image A or B, outcome or log", name, i);
		}
		b = bg_boot_run_add(r, image[0] == 'B', bg_json_text(bg_json_get(x, "path")), e, log);
		b->wall_seconds = bg_json_num(bg_json_get(x, "wall_seconds"));
		b->userspace_wall_seconds = bg_json_num(bg_json_get(x, "userspace_wall_seconds"));
		b->parsed = str_of(x, "parsed");
		b->job_url = str_of(x, "job_url");
	}
	bg_json_doc_free(d);
	return 0;
}

/* ---- a boot as the boot worker read it ---- */

/* A parse is one boot's figures: more than this is no parse of ours. */
#define PARSED_MAX (256u << 20)

/* A time (µs) or a duration: a whole number from min to the parser's bound, else bad. */
static bool read_us(const struct bg_json_value *v, int64_t min, bool null_ok, int64_t *out)
{
	double d = bg_json_num(v);

	if (null_ok && bg_json_is_null(v)) {
		*out = -1;
		return true;
	}
	if (!(d >= (double)min && d <= (double)BG_BOOTLOG_MAX_US) || d != floor(d))
		return false;
	*out = (int64_t)d;
	return true;
}

static bool read_line(const struct bg_json_value *v, uint64_t *out)
{
	int64_t n;

	if (!read_us(v, 0, true, &n))
		return false;
	*out = n < 0 ? 0 : (uint64_t)n;
	return true;
}

static bool read_events(struct bg_boot *b, const struct bg_json_value *a, bool probes)
{
	for (size_t i = 0; i < bg_json_len(a); i++) {
		const struct bg_json_value *x = bg_json_at(a, i);
		const char *name = bg_json_text(bg_json_get(x, probes ? "device" : "name"));
		double ret = bg_json_num(bg_json_get(x, "ret"));
		int64_t usecs, start, end;
		uint64_t line;

		if (!name || !*name || !(fabs(ret) <= INT32_MAX) ||
		    !read_us(bg_json_get(x, "usecs"), 0, false, &usecs) ||
		    !read_us(bg_json_get(x, "start_us"), 0, true, &start) ||
		    !read_us(bg_json_get(x, "end_us"), 0, true, &end) ||
		    !read_line(bg_json_get(x, "line"), &line))
			return false;
		if (probes) {
			struct bg_probe *p = bg_boot_add_probe(b);

			*p = (struct bg_probe){ bg_boot_keep(b, name), NULL, (int)ret, usecs, start,
						end, line };
		} else {
			struct bg_initcall *c = bg_boot_add_initcall(b);

			*c = (struct bg_initcall){ bg_boot_keep(b, name),
				bg_boot_keep(b, bg_json_text(bg_json_get(x, "module"))), NULL,
				(int)ret, usecs, start, end, line };
		}
	}
	return true;
}

static const char *read_boot(struct bg_boot *b, const struct bg_json_value *o)
{
	const struct bg_json_value *m = bg_json_get(o, "milestones"), *perf, *v;
	int64_t n;

	if (!bg_json_is_object(o))
		return "a parsed boot is a JSON object";
	if (bg_outcome_parse(bg_json_text(bg_json_get(o, "outcome")), &b->outcome) < 0 ||
	    b->outcome == BG_OUTCOME_HANG || b->outcome == BG_OUTCOME_INFRA)
		return "its 'outcome' is none of complete, panic, truncated";
	b->kernel = bg_boot_keep(b, bg_json_text(bg_json_get(o, "kernel")));
	b->banner = bg_boot_keep(b, bg_json_text(bg_json_get(o, "banner")));
	b->cmdline = bg_boot_keep(b, bg_json_text(bg_json_get(o, "cmdline")));
	b->arch = bg_boot_keep(b, bg_json_text(bg_json_get(o, "arch")));
	b->panic = bg_boot_keep(b, bg_json_text(bg_json_get(o, "panic")));
	if (!read_events(b, bg_json_get(o, "initcalls"), false))
		return "an initcall is not one (a name, its ret, usecs, times and line)";
	if (!read_events(b, bg_json_get(o, "probes"), true))
		return "a probe is not one (a device, its ret, usecs, times and line)";
	if (!bg_json_is_object(m) || !read_us(bg_json_get(m, "init_us"), 0, true, &b->init_us) ||
	    !read_line(bg_json_get(m, "init_line"), &b->init_line) ||
	    !read_us(bg_json_get(m, "userspace_us"), 0, true, &b->userspace_us) ||
	    !read_us(bg_json_get(m, "free_initmem_us"), 0, true, &b->free_initmem_us))
		return "its 'milestones' are not times";
	perf = bg_json_get(o, "perf");
	v = bg_json_get(perf, "trace_startup_us");
	for (size_t i = 0; i < bg_json_len(v); i++) {
		if (!read_us(bg_json_at(v, i), 0, false, &n))
			return "a perf run is not a time";
		bg_boot_add_perf_run(b, n);
	}
	if (perf && read_us(bg_json_get(perf, "failed_runs"), 0, false, &n))
		b->perf_failed = (unsigned)n;
	v = bg_json_get(o, "problems");
	for (size_t i = 0; i < bg_json_len(v) && i < BG_BOOT_MAX_PROBLEMS; i++)
		if (bg_json_text(bg_json_at(v, i)))
			bg_boot_add_problem(b, bg_json_text(bg_json_at(v, i)));
	b->problems_total = (uint64_t)fmax(b->nr_problems,
					   bg_json_num(bg_json_get(o, "problems_total")) >= 0 ?
					   bg_json_num(bg_json_get(o, "problems_total")) : 0);
	if (read_us(bg_json_get(o, "unparsed_lines"), 0, false, &n))
		b->unparsed_lines = (uint64_t)n;
	v = bg_json_get(o, "log_lines");
	if (read_us(bg_json_at(v, 0), 0, false, &n))
		b->first_line = (uint64_t)n;
	if (read_us(bg_json_at(v, 1), 0, false, &n))
		b->last_line = (uint64_t)n;
	return NULL;
}

struct bg_boot *bg_boot_read_parsed(const char *path)
{
	char *text = bg_read_file(path, PARSED_MAX, NULL);
	struct bg_json_doc *d = text ? bg_json_doc_parse(path, text) : NULL;
	struct bg_boot *b = NULL;
	const char *why;

	free(text);
	if (!d)
		return NULL;
	b = bg_boot_new();
	why = read_boot(b, bg_json_doc_root(d));
	bg_json_doc_free(d);
	if (why) {
		bg_error("%s: %s", path, why);
		bg_boot_free(b);
		return NULL;
	}
	return b;
}
