/*
 * Unit tests of the secret reader (util/secret.h): the first line without its LF or CR LF,
 * refusals named by file, the rest of the file wiped at once, and the same secret as
 * scripts/webhook-sign.sh signs with.
 */
#include <sys/stat.h>

#include "unit.h"
#include "util/error.h"
#include "util/secret.h"
#include "util/sha.h"
#include "util/strbuf.h"

#define MAX 64

static char *dir;

static int setup(void **state)
{
	(void)state;
	dir = unit_scratch_dir("t-secret");
	return dir ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	bg_remove_tree(dir);
	free(dir);
	return 0;
}

/* dir/name holding len bytes of text: its path, to free */
static char *put(const char *name, const char *text, size_t len)
{
	char *path = bg_path_join(dir, name);

	assert_int_equal(bg_write_file(path, text, len), 0);
	return path;
}

/* The secret of a file holding text (len bytes) must be want. */
static void expect_secret(const char *text, size_t len, const char *want)
{
	char *path = put("s", text, len), *s;
	size_t n = 0;

	s = bg_secret_read(path, MAX, &n);
	assert_non_null(s);
	assert_int_equal(n, strlen(want));
	assert_memory_equal(s, want, n + 1);
	/* nothing of the rest of the file is left behind the secret, to the buffer's end */
	for (size_t i = n; i <= MAX; i++)
		assert_int_equal(s[i], 0);
	bg_secret_free(s);
	free(path);
}

/* A file holding text (len bytes) is refused with "'PATH' why". */
static void expect_refused(const char *text, size_t len, size_t max, const char *why)
{
	char *path = put("s", text, len), *want = xasprintf("'%s' %s", path, why);
	size_t n = 99;

	assert_null(bg_secret_read(path, max, &n));
	assert_string_equal(bg_error_last(), want);
	assert_int_equal(n, 99);
	free(want);
	free(path);
}

static void test_line(void **state)
{
	(void)state;
	assert_int_equal(bg_secret_line("tok\r\nX-Evil: 1", 14), 3);
	assert_int_equal(bg_secret_line("tok\nmore", 8), 3);
	assert_int_equal(bg_secret_line("tok", 3), 3);
	assert_int_equal(bg_secret_line("tok\r", 4), 3);
	/* a CR inside the line, or one of two before the LF, is the secret's */
	assert_int_equal(bg_secret_line("to\rk\n", 5), 4);
	assert_int_equal(bg_secret_line("tok\r\r\n", 6), 4);
	assert_int_equal(bg_secret_line("\r\n", 2), 0);
	assert_int_equal(bg_secret_line("", 0), 0);
}

static void test_read(void **state)
{
	(void)state;
	expect_secret("s3cret\n", 7, "s3cret");
	expect_secret("s3cret\r\n", 8, "s3cret");
	expect_secret("s3cret", 6, "s3cret");
	expect_secret("s3cret\r", 7, "s3cret");
	/* the first line alone: a later line (another token, a NUL) is not the secret */
	expect_secret("s3cret\r\nsecond line\n", 20, "s3cret");
	expect_secret("s3cret\n\0after", 13, "s3cret");
	expect_secret("a\rb\n", 4, "a\rb");
	/* as large as allowed, and no more */
	expect_secret("0123456789012345678901234567890123456789012345678901234567890123", MAX,
		      "0123456789012345678901234567890123456789012345678901234567890123");
	expect_refused("012345678", 9, 8, "is larger than 8 bytes");
	expect_refused("", 0, MAX, "holds no secret");
	expect_refused("\n", 1, MAX, "holds no secret");
	expect_refused("\r\nlater\n", 8, MAX, "holds no secret");
	/* a C string would cut it: refused, not the part before the NUL taken */
	expect_refused("s3\0cret\n", 8, MAX, "holds a NUL byte in its secret");
}

static void test_not_a_file(void **state)
{
	char *fifo = bg_path_join(dir, "fifo"), *want;

	(void)state;
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_null(bg_secret_read(fifo, MAX, NULL));      /* refused, without blocking */
	want = xasprintf("'%s' is not a regular file", fifo);
	assert_string_equal(bg_error_last(), want);
	free(want);
	assert_null(bg_secret_read(dir, MAX, NULL));
	assert_null(bg_secret_read("/nonexistent/secret", MAX, NULL));
	assert_string_equal(bg_error_last(),
			    "cannot open '/nonexistent/secret': No such file or directory");
	bg_secret_free(NULL);
	unlink(fifo);
	free(fifo);
}

/* The signature scripts/webhook-sign.sh makes of body with the secret file path. */
static void script_sign(const char *path, const char *body, char *out, size_t size)
{
	char *cmd = xasprintf("printf '%%s' '%s' | sh '%s/../../scripts/webhook-sign.sh' '%s'",
			      body, FIXTURES, path);
	FILE *p = popen(cmd, "r");

	assert_non_null(p);
	assert_non_null(fgets(out, (int)size, p));
	assert_int_equal(pclose(p), 0);
	out[strcspn(out, "\n")] = '\0';
	free(cmd);
}

/* The daemon and the script that signs its pushes take the same secret from a file. */
static void test_as_the_script(void **state)
{
	static const struct { const char *text; size_t len; } files[] = {
		{ "It's a secret\n", 14 }, { "It's a secret\r\n", 15 }, { "It's a secret", 13 },
		{ "It's a secret\r\nnot this\n", 24 }, { "It's\ra secret\r\n", 15 },
	};
	const char *body = "{\"ref\": \"refs/heads/for-next\"}";
	char hex[BG_SHA256_HEX], want[80], got[128];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		char *path = put("hook", files[i].text, files[i].len), *s;
		size_t n;

		s = bg_secret_read(path, MAX, &n);
		assert_non_null(s);
		assert_int_equal(bg_hmac_sha256_hex(s, n, body, strlen(body), hex), 0);
		snprintf(want, sizeof(want), "sha256=%s", hex);
		script_sign(path, body, got, sizeof(got));
		assert_string_equal(got, want);
		bg_secret_free(s);
		free(path);
	}
	/* the CR LF one signs as the LF one: the CR is no part of the secret */
	{
		char *path = put("hook", "It's a secret\n", 14);

		script_sign(path, body, want, sizeof(want));
		free(path);
		path = put("hook", "It's a secret\r\n", 15);
		script_sign(path, body, got, sizeof(got));
		assert_string_equal(got, want);
		free(path);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_line),
		cmocka_unit_test(test_read),
		cmocka_unit_test(test_not_a_file),
		cmocka_unit_test(test_as_the_script),
	};

	return cmocka_run_group_tests_name("secret", tests, setup, teardown);
}
