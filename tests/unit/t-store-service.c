/* The service's jobs in the store: what a new tip and a rerun queue (store/service.h). */
#include "unit.h"
#include "store/service.h"
#include "store/views.h"
#include "util/strbuf.h"
#include "util/error.h"

#define TIP_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define TIP_B "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
#define TIP_C "cccccccccccccccccccccccccccccccccccccccc"

static char *dir;

/* A store of its own with one tree; *tree its row. */
static struct bg_store *open_store(const char *name, int64_t *tree)
{
	char *path = bg_path_join(dir, name);
	struct bg_store *s;

	assert_int_equal(bg_store_open(path, &s), 0);
	free(path);
	assert_int_equal(bg_store_tree_configure(s, "t", "/nonexistent/t", "git://127.0.0.1/t",
						 "main", tree), 0);
	return s;
}

static int64_t count(struct bg_store *s, const char *sql, int64_t arg)
{
	int64_t n = -1;

	assert_int_equal(bg_store_int(s, -1, &n, sql, "i", arg), 0);
	return n;
}

static int64_t queued_gates(struct bg_store *s, int64_t tree)
{
	return count(s, "SELECT count(*) FROM jobs WHERE tree_id = ? AND kind = 'gate' AND "
		     "state = 'queued'", tree);
}

/*
 * A gate that failed once waits for its backoff; a newer tip then is another commit,
 * which gets a job of its own: its first try, due now, not the old one's second.
 */
static void test_new_tip_fresh_job(void **state)
{
	struct bg_job_row j;
	int64_t tree, first, attempts = -1;
	struct bg_store *s = open_store("tip.db", &tree);
	double now = bg_store_now();

	(void)state;
	assert_int_equal(bg_store_tree_new_tip(s, tree, TIP_A, NULL, 0), 0);
	assert_int_equal(bg_store_job_next(s, now, 3600, NULL, NULL, &j), 1);
	assert_string_equal(j.rev, TIP_A);
	first = j.id;
	/* its first try ends with an infrastructure failure: again in an hour */
	assert_int_equal(bg_store_job_running(s, first), 0);
	assert_int_equal(bg_store_job_requeue(s, first, now + 3600, false), 0);
	assert_int_equal(bg_store_job_next(s, now, 7200, NULL, NULL, &j), 0);

	assert_int_equal(bg_store_tree_new_tip(s, tree, TIP_B, NULL, 0), 0);
	assert_int_equal(bg_store_job_next(s, bg_store_now(), 7200, NULL, NULL, &j), 1);
	assert_string_equal(j.rev, TIP_B);
	assert_int_equal(bg_store_job_attempts(s, j.id, &attempts), 0);
	assert_int_equal(attempts, 0);
	assert_true(j.id != first);
	/* the old commit's job is not left queued beside it: one gate waits per tree */
	assert_int_equal(queued_gates(s, tree), 1);
	assert_int_equal(count(s, "SELECT count(*) FROM jobs WHERE id = ? AND state = 'done' "
			       "AND error LIKE 'superseded by %'", first), 1);
	bg_store_close(s);
}

/* A gate a fetch queued that never ran takes the newer tip: still one job, still fresh. */
static void test_new_tip_coalesced(void **state)
{
	struct bg_job_row j;
	int64_t tree, first, attempts = -1;
	struct bg_store *s = open_store("coalesce.db", &tree);

	(void)state;
	assert_int_equal(bg_store_tree_new_tip(s, tree, TIP_A, NULL, 0), 0);
	assert_int_equal(bg_store_job_next(s, bg_store_now(), 3600, NULL, NULL, &j), 1);
	first = j.id;
	assert_int_equal(bg_store_tree_new_tip(s, tree, TIP_B, NULL, 0), 0);
	assert_int_equal(bg_store_tree_new_tip(s, tree, TIP_C, NULL, 0), 0);
	assert_int_equal(bg_store_job_next(s, bg_store_now(), 3600, NULL, NULL, &j), 1);
	assert_int_equal(j.id, first);
	assert_string_equal(j.rev, TIP_C);
	assert_int_equal(bg_store_job_attempts(s, j.id, &attempts), 0);
	assert_int_equal(attempts, 0);
	assert_int_equal(count(s, "SELECT count(*) FROM jobs WHERE tree_id = ?", tree), 1);
	bg_store_close(s);
}

