/* Unit tests of the static site's generation (publish/site*.c) on stores made here. */
#include "unit.h"
#include "publish/site.h"
#include "store/results.h"
#include "util/xmalloc.h"
#include "util/error.h"

static void test_url(void **state)
{
	(void)state;
	assert_true(bg_site_url_ok("https://ci.example.org/boot/"));
	assert_true(bg_site_url_ok("http://127.0.0.1:8080"));
	assert_false(bg_site_url_ok("javascript:alert(1)"));
	assert_false(bg_site_url_ok("ftp://x"));
	assert_false(bg_site_url_ok("https://x/a b"));
	assert_false(bg_site_url_ok("https://x/\"><script>"));
	assert_false(bg_site_url_ok("https://x/\r\nLocation: y"));
	assert_false(bg_site_url_ok("https://x/\xc3\xa9"));
}

/* A store in a scratch directory, holding the tree 'tracing' (id 1); out is DIR/site. */
static struct bg_store *scratch_store(const char *name, char **dir, char **db, char **out)
{
	struct bg_store *s;

	*dir = unit_scratch_dir(name);
	assert_non_null(*dir);
	*db = bg_path_join(*dir, "bootgate.db");
	*out = bg_path_join(*dir, "site");
	assert_int_equal(bg_store_open(*db, &s), 0);
	assert_int_equal(bg_store_exec(s, "INSERT INTO trees (id, name, path) VALUES "
				       "(1, 'tracing', '/x')", ""), 0);
	return s;
}

struct seen {
	size_t written, unchanged;
	char last[64];
};

static void on_file(const char *rel, bool written, void *data)
{
	struct seen *s = data;

	if (written)
		s->written++;
	else
		s->unchanged++;
	snprintf(s->last, sizeof(s->last), "%s", rel);
}

static void test_generate(void **state)
{
	char *dir, *db, *out, *index, *page;
	struct bg_store *s = scratch_store("site", &dir, &db, &out);
	struct seen seen = { 0, 0, "" };
	struct bg_site_opts o = { NULL, NULL, on_file, &seen };
	struct bg_site_stats st;

	(void)state;
	o.outdir = out;
	/* the style sheet, the index and the tree's page; the directories made */
	assert_int_equal(bg_site_generate(s, &o, &st), 0);
	assert_int_equal(st.written, 3);
	assert_int_equal(st.unchanged, 0);
	assert_int_equal(seen.written, 3);
	assert_string_equal(seen.last, "index.html");
	index = bg_path_join(out, "index.html");
	page = bg_read_file(index, 1 << 20, NULL);
	assert_non_null(page);
	assert_non_null(strstr(page, "<a href=\"tree/tracing.html\">tracing</a>"));
	assert_non_null(strstr(page, "<link rel=\"stylesheet\" href=\"style.css\">"));
	free(page);
	/* nothing changed: nothing written */
	assert_int_equal(bg_site_generate(s, &o, &st), 0);
	assert_int_equal(st.written, 0);
	assert_int_equal(st.unchanged, 3);
	/* a base URL: the canonical links change, so the pages are written again */
	o.url = "https://ci.example.org/";
	assert_int_equal(bg_site_generate(s, &o, &st), 0);
	assert_int_equal(st.written, 2);
	page = bg_read_file(index, 1 << 20, NULL);
	assert_non_null(strstr(page, "href=\"https://ci.example.org/index.html\""));
	free(page);
	/* a URL that could break out of its attribute is refused before any file */
	o.url = "https://x/\"";
	assert_int_equal(bg_site_generate(s, &o, &st), -1);
	assert_non_null(strstr(bg_error_last(), "is no site URL"));
	/* OUTDIR a file */
	o.url = NULL;
	o.outdir = index;
	assert_int_equal(bg_site_generate(s, &o, &st), -1);
	assert_non_null(strstr(bg_error_last(), "is not a directory"));
	bg_store_close(s);
	bg_remove_tree(dir);
	free(index);
	free(db);
	free(out);
	free(dir);
}

#define JOB17 "https://lava.example.org/scheduler/job/17"
#define JOB18 "https://lava.example.org/scheduler/job/18"
#define SHA_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define SHA_B "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"

static char *page_of(const char *out, const char *rel)
{
	char *path = bg_path_join(out, rel), *page = bg_read_file(path, 1 << 20, NULL);

	free(path);
	assert_non_null(page);
	return page;
}

