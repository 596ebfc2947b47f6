/*
 * Unit tests of the inbox follower (lab/inbox.h) on real repositories in public-inbox's
 * v2 layout made with git itself, and a real store: a series is made only when its last
 * patch arrives, the cursor reads nothing twice, a v2 supersedes v1, a v1 after its v2
 * is superseded at once, deleted and malformed mails are counted, and the drop directory
 * moves what it took and what it refused.
 */
#include <sys/stat.h>

#include "unit.h"
#include "ci/inbox.h"
#include "util/sha.h"
#include "store/store.h"
#include "util/error.h"
#include "util/strbuf.h"

static char *top;
static struct bg_store *st;
static int64_t tree_id;

#define GIT "git -c user.name=t -c user.email=t@localhost -c init.defaultBranch=master"

#define run unit_run

/* One message posted as public-inbox does: a commit whose tree is the file m alone. */
static void post(const char *repo, const char *text)
{
	char *m = bg_path_join(repo, "m");

	assert_int_equal(bg_write_file(m, text, strlen(text)), 0);
	run("cd '%s' && " GIT " add m && " GIT " commit -q -m msg", repo);
	free(m);
}

/* public-inbox v2 takes a message out with a commit that holds d instead of m */
static void delete_message(const char *repo)
{
	run("cd '%s' && " GIT " rm -q m && echo x >d && " GIT " add d && " GIT " commit -q -m rm "
	    "&& " GIT " rm -q d && " GIT " commit -q -m clean", repo);
}

static char *patch_mail(const char *id, const char *reply_to, unsigned v, unsigned idx,
			unsigned total, const char *title, const char *from)
{
	char vtag[16] = "";

	if (v > 1)
		snprintf(vtag, sizeof(vtag), " v%u", v);
	return xasprintf("From: %s\nSubject: [PATCH%s %u/%u] %s\nMessage-ID: <%s>\n%s%s%s"
			 "Date: Tue, 14 Mar 2023 10:20:3%u -0400\n\n%s\n---\n"
			 "diff --git a/f%u b/f%u\n--- a/f%u\n+++ b/f%u\n@@ -1 +1 @@\n-a\n+b\n",
			 from, vtag, idx, total, title, id, reply_to ? "In-Reply-To: <" : "",
			 reply_to ? reply_to : "", reply_to ? ">\n" : "", idx,
			 idx ? "Signed-off-by: Steven Rostedt <rostedt@goodmis.org>"
			     : "base-commit: 0123456789abcdef0123456789abcdef01234567",
			 idx, idx, idx, idx);
}

static void post_patch(const char *repo, const char *id, const char *reply_to, unsigned v,
		       unsigned idx, unsigned total, const char *title)
{
	char *m = patch_mail(id, reply_to, v, idx, total, title, "Steven Rostedt <rostedt@goodmis.org>");

	post(repo, m);
	free(m);
}

static int setup(void **state)
{
	char *db;

	(void)state;
	top = unit_scratch_dir("t-inbox");
	if (!top)
		return -1;
	db = bg_path_join(top, "bootgate.db");
	if (bg_store_open(db, &st) < 0 ||
	    bg_store_exec(st, "INSERT INTO trees (name, path) VALUES ('tracing', '/nowhere')", "") < 0)
		return -1;
	tree_id = bg_store_last_id(st);
	free(db);
	return 0;
}

static int teardown(void **state)
{
	char *cmd = xasprintf("rm -rf '%s'", top);
	int ret = system(cmd);

	(void)state;
	bg_store_close(st);
	free(cmd);
	free(top);
	return ret ? -1 : 0;
}

static int64_t count(const char *sql)
{
	int64_t n = -1;

	assert_int_equal(bg_store_int(st, -1, &n, sql, ""), 0);
	return n;
}

static char *text(const char *sql)
{
	char *s = NULL;

	assert_int_equal(bg_store_text(st, &s, sql, ""), 0);
	return s;
}

static void follow(const char *name, const char *path, struct bg_inbox_result *r)
{
	memset(r, 0, sizeof(*r));
	assert_int_equal(bg_inbox_follow(st, name, path, tree_id, r), 0);
}

