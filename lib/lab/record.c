/* The lab's doings into the store (record.h). */
#include <math.h>

#include "lab/record.h"
#include "net/git.h"
#include "parse/metrics.h"
#include "util/error.h"
#include "util/strbuf.h"
#include "util/xmalloc.h"

int bg_record_tree(struct bg_store *s, const char *name, const char *path, int64_t *id)
{
	if (bg_store_exec(s, "INSERT INTO trees (name, path) VALUES (?, ?) "
			  "ON CONFLICT (name) DO UPDATE SET path = excluded.path", "ss",
			  name, path) < 0)
		return -1;
	return bg_store_int(s, 0, id, "SELECT id FROM trees WHERE name = ?", "s", name);
}

int bg_record_commit(struct bg_store *s, const char *repo, const char *sha)
{
	struct bg_git_commit c;
	int64_t known;
	int ret;

	if (bg_store_int(s, 0, &known, "SELECT 1 FROM commits WHERE sha = ?", "s", sha) < 0)
		return -1;
	if (known)
		return 0;
	if (bg_git_commit_info(repo, sha, &c) < 0)
		return -1;
	ret = bg_store_exec(s, "INSERT OR IGNORE INTO commits (sha, parent, subject, author) "
			    "VALUES (?, ?, ?, ?)", "ssss", c.id, c.nparents ? c.parents[0] : NULL,
			    c.subject, c.author);
	bg_git_commit_release(&c);
	return ret;
}

int bg_record_build(struct bg_store *s, const struct bg_build_result *b, int64_t *id)
{
	if (bg_store_exec(s, "INSERT INTO builds (commit_sha, board, status, config_hash, image, "
			  "image_sha256, reused, ccache_hits, ccache_misses, seconds, log, error, "
			  "created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", "ssssssiiidssd",
			  b->commit ? b->commit : "", b->board ? b->board : "",
			  bg_build_status_name(b->status), b->config_hash, b->image,
			  b->image_sha256, (int64_t)b->reused, (int64_t)b->ccache_hits,
			  (int64_t)b->ccache_misses, b->build_seconds, b->log, b->error,
			  bg_store_now()) < 0)
		return -1;
	*id = bg_store_last_id(s);
	return 0;
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
	if (bg_store_query(s, take_build, &f, "SELECT id, status, image, image_sha256 FROM builds "
			   "WHERE commit_sha = ? AND board = ? AND status IN ('built', 'failed') "
			   "ORDER BY id DESC", "ss", commit, board) < 0)
		return -1;
	return f.found;
}

void bg_stored_build_release(struct bg_stored_build *b)
{
	free(b->image);
	free(b->image_sha256);
	memset(b, 0, sizeof(*b));
}

struct add_sample {
	struct bg_store *s;
	int64_t boot, seq;
	int err;
};

/* A time the parser did not read (-1) is stored as NULL. */
static double time_or_nan(int64_t us)
{
	return us >= 0 ? (double)us : NAN;
}

static void add_sample(const struct bg_metric *m, void *data)
{
	struct add_sample *a = data;

	if (a->err)
		return;
	a->err = bg_store_exec(a->s, "INSERT INTO samples (boot_id, seq, metric, value, start_us, "
			       "end_us, line) VALUES (?, ?, ?, ?, ?, ?, nullif(?, 0))", "iisdddi",
			       a->boot, a->seq++, m->name, (double)m->usecs,
			       time_or_nan(m->start_us), time_or_nan(m->end_us), (int64_t)m->lineno);
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
	struct add_sample a = { s, 0, 0, 0 };
	char *kernel = kernel_of(parsed);

	/* a console that gave no boot is no value, whatever QEMU said */
	if (!parsed && outcome == BG_OUTCOME_COMPLETE)
		outcome = BG_OUTCOME_TRUNCATED;
	if (bg_store_begin(s) < 0) {
		free(kernel);
		return -1;
	}
	if (bg_store_exec(s, "INSERT INTO boots (image_sha256, board, mode, console_mode, "
			  "outcome, wall_s, console, job_url, created, kernel, cmdline) VALUES (?, ?, "
			  "?, ?, ?, ?, ?, ?, ?, ?, ?)", "sssssdssdss", image_sha256, board, mode,
			  bg_console_name(console), bg_outcome_name(outcome), rec->wall_seconds,
			  rec->log, rec->job_url, bg_store_now(), kernel,
			  parsed ? parsed->cmdline : NULL) < 0) {
		free(kernel);
		goto fail;
	}
	free(kernel);
	a.boot = bg_store_last_id(s);
	if (parsed && outcome == BG_OUTCOME_COMPLETE)
		bg_boot_metrics(parsed, add_sample, &a);
	if (a.err < 0)
		goto fail;
	*id = a.boot;
	return bg_store_commit(s);
fail:
	bg_store_rollback(s);
	return -1;
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

	if (bg_store_text(s, &outcome, "SELECT outcome FROM boots WHERE id = ?", "i", boot) < 0)
		return -1;
	if (!outcome || strcmp(outcome, "complete")) {
		free(outcome);
		bg_sample_set_exclude(set);
		return 0;
	}
	free(outcome);
	bg_sample_set_boot_begin(set);
	ret = bg_store_query(s, load_sample, &l, "SELECT metric, value FROM samples "
			     "WHERE boot_id = ? ORDER BY seq", "i", boot);
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
	bg_store_exec(s, "INSERT INTO events (at, level, tree_id, job_id, message) "
		      "VALUES (?, ?, nullif(?, 0), nullif(?, 0), ?)", "dsiis", bg_store_now(), level,
		      tree, job, sb.buf);
	return bg_strbuf_detach(&sb, NULL);
}
