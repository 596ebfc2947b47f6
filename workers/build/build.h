/*
 * bootgate-build: builds a commit of a kernel tree for a board, in a sandbox, into a
 * content-addressed artifact. A plain program: arguments in, a result (JSON on stdout and
 * in --result, lab/result.h) and an exit code out: 0 built, 1 the kernel (or, with --perf,
 * the tree's perf) does not build,
 * 2 usage (a bad tree, board or commit: checked before any work), 111 an infrastructure
 * failure worth a retry, 127 a program could not be run.
 *
 * The parts, in the order a build meets them; struct build is the one state they share,
 * filled by main.c from the options and by each part as the build goes:
 *   main.c      the options, the checks of the inputs, and the phases of a build in order
 *   config.c    what names the configuration (its key, the compiler) and the make steps
 *   slot.c      where a build happens: the worktree of each tree and arch, the build
 *               directory of each board, an untrusted build's fresh copy of it, the seed
 *               a new worktree starts from, and the marker of a build interrupted
 *   sandbox.c   what a build step sees: its environment, and what bubblewrap hides
 *   limits.c    what a build step may use: its time, its processes (a pids cgroup), its disk
 *   artifact.c  the image stored content-addressed or reused, and the result given
 */
#ifndef BOOTGATE_BUILD_H
#define BOOTGATE_BUILD_H

#include <time.h>

#include "conf/board.h"
#include "conf/tree.h"
#include "lab/result.h"
#include "net/git.h"
#include "util/proc.h"
#include "util/sha.h"
#include "util/strvec.h"

struct build {
	const char *rev, *cache, *result_path;
	struct bg_board board;
	struct bg_tree tree;
	unsigned jobs;
	bool sandbox;
	/*
	 * A posted patch: its own build directory, a fresh copy of the trusted one, and the
	 * shared ccache read only, so that nothing it leaves behind reaches a trusted build.
	 */
	bool untrusted;
	bool kept_theirs;         /* untrusted, and its image was already there: not its files */
	const char *service;      /* the service configuration: its secrets are hidden */
	/* ccache's remote storage shared by build hosts, and its socket or directory (or NULL) */
	const char *ccache_remote, *ccache_remote_path;
	struct bg_strvec hidden;  /* files and directories no build step sees */
	/* the limits of each build step; limit says which one ended the build */
	unsigned long timeout, max_procs, max_disk_mb;
	const char *limit;
	char *cgroup;             /* the build's pids cgroup, or NULL: no process limit */
	char *cgroup_home;        /* the cgroup.procs this worker came from */
	bool perf;                /* tools/perf too, static, into the artifact beside the image */
	char *perf_out;           /* perf's own build directory, beside o/ */
	const char *in_perf;
	char *work, *src, *out, *frag, *log, *ccache;
	char *slot;               /* the board's: its o, frag, config-key, log (see slot_paths) */
	char *marker;             /* SLOT/building: there while make runs */
	/* src, o and frag as the build sees them: the same paths for every tree, sandboxed */
	const char *in_src, *in_out, *in_frag;
	/* the base configuration: a make target (tinyconfig, *defconfig) or a .config file */
	const char *base;
	bool base_file;
	/* every fragment merged on top: the board's, then --fragment's; name in frag/ */
	struct bg_strvec frag_from, frag_name;
	char commit[BG_OID_HEX], parent[BG_OID_HEX];
	char config_key[BG_SHA256_HEX];
	char source[BG_OID_HEX];  /* the commit's tree */
	char *compiler;
	int log_fd;
	double started;           /* when the checkout began: the build's seconds count from it */
	bool compiler_missing;
	bool bad_output;          /* the image or .config is not a regular file of the build */
	struct bg_build_result res;
};

/* main.c */
void log_line(struct build *b, const char *fmt, ...) BG_PRINTF(2, 3);

/* config.c: the configuration and the make steps */
int config_inputs(struct build *b, const struct bg_strvec *extra);
int compute_config_key(struct build *b);
int compiler_version(struct build *b);
int configure(struct build *b, struct bg_proc_result *r);
int make(struct build *b, const char *target, bool jobs, struct bg_proc_result *r);
int make_perf(struct build *b, struct bg_proc_result *r);
void ccache_rate(struct build *b);
bool log_shows_machine(const struct build *b);

/* slot.c: the worktree, the build directories, the seed */
void slot_paths(struct build *b);
int take_slot(struct build *b);
bool work_is_new(const struct build *b);
void forget_seed_copies(const struct build *b);
void seed_work(struct build *b, struct timespec checkout);
int forget_interrupted(struct build *b);

/* sandbox.c: what a build step sees */
int hide_service(struct build *b);
int remote_check(const struct build *b);
void hide_tokens(struct build *b);
int step(struct build *b, char *const *argv, struct bg_proc_result *r);

/* limits.c: what a build step may use */
void cgroup_enter(struct build *b);
void cgroup_leave(struct build *b);
int run_limited(struct build *b, const struct bg_proc_opts *o, struct bg_proc_result *r);
bool limit_is_machines(const struct build *b);

/* artifact.c: the image kept, and the result */
int reuse(struct build *b);
int store(struct build *b);
void keep_failed_log(struct build *b);
int finish(struct build *b, enum bg_build_status status, const char *why);

#endif
