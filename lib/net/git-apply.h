/* A patch applied by git apply, as git am applies it (git-apply.c). */
#ifndef BG_GIT_APPLY_H
#define BG_GIT_APPLY_H

#include "util/compat.h"
#include "net/git.h"

/*
 * The tree that results from applying diff (a patch as a mail carries it) to base_tree
 * (its id) in the repository whose git directory is gitdir: 0 with its id in tree; 1 when
 * it does not apply, with "LABEL does not apply: FILE: why"; -1 when git cannot be run
 * or the repository fails.
 */
int bg_git_apply_tree(const char *gitdir, const char *base_tree, const char *label,
		      const char *diff, size_t diff_len, char tree[BG_OID_HEX]);

#endif
