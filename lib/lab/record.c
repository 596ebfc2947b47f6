/* The lab's doings into the store (record.h). */
#include <math.h>

#include "lab/record.h"
#include "store/lab.h"
#include "net/git.h"
#include "parse/metrics.h"
#include "util/error.h"
#include "util/strbuf.h"
#include "util/xmalloc.h"

int bg_record_tree(struct bg_store *s, const char *name, const char *path, int64_t *id)
{
	return bg_store_tree_record(s, name, path, id);
}

int bg_record_commit(struct bg_store *s, const char *repo, const char *sha)
{
	struct bg_git_commit c;
	bool known;
	int ret;

	if (bg_store_commit_known(s, sha, &known) < 0)
		return -1;
	if (known)
		return 0;
	if (bg_git_commit_info(repo, sha, &c) < 0)
		return -1;
	ret = bg_store_commit_add(s, c.id, c.nparents ? c.parents[0] : NULL, c.subject, c.author);
	bg_git_commit_release(&c);
	return ret;
}

int bg_record_build(struct bg_store *s, const struct bg_build_result *b, int64_t *id)
{
	struct bg_build_row row = {
		.commit = b->commit, .board = b->board, .status = bg_build_status_name(b->status),
		.config_hash = b->config_hash, .image = b->image, .image_sha256 = b->image_sha256,
		.log = b->log, .error = b->error, .compiler = b->compiler, .reused = b->reused,
		.ccache_hits = b->ccache_hits, .ccache_misses = b->ccache_misses,
		.seconds = b->build_seconds,
	};

	return bg_store_build_add(s, &row, id);
}

struct find {
	struct bg_stored_build *b;
	int found;
};

static int take_build(const struct bg_store_row *r, void *data)
{
	struct find *f = data;
	const char *status = bg_row_text(r, 1);

	if (!strcmp(status, "failed")) {
		f->b->id = bg_row_int(r, 0);
		f->b->status = BG_BUILD_FAILED;
		f->found = 1;
		return 1;
	}
	/* a built image that was deleted since is no build */
	if (access(bg_row_text(r, 2), R_OK) != 0)
		return 0;
	f->b->id = bg_row_int(r, 0);
	f->b->status = BG_BUILD_BUILT;
	f->b->image = xstrdup(bg_row_text(r, 2));
	f->b->image_sha256 = xstrdup(bg_row_text(r, 3));
	f->found = 1;
	return 1;
}

int bg_record_find_build(struct bg_store *s, const char *commit, const char *board,
			 struct bg_stored_build *out)
{
	struct find f = { out, 0 };

	memset(out, 0, sizeof(*out));
	if (bg_store_build_rows(s, commit, board, take_build, &f) < 0)
		return -1;
	return f.found;
}

void bg_stored_build_release(struct bg_stored_build *b)
{
	free(b->image);
	free(b->image_sha256);
	memset(b, 0, sizeof(*b));
}

struct samples {
	struct bg_sample_row *v;
	size_t n, alloc;
};

/* A time the parser did not read (-1) is stored as NULL. */
static double time_or_nan(int64_t us)
{
	return us >= 0 ? (double)us : NAN;
}

static void add_sample(const struct bg_metric *m, void *data)
{
	struct samples *l = data;

	ALLOC_GROW(l->v, l->n + 1, l->alloc);
	/* the names are the callback's: kept until the boot is written */
	l->v[l->n++] = (struct bg_sample_row){ xstrdup(m->name), (double)m->usecs,
					       time_or_nan(m->start_us), time_or_nan(m->end_us),
					       m->lineno };
}

/* The kernel's release and build, as uname -r -v gives them ("6.1.0 #1 SMP ..."). */
static char *kernel_of(const struct bg_boot *b)
{
	const char *hash;

	if (!b || !b->kernel)
		return NULL;
	hash = b->banner ? strstr(b->banner, " #") : NULL;
	return hash ? xasprintf("%s %s", b->kernel, hash + 1) : xstrdup(b->kernel);
}

int bg_record_boot(struct bg_store *s, const char *image_sha256, const char *board,
		   const char *mode, enum bg_console console, const struct bg_boot_record *rec,
		   const struct bg_boot *parsed, int64_t *id)
{
	enum bg_outcome outcome = rec->outcome;
	struct samples l = { NULL, 0, 0 };
	char *kernel = kernel_of(parsed);
	struct bg_boot_row row = {
		.image_sha256 = image_sha256, .board = board, .mode = mode,
		.console_mode = bg_console_name(console), .console = rec->log,
		.job_url = rec->job_url, .kernel = kernel,
		.cmdline = parsed ? parsed->cmdline : NULL, .wall_s = rec->wall_seconds,
	};
	int ret;

	/* a console that gave no boot is no value, whatever QEMU said */
	if (!parsed && outcome == BG_OUTCOME_COMPLETE)
		outcome = BG_OUTCOME_TRUNCATED;
	row.outcome = bg_outcome_name(outcome);
	if (parsed && outcome == BG_OUTCOME_COMPLETE)
		bg_boot_metrics(parsed, add_sample, &l);
	ret = bg_store_boot_add(s, &row, l.v, l.n, id);
	for (size_t i = 0; i < l.n; i++)
		free((char *)l.v[i].metric);
	free(l.v);
	free(kernel);
	return ret;
}

struct load {
	struct bg_sample_set *set;
	int err;
};

static int load_sample(const struct bg_store_row *r, void *data)
{
	struct load *l = data;

	if (bg_sample_set_boot_add(l->set, bg_row_text(r, 0), bg_row_double(r, 1)) < 0)
		l->err = -1;
	return 0;
}

int bg_record_load_boot(struct bg_store *s, int64_t boot, struct bg_sample_set *set)
{
	struct load l = { set, 0 };
	char *outcome;
	int ret;

	if (bg_store_boot_outcome(s, boot, &outcome) < 0)
		return -1;
	if (!outcome || strcmp(outcome, "complete")) {
		free(outcome);
		bg_sample_set_exclude(set);
		return 0;
	}
	free(outcome);
	bg_sample_set_boot_begin(set);
	ret = bg_store_boot_values(s, boot, load_sample, &l);
	if (bg_sample_set_boot_end(set) < 0 || ret < 0 || l.err < 0)
		return -1;
	return 0;
}

void bg_record_event(struct bg_store *s, const char *level, int64_t tree, int64_t job,
		     const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	free(bg_record_eventv(s, level, tree, job, fmt, ap));
	va_end(ap);
}

char *bg_record_eventv(struct bg_store *s, const char *level, int64_t tree, int64_t job,
		       const char *fmt, va_list ap)
{
	struct bg_strbuf sb = BG_STRBUF_INIT;

	bg_strbuf_vaddf(&sb, fmt, ap);
	/* an event that cannot be written is not worth failing the work it describes */
	bg_store_event_add(s, level, tree, job, sb.buf);
	return bg_strbuf_detach(&sb, NULL);
}
