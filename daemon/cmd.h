/* The bootgate CLI: one function per command (cmd-*.c), dispatched from bootgate.c's table. */
#ifndef BG_CMD_H
#define BG_CMD_H

#include "compat.h"

struct bg_json;
struct bg_comparison;
struct bg_sample_set;

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

/* A comparison as compare prints it: a table, or a JSON object (cmd-compare.c). */
void cmd_comparison_table(const struct bg_comparison *c, const struct bg_sample_set *base,
			  const struct bg_sample_set *cand, size_t top, bool all);
void cmd_comparison_json(struct bg_json *j, const struct bg_comparison *c,
			 const struct bg_sample_set *base, const struct bg_sample_set *cand);

/* Prints "usage: bootgate NAME USAGE" and a hint to stderr; returns 2. */
int cmd_usage_error(const char *name, const char *fmt, ...) BG_PRINTF(2, 3);
/* Prints a command's full help from the table to stdout; returns 0. */
int cmd_print_help(const char *name);
/* Parses a non-negative count for option opt; exits with 2 when it is not one. */
unsigned long cmd_parse_count(const char *cmd, const char *opt, const char *arg);
/* The bootlog warning callback of the CLI: "bootgate: warning: WHERE: MSG". */
void cmd_bootlog_warning(const char *where, const char *msg, void *data);
/* "1115.802" for 1115802 µs, "-" for -1. Returns buf. */
const char *cmd_fmt_ms(char *buf, size_t size, int64_t us);

#endif
