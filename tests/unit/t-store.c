/* The store: migrations, binds, transactions, and what it refuses. */
#include <fcntl.h>
#include <glob.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include "unit.h"
#include "store/store.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/xmalloc.h"

extern const size_t bg_store_nmigrations;

static char *dir;

static char *db_path(const char *name)
{
	return bg_path_join(dir, name);
}

static void test_open_migrates_once(void **state)
{
	char *path = db_path("a.db");
	struct bg_store *s;
	int64_t n;

	(void)state;
	assert_int_equal(bg_store_open(path, &s), 0);
	assert_int_equal(bg_store_version(s), (int)bg_store_nmigrations);
	assert_int_equal(bg_store_exec(s, "INSERT INTO trees (name, path) VALUES (?, ?)", "ss",
				       "tracing", "/x"), 0);
	bg_store_close(s);
	/* a second open applies nothing again and keeps the rows */
	assert_int_equal(bg_store_open(path, &s), 0);
	assert_int_equal(bg_store_int(s, -1, &n, "SELECT count(*) FROM trees", ""), 0);
	assert_int_equal(n, 1);
	assert_int_equal(bg_store_int(s, 0, &n, "PRAGMA journal_mode", ""), 0);
	{
		char *mode;

		assert_int_equal(bg_store_text(s, &mode, "PRAGMA journal_mode", ""), 0);
		assert_string_equal(mode, "wal");
		free(mode);
	}
	bg_store_close(s);
	free(path);
}

static void test_newer_schema_refused(void **state)
{
	char *path = db_path("newer.db");
	struct bg_store *s;

	(void)state;
	assert_int_equal(bg_store_open(path, &s), 0);
	assert_int_equal(bg_store_exec(s, "PRAGMA user_version = 999", ""), 0);
	bg_store_close(s);
	assert_int_equal(bg_store_open(path, &s), -1);
	assert_non_null(strstr(bg_error_last(), "schema version 999 is newer"));
	assert_null(s);
	free(path);
}

static void test_not_a_database(void **state)
{
	char *path = db_path("junk.db");
	struct bg_store *s;

	(void)state;
	assert_int_equal(bg_write_file(path, "this is not SQLite, and it is long enough to "
				       "look like a header of one", 70), 0);
	assert_int_equal(bg_store_open(path, &s), -1);
	assert_non_null(strstr(bg_error_last(), path));
	free(path);
}

/* An empty file: refused by writers and readers, and left empty (no new store in it). */
static void test_empty_file_refused(void **state)
{
	char *path = db_path("empty.db");
	struct bg_store *s;
	struct stat st;

	(void)state;
	assert_int_equal(bg_write_file(path, "", 0), 0);
	assert_int_equal(bg_store_open(path, &s), -1);
	assert_null(s);
	assert_non_null(strstr(bg_error_last(), "empty.db: an empty file, not a store"));
	assert_int_equal(bg_store_open_ro(path, &s), -1);
	assert_non_null(strstr(bg_error_last(), "empty.db: an empty file"));
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, 0);
	free(path);
}

/*
 * A new store is made whole beside its place, then linked there: what a process killed
 * while it made one left (PATH.new-PID of a PID gone) is removed, one of a process alive
 * is not, and nothing of the making is left beside the store (a kill then left an empty
 * file that every later open refused).
 */
static void test_made_whole_then_linked(void **state)
{
	char *path = db_path("new.db"), *dead = db_path("new.db.new-2147483646"),
	     *alive = db_path("new.db.new-1"), *mine;
	struct bg_store *s;
	struct stat st;

	(void)state;
	mine = xasprintf("%s.new-%ld", path, (long)getpid());
	assert_int_equal(bg_write_file(dead, "half a store", 12), 0);
	assert_int_equal(bg_write_file(alive, "another's", 9), 0);
	assert_int_equal(bg_store_open(path, &s), 0);
	assert_int_equal(bg_store_version(s), (int)bg_store_nmigrations);
	bg_store_close(s);
	assert_int_equal(stat(path, &st), 0);
	assert_true(st.st_size > 0);
	assert_int_equal(stat(dead, &st), -1);
	assert_int_equal(stat(alive, &st), 0);
	assert_int_equal(stat(mine, &st), -1);
	unlink(alive);
	free(mine);
	free(path);
	free(dead);
	free(alive);
}

