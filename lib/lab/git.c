/* The one file that includes git2.h; libgit2's errors are translated here. */
#include <git2.h>
#include <limits.h>
#include <sys/stat.h>

#include "lab/git.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/hash.h"
#include "util/path.h"
#include "util/xmalloc.h"

static int git_fail(const char *what, const char *arg)
{
	const git_error *e = git_error_last();

	return bg_error("%s '%s': %s", what, arg, e && e->message ? e->message : "libgit2 error");
}

static void shutdown_git(void)
{
	git_libgit2_shutdown();
}

/* libgit2 keeps caches until it is shut down: at exit, so that nothing looks leaked */
static void init_once(void)
{
	static bool done;

	if (!done) {
		git_libgit2_init();
		atexit(shutdown_git);
		done = true;
	}
}

static int peel_commit(git_repository *r, const char *rev, git_commit **out)
{
	git_object *obj = NULL, *peeled = NULL;
	int ret = -1;

	if (git_revparse_single(&obj, r, rev) < 0)
		return git_fail("cannot resolve", rev);
	if (git_object_peel(&peeled, obj, GIT_OBJECT_COMMIT) < 0) {
		git_fail("not a commit", rev);
		goto out;
	}
	*out = (git_commit *)peeled;
	peeled = NULL;
	ret = 0;
out:
	git_object_free(obj);
	git_object_free(peeled);
	return ret;
}

int bg_git_is_repository(const char *path)
{
	git_repository *r = NULL;

	init_once();
	if (git_repository_open_ext(&r, path, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) < 0)
		return git_fail("not a git repository", path);
	git_repository_free(r);
	return 0;
}

int bg_git_resolve(const char *repo, const char *rev, char commit[BG_OID_HEX])
{
	git_repository *r = NULL;
	git_commit *c = NULL;
	int ret;

	init_once();
	if (git_repository_open(&r, repo) < 0)
		return git_fail("cannot open the repository", repo);
	ret = peel_commit(r, rev, &c);
	if (!ret)
		git_oid_tostr(commit, BG_OID_HEX, git_commit_id(c));
	git_commit_free(c);
	git_repository_free(r);
	return ret;
}

bool bg_git_branch_name_ok(const char *name)
{
	int valid = 0;

	init_once();
	return git_branch_name_is_valid(&valid, name) == 0 && valid;
}

/*
 * Clears what an earlier worktree of this name left behind when its directory was deleted
 * behind our back: its administrative directory in the repository and its branch (each
 * worktree libgit2 adds gets a branch of its name).
 */
static void clear_stale(git_repository *r, const char *name)
{
	git_worktree_prune_options prune = GIT_WORKTREE_PRUNE_OPTIONS_INIT;
	git_worktree *wt = NULL;
	git_reference *branch = NULL;

	if (git_worktree_lookup(&wt, r, name) == 0) {
		if (git_worktree_validate(wt) < 0)
			git_worktree_prune(wt, &prune);
		git_worktree_free(wt);
	} else {
		/* too broken to be looked up (a crash while it was made): removed by hand */
		char *admin = xasprintf("%s/worktrees/%s", git_repository_commondir(r), name);

		if (access(admin, F_OK) == 0)
			bg_remove_tree(admin);
		free(admin);
	}
	/* the branch goes unless a live worktree still has it checked out */
	if (git_branch_lookup(&branch, r, name, GIT_BRANCH_LOCAL) == 0) {
		git_branch_delete(branch);
		git_reference_free(branch);
	}
	git_error_clear();
}

/*
 * Creates the worktree and the directories above it. Its name in the repository is
 * unique to its path, so that two caches can hold worktrees of one repository.
 */
static int add_worktree(git_repository *r, const char *wt_path)
{
	git_worktree_add_options opts = GIT_WORKTREE_ADD_OPTIONS_INIT;
	git_worktree *wt = NULL;
	char *name = xasprintf("bootgate-%016" PRIx64, bg_hash64(wt_path, strlen(wt_path)));
	char *parent = xstrdup(wt_path), *slash = strrchr(parent, '/');
	int ret = -1;

	/* libgit2 makes the worktree's directory, not those above it */
	if (slash && slash != parent) {
		*slash = '\0';
		if (bg_mkdirs(parent) < 0)
			goto out;
	}
	clear_stale(r, name);
	opts.lock = 0;
	if (git_worktree_add(&wt, r, name, wt_path, &opts) < 0) {
		git_fail("cannot add the worktree", wt_path);
		goto out;
	}
	ret = 0;
out:
	git_worktree_free(wt);
	free(parent);
	free(name);
	return ret;
}

/* Whether wt_path is a worktree of r, whose administrative files are still there. */
static bool worktree_of(git_repository *r, const char *wt_path)
{
	git_repository *w = NULL;
	char a[PATH_MAX], b[PATH_MAX];
	bool same;

	if (git_repository_open_ext(&w, wt_path, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) < 0) {
		git_error_clear();
		return false;
	}
	same = realpath(git_repository_commondir(w), a) && realpath(git_repository_commondir(r), b) &&
	       !strcmp(a, b);
	git_repository_free(w);
	return same;
}

int bg_git_checkout(const char *repo, const char *wt_path, const char *rev,
		    char commit[BG_OID_HEX], char parent[BG_OID_HEX])
{
	git_repository *r = NULL, *w = NULL;
	git_commit *c = NULL;
	git_checkout_options co = GIT_CHECKOUT_OPTIONS_INIT;
	struct stat st;
	int ret = -1;

	init_once();
	parent[0] = '\0';
	if (git_repository_open(&r, repo) < 0)
		return git_fail("cannot open the repository", repo);
	if (peel_commit(r, rev, &c) < 0)
		goto out;
	git_oid_tostr(commit, BG_OID_HEX, git_commit_id(c));
	if (git_commit_parentcount(c) > 0)
		git_oid_tostr(parent, BG_OID_HEX, git_commit_parent_id(c, 0));
	/*
	 * A worktree that is not this repository's (the tree was cloned again at the same
	 * path, or its repository is gone) is made again: it can only be ours, in the cache.
	 */
	if (stat(wt_path, &st) == 0 && !worktree_of(r, wt_path) && bg_remove_tree(wt_path) < 0)
		goto out;
	if (stat(wt_path, &st) < 0 && add_worktree(r, wt_path) < 0)
		goto out;
	if (git_repository_open(&w, wt_path) < 0) {
		git_fail("cannot open the worktree", wt_path);
		goto out;
	}
	git_commit_free(c);
	c = NULL;
	if (peel_commit(w, commit, &c) < 0)
		goto out;
	/* force: the worktree is ours, local changes are leftovers of an earlier patch */
	co.checkout_strategy = GIT_CHECKOUT_FORCE;
	if (git_checkout_tree(w, (const git_object *)c, &co) < 0) {
		git_fail("cannot check out", rev);
		goto out;
	}
	if (git_repository_set_head_detached(w, git_commit_id(c)) < 0) {
		git_fail("cannot move HEAD of", wt_path);
		goto out;
	}
	ret = 0;
out:
	git_commit_free(c);
	git_repository_free(w);
	git_repository_free(r);
	return ret;
}
