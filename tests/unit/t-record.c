/* The store's builds as the daemon finds them again: an image deleted since is no build. */
#include "unit.h"
#include "lab/record.h"
#include "store/store.h"
#include "util/fs.h"

static char *dir;

/* a build row of COMMIT for qemu-x86_64 with STATUS and IMAGE */
static void add_build(struct bg_store *s, const char *commit, const char *status,
		      const char *image)
{
	assert_int_equal(bg_store_exec(s, "INSERT INTO builds (commit_sha, board, status, image, "
				       "image_sha256, created) VALUES (?, 'qemu-x86_64', ?, ?, "
				       "'ab', 1)", "sss", commit, status, image), 0);
}

static void test_deleted_image_is_no_build(void **state)
{
	char *db = bg_path_join(dir, "a.db"), *image = bg_path_join(dir, "image");
	struct bg_stored_build b;
	struct bg_store *s;

	(void)state;
	assert_int_equal(bg_store_open(db, &s), 0);
	assert_int_equal(bg_write_file(image, "kernel", 6), 0);
	add_build(s, "c1", "built", image);
	assert_int_equal(bg_record_find_build(s, "c1", "qemu-x86_64", &b), 1);
	assert_int_equal(b.status, BG_BUILD_BUILT);
	assert_string_equal(b.image, image);
	bg_stored_build_release(&b);

	/* deleted behind the daemon's back: not found, so built again */
	assert_int_equal(unlink(image), 0);
	assert_int_equal(bg_record_find_build(s, "c1", "qemu-x86_64", &b), 0);
	assert_null(b.image);

	/* a failed build has no image to lose: still found, not tried again */
	add_build(s, "c2", "failed", NULL);
	assert_int_equal(bg_record_find_build(s, "c2", "qemu-x86_64", &b), 1);
	assert_int_equal(b.status, BG_BUILD_FAILED);
	bg_stored_build_release(&b);
	/* nor is another board's build this board's */
	assert_int_equal(bg_record_find_build(s, "c2", "qemu-arm64", &b), 0);
	bg_store_close(s);
	free(db);
	free(image);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_deleted_image_is_no_build),
	};
	int ret;

	dir = unit_scratch_dir("record");
	assert_non_null(dir);
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	bg_remove_tree(dir);
	free(dir);
	return ret;
}
