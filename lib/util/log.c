/* Writes the programs' messages to stderr, one line each, prefixed by the program name. */
#include "util/log.h"
#include "util/strbuf.h"
#include "util/text.h"

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

/* Messages quote file names, config values and log lines: escaped for the terminal. */
static void vlog(const char *level, int errnum, const char *fmt, va_list ap)
{
	struct bg_strbuf raw = BG_STRBUF_INIT, safe = BG_STRBUF_INIT;

	bg_strbuf_addf(&raw, "%s: %s", name, level);
	bg_strbuf_vaddf(&raw, fmt, ap);
	if (errnum)
		bg_strbuf_addf(&raw, ": %s", strerror(errnum));
	bg_text_escape_line(&safe, raw.buf, raw.len);
	bg_strbuf_addch(&safe, '\n');
	fwrite(safe.buf, 1, safe.len, stderr);
	bg_strbuf_release(&raw);
	bg_strbuf_release(&safe);
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

void log_error(const char *fmt, ...)
{
	int errnum = errno;
	va_list ap;

	va_start(ap, fmt);
	vlog("error: ", errnum, fmt, ap);
	va_end(ap);
}

void log_errorx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog("error: ", 0, fmt, ap);
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

void bg_progress(bg_progress_fn fn, void *data, const char *fmt, ...)
{
	struct bg_strbuf sb = BG_STRBUF_INIT;
	va_list ap;

	if (!fn)
		return;
	va_start(ap, fmt);
	bg_strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	fn(sb.buf, data);
	bg_strbuf_release(&sb);
}

void bg_progress_stderr(const char *line, void *data)
{
	bg_text_printf(stderr, "%s: %s\n", (const char *)data, line);
}
