/* Git repositories through libgit2: resolving revisions and moving worktrees. */
#ifndef BG_GIT_H
#define BG_GIT_H

#include "util/compat.h"

#define BG_OID_HEX 41

/*
 * Puts the worktree at wt_path (created from repo if missing) on rev, detached, writing
 * only the files that differ so that an out-of-tree build stays incremental. Fills the
 * commit's id and its first parent's ("" for a root commit).
 */
int bg_git_checkout(const char *repo, const char *wt_path, const char *rev,
		    char commit[BG_OID_HEX], char parent[BG_OID_HEX]);
/*
 * Removes the lock files that a process killed inside libgit2 leaves in the worktree's own
 * git directory (worktrees/NAME of its repository): index.lock and HEAD.lock, each said.
 * While one is there, every checkout of that worktree fails. Only for a caller that holds
 * what keeps every other writer of the worktree out (the build lock), so that any lock
 * found is a dead process's. 0, also when the worktree is missing or broken (the checkout
 * makes it again); -1 when a lock cannot be removed.
 */
int bg_git_worktree_clear_locks(const char *wt_path);
/*
 * Records in the index of the worktree at wt_path what its files are now (their times
 * set by hand): the next checkout then sees them unchanged and leaves them alone.
 */
int bg_git_refresh_index(const char *wt_path);
/* 0 when path is a git repository (a work tree or a bare one), else -1 with why. */
int bg_git_is_repository(const char *path);
/* The commit id of rev in repo. */
int bg_git_resolve(const char *repo, const char *rev, char commit[BG_OID_HEX]);
/* Whether name can be a branch (refs/heads/NAME): git's rules, and no leading '-'. */
bool bg_git_branch_name_ok(const char *name);

struct bg_strvec;

/*
 * The first-parent chain from good to bad, good first: what a bisection walks. -1 when
 * good is not on bad's first-parent chain, or the chain is longer than max commits.
 */
int bg_git_first_parents(const char *repo, const char *good, const char *bad, size_t max,
			 struct bg_strvec *out);

struct bg_git_commit {
	char id[BG_OID_HEX];
	char tree[BG_OID_HEX];        /* its source: commits of one tree build alike */
	char parents[2][BG_OID_HEX];  /* the first two; "" when there are fewer */
	unsigned nparents;
	char *subject, *author;       /* "Name <mail>" */
	char *message;                /* the whole message */
};
int bg_git_commit_info(const char *repo, const char *rev, struct bg_git_commit *c);
void bg_git_commit_release(struct bg_git_commit *c);
/* The best common ancestor of a and b. */
int bg_git_merge_base(const char *repo, const char *a, const char *b, char out[BG_OID_HEX]);
/*
 * A commit reverting culprit on top of onto, kept under refs/bootgate/reverts/: 0 with
 * its id, 1 when the revert does not apply (conflicts), -1 on errors.
 */
int bg_git_revert_onto(const char *repo, const char *culprit, const char *onto,
		       char out[BG_OID_HEX]);
/* A patch as a mail carries it, to be committed as git am would. */
struct bg_git_patch {
	const char *label;            /* "patch 2/3": what the errors call it */
	const char *diff;             /* the unified diff, "diff --git" on */
	size_t diff_len;
	const char *message;          /* the whole commit message, subject line first */
	const char *author_name, *author_email;
	int64_t when;                 /* the author date, Unix seconds */
	int tz_minutes;               /* and its offset */
	const char *ref;              /* NULL, or the ref that keeps the commit reachable */
};
/*
 * Applies p on top of onto and commits it: p's author and date, the committer
 * "bootgate <bootgate@localhost>" at the author date, so that the same patch on the same
 * commit is the same commit every time. 0 with its id; 1 when the patch does not apply,
 * with why naming the file ("patch 2/3 does not apply: kernel/trace/trace.c: ..."); -1 on
 * errors of the repository.
 */
int bg_git_apply(const char *repo, const char *onto, const struct bg_git_patch *p,
		 char out[BG_OID_HEX]);

/*
 * Fetches branch from url into the bare mirror at repo (made when missing; reference, if
 * not NULL, is a local repository whose objects it borrows, as git clone --reference
 * does), updating refs/heads/BRANCH; fills the tip. One fetch into a mirror at a time
 * (another waits, said): refs/heads/BRANCH.lock and HEAD.lock found then were left by a
 * fetch that was killed, and are removed, each said.
 */
int bg_git_fetch(const char *repo, const char *url, const char *branch, const char *reference,
		 char tip[BG_OID_HEX]);

/*
 * A repository kept open for many reads (a public-inbox epoch: thousands of commits and
 * blobs, where opening it for each would cost more than the reading).
 */
struct bg_git_repo;
int bg_git_repo_open(const char *path, struct bg_git_repo **out);
void bg_git_repo_free(struct bg_git_repo *r);
/*
 * The commit rev names, in id, and its first parent, in parent ("" for a root): one step
 * down a chain, so that a walk holds what it chooses, not the whole history. 1 when rev
 * does not resolve (an epoch with no commit yet); -1 with why.
 */
int bg_git_repo_parent(struct bg_git_repo *r, const char *rev, char id[BG_OID_HEX],
		       char parent[BG_OID_HEX]);
/*
 * The file at path in commit's tree: 0 with *data (NUL-terminated, owned by the caller)
 * and *len; 1 when the tree has no such file (a public-inbox message deleted); -1 when
 * the commit cannot be read or the blob is larger than max bytes.
 */
int bg_git_repo_read(struct bg_git_repo *r, const char *commit, const char *path, size_t max,
		     char **data, size_t *len);

#endif
