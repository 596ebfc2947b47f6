/*
 * Unit tests of the git wrapper and of tree identity, on real repositories made with
 * git itself: revisions resolve, a worktree moves between commits rewriting only what
 * changed, and two trees called "linux" never share a worktree.
 */
#include <sys/stat.h>

#include "unit.h"
#include "net/git.h"
#include "conf/tree.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/path.h"
#include "util/strbuf.h"
#include "util/xmalloc.h"

static char *top;              /* scratch directory of this test program */

#define run unit_run

#define GIT "git -c user.name=t -c user.email=t@localhost -c init.defaultBranch=master"

/* A repository at dir with three commits: a.c and b.c, then a.c changed, then b.c. */
static void make_repo(const char *dir)
{
	run("mkdir -p '%s' && cd '%s' && " GIT " init -q . && "
	    "echo one >a.c && echo two >b.c && " GIT " add . && " GIT " commit -q -m first && "
	    "echo one-changed >a.c && " GIT " commit -q -a -m second && "
	    "echo two-changed >b.c && " GIT " commit -q -a -m third", dir, dir);
}

static int setup(void **state)
{
	(void)state;
	top = unit_scratch_dir("t-git");
	return top ? 0 : -1;
}

static int teardown(void **state)
{
	char *cmd = xasprintf("rm -rf '%s'", top);
	int ret;

	(void)state;
	/* left by a failed test_apply_offset: git must not make /nonexistent */
	unsetenv("GIT_INDEX_FILE");
	unsetenv("GIT_DIR");
	ret = system(cmd);
	free(cmd);
	free(top);
	return ret ? -1 : 0;
}

static char *rev_parse(const char *repo, const char *rev)
{
	char *cmd = xasprintf("git -C '%s' rev-parse '%s'", repo, rev), buf[64] = "";
	FILE *f = popen(cmd, "r");

	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	pclose(f);
	free(cmd);
	buf[strcspn(buf, "\n")] = '\0';
	return xstrdup(buf);
}

static void test_resolve(void **state)
{
	char *repo = xasprintf("%s/a/linux", top), *head, *first;
	char id[BG_OID_HEX];

	(void)state;
	make_repo(repo);
	head = rev_parse(repo, "HEAD");
	first = rev_parse(repo, "HEAD~2");
	assert_int_equal(bg_git_is_repository(repo), 0);
	assert_int_equal(bg_git_resolve(repo, "master", id), 0);
	assert_string_equal(id, head);
	assert_int_equal(bg_git_resolve(repo, "HEAD~2", id), 0);
	assert_string_equal(id, first);
	assert_int_equal(bg_git_resolve(repo, "no-such-branch", id), -1);
	assert_non_null(strstr(bg_error_last(), "cannot resolve 'no-such-branch'"));
	/* a tree object is not a commit */
	assert_int_equal(bg_git_resolve(repo, "HEAD^{tree}", id), -1);
	assert_non_null(strstr(bg_error_last(), "not a commit 'HEAD^{tree}'"));
	assert_int_equal(bg_git_is_repository(top), -1);
	assert_non_null(strstr(bg_error_last(), "not a git repository"));
	free(head);
	free(first);
	free(repo);
}

