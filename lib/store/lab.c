/* What the lab did, as rows (lab.h). */
#include "store/lab.h"

int bg_store_tree_record(struct bg_store *s, const char *name, const char *path, int64_t *id)
{
	if (bg_store_exec(s, "INSERT INTO trees (name, path) VALUES (?, ?) ON CONFLICT (name) DO "
			  "UPDATE SET path = excluded.path", "ss", name, path) < 0)
		return -1;
	return bg_store_int(s, 0, id, "SELECT id FROM trees WHERE name = ?", "s", name);
}

int bg_store_commit_known(struct bg_store *s, const char *sha, bool *known)
{
	int64_t n;
	int ret = bg_store_int(s, 0, &n, "SELECT 1 FROM commits WHERE sha = ?", "s", sha);

	*known = ret == 0 && n;
	return ret;
}

int bg_store_commit_add(struct bg_store *s, const char *sha, const char *parent,
			const char *subject, const char *author)
{
	return bg_store_exec(s, "INSERT OR IGNORE INTO commits (sha, parent, subject, author) "
			     "VALUES (?, ?, ?, ?)", "ssss", sha, parent, subject, author);
}

int bg_store_build_add(struct bg_store *s, const struct bg_build_row *b, int64_t *id)
{
	if (bg_store_exec(s, "INSERT INTO builds (commit_sha, board, status, config_hash, image, "
			  "image_sha256, reused, ccache_hits, ccache_misses, seconds, log, error, "
			  "compiler, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
			  "ssssssiiidsssd", b->commit ? b->commit : "", b->board ? b->board : "",
			  b->status, b->config_hash, b->image, b->image_sha256, (int64_t)b->reused,
			  (int64_t)b->ccache_hits, (int64_t)b->ccache_misses, b->seconds, b->log,
			  b->error, b->compiler, bg_store_now()) < 0)
		return -1;
	*id = bg_store_last_id(s);
	return 0;
}

int bg_store_build_rows(struct bg_store *s, const char *commit, const char *board,
			bg_store_row_fn fn, void *data)
{
	return bg_store_query(s, fn, data, "SELECT id, status, image, image_sha256 FROM builds "
			      "WHERE commit_sha = ? AND board = ? AND status IN ('built', 'failed') "
			      "ORDER BY id DESC", "ss", commit, board);
}

int bg_store_boot_add(struct bg_store *s, const struct bg_boot_row *b,
		      const struct bg_sample_row *samples, size_t n, int64_t *id)
{
	if (bg_store_begin(s) < 0)
		return -1;
	if (bg_store_exec(s, "INSERT INTO boots (image_sha256, board, mode, console_mode, outcome, "
			  "wall_s, console, job_url, created, kernel, cmdline) VALUES (?, ?, ?, ?, "
			  "?, ?, ?, ?, ?, ?, ?)", "sssssdssdss", b->image_sha256, b->board, b->mode,
			  b->console_mode, b->outcome, b->wall_s, b->console, b->job_url,
			  bg_store_now(), b->kernel, b->cmdline) < 0)
		goto fail;
	*id = bg_store_last_id(s);
	for (size_t i = 0; i < n; i++)
		if (bg_store_exec(s, "INSERT INTO samples (boot_id, seq, metric, value, start_us, "
				  "end_us, line) VALUES (?, ?, ?, ?, ?, ?, nullif(?, 0))", "iisdddi",
				  *id, (int64_t)i, samples[i].metric, samples[i].value,
				  samples[i].start_us, samples[i].end_us,
				  (int64_t)samples[i].line) < 0)
			goto fail;
	return bg_store_commit(s);
fail:
	bg_store_rollback(s);
	return -1;
}

int bg_store_boot_outcome(struct bg_store *s, int64_t id, char **outcome)
{
	return bg_store_text(s, outcome, "SELECT outcome FROM boots WHERE id = ?", "i", id);
}

int bg_store_boot_values(struct bg_store *s, int64_t id, bg_store_row_fn fn, void *data)
{
	return bg_store_query(s, fn, data, "SELECT metric, value FROM samples WHERE boot_id = ? "
			      "ORDER BY seq", "i", id);
}

int bg_store_boot_value(struct bg_store *s, int64_t id, const char *metric, double def,
			double *value)
{
	return bg_store_double(s, def, value, "SELECT value FROM samples WHERE boot_id = ? AND "
			       "metric = ?", "is", id, metric);
}

int bg_store_boots_complete(struct bg_store *s, const struct bg_boot_key *k, int64_t *n)
{
	return bg_store_int(s, 0, n, "SELECT count(*) FROM boots WHERE image_sha256 = ? AND "
			    "board = ? AND mode = ? AND console_mode = ? AND outcome = 'complete'",
			    "ssss", k->image_sha256, k->board, k->mode, k->console_mode);
}

int bg_store_boot_next_complete(struct bg_store *s, const struct bg_boot_key *k, int64_t after,
				int64_t *id)
{
	return bg_store_int(s, 0, id, "SELECT id FROM boots WHERE image_sha256 = ? AND board = ? "
			    "AND mode = ? AND console_mode = ? AND outcome = 'complete' AND id > ? "
			    "ORDER BY id LIMIT 1", "ssssi", k->image_sha256, k->board, k->mode,
			    k->console_mode, after);
}

int bg_store_event_add(struct bg_store *s, const char *level, int64_t tree, int64_t job,
		       const char *message)
{
	return bg_store_exec(s, "INSERT INTO events (at, level, tree_id, job_id, message) VALUES "
			     "(?, ?, nullif(?, 0), nullif(?, 0), ?)", "dsiis", bg_store_now(), level,
			     tree, job, message);
}
