/* Files and directories: the small helpers every program needs, with errors set. */
#ifndef BG_FS_H
#define BG_FS_H

#include "util/compat.h"

/* mkdir -p. */
int bg_mkdirs(const char *path);
/*
 * The whole regular file, NUL-terminated, owned by the caller; NULL with an error when
 * it cannot be read, is not a regular file (a FIFO would block, a device never end) or
 * is larger than max bytes. *len may be NULL.
 */
char *bg_read_file(const char *path, size_t max, size_t *len);
/* The same file open for reading a line at a time: NULL with an error as above. */
FILE *bg_fopen_regular(const char *path);
/*
 * Writes through a temporary file and a rename: readers see the old or the new file.
 * A path that is there and is not a regular file (a link, a FIFO, a device) is refused,
 * never replaced.
 */
int bg_write_file(const char *path, const void *data, size_t len);
/*
 * Whether a and b name one file that is there (one device and inode: through a link,
 * "x/../", another hard link): an output that is also an input must not replace it.
 */
bool bg_same_file(const char *a, const char *b);
int bg_copy_file(const char *from, const char *to);
/*
 * Opens the regular file rel below dir without following a symbolic link on the way
 * (for files that untrusted code could have replaced, such as a build's output): the
 * descriptor, owned by the caller, or -1 with why.
 */
int bg_open_beneath(const char *dir, const char *rel);
/* Copies what the descriptor reads to the file to (as bg_write_file); closes nothing. */
int bg_copy_fd(int fd, const char *name, const char *to);
/* rm -rf: path and everything under it; symbolic links are removed, never followed. */
int bg_remove_tree(const char *path);

/*
 * Takes the exclusive flock of the lock file path, made if it is not there and never
 * opened through a symbolic link (another user's link would lock, or create, its target).
 * 0 with the descriptor in *fd, the caller's: the lock lasts until it is closed, or until
 * the process ends, so that no stale lock is left. When another process holds it: with
 * wait, waiting(data) is called first (NULL: nothing) to say so, then the lock is waited
 * for; without, BG_LOCK_BUSY. -1 with why ("cannot open 'PATH'", "cannot lock 'PATH'").
 * On anything but 0, *fd is -1.
 */
#define BG_LOCK_BUSY (-2)
int bg_lock_file(const char *path, bool wait, void (*waiting)(void *data), void *data,
		 int *fd);

/*
 * Gives each regular file below dir that holds the same bytes as the regular file at the
 * same path below from the modification time of that one; every other file keeps its own
 * (a top-level .git is left out). A build directory made from from's sources then takes
 * the files it shares with dir as done, and builds the others anew, as after a checkout.
 * Counts the files given a time (same) and the others whose path is a file or nothing in
 * from (other; below a directory that from lacks, none are looked at). Symbolic links
 * are never followed, and one that is not a link to the same name in from is an error
 * (make would go by what it points at): then some files may have their new times, and
 * the caller builds from nothing.
 */
struct bg_retime {
	unsigned long long same, other;
	const char *from;     /* for the messages */
};
int bg_retime_same(const char *dir, const char *from, struct bg_retime *rt);

#endif
