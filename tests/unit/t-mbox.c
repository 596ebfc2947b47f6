/* Unit tests of the mail parser (parse/mbox.h): a format-patch series with replies and a v2. */
#include "unit.h"
#include "parse/mbox.h"
#include "util/error.h"
#include "util/strbuf.h"
#include "util/strvec.h"

/* cover + 3 patches as git send-email threads them, a reply between, patch 2 quoted-
 * printable with a CRLF line end, patch 3 from an encoded non-ASCII name */
static const char series_v1[] =
	"From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n"
	"From: Steven Rostedt <rostedt@Goodmis.ORG>\n"
	"Date: Tue, 14 Mar 2023 10:20:30 -0400\n"
	"Subject: [PATCH 0/3] tracing: Make kprobe events\n"
	" init faster\n"
	"Message-Id: <cover.1@goodmis.org>\n"
	"\n"
	"The kprobe selftest takes 230 ms at boot.\n"
	"\n"
	"base-commit: 0123456789abcdef0123456789ABCDEF01234567\n"
	"\n"
	"From 1111111111111111111111111111111111111111 Mon Sep 17 00:00:00 2001\n"
	"From: Steven Rostedt <rostedt@goodmis.org>\n"
	"Date: Tue, 14 Mar 2023 10:20:31 -0400\n"
	"Subject: [PATCH 1/3] tracing: Move the selftest to a late initcall\n"
	"Message-Id: <p1.1@goodmis.org>\n"
	"In-Reply-To: <cover.1@goodmis.org>\n"
	"References: <cover.1@goodmis.org>\n"
	"\n"
	"Defer it.\n"
	"\n"
	"Signed-off-by: Steven Rostedt <rostedt@goodmis.org>\n"
	"---\n"
	" kernel/trace/trace_kprobe.c | 2 +-\n"
	"\n"
	"diff --git a/kernel/trace/trace_kprobe.c b/kernel/trace/trace_kprobe.c\n"
	"--- a/kernel/trace/trace_kprobe.c\n"
	"+++ b/kernel/trace/trace_kprobe.c\n"
	"@@ -1 +1 @@\n"
	"-fs_initcall(init_kprobe_trace);\n"
	"+late_initcall(init_kprobe_trace);\n"
	"-- \n"
	"2.39.2\n"
	"\n"
	"From mboxrd@z Thu Jan  1 00:00:00 1970\n"
	"From: Masami Hiramatsu <mhiramat@kernel.org>\n"
	"Subject: Re: [PATCH 1/3] tracing: Move the selftest to a late initcall\n"
	"Message-Id: <reply.1@kernel.org>\n"
	"In-Reply-To: <p1.1@goodmis.org>\n"
	"\n"
	">From the look of it, fine.\n"
	"\n"
	"From 2222222222222222222222222222222222222222 Mon Sep 17 00:00:00 2001\n"
	"From: Steven Rostedt <rostedt@goodmis.org>\n"
	"Date: Tue, 14 Mar 2023 10:20:32 -0400\n"
	"Subject: [PATCH 2/3] tracing: Skip the selftest when disabled\n"
	"Message-Id: <p2.1@goodmis.org>\n"
	"In-Reply-To: <cover.1@goodmis.org>\n"
	"References: <cover.1@goodmis.org>\n"
	"MIME-Version: 1.0\n"
	"Content-Type: text/plain; charset=UTF-8\n"
	"Content-Transfer-Encoding: quoted-printable\n"
	"\n"
	"A line that is longer than the seventy-six characters quoted-printable al=\n"
	"lows, and caf=C3=A9 =3D coffee.\r\n"
	"---\n"
	"diff --git a/x b/x\n"
	"--- a/x\n"
	"+++ b/x\n"
	"@@ -1 +1 @@\n"
	"-a\n"
	"+b\n"
	"\n"
	"From 3333333333333333333333333333333333333333 Mon Sep 17 00:00:00 2001\n"
	"From: =?UTF-8?q?J=C3=B6rg?= =?UTF-8?B?IFLDtmRlbA==?= <joro@8Bytes.org>\n"
	"Date: Tue, 14 Mar 2023 10:20:33 -0400\n"
	"Subject: [PATCH 3/3] tracing: Document it\n"
	"Message-Id: <p3.1@goodmis.org>\n"
	"In-Reply-To: <cover.1@goodmis.org>\n"
	"References: <cover.1@goodmis.org>\n"
	"\n"
	"Docs.\n"
	"---\n"
	"diff --git a/y b/y\n"
	"--- a/y\n"
	"+++ b/y\n"
	"@@ -1 +1 @@\n"
	"-c\n"
	"+d\n";