/* A rerun of a job still queued is that job: nothing more is queued. */
static void test_rerun_queued(void **state)
{
	struct bg_job_row j;
	int64_t tree, id = -1, again = -1;
	struct bg_store *s = open_store("rerun.db", &tree);

	(void)state;
	assert_int_equal(bg_store_tree_new_tip(s, tree, TIP_A, NULL, 0), 0);
	assert_int_equal(bg_store_job_next(s, bg_store_now(), 3600, NULL, NULL, &j), 1);
	/* 1: the job was queued already */
	assert_int_equal(bg_store_job_rerun(s, j.id, &id), 1);
	assert_int_equal(id, j.id);
	assert_int_equal(count(s, "SELECT count(*) FROM jobs WHERE tree_id = ?", tree), 1);
	/* a gate of a commit asked for by hand twice: one job */
	assert_int_equal(bg_store_job_gate(s, tree, TIP_B, &id), 0);
	assert_int_equal(bg_store_job_gate(s, tree, TIP_B, &again), 1);
	assert_int_equal(again, id);
	assert_int_equal(count(s, "SELECT count(*) FROM jobs WHERE tree_id = ?", tree), 2);
	/* once it has run, a rerun is a new job */
	assert_int_equal(bg_store_job_running(s, j.id), 0);
	assert_int_equal(bg_store_job_done(s, j.id, NULL), 0);
	assert_int_equal(bg_store_job_rerun(s, j.id, &id), 0);
	assert_true(id > j.id);
	assert_int_equal(count(s, "SELECT count(*) FROM jobs WHERE tree_id = ?", tree), 3);
	/* no such job: 0 */
	assert_int_equal(bg_store_job_rerun(s, 999, &id), 0);
	assert_int_equal(id, 0);
	bg_store_close(s);
}

static const char *const boards2[] = { "qemu-x86_64", "qemu-arm64" };

/* The board of each queued gate, in the order of their ids, space-separated. */
static char *gate_boards(struct bg_store *s, int64_t tree, const char *state)
{
	char *text = NULL;

	assert_int_equal(bg_store_text(s, &text, "SELECT group_concat(coalesce(board, '-'), ' ') "
				       "FROM (SELECT board FROM jobs WHERE tree_id = ? AND kind = "
				       "'gate' AND state = ? ORDER BY id)", "is", tree, state), 0);
	return text;
}

/*
 * A new tip is gated on every board of the tree, a job each; a newer tip before they run
 * takes their place, board by board: still one gate per board.
 */
static void test_new_tip_every_board(void **state)
{
	struct bg_job_row j;
	int64_t tree;
	struct bg_store *s = open_store("boards.db", &tree);
	char *b;

	(void)state;
	assert_int_equal(bg_store_tree_new_tip(s, tree, TIP_A, boards2, 2), 0);
	b = gate_boards(s, tree, "queued");
	assert_string_equal(b, "qemu-x86_64 qemu-arm64");
	free(b);
	assert_int_equal(bg_store_tree_new_tip(s, tree, TIP_B, boards2, 2), 0);
	assert_int_equal(queued_gates(s, tree), 2);
	assert_int_equal(count(s, "SELECT count(*) FROM jobs WHERE tree_id = ? AND rev = '"
			       TIP_B "'", tree), 2);
	assert_int_equal(bg_store_job_next(s, bg_store_now(), 3600, NULL, NULL, &j), 1);
	assert_string_equal(j.board, "qemu-x86_64");
	assert_string_equal(j.rev, TIP_B);
	bg_store_close(s);
}

/*
 * One job per (tree, board) runs at a time: with the x86_64 gate running, the arm64 one
 * of the same tree is next, and a second x86_64 one waits. A job without a board stands
 * for all of its tree's boards.
 */
