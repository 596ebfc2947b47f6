/* The one file that includes git2.h; libgit2's errors are translated here. */
#include <fcntl.h>
#include <git2.h>
#include <limits.h>
#include <sys/stat.h>

#include "net/git.h"
#include "net/git-apply.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/hash.h"
#include "util/log.h"
#include "util/path.h"
#include "util/strvec.h"
#include "util/xmalloc.h"

/* What libgit2 said of its last failure, or fallback when it said nothing. */
static const char *git_message(const char *fallback)
{
	const git_error *e = git_error_last();

	return e && e->message ? e->message : fallback;
}

static int git_fail(const char *what, const char *arg)
{
	return bg_error("%s '%s': %s", what, arg, git_message("libgit2 error"));
}

/*
 * Removes a lock file that libgit2 left when the process holding it was killed; what was
 * killed (a build, a fetch) is said. Only under a lock that keeps every live writer out.
 */
static int remove_stale_lock(const char *lock, const char *killed)
{
	struct stat st;

	/* none there is the usual case, also where nothing could be removed (read-only) */
	if (lstat(lock, &st) < 0 && errno == ENOENT)
		return 0;
	if (unlink(lock) < 0)
		return bg_error_errno("cannot remove the stale lock '%s'", lock);
	log_info("removed '%s', left by a %s that was killed", lock, killed);
	return 0;
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
 * worktree libgit2 adds gets a branch of its name), with a stale lock on that branch.
 */
