/*
 * What the workers say back: bootgate-build's and bootgate-boot's result files (JSON,
 * described in schemas/result.schema.json), written and read here alone, and the exit
 * codes a scheduler acts on. One vocabulary throughout: a build's status is named after
 * its exit code, a boot's outcome is parse/bootlog.h's.
 */
#ifndef BG_RESULT_H
#define BG_RESULT_H

#include "util/compat.h"
#include "util/json.h"
#include "parse/bootlog.h"

/* Worker exit codes: retry only what is worth retrying (s6's convention for 127). */
enum bg_exit {
	BG_EXIT_OK = 0,          /* built, or every boot reached userspace */
	BG_EXIT_FAILED = 1,      /* the kernel does not build, or a boot panicked or hung */
	BG_EXIT_USAGE = 2,       /* the input is wrong: retrying cannot help */
	BG_EXIT_INFRA = 111,     /* the machine failed: worth a retry */
	BG_EXIT_EXEC = 127,      /* a program could not be run */
};

enum bg_build_status {
	BG_BUILD_BUILT,          /* exit 0 */
	BG_BUILD_FAILED,         /* exit 1: a bisection skips such a commit */
	BG_BUILD_USAGE,          /* exit 2 */
	BG_BUILD_INFRA,          /* exit 111 */
	BG_BUILD_EXEC,           /* exit 127 */
};

const char *bg_build_status_name(enum bg_build_status s);
enum bg_exit bg_build_status_exit(enum bg_build_status s);

struct bg_build_result {
	enum bg_build_status status;
	char *error;             /* why, when not built */
	char *tree, *tree_id;    /* the tree's real path and identity (lab/tree.h) */
	char *commit, *parent;   /* full ids; NULL when unknown */
	char *board, *arch;
	char *config_hash, *compiler;
	char *image, *image_sha256, *artifact;   /* when built */
	/*
	 * Built with perf (bootgate-build --perf): perf beside the image in the artifact,
	 * perf's and the kernel image's own hashes; image_sha256 then names both.
	 */
	char *perf, *perf_sha256, *kernel_sha256;
	int identical_to_parent; /* 1, 0, or -1 unknown */
	bool reused;             /* the image of the same source and configuration was kept */
	long ccache_hits, ccache_misses;   /* this build's compiles */
	/* of the hits, those from the build hosts' shared remote storage; its failures */
	long ccache_remote_hits, ccache_remote_errors;
	double build_seconds;
	char *log;
};

void bg_build_result_init(struct bg_build_result *r);
void bg_build_result_release(struct bg_build_result *r);
void bg_build_result_write(struct bg_json *j, const struct bg_build_result *r);
/* 0, or -1 with "name:line:col: why" or "name: why" when text is not such a result. */
int bg_build_result_read(const char *name, const char *text, struct bg_build_result *r);

struct bg_boot_record {
	int image;               /* 0: --image (A), 1: --image2 (B) */
	char *image_path;
	enum bg_outcome outcome; /* complete, panic, hang or infra */
	double wall_seconds;
	double userspace_wall_seconds;   /* NAN without the marker */
	char *log;               /* the console */
	char *parsed;            /* the path of its parsed boot (LOG.json, report/boot-json.h) */
	char *job_url;           /* the lab's page of the boot (a LAVA job's URL); NULL on QEMU */
};

struct bg_boot_run {
	char *board, *mode, *accel, *cmdline, *out;
	char *console;            /* verbose or quiet (lab/board.h); NULL from an older worker */
	struct bg_boot_record *boots;
	size_t n, alloc;
};

void bg_boot_run_init(struct bg_boot_run *r);
void bg_boot_run_release(struct bg_boot_run *r);
/* Moves src's records to the end of dst's: src keeps its header and no record. */
void bg_boot_run_append(struct bg_boot_run *dst, struct bg_boot_run *src);
/* Adds a record, its strings copied; the record returned is valid until the next add. */
struct bg_boot_record *bg_boot_run_add(struct bg_boot_run *r, int image, const char *image_path,
				       enum bg_outcome outcome, const char *log);
void bg_boot_run_write(struct bg_json *j, const struct bg_boot_run *r);
int bg_boot_run_read(const char *name, const char *text, struct bg_boot_run *r);

/*
 * A boot as the boot worker read it (its LOG.json, in the shape of report/boot-json.h):
 * the one reading of its console that every later stage uses. NULL with why when the
 * file cannot be read or is not such a boot (a number out of range, a name missing).
 */
struct bg_boot *bg_boot_read_parsed(const char *path);

#endif
