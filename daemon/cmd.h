/* The bootgate CLI: one function per command (cmd-*.c), dispatched from bootgate.c's table. */
#ifndef BG_CMD_H
#define BG_CMD_H

#include "util/compat.h"
#include "conf/board.h"
#include "store/store.h"

struct bg_cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *usage;      /* arguments after the command name */
	const char *summary;
};

int cmd_parse(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_bench_bisect(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_measure(int argc, char **argv);
int cmd_bisect(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_gate(int argc, char **argv);
int cmd_series(int argc, char **argv);
int cmd_fetch(int argc, char **argv);
int cmd_trigger(int argc, char **argv);
int cmd_rerun(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_log(int argc, char **argv);
int cmd_inbox(int argc, char **argv);
int cmd_site(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_mail(int argc, char **argv);
int cmd_serve_artifacts(int argc, char **argv);

/* A bisection as bootgate show prints it; 0, or 1 after saying why. */
int cmd_show_bisection(struct bg_store *s, int64_t id, FILE *out);

/*
 * The board (that it boots in that mode, and runs a perf built here when the config asks
 * for perf runs), the tree and its revisions (NULLs skipped) checked before any work: 0,
 * or 2 after the usage error naming what is wrong.
 */
struct bg_build_config;
int cmd_check_inputs(const char *cmd, const char *tree, const char *const *revs, size_t n,
		     const char *board, bool deterministic, const char *lab,
		     const struct bg_build_config *config);
/*
 * The store of --db (NULL: the default) for a command that only reads: -1 after saying
 * why (none there, not one); never made by reading.
 */
int cmd_open_store(const char *db, struct bg_store **s);

/* Prints "usage: bootgate NAME USAGE" and a hint to stderr; returns 2. */
int cmd_usage_error(const char *name, const char *fmt, ...) BG_PRINTF(2, 3);
/* The usage error for the option getopt_long just refused (opterr is 0); returns 2. */
int cmd_option_error(const char *cmd, char **argv);
/* Prints a command's full help from the table to stdout; returns 0. */
int cmd_print_help(const char *name);
/* --console verbose|quiet (lab/board.h); exits with 2, naming the option, otherwise. */
enum bg_console cmd_parse_console(const char *cmd, const char *arg);
/*
 * A whole number from min to max for option opt (util/num.h: no sign, space or suffix);
 * exits with 2, naming the option, when arg is not one.
 */
unsigned long cmd_parse_count(const char *cmd, const char *opt, const char *arg,
			      unsigned long min, unsigned long max);
/* The same for a decimal number from lo to hi. */
double cmd_parse_real(const char *cmd, const char *opt, const char *arg, double lo, double hi);
/* The bootlog warning callback of the CLI: "bootgate: warning: WHERE: MSG". */
void cmd_bootlog_warning(const char *where, const char *msg, void *data);
/* "1115.802" for 1115802 µs, "-" for -1. Returns buf. */
const char *cmd_fmt_ms(char *buf, size_t size, int64_t us);

#endif
