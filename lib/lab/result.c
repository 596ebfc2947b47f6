/* The workers' result files (result.h). */
#include <math.h>

#include "lab/result.h"
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
	bg_json_key(j, "build_seconds");
	bg_json_double(j, r->build_seconds);
	key_str(j, "log", r->log);
	bg_json_object_end(j);
}

static char *dup_or_null(const struct bg_json_doc *d, const char *path)
{
	const char *s = bg_json_doc_str(d, path);

	return s ? xstrdup(s) : NULL;
}

int bg_build_result_read(const char *name, const char *text, struct bg_build_result *r)
{
	struct bg_json_doc *d = bg_json_doc_parse(name, text);
	const char *status;
	size_t i;

	bg_build_result_init(r);
	if (!d)
		return -1;
	if (!bg_json_doc_is_object(d, "")) {
		bg_json_doc_free(d);
		return bg_error("%s: a build result is a JSON object", name);
	}
	status = bg_json_doc_str(d, "status");
	for (i = 0; i < ARRAY_SIZE(statuses); i++)
		if (status && !strcmp(status, statuses[i].name))
			break;
	if (i == ARRAY_SIZE(statuses)) {
		bg_json_doc_free(d);
		return bg_error("%s: 'status' is none of built, failed, usage, infra, exec", name);
	}
	r->status = (enum bg_build_status)i;
	r->error = dup_or_null(d, "error");
	r->tree = dup_or_null(d, "tree");
	r->tree_id = dup_or_null(d, "tree_id");
	r->commit = dup_or_null(d, "commit");
	r->parent = dup_or_null(d, "parent");
	r->board = dup_or_null(d, "board");
	r->arch = dup_or_null(d, "arch");
	r->config_hash = dup_or_null(d, "config_hash");
	r->compiler = dup_or_null(d, "compiler");
	r->image = dup_or_null(d, "image");
	r->image_sha256 = dup_or_null(d, "image_sha256");
	r->artifact = dup_or_null(d, "artifact");
	r->log = dup_or_null(d, "log");
	r->perf = dup_or_null(d, "perf");
	r->perf_sha256 = dup_or_null(d, "perf_sha256");
	r->kernel_sha256 = dup_or_null(d, "kernel_sha256");
	r->identical_to_parent = bg_json_doc_bool(d, "identical_to_parent");
	r->build_seconds = bg_json_doc_num(d, "build_seconds");
	r->reused = bg_json_doc_bool(d, "reused") == 1;
	r->ccache_hits = (long)fmax(0, bg_json_doc_num(d, "ccache_hits"));
	r->ccache_misses = (long)fmax(0, bg_json_doc_num(d, "ccache_misses"));
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
	size_t n;

	bg_boot_run_init(r);
	if (!d)
		return -1;
	if (!bg_json_doc_is_object(d, "")) {
		bg_json_doc_free(d);
		return bg_error("%s: a boot result is a JSON object", name);
	}
	r->board = dup_or_null(d, "board");
	r->mode = dup_or_null(d, "mode");
	r->console = dup_or_null(d, "console");
	r->accel = dup_or_null(d, "accel");
	r->cmdline = dup_or_null(d, "cmdline");
	r->out = dup_or_null(d, "out");
	n = bg_json_doc_len(d, "boots");
	for (size_t i = 0; i < n; i++) {
		char key[64];
		const char *image, *outcome, *log;
		enum bg_outcome o;
		struct bg_boot_record *b;

		snprintf(key, sizeof(key), "boots.%zu.image", i);
		image = bg_json_doc_str(d, key);
		snprintf(key, sizeof(key), "boots.%zu.outcome", i);
		outcome = bg_json_doc_str(d, key);
		snprintf(key, sizeof(key), "boots.%zu.log", i);
		log = bg_json_doc_str(d, key);
		if (!image || (strcmp(image, "A") != 0 && strcmp(image, "B") != 0) || !log ||
		    bg_outcome_parse(outcome, &o) < 0) {
			bg_json_doc_free(d);
			bg_boot_run_release(r);
			return bg_error("%s: boot %zu has no image A or B, outcome or log", name, i);
		}
		snprintf(key, sizeof(key), "boots.%zu.path", i);
		b = bg_boot_run_add(r, image[0] == 'B', bg_json_doc_str(d, key), o, log);
		snprintf(key, sizeof(key), "boots.%zu.wall_seconds", i);
		b->wall_seconds = bg_json_doc_num(d, key);
		snprintf(key, sizeof(key), "boots.%zu.userspace_wall_seconds", i);
		b->userspace_wall_seconds = bg_json_doc_num(d, key);
		snprintf(key, sizeof(key), "boots.%zu.parsed", i);
		b->parsed = dup_or_null(d, key);
		snprintf(key, sizeof(key), "boots.%zu.job_url", i);
		b->job_url = dup_or_null(d, key);
	}
	bg_json_doc_free(d);
	return 0;
}
