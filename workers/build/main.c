/*
 * bootgate-build's options and the phases of a build in order: parse, check the inputs,
 * run (identify, reuse or check out, configure, compile, store), release. build.h says
 * what the other parts are.
 */
#include <fcntl.h>
#include <getopt.h>
#include <sys/stat.h>

#include "build.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/num.h"
#include "util/strbuf.h"
#include "util/xmalloc.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: bootgate-build --tree DIR --commit REV --board NAME [--lab DIR]\n"
		"                      [--config BASE] [--fragment FILE]... [--jobs N]\n"
		"                      [--result FILE] [--no-sandbox] [--perf] [--untrusted]\n"
		"                      [--service FILE] [--timeout S] [--max-procs N]\n"
		"                      [--max-disk MIB] [--ccache-remote URL]\n"
		"\nBuilds REV of the kernel tree DIR for a board of lab-configs/boards/ (or an\n"
		"arch: x86_64, arm64, ppc64le). The worktree of each tree and arch and the\n"
		"out-of-tree build directory of each board are kept in $BOOTGATE_CACHE (default\n"
		"/var/cache/bootgate), so neighbouring commits build incrementally; compiles go\n"
		"through ccache.\n"
		"\nThe configuration is BASE (tinyconfig, the default; a defconfig target such as\n"
		"x86_64_defconfig; or a .config file), then the board's fragments, then each\n"
		"--fragment FILE. An image already built from the same source tree, board,\n"
		"configuration and compiler is kept, not built again (BOOTGATE_REUSE=0: built).\n"
		"\n--perf: then builds the tree's tools/perf (static, for bootgate-boot --perf)\n"
		"into the artifact beside the image; a perf that does not build fails the commit.\n"
		"The artifact's identity (image_sha256) then covers both: the hash of the\n"
		"kernel's and perf's hashes, so a change to perf alone gives new boots.\n"
		"\n--untrusted (a posted patch): built in a directory of its own, a fresh copy of\n"
		"the trusted one, with the shared ccache read-only; its image is never kept for a\n"
		"trusted build.\n"
		"--service FILE (default $BOOTGATE_SERVICE): the service configuration, whose\n"
		"secret files, state and socket no build step sees (nor any board's LAVA token).\n"
		"Each build step is stopped past --timeout S (default 10800), at --max-procs N\n"
		"processes at once (default 4096), or when the build directory and the log pass\n"
		"--max-disk MIB (default 32768): the build fails (exit 1), but a trusted tree (no\n"
		"--untrusted) past its time, or a fork refused by an enclosing cgroup's pids.max,\n"
		"is infra (exit 111).\n"
		"--ccache-remote URL (default $BOOTGATE_CCACHE_REMOTE): a ccache remote storage the\n"
		"build hosts share, redis+unix:/SOCKET or file:/DIR, bound into the sandbox; an\n"
		"untrusted build has none of it (hidden: it could write to it). Gone or failing,\n"
		"the compiles stay local.\n"
		"\nexit: 0 built, 1 the kernel (or with --perf, perf) does not build, 2 usage (a\n"
		"bad tree, board or commit), 111 infrastructure (retry), 127 a program could not\n"
		"be run\n");
}

