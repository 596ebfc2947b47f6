/*
 * Boards: how to build a kernel for one and how to boot it there. One YAML file each in
 * lab-configs/boards/; adding a board or an arch is adding a file.
 */
#ifndef BG_BOARD_H
#define BG_BOARD_H

#include "util/compat.h"
#include "conf/conf.h"

enum bg_poweroff { BG_POWEROFF, BG_REBOOT };

/*
 * What the serial console shows during a boot. verbose: every initcall_debug line at
 * loglevel=8, read as it comes. quiet: a user's console (loglevel=8 gives way to quiet),
 * the initcalls read afterwards from the ring buffer the test init dumps (bootgate.dump=1).
 * Boots of one mode are never compared with the other's.
 */
enum bg_console { BG_CONSOLE_VERBOSE, BG_CONSOLE_QUIET };

const char *bg_console_name(enum bg_console c);
/* "verbose" or "quiet"; -1 with why otherwise. */
int bg_console_parse(const char *s, enum bg_console *out);

/* Where a board boots: bootgate-boot's own QEMU, or a LAVA lab's device. */
enum bg_board_type { BG_BOARD_QEMU, BG_BOARD_LAVA };

/*
 * A LAVA board (type: lava): a device type and tags on one server. The token is read from
 * token_file or the environment variable token_env when a job is sent, never kept in a
 * file bootgate writes, a log or a URL.
 */
struct bg_lava_board {
	const char *url;           /* the server: http://host:port, without /api/... */
	const char *token_file, *token_env;   /* one of them; "" when not given */
	const char *device_type;
	char **tags;
	size_t ntags;
	char **vars;               /* NAME=value: more @NAME@ for the template */
	size_t nvars;
	const char *job_template; /* a file name in lab-configs/lava/ */
	const char *artifact_url; /* how the lab's workers reach bootgated's artifacts */
	long limit;                /* jobs in flight at once */
	long queue_timeout;        /* s a job may wait for a device before it is cancelled */
	long retries;              /* resubmissions of a boot the lab failed */
};

struct bg_board {
	enum bg_board_type type;
	const char *name, *arch;
	/* the kernel */
	const char *kernel_arch, *cross_compile, *make_target, *image;
	char **fragments;          /* file names in lab-configs/kconfig/ */
	size_t nfragments;
	const char *init_cc;       /* compiler of the test init */
	/* QEMU (for a LAVA board: only memory, cmdline and the timeouts count) */
	const char *qemu, *machine, *cpu;
	long memory;               /* MiB */
	long cpus;                 /* vCPUs, -smp N when more than 1 */
	char **qemu_args;
	size_t nqemu_args;
	enum bg_poweroff poweroff;
	const char *cmdline;       /* always */
	const char *timing_cmdline; /* only in timing mode; @HOST_TSC_KHZ@ is replaced */
	long boot_timeout, exit_timeout;  /* s */
	long icount_shift;
	char **modes;              /* the modes it boots in: timing, deterministic (both) */
	size_t nmodes;
	/* its device tree's root compatible strings, in order, for reports; none: no DT */
	char **compatible;
	size_t ncompatible;
	struct bg_lava_board lava; /* type lava */
	char *lab;                 /* the lab-configs directory the board came from */
	struct bg_conf conf;       /* owns the strings */
};

/*
 * The kernel command line of a boot on b: the board's cmdline (quiet: its loglevel=
 * replaced by quiet, and bootgate.dump=1), in timing mode its timing_cmdline
 * (@HOST_TSC_KHZ@ replaced by tsc_khz, or left as it is when tsc_khz is 0),
 * bootgate.reboot=1 where the board reboots, then extra (may be NULL), then
 * bootgate.perf=perf_runs when it is not 0. Owned by the caller.
 */
char *bg_board_cmdline(const struct bg_board *b, bool deterministic, enum bg_console console,
		       long tsc_khz, const char *extra, unsigned perf_runs);

/* 0 when b boots in that mode (its modes: key); -1 with why otherwise. */
int bg_board_check_mode(const struct bg_board *b, bool deterministic);

/*
 * 0 when a perf built here runs on b: perf is built with the host's compiler and
 * libraries and booted in QEMU, so only for QEMU boards of the host's arch; -1 with why
 * otherwise.
 */
int bg_board_check_perf(const struct bg_board *b);

/*
 * The cores a job of bootgated may boot on at once (its share of limits.boots), which the
 * daemon puts in the job's environment: bootgate-boot takes it for the cores it has, so
 * that gate, series and bisect all keep to it without an option of their own.
 */
#define BG_BOOT_SLOTS_ENV "BOOTGATE_BOOT_SLOTS"

/*
 * A ccache remote storage shared by build hosts (ccache's remote_storage), which a build
 * reaches from its sandbox, where it has no network: "redis+unix:/PATH" (a Redis server's
 * socket) or "file:/DIR" (a directory every host mounts). The daemon gives it to its
 * jobs in this environment variable; bootgate-build takes it from there or --ccache-remote.
 */
#define BG_CCACHE_REMOTE_ENV "BOOTGATE_CCACHE_REMOTE"
/*
 * The path that url names (borrowed from url: after the scheme), the socket's or the
 * directory's; NULL with why in bg_error_last() for any other url, a relative path, one
 * with "|" (ccache's attributes are the build's to set), blanks or control characters.
 */
const char *bg_ccache_remote_path(const char *url);

/* Loads lab/boards/NAME.yaml (NAME: a board, or an arch for qemu-ARCH). */
int bg_board_load(const char *lab, const char *name, struct bg_board *b);
/*
 * The same from a board file already read: file names it in errors; its fragments and
 * template are still looked up in lab.
 */
int bg_board_load_mem(const char *lab, const char *file, const char *text, size_t len,
		      struct bg_board *b);
void bg_board_release(struct bg_board *b);
/*
 * Seconds a boot may take to reach the marker: boot_timeout, four times over in
 * deterministic mode, where the guest's clock counts instructions and runs slower.
 */
double bg_board_boot_seconds(const struct bg_board *b, bool deterministic);
/* The lab-configs directory: $BOOTGATE_LAB, else next to the program's bin/. */
const char *bg_lab_dir(void);
/* The project's directory holding rel (e.g. "scripts/initramfs.sh"), found upward from
 * the running program; NULL if none. */
const char *bg_project_file(const char *rel);

#endif
