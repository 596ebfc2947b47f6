/*
 * Unit tests of the basics of lib/util: the last error, strict numbers, names that must
 * stay one path component, argument vectors, the string table, terminal-safe text, the
 * progress callbacks, the file helpers and lock files.
 */
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>

#include "unit.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/num.h"
#include "util/path.h"
#include "util/strbuf.h"
#include "util/strmap.h"
#include "util/strvec.h"
#include "util/text.h"
#include "util/xmalloc.h"

/* A message made from the last one keeps all of it: the buffer is not its own input. */
static void test_error_from_error(void **state)
{
	(void)state;
	bg_error("3:5: did not find expected ',' or ']' while parsing a flow sequence");
	bg_error("%s:%s", "x.yaml", bg_error_last());
	assert_string_equal(bg_error_last(),
			    "x.yaml:3:5: did not find expected ',' or ']' while parsing a flow sequence");
	errno = ENOENT;
	bg_error_errno("cannot open '%s'", "a");
	bg_error("%s (and more)", bg_error_last());
	assert_string_equal(bg_error_last(), "cannot open 'a': No such file or directory (and more)");
}

static void test_numbers(void **state)
{
	static const char *bad[] = { "", "-1", " 4", "+4", "4x", "0x10", "4294967297", "1e3",
				     "18446744073709551616", "4 " };
	unsigned long v;
	double d;

	(void)state;
	assert_int_equal(bg_num_parse_ulong("42", 1, 100, &v), 0);
	assert_int_equal(v, 42);
	assert_int_equal(bg_num_parse_ulong("1000", 1, 1000, &v), 0);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		assert_int_equal(bg_num_parse_ulong(bad[i], 0, 4294967295UL, &v), -1);
	assert_int_equal(bg_num_parse_ulong("0", 1, 10, &v), -1);
	assert_string_equal(bg_error_last(), "'0' is not a whole number from 1 to 10");
	assert_int_equal(bg_num_parse_ulong("-1", 1, 10, &v), -1);
	assert_string_equal(bg_error_last(), "'-1' is not a whole number from 1 to 10");

	assert_int_equal(bg_num_parse_double("0.05", 0, 1, &d), 0);
	assert_true(d == 0.05);
	assert_int_equal(bg_num_parse_double("-0.5", -1, 1, &d), 0);
	assert_int_equal(bg_num_parse_double("nan", 0, 1, &d), -1);
	assert_int_equal(bg_num_parse_double("inf", 0, 1e308, &d), -1);
	assert_int_equal(bg_num_parse_double(" 1", 0, 2, &d), -1);
	assert_int_equal(bg_num_parse_double("+1", 0, 2, &d), -1);
	assert_int_equal(bg_num_parse_double("0x1", 0, 2, &d), -1);
	assert_int_equal(bg_num_parse_double("1.2.3", 0, 2, &d), -1);
	assert_int_equal(bg_num_parse_double(".", 0, 2, &d), -1);
	assert_int_equal(bg_num_parse_double(".5", 0, 2, &d), 0);
	assert_true(d == 0.5);
	{
		long l;

		assert_int_equal(bg_num_parse_long("-5", -10, 10, &l), 0);
		assert_int_equal(l, -5);
		assert_int_equal(bg_num_parse_long("+5", -10, 10, &l), -1);
		assert_int_equal(bg_num_parse_long("-", -10, 10, &l), -1);
		assert_int_equal(bg_num_parse_long("11", -10, 10, &l), -1);
		assert_string_equal(bg_error_last(), "'11' is not a whole number from -10 to 10");
	}
	assert_int_equal(bg_num_parse_double("1%", 0, 2, &d), -1);
	assert_int_equal(bg_num_parse_double("3", 0, 2, &d), -1);
	assert_string_equal(bg_error_last(), "'3' is not a number from 0 to 2");
}

static void test_names(void **state)
{
	static const char *good[] = { "x86_64", "qemu-arm64", "a.b", "c++", "linux-6.1" };
	static const char *bad[] = { "", ".", "..", "../x", "a/b", "/etc", "-rf", ".hidden",
				     "a b", "a\nb", "a\rb", "caf\xc3\xa9",
				     "12345678901234567890123456789012345678901234567890123456789012345" };

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(good); i++)
		assert_true(bg_path_name_ok(good[i]));
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		assert_false(bg_path_name_ok(bad[i]));
	assert_false(bg_path_name_ok(NULL));
	{
		char *p = bg_path_join("/a/", "b"), *q = bg_path_join("/a", "b");

		assert_string_equal(p, "/a/b");
		assert_string_equal(q, "/a/b");
		free(p);
		free(q);
	}
}