/* A store of schema 4 made by the migrations of the source tree, with rows of old JSON. */
static char *store_v4(const char *name, const char *rows)
{
	char *path = db_path(name), *sql;
	sqlite3 *db;

	unlink(path);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	for (int i = 1; i <= 4; i++) {
		char *pattern = xasprintf("%s/../../schemas/%03d-*.sql", FIXTURES, i);
		glob_t g;

		assert_int_equal(glob(pattern, 0, NULL, &g), 0);
		sql = bg_read_file(g.gl_pathv[0], 1 << 20, NULL);
		assert_non_null(sql);
		assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
		free(sql);
		globfree(&g);
		free(pattern);
	}
	sql = xasprintf("PRAGMA user_version = 4; INSERT INTO trees (id, name, path) VALUES "
			"(1, 'tracing', '/x'); %s", rows);
	assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	free(sql);
	sqlite3_close(db);
	return path;
}

/*
 * Migration 5 moves the old JSON results into rows. What an old store may hold that is
 * odd (a list element that is no object, a figure that is a string, a whole comparison
 * that is gone, a confirmation without a culprit or a time) moves nothing of itself and
 * keeps nothing else from moving: it stopped the whole store from opening, each time
 * with an error that named no row.
 */
static void test_migration_5_odd_rows(void **state)
{
	char *path = store_v4("v4.db",
		"INSERT INTO comparisons (id, base, cand, board, mode, verdict, created, result) "
		"VALUES (1, 'a', 'b', 'qemu-x86_64', 'timing', 'same', 1, '{\"verdicts\": "
		"[\"oops\", {\"metric\": \"m\", \"verdict\": \"same\", \"delta\": 5}], "
		"\"attribution\": [\"x\"], \"boots\": [\"y\"]}');"
		"INSERT INTO series (id, message_id, total, subject, source, created, result) "
		"VALUES (1, 'm@x', 1, 's', 'cli', 1, '{\"whole\": {\"comparison\": 999}, "
		"\"patches\": [\"z\", {\"idx\": 1, \"boots\": 3}]}');"
		"INSERT INTO series_patches (series_id, idx, message_id, subject, mbox) VALUES "
		"(1, 1, 'p@x', 's', 'm');"
		"INSERT INTO bisections (id, tree_id, good, bad, board, mode, metric, state, "
		"outcome, culprit, created, result) VALUES (1, 1, 'a', 'c', 'qemu-x86_64', "
		"'deterministic', 'm', 'done', 'found', 'b', 1, '{\"confirmation\": "
		"{\"verdict\": \"different\", \"delta_us\": \"y\", \"revert\": "
		"{\"verdict\": \"different\", \"delta_us\": 7}}}'), (2, 1, 'a', 'c', "
		"'qemu-x86_64', 'deterministic', 'm', 'done', 'none', NULL, 1, "
		"'{\"confirmation\": {\"verdict\": \"different\"}}');");
	struct bg_store *s;
	int64_t n;
	double d;

	(void)state;
	assert_int_equal(bg_store_open(path, &s), 0);
	assert_int_equal(bg_store_version(s), (int)bg_store_nmigrations);
	/* the verdict that was an object moved, the string beside it did not */
	assert_int_equal(bg_store_int(s, -1, &n, "SELECT count(*) FROM verdicts WHERE "
				      "comparison_id = 1", ""), 0);
	assert_int_equal(n, 1);
	assert_int_equal(bg_store_double(s, -1, &d, "SELECT delta FROM verdicts WHERE "
					 "comparison_id = 1 AND metric = 'm'", ""), 0);
	assert_true(d == 5);
	assert_int_equal(bg_store_int(s, -1, &n, "SELECT count(*) FROM attributions", ""), 0);
	assert_int_equal(n, 0);
	/* the patch's figures moved; the whole comparison that is gone did not */
	assert_int_equal(bg_store_int(s, -1, &n, "SELECT boots FROM series_patches", ""), 0);
	assert_int_equal(n, 3);
	assert_int_equal(bg_store_int(s, -1, &n, "SELECT count(whole_comparison_id) FROM series",
				      ""), 0);
	assert_int_equal(n, 0);
	/* a timing confirmation whose figure was a string: made, without the figure */
	assert_int_equal(bg_store_int(s, -1, &n, "SELECT count(*) FROM comparisons WHERE role = "
				      "'timing' AND bisection_id = 1 AND delta IS NULL", ""), 0);
	assert_int_equal(n, 1);
	/* no revert without its commit, no confirmation without a culprit */
	assert_int_equal(bg_store_int(s, -1, &n, "SELECT count(*) FROM comparisons WHERE role = "
				      "'revert' OR bisection_id = 2", ""), 0);
	assert_int_equal(n, 0);
	bg_store_close(s);
	free(path);
}