static void test_series_when_complete(void **state)
{
	char *inbox = bg_path_join(top, "lkml"), *ep = bg_path_join(inbox, "git/0.git");
	const char *title = "tracing: Make kprobe events init faster";
	struct bg_inbox_result r;
	char *s, *reply;

	(void)state;
	run("mkdir -p '%s' && cd '%s' && " GIT " init -q .", ep, ep);
	post_patch(ep, "c1@x", NULL, 1, 0, 3, title);
	post_patch(ep, "p1@x", "c1@x", 1, 1, 3, "tracing: one");
	reply = xasprintf("From: Masami <mhiramat@kernel.org>\nSubject: Re: [PATCH 1/3] "
			  "tracing: one\nMessage-ID: <r1@x>\nIn-Reply-To: <p1@x>\n\nAcked.\n");
	post(ep, reply);
	post(ep, "From: a@b\nSubject: [ANNOUNCE] v6.1\nMessage-ID: <ann@x>\n\nout\n");
	post_patch(ep, "p2@x", "c1@x", 1, 2, 3, "tracing: two");
	follow("lkml", inbox, &r);
	assert_int_equal(r.messages, 5);
	assert_int_equal(r.patches, 3);
	assert_int_equal(r.replies, 1);
	assert_int_equal(r.ignored, 1);
	assert_int_equal(r.nseries, 0);
	assert_int_equal(count("SELECT count(*) FROM series"), 0);
	bg_inbox_result_release(&r);

	/* the last patch makes it */
	post_patch(ep, "p3@x", "c1@x", 1, 3, 3, "tracing: three");
	follow("lkml", inbox, &r);
	assert_int_equal(r.messages, 1);
	assert_int_equal(r.nseries, 1);
	assert_int_equal(r.series[0].version, 1);
	assert_int_equal(r.series[0].total, 3);
	assert_string_equal(r.series[0].message_id, "c1@x");
	bg_inbox_result_release(&r);
	s = text("SELECT source || ' ' || version || ' ' || total || ' ' || state || ' ' || base "
		 "|| ' ' || title || ' ' || addr FROM series");
	assert_string_equal(s, "inbox:lkml 1 3 queued 0123456789abcdef0123456789abcdef01234567 "
			    "tracing: Make kprobe events init faster rostedt@goodmis.org");
	free(s);
	assert_int_equal(count("SELECT count(*) FROM series_patches"), 4);
	assert_int_equal(count("SELECT count(*) FROM series_patches WHERE idx = 3 AND message_id "
			       "= 'p3@x' AND mbox LIKE 'From: Steven%'"), 1);
	assert_int_equal(count("SELECT count(*) FROM jobs WHERE kind = 'series' AND state = "
			       "'queued' AND series_id = 1"), 1);
	assert_int_equal(count("SELECT count(*) FROM inbox_messages WHERE series_id = 1"), 4);
	{
		/* KCIDB's patchset_hash: sha256 of the patches' newline-terminated sha256s */
		struct bg_strbuf sb = BG_STRBUF_INIT;
		char hex[BG_SHA256_HEX];
		const char *ids[] = { "p1@x", "p2@x", "p3@x" };
		char *want;

		for (size_t i = 0; i < 3; i++) {
			char *sql = xasprintf("SELECT mbox FROM series_patches WHERE message_id = '%s'",
					      ids[i]);
			char *m = text(sql);

			bg_sha256_mem(m, strlen(m), hex);
			bg_strbuf_addf(&sb, "%s\n", hex);
			free(m);
			free(sql);
		}
		bg_sha256_mem(sb.buf, sb.len, hex);
		want = text("SELECT patchset_hash FROM series");
		assert_string_equal(want, hex);
		free(want);
		bg_strbuf_release(&sb);
	}
	/* read again: nothing new */
	follow("lkml", inbox, &r);
	assert_int_equal(r.messages, 0);
	assert_int_equal(r.nseries, 0);
	bg_inbox_result_release(&r);
	assert_int_equal(count("SELECT count(*) FROM inbox_messages"), 4);

	/* v2 in a second epoch, threaded under v1's cover, patches out of order */
	ep[strlen(ep) - 5] = '1';
	run("mkdir -p '%s' && cd '%s' && " GIT " init -q .", ep, ep);
	post_patch(ep, "p2.2@x", "c2@x", 2, 2, 2, "tracing: two");
	post_patch(ep, "c2@x", "c1@x", 2, 0, 2, title);
	delete_message(ep);
	post(ep, "From: a@b\nSubject: [PATCH 1/1000] absurd\nMessage-ID: <bad@x>\n\nx\n");
	post_patch(ep, "p1.2@x", "c2@x", 2, 1, 2, "tracing: one");
	follow("lkml", inbox, &r);
	assert_int_equal(r.deleted, 2);
	assert_int_equal(r.malformed, 1);
	assert_int_equal(r.errors.n, 1);
	assert_non_null(strstr(r.errors.v[0], "/git/1.git@"));
	assert_non_null(strstr(r.errors.v[0], ":2: patch 1/1000: a series of 1 to 999 patches"));
	assert_int_equal(r.nseries, 1);
	assert_int_equal(r.series[0].version, 2);
	assert_int_equal(r.series[0].superseded, 1);
	assert_int_equal(r.superseded, 1);
	bg_inbox_result_release(&r);
	assert_int_equal(count("SELECT count(*) FROM series WHERE id = 1 AND state = 'superseded' "
			       "AND superseded_by = 2"), 1);
	s = text("SELECT state || ': ' || error FROM jobs WHERE series_id = 1");
	assert_string_equal(s, "done: superseded by v2");
	free(s);
	assert_int_equal(count("SELECT count(*) FROM jobs WHERE series_id = 2 AND state = "
			       "'queued'"), 1);
	assert_int_equal(count("SELECT count(*) FROM inbox_cursors WHERE inbox = 'lkml'"), 2);

	/* a v1 sent again after v2 (another thread) is superseded at once, and queues nothing */
	ep[strlen(ep) - 5] = '0';
	post_patch(ep, "c1b@x", NULL, 1, 0, 1, title);
	post_patch(ep, "p1b@x", "c1b@x", 1, 1, 1, "tracing: one");
	follow("lkml", inbox, &r);
	assert_int_equal(r.nseries, 1);
	assert_int_equal(r.series[0].superseded_by, 2);
	bg_inbox_result_release(&r);
	assert_int_equal(count("SELECT count(*) FROM series WHERE message_id = 'c1b@x' AND state "
			       "= 'superseded' AND superseded_by = 2"), 1);
	assert_int_equal(count("SELECT count(*) FROM jobs"), 2);

	/*
	 * v2 ended; the same v2 again under its author's From: (forged, or resent): the ended
	 * series stands, the new one is measured on its own
	 */
	assert_int_equal(bg_store_exec(st, "UPDATE series SET state = 'done' WHERE id = 2", ""), 0);
	post_patch(ep, "c2x@x", NULL, 2, 0, 1, title);
	post_patch(ep, "p2x@x", "c2x@x", 2, 1, 1, "tracing: one");
	follow("lkml", inbox, &r);
	assert_int_equal(r.nseries, 1);
	assert_int_equal(r.superseded, 0);
	assert_int_equal(r.series[0].superseded_by, 0);
	bg_inbox_result_release(&r);
	s = text("SELECT group_concat(state, ' ') FROM (SELECT state FROM series ORDER BY id)");
	assert_string_equal(s, "superseded done superseded queued");
	free(s);
	/* a v3: the queued v2 gives way, the ended one does not */
	post_patch(ep, "c3@x", NULL, 3, 0, 1, title);
	post_patch(ep, "p3.1@x", "c3@x", 3, 1, 1, "tracing: one");
	follow("lkml", inbox, &r);
	assert_int_equal(r.superseded, 1);
	bg_inbox_result_release(&r);
	s = text("SELECT group_concat(state, ' ') FROM (SELECT state FROM series ORDER BY id)");
	assert_string_equal(s, "superseded done superseded superseded queued");
	free(s);
	free(reply);
	free(inbox);
	free(ep);
}

