/* The trees the service watches and the jobs it runs (service.h). */
#include "store/service.h"
#include "util/xmalloc.h"

/* ---- trees ---- */

int bg_store_tree_configure(struct bg_store *s, const char *name, const char *path,
			    const char *url, const char *branch, int64_t *id)
{
	if (bg_store_exec(s, "INSERT INTO trees (name, path, url, branch) VALUES (?, ?, ?, ?) ON "
			  "CONFLICT (name) DO UPDATE SET path = excluded.path, url = excluded.url, "
			  "branch = excluded.branch", "ssss", name, path, url, branch) < 0)
		return -1;
	return bg_store_tree_id(s, name, id);
}

int bg_store_tree_ensure(struct bg_store *s, const char *name, const char *path,
			 const char *url, const char *branch, int64_t *id)
{
	if (bg_store_exec(s, "INSERT INTO trees (name, path, url, branch) VALUES (?, ?, ?, ?) ON "
			  "CONFLICT (name) DO NOTHING", "ssss", name, path, url, branch) < 0)
		return -1;
	return bg_store_tree_id(s, name, id);
}

int bg_store_tree_id(struct bg_store *s, const char *name, int64_t *id)
{
	return bg_store_int(s, 0, id, "SELECT id FROM trees WHERE name = ?", "s", name);
}

int bg_store_tree_only(struct bg_store *s, int64_t *id)
{
	return bg_store_int(s, 0, id, "SELECT CASE WHEN count(*) = 1 THEN max(id) END FROM trees "
			    "WHERE url IS NOT NULL", "");
}

int bg_store_tree_path(struct bg_store *s, int64_t id, char **path)
{
	return bg_store_text(s, path, "SELECT path FROM trees WHERE id = ?", "i", id);
}

int bg_store_tree_url(struct bg_store *s, int64_t id, char **url)
{
	return bg_store_text(s, url, "SELECT url FROM trees WHERE id = ?", "i", id);
}

int bg_store_tree_branch(struct bg_store *s, int64_t id, char **branch)
{
	return bg_store_text(s, branch, "SELECT coalesce(branch, '') FROM trees WHERE id = ?",
			     "i", id);
}

int bg_store_tree_last_tip(struct bg_store *s, int64_t id, char **tip)
{
	return bg_store_text(s, tip, "SELECT last_tip FROM trees WHERE id = ?", "i", id);
}

int bg_store_tree_last_good(struct bg_store *s, int64_t id, char **sha)
{
	return bg_store_text(s, sha, "SELECT last_good FROM trees WHERE id = ?", "i", id);
}

int bg_store_tree_set_last_good(struct bg_store *s, int64_t id, const char *sha)
{
	return bg_store_exec(s, "UPDATE trees SET last_good = ? WHERE id = ?", "si", sha, id);
}

int bg_store_tree_fetched(struct bg_store *s, int64_t id)
{
	return bg_store_exec(s, "UPDATE trees SET fetched_at = ?, fetch_failures = 0, fetch_error = "
			     "NULL WHERE id = ?", "di", bg_store_now(), id);
}

int bg_store_tree_fetch_failed(struct bg_store *s, int64_t id, unsigned failures,
			       const char *error)
{
	return bg_store_exec(s, "UPDATE trees SET fetch_failures = ?, fetch_error = ? WHERE id = ?",
			     "isi", (int64_t)failures, error, id);
}

int bg_store_board_last_good(struct bg_store *s, int64_t tree, const char *board, char **sha,
			     bool *own)
{
	if (bg_store_text(s, sha, "SELECT last_good FROM tree_boards WHERE tree_id = ? AND "
			  "board = ?", "is", tree, board) < 0)
		return -1;
	*own = *sha != NULL;
	return *own ? 0 : bg_store_tree_last_good(s, tree, sha);
}

