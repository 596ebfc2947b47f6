/* What the CLI and the site list for people to read (views.h). */
#include "decide/bisect.h"
#include "store/views.h"
#include "util/strbuf.h"
#include "util/xmalloc.h"

/* ---- status and log ---- */

const char *const bg_status_section_names[BG_STATUS_SECTIONS] = {
	"trees", "boards", "jobs", "verdicts", "bisections", "boots",
};

static const char *const status_sql[BG_STATUS_SECTIONS] = {
	[BG_STATUS_TREES] = "SELECT name, branch, last_tip AS tip, last_good, fetched_at, "
		"fetch_failures, fetch_error FROM trees ORDER BY name",
	[BG_STATUS_BOARDS] = "SELECT t.name AS tree, b.board, b.last_good FROM tree_boards b "
		"JOIN trees t ON t.id = b.tree_id ORDER BY t.name, b.board",
	[BG_STATUS_JOBS] = "SELECT j.id, j.kind, t.name AS tree, j.board, j.rev, j.base, j.state, "
		"j.attempts, j.pid, j.not_before, j.started FROM jobs j JOIN trees t ON t.id = "
		"j.tree_id WHERE j.state IN ('queued', 'running') ORDER BY j.id",
	[BG_STATUS_VERDICTS] = "SELECT c.id, c.cand, c.base, c.board, c.mode, c.verdict, "
		"c.metric, c.delta AS delta_us, c.created FROM comparisons c WHERE c.role IN "
		"('gate', 'series') ORDER BY c.id DESC LIMIT 10",
	[BG_STATUS_BISECTIONS] = "SELECT b.id, t.name AS tree, b.board, b.state, b.metric, "
		"b.outcome, b.culprit, b.confidence, b.created, b.finished FROM bisections b JOIN "
		"trees t ON t.id = b.tree_id ORDER BY b.id DESC LIMIT 10",
	/* where each ran: the board, and the lab's page of a LAVA boot */
	[BG_STATUS_BOOTS] = "SELECT o.id, (SELECT commit_sha FROM builds WHERE image_sha256 = "
		"o.image_sha256 ORDER BY id LIMIT 1) AS \"commit\", o.board, o.mode, o.outcome, "
		"o.wall_s, o.job_url, o.created FROM boots o ORDER BY o.id DESC LIMIT 10",
};

int bg_store_status_rows(struct bg_store *s, enum bg_status_section section,
			 bg_store_row_fn fn, void *data)
{
	return bg_store_query(s, fn, data, status_sql[section], "");
}

int bg_store_event_rows(struct bg_store *s, const char *tree, int64_t lines, bg_store_row_fn fn,
			void *data)
{
	return bg_store_query(s, fn, data, "SELECT * FROM (SELECT e.id, e.at, e.level, t.name "
			      "AS tree, e.job_id AS job, e.message FROM events e LEFT JOIN trees t "
			      "ON t.id = e.tree_id WHERE ? IS NULL OR t.name = ? ORDER BY e.id DESC "
			      "LIMIT ?) ORDER BY id", "ssi", tree, tree, lines);
}

/* ---- boards ---- */

static int other_board(const struct bg_store_row *r, void *data)
{
	struct bg_strbuf *out = data;

	bg_strbuf_addf(out, "%s%s %s", out->len ? ", " : "", bg_row_text(r, 0),
		       bg_row_text(r, 1));
	return 0;
}