static void test_next_per_board(void **state)
{
	struct bg_job_row j;
	int64_t tree, x86;
	struct bg_store *s = open_store("per-board.db", &tree);

	(void)state;
	assert_int_equal(bg_store_tree_new_tip(s, tree, TIP_A, boards2, 2), 0);
	assert_int_equal(bg_store_job_next(s, bg_store_now(), 3600, NULL, NULL, &j), 1);
	x86 = j.id;
	assert_int_equal(bg_store_job_running(s, x86), 0);
	/* a bisection on x86_64 waits for its board; arm64's gate goes */
	assert_int_equal(bg_store_job_bisect(s, tree, TIP_B, TIP_A, "qemu-x86_64"), 0);
	assert_int_equal(bg_store_job_next(s, bg_store_now(), 3600, NULL, NULL, &j), 1);
	assert_string_equal(j.kind, "gate");
	assert_string_equal(j.board, "qemu-arm64");
	assert_int_equal(bg_store_job_running(s, j.id), 0);
	assert_int_equal(bg_store_job_next(s, bg_store_now(), 3600, NULL, NULL, &j), 0);
	/* x86_64 done: its bisection, on its board, comes before any gate */
	assert_int_equal(bg_store_job_done(s, x86, NULL), 0);
	assert_int_equal(bg_store_job_gate(s, tree, TIP_C, &x86), 0);
	assert_int_equal(bg_store_job_next(s, bg_store_now(), 3600, NULL, NULL, &j), 1);
	assert_string_equal(j.kind, "bisect");
	assert_string_equal(j.board, "qemu-x86_64");
	assert_string_equal(j.rev, TIP_B);
	assert_string_equal(j.base, TIP_A);
	bg_store_close(s);
}

/* The scheduler's say: a job its fit refuses is passed over for the next that fits. */
static bool fit_lava_only(const struct bg_job_row *j, void *data)
{
	(*(int *)data)++;
	return !strncmp(j->board, "lava-", 5);
}

static void test_next_fit(void **state)
{
	static const char *const boards[] = { "qemu-x86_64", "lava-x86-pc", "qemu-arm64" };
	struct bg_job_row j;
	int64_t tree;
	int asked = 0;
	struct bg_store *s = open_store("fit.db", &tree);

	(void)state;
	assert_int_equal(bg_store_tree_new_tip(s, tree, TIP_A, boards, 3), 0);
	assert_int_equal(bg_store_job_next(s, bg_store_now(), 3600, fit_lava_only, &asked, &j),
			 1);
	assert_string_equal(j.board, "lava-x86-pc");
	assert_int_equal(asked, 2);
	assert_int_equal(bg_store_job_running(s, j.id), 0);
	/* nothing else fits: none, and the row it refused is not given back */
	asked = 0;
	assert_int_equal(bg_store_job_next(s, bg_store_now(), 3600, fit_lava_only, &asked, &j),
			 0);
	assert_int_equal(asked, 2);
	assert_int_equal(j.id, 0);
	assert_string_equal(j.board, "");
	bg_store_close(s);
}

/*
 * A gate asked for by hand names no board: split, it is one job per board, the first
 * keeping its id; a rerun of one of them stays on its board.
 */
static void test_per_board_split(void **state)
{
	struct bg_job_row j;
	int64_t tree, id = 0, rerun = 0;
	struct bg_store *s = open_store("split.db", &tree);
	char *b;

	(void)state;
	assert_int_equal(bg_store_job_gate(s, tree, TIP_A, &id), 0);
	assert_int_equal(bg_store_job_next(s, bg_store_now(), 3600, NULL, NULL, &j), 1);
	assert_int_equal(j.id, id);
	assert_string_equal(j.board, "");
	assert_int_equal(bg_store_job_per_board(s, id, boards2, 2), 0);
	b = gate_boards(s, tree, "queued");
	assert_string_equal(b, "qemu-x86_64 qemu-arm64");
	free(b);
	assert_int_equal(count(s, "SELECT count(*) FROM jobs WHERE tree_id = ? AND origin = "
			       "'rerun' AND rev = '" TIP_A "'", tree), 2);
	/* split once: again, nothing changes */
	assert_int_equal(bg_store_job_per_board(s, id, boards2, 2), 0);
	assert_int_equal(queued_gates(s, tree), 2);
	assert_int_equal(bg_store_job_next(s, bg_store_now(), 3600, NULL, NULL, &j), 1);
	assert_int_equal(j.id, id);
	assert_string_equal(j.board, "qemu-x86_64");
	assert_int_equal(bg_store_job_running(s, id), 0);
	assert_int_equal(bg_store_job_done(s, id, NULL), 0);
	assert_int_equal(bg_store_job_rerun(s, id, &rerun), 0);
	assert_int_equal(count(s, "SELECT count(*) FROM jobs WHERE id = ? AND board = "
			       "'qemu-x86_64'", rerun), 1);
	bg_store_close(s);
}

