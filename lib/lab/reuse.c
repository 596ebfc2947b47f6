/* Builds and boots, reused from the store or made and recorded (reuse.h). */
#include "lab/reuse.h"
#include "store/lab.h"
#include "lab/workers.h"
#include "util/error.h"
#include "util/log.h"
#include "util/strbuf.h"
#include "util/xmalloc.h"

/* A build that failed for the machine's reasons is tried this often. */
#define BUILD_TRIES 3

const char *bg_reuse_mode(const struct bg_reuse *r)
{
	return r->deterministic ? "deterministic" : "timing";
}

int bg_reuse_build(const struct bg_reuse *r, const char *sha, const char *what,
		   struct bg_stored_build *out)
{
	struct bg_build_result b;
	int64_t id;
	int found, ret = -1;

	if ((found = bg_record_find_build(r->s, sha, r->board, out)) < 0)
		return -1;
	if (found && out->status == BG_BUILD_FAILED)
		return 0;
	bg_stored_build_release(out);
	bg_record_commit(r->s, r->repo, sha);
	for (int t = 0; t < BUILD_TRIES; t++) {
		bg_build_result_init(&b);
		bg_progress_to(r, "building %.12s%s%s%s", sha, what ? " (" : "", what ? what : "",
			       what ? ")" : "");
		ret = bg_worker_build(r->repo, sha, r->board, r->lab, r->config, &b);
		if (ret == 0 || b.status == BG_BUILD_FAILED)
			break;
		/* usage and exec errors will not pass by trying again */
		if (b.status != BG_BUILD_INFRA || t + 1 == BUILD_TRIES) {
			bg_build_result_release(&b);
			return -1;
		}
		bg_progress_to(r, "warning: %s; trying again in %d s", bg_error_last(), 5 << t);
		bg_build_result_release(&b);
		sleep(5u << t);
	}
	if (!b.board)
		b.board = xstrdup(r->board);
	if (!b.commit)
		b.commit = xstrdup(sha);
	ret = bg_record_build(r->s, &b, &id);
	if (!ret) {
		out->id = id;
		out->status = b.status;
		out->image = b.image ? xstrdup(b.image) : NULL;
		out->image_sha256 = b.image_sha256 ? xstrdup(b.image_sha256) : NULL;
	}
	bg_build_result_release(&b);
	return ret;
}

static void warn(const char *where, const char *msg, void *data)
{
	bg_progress_to((const struct bg_reuse *)data, "warning: %s: %s", where, msg);
}

int bg_reuse_boot(const struct bg_reuse *r, const char *image, const char *image_sha256,
		  unsigned n)
{
	struct bg_worker_boot wb = { r->board, r->lab, r->deterministic, n, 0, image, NULL,
				     r->console, r->config ? r->config->perf_runs : 0 };
	struct bg_boot_run run;
	int ret = 0;

	bg_boot_run_init(&run);
	bg_progress_to(r, "booting %.12s %u time%s (%s%s)", image_sha256, n, n == 1 ? "" : "s",
		       bg_reuse_mode(r), r->console == BG_CONSOLE_QUIET ? ", quiet console" : "");
	if (bg_worker_boot(&wb, &run) < 0 || (!run.n && bg_error("bootgate-boot booted nothing"))) {
		bg_boot_run_release(&run);
		return -1;
	}
	for (size_t i = 0; i < run.n && ret == 0; i++) {
		struct bg_boot *parsed = NULL;
		int64_t id;

		if (run.boots[i].outcome == BG_OUTCOME_COMPLETE)
			parsed = bg_worker_parsed(&run.boots[i], warn, (void *)r);
		ret = bg_record_boot(r->s, image_sha256, r->board, bg_reuse_mode(r), r->console,
				     &run.boots[i], parsed, &id);
		bg_boot_free(parsed);
	}
	bg_boot_run_release(&run);
	return ret;
}

/* Complete boots of an image the store has. */
static int count_boots(const struct bg_reuse *r, const char *image_sha256, int64_t *n)
{
	struct bg_boot_key k = { image_sha256, r->board, bg_reuse_mode(r),
				 bg_console_name(r->console) };

	return bg_store_boots_complete(r->s, &k, n);
}

int bg_reuse_boots(const struct bg_reuse *r, const char *image, const char *image_sha256,
		   unsigned n)
{
	int64_t have;

	if (count_boots(r, image_sha256, &have) < 0)
		return -1;
	if (have >= n)
		return 0;
	return bg_reuse_boot(r, image, image_sha256, n - (unsigned)have);
}

int bg_reuse_load(const struct bg_reuse *r, const char *image_sha256, unsigned max,
		  struct bg_sample_set *set)
{
	int64_t ids[64];
	size_t n;

	return bg_reuse_load_ids(r, image_sha256, max, set, ids, &n);
}

int bg_reuse_load_ids(const struct bg_reuse *r, const char *image_sha256, unsigned max,
		      struct bg_sample_set *set, int64_t *ids, size_t *n)
{
	struct { int64_t ids[64]; size_t n; } b = { { 0 }, 0 };
	struct bg_boot_key k = { image_sha256, r->board, bg_reuse_mode(r),
				 bg_console_name(r->console) };
	int64_t last = 0;

	/* the first max complete boots: the same ones on every run */
	while (b.n < max && b.n < ARRAY_SIZE(b.ids)) {
		int64_t id;

		if (bg_store_boot_next_complete(r->s, &k, last, &id) < 0)
			return -1;
		if (!id)
			break;
		b.ids[b.n++] = last = id;
	}
	*n = 0;
	for (size_t i = 0; i < b.n; i++) {
		if (bg_record_load_boot(r->s, b.ids[i], set) < 0)
			bg_progress_to(r, "warning: boot %" PRId64 ": %s", b.ids[i], bg_error_last());
		ids[(*n)++] = b.ids[i];
	}
	return 0;
}
