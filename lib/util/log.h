/* One small logging API for every program (OpenBSD smtpd's log.c). */
#ifndef BG_LOG_H
#define BG_LOG_H

#include "util/compat.h"

/* progname prefixes every message; verbose > 0 enables log_debug. */
void log_init(const char *progname, int verbose);
int log_verbose(void);
void log_info(const char *fmt, ...) BG_PRINTF(1, 2);
void log_warn(const char *fmt, ...) BG_PRINTF(1, 2);   /* appends strerror(errno) */
void log_warnx(const char *fmt, ...) BG_PRINTF(1, 2);
/*
 * What makes a command fail, for a caller that returns its exit code itself (the CLI's
 * commands): "error:", not "warning:", and no exit.
 */
void log_error(const char *fmt, ...) BG_PRINTF(1, 2);  /* appends strerror(errno) */
void log_errorx(const char *fmt, ...) BG_PRINTF(1, 2);
void log_debug(const char *fmt, ...) BG_PRINTF(1, 2);
BG_NORETURN void fatal(const char *fmt, ...) BG_PRINTF(1, 2);  /* with errno, exit 1 */
BG_NORETURN void fatalx(const char *fmt, ...) BG_PRINTF(1, 2);

/* A line of progress for a library caller's callback (fn may be NULL: nothing). */
typedef void (*bg_progress_fn)(const char *line, void *data);
void bg_progress(bg_progress_fn fn, void *data, const char *fmt, ...) BG_PRINTF(3, 4);
/*
 * bg_progress through the options of a long job, which name their callback progress and
 * its argument progress_data: bg_progress_to(o, "building %.12s", sha).
 */
#define bg_progress_to(o, ...) bg_progress((o)->progress, (o)->progress_data, __VA_ARGS__)
/*
 * The callback of a program that shows progress on stderr: "DATA: LINE", escaped for the
 * terminal; data is the prefix (a const char *, the command's name).
 */
void bg_progress_stderr(const char *line, void *data);

#endif