int bg_store_other_boards(struct bg_store *s, int64_t tree, const char *commit,
			  const char *board, struct bg_strbuf *out)
{
	struct bg_strbuf own = BG_STRBUF_INIT;
	int ret;

	/* a bare column beside max() is the row of the maximum (SQLite) */
	ret = bg_store_query(s, other_board, &own, "SELECT board, verdict, max(at) FROM (SELECT "
			     "board, verdict, created AS at FROM comparisons WHERE role = 'gate' "
			     "AND tree_id = ?1 AND cand = ?2 AND board != ?3 UNION ALL SELECT "
			     "board, CASE status WHEN 'failed' THEN 'unbuildable' ELSE 'infra' END, "
			     "created FROM builds WHERE commit_sha = ?2 AND status IN ('failed', "
			     "'infra') AND board != ?3 UNION ALL SELECT b.board, 'infra', "
			     "max(o.created) FROM builds b JOIN boots o ON o.image_sha256 = "
			     "b.image_sha256 AND o.board = b.board WHERE b.commit_sha = ?2 AND "
			     "b.board != ?3 GROUP BY b.board HAVING min(o.outcome = 'infra') = 1) "
			     "GROUP BY board ORDER BY board",
			     "iss", tree, commit, board);
	if (ret == 0)
		bg_strbuf_add(out, own.buf, own.len);
	bg_strbuf_release(&own);
	return ret;
}

/* ---- commits ---- */

int bg_store_commit_subject(struct bg_store *s, const char *sha, char **subject)
{
	return bg_store_text(s, subject, "SELECT subject FROM commits WHERE sha = ?", "s",
			     sha ? sha : "");
}

int bg_store_commit_author(struct bg_store *s, const char *sha, char **author)
{
	return bg_store_text(s, author, "SELECT author FROM commits WHERE sha = ?", "s",
			     sha ? sha : "");
}

int bg_store_commit_find(struct bg_store *s, const char *prefix, int64_t *n, char **sha)
{
	/* the prefix is hex (the caller's check): no '%' or '_' that LIKE would read */
	char *like = xasprintf("%s%%", prefix);
	int ret = bg_store_int(s, 0, n, "SELECT count(DISTINCT commit_sha) FROM builds WHERE "
			       "commit_sha LIKE ?", "s", like);

	*sha = NULL;
	if (!ret)
		ret = bg_store_text(s, sha, "SELECT commit_sha FROM builds WHERE commit_sha LIKE ? "
				    "LIMIT 1", "s", like);
	free(like);
	return ret;
}

int bg_store_commit_builds(struct bg_store *s, const char *sha, bg_store_row_fn fn, void *data)
{
	return bg_store_query(s, fn, data, "SELECT id, board, status, reused, seconds, "
			      "coalesce(image, log, '') FROM builds WHERE commit_sha = ? ORDER BY id",
			      "s", sha);
}

int bg_store_commit_boots(struct bg_store *s, const char *sha, bg_store_row_fn fn, void *data)
{
	return bg_store_query(s, fn, data, "SELECT b.image_sha256, b.mode, sum(b.outcome = "
			      "'complete'), count(*) FROM boots b WHERE b.image_sha256 IN (SELECT "
			      "image_sha256 FROM builds WHERE commit_sha = ?) GROUP BY "
			      "b.image_sha256, b.mode", "s", sha);
}

int bg_store_commit_bisections(struct bg_store *s, const char *sha, bg_store_row_fn fn,
			       void *data)
{
	return bg_store_query(s, fn, data, "SELECT id, outcome, CASE WHEN culprit = ? THEN "
			      "'the culprit' ELSE '' END FROM bisections WHERE culprit = ? OR id IN "
			      "(SELECT bisection_id FROM bisection_commits WHERE sha = ?)", "sss", sha,
			      sha, sha);
}

/* ---- bisections ---- */

int bg_store_bisection_reports(struct bg_store *s, int64_t id, bg_store_row_fn fn, void *data)
{
	return bg_store_query(s, fn, data, "SELECT r.seq, c.sha, r.kind, r.value FROM "
			      "bisection_reports r JOIN bisection_commits c ON c.bisection_id = "
			      "r.bisection_id AND c.idx = r.idx WHERE r.bisection_id = ? ORDER BY "
			      "r.seq", "i", id);
}

int bg_store_bisection_boots(struct bg_store *s, int64_t id, bg_store_row_fn fn, void *data)
{
	return bg_store_query(s, fn, data, "SELECT c.sha, o.board, o.outcome, o.wall_s, o.job_url "
			      "FROM bisection_reports r JOIN boots o ON o.id = r.boot_id JOIN "
			      "bisection_commits c ON c.bisection_id = r.bisection_id AND c.idx = "
			      "r.idx WHERE r.bisection_id = ? ORDER BY r.seq", "i", id);
}

