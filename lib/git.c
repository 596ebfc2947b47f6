/* The one file that includes git2.h; libgit2's errors are translated here. */
#include <git2.h>
#include <libgen.h>
#include <sys/stat.h>

#include "git.h"
#include "error.h"
#include "xmalloc.h"

static int git_fail(const char *what, const char *arg)
{
	const git_error *e = git_error_last();

	return bg_error("%s '%s': %s", what, arg, e && e->message ? e->message : "libgit2 error");
}

static void init_once(void)
{
	static bool done;

	if (!done) {
		git_libgit2_init();
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

/* Creates the worktree: a directory named after its last path component. */
static int add_worktree(git_repository *r, const char *wt_path)
{
	git_worktree_add_options opts = GIT_WORKTREE_ADD_OPTIONS_INIT;
	git_worktree *wt = NULL;
	char *copy = xstrdup(wt_path), *parent_dir = xstrdup(wt_path), name[256];
	int ret;

	/* a name unique to this worktree: its parent directory's name and its own */
	snprintf(name, sizeof(name), "bootgate-%s-%s", basename(dirname(parent_dir)),
		 basename(copy));
	opts.lock = 0;
	ret = git_worktree_add(&wt, r, name, wt_path, &opts);
	if (ret < 0)
		git_fail("cannot add the worktree", wt_path);
	git_worktree_free(wt);
	free(copy);
	free(parent_dir);
	return ret < 0 ? -1 : 0;
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