/* A status row as "tree board last_good\n". */
static int status_line(const struct bg_store_row *r, void *data)
{
	bg_strbuf_addf(data, "%s %s %s\n", bg_row_text(r, 0), bg_row_text(r, 1),
		       bg_row_text(r, 2));
	return 0;
}

/*
 * Each board has its last good commit; one a board has not passed yet is the tree's
 * (what the board before boards left, or the last any board passed).
 */
static void test_board_last_good(void **state)
{
	int64_t tree;
	struct bg_store *s = open_store("last-good.db", &tree);
	char *sha = NULL;
	bool own;

	(void)state;
	assert_int_equal(bg_store_board_last_good(s, tree, "qemu-arm64", &sha, &own), 0);
	assert_null(sha);
	assert_false(own);
	assert_int_equal(bg_store_tree_set_last_good(s, tree, TIP_A), 0);
	assert_int_equal(bg_store_board_last_good(s, tree, "qemu-arm64", &sha, &own), 0);
	assert_string_equal(sha, TIP_A);
	/* the tree's, not the board's: a gate of TIP_A on it is its baseline (gate.c) */
	assert_false(own);
	free(sha);
	assert_int_equal(bg_store_board_set_last_good(s, tree, "qemu-x86_64", TIP_B), 0);
	assert_int_equal(bg_store_board_set_last_good(s, tree, "qemu-arm64", TIP_C), 0);
	assert_int_equal(bg_store_board_last_good(s, tree, "qemu-x86_64", &sha, &own), 0);
	assert_string_equal(sha, TIP_B);
	assert_true(own);
	free(sha);
	assert_int_equal(bg_store_board_last_good(s, tree, "qemu-arm64", &sha, &own), 0);
	assert_string_equal(sha, TIP_C);
	assert_true(own);
	free(sha);
	/* a third board starts from the last commit any board passed */
	assert_int_equal(bg_store_board_last_good(s, tree, "qemu-ppc64le", &sha, &own), 0);
	assert_string_equal(sha, TIP_C);
	assert_false(own);
	free(sha);
	/* bootgate status: a row per board, as the store has it */
	{
		struct bg_strbuf sb = BG_STRBUF_INIT;

		assert_int_equal(bg_store_status_rows(s, BG_STATUS_BOARDS, status_line, &sb), 0);
		assert_string_equal(sb.buf, "t qemu-arm64 " TIP_C "\nt qemu-x86_64 " TIP_B "\n");
		bg_strbuf_release(&sb);
	}
	bg_store_close(s);
}

/*
 * Two boards regressed on the same tip: two bisections of the same commits. The job of
 * one failing for good ends its bisection, not the other board's.
 */
static void test_failed_bisection_own_board(void **state)
{
	struct bg_job_row j;
	int64_t tree;
	struct bg_store *s = open_store("failed.db", &tree);

	(void)state;
	for (int i = 0; i < 2; i++) {
		assert_int_equal(bg_store_exec(s, "INSERT INTO bisections (tree_id, good, bad, "
					       "board, mode, created) VALUES (?, ?, ?, ?, "
					       "'deterministic', 0)", "isss", tree, TIP_A, TIP_B,
					       boards2[i]), 0);
		assert_int_equal(bg_store_job_bisect(s, tree, TIP_B, TIP_A, boards2[i]), 0);
	}
	assert_int_equal(bg_store_job_next(s, bg_store_now(), 3600, NULL, NULL, &j), 1);
	assert_string_equal(j.board, "qemu-x86_64");
	assert_int_equal(bg_store_job_failed(s, j.id, "too many tries"), 0);
	assert_int_equal(count(s, "SELECT count(*) FROM bisections WHERE tree_id = ? AND state = "
			       "'failed' AND board = 'qemu-x86_64'", tree), 1);
	assert_int_equal(count(s, "SELECT count(*) FROM bisections WHERE tree_id = ? AND state = "
			       "'running' AND board = 'qemu-arm64'", tree), 1);
	bg_store_close(s);
}

/*
 * The other boards' word on a commit, as the mail and show print it: each board's
 * newest, its own board left out; a board whose boots all failed in the lab is infra,
 * never a verdict, until a gate there gives one.
 */
