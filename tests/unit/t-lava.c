/*
 * Unit tests of LAVA boards and jobs: a job is written from its template by the YAML
 * writer, so no value can add a key; placeholders and tags land where they belong; the
 * token is read without ever being echoed; each mistake in a LAVA board is named.
 */
#include "unit.h"
#include "conf/board.h"
#include "lab/lava.h"
#include "parse/yaml-event.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/xmalloc.h"

static const char board_text[] =
	"type: lava\n"
	"name: lava-t\n"
	"arch: x86_64\n"
	"kernel_arch: x86\n"
	"make_target: bzImage\n"
	"image: arch/x86/boot/bzImage\n"
	"fragments: [common.config]\n"
	"cmdline: console=ttyS0\n"
	"lava_url: http://127.0.0.1:8000\n"
	"lava_token_env: T_LAVA_TOKEN\n"
	"lava_device_type: qemu\n"
	"lava_tags: [fast, \"two words\"]\n"
	"lava_vars: [DTB=http://x/y.dtb]\n"
	"lava_template: job.yaml\n"
	"artifact_url: http://127.0.0.1:8788\n";

static const char template_text[] =
	"# a test template\n"
	"device_type: \"@DEVICE_TYPE@\"\n"
	"job_name: \"@JOB_NAME@ for user@host\"\n"
	"timeouts:\n"
	"  job: {minutes: \"@JOB_MINUTES@\"}\n"
	"actions:\n"
	"- deploy:\n"
	"    images:\n"
	"      kernel:\n"
	"        image_arg: -kernel {kernel} -append \"@CMDLINE@\"\n"
	"        url: \"@KERNEL_URL@\"\n"
	"      dtb: {url: \"@DTB@\"}\n";

static char *lab;

static int setup(void **state)
{
	(void)state;
	if (!(lab = unit_scratch_dir("t-lava")))
		return -1;
	if (unit_write(lab, "kconfig/common.config", "CONFIG_PRINTK=y\n") < 0 ||
	    unit_write(lab, "boards/lava-t.yaml", board_text) < 0 ||
	    unit_write(lab, "lava/job.yaml", template_text) < 0)
		return -1;
	return 0;
}

static int teardown(void **state)
{
	int ret = bg_remove_tree(lab);

	(void)state;
	free(lab);
	return ret < 0 ? -1 : 0;
}

/* The scalar after the first scalar equal to key in the YAML text, or NULL. */
static char *value_of(const char *yaml, const char *key, bool *quoted)
{
	struct bg_yaml_reader *r = bg_yaml_reader_new_mem(yaml, strlen(yaml));
	struct bg_yaml_event ev;
	bool next = false;
	char *v = NULL;

	while (bg_yaml_next(r, &ev) == 0 && ev.type != BG_YAML_END) {
		if (next) {
			if (ev.type == BG_YAML_SCALAR) {
				v = xstrndup(ev.value, ev.len);
				*quoted = ev.quoted;
			}
			break;
		}
		next = ev.type == BG_YAML_SCALAR && !strcmp(ev.value, key);
	}
	bg_yaml_reader_free(r);
	return v;
}

static void render(const char *cmdline, struct bg_strbuf *out, int want)
{
	struct bg_board b;
	const struct bg_lava_var vars[] = {
		{ "DEVICE_TYPE", "qemu" },
		{ "JOB_NAME", "bootgate t" },
		{ "JOB_MINUTES", "26" },
		{ "CMDLINE", cmdline },
		{ "KERNEL_URL", "http://127.0.0.1:8788/artifacts/ab/image" },
	};

	assert_int_equal(bg_board_load(lab, "lava-t", &b), 0);
	assert_int_equal(bg_lava_render(&b, vars, ARRAY_SIZE(vars), out), want);
	bg_board_release(&b);
}

