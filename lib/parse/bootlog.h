/*
 * The boot-log parser: reads kernel console logs (raw serial captures, dmesg dumps,
 * LAVA job logs) and yields, for each boot in them, its initcalls, driver probes,
 * milestones and outcome. It streams: memory depends on one boot, not on the log.
 */
#ifndef BG_BOOTLOG_H
#define BG_BOOTLOG_H

#include "util/compat.h"
#include "util/arena.h"

/* Lines longer than this are skipped and counted as unparsed. */
#define BG_BOOTLOG_MAX_LINE 65536

/*
 * Longest duration read (µs, about 28 hours): a longer one is not a boot's figure but a
 * mangled or hostile line, counted as unparsed.
 */
#define BG_BOOTLOG_MAX_US INT64_C(100000000000)

/* The line the test init of bootgate writes to /dev/kmsg once userspace runs. */
#define BG_USERSPACE_MARKER "bootgate: userspace reached"
/*
 * What the test init writes to /dev/kmsg after each run of `perf trace -C 0 -- true`
 * (bootgate.perf=R): "bootgate: perf.trace_startup=<us> run=<i> exit=<status>".
 */
#define BG_PERF_RUN_LINE "bootgate: perf.trace_startup="
/* More runs than this in one boot are not a test init's doing: the rest are ignored. */
#define BG_BOOT_MAX_PERF_RUNS 1000
/* How the kernel begins the message of a panic. */
#define BG_PANIC_MARKER "Kernel panic - not syncing"

/*
 * How a boot ended: one vocabulary for the parser, the boot worker and everything that
 * reads their results. A log alone says complete, panic or truncated; the boot worker,
 * which watched the boot happen, also says hang and infra. Only complete boots give
 * timing data; a hang or a lab failure is never counted as a regression.
 */
enum bg_outcome {
	BG_OUTCOME_TRUNCATED,   /* the log ends before init, without a panic */
	BG_OUTCOME_COMPLETE,    /* init reached (the boot worker: its marker printed) */
	BG_OUTCOME_PANIC,       /* the kernel panicked (before or after init) */
	BG_OUTCOME_HANG,        /* no marker before the board's timeout, or the kernel fell silent */
	BG_OUTCOME_INFRA,       /* the lab failed: QEMU stopped before the kernel said a word */
};

struct bg_initcall {
	const char *name;       /* function, without +off/size: those change with patches */
	const char *module;     /* "[mod]" of the line, or NULL when built in */
	const char *line;       /* the kernel's own message, without its timestamp; NULL
				   unless bg_bootlog_keep_lines asked for it */
	int ret;
	int64_t usecs;          /* as the kernel reported it ("msecs" lines converted) */
	int64_t start_us;       /* printk time of the matching "calling" line, or -1 */
	int64_t end_us;         /* printk time of the "initcall" line, or -1 */
	uint64_t lineno;        /* where the "initcall" line stands in the log (1-based) */
};

struct bg_probe {
	const char *device;
	const char *line;       /* as for initcalls */
	int ret;
	int64_t usecs;
	int64_t start_us;       /* end_us - usecs, or -1 without printk time */
	int64_t end_us;
	uint64_t lineno;        /* as for initcalls */
};

struct bg_boot {
	unsigned index;           /* position of the boot in its log, from 0 */
	const char *kernel;       /* release from "Linux version", or NULL */
	const char *banner;       /* the whole "Linux version ..." message, or NULL */
	const char *cmdline;      /* "Kernel command line:" (or x86's "Command line:") */
	const char *arch;         /* family the boot's lines show: "x86", "arm", "powerpc",
				     "riscv", "s390", "mips", "loongarch", "sparc"; NULL if
				     they do not */
	enum bg_outcome outcome;
	const char *panic;        /* the "Kernel panic - not syncing: ..." message */

	struct bg_initcall *initcalls;   /* in boot order, each console line once */
	size_t nr_initcalls;
	struct bg_probe *probes;
	size_t nr_probes;

	int64_t init_us;          /* printk time of "Run /init as init process", or -1 */
	uint64_t init_line;       /* where that line stands in the log, or 0 */
	int64_t userspace_us;     /* time of the userspace marker, or -1 */
	int64_t free_initmem_us;  /* first "Freeing unused kernel ... memory", or -1 */

	int64_t *perf_runs;       /* µs of each perf trace run that exited 0, in run order */
	size_t nr_perf_runs;
	unsigned perf_failed;     /* runs that exited nonzero: they give no value */
	unsigned perf_ignored;    /* runs past BG_BOOT_MAX_PERF_RUNS: neither value nor failure */
	const char **problems;    /* Oops, BUG, WARNING lines: the first BG_BOOT_MAX_PROBLEMS */
	size_t nr_problems;
	uint64_t problems_total;
	uint64_t unparsed_lines;  /* lines that start like an event but do not read as one */
	uint64_t first_line, last_line;  /* where the boot stands in the log (1-based) */

	/* private to the parser */
	size_t alloc_initcalls, alloc_probes, alloc_problems, alloc_perf_runs;
	struct bg_arena arena;
};

#define BG_BOOT_MAX_PROBLEMS 32

const char *bg_outcome_name(enum bg_outcome o);
/* The outcome named s; -1 (bg_error_last says why) for a name that is none. */
int bg_outcome_parse(const char *s, enum bg_outcome *o);

struct bg_bootlog;

/*
 * on_boot is called once per boot, in log order; the boot is borrowed for the call
 * (bg_boot_clone keeps one). A nonzero return stops the parse and is returned by
 * bg_bootlog_feed/finish/parse_*. on_warning, when set, hears about bad input:
 * where is "name:line" or "name:line:col".
 */