int bg_store_gate_metric(struct bg_store *s, int64_t tree, const char *board, const char *rev,
			 char **metric)
{
	return bg_store_text(s, metric, "SELECT metric FROM comparisons WHERE role = 'gate' AND "
			     "verdict = 'regression' AND tree_id = ? AND board = ? AND cand = ? "
			     "ORDER BY id DESC LIMIT 1", "iss", tree, board, rev);
}

int bg_store_board_set_last_good(struct bg_store *s, int64_t tree, const char *board,
				 const char *sha)
{
	if (bg_store_exec(s, "INSERT INTO tree_boards (tree_id, board, last_good) VALUES (?, ?, ?) "
			  "ON CONFLICT (tree_id, board) DO UPDATE SET last_good = excluded.last_good",
			  "iss", tree, board, sha) < 0)
		return -1;
	return bg_store_tree_set_last_good(s, tree, sha);
}

/* The new tip on one board, inside new_tip's transaction. */
static int new_tip_on(struct bg_store *s, int64_t id, const char *tip, const char *board,
		      double now)
{
	int64_t queued, attempts = 0;
	char *why = NULL;
	int ret = -1;

	if (bg_store_int(s, 0, &queued, "SELECT id FROM jobs WHERE tree_id = ? AND kind = 'gate' "
			 "AND origin = 'fetch' AND state = 'queued' AND board IS ? ORDER BY id DESC "
			 "LIMIT 1", "is", id, board) < 0 ||
	    (queued && bg_store_job_attempts(s, queued, &attempts) < 0))
		return -1;
	/*
	 * One that never ran takes the newer tip (nothing of it was tried; a wait for the
	 * lab stays); one that did waits for its backoff with tries of an older commit: it
	 * ends, and the new commit has a job of its own, its first try due now.
	 */
	if (queued && !attempts)
		return bg_store_exec(s, "UPDATE jobs SET rev = ? WHERE id = ?", "si", tip, queued);
	why = xasprintf("superseded by %.12s before its next try", tip);
	if ((queued && bg_store_job_done(s, queued, why) < 0) ||
	    bg_store_exec(s, "INSERT INTO jobs (kind, tree_id, rev, board, created) VALUES "
			  "('gate', ?, ?, ?, ?)", "issd", id, tip, board, now) < 0)
		goto out;
	ret = 0;
out:
	free(why);
	return ret;
}

int bg_store_tree_new_tip(struct bg_store *s, int64_t id, const char *tip,
			  const char *const *boards, size_t nboards)
{
	double now = bg_store_now();

	if (bg_store_begin(s) < 0)
		return -1;
	if (bg_store_exec(s, "UPDATE trees SET last_tip = ?, fetched_at = ?, fetch_failures = 0, "
			  "fetch_error = NULL WHERE id = ?", "sdi", tip, now, id) < 0)
		goto fail;
	/* no board named: one job without one, as before boards (the daemon splits it) */
	for (size_t i = 0; i < (nboards ? nboards : 1); i++)
		if (new_tip_on(s, id, tip, nboards ? boards[i] : NULL, now) < 0)
			goto fail;
	return bg_store_commit(s);
fail:
	bg_store_rollback(s);
	return -1;
}

/* ---- jobs ---- */

struct next {
	bool (*fit)(const struct bg_job_row *j, void *data);
	void *data;
	struct bg_job_row *out;
};

static int take_job(const struct bg_store_row *r, void *data)
{
	struct next *n = data;
	struct bg_job_row *j = n->out;

	j->id = bg_row_int(r, 0);
	j->tree_id = bg_row_int(r, 1);
	snprintf(j->kind, sizeof(j->kind), "%s", bg_row_text(r, 2));
	snprintf(j->rev, sizeof(j->rev), "%s", bg_row_text(r, 3));
	snprintf(j->base, sizeof(j->base), "%s", bg_row_text(r, 4));
	j->series_id = bg_row_int(r, 5);
	snprintf(j->board, sizeof(j->board), "%s", bg_row_text(r, 6));
	if (!n->fit || n->fit(j, n->data))
		return 1;
	memset(j, 0, sizeof(*j));
	return 0;
}

