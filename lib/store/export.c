/* What the KCIDB and boot-data exports read from the store (export.h). */
#include <math.h>

#include "store/export.h"
#include "util/xmalloc.h"

/* A column as a string owned by the caller, or NULL for NULL. */
static char *col(const struct bg_store_row *r, int c)
{
	return bg_row_null(r, c) ? NULL : xstrdup(bg_row_text(r, c));
}

/* ---- KCIDB ---- */

static int take_series(const struct bg_store_row *r, void *data)
{
	struct bg_export_series_list *l = data;
	struct bg_export_series *se;

	ALLOC_GROW(l->v, l->n + 1, l->alloc);
	se = &l->v[l->n++];
	se->id = bg_row_int(r, 0);
	se->message_id = xstrdup(bg_row_text(r, 1));
	se->subject = xstrdup(bg_row_text(r, 2));
	se->base = col(r, 3);
	se->patchset_hash = col(r, 4);
	se->created = bg_row_double(r, 5);
	se->state = xstrdup(bg_row_text(r, 6));
	se->version = bg_row_int(r, 7);
	se->total = bg_row_int(r, 8);
	se->source = xstrdup(bg_row_text(r, 9));
	se->tree = col(r, 10);
	se->url = col(r, 11);
	se->branch = col(r, 12);
	se->failed = bg_row_int(r, 13);
	se->applied = bg_row_int(r, 14);
	return 0;
}

int bg_store_export_series(struct bg_store *s, struct bg_export_series_list *out)
{
	return bg_store_query(s, take_series, out,
			      "SELECT s.id, s.message_id, s.subject, s.base, s.patchset_hash, "
			      "s.created, s.state, s.version, s.total, s.source, t.name, t.url, "
			      "t.branch, "
			      "(SELECT COUNT(*) FROM series_patches p WHERE p.series_id = s.id "
			      "AND p.status = 'failed'), "
			      "(SELECT COUNT(*) FROM series_patches p WHERE p.series_id = s.id "
			      "AND p.status = 'applied') "
			      "FROM series s LEFT JOIN trees t ON t.id = s.tree_id ORDER BY s.id",
			      "");
}

void bg_export_series_list_release(struct bg_export_series_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		struct bg_export_series *se = &l->v[i];

		free(se->message_id);
		free(se->subject);
		free(se->state);
		free(se->source);
		free(se->base);
		free(se->patchset_hash);
		free(se->tree);
		free(se->url);
		free(se->branch);
	}
	free(l->v);
	memset(l, 0, sizeof(*l));
}

static int take_build(const struct bg_store_row *r, void *data)
{
	struct bg_export_builds *l = data;
	struct bg_export_build *b;

	ALLOC_GROW(l->v, l->n + 1, l->alloc);
	b = &l->v[l->n++];
	b->id = bg_row_int(r, 0);
	b->commit = xstrdup(bg_row_text(r, 1));
	b->board = xstrdup(bg_row_text(r, 2));
	b->status = xstrdup(bg_row_text(r, 3));
	b->config_hash = col(r, 4);
	b->image_sha256 = col(r, 5);
	b->seconds = bg_row_null(r, 6) ? NAN : bg_row_double(r, 6);
	b->created = bg_row_double(r, 7);
	b->log = col(r, 8);
	b->reused = bg_row_int(r, 9) != 0;
	b->image = col(r, 10);
	b->compiler = col(r, 11);
	return 0;
}

int bg_store_export_builds(struct bg_store *s, struct bg_export_builds *out)
{
	return bg_store_query(s, take_build, out, "SELECT id, commit_sha, board, status, "
			      "config_hash, image_sha256, seconds, created, log, reused, image, "
			      "compiler FROM builds ORDER BY id", "");
}

void bg_export_builds_release(struct bg_export_builds *l)
{
	for (size_t i = 0; i < l->n; i++) {
		struct bg_export_build *b = &l->v[i];

		free(b->commit);
		free(b->board);
		free(b->status);
		free(b->config_hash);
		free(b->image_sha256);
		free(b->log);
		free(b->image);
		free(b->compiler);
	}
	free(l->v);
	memset(l, 0, sizeof(*l));
}

struct patch_of {
	int64_t series, idx;
	char *message_id;
};

static int take_patch_of(const struct bg_store_row *r, void *data)
{
	struct patch_of *p = data;

	p->series = bg_row_int(r, 0);
	p->idx = bg_row_int(r, 1);
	p->message_id = xstrdup(bg_row_text(r, 2));
	return 1;
}