static void test_strvec(void **state)
{
	struct bg_strvec sv = BG_STRVEC_INIT;
	char arg[] = "copied";
	char **v;

	(void)state;
	v = bg_strvec_argv(&sv);
	assert_non_null(v);
	assert_null(v[0]);
	bg_strvec_push(&sv, arg);
	arg[0] = 'X';                  /* a copy was kept */
	bg_strvec_pushf(&sv, "-j%u", 4u);
	bg_strvec_pushv(&sv, (char *const[]){ "a", "b", NULL });
	for (int i = 0; i < 1000; i++)
		bg_strvec_pushf(&sv, "%d", i);
	v = bg_strvec_argv(&sv);
	assert_int_equal(sv.n, 1004);
	assert_string_equal(v[0], "copied");
	assert_string_equal(v[1], "-j4");
	assert_string_equal(v[3], "b");
	assert_string_equal(v[1003], "999");
	assert_null(v[1004]);
	bg_strvec_release(&sv);
	assert_int_equal(sv.n, 0);
}

static void test_strmap(void **state)
{
	struct bg_strmap m = BG_STRMAP_INIT;
	size_t n = 50000;
	char **keys = xcalloc(n, sizeof(*keys));

	(void)state;
	assert_int_equal(bg_strmap_get(&m, "absent"), -1);
	for (size_t i = 0; i < n; i++) {
		keys[i] = xasprintf("initcall.f%zu", i);
		assert_int_equal(bg_strmap_put(&m, keys[i], i), i);
	}
	/* a key already there keeps its first index */
	assert_int_equal(bg_strmap_put(&m, keys[7], 99), 7);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(bg_strmap_get(&m, keys[i]), (ssize_t)i);
	assert_int_equal(bg_strmap_get(&m, "initcall.f50000"), -1);
	assert_int_equal(m.used, n);
	bg_strmap_release(&m);
	for (size_t i = 0; i < n; i++)
		free(keys[i]);
	free(keys);
}

static void expect_escaped(const char *in, size_t len, const char *want)
{
	struct bg_strbuf sb = BG_STRBUF_INIT;

	bg_text_escape(&sb, in, len);
	assert_string_equal(sb.buf, want);
	bg_strbuf_release(&sb);
}

static void test_text(void **state)
{
	(void)state;
	expect_escaped("plain text\twith tab\n", 20, "plain text\\x09with tab\n");
	{
		struct bg_strbuf sb = BG_STRBUF_INIT;

		bg_text_escape_line(&sb, "x\nbootgate: fine", 16);
		assert_string_equal(sb.buf, "x\\x0abootgate: fine");
		bg_strbuf_release(&sb);
	}
	expect_escaped("bel\a esc\033[2J del\177", 17, "bel\\x07 esc\\x1b[2J del\\x7f");
	/* valid UTF-8 passes; a C1 control, a lone byte, an overlong form and a surrogate do not */
	expect_escaped("\xe2\x86\x92 caf\xc3\xa9", 9, "\xe2\x86\x92 caf\xc3\xa9");
	expect_escaped("\xc2\x9b", 2, "\\xc2\\x9b");
	expect_escaped("\xff", 1, "\\xff");
	expect_escaped("\xc0\xaf", 2, "\\xc0\\xaf");
	expect_escaped("\xed\xa0\x80", 3, "\\xed\\xa0\\x80");
	expect_escaped("\xe2\x86", 2, "\\xe2\\x86");
	/* no bidirectional control reaches the terminal: it would reorder what follows */
	expect_escaped("a\xe2\x80\xae" "b", 5, "a\\xe2\\x80\\xaeb");
	expect_escaped("\xe2\x81\xa6x\xe2\x81\xa9", 7, "\\xe2\\x81\\xa6x\\xe2\\x81\\xa9");
	expect_escaped("\xd8\x9c", 2, "\\xd8\\x9c");
	expect_escaped("\xe2\x80\xaf", 3, "\xe2\x80\xaf");
	{
		struct bg_strbuf sb = BG_STRBUF_INIT;

		/* a cell is as wide as asked, counted after escaping, a character a column */
		bg_text_cell(&sb, "a\033b", 8);
		bg_strbuf_addch(&sb, '|');
		bg_text_cell(&sb, "\xc3\xa9t\xc3\xa9", 4);
		bg_strbuf_addch(&sb, '|');
		bg_text_cell(&sb, "too wide", 3);
		assert_string_equal(sb.buf, "a\\x1bb  |\xc3\xa9t\xc3\xa9 |too wide");
		bg_strbuf_reset(&sb);
		/* an override inside a cell is escaped and counted as its escapes */
		bg_text_cell(&sb, "\xe2\x80\xae" "ab", 16);
		bg_strbuf_addch(&sb, '|');
		assert_string_equal(sb.buf, "\\xe2\\x80\\xaeab  |");
		bg_strbuf_release(&sb);
	}
	/* a backslash is doubled, so that no escape can be forged */
	expect_escaped("a\\x07b", 6, "a\\\\x07b");
	expect_escaped("nul\0!", 5, "nul\\x00!");
	/* C0 controls and DEL are controls; a space, UTF-8 and its C1 range are not */
	assert_false(bg_text_has_control("refs/heads/for next \xe2\x86\x92 \xc2\x9b"));
	assert_true(bg_text_has_control("a\r\nb"));
	assert_true(bg_text_has_control("tab\there"));
	assert_true(bg_text_has_control("del\177"));
	assert_false(bg_text_has_control(""));
}

