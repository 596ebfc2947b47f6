/* Keeps the last library error so callers can report it where they choose. */
#include "error.h"

static char last[1024];

static void set(const char *fmt, va_list ap, int errnum)
{
	int n = vsnprintf(last, sizeof(last), fmt, ap);

	if (errnum && n >= 0 && (size_t)n < sizeof(last))
		snprintf(last + n, sizeof(last) - n, ": %s", strerror(errnum));
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
