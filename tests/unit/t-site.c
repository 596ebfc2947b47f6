/* Unit tests of the static site's generation (lab/site.c) on stores made here. */
#include "unit.h"
#include "lab/site.h"
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
	char *dir = unit_scratch_dir("site"), *db, *out, *index, *page;
	struct bg_store *s;
	struct seen seen = { 0, 0, "" };
	struct bg_site_opts o = { NULL, NULL, on_file, &seen };
	struct bg_site_stats st;

	(void)state;
	assert_non_null(dir);
	db = bg_path_join(dir, "bootgate.db");
	out = bg_path_join(dir, "site");
	o.outdir = out;
	assert_int_equal(bg_store_open(db, &s), 0);
	assert_int_equal(bg_store_exec(s, "INSERT INTO trees (name, path) VALUES ('tracing', '/x')",
				       ""), 0);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_url),
		cmocka_unit_test(test_generate),
	};

	return cmocka_run_group_tests_name("site", tests, NULL, NULL);
}