/* What the walker reads at the start of s (len bytes): kind, bytes and code point. */
static void expect_unit(const char *s, size_t len, enum bg_text_kind kind, size_t n,
			uint32_t cp)
{
	struct bg_text_unit u = bg_text_next(s, len);

	assert_int_equal(u.kind, kind);
	assert_int_equal(u.len, n);
	assert_int_equal(u.cp, cp);
}

static void test_text_walker(void **state)
{
	(void)state;
	expect_unit("a", 1, BG_TEXT_CHAR, 1, 'a');
	expect_unit(" ", 1, BG_TEXT_CHAR, 1, ' ');
	expect_unit("~", 1, BG_TEXT_CHAR, 1, '~');
	/* C0 and DEL: one byte each, newline and tab too (each output says what to keep) */
	expect_unit("\n", 1, BG_TEXT_C0, 1, '\n');
	expect_unit("\t", 1, BG_TEXT_C0, 1, '\t');
	expect_unit("\033[2J", 4, BG_TEXT_C0, 1, 0x1b);
	expect_unit("", 1, BG_TEXT_C0, 1, 0);
	expect_unit("\177", 1, BG_TEXT_C0, 1, 0x7f);
	/* valid UTF-8, decoded, from 2 to 4 bytes */
	expect_unit("\xc3\xa9t\xc3\xa9", 5, BG_TEXT_CHAR, 2, 0xe9);
	expect_unit("\xe2\x86\x92", 3, BG_TEXT_CHAR, 3, 0x2192);
	expect_unit("\xf0\x9f\x98\x80", 4, BG_TEXT_CHAR, 4, 0x1f600);
	expect_unit("\xf4\x8f\xbf\xbf", 4, BG_TEXT_CHAR, 4, 0x10ffff);
	/* C1: valid, two bytes, a control; U+00A0 just past it is not */
	expect_unit("\xc2\x80", 2, BG_TEXT_C1, 2, 0x80);
	expect_unit("\xc2\x9b" "31m", 5, BG_TEXT_C1, 2, 0x9b);
	expect_unit("\xc2\x9f", 2, BG_TEXT_C1, 2, 0x9f);
	expect_unit("\xc2\xa0", 2, BG_TEXT_CHAR, 2, 0xa0);
	/* the bidirectional formatting characters, and neighbours that are not */
	expect_unit("\xe2\x80\xae", 3, BG_TEXT_BIDI, 3, 0x202e);      /* RLO */
	expect_unit("\xe2\x80\xaa", 3, BG_TEXT_BIDI, 3, 0x202a);      /* LRE */
	expect_unit("\xe2\x81\xa6", 3, BG_TEXT_BIDI, 3, 0x2066);      /* LRI */
	expect_unit("\xe2\x81\xa9", 3, BG_TEXT_BIDI, 3, 0x2069);      /* PDI */
	expect_unit("\xe2\x80\x8f", 3, BG_TEXT_BIDI, 3, 0x200f);      /* RLM */
	expect_unit("\xd8\x9c", 2, BG_TEXT_BIDI, 2, 0x061c);          /* ALM */
	expect_unit("\xe2\x80\xa9", 3, BG_TEXT_CHAR, 3, 0x2029);
	expect_unit("\xe2\x80\xaf", 3, BG_TEXT_CHAR, 3, 0x202f);
	expect_unit("\xe2\x81\xaa", 3, BG_TEXT_CHAR, 3, 0x206a);
	/* invalid: one byte at a time, the byte itself as cp */
	expect_unit("\xff", 1, BG_TEXT_INVALID, 1, 0xff);
	expect_unit("\x80", 1, BG_TEXT_INVALID, 1, 0x80);
	expect_unit("\xc0\xaf", 2, BG_TEXT_INVALID, 1, 0xc0);         /* overlong '/' */
	expect_unit("\xe0\x80\xaf", 3, BG_TEXT_INVALID, 1, 0xe0);     /* overlong too */
	expect_unit("\xed\xa0\x80", 3, BG_TEXT_INVALID, 1, 0xed);     /* a surrogate */
	expect_unit("\xf4\x90\x80\x80", 4, BG_TEXT_INVALID, 1, 0xf4); /* past U+10FFFF */
	expect_unit("\xc3(", 2, BG_TEXT_INVALID, 1, 0xc3);
	/* cut short by the end of the text, not by the bytes that follow it */
	expect_unit("\xe2\x80\xae", 2, BG_TEXT_INVALID, 1, 0xe2);
	assert_int_equal(bg_text_columns("\xc3\xa9t\xc3\xa9 \xe2\x86\x92", 9), 5);
	assert_int_equal(bg_text_columns("", 0), 0);
}