static void test_render(void **state)
{
	struct bg_strbuf out = BG_STRBUF_INIT;
	bool quoted;
	char *v;

	(void)state;
	/* a value that would close the quotes and start a key of its own */
	render("console=ttyS0 a=\"b\": c\nvisibility: private", &out, 0);
	assert_non_null(strstr(out.buf, "device_type: \"qemu\"\ntags: [\"fast\", \"two words\"]\n"));
	v = value_of(out.buf, "image_arg", &quoted);
	assert_string_equal(v, "-kernel {kernel} -append \"console=ttyS0 a=\"b\": c\n"
			    "visibility: private\"");
	free(v);
	assert_null(strstr(out.buf, "\nvisibility:"));
	/* one placeholder that became a number is a number */
	v = value_of(out.buf, "minutes", &quoted);
	assert_string_equal(v, "26");
	assert_false(quoted);
	free(v);
	assert_non_null(strstr(out.buf, "{minutes: 26}"));
	/* an @ that opens no placeholder stays; the board's lava_vars fill the rest */
	v = value_of(out.buf, "job_name", &quoted);
	assert_string_equal(v, "bootgate t for user@host");
	assert_true(quoted);
	free(v);
	v = value_of(out.buf, "url", &quoted);
	assert_string_equal(v, "http://127.0.0.1:8788/artifacts/ab/image");
	free(v);
	assert_non_null(strstr(out.buf, "dtb: {url: \"http://x/y.dtb\"}"));
	bg_strbuf_release(&out);
}

static void expect_template_error(const char *text, const char *want_suffix)
{
	struct bg_strbuf out = BG_STRBUF_INIT;
	char *path = xasprintf("%s/lava/job.yaml", lab);

	assert_int_equal(unit_write(lab, "lava/job.yaml", text), 0);
	render("x", &out, -1);
	assert_int_equal(strncmp(bg_error_last(), path, strlen(path)), 0);
	assert_string_equal(bg_error_last() + strlen(path), want_suffix);
	bg_strbuf_release(&out);
	free(path);
}

static void test_template_errors(void **state)
{
	(void)state;
	expect_template_error("device_type: qemu\njob_name: \"@NOPE@\"\n",
			      ":2:11: unknown placeholder @NOPE@");
	expect_template_error("device_type: qemu\ntags: [x]\n",
			      ":2:1: the board's lava_tags are the job's tags: the template names "
			      "none");
	expect_template_error("a: &x 1\nb: *x\ndevice_type: q\n",
			      ":2:4: no aliases in a job template");
	expect_template_error("- a\n- b\n", ":1:1: a LAVA job template is one YAML mapping");
	expect_template_error("device_type: [q\n", ":2:1: did not find expected ',' or ']' "
			      "while parsing a flow sequence");
	expect_template_error("job_name: x\n", ": the template has no device_type to put the "
			      "board's tags beside");
	assert_int_equal(unit_write(lab, "lava/job.yaml", template_text), 0);
}