static void test_series_fields(void **state)
{
	struct bg_msg *m;
	size_t n;

	(void)state;
	assert_int_equal(bg_mbox_parse("v1.mbox", series_v1, sizeof(series_v1) - 1, &m, &n), 0);
	assert_int_equal(n, 5);
	/* the cover: folded subject, mixed-case domain lowered, base-commit lowered */
	assert_string_equal(m[0].subject, "[PATCH 0/3] tracing: Make kprobe events init faster");
	assert_string_equal(m[0].title, "tracing: Make kprobe events init faster");
	assert_true(m[0].patch);
	assert_false(m[0].reply);
	assert_int_equal(m[0].idx, 0);
	assert_int_equal(m[0].total, 3);
	assert_int_equal(m[0].version, 1);
	assert_string_equal(m[0].from_addr, "rostedt@goodmis.org");
	assert_string_equal(m[0].from, "Steven Rostedt <rostedt@goodmis.org>");
	assert_string_equal(m[0].base_commit, "0123456789abcdef0123456789abcdef01234567");
	assert_string_equal(m[0].message_id, "cover.1@goodmis.org");
	assert_int_equal(m[0].line, 2);
	/* 2023-03-14 14:20:30 UTC */
	assert_int_equal(m[0].when, 1678803630);
	assert_int_equal(m[0].tz_minutes, -240);
	assert_string_equal(m[0].date, "Tue, 14 Mar 2023 10:20:30 -0400");
	/* patch 1: threading */
	assert_string_equal(m[1].in_reply_to, "cover.1@goodmis.org");
	assert_int_equal(m[1].nreferences, 1);
	assert_string_equal(m[1].references[0], "cover.1@goodmis.org");
	assert_int_equal(m[1].idx, 1);
	assert_null(m[1].base_commit);
	assert_int_equal(m[1].line, 13);
	/* the message as it came, without its "From " line */
	assert_true(!strncmp(series_v1 + m[1].raw_off, "From: Steven Rostedt", 20));
	assert_true(!strncmp(series_v1 + m[1].raw_off + m[1].raw_len - 7, "2.39.2\n", 7));
	assert_int_equal(m[4].raw_off + m[4].raw_len, sizeof(series_v1) - 1);
	/* the reply: Re: is no patch, and its >From is unquoted */
	assert_false(m[2].patch);
	assert_true(m[2].reply);
	assert_string_equal(m[2].body, "From the look of it, fine.\n");
	assert_null(m[2].date);
	assert_int_equal(m[2].when, 0);
	/* quoted-printable: soft break joined, =XX decoded, CRLF made LF */
	assert_non_null(strstr(m[3].body, "seventy-six characters quoted-printable allows, and "
					  "caf\xc3\xa9 = coffee.\n---\n"));
	/* adjacent encoded words joined, Q and B */
	assert_string_equal(m[4].from_name, "J\xc3\xb6rg R\xc3\xb6" "del");
	assert_string_equal(m[4].from, "J\xc3\xb6rg R\xc3\xb6" "del <joro@8bytes.org>");
	bg_msgs_free(m, n);
}

static void test_patch_split(void **state)
{
	struct bg_msg *m;
	size_t n, ml, dl;
	const char *msg, *diff;
	char *from, *date;

	(void)state;
	assert_int_equal(bg_mbox_parse("v1.mbox", series_v1, sizeof(series_v1) - 1, &m, &n), 0);
	assert_int_equal(bg_msg_patch(&m[1], &msg, &ml, &diff, &dl, &from, &date), 0);
	assert_int_equal(ml, strlen("Defer it.\n\nSigned-off-by: Steven Rostedt <rostedt@goodmis.org>"));
	assert_memory_equal(msg, "Defer it.\n\nSigned-off-by: Steven Rostedt <rostedt@goodmis.org>", ml);
	assert_true(dl > 11 && !memcmp(diff, "diff --git a/kernel/", 20));
	/* the signature is not part of the diff */
	assert_memory_equal(diff + dl - 35, "+late_initcall(init_kprobe_trace);\n", 35);
	assert_null(from);
	assert_null(date);
	/* the cover has no diff */
	assert_int_equal(bg_msg_patch(&m[0], &msg, &ml, &diff, &dl, &from, &date), -1);
	assert_string_equal(bg_error_last(), "v1.mbox: patch 0/3 has no diff");
	bg_msgs_free(m, n);
}

static void test_forwarded_pseudo_headers(void **state)
{
	static const char mail[] =
		"From: Maintainer <m@example.org>\n"
		"Subject: [PATCH] x: y\n"
		"\n"
		"From: =?ISO-8859-1?Q?Andr=E9?= <andre@example.org>\n"
		"Date: Mon, 1 Jan 2024 00:00:00 +0000\n"
		"\n"
		"Body.\n"
		"---\n"
		"diff --git a/z b/z\n";
	struct bg_msg m;
	const char *msg, *diff;
	size_t ml, dl;
	char *from, *date;

	(void)state;
	assert_int_equal(bg_msg_parse("fwd.eml", mail, sizeof(mail) - 1, &m), 0);
	assert_int_equal(m.idx, 1);
	assert_int_equal(m.total, 1);
	assert_int_equal(bg_msg_patch(&m, &msg, &ml, &diff, &dl, &from, &date), 0);
	assert_string_equal(from, "Andr\xc3\xa9 <andre@example.org>");
	assert_string_equal(date, "Mon, 1 Jan 2024 00:00:00 +0000");
	assert_int_equal(ml, 5);
	assert_memory_equal(msg, "Body.", 5);
	assert_int_equal(dl, strlen("diff --git a/z b/z\n"));
	free(from);
	free(date);
	bg_msg_release(&m);
}