/* a mirror of one epoch (git clone --mirror of .../LIST/0) is an inbox too */
static void test_single_epoch_and_errors(void **state)
{
	char *ep = bg_path_join(top, "single.git"), *clone = bg_path_join(top, "mirror.git");
	char *nowhere = bg_path_join(top, "nowhere"), *lost;
	struct bg_inbox_result r;

	(void)state;
	run("mkdir -p '%s' && cd '%s' && " GIT " init -q .", ep, ep);
	post_patch(ep, "solo@y", NULL, 1, 1, 1, "x: a single patch");
	run("git clone -q --mirror '%s' '%s'", ep, clone);
	follow("mirror", clone, &r);
	assert_int_equal(r.nseries, 1);
	assert_int_equal(r.series[0].total, 1);
	assert_string_equal(r.series[0].source, "inbox:mirror");
	bg_inbox_result_release(&r);
	/* an epoch with no commit yet has nothing to read */
	run("mkdir -p '%s/git/0.git' && git init -q --bare '%s/git/0.git'", nowhere, nowhere);
	follow("empty", nowhere, &r);
	assert_int_equal(r.messages, 0);
	bg_inbox_result_release(&r);
	run("rm -rf '%s/git'", nowhere);
	memset(&r, 0, sizeof(r));
	assert_int_equal(bg_inbox_follow(st, "none", nowhere, tree_id, &r), -1);
	assert_non_null(strstr(bg_error_last(), "is neither a public-inbox v2 directory"));
	bg_inbox_result_release(&r);
	/* history rewritten under the cursor: said, not read again from the start */
	run("cd '%s' && " GIT " commit -q --amend -m other", ep);
	run("cd '%s' && git fetch -q --force '%s' '+refs/heads/*:refs/heads/*'", clone, ep);
	memset(&r, 0, sizeof(r));
	assert_int_equal(bg_inbox_follow(st, "mirror", clone, tree_id, &r), -1);
	assert_non_null(strstr(bg_error_last(), "is not in the history of 'HEAD' any more"));
	bg_inbox_result_release(&r);
	/* a commit whose parent is lost: libgit2's why is kept */
	lost = bg_path_join(top, "lost");
	run("mkdir -p '%s' && cd '%s' && " GIT " init -q .", lost, lost);
	post_patch(lost, "lost1@y", NULL, 1, 1, 1, "x: first");
	post_patch(lost, "lost2@y", NULL, 1, 1, 1, "x: second");
	run("cd '%s' && f=$(git rev-parse HEAD~1) && "
	    "rm -f .git/objects/$(echo $f | cut -c1-2)/$(echo $f | cut -c3-)", lost);
	memset(&r, 0, sizeof(r));
	assert_int_equal(bg_inbox_follow(st, "lost", lost, tree_id, &r), -1);
	assert_non_null(strstr(bg_error_last(), ": cannot read commit '"));
	/* the reason: that the object is not found */
	assert_non_null(strstr(bg_error_last(), "not found"));
	bg_inbox_result_release(&r);
	free(lost);
	free(ep);
	free(clone);
	free(nowhere);
}