static void test_token(void **state)
{
	struct bg_board b;
	struct bg_lava srv;

	(void)state;
	assert_int_equal(bg_board_load(lab, "lava-t", &b), 0);
	unsetenv("T_LAVA_TOKEN");
	assert_int_equal(bg_lava_open(&b.lava, &srv), -1);
	assert_string_equal(bg_error_last(), "the LAVA token's variable T_LAVA_TOKEN is not set");
	/* the first line alone: nothing after a CR or LF reaches the header */
	setenv("T_LAVA_TOKEN", "s3cret\r\nX-Evil: 1", 1);
	assert_int_equal(bg_lava_open(&b.lava, &srv), 0);
	assert_string_equal(srv.auth, "Authorization: Token s3cret");
	bg_lava_close(&srv);
	setenv("T_LAVA_TOKEN", "s3c\tret", 1);
	assert_int_equal(bg_lava_open(&b.lava, &srv), -1);
	assert_null(strstr(bg_error_last(), "s3c"));
	setenv("T_LAVA_TOKEN", "s3cret x", 1);
	assert_int_equal(bg_lava_open(&b.lava, &srv), -1);
	assert_string_equal(bg_error_last(), "the LAVA token in T_LAVA_TOKEN holds a space or a "
			    "control character");
	setenv("T_LAVA_TOKEN", "", 1);
	assert_int_equal(bg_lava_open(&b.lava, &srv), -1);
	assert_string_equal(bg_error_last(), "the LAVA token in T_LAVA_TOKEN is empty");
	setenv("T_LAVA_TOKEN", "s3cret", 1);
	assert_int_equal(bg_lava_open(&b.lava, &srv), 0);
	assert_string_equal(srv.auth, "Authorization: Token s3cret");
	bg_lava_close(&srv);
	assert_null(srv.auth);
	bg_board_release(&b);
	/* from a file: its first line */
	assert_int_equal(unit_write(lab, "token", "t0ken\nignored\n"), 0);
	{
		char *line = xasprintf("lava_token_file: %s/token\n", lab);
		char *text = xasprintf("%.*s%s%s", (int)(strstr(board_text, "lava_token_env") -
							 board_text), board_text, line,
				       strstr(board_text, "lava_device_type"));

		assert_int_equal(unit_write(lab, "boards/lava-f.yaml", text), 0);
		free(text);
		free(line);
	}
	assert_int_equal(bg_board_load(lab, "lava-f", &b), 0);
	assert_int_equal(bg_lava_open(&b.lava, &srv), 0);
	assert_string_equal(srv.auth, "Authorization: Token t0ken");
	bg_lava_close(&srv);
	/* a NUL in its first line: refused, not the part before it sent as the token */
	{
		char *path = xasprintf("%s/token", lab), *want;

		assert_int_equal(bg_write_file(path, "t0\0ken\n", 7), 0);
		assert_int_equal(bg_lava_open(&b.lava, &srv), -1);
		want = xasprintf("the LAVA token: '%s' holds a NUL byte in its secret", path);
		assert_string_equal(bg_error_last(), want);
		free(want);
		/* a CR LF line end is a line end, as for every secret file */
		assert_int_equal(bg_write_file(path, "t0ken\r\nignored\r\n", 16), 0);
		assert_int_equal(bg_lava_open(&b.lava, &srv), 0);
		assert_string_equal(srv.auth, "Authorization: Token t0ken");
		bg_lava_close(&srv);
		/* a CR inside the line is the token's, and no header may carry it */
		assert_int_equal(bg_write_file(path, "t0\rken\n", 7), 0);
		assert_int_equal(bg_lava_open(&b.lava, &srv), -1);
		want = xasprintf("the LAVA token in %s holds a space or a control character", path);
		assert_string_equal(bg_error_last(), want);
		free(want);
		assert_int_equal(bg_write_file(path, "\r\nt0ken\n", 8), 0);
		assert_int_equal(bg_lava_open(&b.lava, &srv), -1);
		want = xasprintf("the LAVA token: '%s' holds no secret", path);
		assert_string_equal(bg_error_last(), want);
		free(want);
		free(path);
	}
	bg_board_release(&b);
}

static void expect_board_error(const char *from, const char *to, const char *want_suffix)
{
	struct bg_board b;
	const char *at = strstr(board_text, from);
	char *text, *path = xasprintf("%s/boards/lava-e.yaml", lab);

	assert_non_null(at);
	text = xasprintf("%.*s%s%s", (int)(at - board_text), board_text, to, at + strlen(from));
	assert_int_equal(unit_write(lab, "boards/lava-e.yaml", text), 0);
	assert_int_equal(bg_board_load(lab, "lava-e", &b), -1);
	assert_int_equal(strncmp(bg_error_last(), path, strlen(path)), 0);
	assert_string_equal(bg_error_last() + strlen(path), want_suffix);
	free(text);
	free(path);
}

/* The same, for a message that names the lab's path after want_prefix. */
static void expect_board_error_lab(const char *from, const char *to, const char *want_prefix,
				   const char *want_end)
{
	char *want = xasprintf("%s%s/lava%s", want_prefix, lab, want_end);

	expect_board_error(from, to, want);
	free(want);
}