struct subj {
	const char *subject;
	bool patch, reply;
	unsigned version, idx, total;
	const char *title;
};

/* m read as the case says its subject reads */
static void assert_subject(const struct bg_msg *m, const struct subj *c)
{
	assert_int_equal(m->patch, c->patch);
	assert_int_equal(m->reply, c->reply);
	assert_int_equal(m->version, c->version);
	assert_int_equal(m->idx, c->idx);
	assert_int_equal(m->total, c->total);
	assert_string_equal(m->title, c->title);
}

static void test_subject_grammar(void **state)
{
	static const struct subj cases[] = {
		{ "[PATCH] a: b", true, false, 1, 1, 1, "a: b" },
		{ "[PATCH v5 2/3] a: b", true, false, 5, 2, 3, "a: b" },
		{ "[RFC PATCH net-next v2 0/7] net: x", true, false, 2, 0, 7, "net: x" },
		{ "[PATCH 02/10] mm: y", true, false, 1, 2, 10, "mm: y" },
		{ "[PATCHv3 1/1] z", true, false, 3, 1, 1, "z" },
		{ "[RFC][PATCH V4 3/4] w", true, false, 4, 3, 4, "w" },
		{ "Re: [PATCH v2 1/2] a: b", false, true, 2, 1, 2, "a: b" },
		{ "AW: RE: [PATCH] a", false, true, 1, 1, 1, "a" },
		{ "Fwd: [PATCH] a", false, false, 1, 1, 1, "a" },
		{ "[GIT PULL] tracing fixes", false, false, 1, 1, 1, "tracing fixes" },
		{ "[PATCH 6.1 012/345] stable: fix", true, false, 1, 12, 345, "stable: fix" },
		{ "plain words", false, false, 1, 1, 1, "plain words" },
		{ "=?utf-8?q?=5BPATCH_v2_1/2=5D_caf=C3=A9?=", true, false, 2, 1, 2, "caf\xc3\xa9" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char *mail = xasprintf("From: a@b\nSubject: %s\n\nx\n", cases[i].subject);
		struct bg_msg m;

		assert_int_equal(bg_msg_parse("s", mail, strlen(mail), &m), 0);
		assert_subject(&m, &cases[i]);
		bg_msg_release(&m);
		free(mail);
	}
}

static void test_encoded_words(void **state)
{
	static const char mail[] =
		"From: \"Doe, =?iso-8859-1?q?J=FCrgen?=\" <J@Example.COM>\n"
		"Subject: =?UTF-8?B?w6k=?= =?UTF-8?B?w6k=?= plain =?ISO-8859-1?Q?=E9?=\n"
		"  =?utf-8?q?a=0D=0ABcc:_x@y?=\n"
		"\n";
	struct bg_msg m;

	(void)state;
	assert_int_equal(bg_msg_parse("e", mail, sizeof(mail) - 1, &m), 0);
	/* adjacent words joined, a space before plain text kept, CR/LF made spaces */
	assert_string_equal(m.subject, "\xc3\xa9\xc3\xa9 plain \xc3\xa9" "a  Bcc: x@y");
	assert_string_equal(m.from_name, "Doe, J\xc3\xbcrgen");
	assert_string_equal(m.from_addr, "J@example.com");
	assert_null(m.message_id);
	assert_int_equal(m.body_len, 0);
	bg_msg_release(&m);
}

static void test_multipart(void **state)
{
	static const char mail[] =
		"From: a@b.c\n"
		"Subject: [PATCH 1/1] attach\n"
		"Content-Type: multipart/mixed; boundary=\"==outer==\"\n"
		"\n"
		"preamble\n"
		"--==outer==\n"
		"Content-Type: multipart/alternative; boundary=inner\n"
		"\n"
		"--inner\n"
		"Content-Type: text/html\n"
		"\n"
		"<p>html</p>\n"
		"--inner\n"
		"Content-Type: text/plain; charset=iso-8859-1\n"
		"Content-Transfer-Encoding: base64\n"
		"\n"
		"VGV4dCDpCg==\n"
		"--inner--\n"
		"--==outer==\n"
		"Content-Type: text/x-patch; name=\"0001-a.patch\"\n"
		"Content-Disposition: attachment; filename=\"0001-a.patch\"\n"
		"Content-Transfer-Encoding: quoted-printable\n"
		"\n"
		"diff --git a/q b/q\n"
		"+x=3Dy\n"
		"--==outer==--\n"
		"epilogue\n";
	struct bg_msg m;

	(void)state;
	assert_int_equal(bg_msg_parse("mp", mail, sizeof(mail) - 1, &m), 0);
	/* the plain part (latin-1 made UTF-8), then the patch attachment */
	assert_string_equal(m.body, "Text \xc3\xa9\ndiff --git a/q b/q\n+x=y\n");
	bg_msg_release(&m);
}

static void test_dates(void **state)
{
	static const struct { const char *date; int64_t when; int tz; } cases[] = {
		{ "Thu, 1 Jan 1970 00:00:00 +0000", 0, 0 },
		{ "1 Jan 2000 01:02 -0700", 946713720, -420 },
		{ "Sat, 29 Feb 2020 23:59:59 +0530", 1583000999, 330 },
		{ "Mon, 3 Apr 23 10:00:00 GMT", 1680516000, 0 },
		{ "Mon, 3 Apr 2023 10:00:00 PDT", 1680541200, -420 },
		{ "yesterday", 0, 0 },
		{ "Mon, 32 Apr 2023 10:00:00 +0000", 0, 0 },
		{ "Mon, 3 Apr 2023 25:00:00 +0000", 0, 0 },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char *mail = xasprintf("From: a@b\nDate: %s\n\n", cases[i].date);
		struct bg_msg m;

		assert_int_equal(bg_msg_parse("d", mail, strlen(mail), &m), 0);
		assert_int_equal(m.when, cases[i].when);
		assert_int_equal(m.tz_minutes, cases[i].tz);
		bg_msg_release(&m);
		free(mail);
	}
}

static void expect_refusal(const char *mail, size_t len, const char *error)
{
	struct bg_msg *m;
	size_t n;

	if (len == SIZE_MAX)
		len = strlen(mail);
	assert_int_equal(bg_mbox_parse("bad.mbox", mail, len, &m, &n), -1);
	assert_null(m);
	assert_int_equal(n, 0);
	assert_string_equal(bg_error_last(), error);
}

static void test_hostile(void **state)
{
	struct bg_strbuf sb = BG_STRBUF_INIT;
	char *big;

	(void)state;
	expect_refusal("", SIZE_MAX, "bad.mbox:1: no message");
	expect_refusal("no colon here\n\nbody\n", SIZE_MAX, "bad.mbox:1: not a header line");
	expect_refusal("\n\nbody\n", SIZE_MAX, "bad.mbox:1: no header");
	expect_refusal("From: a\nSubject: [PATCH 1/1000] x\n\n", SIZE_MAX,
		       "bad.mbox:2: patch 1/1000: a series of 1 to 999 patches");
	/* a stray 3/2 is read, but a 5000/2 is none: every idx fits a series' bounds */
	expect_refusal("From: a\nSubject: [PATCH 5000/2] x\n\n", SIZE_MAX,
		       "bad.mbox:2: patch 5000/2: a series of 1 to 999 patches");
	/* a sign is no way out of the bounds: -1/2 is not read as an unnumbered patch */
	expect_refusal("From: a\nSubject: [PATCH -1/2] a\n\n", SIZE_MAX,
		       "bad.mbox:2: patch -1/2: a series of 1 to 999 patches");
	expect_refusal("From: a\nSubject: [PATCH 1/-2] a\n\n", SIZE_MAX,
		       "bad.mbox:2: patch 1/-2: a series of 1 to 999 patches");
	expect_refusal("From: a\nSubject: [PATCH 1/0] x\n\n", SIZE_MAX,
		       "bad.mbox:2: patch 1/0: a series of 1 to 999 patches");
	expect_refusal("From: a\nSubject: [PATCH v99999999999 1/2] x\n\n", SIZE_MAX,
		       "bad.mbox:2: version v99999999999 is not from 1 to 999");
	expect_refusal("From: a\nSubject: [PATCH v0] x\n\n", SIZE_MAX,
		       "bad.mbox:2: version v0 is not from 1 to 999");
	expect_refusal("From: a\0b\n\n", 11, "bad.mbox:1: message holds a NUL byte");
	/* the second message of an mbox is truncated to a broken header: its line named */
	expect_refusal("From x Mon Sep 17 00:00:00 2001\nFrom: a\n\nok\n\n"
		       "From y Mon Sep 17 00:00:00 2001\nbroken\n", SIZE_MAX,
		       "bad.mbox:7: not a header line");
	/* one header over 64 KiB after unfolding */
	bg_strbuf_addstr(&sb, "From: a\nSubject: x\n");
	for (int i = 0; i < 70; i++) {
		bg_strbuf_addch(&sb, ' ');
		for (int k = 0; k < 1023; k++)
			bg_strbuf_addch(&sb, 'y');
		bg_strbuf_addch(&sb, '\n');
	}
	bg_strbuf_addch(&sb, '\n');
	expect_refusal(sb.buf, sb.len, "bad.mbox:2: header line longer than 65536 bytes");
	/* 1001 MIME parts */
	bg_strbuf_reset(&sb);
	bg_strbuf_addstr(&sb, "From: a\nContent-Type: multipart/mixed; boundary=b\n\n");
	for (int i = 0; i < 1001; i++)
		bg_strbuf_addstr(&sb, "--b\n\nx\n");
	bg_strbuf_addstr(&sb, "--b--\n");
	expect_refusal(sb.buf, sb.len, "bad.mbox:3002: more than 1000 MIME parts");
	bg_strbuf_release(&sb);
	/* over 16 MiB */
	big = xcalloc(1, BG_MSG_MAX + 2);
	memcpy(big, "From: a\n\n", 9);
	memset(big + 9, 'z', BG_MSG_MAX - 8);
	expect_refusal(big, BG_MSG_MAX + 1, "bad.mbox:1: message larger than 16777216 bytes");
	free(big);
}

/* v1 (above), then v2 as a new thread in reply to v1's cover: only v2 is complete-newest */
static const char series_v2[] =
	"From x Mon Sep 17 00:00:00 2001\n"
	"From: Steven Rostedt <rostedt@goodmis.org>\n"
	"Subject: [PATCH v2 0/2] tracing: Make kprobe events init faster\n"
	"Message-Id: <cover.2@goodmis.org>\n"
	"In-Reply-To: <cover.1@goodmis.org>\n"
	"\n"
	"v2: fewer patches.\n"
	"\n"
	"From x Mon Sep 17 00:00:00 2001\n"
	"From: Steven Rostedt <rostedt@goodmis.org>\n"
	"Subject: [PATCH v2 2/2] tracing: b\n"
	"Message-Id: <p2.2@goodmis.org>\n"
	"In-Reply-To: <p1.2@goodmis.org>\n"
	"\n"
	"x\n"
	"\n"
	"From x Mon Sep 17 00:00:00 2001\n"
	"From: Other <other@example.org>\n"
	"Subject: Re: [PATCH v2 0/2] tracing: Make kprobe events init faster\n"
	"Message-Id: <r.2@example.org>\n"
	"In-Reply-To: <cover.2@goodmis.org>\n"
	"\n"
	"Ack.\n"
	"\n"
	"From x Mon Sep 17 00:00:00 2001\n"
	"From: Steven Rostedt <rostedt@goodmis.org>\n"
	"Subject: [PATCH v2 1/2] tracing: a\n"
	"Message-Id: <p1.2@goodmis.org>\n"
	"In-Reply-To: <cover.2@goodmis.org>\n"
	"\n"
	"x\n";

static void test_assemble(void **state)
{
	struct bg_strbuf both = BG_STRBUF_INIT;
	struct bg_msg *m;
	struct bg_series_msgs *s;
	size_t n, ns;

	(void)state;
	/* v1 alone: one complete series of 3 with its cover, the reply ignored */
	assert_int_equal(bg_mbox_parse("v1", series_v1, sizeof(series_v1) - 1, &m, &n), 0);
	assert_int_equal(bg_series_assemble(m, n, &s, &ns), 0);
	assert_int_equal(ns, 1);
	assert_int_equal(s[0].total, 3);
	assert_int_equal(s[0].version, 1);
	assert_ptr_equal(s[0].cover, &m[0]);
	assert_ptr_equal(s[0].patches[0], &m[1]);
	assert_ptr_equal(s[0].patches[1], &m[3]);
	assert_ptr_equal(s[0].patches[2], &m[4]);
	bg_series_msgs_free(s, ns);
	/* without patch 2 nothing is complete */
	assert_int_equal(bg_series_assemble(m, 3, &s, &ns), 0);
	assert_int_equal(ns, 0);
	bg_series_msgs_free(s, ns);
	bg_msgs_free(m, n);

	/* v1 then v2 (threaded under v1's cover, patch 2 chained to patch 1): v2 only */
	bg_strbuf_add(&both, series_v1, sizeof(series_v1) - 1);
	bg_strbuf_addstr(&both, "\n");
	bg_strbuf_add(&both, series_v2, sizeof(series_v2) - 1);
	assert_int_equal(bg_mbox_parse("both", both.buf, both.len, &m, &n), 0);
	assert_int_equal(n, 9);
	assert_int_equal(bg_series_assemble(m, n, &s, &ns), 0);
	assert_int_equal(ns, 1);
	assert_int_equal(s[0].version, 2);
	assert_int_equal(s[0].total, 2);
	assert_string_equal(s[0].cover->message_id, "cover.2@goodmis.org");
	assert_string_equal(s[0].patches[0]->message_id, "p1.2@goodmis.org");
	assert_string_equal(s[0].patches[1]->message_id, "p2.2@goodmis.org");
	{
		char *key = bg_series_key(&s[0]);

		assert_string_equal(key, "rostedt@goodmis.org\ntracing: Make kprobe events init faster");
		free(key);
	}
	bg_series_msgs_free(s, ns);
	bg_msgs_free(m, n);
	bg_strbuf_release(&both);
}

/* patches whose cover never arrived still group by the cover they answer */
static void test_assemble_missing_cover(void **state)
{
	static const char two_mail[] =
		"From: a@b\nSubject: [PATCH 2/2] two\nMessage-Id: <2@b>\nIn-Reply-To: <0@b>\n\n";
	static const char one_mail[] =
		"From: a@b\nSubject: [PATCH 1/2] one\nMessage-Id: <1@b>\nIn-Reply-To: <0@b>\n\n";
	static const char single[] = "From: a@b\nSubject: [PATCH] one\nMessage-Id: <s@b>\n\n";
	struct bg_msg two[2], *m;
	struct bg_series_msgs *s;
	size_t n, ns;

	(void)state;
	assert_int_equal(bg_msg_parse("a", two_mail, strlen(two_mail), &two[0]), 0);
	assert_int_equal(bg_msg_parse("b", one_mail, strlen(one_mail), &two[1]), 0);
	assert_int_equal(bg_series_assemble(two, 2, &s, &ns), 0);
	assert_int_equal(ns, 1);
	assert_null(s[0].cover);
	assert_ptr_equal(s[0].patches[0], &two[1]);
	assert_ptr_equal(s[0].patches[1], &two[0]);
	bg_series_msgs_free(s, ns);
	/* patch 2 alone is not a series */
	assert_int_equal(bg_series_assemble(two, 1, &s, &ns), 0);
	assert_int_equal(ns, 0);
	bg_series_msgs_free(s, ns);
	bg_msg_release(&two[0]);
	bg_msg_release(&two[1]);
	/* a bare message (no "From " line) is one message, and a single patch a series */
	assert_int_equal(bg_mbox_parse("one", single, sizeof(single) - 1, &m, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(bg_series_assemble(m, n, &s, &ns), 0);
	assert_int_equal(ns, 1);
	assert_int_equal(s[0].total, 1);
	assert_null(s[0].cover);
	assert_ptr_equal(s[0].patches[0], &m[0]);
	bg_series_msgs_free(s, ns);
	bg_msgs_free(m, n);
}

/* a patch mail of the given subject (and From:), with a diff */
static void read_patch(const char *from, const char *subject, struct bg_msg *m)
{
	char *mail = xasprintf("From: %s\nSubject: %s\n\nwhy\n---\ndiff --git a/x b/x\n", from,
			       subject);

	assert_int_equal(bg_msg_parse("s", mail, strlen(mail), m), 0);
	free(mail);
}

/* the tags the lists write besides [PATCH vN M/N], as b4 and patchwork read them */
static void test_subject_forms(void **state)
{
	static const struct subj cases[] = {
		{ "[RFC v2 0/4] a: b", true, false, 2, 0, 4, "a: b" },
		{ "[RFC 0/7] a: b", true, false, 1, 0, 7, "a: b" },
		{ "[RFC PATCH] a: b", true, false, 1, 1, 1, "a: b" },
		{ "[RFC] a: b", true, false, 1, 1, 1, "a: b" },
		{ "[PATCH net-next v2 1/2] a: b", true, false, 2, 1, 2, "a: b" },
		{ "[net,v2,1/2] a: b", true, false, 2, 1, 2, "a: b" },
		{ "[PATCH 1 of 2] a: b", true, false, 1, 1, 2, "a: b" },
		{ "[PATCH 0 of 2] a", true, false, 1, 0, 2, "a" },
		{ "[Patch 2/2]: a: b", true, false, 1, 2, 2, "a: b" },
		{ "[PATCH 3/2] a", true, false, 1, 3, 2, "a" },
		{ "[GIT PULL] a", false, false, 1, 1, 1, "a" },
		{ "[ANNOUNCE] v6.1", false, false, 1, 1, 1, "v6.1" },
	};
	struct bg_msg m;
	static const char talk[] = "From: a@b\nSubject: [RFC] an idea\n\nno diff here\n";

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		read_patch("a@b", cases[i].subject, &m);
		assert_subject(&m, &cases[i]);
		bg_msg_release(&m);
	}
	/* an RFC without a diff is talk, not a patch */
	assert_int_equal(bg_msg_parse("t", talk, sizeof(talk) - 1, &m), 0);
	assert_false(m.patch);
	bg_msg_release(&m);
}

struct name_case {
	const char *mail;
	const char *name, *addr, *subject;   /* author_name, author_addr, commit_subject */
};

/* author and subject as git mailinfo reads them (git's t5100 has the same forms) */
static void test_names(void **state)
{
	static const struct name_case cases[] = {
		{ "From: <an@Example.org> (Ann Other)\nSubject: [PATCH] x\n\n",
		  "Ann Other", "an@Example.org", "x" },
		{ "From: an@example.org (Ann Other)\nSubject: x\n\n",
		  "Ann Other", "an@example.org", "x" },
		{ "From: Ann   (nick)\n   Other <an@example.org> (work)\nSubject: x\n\n",
		  "Ann (nick) Other (work)", "an@example.org", "x" },
		{ "From: \"Other, Ann\" <an@example.org>\nSubject: Re: [PATCH]  a \n  b\n\n",
		  "Other, Ann", "an@example.org", "a b" },
		{ "From: an@example.org\nSubject: x\n\n", "an@example.org", "an@example.org", "x" },
		/* in-body headers: after blank lines, folded, the first of each kind */
		{ "From: a <a@b>\nSubject: [PATCH] outer\n\n\nFrom: Real\n <real@example.org>\n"
		  "Subject: inner\n\tfolded\n\nbody\n---\ndiff --git a/x b/x\n",
		  "Real", "real@example.org", "inner folded" },
		{ "From: a <a@b>\nSubject: Re: talk\n\n[PATCH] the fix\n\nbody\n---\n",
		  "a", "a@b", "the fix" },
		{ "From: a <a@b>\n\nsubject: [PATCH v2] only here\n\nbody\nIndex: x\n", "a",
		  "a@b", "only here" },
		/* ... only in a mail that holds a patch: a cover letter's are text */
		{ "From: a <a@b>\nSubject: [PATCH 0/2] s\n\nFrom: Real <real@example.org>\n\n"
		  "-- \n2.39\n", "a", "a@b", "s" },
		/* an in-body From: with no address leaves none: git am refuses such a patch */
		{ "From: a <a@b>\nSubject: x\n\nFrom: bogus\n  - a list\n---\n", "", "", "x" },
		/* a name git would not take stands aside for the address */
		{ "From: a@b.c <a@b.c>\nSubject: x\n\n", "a@b.c", "a@b.c", "x" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct bg_msg m;

		assert_int_equal(bg_msg_parse("n", cases[i].mail, strlen(cases[i].mail), &m), 0);
		assert_string_equal(m.author_name, cases[i].name);
		assert_string_equal(m.author_addr, cases[i].addr);
		assert_string_equal(m.commit_subject, cases[i].subject);
		bg_msg_release(&m);
	}
}

/* the one series of mbox, its patches' Message-Ids joined by spaces; "" when not one */
static char *one_series(const char *mbox)
{
	struct bg_strbuf sb = BG_STRBUF_INIT;
	struct bg_series_msgs *s;
	struct bg_msg *m;
	size_t n, ns;

	assert_int_equal(bg_mbox_parse("drop", mbox, strlen(mbox), &m, &n), 0);
	assert_int_equal(bg_series_assemble(m, n, &s, &ns), 0);
	if (ns == 1) {
		bg_strbuf_addf(&sb, "v%u%s:", s[0].version, s[0].cover ? "+cover" : "");
		for (unsigned k = 0; k < s[0].total; k++)
			bg_strbuf_addf(&sb, " %s", s[0].patches[k]->message_id);
	}
	bg_series_msgs_free(s, ns);
	bg_msgs_free(m, n);
	return bg_strbuf_detach(&sb, NULL);
}

struct drop_mail {
	const char *from, *date, *subject, *id, *refs;   /* refs NULL: answers nothing */
};

#define D0 "Tue, 23 May 2017 10:15:11 -0500"
#define D1 "Tue, 23 May 2017 10:15:44 -0500"
#define DAY "Wed, 24 May 2017 23:15:44 -0500"

/* drop files as patchwork and b4 read them: the series each one gives */
static void test_drop_files(void **state)
{
	static const struct {
		const char *what, *expect;
		struct drop_mail m[5];
	} cases[] = {
		{ "a stray 3/2 does not sink the file", "v1+cover: p1 p2",
		  { { "a@b", D0, "[PATCH 0/2] s", "c", NULL },
		    { "a@b", D0, "[PATCH 1/2] one", "p1", "c" },
		    { "a@b", D0, "[PATCH 2/2] two", "p2", "c" },
		    { "a@b", D0, "[PATCH 3/2] three", "p3", "c" } } },
		{ "v1 with a cover, then v2 without one: v2", "v2: q1 q2",
		  { { "a@b", D0, "[PATCH 0/2] s", "c", NULL },
		    { "a@b", D0, "[PATCH 1/2] one", "p1", "c" },
		    { "a@b", D0, "[PATCH 2/2] two", "p2", "c" },
		    { "a@b", D1, "[PATCH v2 1/2] one", "q1", NULL },
		    { "a@b", D1, "[PATCH v2 2/2] two", "q2", "q1" } } },
		{ "no References: by sender, version and total, the cover too", "v1+cover: p1 p2",
		  { { "a@b", D0, "[PATCH 0/2] s", "c", NULL },
		    { "a@b", D0, "[PATCH 1/2] one", "p1", NULL },
		    { "a@b", D1, "[Patch 2/2]: two", "p2", NULL } } },
		{ "... but not another sender's, nor one sent a day later", "",
		  { { "a@b", D0, "[net,v2,1/2] one", "p1", NULL },
		    { "x@y", D0, "[net,v2,2/2] two", "x2", NULL },
		    { "a@b", DAY, "[net,v2,2/2] two", "p2", NULL } } },
		{ "the same series sent twice without References: the later", "v2: q1 q2",
		  { { "a@b", D0, "[net,v2,1/2] one", "p1", NULL },
		    { "a@b", D0, "[net,v2,2/2] two", "p2", NULL },
		    { "a@b", D1, "[net,v2,1/2] one", "q1", NULL },
		    { "a@b", D1, "[net,v2,2/2] two", "q2", NULL } } },
		{ "a v3 cover whose patches forgot their version", "v3+cover: p1 p2",
		  { { "a@b", D0, "[PATCH net-next v3 0/2] s", "c", NULL },
		    { "a@b", D0, "[PATCH 1/2] one", "p1", "c" },
		    { "a@b", D0, "[PATCH 2/2] two", "p2", "c" } } },
		{ "Mercurial's patchbomb", "v1+cover: p1 p2",
		  { { "a@b", D0, "[PATCH 0 of 2] s", "c", NULL },
		    { "a@b", D0, "[PATCH 1 of 2] one", "p1", "c" },
		    { "a@b", D0, "[PATCH 2 of 2] two", "p2", "c" } } },
	};
	struct bg_strbuf sb = BG_STRBUF_INIT;
	char *got;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		bg_strbuf_reset(&sb);
		/* blank lines before the first "From " line, as git mailsplit allows */
		bg_strbuf_addstr(&sb, i ? "" : "    \n\t\n\n");
		for (size_t k = 0; k < ARRAY_SIZE(cases[i].m) && cases[i].m[k].from; k++) {
			const struct drop_mail *d = &cases[i].m[k];

			bg_strbuf_addf(&sb, "From x Mon Sep 17 00:00:00 2001\nFrom: %s\nDate: %s\n"
				       "Subject: %s\nMessage-Id: <%s>\n", d->from, d->date,
				       d->subject, d->id);
			if (d->refs)
				bg_strbuf_addf(&sb, "In-Reply-To: <%s>\nReferences: <%s>\n", d->refs,
					       d->refs);
			bg_strbuf_addstr(&sb, "\nwhy\n---\ndiff --git a/x b/x\n\n");
		}
		got = one_series(sb.buf);
		if (strcmp(got, cases[i].expect))
			print_error("%s: got '%s'\n", cases[i].what, got);
		assert_string_equal(got, cases[i].expect);
		free(got);
	}
	bg_strbuf_release(&sb);
}

/* one mail of a patch without a thread, from the same sender: MBOX_MAIL(subject, body line) */
#define MBOX_MAIL(subject, extra)                                                        \
	"From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n"        \
	"From: A <a@example.org>\n"                                                       \
	"Date: Tue, 1 Dec 2026 18:31:49 +0000\n"                                          \
	"Subject: " subject "\n"                                                          \
	"\n"                                                                              \
	"x\n" extra "---\n"                                                                \
	"diff --git a/f b/f\n"                                                            \
	"--- a/f\n"                                                                       \
	"+++ b/f\n"                                                                       \
	"@@ -1 +1 @@\n"                                                                  \
	"-a\n"                                                                            \
	"+b\n"                                                                            \
	"\n"

/* What assembling passes over without a word: another 1/2, a stray 3/2, a base-commit
 * that is no commit id; each named at its line, for the caller to warn of. */
static void test_series_notes(void **state)
{
	static const char mbox[] = MBOX_MAIL("[PATCH 1/2] one", "")
		MBOX_MAIL("[PATCH 1/2] one again", "base-commit: ../../etc/passwd\n")
		MBOX_MAIL("[PATCH 2/2] two", "")
		MBOX_MAIL("[PATCH 3/2] three", "");
	struct bg_strvec notes = BG_STRVEC_INIT;
	struct bg_msg *m;
	struct bg_series_msgs *s;
	size_t n, ns;

	(void)state;
	assert_int_equal(bg_mbox_parse("x.mbox", mbox, sizeof(mbox) - 1, &m, &n), 0);
	assert_int_equal(n, 4);
	assert_int_equal(bg_series_assemble(m, n, &s, &ns), 0);
	assert_int_equal(ns, 1);
	assert_null(s[0].patches[0]->base_commit);
	bg_series_notes(mbox, sizeof(mbox) - 1, m, n, &s[0], &notes);
	assert_int_equal(notes.n, 3);
	assert_string_equal(notes.v[0], "x.mbox:21: base-commit '../../etc/passwd' is no commit "
			    "id (40 or 64 hex digits): not taken");
	assert_string_equal(notes.v[1], "x.mbox:2: another patch 1/2 (the one at line 16 is "
			    "taken): left out");
	assert_string_equal(notes.v[2], "x.mbox:45: patch 3/2 is past the series' end: left out");
	bg_strvec_release(&notes);
	bg_series_msgs_free(s, ns);
	bg_msgs_free(m, n);

	/* the same mail twice (an archive's copy) is no second patch */
	{
		static const char twice[] = MBOX_MAIL("[PATCH 1/1] one", "")
			MBOX_MAIL("[PATCH 1/1] one", "");

		assert_int_equal(bg_mbox_parse("x.mbox", twice, sizeof(twice) - 1, &m, &n), 0);
		assert_int_equal(bg_series_assemble(m, n, &s, &ns), 0);
		assert_int_equal(ns, 1);
		bg_series_notes(twice, sizeof(twice) - 1, m, n, &s[0], &notes);
		assert_int_equal(notes.n, 0);
		bg_strvec_release(&notes);
		bg_series_msgs_free(s, ns);
		bg_msgs_free(m, n);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_series_fields),
		cmocka_unit_test(test_patch_split),
		cmocka_unit_test(test_forwarded_pseudo_headers),
		cmocka_unit_test(test_subject_grammar),
		cmocka_unit_test(test_encoded_words),
		cmocka_unit_test(test_multipart),
		cmocka_unit_test(test_dates),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_assemble),
		cmocka_unit_test(test_assemble_missing_cover),
		cmocka_unit_test(test_subject_forms),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_drop_files),
		cmocka_unit_test(test_series_notes),
	};

	return cmocka_run_group_tests_name("mbox", tests, NULL, NULL);
}