static void clear_stale(git_repository *r, const char *name)
{
	git_worktree_prune_options prune = GIT_WORKTREE_PRUNE_OPTIONS_INIT;
	git_worktree *wt = NULL;
	git_reference *branch = NULL;
	char *lock;

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
	/* a lock on its branch is a killed build's: this runs under the build lock */
	lock = xasprintf("%srefs/heads/%s.lock", git_repository_commondir(r), name);
	remove_stale_lock(lock, "build");
	free(lock);
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

int bg_git_worktree_clear_locks(const char *wt_path)
{
	static const char *const locks[] = { "index.lock", "HEAD.lock" };
	git_repository *w = NULL;
	int ret = 0;

	init_once();
	if (git_repository_open_ext(&w, wt_path, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) < 0) {
		/* nothing to unlock: the checkout makes the worktree again */
		git_error_clear();
		return 0;
	}
	for (size_t i = 0; i < ARRAY_SIZE(locks); i++) {
		char *lock = bg_path_join(git_repository_path(w), locks[i]);

		if (remove_stale_lock(lock, "build") < 0)
			ret = -1;
		free(lock);
	}
	git_repository_free(w);
	return ret;
}

int bg_git_refresh_index(const char *wt_path)
{
	git_repository *w = NULL;
	git_index *idx = NULL;
	int ret = -1;

	init_once();
	if (git_repository_open(&w, wt_path) < 0)
		return git_fail("cannot open the worktree", wt_path);
	if (git_repository_index(&idx, w) < 0 || git_index_update_all(idx, NULL, NULL, NULL) < 0 ||
	    git_index_write(idx) < 0) {
		git_fail("cannot refresh the index of", wt_path);
		goto out;
	}
	ret = 0;
out:
	git_index_free(idx);
	git_repository_free(w);
	return ret;
}

int bg_git_first_parents(const char *repo, const char *good, const char *bad, size_t max,
			 struct bg_strvec *out)
{
	git_repository *r = NULL;
	git_commit *c = NULL, *g = NULL;
	struct bg_strvec rev = BG_STRVEC_INIT;
	char id[BG_OID_HEX];
	int ret = -1;

	init_once();
	if (git_repository_open(&r, repo) < 0)
		return git_fail("cannot open the repository", repo);
	if (peel_commit(r, good, &g) < 0 || peel_commit(r, bad, &c) < 0)
		goto out;
	for (;;) {
		git_commit *p = NULL;

		git_oid_tostr(id, sizeof(id), git_commit_id(c));
		bg_strvec_push(&rev, id);
		if (git_oid_equal(git_commit_id(c), git_commit_id(g)))
			break;
		if (rev.n > max) {
			bg_error("more than %zu commits from '%s' to '%s'", max, good, bad);
			goto out;
		}
		if (git_commit_parentcount(c) == 0) {
			bg_error("'%s' is not on the first-parent chain of '%s'", good, bad);
			goto out;
		}
		if (git_commit_parent(&p, c, 0) < 0) {
			git_fail("cannot read the parent of", id);
			goto out;
		}
		git_commit_free(c);
		c = p;
	}
	for (size_t i = rev.n; i-- > 0;)
		bg_strvec_push(out, rev.v[i]);
	ret = 0;
out:
	bg_strvec_release(&rev);
	git_commit_free(c);
	git_commit_free(g);
	git_repository_free(r);
	return ret;
}

int bg_git_commit_info(const char *repo, const char *rev, struct bg_git_commit *info)
{
	git_repository *r = NULL;
	git_commit *c = NULL;
	const git_signature *a;
	const char *summary;
	int ret = -1;

	init_once();
	memset(info, 0, sizeof(*info));
	if (git_repository_open(&r, repo) < 0)
		return git_fail("cannot open the repository", repo);
	if (peel_commit(r, rev, &c) < 0)
		goto out;
	git_oid_tostr(info->id, BG_OID_HEX, git_commit_id(c));
	git_oid_tostr(info->tree, BG_OID_HEX, git_commit_tree_id(c));
	info->nparents = git_commit_parentcount(c);
	for (unsigned i = 0; i < info->nparents && i < 2; i++)
		git_oid_tostr(info->parents[i], BG_OID_HEX, git_commit_parent_id(c, i));
	summary = git_commit_summary(c);
	a = git_commit_author(c);
	info->subject = xstrdup(summary ? summary : "");
	info->author = xasprintf("%s <%s>", a->name, a->email);
	info->message = xstrdup(git_commit_message(c) ? git_commit_message(c) : "");
	ret = 0;
out:
	git_commit_free(c);
	git_repository_free(r);
	return ret;
}

void bg_git_commit_release(struct bg_git_commit *c)
{
	free(c->subject);
	free(c->author);
	free(c->message);
	memset(c, 0, sizeof(*c));
}

int bg_git_merge_base(const char *repo, const char *a, const char *b, char out[BG_OID_HEX])
{
	git_repository *r = NULL;
	git_commit *ca = NULL, *cb = NULL;
	git_oid base;
	int ret = -1;

	init_once();
	if (git_repository_open(&r, repo) < 0)
		return git_fail("cannot open the repository", repo);
	if (peel_commit(r, a, &ca) < 0 || peel_commit(r, b, &cb) < 0)
		goto out;
	if (git_merge_base(&base, r, git_commit_id(ca), git_commit_id(cb)) < 0) {
		git_fail("no common ancestor of", a);
		goto out;
	}
	git_oid_tostr(out, BG_OID_HEX, &base);
	ret = 0;
out:
	git_commit_free(ca);
	git_commit_free(cb);
	git_repository_free(r);
	return ret;
}

/*
 * A ref keeps a commit of ours from being collected while it is built and measured. The
 * commit is used by its id, never through the ref: one that cannot be made (a lock a
 * killed process left on it, every try the same name) is a warning, not a failed commit.
 */
static void keep(git_repository *r, const char *ref, const git_oid *id)
{
	git_reference *rf = NULL;

	if (git_reference_create(&rf, r, ref, id, 1, "bootgate") < 0) {
		/* not an error: bg_error_last() is left as it was */
		log_warnx("cannot make '%s': %s; the commit is used all the same, until git gc "
			  "prunes it", ref, git_message("libgit2 error"));
		return;
	}
	git_reference_free(rf);
}

int bg_git_revert_onto(const char *repo, const char *culprit, const char *onto,
		       char out[BG_OID_HEX])
{
	git_repository *r = NULL;
	git_commit *c = NULL, *o = NULL;
	git_index *idx = NULL;
	git_tree *tree = NULL;
	git_signature *sig = NULL;
	git_oid tree_id, id;
	char *msg = NULL, *ref = NULL;
	int ret = -1;

	init_once();
	if (git_repository_open(&r, repo) < 0)
		return git_fail("cannot open the repository", repo);
	if (peel_commit(r, culprit, &c) < 0 || peel_commit(r, onto, &o) < 0)
		goto out;
	/* a merge is reverted against its first parent, as git revert -m 1 */
	if (git_revert_commit(&idx, r, c, o, git_commit_parentcount(c) > 1 ? 1 : 0, NULL) < 0) {
		git_fail("cannot revert", culprit);
		goto out;
	}
	if (git_index_has_conflicts(idx)) {
		ret = 1;
		goto out;
	}
	if (git_index_write_tree_to(&tree_id, idx, r) < 0 ||
	    git_tree_lookup(&tree, r, &tree_id) < 0 ||
	    git_signature_new(&sig, "bootgate", "bootgate@localhost", git_commit_time(o), 0) < 0) {
		git_fail("cannot write the revert of", culprit);
		goto out;
	}
	msg = xasprintf("Revert \"%s\"\n\nThis reverts commit %s.\n", git_commit_summary(c),
			git_oid_tostr_s(git_commit_id(c)));
	if (git_commit_create(&id, r, NULL, sig, sig, NULL, msg, tree, 1,
			      (const git_commit **)&o) < 0) {
		git_fail("cannot commit the revert of", culprit);
		goto out;
	}
	git_oid_tostr(out, BG_OID_HEX, &id);
	ref = xasprintf("refs/bootgate/reverts/%s", out);
	keep(r, ref, &id);
	ret = 0;
out:
	free(msg);
	free(ref);
	git_signature_free(sig);
	git_tree_free(tree);
	git_index_free(idx);
	git_commit_free(c);
	git_commit_free(o);
	git_repository_free(r);
	return ret;
}

int bg_git_apply(const char *repo, const char *onto, const struct bg_git_patch *p,
		 char out[BG_OID_HEX])
{
	git_repository *r = NULL;
	git_commit *o = NULL;
	git_tree *tree = NULL;
	git_signature *author = NULL, *committer = NULL;
	git_oid tree_id, id;
	char base[BG_OID_HEX], made[BG_OID_HEX];
	int ret = -1;

	init_once();
	if (git_repository_open(&r, repo) < 0)
		return git_fail("cannot open the repository", repo);
	if (peel_commit(r, onto, &o) < 0)
		goto out;
	if (!p->diff_len) {
		bg_error("%s does not apply: no diff", p->label);
		ret = 1;
		goto out;
	}
	git_oid_tostr(base, sizeof(base), git_commit_tree_id(o));
	ret = bg_git_apply_tree(git_repository_path(r), base, p->label, p->diff, p->diff_len,
				made);
	if (ret)
		goto out;
	/* git am stops there too: nothing to commit, the tree has it already */
	if (!strcmp(made, base)) {
		bg_error("%s does not apply: it changes nothing, the tree has it already", p->label);
		ret = 1;
		goto out;
	}
	ret = -1;
	if (git_oid_fromstr(&tree_id, made) < 0 || git_tree_lookup(&tree, r, &tree_id) < 0) {
		git_fail("cannot read the tree of", p->label);
		goto out;
	}
	/* a name or an address libgit2 refuses (empty, "<" in it) is the mail's fault */
	if (git_signature_new(&author, p->author_name, p->author_email, p->when,
			      p->tz_minutes) < 0) {
		bg_error("%s: its author '%s <%s>' cannot sign a commit", p->label, p->author_name,
			 p->author_email);
		ret = 1;
		goto out;
	}
	if (git_signature_new(&committer, "bootgate", "bootgate@localhost", p->when,
			      p->tz_minutes) < 0 ||
	    git_commit_create(&id, r, NULL, author, committer, NULL, p->message, tree, 1,
			      (const git_commit **)&o) < 0) {
		git_fail("cannot commit", p->label);
		goto out;
	}
	git_oid_tostr(out, BG_OID_HEX, &id);
	if (p->ref)
		keep(r, p->ref, &id);
	ret = 0;
out:
	git_signature_free(author);
	git_signature_free(committer);
	git_tree_free(tree);
	git_commit_free(o);
	git_repository_free(r);
	return ret;
}

/* Borrows the reference repository's objects and names its branches, so that a fetch
 * asks only for what it lacks. */
static int borrow(git_repository *r, const char *reference)
{
	git_repository *ref = NULL;
	git_branch_iterator *it = NULL;
	git_reference *b;
	git_branch_t type;
	char *alt = xasprintf("%s/objects/info/alternates", git_repository_path(r));
	char *objects = NULL;
	int ret = -1;

	if (git_repository_open(&ref, reference) < 0) {
		git_fail("cannot open the reference repository", reference);
		goto out;
	}
	objects = xasprintf("%s/objects\n", git_repository_commondir(ref));
	if (bg_write_file(alt, objects, strlen(objects)) < 0)
		goto out;
	if (git_branch_iterator_new(&it, ref, GIT_BRANCH_LOCAL) < 0) {
		git_fail("cannot list the branches of", reference);
		goto out;
	}
	while (git_branch_next(&b, &type, it) == 0) {
		git_reference *made = NULL;
		char *name = xasprintf("refs/reference/%s", git_reference_shorthand(b));

		if (git_reference_target(b) &&
		    git_reference_create(&made, r, name, git_reference_target(b), 1, "reference") == 0)
			git_reference_free(made);
		free(name);
		git_reference_free(b);
	}
	git_error_clear();
	ret = 0;
out:
	git_branch_iterator_free(it);
	git_repository_free(ref);
	free(alt);
	free(objects);
	return ret;
}

/*
 * One fetch into a mirror at a time: bootgate-fetch.lock, held until *fd is closed (*fd,
 * when not -1, is the caller's to close, on failure too). Once it is held, a lock file of
 * a ref that a fetch writes (refs/heads/BRANCH, HEAD) was left by a fetch that was
 * killed: without its removal no fetch would pass again.
 */
static void fetch_waiting(void *repo)
{
	log_info("waiting for another fetch into '%s'", (const char *)repo);
}

static int fetch_lock(const char *repo, const char *local, int *fd)
{
	char *path = xasprintf("%s/bootgate-fetch.lock", repo);
	char *stale[] = { xasprintf("%s/%s.lock", repo, local), xasprintf("%s/HEAD.lock", repo) };
	int ret = -1;

	if (bg_lock_file(path, true, fetch_waiting, (void *)repo, fd) < 0)
		goto out;
	ret = 0;
	for (size_t i = 0; i < ARRAY_SIZE(stale); i++)
		if (remove_stale_lock(stale[i], "fetch") < 0)
			ret = -1;
out:
	for (size_t i = 0; i < ARRAY_SIZE(stale); i++)
		free(stale[i]);
	free(path);
	return ret;
}

int bg_git_fetch(const char *repo, const char *url, const char *branch, const char *reference,
		 char tip[BG_OID_HEX])
{
	git_repository *r = NULL;
	git_remote *remote = NULL;
	git_fetch_options fo = GIT_FETCH_OPTIONS_INIT;
	git_reference *head = NULL;
	char *spec = xasprintf("+refs/heads/%s:refs/heads/%s", branch, branch);
	char *local = xasprintf("refs/heads/%s", branch);
	char *config_lock = xasprintf("%s/config.lock", repo);
	git_strarray specs = { &spec, 1 };
	int ret = -1, lock_fd = -1;

	init_once();
	/* the mirror is made under the lock too: two first fetches would both make it */
	if (bg_mkdirs(repo) < 0 || fetch_lock(repo, local, &lock_fd) < 0)
		goto out;
	if (git_repository_open_ext(&r, repo, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) < 0) {
		git_error_clear();
		/* not a repository yet: a fetch killed while it made the mirror left that */
		if (remove_stale_lock(config_lock, "fetch") < 0)
			goto out;
		if (git_repository_init(&r, repo, 1) < 0) {
			git_fail("cannot make the mirror", repo);
			goto out;
		}
		if (reference && borrow(r, reference) < 0)
			goto out;
	}
	if (git_remote_create_anonymous(&remote, r, url) < 0) {
		git_fail("bad remote", url);
		goto out;
	}
	fo.update_fetchhead = 0;
	fo.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE;
	if (git_remote_fetch(remote, &specs, &fo, "bootgate: fetch") < 0) {
		git_fail("cannot fetch from", url);
		goto out;
	}
	if (git_reference_lookup(&head, r, local) < 0 || !git_reference_target(head)) {
		bg_error("%s has no branch '%s'", url, branch);
		goto out;
	}
	git_oid_tostr(tip, BG_OID_HEX, git_reference_target(head));
	/* HEAD names the watched branch: worktrees are made from it */
	if (git_repository_set_head(r, local) < 0) {
		git_fail("cannot point HEAD of the mirror at", local);
		goto out;
	}
	ret = 0;
out:
	git_reference_free(head);
	git_remote_free(remote);
	git_repository_free(r);
	if (lock_fd >= 0)
		close(lock_fd);
	free(config_lock);
	free(spec);
	free(local);
	return ret;
}

/* ---- a repository held open: public-inbox epochs ---- */

struct bg_git_repo {
	git_repository *r;
	char *path;
};

int bg_git_repo_open(const char *path, struct bg_git_repo **out)
{
	git_repository *r = NULL;

	init_once();
	*out = NULL;
	if (git_repository_open_ext(&r, path, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) < 0)
		return git_fail("cannot open the repository", path);
	*out = xcalloc(1, sizeof(**out));
	(*out)->r = r;
	(*out)->path = xstrdup(path);
	return 0;
}

void bg_git_repo_free(struct bg_git_repo *r)
{
	if (!r)
		return;
	git_repository_free(r->r);
	free(r->path);
	free(r);
}

int bg_git_repo_parent(struct bg_git_repo *r, const char *rev, char id[BG_OID_HEX],
		       char parent[BG_OID_HEX])
{
	git_object *obj = NULL;
	git_commit *c = NULL;
	git_oid oid;

	/* a commit id is looked up as it is: a name would be tried as every kind of ref */
	if (strlen(rev) == BG_OID_HEX - 1 && git_oid_fromstr(&oid, rev) == 0) {
		if (git_commit_lookup(&c, r->r, &oid) < 0)
			return git_fail("cannot read commit", rev);
	} else if (git_revparse_single(&obj, r->r, rev) < 0) {
		return 1;
	} else {
		git_object_free(obj);
		if (peel_commit(r->r, rev, &c) < 0)
			return -1;
	}
	git_oid_tostr(id, BG_OID_HEX, git_commit_id(c));
	parent[0] = '\0';
	if (git_commit_parentcount(c) > 0)
		git_oid_tostr(parent, BG_OID_HEX, git_commit_parent_id(c, 0));
	git_commit_free(c);
	return 0;
}

int bg_git_repo_read(struct bg_git_repo *r, const char *commit, const char *path, size_t max,
		     char **data, size_t *len)
{
	git_commit *c = NULL;
	git_tree *tree = NULL;
	git_tree_entry *e = NULL;
	git_blob *blob = NULL;
	git_oid oid;
	int ret = -1;

	*data = NULL;
	*len = 0;
	if (git_oid_fromstr(&oid, commit) < 0)
		return bg_error("%s: '%s' is not a commit id", r->path, commit);
	if (git_commit_lookup(&c, r->r, &oid) < 0 || git_commit_tree(&tree, c) < 0) {
		git_fail("cannot read commit", commit);
		goto out;
	}
	if (git_tree_entry_bypath(&e, tree, path) < 0) {
		ret = 1;
		goto out;
	}
	if (git_tree_entry_type(e) != GIT_OBJECT_BLOB) {
		ret = 1;
		goto out;
	}
	if (git_blob_lookup(&blob, r->r, git_tree_entry_id(e)) < 0) {
		git_fail("cannot read the blob of", commit);
		goto out;
	}
	if ((size_t)git_blob_rawsize(blob) > max) {
		bg_error("%s: commit %s: '%s' is larger than %zu bytes", r->path, commit, path, max);
		goto out;
	}
	*len = (size_t)git_blob_rawsize(blob);
	*data = xmalloc(*len + 1);
	memcpy(*data, git_blob_rawcontent(blob), *len);
	(*data)[*len] = '\0';
	ret = 0;
out:
	git_blob_free(blob);
	git_tree_entry_free(e);
	git_tree_free(tree);
	git_commit_free(c);
	return ret;
}
