/* Writes the programs' messages to stderr, one line each, prefixed by the program name. */
#include "log.h"

static const char *name = "bootgate";
static int verbosity;

void log_init(const char *progname, int verbose)
{
	name = progname;
	verbosity = verbose;
}

int log_verbose(void)
{
	return verbosity;
}

static void vlog(const char *level, int errnum, const char *fmt, va_list ap)
{
	char msg[4096];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (errnum)
		fprintf(stderr, "%s: %s%s: %s\n", name, level, msg, strerror(errnum));
	else
		fprintf(stderr, "%s: %s%s\n", name, level, msg);
}

void log_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog("", 0, fmt, ap);
	va_end(ap);
}

void log_warn(const char *fmt, ...)
{
	int errnum = errno;
	va_list ap;

	va_start(ap, fmt);
	vlog("warning: ", errnum, fmt, ap);
	va_end(ap);
}

void log_warnx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog("warning: ", 0, fmt, ap);
	va_end(ap);
}

void log_debug(const char *fmt, ...)
{
	va_list ap;

	if (verbosity < 1)
		return;
	va_start(ap, fmt);
	vlog("debug: ", 0, fmt, ap);
	va_end(ap);
}

void fatal(const char *fmt, ...)
{
	int errnum = errno;
	va_list ap;

	va_start(ap, fmt);
	vlog("error: ", errnum, fmt, ap);
	va_end(ap);
	exit(1);
}

void fatalx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog("error: ", 0, fmt, ap);
	va_end(ap);
	exit(1);
}