int bg_store_export_patch_of(struct bg_store *s, const char *commit, int64_t *series,
			     int64_t *idx, char **message_id)
{
	struct patch_of p = { 0, 0, NULL };
	int ret = bg_store_query(s, take_patch_of, &p, "SELECT p.series_id, p.idx, s.message_id "
				 "FROM series_patches p JOIN series s ON s.id = p.series_id "
				 "WHERE p.commit_sha = ? ORDER BY p.series_id DESC, p.idx LIMIT 1",
				 "s", commit);

	if (ret <= 0) {
		free(p.message_id);
		*series = *idx = 0;
		*message_id = NULL;
		return ret;
	}
	*series = p.series;
	*idx = p.idx;
	*message_id = p.message_id;
	return 1;
}

static int take_tree(const struct bg_store_row *r, void *data)
{
	struct bg_export_tree *t = data;

	t->id = bg_row_int(r, 0);
	t->name = xstrdup(bg_row_text(r, 1));
	t->url = col(r, 2);
	t->branch = col(r, 3);
	return 1;
}

int bg_store_export_tree_of(struct bg_store *s, const char *commit, struct bg_export_tree *out)
{
	int ret;

	memset(out, 0, sizeof(*out));
	ret = bg_store_query(s, take_tree, out, "SELECT t.id, t.name, t.url, t.branch FROM trees t "
			     "WHERE t.id IN (SELECT tree_id FROM jobs WHERE rev = ?1 OR base = ?1 "
			     "UNION SELECT tree_id FROM comparisons WHERE cand = ?1 OR base = ?1 "
			     "UNION SELECT b.tree_id FROM bisection_commits c JOIN bisections b "
			     "ON b.id = c.bisection_id WHERE c.sha = ?1) "
			     "OR t.last_good = ?1 OR t.last_tip = ?1 ORDER BY t.id LIMIT 1", "s",
			     commit);
	return ret < 0 ? -1 : ret > 0;
}

static int take_boot_set(const struct bg_store_row *r, void *data)
{
	struct bg_export_boot_sets *l = data;

	ALLOC_GROW(l->v, l->n + 1, l->alloc);
	l->v[l->n++] = (struct bg_export_boot_set){
		.mode = xstrdup(bg_row_text(r, 0)), .boots = bg_row_int(r, 1),
		.start = bg_row_double(r, 2), .complete = bg_row_int(r, 3),
		.failed = bg_row_int(r, 4),
		.seconds = bg_row_null(r, 5) ? NAN : bg_row_double(r, 5),
		.console = col(r, 6), .job_url = col(r, 7),
	};
	return 0;
}

/* The boot that tells a set's outcome: the first that failed, else the first complete. */
#define TELLING(what) \
	"(SELECT " what " FROM boots t WHERE t.image_sha256 = b.image_sha256 AND " \
	"t.board = b.board AND t.mode = b.mode ORDER BY t.outcome IN ('panic', 'hang', " \
	"'truncated') DESC, t.outcome = 'complete' DESC, t.id LIMIT 1)"

int bg_store_export_boot_sets(struct bg_store *s, const char *image_sha256, const char *board,
			      struct bg_export_boot_sets *out)
{
	return bg_store_query(s, take_boot_set, out, "SELECT b.mode, COUNT(*), MIN(b.created), "
			      "SUM(b.outcome = 'complete'), "
			      "SUM(b.outcome IN ('panic', 'hang', 'truncated')), SUM(b.wall_s), "
			      TELLING("console") ", " TELLING("job_url") " FROM boots b "
			      "WHERE b.image_sha256 = ? AND b.board = ? GROUP BY b.mode "
			      "ORDER BY b.mode", "ss", image_sha256, board);
}

void bg_export_boot_sets_release(struct bg_export_boot_sets *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].mode);
		free(l->v[i].console);
		free(l->v[i].job_url);
	}
	free(l->v);
	memset(l, 0, sizeof(*l));
}

static int take_sample(const struct bg_store_row *r, void *data)
{
	struct bg_export_samples *l = data;

	ALLOC_GROW(l->metric, l->n + 1, l->alloc);
	ALLOC_GROW(l->value, l->n + 1, l->alloc_value);
	l->metric[l->n] = xstrdup(bg_row_text(r, 0));
	l->value[l->n++] = bg_row_double(r, 1);
	return 0;
}