/*
 * A page overwritten: the writers' open refuses the file with its name, a reader names it
 * when it reads that page, and it is left byte for byte as it was (nothing migrated or
 * written into it).
 */
static void test_damaged_page_refused(void **state)
{
	char *path = db_path("damaged.db"), *before, *after;
	size_t len_before, len_after;
	struct bg_store *s;
	int64_t pages;
	int fd;

	(void)state;
	assert_int_equal(bg_store_open(path, &s), 0);
	for (int i = 0; i < 400; i++)
		assert_int_equal(bg_store_exec(s, "INSERT INTO events (at, level, message) VALUES "
					       "(?, 'info', ?)", "ds", (double)i,
					       "an event long enough to fill pages of its own"), 0);
	assert_int_equal(bg_store_exec(s, "PRAGMA wal_checkpoint(TRUNCATE)", ""), 0);
	assert_int_equal(bg_store_int(s, 0, &pages, "PRAGMA page_count", ""), 0);
	assert_true(pages > 8);
	bg_store_close(s);
	/* the last page: one of the events' leaves */
	fd = open(path, O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, "\x0d\xff\xff\xff\xff\xff\xff\xff", 8, (pages - 1) * 4096), 8);
	close(fd);
	before = bg_read_file(path, 1 << 24, &len_before);
	assert_non_null(before);
	assert_int_equal(bg_store_open(path, &s), -1);
	assert_null(s);
	assert_non_null(strstr(bg_error_last(), path));
	assert_true(strstr(bg_error_last(), "malformed") || strstr(bg_error_last(), "damaged"));
	/* a reader meets the page when it reads it, and names the file */
	assert_int_equal(bg_store_open_ro(path, &s), 0);
	assert_int_equal(bg_store_int(s, 0, &pages, "SELECT sum(length(message)) FROM events", ""),
			 -1);
	assert_non_null(strstr(bg_error_last(), path));
	bg_store_close(s);
	after = bg_read_file(path, 1 << 24, &len_after);
	assert_non_null(after);
	assert_int_equal(len_before, len_after);
	assert_memory_equal(before, after, len_before);
	free(before);
	free(after);
	free(path);
}

struct sum {
	int64_t rows;
	double total;
	char names[64];
};

static int add_row(const struct bg_store_row *r, void *data)
{
	struct sum *sum = data;

	sum->rows++;
	sum->total += bg_row_double(r, 1);
	{
		size_t len = strlen(sum->names);

		snprintf(sum->names + len, sizeof(sum->names) - len, "%s", bg_row_text(r, 0));
	}
	assert_string_equal(bg_row_name(r, 1), "value");
	assert_true(bg_row_number(r, 1));
	assert_false(bg_row_number(r, 0));
	return 0;
}

