/* Keeps the last library error so callers can report it where they choose. */
#include "util/error.h"

/*
 * A message names paths, which can be PATH_MAX long. One per thread, as libgit2's: the
 * webhook's HTTP thread fails on its own requests while the daemon's loop reads its own.
 */
static _Thread_local char last[8192];

/*
 * Formats into a buffer of its own first: a caller may pass the last message as an
 * argument ("bg_error("%s: %s", file, bg_error_last())"), which must not be overwritten
 * while it is being read.
 */
static void set(const char *fmt, va_list ap, int errnum)
{
	char msg[sizeof(last)];
	int n = vsnprintf(msg, sizeof(msg), fmt, ap);

	if (errnum && n >= 0 && (size_t)n < sizeof(msg))
		snprintf(msg + n, sizeof(msg) - n, ": %s", strerror(errnum));
	memcpy(last, msg, sizeof(last));
}

int bg_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	set(fmt, ap, 0);
	va_end(ap);
	return -1;
}

int bg_error_errno(const char *fmt, ...)
{
	int errnum = errno;
	va_list ap;

	va_start(ap, fmt);
	set(fmt, ap, errnum);
	va_end(ap);
	return -1;
}

const char *bg_error_last(void)
{
	return last[0] ? last : "no error";
}

void bg_error_clear(void)
{
	last[0] = '\0';
}