/* Boots on a LAVA board: each row names its board and links its job; QEMU's have none. */
static void test_boots(void **state)
{
	char *dir, *db, *out, *page;
	struct bg_store *s = scratch_store("site-boots", &dir, &db, &out);
	struct bg_site_opts o = { NULL, NULL, NULL, NULL };
	struct bg_site_stats st;
	struct bg_stored_comparison c;

	(void)state;
	o.outdir = out;
	/* a comparison whose base booted on LAVA; the candidate's job URL is no http(s) */
	assert_int_equal(bg_store_exec(s, "INSERT INTO boots (id, image_sha256, board, mode, "
		"outcome, wall_s, job_url, created) VALUES (3, 'i3', 'lava-qemu-x86_64', "
		"'deterministic', 'complete', 14.25, 'javascript:alert(1)', 1), (4, 'i4', "
		"'lava-qemu-x86_64', 'deterministic', 'complete', 12.5, ?, 1)", "s", JOB17), 0);
	bg_stored_comparison_init(&c);
	c.tree_id = 1;
	c.base = xstrdup(SHA_A);
	c.cand = xstrdup(SHA_B);
	c.board = xstrdup("lava-qemu-x86_64");
	c.mode = xstrdup("deterministic");
	c.verdict = xstrdup("pass");
	c.created = 1;
	bg_stored_comparison_add_boot(&c, BG_CAND, 3);
	bg_stored_comparison_add_boot(&c, BG_BASE, 4);
	assert_int_equal(bg_store_comparison_add(s, &c), 0);
	assert_int_equal(c.id, 1);
	bg_stored_comparison_release(&c);
	/* a bisection told of a LAVA boot and a QEMU boot */
	assert_int_equal(bg_store_exec(s, "INSERT INTO boots (id, image_sha256, board, mode, "
		"outcome, wall_s, job_url, created) VALUES (1, 'i1', 'lava-qemu-x86_64', "
		"'deterministic', 'complete', 13.5, ?, 1), (2, 'i2', 'qemu-x86_64', "
		"'deterministic', 'hang', NULL, NULL, 1)", "s", JOB18), 0);
	assert_int_equal(bg_store_exec(s, "INSERT INTO bisections (id, tree_id, good, bad, board, "
		"mode, state, created) VALUES (1, 1, ?, ?, 'lava-qemu-x86_64', 'deterministic', "
		"'running', 1)", "ss", SHA_A, SHA_B), 0);
	assert_int_equal(bg_store_exec(s, "INSERT INTO bisection_commits VALUES (1, 0, ?), "
		"(1, 1, ?)", "ss", SHA_A, SHA_B), 0);
	assert_int_equal(bg_store_exec(s, "INSERT INTO bisection_reports (bisection_id, seq, idx, "
		"kind, boot_id, value) VALUES (1, 0, 1, 'value', 1, 5), (1, 1, 0, 'infra', 2, "
		"NULL)", ""), 0);
	assert_int_equal(bg_site_generate(s, &o, &st), 0);

	page = page_of(out, "comparison/1.html");
	assert_non_null(strstr(page, "<table class=\"boots\">"));
	assert_non_null(strstr(page, "<tr><td>base</td><td>lava-qemu-x86_64</td><td>complete"
				     "</td><td class=\"num\">12.5</td><td><a href=\"" JOB17 "\">"
				     JOB17 "</a></td></tr>"));
	/* base first; a URL that is not http(s) is text, never a link */
	assert_true(strstr(page, "<td>base</td>") < strstr(page, "<td>candidate</td>"));
	assert_non_null(strstr(page, "<td class=\"num\">14.2</td><td>javascript:alert(1)"
				     "</td></tr>"));
	assert_null(strstr(page, "href=\"javascript"));
	free(page);

	page = page_of(out, "bisection/1.html");
	assert_non_null(strstr(page, "<tr><td><code title=\"" SHA_B "\">bbbbbbbbbbbb</code></td>"
				     "<td>lava-qemu-x86_64</td><td>complete</td><td class=\"num\">"
				     "13.5</td><td><a href=\"" JOB18 "\">" JOB18 "</a></td></tr>"));
	assert_non_null(strstr(page, "<td>qemu-x86_64</td><td>hang</td><td class=\"num\">-</td>"
				     "<td>-</td></tr>"));
	free(page);
	bg_store_close(s);
	bg_remove_tree(dir);
	free(db);
	free(out);
	free(dir);
}

/*
 * A tree gated on two boards: its page has a section per board, each with its own
 * commits (a commit gated on both is in both), never one trend of both machines' figures.
 */
static void test_tree_boards(void **state)
{
	char *dir, *db, *out, *path, *page, *arm, *x86;
	struct bg_store *s = scratch_store("site-boards", &dir, &db, &out);
	struct bg_site_opts o = { NULL, NULL, NULL, NULL };
	struct bg_site_stats st;

	(void)state;
	o.outdir = out;
	assert_int_equal(bg_store_exec(s, "INSERT INTO comparisons (base, cand, board, mode, "
				       "verdict, created, tree_id, role) VALUES ('a', 'b', "
				       "'qemu-x86_64', 'deterministic', 'pass', 1, 1, 'gate'), ('a', "
				       "'b', 'qemu-arm64', 'deterministic', 'pass', 2, 1, 'gate'), "
				       "('b', 'c', 'qemu-arm64', 'deterministic', 'pass', 3, 1, "
				       "'gate')", ""), 0);
	assert_int_equal(bg_site_generate(s, &o, &st), 0);
	path = bg_path_join(out, "tree/tracing.html");
	page = bg_read_file(path, 1 << 20, NULL);
	assert_non_null(page);
	x86 = strstr(page, "<h2>board qemu-x86_64</h2>");
	arm = strstr(page, "<h2>board qemu-arm64</h2>");
	assert_non_null(x86);
	assert_non_null(arm);
	/* in the order first gated: x86_64's section first, with a and b only */
	assert_true(x86 < arm);
	*arm = '\0';
	assert_non_null(strstr(x86, "<p>2 commits,"));
	assert_non_null(strstr(x86, "<td class=\"board\">qemu-x86_64</td>"));
	assert_null(strstr(x86, "qemu-arm64"));
	assert_non_null(strstr(arm + 1, "<p>3 commits,"));
	free(page);
	free(path);
	bg_store_close(s);
	bg_remove_tree(dir);
	free(dir);
	free(db);
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_url),
		cmocka_unit_test(test_generate),
		cmocka_unit_test(test_boots),
		cmocka_unit_test(test_tree_boards),
	};

	return cmocka_run_group_tests_name("site", tests, NULL, NULL);
}
