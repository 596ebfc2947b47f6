/*
 * Where a tree's slow things live in the cache, and what names a tree. Most kernel trees
 * are called "linux": a tree is known by its real path, not by its last component.
 */
#ifndef BG_TREE_H
#define BG_TREE_H

#include "util/compat.h"

/* $BOOTGATE_CACHE, or /var/cache/bootgate; borrowed. */
const char *bg_cache_dir(void);

struct bg_tree {
	char *real;        /* the real path of the tree */
	char *id;          /* "NAME-HASH12": its last component and a hash of its real path */
};

/*
 * Fills t for the git repository at path (a work tree or a bare repository); -1 when
 * path is not a directory or not a git repository, which is the caller's input error.
 */
int bg_tree_open(const char *path, struct bg_tree *t);
void bg_tree_release(struct bg_tree *t);
/*
 * $BOOTGATE_CACHE/work/ID/ARCH, owned by the caller: the tree's worktree (src/), build
 * directory (o/) and config fragments (frag/) for an arch, and its build.log.
 */
char *bg_tree_workdir(const struct bg_tree *t, const char *arch);

#endif