static void test_checkout(void **state)
{
	char *repo = xasprintf("%s/b/linux", top), *wt = xasprintf("%s/work/src", top);
	char *a = xasprintf("%s/a.c", wt), *b = xasprintf("%s/b.c", wt), *text;
	char commit[BG_OID_HEX], parent[BG_OID_HEX], *want;
	struct stat st_a, st_b, st;

	(void)state;
	make_repo(repo);
	/* the first checkout creates the worktree */
	assert_int_equal(bg_git_checkout(repo, wt, "HEAD~1", commit, parent), 0);
	want = rev_parse(repo, "HEAD~1");
	assert_string_equal(commit, want);
	free(want);
	want = rev_parse(repo, "HEAD~2");
	assert_string_equal(parent, want);
	free(want);
	text = bg_read_file(a, 100, NULL);
	assert_string_equal(text, "one-changed\n");
	free(text);
	assert_int_equal(stat(a, &st_a), 0);
	assert_int_equal(stat(b, &st_b), 0);
	sleep(1);
	/* to the next commit: b.c changes, a.c is left alone (its build stays valid) */
	assert_int_equal(bg_git_checkout(repo, wt, "HEAD", commit, parent), 0);
	text = bg_read_file(b, 100, NULL);
	assert_string_equal(text, "two-changed\n");
	free(text);
	assert_int_equal(stat(a, &st), 0);
	assert_true(st.st_mtime == st_a.st_mtime && st.st_ino == st_a.st_ino);
	assert_int_equal(stat(b, &st), 0);
	assert_true(st.st_mtime != st_b.st_mtime || st.st_ino != st_b.st_ino);
	/* local leftovers (an earlier patch) are overwritten */
	assert_int_equal(bg_write_file(a, "patched\n", 8), 0);
	assert_int_equal(bg_git_checkout(repo, wt, "HEAD~2", commit, parent), 0);
	text = bg_read_file(a, 100, NULL);
	assert_string_equal(text, "one\n");
	free(text);
	/* the root commit has no parent */
	assert_string_equal(parent, "");
	/* a worktree deleted behind our back is made again */
	run("rm -rf '%s'", wt);
	assert_int_equal(bg_git_checkout(repo, wt, "HEAD", commit, parent), 0);
	text = bg_read_file(b, 100, NULL);
	assert_string_equal(text, "two-changed\n");
	free(text);
	/* the tree cloned again at the same path: its old worktree is another repository's */
	run("git clone -q '%s' '%s.new' && rm -rf '%s' && mv '%s.new' '%s'", repo, repo, repo, repo,
	    repo);
	assert_int_equal(bg_git_checkout(repo, wt, "HEAD~1", commit, parent), 0);
	text = bg_read_file(a, 100, NULL);
	assert_string_equal(text, "one-changed\n");
	free(text);
	assert_int_equal(bg_git_checkout(repo, wt, "nope", commit, parent), -1);
	assert_non_null(strstr(bg_error_last(), "cannot resolve 'nope'"));
	free(a);
	free(b);
	free(wt);
	free(repo);
}

/*
 * The lock files a build killed inside libgit2 leaves: in the worktree's git directory
 * they fail every checkout until removed; on the worktree's branch in the repository,
 * they fail making a deleted worktree again.
 */
static void test_stale_locks(void **state)
{
	char *repo = xasprintf("%s/d/linux", top), *wt = xasprintf("%s/work-d/src", top);
	char commit[BG_OID_HEX], parent[BG_OID_HEX], *dotgit, *text, *gitdir, *index_lock;
	char *head_lock;

	(void)state;
	make_repo(repo);
	/* no worktree yet: nothing to remove */
	assert_int_equal(bg_git_worktree_clear_locks(wt), 0);
	assert_int_equal(bg_git_checkout(repo, wt, "HEAD~1", commit, parent), 0);
	/* the worktree's .git file names its git directory: "gitdir: PATH" */
	dotgit = bg_path_join(wt, ".git");
	text = bg_read_file(dotgit, 4096, NULL);
	assert_non_null(text);
	assert_int_equal(strncmp(text, "gitdir: ", 8), 0);
	text[strcspn(text, "\n")] = '\0';
	gitdir = xstrdup(text + 8);
	free(text);
	free(dotgit);
	index_lock = bg_path_join(gitdir, "index.lock");
	head_lock = bg_path_join(gitdir, "HEAD.lock");
	run("touch '%s' '%s'", index_lock, head_lock);
	assert_int_equal(bg_git_checkout(repo, wt, "HEAD", commit, parent), -1);
	assert_non_null(strstr(bg_error_last(), "locked"));
	assert_int_equal(bg_git_worktree_clear_locks(wt), 0);
	assert_int_equal(access(index_lock, F_OK), -1);
	assert_int_equal(access(head_lock, F_OK), -1);
	assert_int_equal(bg_git_checkout(repo, wt, "HEAD", commit, parent), 0);
	/* one that cannot be removed is an error that names it */
	run("mkdir -p '%s/x'", index_lock);
	assert_int_equal(bg_git_worktree_clear_locks(wt), -1);
	assert_non_null(strstr(bg_error_last(), "cannot remove the stale lock"));
	assert_non_null(strstr(bg_error_last(), index_lock));
	run("rm -rf '%s'", index_lock);
	/* the worktree deleted, its branch locked: made again all the same */
	run("rm -rf '%s' && for b in '%s'/.git/refs/heads/bootgate-*; do cp \"$b\" \"$b.lock\"; done",
	    wt, repo);
	assert_int_equal(bg_git_checkout(repo, wt, "HEAD~2", commit, parent), 0);
	run("! ls '%s'/.git/refs/heads/*.lock 2>/dev/null", repo);
	free(index_lock);
	free(head_lock);
	free(gitdir);
	free(wt);
	free(repo);
}