static const struct option long_options[] = {
	{ "tree", required_argument, NULL, 't' },
	{ "commit", required_argument, NULL, 'c' },
	{ "board", required_argument, NULL, 'b' },
	{ "lab", required_argument, NULL, 'l' },
	{ "jobs", required_argument, NULL, 'j' },
	{ "result", required_argument, NULL, 'r' },
	{ "no-sandbox", no_argument, NULL, 'n' },
	{ "config", required_argument, NULL, 'C' },
	{ "fragment", required_argument, NULL, 'F' },
	{ "perf", no_argument, NULL, 'P' },
	{ "untrusted", no_argument, NULL, 'U' },
	{ "service", required_argument, NULL, 'S' },
	{ "timeout", required_argument, NULL, 'T' },
	{ "max-procs", required_argument, NULL, 'p' },
	{ "max-disk", required_argument, NULL, 'D' },
	{ "ccache-remote", required_argument, NULL, 'R' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* What the options name besides the build's own settings (struct build). */
struct options {
	const char *tree, *board, *lab;
	struct bg_strvec fragments;   /* each --fragment FILE, in order */
};

/* Said of an image whose artifact is its parent's. */
static const char same_as_parent_note[] =
	" (byte-identical to its parent's: it cannot change boot time)";

/* The settings before any option: sandboxed, a job per core, $BOOTGATE_SERVICE hidden. */
static void build_init(struct build *b)
{
	long cores = sysconf(_SC_NPROCESSORS_ONLN);

	*b = (struct build){ .log_fd = -1, .base = "tinyconfig", .timeout = 3UL * 3600,
			     .max_procs = 4096, .max_disk_mb = 32768, .sandbox = true,
			     .jobs = cores > 0 ? (unsigned)cores : 1,
			     .service = getenv("BOOTGATE_SERVICE"), .cache = bg_cache_dir() };
	bg_build_result_init(&b->res);
}

/* --timeout S, --max-procs N or --max-disk MIB (opt T, p or D), within its range. */
static int parse_limit(int opt, const char *arg, struct build *b)
{
	switch (opt) {
	case 'T':
		return bg_num_parse_ulong(arg, 1, 7UL * 86400, &b->timeout);
	case 'p':
		return bg_num_parse_ulong(arg, 1, 1 << 20, &b->max_procs);
	default:
		return bg_num_parse_ulong(arg, 1, 1 << 30, &b->max_disk_mb);
	}
}

/*
 * Reads the options into b and o: -1 to go on and build, or the exit code to leave with
 * at once (after --help, or a usage error, said).
 */
static int parse_options(int argc, char **argv, struct build *b, struct options *o)
{
	const char *remote_env;
	unsigned long jobs;
	int opt;

	opterr = 0;     /* a bad option is named once, escaped, below */
	while ((opt = getopt_long(argc, argv, "t:c:b:l:j:r:nC:F:PUS:T:p:D:R:h", long_options,
				  NULL)) != -1) {
		switch (opt) {
		case 't': o->tree = optarg; break;
		case 'c': b->rev = optarg; break;
		case 'b': o->board = optarg; break;
		case 'l': o->lab = optarg; break;
		case 'j':
			if (bg_num_parse_ulong(optarg, 1, 1024, &jobs) < 0) {
				log_warnx("--jobs: %s", bg_error_last());
				return BG_EXIT_USAGE;
			}
			b->jobs = (unsigned)jobs;
			break;
		case 'r': b->result_path = optarg; break;
		case 'n': b->sandbox = false; break;
		case 'C': b->base = optarg; break;
		case 'F': bg_strvec_push(&o->fragments, optarg); break;
		case 'P': b->perf = true; break;
		case 'U': b->untrusted = true; break;
		case 'S': b->service = optarg; break;
		case 'R': b->ccache_remote = optarg; break;
		case 'T': case 'p': case 'D':
			if (parse_limit(opt, optarg, b) < 0) {
				log_warnx("%s: %s", argv[optind - 1], bg_error_last());
				return BG_EXIT_USAGE;
			}
			break;
		case 'h': usage(stdout); return BG_EXIT_OK;
		default:
			log_warnx("unknown option, or one without its value: '%s'",
				  argv[optind - 1]);
			usage(stderr);
			return BG_EXIT_USAGE;
		}
	}
	if (!o->tree || !b->rev || !o->board || optind < argc) {
		usage(stderr);
		return BG_EXIT_USAGE;
	}
	if (b->untrusted && !b->sandbox) {
		log_warnx("--untrusted builds in the sandbox: not with --no-sandbox");
		return BG_EXIT_USAGE;
	}
	remote_env = getenv(BG_CCACHE_REMOTE_ENV);
	if (!b->ccache_remote && remote_env && *remote_env)
		b->ccache_remote = remote_env;
	if (b->ccache_remote && !(b->ccache_remote_path = bg_ccache_remote_path(b->ccache_remote))) {
		log_warnx("%s: %s", b->ccache_remote == remote_env ? BG_CCACHE_REMOTE_ENV :
			  "--ccache-remote", bg_error_last());
		return BG_EXIT_USAGE;
	}
	return -1;
}

/* --result names a file to be: in a directory that is there, and not a link or a device. */
static int check_result_path(const char *path)
{
	char *dir, *slash;
	struct stat st;
	int ret = 0;

	if (!path)
		return 0;
	if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return bg_error("--result '%s' is not a regular file", path);
	dir = xstrdup(path);
	slash = strrchr(dir, '/');
	if (slash && slash != dir)
		*slash = '\0';
	if (slash && (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode)))
		ret = bg_error("--result '%s': no directory '%s'", path, dir);
	free(dir);
	return ret;
}

static int perf_arch_check(const struct build *b)
{
	if (b->perf && bg_board_check_perf(&b->board) < 0)
		return bg_error("--perf: %s", bg_error_last());
	return 0;
}

/* Every input, checked before any work: a usage error is never retried. */
static int check_inputs(struct build *b, const struct options *o)
{
	if (check_result_path(b->result_path) < 0 ||
	    bg_board_load(o->lab ? o->lab : bg_lab_dir(), o->board, &b->board) < 0 ||
	    bg_tree_open(o->tree, &b->tree) < 0 ||
	    bg_git_resolve(b->tree.real, b->rev, b->commit) < 0 ||
	    config_inputs(b, &o->fragments) < 0 || perf_arch_check(b) < 0 || hide_service(b) < 0 ||
	    remote_check(b) < 0)
		return -1;
	return 0;
}

/* What names the build: the commit's source tree and parent, the compiler, the configuration. */
static int identify(struct build *b)
{
	struct bg_git_commit c;

	if (bg_git_commit_info(b->tree.real, b->commit, &c) < 0)
		return -1;
	memcpy(b->source, c.tree, sizeof(b->source));
	memcpy(b->parent, c.parents[0], sizeof(b->parent));
	bg_git_commit_release(&c);
	if (compiler_version(b) < 0 || compute_config_key(b) < 0)
		return -1;
	return 0;
}

/* A line of the worker's own in the build's log, among what the build steps write there. */
void log_line(struct build *b, const char *fmt, ...)
{
	struct bg_strbuf sb = BG_STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	bg_strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	if (write(b->log_fd, sb.buf, sb.len) < 0)
		log_warn("cannot write '%s'", b->log);
	bg_strbuf_release(&sb);
}

/* The build's log, made anew: every step writes there. */
static int open_log(struct build *b)
{
	b->log_fd = open(b->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (b->log_fd < 0)
		return bg_error_errno("cannot write '%s'", b->log);
	return 0;
}

/*
 * The worktree moved to the commit, and the build directory made ready for make; a new
 * worktree starts from another tree's build when seed_since is given (the time before
 * the checkout: every file it writes is newer).
 */
static int check_out(struct build *b, const struct timespec *seed_since)
{
	char rev[BG_OID_HEX], *stats;

	b->started = bg_now();
	log_info("%s %s for %s", b->tree.id, b->rev, b->board.name);
	memcpy(rev, b->commit, sizeof(rev));
	/*
	 * Under the build lock no other worker is in this worktree: an index.lock or
	 * HEAD.lock there is a killed worker's, and would fail every checkout.
	 */
	if (bg_git_worktree_clear_locks(b->src) < 0 ||
	    bg_git_checkout(b->tree.real, b->src, rev, b->commit, b->parent) < 0)
		return -1;
	if (seed_since)
		seed_work(b, *seed_since);
	if (forget_interrupted(b) < 0)
		return -1;
	stats = xasprintf("%s/.ccache-stats.log", b->out);
	unlink(stats);
	free(stats);
	log_info("commit %.12s, config %.12s, %s", b->commit, b->config_key,
		 !b->sandbox ? "no sandbox" : b->untrusted ? "sandboxed, untrusted" : "sandboxed");
	return 0;
}

/*
 * The image made, then perf when asked, once the configuration is: whether perf alone
 * failed. r tells how the last step ended.
 */
static bool compile(struct build *b, struct bg_proc_result *r)
{
	bool perf_failed = false;

	if (!r->exit_code)
		make(b, b->board.make_target, true, r);
	if (b->perf && !r->exit_code && !r->timed_out && !r->exec_failed) {
		perf_failed = make_perf(b, r) == 0 && (r->exit_code || r->timed_out);
		if (perf_failed)
			log_line(b, "perf: tools/perf does not build\n");
	}
	/* make finished its files, failed or not; one it was killed in is not finished */
	if (!r->timed_out && !b->limit)
		unlink(b->marker);
	ccache_rate(b);
	b->res.build_seconds = bg_now() - b->started;
	return perf_failed;
}

/* Prints the compiler's error lines of a failed build, so the reader needs no log. */
static void show_errors(const char *path)
{
	char *text = bg_read_file(path, 64 << 20, NULL), *line, *save = NULL;
	int shown = 0;

	if (!text)
		return;
	for (line = strtok_r(text, "\n", &save); line && shown < 10;
	     line = strtok_r(NULL, "\n", &save))
		if (strstr(line, "error") || strstr(line, "Error")) {
			log_warnx("  %s", line);
			shown++;
		}
	free(text);
}

/* A build that does not build, or failed for the machine: its log kept, its errors shown. */
static int failed(struct build *b, const struct bg_proc_result *r, bool perf_failed)
{
	/*
	 * A limit is the build's doing: retried, it would do it again. But an
	 * enclosing cgroup's limit is the machine's, whoever's the build, and so is a
	 * trusted tree past its time (slow or busy): a commit recorded failed is never
	 * built again, and a bisection would skip it for good.
	 */
	bool infra = b->limit ? limit_is_machines(b) : r->timed_out || log_shows_machine(b);

	keep_failed_log(b);
	log_info("%.12s %s after %.0f s; log: %s", b->commit,
		 infra ? "failed for the machine's reasons" : "does not build",
		 b->res.build_seconds, b->log);
	show_errors(b->log);
	return finish(b, infra ? BG_BUILD_INFRA : BG_BUILD_FAILED,
		      b->limit ? b->limit : infra ? "the build failed for the machine's reasons" :
		      perf_failed ? "perf: tools/perf does not build" : NULL);
}

/* The build of checked inputs, phase by phase: the exit code of its result. */
static int run(struct build *b)
{
	struct bg_proc_result r = { 0 };   /* configure() leaves it alone when nothing changed */
	const char *reuse_env = getenv("BOOTGATE_REUSE");
	struct timespec checkout;
	bool new_work, perf_failed;

	hide_tokens(b);
	slot_paths(b);
	/* a compiler that is not there is a program that cannot be run, not a retry */
	if (identify(b) < 0)
		return finish(b, b->compiler_missing ? BG_BUILD_EXEC : BG_BUILD_INFRA,
			      bg_error_last());
	/* BOOTGATE_REUSE=0 builds anyway: benchmarks compare builds, not a lookup */
	if ((!reuse_env || strcmp(reuse_env, "0") != 0) && reuse(b)) {
		log_info("%.12s: the image of the same source is kept: %s%s", b->commit,
			 b->res.image, b->res.identical_to_parent == 1 ? same_as_parent_note : "");
		return finish(b, BG_BUILD_BUILT, NULL);
	}
	if (take_slot(b) < 0)
		return finish(b, BG_BUILD_INFRA, bg_error_last());
	new_work = work_is_new(b);
	/* what a seed's copy must be older than: every file the checkout writes is not */
	clock_gettime(CLOCK_REALTIME_COARSE, &checkout);
	forget_seed_copies(b);
	cgroup_enter(b);
	if (open_log(b) < 0 || check_out(b, new_work ? &checkout : NULL) < 0 ||
	    configure(b, &r) < 0)
		return finish(b, BG_BUILD_INFRA, bg_error_last());
	perf_failed = compile(b, &r);
	if (r.exec_failed)
		return finish(b, BG_BUILD_EXEC, bg_error_last());
	if (r.exit_code || r.timed_out)
		return failed(b, &r, perf_failed);
	if (store(b) < 0)
		return finish(b, b->bad_output ? BG_BUILD_FAILED : BG_BUILD_INFRA, bg_error_last());
	log_info("built %.12s in %.1f s: %s%s", b->commit, b->res.build_seconds, b->res.image,
		 b->res.identical_to_parent == 1 ? same_as_parent_note : "");
	return finish(b, BG_BUILD_BUILT, NULL);
}

static void build_release(struct build *b)
{
	if (b->log_fd >= 0)
		close(b->log_fd);
	bg_build_result_release(&b->res);
	bg_board_release(&b->board);
	bg_tree_release(&b->tree);
	free(b->work);
	free(b->slot);
	free(b->src);
	free(b->out);
	free(b->frag);
	free(b->perf_out);
	free(b->log);
	free(b->ccache);
	free(b->marker);
	bg_strvec_release(&b->frag_from);
	bg_strvec_release(&b->frag_name);
	bg_strvec_release(&b->hidden);
	free(b->compiler);
}

int main(int argc, char **argv)
{
	struct build b;
	struct options o = { .fragments = BG_STRVEC_INIT };
	int ret;

	log_init("bootgate-build", 0);
	build_init(&b);
	ret = parse_options(argc, argv, &b, &o);
	if (ret >= 0) {
		bg_strvec_release(&o.fragments);
		return ret;
	}
	if (check_inputs(&b, &o) < 0)
		ret = finish(&b, BG_BUILD_USAGE, bg_error_last());
	else
		ret = run(&b);
	bg_strvec_release(&o.fragments);
	/* whatever the build left running is killed, its cgroup removed */
	cgroup_leave(&b);
	build_release(&b);
	return ret;
}
