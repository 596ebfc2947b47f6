/* Unit tests of the report mails' text (report/mail.c). */
#include <math.h>

#include "unit.h"
#include "report/mail.h"

/* Every line of a header block (CRLF) at most 78 columns, none but the first unfolded. */
static void assert_folded(const char *h)
{
	for (const char *p = h; *p;) {
		const char *e = strstr(p, "\r\n");

		assert_non_null(e);
		assert_true(e - p <= BG_MAIL_HEADER_COLUMNS);
		if (p != h)
			assert_int_equal(*p, ' ');
		p = e + 2;
	}
}

static void test_subject_injection(void **state)
{
	struct bg_strbuf sb = BG_STRBUF_INIT;

	(void)state;
	bg_mail_header_text(&sb, "Subject", "fix\r\nBcc: x@y\nX: \x01z");
	assert_string_equal(sb.buf, "Subject: fix Bcc: x@y X: z\r\n");
	assert_folded(sb.buf);
	bg_strbuf_release(&sb);
}

/* The mail's policy: controls (C0, DEL, C1) a space each, bad bytes U+FFFD, the rest kept. */
static void test_clean(void **state)
{
	struct bg_strbuf sb = BG_STRBUF_INIT;

	(void)state;
	bg_mail_clean(&sb, "a\r\nb\tc\033[2Jd\177e");
	assert_string_equal(sb.buf, "a  b c [2Jd e");
	bg_strbuf_reset(&sb);
	/* a C1 control is one space for its two bytes; each invalid byte one U+FFFD */
	bg_mail_clean(&sb, "x\xc2\x9by\xc2\x85z \xff\xfe \xc0\xaf \xed\xa0\x80");
	assert_string_equal(sb.buf, "x y z \xef\xbf\xbd\xef\xbf\xbd \xef\xbf\xbd\xef\xbf\xbd "
			    "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
	bg_strbuf_reset(&sb);
	/* valid UTF-8 stays, a bidirectional control too: the mail program lays it out */
	bg_mail_clean(&sb, "caf\xc3\xa9 \xe2\x80\xae" "abc \xc2\xa0");
	assert_string_equal(sb.buf, "caf\xc3\xa9 \xe2\x80\xae" "abc \xc2\xa0");
	bg_strbuf_reset(&sb);
	bg_mail_clean(&sb, NULL);
	assert_string_equal(sb.buf, "");
	bg_strbuf_release(&sb);
}

static void test_encoded_words(void **state)
{
	struct bg_strbuf sb = BG_STRBUF_INIT;

	(void)state;
	bg_mail_header_text(&sb, "Subject", "a +5 \xc2\xb5s (+2%) b");
	assert_string_equal(sb.buf, "Subject: a +5 =?UTF-8?Q?=C2=B5s?= (+2%) b\r\n");
	bg_strbuf_reset(&sb);
	/* two words to encode side by side keep their space inside the encoding */
	bg_mail_header_text(&sb, "Subject", "Zo\xc3\xab M\xc3\xbcller");
	assert_string_equal(sb.buf, "Subject: =?UTF-8?Q?Zo=C3=AB_M=C3=BCller?=\r\n");
	bg_strbuf_reset(&sb);
	/* not UTF-8: U+FFFD; "=?" could be taken for an encoded word: encoded itself */
	bg_mail_header_text(&sb, "Subject", "\xff =?x?=");
	assert_string_equal(sb.buf, "Subject: =?UTF-8?Q?=EF=BF=BD_=3D=3Fx=3F=3D?=\r\n");
	bg_strbuf_release(&sb);
}

static void test_long_subject_folded(void **state)
{
	struct bg_strbuf sb = BG_STRBUF_INIT, v = BG_STRBUF_INIT;

	(void)state;
	for (int i = 0; i < 40; i++)
		bg_strbuf_addstr(&v, "\xc3\xa9t\xc3\xa9 long ");
	bg_strbuf_addstr(&v, "x");
	for (int i = 0; i < 100; i++)
		bg_strbuf_addch(&v, 'y');
	bg_mail_header_text(&sb, "Subject", v.buf);
	assert_folded(sb.buf);
	/* every encoded word at most 75 characters, never a character split */
	for (const char *p = sb.buf; (p = strstr(p, "=?UTF-8?Q?"));) {
		const char *e = strstr(p + 10, "?=");

		assert_non_null(e);
		assert_true(e + 2 - p <= 75);
		assert_true(e[-3] != '=' || e[-2] != 'C');
		p = e + 2;
	}
	bg_strbuf_release(&sb);
	bg_strbuf_release(&v);
}

static void test_addresses(void **state)
{
	struct bg_mail_addrs l = { NULL, 0, 0 };
	struct bg_mail_addr a;
	struct bg_strbuf sb = BG_STRBUF_INIT;

	(void)state;
	assert_int_equal(bg_mail_addr_parse("\"Doe, J.\" <j@x.org>", &a), 0);
	assert_string_equal(a.name, "Doe, J.");
	assert_string_equal(a.addr, "j@x.org");
	bg_mail_addr_release(&a);
	assert_int_equal(bg_mail_addr_parse("j@x.org\r\nBcc: y@z", &a), -1);
	assert_int_equal(bg_mail_addr_parse("<j@x.org> tail", &a), -1);
	assert_int_equal(bg_mail_addr_parse("a b@x.org", &a), -1);
	assert_false(bg_mail_addr_ok("a@b@c"));
	assert_false(bg_mail_addr_ok("a@.c"));
	assert_true(bg_mail_addr_ok("first.last+tag@sub.example.org"));
	bg_mail_addrs_add(&l, "Doe, J.", "j@x.org");
	assert_false(bg_mail_addrs_add(&l, NULL, "J@X.ORG"));
	bg_mail_addrs_add(&l, NULL, "k@x.org");
	bg_mail_header_addrs(&sb, "To", &l);
	assert_string_equal(sb.buf, "To: =?UTF-8?Q?Doe=2C_J=2E?= <j@x.org>, k@x.org\r\n");
	bg_strbuf_release(&sb);
	bg_mail_addrs_release(&l);
}

/* A name from a commit's trailer is anyone's: one long word, or one that reads as encoded. */
static void test_name_long_or_encoded_word(void **state)
{
	struct bg_mail_addrs l = { NULL, 0, 0 };
	struct bg_strbuf sb = BG_STRBUF_INIT, name = BG_STRBUF_INIT;

	(void)state;
	for (int i = 0; i < 2000; i++)
		bg_strbuf_addch(&name, 'a');
	bg_mail_addrs_add(&l, name.buf, "a@x.org");
	bg_mail_header_addrs(&sb, "Cc", &l);
	/* encoded words, folded: no line near 998 characters, the hard limit */
	for (const char *p = sb.buf; *p;) {
		const char *e = strstr(p, "\r\n");

		assert_non_null(e);
		assert_true(e - p <= 4 + 75);    /* "Cc: " and one encoded word */
		assert_true(p == sb.buf || *p == ' ');
		p = e + 2;
	}
	assert_non_null(strstr(sb.buf, "=?UTF-8?Q?aaaa"));
	bg_strbuf_reset(&sb);
	bg_mail_addrs_release(&l);
	/* "=?...?=" in a name would be decoded by the reader's mailer: encoded itself */
	bg_mail_addrs_add(&l, "=?UTF-8?Q?Linus_Torvalds?=", "b@x.org");
	bg_mail_header_addrs(&sb, "Cc", &l);
	assert_string_equal(sb.buf, "Cc: =?UTF-8?Q?=3D=3FUTF-8=3FQ=3FLinus=5FTorvalds=3F=3D?= "
			    "<b@x.org>\r\n");
	bg_strbuf_release(&sb);
	bg_strbuf_release(&name);
	bg_mail_addrs_release(&l);
}

static void test_trailers(void **state)
{
	struct bg_mail_addrs l = { NULL, 0, 0 };

	(void)state;
	bg_mail_trailers("tracing: x\n\nBody Signed-off-by: no@x.org\n\n"
			 "Cc: stable@vger.kernel.org # 6.1\r\n"
			 "Signed-off-by: Ada <ada@x.org>\n"
			 "  signed-off-by: ADA <ADA@x.org>\n"
			 "[ bp: massaged ]\n"
			 "Reviewed-by: Rev <rev@x.org>\n"
			 "Cc: not an address\n\n", &l);
	assert_int_equal(l.n, 2);
	assert_string_equal(l.v[0].addr, "stable@vger.kernel.org");
	assert_null(l.v[0].name);
	assert_string_equal(l.v[1].addr, "ada@x.org");
	assert_string_equal(l.v[1].name, "Ada");
	bg_mail_addrs_release(&l);
	/* cc: lines in the text, not in its last paragraph of trailers: nobody */
	bg_mail_trailers("x: y\n\ncc: a@x.org\nCc: b@x.org\n\nSigned-off-by: Ada <ada@x.org>\n", &l);
	assert_int_equal(l.n, 1);
	assert_string_equal(l.v[0].addr, "ada@x.org");
	bg_mail_addrs_release(&l);
	/* a last paragraph that is text is no trailer block */
	bg_mail_trailers("x: y\n\nCc: a@x.org\nas said above\n", &l);
	assert_int_equal(l.n, 0);
	bg_mail_trailers("", &l);
	bg_mail_trailers(NULL, &l);
	assert_int_equal(l.n, 0);
}

/* A posted body of 300 cc: trailers puts 32 people on the reply, not 300. */
static void test_trailers_bounded(void **state)
{
	struct bg_strbuf sb = BG_STRBUF_INIT;
	struct bg_mail_addrs l = { NULL, 0, 0 };

	(void)state;
	bg_strbuf_addstr(&sb, "x: y\n\n");
	for (int i = 0; i < 300; i++)
		bg_strbuf_addf(&sb, "Cc: stranger%d@x.org\n", i);
	bg_mail_trailers(sb.buf, &l);
	assert_int_equal(l.n, BG_MAIL_TRAILERS_MAX);
	assert_string_equal(l.v[31].addr, "stranger31@x.org");
	bg_mail_addrs_release(&l);
	bg_strbuf_release(&sb);
}

static void test_wrap(void **state)
{
	struct bg_strbuf sb = BG_STRBUF_INIT;
	const char *url = "https://example.org/a/very/long/path/that/does/not/fit/in/"
			  "seventy/two/columns/at/all.html";

	(void)state;
	bg_mail_wrap(&sb, "", "", "one two three four five six seven eight nine ten "
		     "eleven twelve thirteen fourteen fifteen \xc2\xb5s sixteen seventeen");
	assert_string_equal(sb.buf, "one two three four five six seven eight nine ten eleven "
			    "twelve thirteen\nfourteen fifteen \xc2\xb5s sixteen seventeen\n");
	bg_strbuf_reset(&sb);
	bg_mail_wrap(&sb, "see: ", "     ", url);
	assert_string_equal(sb.buf, "see: https://example.org/a/very/long/path/that/does/not/"
			    "fit/in/seventy/two/columns/at/all.html\n");
	bg_strbuf_reset(&sb);
	bg_mail_command(&sb, "$ ", "qemu -M pc -m 512 -append 'console=ttyS0 loglevel=8 "
			"printk.time=1 panic=-1' -icount shift=3");
	assert_string_equal(sb.buf, "$ qemu -M pc -m 512 -append \\\n"
			    "      'console=ttyS0 loglevel=8 printk.time=1 panic=-1' -icount shift=3\n");
	bg_strbuf_release(&sb);
}

static void test_shell_word(void **state)
{
	struct bg_strbuf sb = BG_STRBUF_INIT;

	(void)state;
	bg_mail_shell_word(&sb, "20261201.a-b_c+d@host.example");
	assert_string_equal(sb.buf, "20261201.a-b_c+d@host.example");
	bg_strbuf_reset(&sb);
	bg_mail_shell_word(&sb, "a`reboot`$(id)|sh@x");
	assert_string_equal(sb.buf, "'a`reboot`$(id)|sh@x'");
	bg_strbuf_reset(&sb);
	bg_mail_shell_word(&sb, "it's");
	assert_string_equal(sb.buf, "'it'\\''s'");
	bg_strbuf_reset(&sb);
	bg_mail_shell_word(&sb, "");
	assert_string_equal(sb.buf, "''");
	/* a quoted word with a quote and spaces is never broken inside its quotes */
	bg_strbuf_reset(&sb);
	bg_mail_command(&sb, "$ ", "b4 am 'x'\\''y z w v u t s r q p o n m l k j i h g f e d c b "
			"a 9 8 7@b' && ls");
	assert_string_equal(sb.buf, "$ b4 am \\\n"
			    "      'x'\\''y z w v u t s r q p o n m l k j i h g f e d c b a 9 8 7@b' \\\n"
			    "      && ls\n");
	bg_strbuf_release(&sb);
}

static void test_no_mail_rules(void **state)
{
	struct bg_mail_patch p[4] = {
		{ .idx = 0, .subject = "[PATCH v2 0/3] t" },
		{ .idx = 1, .status = "applied", .verdict = "same", .delta = 2 },
		{ .idx = 2, .status = "applied", .verdict = "regression", .delta = 900 },
		{ .idx = 3, .status = "applied", .verdict = "regression", .delta = 4000 },
	};
	size_t reply = 99;
	bool reg = false;

	(void)state;
	assert_null(bg_mail_bisection_skip("done", "found", "abc", 0.95, 0.9));
	assert_string_equal(bg_mail_bisection_skip("done", "found", "abc", 0.5, 0.9),
			    "confidence 0.500 is below the floor 0.900");
	assert_non_null(bg_mail_bisection_skip("failed", NULL, NULL, NAN, 0.9));
	assert_non_null(bg_mail_bisection_skip("done", "unknown", NULL, 0.99, 0.9));
	/* a culprit its revert contradicts is not mailed, however sure the bisection was */
	assert_string_equal(bg_mail_bisection_skip("done", "unconfirmed", "abc", 0.99, 0.9),
			    "unconfirmed: reverting the culprit on the bad tip took nothing back");
	assert_non_null(bg_mail_bisection_skip("done", "found", NULL, 0.99, 0.9));
	assert_null(bg_mail_series_skip("done", p, 4, &reply, &reg));
	assert_int_equal(reply, 3);
	assert_true(reg);
	p[2].verdict = p[3].verdict = "improvement";
	assert_null(bg_mail_series_skip("done", p, 4, &reply, &reg));
	assert_int_equal(reply, 0);
	assert_false(reg);
	p[1].verdict = p[2].verdict = p[3].verdict = "unknown";
	assert_string_equal(bg_mail_series_skip("done", p, 4, &reply, &reg),
			    "nothing but unknown was measured");
	p[2].status = "failed";
	assert_string_equal(bg_mail_series_skip("done", p, 4, &reply, &reg),
			    "a patch did not apply");
}

/* The bisection both tests below report: tracing's init_kprobe_trace culprit. */
static void kprobe_bisection(struct bg_mail_bisection *b)
{
	memset(b, 0, sizeof(*b));
	b->tree = "tracing";
	b->branch = "for-next";
	b->culprit = "0123456789abcdef0123456789abcdef01234567";
	b->metric = "initcall.init_kprobe_trace";
	b->revert_applies = -1;
}

static void test_subject_and_message(void **state)
{
	struct bg_mail_bisection b = { 0 };
	struct bg_verdict step = { .delta = 230077, .delta_pct = 7669233.3 };
	struct bg_mail_addrs to = { NULL, 0, 0 };
	struct bg_mail_head h = { { "bootgate", "bot@ci.example.org" }, &to, NULL, NULL,
				  "bootgate-bisection-7-0123456789ab@ci.example.org",
				  "patch@x\r\nBcc: y@z", 0, "tracing", "for-next", "bisection" };
	struct bg_strbuf subj = BG_STRBUF_INIT, msg = BG_STRBUF_INIT;

	(void)state;
	kprobe_bisection(&b);
	b.subject = "tracing: slow";
	b.step = &step;
	bg_mail_bisection_subject(&subj, &b);
	assert_string_equal(subj.buf, "[tracing:for-next] 0123456789ab tracing: slow: "
			    "initcall.init_kprobe_trace +230077 \xc2\xb5s (+7669233.3%) "
			    "boot-time regression");
	bg_mail_addrs_add(&to, "Ada", "ada@x.org");
	h.subject = subj.buf;
	bg_mail_message(&msg, &h, "body line\n.\nend");
	assert_non_null(strstr(msg.buf, "Date: Thu, 01 Jan 1970 00:00:00 +0000\r\n"));
	/* an In-Reply-To that is no Message-ID is left out, not written */
	assert_null(strstr(msg.buf, "In-Reply-To"));
	assert_null(strstr(msg.buf, "\nBcc"));
	assert_non_null(strstr(msg.buf, "\r\n\r\nbody line\r\n.\r\nend\r\n"));
	bg_strbuf_release(&subj);
	bg_strbuf_release(&msg);
	bg_mail_addrs_release(&to);
}

/*
 * An initcall that took no time before the culprit: no percentage of a base of 0, in
 * the subject, the lead or the figures ("nan%" was printed).
 */
static void test_from_zero(void **state)
{
	struct bg_mail_bisection b = { 0 };
	struct bg_verdict step = { .metric = "initcall.topology_init", .verdict = BG_DIFFERENT,
				   .base_median = 0, .cand_median = 28000, .delta = 28000,
				   .delta_pct = NAN, .exact = true, .n_base = 2, .n_cand = 2 };
	struct bg_strbuf subj = BG_STRBUF_INIT, body = BG_STRBUF_INIT;

	(void)state;
	kprobe_bisection(&b);
	b.metric = "initcall.topology_init";
	b.subject = "arm64: slow";
	b.step = &step;
	bg_mail_bisection_subject(&subj, &b);
	assert_non_null(strstr(subj.buf, "+28000 \xc2\xb5s (from 0)"));
	bg_mail_bisection_body(&body, &b);
	assert_null(strstr(body.buf, "nan"));
	assert_non_null(strstr(body.buf, "change   +28000 \xc2\xb5s (from 0)"));
	bg_strbuf_release(&subj);
	bg_strbuf_release(&body);
}

/* 64 KiB in a subject and a kernel line: a Subject: cut, no line over 998 octets. */
static void test_long_text(void **state)
{
	struct bg_mail_bisection b;
	struct bg_mail_addrs to = { NULL, 0, 0 };
	struct bg_mail_head h = { { "bootgate", "bot@ci.example.org" }, &to, NULL, NULL,
				  "bootgate-bisection-7-0123456789ab@ci.example.org", NULL, 0,
				  "tracing", "for-next", "bisection" };
	struct bg_strbuf long_text = BG_STRBUF_INIT, subj = BG_STRBUF_INIT, msg = BG_STRBUF_INIT;
	size_t lines = 0;

	(void)state;
	for (int i = 0; i < 32768; i++)
		bg_strbuf_addstr(&long_text, "\xc3\xa9");
	kprobe_bisection(&b);
	b.subject = long_text.buf;
	b.metric = long_text.buf;
	bg_mail_bisection_subject(&subj, &b);
	/* 200 bytes of each, whole characters, then "..." */
	/* no step measured: no figure in it */
	assert_int_equal(subj.len, strlen("[tracing:for-next] 0123456789ab : ") + 2 * 203 +
			 strlen(" boot-time regression"));
	assert_non_null(strstr(subj.buf, "\xc3\xa9...: \xc3\xa9"));
	/* a C1 control (U+0085) across the cut: cut whole, as the space it is cleaned to */
	bg_strbuf_reset(&msg);
	for (int i = 0; i < 199; i++)
		bg_strbuf_addch(&msg, 'a');
	bg_strbuf_addstr(&msg, "\xc2\x85tail");
	b.subject = msg.buf;
	bg_strbuf_reset(&subj);
	bg_mail_bisection_subject(&subj, &b);
	assert_non_null(strstr(subj.buf, "aaaa ...: \xc3\xa9"));
	bg_strbuf_reset(&msg);
	b.subject = long_text.buf;
	bg_strbuf_reset(&subj);
	bg_mail_bisection_subject(&subj, &b);
	h.subject = subj.buf;
	bg_mail_addrs_add(&to, "Ada", "ada@x.org");
	bg_mail_message(&msg, &h, long_text.buf);
	for (const char *l = strstr(msg.buf, "\r\n\r\n") + 4; *l; lines++) {
		const char *eol = strstr(l, "\r\n");

		assert_non_null(eol);
		/* full lines of 996 (498 characters), the rest on the last */
		assert_int_equal(eol - l, eol[2] ? 996 : 65536 % 996);
		/* never half a character: each line starts with one */
		assert_int_equal((unsigned char)l[0], 0xc3);
		l = eol + 2;
	}
	assert_int_equal(lines, 65536 / 996 + 1);
	/* a CRLF line just short of the break stays one line: its CR breaks nothing */
	bg_strbuf_reset(&long_text);
	for (int i = 0; i < 995; i++)
		bg_strbuf_addch(&long_text, 'a');
	bg_strbuf_addstr(&long_text, "\r\nnext\r\n");
	bg_strbuf_reset(&msg);
	bg_mail_message(&msg, &h, long_text.buf);
	assert_string_equal(strstr(msg.buf, "\r\n\r\n") + 4 + 995, "\r\nnext\r\n");
	/* a body not cleaned, 2000 stray continuation bytes: broken at 998 all the same */
	bg_strbuf_reset(&long_text);
	for (int i = 0; i < 2000; i++)
		bg_strbuf_addch(&long_text, (char)0x80);
	bg_strbuf_reset(&msg);
	bg_mail_message(&msg, &h, long_text.buf);
	assert_int_equal(strstr(strstr(msg.buf, "\r\n\r\n") + 4, "\r\n") -
			 (strstr(msg.buf, "\r\n\r\n") + 4), 998);
	bg_strbuf_release(&long_text);
	bg_strbuf_release(&subj);
	bg_strbuf_release(&msg);
	bg_mail_addrs_release(&to);
}

/* Every line of a body at most 72 columns (µ counted once), but a lone long word. */
static void assert_body_width(const char *body)
{
	for (const char *l = body; *l;) {
		size_t n = strcspn(l, "\n"), cols = 0;

		for (size_t i = 0; i < n; i++)
			cols += ((unsigned char)l[i] & 0xc0) != 0x80;
		if (cols > BG_MAIL_BODY_COLUMNS && memchr(l, ' ', n))
			fail_msg("a line of %zu columns: %.*s", cols, (int)n, l);
		l += n + (l[n] == '\n');
	}
}

/* The LAVA jobs of a report's boots: one paragraph naming the board, only when there are. */
static void test_lab_jobs(void **state)
{
	static const char *const urls[] = { "https://lava.example.org/scheduler/job/17",
					    "https://lava.example.org/scheduler/job/18" };
	static const char *const short_urls[] = { "http://l/1", "http://l/2", "http://l/3" };
	static const struct bg_mail_patch p[] = {
		{ .idx = 1, .subject = "[PATCH 1/1] x", .status = "applied", .verdict = "same" },
	};
	struct bg_mail_bisection b;
	struct bg_mail_series se = { 0 };
	struct bg_strbuf body = BG_STRBUF_INIT;

	(void)state;
	kprobe_bisection(&b);
	b.mode = "deterministic";
	b.board = "lava-qemu-x86_64";
	b.good = b.bad = b.culprit;
	b.reporter = "bootgate <bot@ci.example.org>";
	b.closes = "https://ci.example.org/bisection/7.html";
	bg_mail_bisection_body(&body, &b);
	assert_null(strstr(body.buf, "Boots ran on"));
	bg_strbuf_reset(&body);
	b.job_urls = urls;
	b.njob_urls = 2;
	bg_mail_bisection_body(&body, &b);
	/* 72 columns exactly fit; a URL is never broken, the next goes on its own line */
	assert_non_null(strstr(body.buf, "\n\nBoots ran on lava-qemu-x86_64: "
			       "https://lava.example.org/scheduler/job/17\n"
			       "https://lava.example.org/scheduler/job/18\n\nTo reproduce:"));
	assert_body_width(body.buf);

	se.tree = "tracing";
	se.branch = "for-next";
	se.base = b.culprit;
	se.mode = "timing";
	se.board = "lava-rpi4";
	se.p = p;
	se.n = 1;
	se.reporter = b.reporter;
	se.closes = "https://ci.example.org/series/3.html";
	bg_strbuf_reset(&body);
	bg_mail_series_body(&body, &se);
	assert_null(strstr(body.buf, "Boots ran on"));
	se.job_urls = short_urls;
	se.njob_urls = 3;
	bg_strbuf_reset(&body);
	bg_mail_series_body(&body, &se);
	assert_non_null(strstr(body.buf, "\n\nBoots ran on lava-rpi4: http://l/1 http://l/2 "
			       "http://l/3\n"));
	assert_body_width(body.buf);
	bg_strbuf_release(&body);
}

/* A series that only helped: its reply quotes the kernel's lines of the patch that helped most. */
static void test_series_improvement(void **state)
{
	struct bg_mail_patch p[] = {
		{ .idx = 0, .subject = "[PATCH v2 0/2] tracing: faster" },
		{ .idx = 1, .subject = "[PATCH v2 1/2] a", .status = "applied",
		  .verdict = "improvement", .metric = "initcall.init_kprobe_trace", .delta = -732858,
		  .line_before = "initcall init_kprobe_trace+0x0/0x165 returned 0 after 770344 usecs",
		  .line_after = "initcall init_kprobe_trace+0x0/0x165 returned 0 after 37486 usecs" },
		{ .idx = 2, .subject = "[PATCH v2 2/2] b", .status = "applied", .verdict = "same" },
	};
	struct bg_mail_series se = { 0 };
	struct bg_verdict v = { .base_median = 770344, .cand_median = 37486, .delta = -732858,
				.delta_pct = -95.1 };
	struct bg_strbuf body = BG_STRBUF_INIT;

	(void)state;
	p[1].v = &v;
	se.tree = "tracing";
	se.branch = "for-next";
	se.base = "f922d84648fce4f25c2c35b03ccecbc97d184871";
	se.mode = "deterministic";
	se.board = "qemu-x86_64";
	se.p = p;
	se.n = 3;
	se.reporter = "bootgate <bot@ci.example.org>";
	se.closes = "https://ci.example.org/series/1.html";
	bg_mail_series_body(&body, &se);
	/* without the patch named, no figures are quoted */
	assert_null(strstr(body.buf, "faster"));
	bg_strbuf_reset(&body);
	se.improved = &p[1];
	bg_mail_series_body(&body, &se);
	assert_non_null(strstr(body.buf, "Patch 1/2 made initcall.init_kprobe_trace faster: "
			       "770344 -> 37486"));
	assert_non_null(strstr(body.buf, "    initcall init_kprobe_trace+0x0/0x165 returned 0 "
			       "after 770344 usecs\n  \xe2\x86\x92 initcall init_kprobe_trace+0x0/0x165 "
			       "returned 0 after 37486 usecs\n"));
	assert_body_width(body.buf);
	bg_strbuf_release(&body);
}

/*
 * A deterministic bisection confirmed in timing mode leads with what a boot pays: the
 * timing figure in the subject and the first line, the deterministic one named as the
 * exact evidence, with the ratio (the demo's tracing culprit: +723 878 µs under -icount,
 * +47 785 µs in timing mode). A full revert reads as what it restores of the regression.
 */
static void test_headline_from_timing(void **state)
{
	struct bg_mail_bisection b;
	struct bg_verdict step = { .verdict = BG_DIFFERENT, .base_median = 46110,
				   .cand_median = 769988, .delta = 723878, .delta_pct = 1569.9,
				   .exact = true };
	struct bg_verdict timing = { .verdict = BG_DIFFERENT, .base_median = 3120,
				     .cand_median = 50905, .delta = 47785, .delta_pct = 1531.6,
				     .p = 1e-6 };
	struct bg_verdict revert = { .verdict = BG_DIFFERENT, .base_median = 174211,
				     .cand_median = 183124, .delta = 8913, .delta_pct = 5.1 };
	struct bg_strbuf subj = BG_STRBUF_INIT, body = BG_STRBUF_INIT;

	(void)state;
	kprobe_bisection(&b);
	b.subject = "tracing: slow";
	b.mode = "deterministic";
	b.step = &step;
	b.timing = &timing;
	b.timing_boots = 10;
	b.revert = &revert;
	b.revert_applies = 1;
	b.regression_us = 8913;
	bg_mail_bisection_subject(&subj, &b);
	assert_string_equal(subj.buf, "[tracing:for-next] 0123456789ab tracing: slow: "
			    "initcall.init_kprobe_trace +47785 \xc2\xb5s (+1531.6%) "
			    "boot-time regression");
	bg_mail_bisection_body(&body, &b);
	assert_body_width(body.buf);
	/* the paragraphs as sentences: wrapping aside */
	for (char *c = body.buf; *c; c++)
		if (*c == '\n' && c[1] != '\n' && c > body.buf && c[-1] != '\n')
			*c = ' ';
	assert_non_null(strstr(body.buf, "initcall.init_kprobe_trace went from 3120 to 50905 "
			       "\xc2\xb5s (+47785 \xc2\xb5s, +1531.6%) in timing mode, what a boot"));
	assert_non_null(strstr(body.buf, "Deterministic mode, which counts instructions, shows "
			       "+723878 \xc2\xb5s (+1569.9%), 15.1 times that: the exact"));
	assert_non_null(strstr(body.buf, "restores 8913 \xc2\xb5s of 8913 (100%): different."));
	/* in timing mode the step itself is what a boot pays: no second figure */
	b.mode = "timing";
	b.timing = NULL;
	b.step = &timing;
	bg_strbuf_reset(&body);
	bg_mail_bisection_body(&body, &b);
	for (char *c = body.buf; *c; c++)
		if (*c == '\n' && c[1] != '\n' && c > body.buf && c[-1] != '\n')
			*c = ' ';
	assert_non_null(strstr(body.buf, "went from 3120 to 50905 \xc2\xb5s (+47785 \xc2\xb5s, "
			       "+1531.6%)."));
	assert_null(strstr(body.buf, "Deterministic mode"));
	bg_strbuf_release(&subj);
	bg_strbuf_release(&body);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_subject_injection),
		cmocka_unit_test(test_clean),
		cmocka_unit_test(test_encoded_words),
		cmocka_unit_test(test_long_subject_folded),
		cmocka_unit_test(test_name_long_or_encoded_word),
		cmocka_unit_test(test_addresses),
		cmocka_unit_test(test_trailers),
		cmocka_unit_test(test_trailers_bounded),
		cmocka_unit_test(test_wrap),
		cmocka_unit_test(test_shell_word),
		cmocka_unit_test(test_no_mail_rules),
		cmocka_unit_test(test_subject_and_message),
		cmocka_unit_test(test_from_zero),
		cmocka_unit_test(test_long_text),
		cmocka_unit_test(test_lab_jobs),
		cmocka_unit_test(test_series_improvement),
		cmocka_unit_test(test_headline_from_timing),
	};

	return cmocka_run_group_tests_name("mail", tests, NULL, NULL);
}
