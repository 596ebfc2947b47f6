/* A bisection's own rows while it runs (bisections.h). */
#include "store/bisections.h"

int bg_store_bisection_find(struct bg_store *s, const struct bg_bisection_key *k, int64_t *id)
{
	return bg_store_int(s, 0, id, "SELECT id FROM bisections WHERE tree_id = ? AND good = ? "
			    "AND bad = ? AND board = ? AND mode = ? AND console_mode = ? AND "
			    "asked_metric IS ? AND state != 'failed' ORDER BY id DESC LIMIT 1",
			    "issssss", k->tree_id, k->good, k->bad, k->board, k->mode,
			    k->console_mode, k->asked_metric);
}

int bg_store_bisection_make(struct bg_store *s, const struct bg_bisection_key *k,
			    char *const *chain, size_t n, int64_t *id)
{
	if (bg_store_begin(s) < 0)
		return -1;
	if (bg_store_exec(s, "INSERT INTO bisections (tree_id, good, bad, board, mode, "
			  "console_mode, asked_metric, metric, created) VALUES (?, ?, ?, ?, ?, ?, ?, "
			  "?, ?)", "isssssssd", k->tree_id, k->good, k->bad, k->board, k->mode,
			  k->console_mode, k->asked_metric, k->asked_metric, bg_store_now()) < 0)
		goto fail;
	*id = bg_store_last_id(s);
	for (size_t i = 0; i < n; i++)
		if (bg_store_exec(s, "INSERT INTO bisection_commits (bisection_id, idx, sha) VALUES "
				  "(?, ?, ?)", "iis", *id, (int64_t)i, chain[i]) < 0)
			goto fail;
	return bg_store_commit(s);
fail:
	bg_store_rollback(s);
	return -1;
}

int bg_store_bisection_chain(struct bg_store *s, int64_t id, bg_store_row_fn fn, void *data)
{
	return bg_store_query(s, fn, data, "SELECT idx, sha FROM bisection_commits WHERE "
			      "bisection_id = ? ORDER BY idx", "i", id);
}

int bg_store_bisection_state(struct bg_store *s, int64_t id, char **state)
{
	return bg_store_text(s, state, "SELECT state FROM bisections WHERE id = ?", "i", id);
}

int bg_store_bisection_metric(struct bg_store *s, int64_t id, char **metric)
{
	return bg_store_text(s, metric, "SELECT metric FROM bisections WHERE id = ?", "i", id);
}

int bg_store_bisection_set_metric(struct bg_store *s, int64_t id, const char *metric)
{
	return bg_store_exec(s, "UPDATE bisections SET metric = ? WHERE id = ?", "si", metric, id);
}

int bg_store_bisection_fail(struct bg_store *s, int64_t id, const char *error)
{
	return bg_store_exec(s, "UPDATE bisections SET state = 'failed', error = ?, finished = ? "
			     "WHERE id = ?", "sdi", error, bg_store_now(), id);
}

int bg_store_bisection_set_outer(struct bg_store *s, int64_t inner, int64_t outer)
{
	return bg_store_exec(s, "UPDATE bisections SET parent_id = ? WHERE id = ?", "ii", outer,
			     inner);
}

int bg_store_bisection_report_rows(struct bg_store *s, int64_t id, bg_store_row_fn fn,
				   void *data)
{
	return bg_store_query(s, fn, data, "SELECT idx, kind, boot_id, value, seq FROM "
			      "bisection_reports WHERE bisection_id = ? ORDER BY seq", "i", id);
}

int bg_store_bisection_report_add(struct bg_store *s, int64_t id, int64_t seq, int idx,
				  const char *kind, int64_t build, int64_t boot, double value)
{
	/* no build or boot is NULL, not row 0 */
	return bg_store_exec(s, "INSERT INTO bisection_reports (bisection_id, seq, idx, kind, "
			     "build_id, boot_id, value) VALUES (?, ?, ?, ?, nullif(?, 0), "
			     "nullif(?, 0), ?)", "iiisiid", id, seq, (int64_t)idx, kind, build, boot,
			     value);
}

int bg_store_bisection_unused_boot(struct bg_store *s, int64_t id, int idx,
				   const char *image_sha256, const char *board, const char *mode,
				   const char *console_mode, int64_t *boot)
{
	return bg_store_int(s, 0, boot, "SELECT id FROM boots WHERE image_sha256 = ? AND board = ? "
			    "AND mode = ? AND console_mode = ? AND id NOT IN (SELECT boot_id FROM "
			    "bisection_reports WHERE bisection_id = ? AND idx = ? AND boot_id IS NOT "
			    "NULL) ORDER BY id LIMIT 1", "ssssii", image_sha256, board, mode,
			    console_mode, id, (int64_t)idx);
}