/* Two trees whose paths end in the same name get two identities, two work directories. */
static void test_tree_identity(void **state)
{
	char *r1 = xasprintf("%s/c/linux", top), *r2 = xasprintf("%s/d/linux", top);
	char *link = xasprintf("%s/link", top), *sub = xasprintf("%s/c/linux/sub", top);
	struct bg_tree t1, t2, t3;
	char *w1, *w2;

	(void)state;
	make_repo(r1);
	make_repo(r2);
	assert_int_equal(bg_tree_open(r1, &t1), 0);
	assert_int_equal(bg_tree_open(r2, &t2), 0);
	assert_string_not_equal(t1.id, t2.id);
	assert_int_equal(strncmp(t1.id, "linux-", 6), 0);
	assert_int_equal(strlen(t1.id), strlen("linux-") + 12);
	w1 = bg_tree_workdir(&t1, "x86_64");
	w2 = bg_tree_workdir(&t2, "x86_64");
	assert_string_not_equal(w1, w2);
	/* the same tree by another path is the same tree */
	assert_int_equal(symlink(r1, link), 0);
	assert_int_equal(bg_tree_open(link, &t3), 0);
	assert_string_equal(t3.id, t1.id);
	assert_string_equal(t3.real, t1.real);
	bg_tree_release(&t3);
	/* not a tree: its caller's mistake, said plainly */
	assert_int_equal(bg_tree_open("/nonexistent/linux", &t3), -1);
	assert_string_equal(bg_error_last(), "tree '/nonexistent/linux': No such file or directory");
	/* a directory that is no repository, and one inside a repository: neither is a tree */
	assert_int_equal(bg_tree_open(top, &t3), -1);
	assert_non_null(strstr(bg_error_last(), "not a git repository"));
	run("mkdir -p '%s'", sub);
	assert_int_equal(bg_tree_open(sub, &t3), -1);
	assert_non_null(strstr(bg_error_last(), "not a git repository"));
	bg_tree_release(&t1);
	bg_tree_release(&t2);
	free(w1);
	free(w2);
	free(r1);
	free(r2);
	free(link);
	free(sub);
}

/* Branch names from a configuration file: git's rules, and nothing git would take as an option. */
static void test_branch_names(void **state)
{
	(void)state;
	assert_true(bg_git_branch_name_ok("for-next"));
	assert_true(bg_git_branch_name_ok("perf-tools-next"));
	assert_true(bg_git_branch_name_ok("topic/a.b_c"));
	assert_false(bg_git_branch_name_ok(""));
	assert_false(bg_git_branch_name_ok("-x"));
	assert_false(bg_git_branch_name_ok("a..b"));
	assert_false(bg_git_branch_name_ok("a b"));
	assert_false(bg_git_branch_name_ok("a\nb"));
	assert_false(bg_git_branch_name_ok("a~1"));
	assert_false(bg_git_branch_name_ok("a.lock"));
	assert_false(bg_git_branch_name_ok("HEAD"));
}

/* The diff of a commit as git format-patch mails it, from "diff --git" to the signature. */
static char *commit_diff(const char *repo, const char *rev)
{
	char *cmd = xasprintf("git -C '%s' format-patch -1 --stdout '%s' | "
			      "sed -n '/^diff --git/,/^-- $/p' | sed '$d'", repo, rev);
	FILE *f = popen(cmd, "r");
	struct bg_strbuf sb = BG_STRBUF_INIT;
	char buf[4096];
	size_t n;

	assert_non_null(f);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		bg_strbuf_add(&sb, buf, n);
	assert_int_equal(pclose(f), 0);
	free(cmd);
	return bg_strbuf_detach(&sb, NULL);
}