static void test_board_errors(void **state)
{
	(void)state;
	expect_board_error("type: lava", "type: serial",
			   ":1:7: 'type' is qemu or lava, not 'serial'");
	expect_board_error("lava_url: http://127.0.0.1:8000",
			   "lava_url: http://127.0.0.1:8000/?x=1", ":9:11: 'lava_url' is "
			   "http://HOST[:PORT] or https://..., without a login, a query or a "
			   "trailing '/'");
	/* a password in the URL would reach errors, the stored job URLs and the site */
	expect_board_error("lava_url: http://127.0.0.1:8000",
			   "lava_url: http://admin:pw@127.0.0.1:8000", ":9:11: 'lava_url' is "
			   "http://HOST[:PORT] or https://..., without a login, a query or a "
			   "trailing '/'");
	expect_board_error("artifact_url: http://127.0.0.1:8788", "artifact_url: file:///srv",
			   ":15:15: 'artifact_url' is http://HOST[:PORT] or https://..., without "
			   "a login, a query or a trailing '/'");
	/* and in artifact_url, to every reader of the job on the LAVA server */
	expect_board_error("artifact_url: http://127.0.0.1:8788",
			   "artifact_url: http://u:pw@127.0.0.1:8788", ":15:15: 'artifact_url' is "
			   "http://HOST[:PORT] or https://..., without a login, a query or a "
			   "trailing '/'");
	expect_board_error("lava_token_env: T_LAVA_TOKEN\n", "",
			   ":1:1: a LAVA board names its token with one of 'lava_token_file' or "
			   "'lava_token_env'");
	expect_board_error("lava_vars: [DTB=http://x/y.dtb]", "lava_vars: [dtb=x]",
			   ":13:13: a LAVA variable is NAME=value, NAME in [A-Z0-9_], not 'dtb=x'");
	expect_board_error_lab("lava_template: job.yaml", "lava_template: ../job.yaml",
			       ":14:16: 'lava_template' is a file name of ", ", not a path");
	expect_board_error("artifact_url: http://127.0.0.1:8788",
			   "artifact_url: http://127.0.0.1:8788\nlava_limit: 0", ":16:13: "
			   "'lava_limit' must be a whole number from 1 to 64, not '0'");
}

/* The server's answers, read as the REST calls read them. */
static void test_answers(void **state)
{
	static const char nul[] = "{\"job_ids\": [7]}\0{";
	struct bg_lava_job job;
	struct bg_strbuf out = BG_STRBUF_INIT;
	long id;

	assert_int_equal(bg_lava_parse_submit("http://l", "{\"job_ids\": [7]}", 16, &id),
			 BG_LAVA_OK);
	assert_int_equal(id, 7);
	assert_int_equal(bg_lava_parse_submit("http://l", "{\"job_ids\": [0]}", 16, &id),
			 BG_LAVA_ANSWER);
	assert_int_equal(id, 0);
	assert_string_equal(bg_error_last(), "http://l: the server took the job but named no "
			    "single job id");
	/* a part of an id, or two jobs (multinode): following one would follow another's */
	assert_int_equal(bg_lava_parse_submit("http://l", "{\"job_ids\": [7.9]}", 18, &id),
			 BG_LAVA_ANSWER);
	assert_int_equal(bg_lava_parse_submit("http://l", "{\"job_ids\": [7, 8]}", 19, &id),
			 BG_LAVA_ANSWER);
	assert_int_equal(id, 0);
	/* what follows a NUL would go unread: such an answer is not taken */
	assert_int_equal(bg_lava_parse_submit("http://l", nul, sizeof(nul) - 1, &id),
			 BG_LAVA_ANSWER);
	assert_string_equal(bg_error_last(), "http://l: byte 16 of the answer is a NUL");
	assert_int_equal(bg_lava_parse_submit("http://l/api/v0.2/jobs/", "{", 1, &id),
			 BG_LAVA_ANSWER);
	assert_true(!strncmp(bg_error_last(), "http://l/api/v0.2/jobs/:1:", 26));
	/* not NUL-terminated: only len bytes are read */
	assert_int_equal(bg_lava_parse_status("http://l", 3, "{\"state\": \"Run ning\"}xx", 21,
					      &job), BG_LAVA_OK);
	assert_string_equal(job.state, "Run?ning");
	assert_string_equal(job.health, "");
	assert_int_equal(bg_lava_parse_status("http://l", 3, "{}", 2, &job), BG_LAVA_ANSWER);
	assert_string_equal(bg_error_last(), "http://l: job 3 has no state");
	/* whole lines while it runs; the rest once it finished */
	assert_int_equal(bg_lava_parse_log("a\nb\nc", 5, false, &out), 2);
	assert_string_equal(out.buf, "a\nb\n");
	assert_int_equal(bg_lava_parse_log("c", 1, true, &out), 1);
	assert_string_equal(out.buf, "a\nb\nc\n");
	assert_int_equal(bg_lava_parse_log("", 0, true, &out), 0);
	assert_int_equal(out.len, 6);
	bg_strbuf_release(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_render),
		cmocka_unit_test(test_template_errors),
		cmocka_unit_test(test_token),
		cmocka_unit_test(test_board_errors),
		cmocka_unit_test(test_answers),
	};

	return cmocka_run_group_tests_name("lava", tests, setup, teardown);
}