/* The metric a bisection of a gate's regression bisects: the gate's, on its board. */
static void test_gate_metric(void **state)
{
	int64_t tree;
	struct bg_store *s = open_store("gate-metric.db", &tree);
	char *metric = NULL;

	(void)state;
	assert_int_equal(bg_store_exec(s, "INSERT INTO comparisons (base, cand, board, mode, "
				       "verdict, metric, created, tree_id, role) VALUES (?1, ?2, "
				       "'qemu-arm64', 'deterministic', 'regression', "
				       "'initcall.topology_init', 1, ?3, 'gate'), (?1, ?2, "
				       "'qemu-x86_64', 'deterministic', 'pass', NULL, 1, ?3, 'gate'), "
				       "(?1, ?2, 'qemu-arm64', 'timing', 'different', 'boot.init', 2, "
				       "?3, 'timing')", "ssi", TIP_A, TIP_B, tree), 0);
	assert_int_equal(bg_store_gate_metric(s, tree, "qemu-arm64", TIP_B, &metric), 0);
	assert_string_equal(metric, "initcall.topology_init");
	free(metric);
	assert_int_equal(bg_store_gate_metric(s, tree, "qemu-x86_64", TIP_B, &metric), 0);
	assert_null(metric);
	assert_int_equal(bg_store_gate_metric(s, tree, "qemu-arm64", TIP_A, &metric), 0);
	assert_null(metric);
	bg_store_close(s);
}

static void test_other_boards(void **state)
{
	int64_t tree;
	struct bg_store *s = open_store("others.db", &tree);
	struct bg_strbuf sb = BG_STRBUF_INIT;

	(void)state;
	assert_int_equal(bg_store_exec(s, "INSERT INTO comparisons (base, cand, board, mode, "
				       "verdict, created, tree_id, role) VALUES (?1, ?2, "
				       "'qemu-arm64', 'timing', 'pass', 1, ?3, 'gate'), (?1, ?2, "
				       "'qemu-x86_64', 'timing', 'regression', 1, ?3, 'gate')",
				       "ssi", TIP_A, TIP_B, tree), 0);
	assert_int_equal(bg_store_exec(s, "INSERT INTO builds (commit_sha, board, status, "
				       "image_sha256, created) VALUES (?1, 'qemu-ppc64le', 'failed', "
				       "NULL, 2), (?1, 'lava-x86-pc', 'built', 'img', 3)", "s",
				       TIP_B), 0);
	assert_int_equal(bg_store_exec(s, "INSERT INTO boots (image_sha256, board, mode, outcome, "
				       "created) VALUES ('img', 'lava-x86-pc', 'timing', 'infra', 4), "
				       "('img', 'lava-x86-pc', 'timing', 'infra', 5)", ""), 0);
	assert_int_equal(bg_store_other_boards(s, tree, TIP_B, "qemu-x86_64", &sb), 0);
	assert_string_equal(sb.buf, "lava-x86-pc infra, qemu-arm64 pass, qemu-ppc64le unbuildable");
	/* its next try booted: the gate's verdict is the board's word now */
	assert_int_equal(bg_store_exec(s, "INSERT INTO comparisons (base, cand, board, mode, "
				       "verdict, created, tree_id, role) VALUES (?, ?, 'lava-x86-pc', "
				       "'timing', 'unknown', 6, ?, 'gate')", "ssi", TIP_A, TIP_B,
				       tree), 0);
	bg_strbuf_reset(&sb);
	assert_int_equal(bg_store_other_boards(s, tree, TIP_B, "qemu-arm64", &sb), 0);
	assert_string_equal(sb.buf, "lava-x86-pc unknown, qemu-ppc64le unbuildable, "
			    "qemu-x86_64 regression");
	bg_strbuf_release(&sb);
	bg_store_close(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_new_tip_fresh_job),
		cmocka_unit_test(test_new_tip_coalesced),
		cmocka_unit_test(test_rerun_queued),
		cmocka_unit_test(test_new_tip_every_board),
		cmocka_unit_test(test_next_per_board),
		cmocka_unit_test(test_next_fit),
		cmocka_unit_test(test_per_board_split),
		cmocka_unit_test(test_board_last_good),
		cmocka_unit_test(test_gate_metric),
		cmocka_unit_test(test_failed_bisection_own_board),
		cmocka_unit_test(test_other_boards),
	};
	int ret;

	dir = unit_scratch_dir("store-service");
	assert_non_null(dir);
	ret = cmocka_run_group_tests_name("store-service", tests, NULL, NULL);
	bg_remove_tree(dir);
	free(dir);
	return ret;
}