static void test_apply(void **state)
{
	char *repo = xasprintf("%s/c/linux", top), *diff, *third, *second, *unknown;
	struct bg_git_patch p = { 0 };
	struct bg_git_commit info;
	char id[BG_OID_HEX], again[BG_OID_HEX];

	(void)state;
	make_repo(repo);
	diff = commit_diff(repo, "HEAD");
	third = rev_parse(repo, "HEAD^{tree}");
	second = rev_parse(repo, "HEAD~1");
	p.label = "patch 1/1";
	p.diff = diff;
	p.diff_len = strlen(diff);
	p.message = "b: change it\n\nBecause.\n\nSigned-off-by: A U Thor <a@example.org>\n";
	p.author_name = "A U Thor";
	p.author_email = "a@example.org";
	p.when = 1700000000;
	p.tz_minutes = -420;
	p.ref = "refs/bootgate/series/1/1";
	assert_int_equal(bg_git_apply(repo, "HEAD~1", &p, id), 0);
	assert_int_equal(bg_git_commit_info(repo, id, &info), 0);
	/* the tree git made, the author and message of the mail, on the commit given */
	assert_string_equal(info.tree, third);
	assert_string_equal(info.parents[0], second);
	assert_string_equal(info.author, "A U Thor <a@example.org>");
	assert_string_equal(info.message, p.message);
	assert_string_equal(info.subject, "b: change it");
	bg_git_commit_release(&info);
	run("test \"$(git -C '%s' log -1 --format='%%ad %%cn <%%ce> %%cd' --date=raw '%s')\" = "
	    "'1700000000 -0700 bootgate <bootgate@localhost> 1700000000 -0700'", repo, id);
	/* the same patch again is the same commit, and the ref names it */
	assert_int_equal(bg_git_apply(repo, "HEAD~1", &p, again), 0);
	assert_string_equal(again, id);
	assert_int_equal(bg_git_resolve(repo, "refs/bootgate/series/1/1", again), 0);
	assert_string_equal(again, id);
	/* a ref locked by a process killed while it made it: the commit is made all the same */
	run("mkdir -p '%s/.git/refs/bootgate/series/1' && touch '%s/.git/refs/bootgate/series/1/2.lock'",
	    repo, repo);
	p.ref = "refs/bootgate/series/1/2";
	bg_error("an earlier error");
	assert_int_equal(bg_git_apply(repo, "HEAD~1", &p, again), 0);
	assert_string_equal(again, id);
	/* a warning, not an error: the last error is still the earlier one */
	assert_string_equal(bg_error_last(), "an earlier error");
	assert_int_equal(bg_git_resolve(repo, "refs/bootgate/series/1/2", again), -1);
	p.ref = "refs/bootgate/series/1/1";
	/* onto the commit that has it already: nothing to commit, as git am says */
	p.label = "patch 2/3";
	assert_int_equal(bg_git_apply(repo, "HEAD", &p, id), 1);
	assert_string_equal(bg_error_last(), "patch 2/3 does not apply: it changes nothing, "
			    "the tree has it already");
	/* where b.c changed otherwise: the three-way merge of its blobs conflicts */
	run("cd '%s' && git checkout -q -b other HEAD~1 && echo two-other >b.c && "
	    GIT " commit -q -a -m other && git checkout -q -", repo);
	assert_int_equal(bg_git_apply(repo, "other", &p, id), 1);
	assert_string_equal(bg_error_last(), "patch 2/3 does not apply: b.c: the three-way "
			    "merge left conflicts");
	/* and without the blobs, by its context alone: no line of b.c fits the hunk */
	unknown = xstrdup(diff);
	memcpy(strstr(unknown, "\nindex ") + 7, "1111111111", 10);
	p.diff = unknown;
	assert_int_equal(bg_git_apply(repo, "other", &p, id), 1);
	assert_string_equal(bg_error_last(), "patch 2/3 does not apply: b.c: the hunk at line 1 "
			    "fits nowhere near it");
	p.diff = diff;
	/* no diff at all, and a diff that is not one */
	p.diff_len = 0;
	assert_int_equal(bg_git_apply(repo, "HEAD~1", &p, id), 1);
	assert_string_equal(bg_error_last(), "patch 2/3 does not apply: no diff");
	p.diff = "diff --git a/b.c b/b.c\n@@ garbage\n";
	p.diff_len = strlen(p.diff);
	assert_int_equal(bg_git_apply(repo, "HEAD~1", &p, id), 1);
	assert_non_null(strstr(bg_error_last(), "patch 2/3 does not apply: "));
	/* a path that leaves the tree, or names .git, is refused */
	p.diff = "diff --git a/../evil b/../evil\nnew file mode 100644\n--- /dev/null\n"
		 "+++ b/../evil\n@@ -0,0 +1 @@\n+x\n";
	p.diff_len = strlen(p.diff);
	assert_int_equal(bg_git_apply(repo, "HEAD~1", &p, id), 1);
	assert_non_null(strstr(bg_error_last(), "patch 2/3 does not apply: "));
	p.diff = "diff --git a/.git/config b/.git/config\nnew file mode 100644\n--- /dev/null\n"
		 "+++ b/.git/config\n@@ -0,0 +1 @@\n+x\n";
	p.diff_len = strlen(p.diff);
	assert_int_equal(bg_git_apply(repo, "HEAD~1", &p, id), 1);
	assert_non_null(strstr(bg_error_last(), "patch 2/3 does not apply: .git/config: "));
	/* an author libgit2 cannot sign with is the mail's fault, not the repository's */
	p.diff = diff;
	p.diff_len = strlen(diff);
	p.author_name = "";
	assert_int_equal(bg_git_apply(repo, "HEAD~1", &p, id), 1);
	assert_non_null(strstr(bg_error_last(), "cannot sign a commit"));
	assert_int_equal(bg_git_apply(repo, "no-such-rev", &p, id), -1);
	free(unknown);
	free(diff);
	free(third);
	free(second);
	free(repo);
}