struct bg_bootlog *bg_bootlog_new(const char *name,
				  int (*on_boot)(const struct bg_boot *boot, void *data),
				  void *data);
void bg_bootlog_set_warning(struct bg_bootlog *p,
			    void (*on_warning)(const char *where, const char *msg, void *data));
void bg_bootlog_free(struct bg_bootlog *p);
/* Keep each initcall's and probe's own line (for quoting them); off by default. */
void bg_bootlog_keep_lines(struct bg_bootlog *p, bool keep);
/*
 * A log with no boot at all is an error ("NAME: no kernel log in it") instead of one empty
 * truncated boot: for commands that read files a person named, not a console that may
 * still be silent; off by default.
 */
void bg_bootlog_require_boot(struct bg_bootlog *p, bool require);

/* Raw console bytes, split anywhere. */
int bg_bootlog_feed(struct bg_bootlog *p, const char *buf, size_t len);
/* Ends the log: delivers its last boot, or one empty truncated boot if it had none (see
 * bg_bootlog_require_boot). */
int bg_bootlog_finish(struct bg_bootlog *p);

/*
 * Whole logs, console or LAVA YAML (told apart by their first line), then finish.
 * Return 0, on_boot's nonzero return, or -1 when the input cannot be read at all
 * (bg_error_last says why). "-" is standard input.
 */
int bg_bootlog_parse_path(struct bg_bootlog *p, const char *path);
int bg_bootlog_parse_fd(struct bg_bootlog *p, int fd);
int bg_bootlog_parse_mem(struct bg_bootlog *p, const char *buf, size_t len);

/*
 * The kernel's own message on line lineno (1-based) of a stored console, console or
 * LAVA log, when that line is an initcall's or a probe's: for quoting it, without
 * parsing the console again. Owned by the caller; NULL when the line is none of those,
 * or the file is gone.
 */
char *bg_bootlog_quote(const char *path, uint64_t lineno);

/* Statistics of the log read so far. */
uint64_t bg_bootlog_lines(const struct bg_bootlog *p);
uint64_t bg_bootlog_bytes(const struct bg_bootlog *p);
unsigned bg_bootlog_boots(const struct bg_bootlog *p);

/* A deep copy, owned by the caller (free with bg_boot_free). */
struct bg_boot *bg_boot_clone(const struct bg_boot *b);
void bg_boot_free(struct bg_boot *b);

/*
 * A boot made from a parse that was kept (lab/result.c reads the boot worker's LOG.json):
 * bg_boot_new gives an empty truncated one (free with bg_boot_free), bg_boot_keep copies
 * a string into it (NULL stays NULL), the adders give a zeroed entry to fill in, or add
 * a value.
 */
struct bg_boot *bg_boot_new(void);
const char *bg_boot_keep(struct bg_boot *b, const char *s);
struct bg_initcall *bg_boot_add_initcall(struct bg_boot *b);
struct bg_probe *bg_boot_add_probe(struct bg_boot *b);
void bg_boot_add_perf_run(struct bg_boot *b, int64_t usecs);
void bg_boot_add_problem(struct bg_boot *b, const char *line);

/* Used by the LAVA reader: one console line, without its line end. */
int bg_bootlog_console_line(struct bg_bootlog *p, const char *line, size_t len);
/* Where the next line stands in the log, for readers that are not line based. */
void bg_bootlog_set_lineno(struct bg_bootlog *p, uint64_t next_line);
/* Reports bad input through on_warning. */
void bg_bootlog_warn(struct bg_bootlog *p, const char *where, const char *fmt, ...)
	BG_PRINTF(3, 4);
const char *bg_bootlog_name(const struct bg_bootlog *p);

/*
 * Boot-data files (bootlog-bootdata.c), the format of Tim Bird's boot-time wizard
 * (grab-boot-data.sh writes it): "== NAME ==" lines open sections of machine data, and
 * the kernel's messages are the section "== KERNEL MESSAGES ==". A log whose first
 * line that is not blank opens such a file is read as one: only its kernel sections
 * reach the console parser, and every line keeps its own number in the file.
 */
#define BG_BOOTDATA_KERNEL "KERNEL MESSAGES"

enum bg_bootdata_format { BG_BOOTDATA_UNKNOWN, BG_BOOTDATA_NO, BG_BOOTDATA_YES };

struct bg_bootdata {
	enum bg_bootdata_format format;   /* decided by the first line that is not blank */
	bool in_kernel;                   /* inside a KERNEL MESSAGES section */
	unsigned kernel_sections;
};

/* What to do with one line of a log. */
enum bg_bootdata_line {
	BG_BOOTDATA_PASS,         /* a kernel message (or the log is no boot-data file) */
	BG_BOOTDATA_SKIP,         /* a section header, or machine data */
	BG_BOOTDATA_MALFORMED,    /* starts like a header but is none: skipped, worth a warning */
};

/* One physical line, without its line end. */
enum bg_bootdata_line bg_bootdata_line(struct bg_bootdata *bd, const char *s, size_t len);
/*
 * Whether s[0..len) is a section header "== NAME ==" (blanks around NAME, after the
 * closing "==" allowed, as the wizard's own reader does); *name and *name_len: NAME.
 */
bool bg_bootdata_header(const char *s, size_t len, const char **name, size_t *name_len);

/* The LAVA job-log reader (bootlog-lava.c); read() supplies the YAML text. */
int bg_bootlog_parse_lava(struct bg_bootlog *p,
			  ssize_t (*read_fn)(void *data, char *buf, size_t size), void *data);
/* Whether the first bytes of a log look like a LAVA job log. */
bool bg_bootlog_is_lava(const char *buf, size_t len);

#endif