/* What a job's options carry: the callback and its argument, as bg_progress_to wants. */
struct progress_opts {
	bg_progress_fn progress;
	void *progress_data;
};

static void keep_line(const char *line, void *data)
{
	struct bg_strbuf *sb = data;

	bg_strbuf_addf(sb, "[%s]", line);
}

/* What fn(line, data) writes to stderr, read back from a file standing in for it. */
static char *stderr_of(bg_progress_fn fn, const char *line, void *data)
{
	char tmpl[] = "/tmp/bootgate-t-util-err.XXXXXX";
	int fd = mkstemp(tmpl), saved = dup(STDERR_FILENO);
	char *text;

	assert_true(fd >= 0 && saved >= 0);
	fflush(stderr);
	assert_int_equal(dup2(fd, STDERR_FILENO), STDERR_FILENO);
	fn(line, data);
	fflush(stderr);
	assert_int_equal(dup2(saved, STDERR_FILENO), STDERR_FILENO);
	close(saved);
	close(fd);
	text = bg_read_file(tmpl, 4096, NULL);
	assert_non_null(text);
	unlink(tmpl);
	return text;
}

static void test_progress(void **state)
{
	struct bg_strbuf got = BG_STRBUF_INIT;
	struct progress_opts o = { keep_line, &got }, none = { NULL, &got };
	char *err;

	(void)state;
	/* through the options' own callback and argument, formatted */
	bg_progress_to(&o, "building %.12s", "0123456789abcdef");
	bg_progress_to(&o, "boot %d of %d", 2, 3);
	assert_string_equal(got.buf, "[building 0123456789ab][boot 2 of 3]");
	/* no callback: nothing, and nothing formatted */
	bg_progress_to(&none, "%s", "lost");
	assert_string_equal(got.buf, "[building 0123456789ab][boot 2 of 3]");
	bg_strbuf_release(&got);
	/* the CLI's: the command's name first, and what the line quotes escaped */
	err = stderr_of(bg_progress_stderr, "culprit: \033[2Jabc", "bisect");
	assert_string_equal(err, "bisect: culprit: \\x1b[2Jabc\n");
	free(err);
}

static char *scratch_dir(void)
{
	char tmpl[] = "/tmp/bootgate-t-util.XXXXXX";

	assert_non_null(mkdtemp(tmpl));
	return xstrdup(tmpl);
}