int bg_store_export_samples(struct bg_store *s, const char *image_sha256, const char *board,
			    const char *mode, struct bg_export_samples *out)
{
	return bg_store_query(s, take_sample, out, "SELECT s.metric, s.value FROM samples s "
			      "JOIN boots o ON o.id = s.boot_id WHERE o.image_sha256 = ? AND "
			      "o.board = ? AND o.mode = ? AND o.outcome = 'complete' "
			      "ORDER BY s.metric, s.value", "sss", image_sha256, board, mode);
}

void bg_export_samples_release(struct bg_export_samples *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->metric[i]);
	free(l->metric);
	free(l->value);
	memset(l, 0, sizeof(*l));
}

static int take_culprit(const struct bg_store_row *r, void *data)
{
	struct bg_export_culprits *l = data;

	ALLOC_GROW(l->v, l->n + 1, l->alloc);
	l->v[l->n++] = (struct bg_export_culprit){
		.commit = xstrdup(bg_row_text(r, 0)), .metric = xstrdup(bg_row_text(r, 1)),
		.board = xstrdup(bg_row_text(r, 2)), .mode = xstrdup(bg_row_text(r, 3)),
		.bisection = bg_row_int(r, 4),
		.confidence = bg_row_null(r, 5) ? NAN : bg_row_double(r, 5),
		.regression_us = bg_row_null(r, 6) ? NAN : bg_row_double(r, 6),
		.subject = xstrdup(bg_row_text(r, 7)), .message_id = xstrdup(bg_row_text(r, 8)),
		.sent = bg_row_double(r, 9), .tree = col(r, 10),
	};
	return 0;
}

int bg_store_export_culprits(struct bg_store *s, struct bg_export_culprits *out)
{
	return bg_store_query(s, take_culprit, out, "SELECT b.culprit, b.metric, b.board, b.mode, "
			      "b.id, b.confidence, b.regression_us, m.subject, m.message_id, "
			      "m.sent, t.name FROM mails m JOIN outbox o ON o.id = m.outbox_id "
			      "JOIN bisections b ON b.id = o.ref LEFT JOIN trees t ON "
			      "t.id = b.tree_id WHERE o.kind = 'bisection' AND m.sent IS NOT NULL "
			      "AND b.culprit IS NOT NULL AND b.metric IS NOT NULL ORDER BY m.id", "");
}

void bg_export_culprits_release(struct bg_export_culprits *l)
{
	for (size_t i = 0; i < l->n; i++) {
		struct bg_export_culprit *c = &l->v[i];

		free(c->commit);
		free(c->metric);
		free(c->board);
		free(c->mode);
		free(c->subject);
		free(c->message_id);
		free(c->tree);
	}
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/* ---- boot-data files ---- */

static int take_boot(const struct bg_store_row *r, void *data)
{
	struct bg_export_boots *l = data;

	ALLOC_GROW(l->v, l->n + 1, l->alloc);
	l->v[l->n++] = (struct bg_export_boot){
		.id = bg_row_int(r, 0), .board = xstrdup(bg_row_text(r, 1)),
		.mode = xstrdup(bg_row_text(r, 2)), .outcome = xstrdup(bg_row_text(r, 3)),
		.console = col(r, 4), .image_sha256 = xstrdup(bg_row_text(r, 5)),
		.commit = col(r, 6), .created = bg_row_double(r, 7), .kernel = col(r, 8),
		.cmdline = col(r, 9),
	};
	return 0;
}

int bg_store_export_boots(struct bg_store *s, struct bg_export_boots *out)
{
	/* a boot belongs to its image: its commit is the first one built into that image */
	return bg_store_query(s, take_boot, out, "SELECT o.id, o.board, o.mode, o.outcome, "
			      "o.console, o.image_sha256, (SELECT b.commit_sha FROM builds b "
			      "WHERE b.image_sha256 = o.image_sha256 AND b.board = o.board "
			      "ORDER BY b.id LIMIT 1), o.created, o.kernel, o.cmdline FROM boots o "
			      "ORDER BY o.id", "");
}

void bg_export_boots_release(struct bg_export_boots *l)
{
	for (size_t i = 0; i < l->n; i++) {
		struct bg_export_boot *b = &l->v[i];

		free(b->board);
		free(b->mode);
		free(b->outcome);
		free(b->image_sha256);
		free(b->console);
		free(b->commit);
		free(b->kernel);
		free(b->cmdline);
	}
	free(l->v);
	memset(l, 0, sizeof(*l));
}
