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
/* 0 when path is a git repository (a work tree or a bare one), else -1 with why. */
int bg_git_is_repository(const char *path);
/* The commit id of rev in repo. */
int bg_git_resolve(const char *repo, const char *rev, char commit[BG_OID_HEX]);
/* Whether name can be a branch (refs/heads/NAME): git's rules, and no leading '-'. */
bool bg_git_branch_name_ok(const char *name);

#endif