int bg_store_job_next(struct bg_store *s, double now, double longest,
		      bool (*fit)(const struct bg_job_row *j, void *data), void *data,
		      struct bg_job_row *out)
{
	struct next n = { fit, data, out };

	memset(out, 0, sizeof(*out));
	/*
	 * One job per (tree, board) at a time: two of one board would boot against each
	 * other's figures. The jobs of a tree's other boards run beside it: the build lock
	 * keeps their builds in the tree's worktree one at a time, and the second finds the
	 * first's image when the two boot the same kernel.
	 */
	return bg_store_query(s, take_job, &n, "SELECT id, tree_id, kind, coalesce(rev, ''), "
			      "coalesce(base, ''), coalesce(series_id, 0), coalesce(board, '') FROM "
			      "jobs j WHERE state = 'queued' AND (not_before <= ? OR not_before > ?) "
			      "AND NOT EXISTS (SELECT 1 FROM jobs r WHERE r.state = 'running' AND "
			      "r.tree_id = j.tree_id AND (r.board IS NULL OR j.board IS NULL OR "
			      "r.board = j.board)) ORDER BY kind = 'gate', id", "dd", now,
			      now + longest);
}

int bg_store_job_running(struct bg_store *s, int64_t id)
{
	return bg_store_exec(s, "UPDATE jobs SET state = 'running', started = ?, attempts = "
			     "attempts + 1 WHERE id = ?", "di", bg_store_now(), id);
}

int bg_store_job_pid(struct bg_store *s, int64_t id, int64_t pid)
{
	return bg_store_exec(s, "UPDATE jobs SET pid = ? WHERE id = ?", "ii", pid, id);
}

int bg_store_job_attempts(struct bg_store *s, int64_t id, int64_t *attempts)
{
	return bg_store_int(s, 0, attempts, "SELECT attempts FROM jobs WHERE id = ?", "i", id);
}

int bg_store_job_series(struct bg_store *s, int64_t tree, const char *base, int64_t series)
{
	return bg_store_exec(s, "INSERT INTO jobs (kind, origin, tree_id, base, series_id, state, "
			     "created) VALUES ('series', 'inbox', ?, ?, ?, 'queued', ?)",
			     "isid", tree, base, series, bg_store_now());
}

int bg_store_job_series_ended(struct bg_store *s, int64_t id, bool *ended)
{
	int64_t n;
	int ret = bg_store_int(s, 0, &n, "SELECT s.state IN ('done', 'failed', 'superseded') FROM "
			       "jobs j JOIN series s ON s.id = j.series_id WHERE j.id = ? AND "
			       "j.kind = 'series'", "i", id);

	*ended = ret == 0 && n;
	return ret;
}

int bg_store_job_requeue(struct bg_store *s, int64_t id, double not_before, bool give_back)
{
	return bg_store_exec(s, "UPDATE jobs SET state = 'queued', pid = NULL, not_before = ?, "
			     "attempts = CASE WHEN ? THEN max(attempts - 1, 0) ELSE attempts END "
			     "WHERE id = ?", "dii", not_before, (int64_t)give_back, id);
}

int bg_store_job_done(struct bg_store *s, int64_t id, const char *error)
{
	return bg_store_exec(s, "UPDATE jobs SET state = 'done', pid = NULL, "
			     "error = coalesce(?, error), "
			     "finished = ? WHERE id = ?", "sdi", error, bg_store_now(), id);
}