/* ---- the site ---- */

int bg_store_index_trees(struct bg_store *s, bg_store_row_fn fn, void *data)
{
	return bg_store_query(s, fn, data, "SELECT t.name, t.branch, t.last_good, t.last_tip, "
			      "(SELECT count(*) FROM comparisons c WHERE c.tree_id = t.id AND "
			      "c.role IN ('gate', 'series')), (SELECT count(*) FROM comparisons c "
			      "WHERE c.tree_id = t.id AND c.role IN ('gate', 'series') AND "
			      "c.verdict = 'regression') FROM trees t ORDER BY t.name", "");
}

int bg_store_index_commits(struct bg_store *s, int64_t limit, bg_store_row_fn fn, void *data)
{
	return bg_store_query(s, fn, data, "SELECT c.id, t.name, c.cand, cm.subject, c.verdict, "
			      "c.metric, c.delta, c.created FROM comparisons c LEFT JOIN trees t ON "
			      "t.id = c.tree_id LEFT JOIN commits cm ON cm.sha = c.cand WHERE c.role "
			      "IN ('gate', 'series') ORDER BY c.created DESC, c.id DESC LIMIT ?", "i",
			      limit);
}

int bg_store_index_bisections(struct bg_store *s, int64_t limit, bg_store_row_fn fn,
			      void *data)
{
	/* a culprit its revert contradicted reads "unconfirmed" where others read their state */
	return bg_store_query(s, fn, data, "SELECT b.id, t.name, b.metric, CASE WHEN b.outcome = "
			      "'" BG_BISECT_UNCONFIRMED "' THEN b.outcome ELSE b.state END, b.culprit, cm.subject, "
			      "b.confidence FROM bisections b LEFT JOIN trees t ON t.id = b.tree_id "
			      "LEFT JOIN commits cm ON cm.sha = b.culprit ORDER BY b.id DESC LIMIT ?",
			      "i", limit);
}

int bg_store_index_series(struct bg_store *s, int64_t limit, bg_store_row_fn fn, void *data)
{
	return bg_store_query(s, fn, data, "SELECT s.id, t.name, s.subject, s.version, s.total, "
			      "s.state FROM series s LEFT JOIN trees t ON t.id = s.tree_id ORDER BY "
			      "s.id DESC LIMIT ?", "i", limit);
}

int bg_store_tree_rows(struct bg_store *s, bg_store_row_fn fn, void *data)
{
	return bg_store_query(s, fn, data, "SELECT id, name FROM trees ORDER BY id", "");
}

int bg_store_trend_commits(struct bg_store *s, int64_t tree, bg_store_row_fn fn, void *data)
{
	return bg_store_query(s, fn, data, "SELECT x.sha, x.board, x.mode, max(x.cid), cm.subject "
			      "FROM (SELECT base sha, board, mode, created - 1e-6 t, NULL cid FROM "
			      "comparisons WHERE tree_id = ? AND role IN ('gate', 'series') UNION "
			      "ALL SELECT cand, board, mode, created, id FROM comparisons WHERE "
			      "tree_id = ? AND role IN ('gate', 'series')) x LEFT JOIN commits cm ON "
			      "cm.sha = x.sha GROUP BY x.sha, x.board ORDER BY min(x.t), x.sha, "
			      "x.board", "ii", tree, tree);
}

int bg_store_trend_samples(struct bg_store *s, const char *sha, const char *board,
			   const char *mode, bg_store_row_fn fn, void *data)
{
	return bg_store_query(s, fn, data, "SELECT s.metric, s.value FROM boots o JOIN samples s "
			      "ON s.boot_id = o.id WHERE o.image_sha256 IN (SELECT image_sha256 FROM "
			      "builds WHERE commit_sha = ? AND board = ? AND status = 'built') AND "
			      "o.board = ? AND o.mode = ? AND o.outcome = 'complete' AND (s.metric = "
			      "'boot.init' OR s.metric GLOB 'initcall.*')", "ssss", sha, board, board,
			      mode);
}
