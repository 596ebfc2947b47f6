/*
 * Running the workers (bootgate-build, bootgate-boot) as programs, installed next to the
 * running program, and reading their result files back: what the pipeline, the
 * bisection and the daemon share.
 */
#ifndef BG_WORKERS_H
#define BG_WORKERS_H

#include "util/compat.h"
#include "parse/bootlog.h"
#include "conf/board.h"
#include "lab/result.h"

/* A program installed next to the running one (the workers, bootgate); owned by the caller. */
char *bg_worker_path(const char *name);

/* The configuration a build is made with, beyond the board's: NULL or zero, the board's. */
struct bg_build_config {
	const char *base;         /* tinyconfig, a defconfig target, or a .config file */
	char *const *fragments;   /* files merged on top, after the board's */
	size_t nfragments;
	/*
	 * 0, or: the build makes the tree's perf too (bootgate-build --perf) and every boot
	 * runs `perf trace` this often (bootgate-boot --perf-runs): perf.trace_startup.
	 */
	unsigned perf_runs;
	/* a posted patch's code: bootgate-build --untrusted */
	bool untrusted;
};

/*
 * A base is a make target (a plain name ending in "config": tinyconfig,
 * x86_64_defconfig) or else a .config file, which must be a regular file that can be
 * read, as every fragment. -1 with why; *is_file (may be NULL) says which the base is.
 */
int bg_build_config_check(const char *base, char *const *fragments, size_t n, bool *is_file);

/*
 * Builds commit of the tree for a board (or an arch). 0 when built; -1 with why, and
 * out->status telling a commit that does not build (BG_BUILD_FAILED) from a machine
 * that failed.
 */
int bg_worker_build(const char *tree, const char *commit, const char *board, const char *lab,
		    const struct bg_build_config *config, struct bg_build_result *out);

struct bg_worker_boot {
	const char *board, *lab;
	bool deterministic;
	unsigned boots;           /* per image */
	unsigned parallel;        /* 0: the cores */
	const char *image;        /* A */
	const char *image2;       /* B, or NULL: A B A B ... */
	enum bg_console console;  /* zero: verbose */
	unsigned perf_runs;       /* 0, or runs of each image's perf, found beside it */
};

/*
 * The make flags of perf as `perf trace` needs it in a guest that has nothing but the
 * test init (NULL-terminated), and the whole make line for a reader (owned by the caller).
 */
extern const char *const bg_perf_make_flags[];
char *bg_perf_make_line(void);

/* 0 with every boot's record (its outcome says how it went); -1 when nothing booted. */
int bg_worker_boot(const struct bg_worker_boot *wb, struct bg_boot_run *out);

/*
 * A boot as the boot worker read its console (the record's parse, result.h): the one
 * reading every later stage uses; NULL, with a warning (warn may be NULL), when there
 * is none or it cannot be read.
 */
struct bg_boot *bg_worker_parsed(const struct bg_boot_record *rec,
				 void (*warn)(const char *where, const char *msg, void *data),
				 void *data);

#endif
