/* Files and directories: the small helpers every program needs, with errors set. */
#ifndef BG_FS_H
#define BG_FS_H

#include "util/compat.h"

/* mkdir -p. */
int bg_mkdirs(const char *path);
/* The whole file, NUL-terminated, owned by the caller; NULL with an error when it cannot
 * be read or is larger than max bytes. *len may be NULL. */
char *bg_read_file(const char *path, size_t max, size_t *len);
/* Writes through a temporary file and a rename: readers see the old or the new file. */
int bg_write_file(const char *path, const void *data, size_t len);
int bg_copy_file(const char *from, const char *to);
/* rm -rf: path and everything under it; symbolic links are removed, never followed. */
int bg_remove_tree(const char *path);

#endif