static void test_drop(void **state)
{
	char *dir = bg_path_join(top, "drop"), *m1, *m2, *both, *s;
	struct bg_inbox_result r;
	struct stat sb;

	(void)state;
	m1 = patch_mail("d1@z", NULL, 1, 1, 2, "drop: one", "Jane <jane@z.org>");
	m2 = patch_mail("d2@z", "d1@z", 1, 2, 2, "drop: two", "Jane <jane@z.org>");
	both = xasprintf("From x Mon Sep 17 00:00:00 2001\n%s\nFrom x Mon Sep 17 00:00:00 2001\n%s",
			 m1, m2);
	assert_int_equal(unit_write(dir, "good.mbox", both), 0);
	assert_int_equal(unit_write(dir, "half.eml", m2), 0);
	assert_int_equal(unit_write(dir, "notes.txt", "left alone"), 0);
	assert_int_equal(unit_write(dir, "zbad.mbox", "no header here\n"), 0);
	memset(&r, 0, sizeof(r));
	assert_int_equal(bg_inbox_drop(st, dir, tree_id, &r), 0);
	assert_int_equal(r.dropped, 1);
	assert_int_equal(r.drop_failed, 2);
	assert_int_equal(r.nseries, 1);
	assert_string_equal(r.series[0].source, "drop:good.mbox");
	bg_inbox_result_release(&r);
	s = text("SELECT mbox FROM series_patches WHERE message_id = 'd2@z'");
	/* the message as it came, without the mbox's From line */
	assert_true(!strncmp(s, "From: Jane <jane@z.org>\nSubject: [PATCH 2/2]", 44));
	free(s);
	{
		char *p = bg_path_join(dir, "done/good.mbox"), *e = bg_path_join(dir, "failed/zbad.mbox.error");
		char *h = bg_path_join(dir, "failed/half.eml.error"), *t = bg_path_join(dir, "notes.txt");
		char *err;

		assert_int_equal(stat(p, &sb), 0);
		err = bg_read_file(e, 4096, NULL);
		assert_string_equal(err, "zbad.mbox:1: not a header line\n");
		free(err);
		err = bg_read_file(h, 4096, NULL);
		assert_string_equal(err, "half.eml:1: no complete series (every patch 1..N of one)\n");
		free(err);
		assert_int_equal(stat(t, &sb), 0);
		free(p);
		free(e);
		free(h);
		free(t);
	}
	/* the same series dropped again is recorded once */
	assert_int_equal(unit_write(dir, "again.mbox", both), 0);
	memset(&r, 0, sizeof(r));
	assert_int_equal(bg_inbox_drop(st, dir, tree_id, &r), 0);
	assert_int_equal(r.dropped, 1);
	assert_int_equal(r.nseries, 0);
	bg_inbox_result_release(&r);
	assert_int_equal(count("SELECT count(*) FROM series WHERE source LIKE 'drop:%'"), 1);
	free(m1);
	free(m2);
	free(both);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_series_when_complete),
		cmocka_unit_test(test_single_epoch_and_errors),
		cmocka_unit_test(test_drop),
	};

	return cmocka_run_group_tests_name("inbox", tests, setup, teardown);
}