static void test_binds_and_rows(void **state)
{
	char *path = db_path("b.db");
	struct bg_store *s;
	struct sum sum = { 0, 0, "" };
	double d;
	char *t;

	(void)state;
	assert_int_equal(bg_store_open(path, &s), 0);
	assert_int_equal(bg_store_exec(s, "INSERT INTO boots (image_sha256, board, mode, outcome, "
				       "wall_s, console, created) VALUES (?, ?, ?, ?, ?, ?, ?)",
				       "ssssdsd", "aa", "b", "deterministic", "complete", 1.5, NULL,
				       0.0), 0);
	assert_int_equal(bg_store_last_id(s), 1);
	for (int i = 0; i < 3; i++)
		assert_int_equal(bg_store_exec(s, "INSERT INTO samples (boot_id, seq, metric, value) "
					       "VALUES (?, ?, ?, ?)", "iisd", (int64_t)1, (int64_t)i,
					       i == 1 ? "b" : i ? "c" : "a", 10.0 * (i + 1)), 0);
	assert_int_equal(bg_store_query(s, add_row, &sum, "SELECT metric, value FROM samples "
					"WHERE boot_id = ? ORDER BY seq", "i", (int64_t)1), 0);
	assert_int_equal(sum.rows, 3);
	assert_true(sum.total == 60);
	assert_string_equal(sum.names, "abc");
	/* NULL binds NULL: the console is NULL, not "" */
	assert_int_equal(bg_store_text(s, &t, "SELECT console FROM boots WHERE id = 1", ""), 0);
	assert_null(t);
	assert_int_equal(bg_store_double(s, -1, &d, "SELECT wall_s FROM boots", ""), 0);
	assert_true(d == 1.5);
	/* no row: the default */
	assert_int_equal(bg_store_double(s, -7, &d, "SELECT wall_s FROM boots WHERE id = 2", ""), 0);
	assert_true(d == -7);
	/* the same key twice is refused, with the store's words */
	assert_int_equal(bg_store_exec(s, "INSERT INTO samples (boot_id, seq, metric, value) "
				       "VALUES (1, 0, 'x', 1)", ""), -1);
	assert_non_null(strstr(bg_error_last(), "UNIQUE"));
	/* a reference to no row is refused: foreign keys are on */
	assert_int_equal(bg_store_exec(s, "INSERT INTO samples (boot_id, seq, metric, value) "
				       "VALUES (99, 0, 'x', 1)", ""), -1);
	assert_non_null(strstr(bg_error_last(), "FOREIGN KEY"));
	bg_store_close(s);
	free(path);
}

static void test_bind_count_checked(void **state)
{
	char *path = db_path("c.db");
	struct bg_store *s;
	int64_t n;

	(void)state;
	assert_int_equal(bg_store_open(path, &s), 0);
	assert_int_equal(bg_store_int(s, 0, &n, "SELECT ? + ?", "i", (int64_t)1), -1);
	assert_non_null(strstr(bg_error_last(), "1 values for 2 parameters"));
	assert_int_equal(bg_store_exec(s, "SELECT * FROM no_such_table", ""), -1);
	assert_non_null(strstr(bg_error_last(), "no_such_table"));
	bg_store_close(s);
	free(path);
}

static void test_rollback_keeps_nothing(void **state)
{
	char *path = db_path("d.db");
	struct bg_store *s;
	int64_t n;

	(void)state;
	assert_int_equal(bg_store_open(path, &s), 0);
	assert_int_equal(bg_store_begin(s), 0);
	assert_int_equal(bg_store_exec(s, "INSERT INTO trees (name, path) VALUES ('a', '/a')", ""), 0);
	bg_store_rollback(s);
	assert_int_equal(bg_store_int(s, -1, &n, "SELECT count(*) FROM trees", ""), 0);
	assert_int_equal(n, 0);
	assert_int_equal(bg_store_begin(s), 0);
	assert_int_equal(bg_store_exec(s, "INSERT INTO trees (name, path) VALUES ('a', '/a')", ""), 0);
	assert_int_equal(bg_store_commit(s), 0);
	bg_store_close(s);
	/* what was committed is there for the next process */
	assert_int_equal(bg_store_open(path, &s), 0);
	assert_int_equal(bg_store_int(s, -1, &n, "SELECT count(*) FROM trees", ""), 0);
	assert_int_equal(n, 1);
	bg_store_close(s);
	free(path);
}

static void test_a_link_is_not_opened(void **state)
{
	char *path = db_path("link.db"), *target = db_path("a.db");
	struct bg_store *s;

	(void)state;
	assert_int_equal(symlink(target, path), 0);
	assert_int_equal(bg_store_open(path, &s), -1);
	free(path);
	free(target);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open_migrates_once),
		cmocka_unit_test(test_newer_schema_refused),
		cmocka_unit_test(test_not_a_database),
		cmocka_unit_test(test_empty_file_refused),
		cmocka_unit_test(test_made_whole_then_linked),
		cmocka_unit_test(test_migration_5_odd_rows),
		cmocka_unit_test(test_damaged_page_refused),
		cmocka_unit_test(test_binds_and_rows),
		cmocka_unit_test(test_bind_count_checked),
		cmocka_unit_test(test_rollback_keeps_nothing),
		cmocka_unit_test(test_a_link_is_not_opened),
	};
	int ret;

	dir = unit_scratch_dir("store");
	assert_non_null(dir);
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	bg_remove_tree(dir);
	free(dir);
	return ret;
}
