/* The service's jobs in the store: what a new tip and a rerun queue (store/service.h). */
#include "unit.h"
#include "store/service.h"
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
	assert_int_equal(bg_store_tree_new_tip(s, tree, TIP_A), 0);
	assert_int_equal(bg_store_job_next(s, now, 3600, &j), 1);
	assert_string_equal(j.rev, TIP_A);
	first = j.id;
	/* its first try ends with an infrastructure failure: again in an hour */
	assert_int_equal(bg_store_job_running(s, first), 0);
	assert_int_equal(bg_store_job_requeue(s, first, now + 3600, false), 0);
	assert_int_equal(bg_store_job_next(s, now, 7200, &j), 0);

	assert_int_equal(bg_store_tree_new_tip(s, tree, TIP_B), 0);
	assert_int_equal(bg_store_job_next(s, bg_store_now(), 7200, &j), 1);
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
	assert_int_equal(bg_store_tree_new_tip(s, tree, TIP_A), 0);
	assert_int_equal(bg_store_job_next(s, bg_store_now(), 3600, &j), 1);
	first = j.id;
	assert_int_equal(bg_store_tree_new_tip(s, tree, TIP_B), 0);
	assert_int_equal(bg_store_tree_new_tip(s, tree, TIP_C), 0);
	assert_int_equal(bg_store_job_next(s, bg_store_now(), 3600, &j), 1);
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
	assert_int_equal(bg_store_tree_new_tip(s, tree, TIP_A), 0);
	assert_int_equal(bg_store_job_next(s, bg_store_now(), 3600, &j), 1);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_new_tip_fresh_job),
		cmocka_unit_test(test_new_tip_coalesced),
		cmocka_unit_test(test_rerun_queued),
	};
	int ret;

	dir = unit_scratch_dir("store-service");
	assert_non_null(dir);
	ret = cmocka_run_group_tests_name("store-service", tests, NULL, NULL);
	bg_remove_tree(dir);
	free(dir);
	return ret;
}