/*
 * A patch made on another base: the lines it changes moved down by 40 in the tree it is
 * applied to, and its blobs unknown there. git am finds the hunks at their offset; so
 * must the series.
 */
static void test_apply_offset(void **state)
{
	char *repo = xasprintf("%s/offset", top), *diff, *got, *want;
	struct bg_git_patch p = { 0 };
	char id[BG_OID_HEX];

	(void)state;
	run("mkdir -p '%s' && cd '%s' && " GIT " init -q . && seq 1 60 >f.c && seq 1 9 >g.c && "
	    GIT " add . && " GIT " commit -q -m base && sed -i 's/^30$/thirty/' f.c && "
	    "sed -i '$a ten' g.c && " GIT " commit -q -a -m change && "
	    GIT " checkout -q -b shifted HEAD~1 && (seq 101 140; seq 1 60) >f.c && "
	    GIT " commit -q -a -m shift", repo, repo);
	diff = commit_diff(repo, "master");
	/* git format-patch names blobs this repository has: a base elsewhere has others */
	for (char *s = diff; (s = strstr(s, "\nindex ")); s++)
		memcpy(s + 7, "1234567", 7);
	p.label = "patch 1/1";
	p.diff = diff;
	p.diff_len = strlen(diff);
	p.message = "f: thirty\n";
	p.author_name = "A U Thor";
	p.author_email = "a@example.org";
	p.when = 1700000000;
	/* what the caller's environment names for git is not where it applies */
	setenv("GIT_INDEX_FILE", "/nonexistent/index", 1);
	setenv("GIT_DIR", "/nonexistent", 1);
	setenv("LC_ALL", "de_DE.UTF-8", 1);
	assert_int_equal(bg_git_apply(repo, "shifted", &p, id), 0);
	unsetenv("GIT_INDEX_FILE");
	unsetenv("GIT_DIR");
	unsetenv("LC_ALL");
	got = rev_parse(repo, id);
	assert_string_equal(got, id);
	free(got);
	run("cd '%s' && test \"$(git show %s:f.c | sed -n 70p)\" = thirty && "
	    "test \"$(git show %s:f.c | grep -c .)\" = 100 && "
	    "test \"$(git show %s:g.c | tail -1)\" = ten", repo, id, id, id);
	/* the same tree as git apply's own reading of the patch in a work tree */
	want = xasprintf("%s/want", top);
	run("git clone -q -b shifted '%s' '%s' && cd '%s' && "
	    "git format-patch -1 --stdout origin/master >../p.mbox && "
	    "sed -i 's/^index [0-9a-f]*\\.\\./index 1234567../' ../p.mbox && "
	    GIT " am -q ../p.mbox && test \"$(git rev-parse HEAD^{tree})\" = "
	    "\"$(git -C '%s' rev-parse %s^{tree})\"", repo, want, want, repo, id);
	free(want);
	free(diff);
	free(repo);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_resolve),
		cmocka_unit_test(test_checkout),
		cmocka_unit_test(test_stale_locks),
		cmocka_unit_test(test_tree_identity),
		cmocka_unit_test(test_branch_names),
		cmocka_unit_test(test_apply),
		cmocka_unit_test(test_apply_offset),
	};

	return cmocka_run_group_tests_name("git", tests, setup, teardown);
}
