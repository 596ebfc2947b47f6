/*
 * The last error of the library, as one readable message (libgit2's git_error_last), kept
 * per thread.
 */
#ifndef BG_ERROR_H
#define BG_ERROR_H

#include "util/compat.h"

/* Sets the last error and returns -1, so that "return bg_error(...)" reads well. */
int bg_error(const char *fmt, ...) BG_PRINTF(1, 2);
/* The same, with ": strerror(errno)" appended. */
int bg_error_errno(const char *fmt, ...) BG_PRINTF(1, 2);
/* The message of the last error; borrowed, valid until the next error. */
const char *bg_error_last(void);
void bg_error_clear(void);

#endif