int bg_store_job_failed(struct bg_store *s, int64_t id, const char *error)
{
	double now = bg_store_now();

	if (bg_store_exec(s, "UPDATE jobs SET state = 'failed', pid = NULL, finished = ?, error = "
			  "? WHERE id = ?", "dsi", now, error, id) < 0)
		return -1;
	/* its board's: another board may bisect the same commits (a job of none: any) */
	return bg_store_exec(s, "UPDATE bisections SET state = 'failed', error = 'its job failed', "
			     "finished = ?1 WHERE state = 'running' AND (tree_id, good, bad) IN "
			     "(SELECT tree_id, base, rev FROM jobs WHERE id = ?2 AND kind = 'bisect') "
			     "AND board = coalesce((SELECT board FROM jobs WHERE id = ?2), board)",
			     "di", now, id);
}

int bg_store_jobs_interrupted(struct bg_store *s, int64_t *n)
{
	int ret = bg_store_exec(s, "UPDATE jobs SET state = 'queued', pid = NULL, attempts = "
				"max(attempts - 1, 0) WHERE state = 'running'", "");

	*n = ret < 0 ? 0 : bg_store_changes(s);
	return ret;
}

int bg_store_job_bisect(struct bg_store *s, int64_t tree, const char *bad, const char *good,
			const char *board)
{
	return bg_store_exec(s, "INSERT INTO jobs (kind, origin, tree_id, rev, base, board, "
			     "created) VALUES ('bisect', 'gate', ?, ?, ?, ?, ?)", "isssd", tree, bad,
			     good, board, bg_store_now());
}

int bg_store_job_per_board(struct bg_store *s, int64_t id, const char *const *boards,
			   size_t nboards)
{
	if (!nboards)
		return 0;
	if (bg_store_begin(s) < 0)
		return -1;
	for (size_t i = 1; i < nboards; i++)
		if (bg_store_exec(s, "INSERT INTO jobs (kind, origin, tree_id, rev, base, series_id, "
				  "board, not_before, created) SELECT kind, origin, tree_id, rev, base, "
				  "series_id, ?, not_before, created FROM jobs WHERE id = ? AND state = "
				  "'queued' AND board IS NULL", "si", boards[i], id) < 0)
			goto fail;
	if (bg_store_exec(s, "UPDATE jobs SET board = ? WHERE id = ? AND state = 'queued' AND "
			  "board IS NULL", "si", boards[0], id) < 0)
		goto fail;
	return bg_store_commit(s);
fail:
	bg_store_rollback(s);
	return -1;
}

int bg_store_job_gate(struct bg_store *s, int64_t tree, const char *rev, int64_t *id)
{
	/* asked twice before it runs: once is enough */
	if (bg_store_int(s, 0, id, "SELECT id FROM jobs WHERE tree_id = ? AND kind = 'gate' AND "
			 "rev = ? AND state = 'queued' ORDER BY id LIMIT 1", "is", tree, rev) < 0)
		return -1;
	if (*id)
		return 1;
	if (bg_store_exec(s, "INSERT INTO jobs (kind, origin, tree_id, rev, created) VALUES "
			  "('gate', 'rerun', ?, ?, ?)", "isd", tree, rev, bg_store_now()) < 0)
		return -1;
	*id = bg_store_last_id(s);
	return 0;
}

int bg_store_job_rerun(struct bg_store *s, int64_t job, int64_t *id)
{
	int64_t queued;

	/* a job that has not run yet runs once: another beside it would test the same */
	if (bg_store_int(s, 0, &queued, "SELECT count(*) FROM jobs WHERE id = ? AND state = "
			 "'queued'", "i", job) < 0)
		return -1;
	if (queued) {
		*id = job;
		return 1;
	}
	if (bg_store_exec(s, "INSERT INTO jobs (kind, origin, tree_id, rev, base, board, created) "
			  "SELECT kind, 'rerun', tree_id, rev, base, board, ? FROM jobs WHERE id = ?", "di",
			  bg_store_now(), job) < 0)
		return -1;
	*id = bg_store_changes(s) ? bg_store_last_id(s) : 0;
	return 0;
}

int bg_store_series_state(struct bg_store *s, int64_t id, char **state)
{
	return bg_store_text(s, state, "SELECT state FROM series WHERE id = ?", "i", id);
}