static void test_fs(void **state)
{
	char *dir = scratch_dir(), *deep = xasprintf("%s/a/b/c", dir);
	char *file = xasprintf("%s/f", deep), *copy = xasprintf("%s/g", dir), *tmp;
	char *text;
	size_t len;
	struct stat st;

	(void)state;
	assert_int_equal(bg_mkdirs(deep), 0);
	assert_int_equal(bg_mkdirs(deep), 0);          /* existing: fine */
	assert_int_equal(stat(deep, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(bg_write_file(file, "0123456789", 10), 0);
	tmp = xasprintf("%s.tmp", file);
	assert_int_equal(access(tmp, F_OK), -1);        /* written through a rename */
	text = bg_read_file(file, 10, &len);
	assert_non_null(text);
	assert_int_equal(len, 10);
	assert_string_equal(text, "0123456789");
	free(text);
	/* one byte over the cap: refused, said so */
	assert_null(bg_read_file(file, 9, NULL));
	assert_non_null(strstr(bg_error_last(), "is larger than 9 bytes"));
	assert_int_equal(bg_copy_file(file, copy), 0);
	text = bg_read_file(copy, 100, NULL);
	assert_string_equal(text, "0123456789");
	free(text);
	/* errors name the path */
	assert_null(bg_read_file("/nonexistent/x", 10, NULL));
	assert_string_equal(bg_error_last(), "cannot open '/nonexistent/x': No such file or directory");
	assert_int_equal(bg_mkdirs("/proc/bootgate/x"), -1);
	assert_non_null(strstr(bg_error_last(), "cannot create '/proc/bootgate'"));
	assert_int_equal(bg_write_file("/nonexistent/dir/f", "x", 1), -1);
	assert_non_null(strstr(bg_error_last(), "/nonexistent/dir/f.tmp"));
	/* links, FIFOs and devices are neither read as files nor replaced by a write */
	{
		char *lnk = xasprintf("%s/link", dir), *fifo = xasprintf("%s/fifo", dir);
		int fd;

		assert_int_equal(symlink(file, lnk), 0);
		assert_int_equal(bg_write_file(lnk, "x", 1), -1);
		assert_non_null(strstr(bg_error_last(), "is not a regular file: not replaced"));
		assert_int_equal(mkfifo(fifo, 0600), 0);
		assert_null(bg_read_file(fifo, 100, NULL));      /* refused, without blocking */
		assert_non_null(strstr(bg_error_last(), "is not a regular file"));
		assert_int_equal(bg_write_file(fifo, "x", 1), -1);
		assert_null(bg_read_file("/dev/zero", 100, NULL));
		/* the same refusals for a file read a line at a time */
		assert_null(bg_fopen_regular(fifo));
		assert_non_null(strstr(bg_error_last(), "is not a regular file"));
		assert_null(bg_fopen_regular("/dev/zero"));
		assert_null(bg_fopen_regular("/nonexistent/x"));
		assert_string_equal(bg_error_last(),
				    "cannot open '/nonexistent/x': No such file or directory");
		{
			FILE *f = bg_fopen_regular(lnk);   /* a link to a file: read as the file */
			char line[16];

			assert_non_null(f);
			assert_non_null(fgets(line, sizeof(line), f));
			fclose(f);
		}
		/* beneath a directory: no link on the way, at the end or above */
		fd = bg_open_beneath(deep, "f");
		assert_true(fd >= 0);
		close(fd);
		assert_int_equal(bg_open_beneath(dir, "link"), -1);
		assert_non_null(strstr(bg_error_last(), "a link is not followed"));
		fd = bg_open_beneath(dir, "a/b/c/f");
		assert_true(fd >= 0);
		close(fd);
		assert_int_equal(bg_open_beneath(dir, "../x"), -1);
		unlink(lnk);
		free(lnk);
		lnk = xasprintf("%s/a/l", dir);
		assert_int_equal(symlink(deep, lnk), 0);
		assert_int_equal(bg_open_beneath(dir, "a/l/f"), -1);
		assert_int_equal(bg_open_beneath(dir, "a/b/c"), -1);   /* a directory */
		unlink(lnk);
		unlink(fifo);
		free(lnk);
		free(fifo);
	}
	/* rm -rf: everything under it, links removed and never followed */
	{
		char *outside = xasprintf("%s/outside", dir), *top = xasprintf("%s/a", dir);
		char *lnk = xasprintf("%s/a/b/link", dir);

		assert_int_equal(bg_write_file(outside, "keep", 4), 0);
		assert_int_equal(symlink(dir, lnk), 0);
		assert_int_equal(bg_remove_tree(top), 0);
		assert_int_equal(access(top, F_OK), -1);
		assert_int_equal(access(outside, F_OK), 0);
		assert_int_equal(bg_remove_tree(top), 0);      /* already gone: fine */
		unlink(outside);
		free(outside);
		free(top);
		free(lnk);
	}
	unlink(copy);
	rmdir(dir);
	assert_int_equal(access(dir, F_OK), -1);
	free(tmp);
	free(file);
	free(copy);
	free(deep);
	free(dir);
}

/* The waiting callback of the lock test: counts, and lets the holder go. */
struct lock_holder {
	int fd, calls;
};

static void let_go(void *data)
{
	struct lock_holder *h = data;

	h->calls++;
	close(h->fd);
	h->fd = -1;
}

static void on_alarm(int sig)
{
	(void)sig;
}

static void test_lock_file(void **state)
{
	char *dir = scratch_dir(), *path = xasprintf("%s/x.lock", dir);
	char *lnk = xasprintf("%s/link.lock", dir), *target = xasprintf("%s/target", dir);
	char *want;
	struct lock_holder h = { -1, 0 };
	struct sigaction sa = { .sa_handler = on_alarm };   /* no SA_RESTART: EINTR */
	int fd = -2;

	(void)state;
	/* a wait that goes wrong ends in a second, not never */
	assert_int_equal(sigaction(SIGALRM, &sa, NULL), 0);
	/* free: taken at once, the file made, waiting never said */
	assert_int_equal(bg_lock_file(path, true, let_go, &h, &h.fd), 0);
	assert_true(h.fd >= 0);
	assert_int_equal(h.calls, 0);
	assert_int_equal(access(path, F_OK), 0);
	/* held (flock: by another open file, as another process would): busy at once */
	assert_int_equal(bg_lock_file(path, false, let_go, &h, &fd), BG_LOCK_BUSY);
	assert_int_equal(fd, -1);
	assert_int_equal(h.calls, 0);
	want = xasprintf("'%s' is held by another process", path);
	assert_string_equal(bg_error_last(), want);
	free(want);
	/* held, and waited for: a signal ends the wait, as a stop must */
	alarm(1);
	assert_int_equal(bg_lock_file(path, true, NULL, NULL, &fd), -1);
	alarm(0);
	assert_int_equal(fd, -1);
	want = xasprintf("cannot lock '%s': %s", path, strerror(EINTR));
	assert_string_equal(bg_error_last(), want);
	free(want);
	/* held, and waited for: said once, then taken when the holder lets go */
	alarm(5);
	assert_int_equal(bg_lock_file(path, true, let_go, &h, &fd), 0);
	alarm(0);
	assert_int_equal(h.calls, 1);
	assert_int_equal(h.fd, -1);
	assert_true(fd >= 0);
	close(fd);
	/* a symbolic link is never opened: neither locked nor its target made */
	assert_int_equal(symlink(target, lnk), 0);
	fd = -2;
	assert_int_equal(bg_lock_file(lnk, false, NULL, NULL, &fd), -1);
	assert_int_equal(fd, -1);
	want = xasprintf("cannot open '%s': %s", lnk, strerror(ELOOP));
	assert_string_equal(bg_error_last(), want);
	free(want);
	assert_int_equal(access(target, F_OK), -1);
	/* nowhere to make it */
	assert_int_equal(bg_lock_file("/nonexistent/x.lock", true, NULL, NULL, &fd), -1);
	assert_string_equal(bg_error_last(),
			    "cannot open '/nonexistent/x.lock': No such file or directory");
	unlink(lnk);
	unlink(path);
	assert_int_equal(rmdir(dir), 0);
	free(target);
	free(lnk);
	free(path);
	free(dir);
}

/* the time of file below dir, in nanoseconds */
static long long mtime_at(const char *dir, const char *file)
{
	char *path = xasprintf("%s/%s", dir, file);
	struct stat st;

	assert_int_equal(lstat(path, &st), 0);
	free(path);
	return st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
}

/* put file below dir (made with what is above it) holding text, dated at sec */
static void put(const char *dir, const char *file, const char *text, time_t sec)
{
	char *path = xasprintf("%s/%s", dir, file), *up = xstrdup(path);
	struct timespec t[2] = { { sec, 0 }, { sec, 0 } };

	*strrchr(up, '/') = '\0';
	assert_int_equal(bg_mkdirs(up), 0);
	assert_int_equal(bg_write_file(path, text, strlen(text)), 0);
	assert_int_equal(utimensat(AT_FDCWD, path, t, 0), 0);
	free(up);
	free(path);
}

/* the files of a tree holding the same bytes as another's take their times; no other */
static void test_retime(void **state)
{
	char *top = scratch_dir(), *to = xasprintf("%s/to", top), *from = xasprintf("%s/from", top);
	char *p;
	struct bg_retime rt;
	long long now = (long long)time(NULL) * 1000000000LL;

	(void)state;
	put(from, "same.c", "int a;", 1000);
	put(from, "sub/deep/same.h", "#define X", 2000);
	put(from, "other.c", "int b;", 3000);        /* same size, other bytes */
	put(from, "longer.c", "int c;", 4000);
	put(from, ".git", "gitdir: elsewhere", 5000);
	put(from, "file-there", "x", 6000);          /* a directory on the other side */
	put(to, "same.c", "int a;", time(NULL));
	put(to, "sub/deep/same.h", "#define X", time(NULL));
	put(to, "other.c", "int B;", time(NULL));
	put(to, "longer.c", "int c; ", time(NULL));
	put(to, ".git", "gitdir: elsewhere", time(NULL));
	put(to, "file-there/x", "x", time(NULL));
	put(to, "only-here.c", "new", time(NULL));
	/* a link to the same name on both sides: nothing to do */
	p = xasprintf("%s/link", to);
	assert_int_equal(symlink("same.c", p), 0);
	free(p);
	p = xasprintf("%s/link", from);
	assert_int_equal(symlink("same.c", p), 0);
	free(p);
	assert_int_equal(bg_retime_same(to, from, &rt), 0);
	assert_int_equal(rt.same, 2);
	assert_int_equal(rt.other, 3);                /* other, longer, only-here */
	assert_true(mtime_at(to, "same.c") == 1000000000000LL);
	assert_true(mtime_at(to, "sub/deep/same.h") == 2000000000000LL);
	/* every other file keeps its own time, now or later */
	assert_true(mtime_at(to, "file-there/x") >= now);
	assert_true(mtime_at(to, "other.c") >= now);
	assert_true(mtime_at(to, "longer.c") >= now);
	assert_true(mtime_at(to, ".git") >= now);
	assert_true(mtime_at(to, "only-here.c") >= now);
	/* a link to another name, or none on the other side: an error, for make goes by it */
	p = xasprintf("%s/sub/link", to);
	assert_int_equal(symlink("deep/same.h", p), 0);
	free(p);
	assert_int_equal(bg_retime_same(to, from, &rt), -1);
	assert_non_null(strstr(bg_error_last(), "'sub/link' is not the same link in"));
	p = xasprintf("%s/sub/link", from);
	assert_int_equal(symlink("deep/other.h", p), 0);
	free(p);
	assert_int_equal(bg_retime_same(to, from, &rt), -1);
	assert_non_null(strstr(bg_error_last(), "'sub/link' is not the same link in"));
	/* a directory that is not there: an error naming it */
	p = xasprintf("%s/missing", top);
	assert_int_equal(bg_retime_same(p, from, &rt), -1);
	assert_non_null(strstr(bg_error_last(), "missing"));
	assert_int_equal(bg_retime_same(to, p, &rt), -1);
	free(p);
	assert_int_equal(bg_remove_tree(top), 0);
	free(top);
	free(to);
	free(from);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_error_from_error),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_strvec),
		cmocka_unit_test(test_strmap),
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_text_walker),
		cmocka_unit_test(test_progress),
		cmocka_unit_test(test_fs),
		cmocka_unit_test(test_lock_file),
		cmocka_unit_test(test_retime),
	};

	return cmocka_run_group_tests_name("util", tests, NULL, NULL);
}
