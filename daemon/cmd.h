/* The bootgate CLI: one function per command (cmd-*.c), dispatched from bootgate.c's table. */
#ifndef BG_CMD_H
#define BG_CMD_H

#include <getopt.h>

#include "util/compat.h"
#include "conf/board.h"
#include "decide/verdict.h"
#include "lab/workers.h"
#include "store/store.h"
#include "util/strvec.h"

/*
 * A command, defined in its own cmd-*.c beside the code it describes (tmux's
 * cmd_*_entry): bootgate help, COMMAND --help and the man pages all print this.
 */
struct bg_cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *usage;      /* arguments after the command name */
	const char *summary;
	void (*help)(FILE *out); /* the options, after the usage and summary; NULL: none */
	/* its getopt_long table, ended by a NULL name: each option must be in the help */
	const struct option *opts;
};

/* Every command, in the order bootgate help lists them (cmd-table.c). */
extern const struct bg_cmd *const cmd_table[];
extern const size_t cmd_table_len;
const struct bg_cmd *cmd_find(const char *name);
/* "usage: bootgate COMMAND [ARGS]" and a line per command. */
void cmd_print_overview(FILE *out);

extern const struct bg_cmd cmd_parse_entry, cmd_diff_entry, cmd_compare_entry,
	cmd_measure_entry, cmd_bisect_entry, cmd_show_entry, cmd_status_entry,
	cmd_trigger_entry, cmd_rerun_entry, cmd_log_entry, cmd_site_entry, cmd_export_entry,
	cmd_mail_entry, cmd_serve_artifacts_entry, cmd_gate_entry, cmd_series_entry,
	cmd_fetch_entry, cmd_inbox_entry, cmd_bench_bisect_entry;

/*
 * The options of a run of builds and boots, which gate, series, bisect and measure share
 * (git's OPT__VERBOSE): one long name and one letter each, in all four. A command puts
 * CMD_RUN_OPTIONS and the CMD_OPT_* it takes in its getopt_long table, their letters in
 * its short options (CMD_RUN_SHORTOPTS, and the one after each CMD_OPT_*), and reads its
 * options with cmd_run_getopt, which takes these on the way.
 */
#define CMD_RUN_OPTIONS \
	{ "tree", required_argument, NULL, 't' }, \
	{ "arch", required_argument, NULL, 'a' }, \
	{ "board", required_argument, NULL, 'b' }, \
	{ "mode", required_argument, NULL, 'm' }, \
	{ "console", required_argument, NULL, 'C' }, \
	{ "lab", required_argument, NULL, 'l' }, \
	{ "config", required_argument, NULL, 'K' }, \
	{ "fragment", required_argument, NULL, 'F' }, \
	{ "perf-runs", required_argument, NULL, 'R' }
#define CMD_RUN_SHORTOPTS "t:a:b:m:C:l:K:F:R:"
#define CMD_OPT_NAME { "name", required_argument, NULL, 'N' }              /* N: */
#define CMD_OPT_BOOTS { "boots", required_argument, NULL, 'n' }            /* n: */
#define CMD_OPT_THRESHOLD { "threshold", required_argument, NULL, 'T' }    /* T: */
#define CMD_OPT_DB { "db", required_argument, NULL, 'd' }                  /* d: */
#define CMD_OPT_JSON { "json", no_argument, NULL, 'j' }                    /* j */
#define CMD_OPT_PARALLEL { "parallel", required_argument, NULL, 'P' }      /* P: */

/* What the run options said; what was not given is NULL, 0 or false. */
struct cmd_run_opts {
	const char *tree, *board, *lab;   /* board: the first --arch or --board */
	struct bg_strvec boards;          /* every --arch and --board, in order */
	const char *name;                 /* a plain name (bg_path_name_ok) */
	const char *mode;                 /* "deterministic" or "timing" */
	enum bg_console console;
	unsigned boots, parallel;
	bool json;
	char *db;
	struct bg_build_config config;    /* --config, --fragment and --perf-runs */
	struct bg_strvec fragments;       /* what config.fragments points into */
	struct bg_compare_config compare; /* --threshold */
};

/*
 * Gives the options o of a library's job (a bg_gate_opts, bg_series_opts,
 * bg_bisection_opts or bg_measure_opts: their fields are named alike) what each of them
 * takes from the run options r as it is; r outlives o.
 */
#define cmd_run_give(o, r) \
	((o)->tree = (r)->tree, (o)->board = (r)->board, (o)->lab = (r)->lab, \
	 (o)->console = (r)->console, (o)->config = &(r)->config)

void cmd_run_opts_init(struct cmd_run_opts *r);
void cmd_run_opts_release(struct cmd_run_opts *r);
/*
 * getopt_long over argv, the run options taken into r on the way: the next option of the
 * command's own (or what getopt_long says of a wrong one), -1 at the end. Exits with 2
 * after the usage error naming a run option whose value is wrong.
 */
int cmd_run_getopt(const char *cmd, int argc, char **argv, const char *shortopts,
		   const struct option *opts, struct cmd_run_opts *r);
/*
 * Prints the help of the run options whose letters are in shortopts (a command's short
 * options), the same lines for every command.
 */
void cmd_print_run_help(FILE *out, const char *shortopts);

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
/*
 * The store of --db for a command that writes (db, or the default with its state
 * directory made, as before the first run), made when it is not there: -1 after saying
 * why. A --db in a directory that is missing is a typo, not made.
 */
int cmd_open_store_rw(const char *db, struct bg_store **s);
/*
 * The store at path, which must be there already (a mistyped --db must not make one),
 * read-only with ro; where says in the message what else names a store. 0, or -1 after
 * saying why.
 */
int cmd_open_store_existing(const char *path, const char *where, bool ro,
			    struct bg_store **s);

/* 0 when r names at most one board; 2 after the usage error of cmd, which takes one. */
int cmd_run_one_board(const char *cmd, const struct cmd_run_opts *r);

/* Says bg_error_last() of board, named when r has several; returns 1. */
int cmd_run_board_error(const struct cmd_run_opts *r, const char *board);

/* Prints "usage: bootgate NAME USAGE" and a hint to stderr; returns 2. */
int cmd_usage_error(const char *name, const char *fmt, ...) BG_PRINTF(2, 3);
/* The usage error for the option getopt_long just refused (opterr is 0); returns 2. */
int cmd_option_error(const char *cmd, char **argv);
/* Prints a command's full help from the table to out; 0, or 2 for no such command. */
int cmd_print_help(FILE *out, const char *name);
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
/*
 * Whether boots of arch families a (read in a_where) and b may be compared; says why not.
 * A NULL arch (the lines showed none) is compatible with any.
 */
bool cmd_arches_comparable(const char *a_name, const char *a_arch, const char *a_where,
			   const char *b_name, const char *b_arch, const char *b_where);
/* "1115.802" for 1115802 µs, "-" for -1. Returns buf. */
const char *cmd_fmt_ms(char *buf, size_t size, int64_t us);

#endif
