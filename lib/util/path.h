/* Paths: joined without a length limit, and names that must stay one path component. */
#ifndef BG_PATH_H
#define BG_PATH_H

#include "util/compat.h"

/* "dir/name", owned by the caller. */
char *bg_path_join(const char *dir, const char *name);
/*
 * Whether s can be a file or directory name of its own: 1 to 64 of [A-Za-z0-9._+-],
 * not starting with '.' or '-'. Board names, arches and other names from input become
 * paths: "../../x" must not.
 */
bool bg_path_name_ok(const char *s);
/*
 * The directory that holds path ("." when it names none, "/" for the root's entries),
 * trailing slashes left out: owned by the caller.
 */
char *bg_path_parent(const char *path);
/*
 * path with its directory resolved (realpath of the parent, then the last name as given,
 * not followed): "x/../y" and a linked directory then read as the one directory. NULL
 * with errno when that directory cannot be resolved.
 */
char *bg_path_resolve_parent(const char *path);

#endif
