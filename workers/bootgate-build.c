/*
 * bootgate-build: builds a commit of a kernel tree for a board, in a sandbox, into a
 * content-addressed artifact. A plain program: arguments in, a result (JSON on stdout and
 * in --result, lab/result.h) and an exit code out: 0 built, 1 the kernel (or, with --perf,
 * the tree's perf) does not build,
 * 2 usage (a bad tree, board or commit: checked before any work), 111 an infrastructure
 * failure worth a retry, 127 a program could not be run.
 */
#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>

#include "conf/board.h"
#include "net/git.h"
#include "lab/result.h"
#include "conf/service-conf.h"
#include "util/sha.h"
#include "conf/tree.h"
#include "lab/workers.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/log.h"
#include "util/num.h"
#include "util/path.h"
#include "util/proc.h"
#include "util/strbuf.h"
#include "util/strvec.h"
#include "util/xmalloc.h"

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
	char *slot;               /* the board's: its o, frag, config-key, log (see main) */
	char *marker;             /* o/.bootgate-building: there while make runs */
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
	bool compiler_missing;
	bool bad_output;          /* the image or .config is not a regular file of the build */
	struct bg_build_result res;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: bootgate-build --tree DIR --commit REV --board NAME [--lab DIR]\n"
		"                      [--config BASE] [--fragment FILE]... [--jobs N]\n"
		"                      [--result FILE] [--no-sandbox] [--perf] [--untrusted]\n"
		"                      [--service FILE] [--timeout S] [--max-procs N]\n"
		"                      [--max-disk MIB]\n"
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
		"\nexit: 0 built, 1 the kernel (or with --perf, perf) does not build, 2 usage (a\n"
		"bad tree, board or commit), 111 infrastructure (retry), 127 a program could not\n"
		"be run\n");
}

/* The environment of every build step: nothing of the service's own. */
/* Where this worker makes each build's pids cgroup (cgroup v1), under its own. */
#define PIDS_CGROUP "/sys/fs/cgroup/pids"
/* The sandbox's /tmp and /dev/shm: memory, so bounded */
#define TMPFS_SIZE "268435456"

static void log_line(struct build *b, const char *fmt, ...) BG_PRINTF(2, 3);

static void build_env(const struct build *b, struct bg_strvec *env)
{
	bg_strvec_pushv(env, (char *const[]){
		"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
		"HOME=/tmp", "LC_ALL=C",
		/* identical sources give identical images: no date, user, host or count */
		"KBUILD_BUILD_TIMESTAMP=2026-01-01", "KBUILD_BUILD_USER=bootgate",
		"KBUILD_BUILD_HOST=bootgate", "KBUILD_BUILD_VERSION=1", NULL });
	bg_strvec_pushf(env, "CCACHE_DIR=%s", b->ccache);
	/* read, never written (it is mounted read-only too): no result of its is stored */
	if (b->untrusted)
		bg_strvec_pushv(env, (char *const[]){ "CCACHE_READONLY=1", "CCACHE_TEMPDIR=/tmp",
						      NULL });
	/* the build directory is not part of a compile's hash (it is the same anyway) */
	bg_strvec_push(env, "CCACHE_NOHASHDIR=1");
	/*
	 * Not CCACHE_DEPEND, though it compiles a cold kernel a quarter faster: the object
	 * of a source with .incbin (piggy.S, the compressed vmlinux) is then answered from
	 * the cache, and the image keeps the kernel of an earlier commit (t0085). Said
	 * here, over any ccache.conf that asks for it.
	 */
	bg_strvec_push(env, "CCACHE_NODEPEND=1");
	bg_strvec_pushf(env, "CCACHE_STATSLOG=%s/.ccache-stats.log", b->in_out);
}

/* This build's ccache hits and misses, from its stats log (the build's own file). */
static void ccache_rate(struct build *b)
{
	int fd = bg_open_beneath(b->out, ".ccache-stats.log");
	char *text = NULL, *path = xasprintf("%s/.ccache-stats.log", b->out);
	struct stat st;

	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		text = bg_read_file(path, 256 << 20, NULL);
	if (fd >= 0)
		close(fd);

	b->res.ccache_hits = b->res.ccache_misses = 0;
	for (char *line = text; line && *line;) {
		size_t len = strcspn(line, "\n");

		if ((len == 16 && !strncmp(line, "direct_cache_hit", len)) ||
		    (len == 22 && !strncmp(line, "preprocessed_cache_hit", len)))
			b->res.ccache_hits++;
		else if (len == 10 && !strncmp(line, "cache_miss", len))
			b->res.ccache_misses++;
		line += len + (line[len] == '\n');
	}
	if (b->res.ccache_hits + b->res.ccache_misses)
		log_info("ccache: %ld hits, %ld misses (%.0f%%)", b->res.ccache_hits,
			 b->res.ccache_misses, 100.0 * b->res.ccache_hits /
			 (b->res.ccache_hits + b->res.ccache_misses));
	free(text);
	free(path);
}

/* What no build step sees, on any machine: passwords, keys, and the services' data. */
static const char *const system_secrets[] = {
	"/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-", "/etc/ssh",
	"/etc/ssl/private", "/etc/lava-server", "/etc/lava-dispatcher", "/etc/postfix",
	"/var/lib", "/var/spool", "/var/mail", "/var/log", "/var/backups",
};

/*
 * An empty directory over path in the sandbox, or an empty file (/dev/null, read-only),
 * when there is one to hide; under its real name too, when a link leads there.
 */
static void hide(struct bg_strvec *a, const char *path)
{
	char real[PATH_MAX];
	struct stat st;

	if (!path || *path != '/' || !path[1] || stat(path, &st) < 0)
		return;
	for (int i = 0; i < 2; i++) {
		const char *p = i ? real : path;

		if (i && (!realpath(path, real) || !strcmp(real, path)))
			break;
		if (S_ISDIR(st.st_mode))
			bg_strvec_pushv(a, (char *const[]){ "--tmpfs", (char *)p, NULL });
		else
			bg_strvec_pushv(a, (char *const[]){ "--ro-bind", "/dev/null", (char *)p,
							    NULL });
	}
}

/*
 * What the service keeps from builds: its configuration file, the webhook's secret, the
 * SMTP password, its state (the store) and its socket (a Unix socket on a read-only
 * mount still takes connections). -1 when the file does not load.
 */
static int hide_service(struct build *b)
{
	struct bg_service_conf c;

	if (!b->service || !*b->service)
		return 0;
	if (bg_service_conf_load(b->service, &c) < 0)
		return bg_error("--service: %s", bg_error_last());
	bg_strvec_push(&b->hidden, c.file);
	if (c.webhook_secret_file)
		bg_strvec_push(&b->hidden, c.webhook_secret_file);
	if (c.report.smtp_password_file)
		bg_strvec_push(&b->hidden, c.report.smtp_password_file);
	bg_strvec_push(&b->hidden, c.state);
	bg_strvec_push(&b->hidden, c.socket);
	bg_service_conf_release(&c);
	return 0;
}

/* The LAVA token file of every board of the lab: the lab itself is hidden, they may not be. */
static void hide_tokens(struct build *b)
{
	char *dir = bg_path_join(b->board.lab, "boards");
	DIR *d = opendir(dir);
	struct dirent *e;

	while (d && (e = readdir(d))) {
		size_t n = strlen(e->d_name);
		struct bg_board other;
		char *name;

		if (n <= 5 || strcmp(e->d_name + n - 5, ".yaml"))
			continue;
		name = xstrndup(e->d_name, n - 5);
		if (bg_board_load(b->board.lab, name, &other) == 0) {
			if (other.lava.token_file && *other.lava.token_file)
				bg_strvec_push(&b->hidden, other.lava.token_file);
			bg_board_release(&other);
		} else {
			log_warnx("a board that does not load: its token is not hidden: %s",
				  bg_error_last());
		}
		free(name);
	}
	if (d)
		closedir(d);
	free(dir);
}

/* ---- the limits of a build step ---- */

static int write_text(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ret = 0;

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		ret = -1;
	if (fd >= 0)
		close(fd);
	return ret;
}

/* This process's pids cgroup, from /proc/self/cgroup ("N:pids:/path"); owned by the caller. */
static char *pids_cgroup_of_self(void)
{
	char *text = bg_read_file("/proc/self/cgroup", 64 << 10, NULL), *line, *save = NULL;
	char *path = NULL;

	for (line = text ? strtok_r(text, "\n", &save) : NULL; line && !path;
	     line = strtok_r(NULL, "\n", &save)) {
		char *c = strstr(line, ":pids:");

		if (c)
			path = xasprintf("%s%s", PIDS_CGROUP, c + 6);
	}
	free(text);
	return path;
}

/* Why a build step was stopped (b->limit), in its error and its log. */
static const char time_limit[] = "the build ran past its time limit";
static const char procs_limit[] = "the build reached its process limit";
static const char enclosing_limit[] =
	"the pids.max of an enclosing cgroup refused a fork of the build";
static const char disk_limit[] = "the build wrote past its disk limit";

/* How long the build's processes get to die once SIGKILLed, in seconds. */
#define KILL_SECONDS 30

/*
 * Kills every process of the cgroup DIR but this one, until none is left: nothing is left
 * behind. A deadline, not a count of rounds: on a loaded host a fork bomb's processes may
 * take more than a second to die. Past it, a warning with how many are left.
 */
static void cgroup_kill(const char *dir)
{
	char *file = bg_path_join(dir, "cgroup.procs");
	double deadline = bg_now() + KILL_SECONDS;
	int others = 0;

	for (;;) {
		char *text = bg_read_file(file, 1 << 20, NULL), *line, *save = NULL;

		others = 0;
		for (line = text ? strtok_r(text, "\n", &save) : NULL; line;
		     line = strtok_r(NULL, "\n", &save)) {
			unsigned long pid;

			if (bg_num_parse_ulong(line, 1, INT_MAX, &pid) == 0 &&
			    (pid_t)pid != getpid()) {
				kill((pid_t)pid, SIGKILL);
				others++;
			}
		}
		free(text);
		if (!others || bg_now() > deadline)
			break;
		usleep(10000);
	}
	if (others)
		log_warnx("%d processes still in '%s' after %d s of SIGKILL", others, dir,
			  KILL_SECONDS);
	free(file);
}

/*
 * The cgroups of workers that died without removing theirs (SIGKILL): removed when empty,
 * so that they do not pile up. One whose worker still runs, or that still holds a
 * process, stays.
 */
static void cgroup_sweep(const char *home)
{
	DIR *d = opendir(home);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		long pid;
		char *end, *dir;

		if (strncmp(e->d_name, "bootgate-build-", 15))
			continue;
		errno = 0;
		pid = strtol(e->d_name + 15, &end, 10);
		/* bootgate-build-PID, or bootgate-build-PID-XXXXXX (see cgroup_enter) */
		if (errno || (*end && *end != '-') || pid <= 0 || pid == (long)getpid() ||
		    kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		dir = bg_path_join(home, e->d_name);
		if (rmdir(dir) == 0)
			log_info("removed the cgroup of a worker gone: '%s'", dir);
		free(dir);
	}
	closedir(d);
}

/* The number in the file NAME of the cgroup DIR: 0, or -1 when there is none ("max"). */
static int cgroup_read(const char *dir, const char *name, unsigned long *n)
{
	char *file = bg_path_join(dir, name), *text = bg_read_file(file, 64, NULL);
	int ret = -1;

	if (text) {
		text[strcspn(text, "\n")] = '\0';
		ret = bg_num_parse_ulong(text, 0, ULONG_MAX, n);
	}
	free(text);
	free(file);
	return ret;
}

/*
 * An enclosing cgroup whose pids.max is not above the build's own limit: it will refuse
 * the build's forks first, and such a build ends as infra (the machine's limit). Said
 * before the build, so that the operator knows where that limit comes from.
 */
static void cgroup_warn_enclosing(const char *home, unsigned long max)
{
	char *dir = xstrdup(home), *slash;
	size_t root = strlen(PIDS_CGROUP);

	do {
		unsigned long n;

		if (cgroup_read(dir, "pids.max", &n) == 0 && n <= max)
			log_warnx("'%s/pids.max' is %lu, not above --max-procs %lu: the forks it "
				  "refuses count as the build's", dir, n, max);
		slash = strrchr(dir, '/');
		if (slash)
			*slash = '\0';
	} while (slash && strlen(dir) >= root);
	free(dir);
}

/*
 * A cgroup of its own with pids.max, which this worker joins, so that every process of
 * the build is counted (as root, RLIMIT_NPROC counts nothing). Without cgroup v1 pids
 * (not root, another system): a warning, and no process limit.
 */
static void cgroup_enter(struct build *b)
{
	char *home = pids_cgroup_of_self(), *dir = NULL, *file = NULL, n[32];

	if (!home)
		goto fail;
	cgroup_sweep(home);
	cgroup_warn_enclosing(home, b->max_procs);
	dir = xasprintf("%s/bootgate-build-%ld", home, (long)getpid());
	/* the worker counts too: the build has max_procs of its own */
	snprintf(n, sizeof(n), "%lu", b->max_procs + 1);
	if (mkdir(dir, 0755) < 0) {
		/*
		 * A worker of this pid before us was killed and left it: with what is left of
		 * its build, and with its count of refused forks, which would fail this build
		 * for a limit it never reached. Made again, empty.
		 */
		if (errno != EEXIST)
			goto fail;
		cgroup_kill(dir);
		if (rmdir(dir) == 0 && mkdir(dir, 0755) == 0) {
			log_info("made anew the cgroup '%s': a killed worker of the same pid left it",
				 dir);
		} else {
			/* a cgroup below it, a process that will not die: another name, a limit */
			char *other = xasprintf("%s-XXXXXX", dir);

			log_warn("cannot make anew '%s', left by a killed worker of the same pid",
				 dir);
			free(dir);
			dir = other;
			if (!mkdtemp(dir))
				goto fail;
		}
	}
	file = bg_path_join(dir, "pids.max");
	if (write_text(file, n) < 0)
		goto fail_dir;
	free(file);
	file = bg_path_join(dir, "cgroup.procs");
	snprintf(n, sizeof(n), "%ld", (long)getpid());
	if (write_text(file, n) < 0)
		goto fail_dir;
	free(file);
	b->cgroup = dir;
	b->cgroup_home = bg_path_join(home, "cgroup.procs");
	free(home);
	return;
fail_dir:
	rmdir(dir);
fail:
	log_warn("no process limit: cannot make a pids cgroup in '%s'", home ? home :
		 PIDS_CGROUP);
	free(file);
	free(dir);
	free(home);
}

/*
 * Whether a fork of the build's was refused (pids.events), and by which limit: NULL,
 * procs_limit or enclosing_limit. The kernel counts a refusal in the forking task's
 * cgroup whichever limit refused it (v1); the build's own was reached only if its peak
 * (pids.peak, Linux 6.1) reached its pids.max. Without pids.peak: its own. The kernel
 * raises the peak before an enclosing cgroup refuses: a refusal at the count where both
 * limits meet is taken as the build's own.
 */
static const char *cgroup_refused(const struct build *b)
{
	char *file, *text;
	unsigned long peak;
	bool hit;

	if (!b->cgroup)
		return NULL;
	file = bg_path_join(b->cgroup, "pids.events");
	text = bg_read_file(file, 4096, NULL);
	hit = text && strncmp(text, "max ", 4) == 0 && strcmp(text, "max 0\n") != 0;
	free(text);
	free(file);
	if (!hit)
		return NULL;
	if (cgroup_read(b->cgroup, "pids.peak", &peak) == 0 && peak < b->max_procs + 1)
		return enclosing_limit;
	return procs_limit;
}

static void cgroup_kill_others(const struct build *b)
{
	if (b->cgroup)
		cgroup_kill(b->cgroup);
}

/* Leaves the cgroup, whatever is left in it killed, and removes it. */
static void cgroup_leave(struct build *b)
{
	char n[32];

	if (!b->cgroup)
		return;
	cgroup_kill_others(b);
	snprintf(n, sizeof(n), "%ld", (long)getpid());
	if (write_text(b->cgroup_home, n) < 0 || rmdir(b->cgroup) < 0)
		log_warn("cannot remove the cgroup '%s'", b->cgroup);
	free(b->cgroup);
	free(b->cgroup_home);
	b->cgroup = b->cgroup_home = NULL;
}

static unsigned long long walked;

/* Each file counts a block at least: empty ones use up inodes, not blocks. */
static int add_size(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	unsigned long long bytes = (unsigned long long)st->st_blocks * 512;

	(void)path, (void)flag, (void)f;
	walked += bytes > 4096 ? bytes : 4096;
	return 0;
}

/* The bytes the build has written: its build directories and its log. */
static unsigned long long disk_used(const struct build *b)
{
	struct stat st;

	walked = 0;
	nftw(b->out, add_size, 16, FTW_PHYS | FTW_MOUNT);
	if (b->perf)
		nftw(b->perf_out, add_size, 16, FTW_PHYS | FTW_MOUNT);
	if (b->log_fd >= 0 && fstat(b->log_fd, &st) == 0)
		walked += (unsigned long long)st.st_blocks * 512;
	return walked;
}

static bool over_disk(const struct build *b)
{
	return disk_used(b) > (unsigned long long)b->max_disk_mb << 20;
}

/*
 * Runs a step, watched: past the time limit, at the process limit, or past the disk
 * limit, the step's process group is killed (in the sandbox, its PID namespace with it),
 * and then whatever is left in the cgroup; b->limit says why, in the log too. A step
 * that ended having had a fork refused, or over the disk limit, fails too (exit 1 if it
 * returned 0).
 */
static int run_limited(struct build *b, const struct bg_proc_opts *o, struct bg_proc_result *r)
{
	struct bg_proc p;
	double last_disk = 0;
	int ended;

	memset(r, 0, sizeof(*r));
	if (bg_proc_start(&p, o) < 0) {
		r->exec_failed = true;
		r->exit_code = 127;
		return -1;
	}
	while ((ended = bg_proc_wait(&p, 200, r)) == 1) {
		double now = bg_now(), t = now - p.started;

		if (t > (double)b->timeout)
			b->limit = time_limit;
		else
			b->limit = cgroup_refused(b);
		if (!b->limit && now - last_disk >= 1) {
			last_disk = now;
			if (over_disk(b))
				b->limit = disk_limit;
		}
		if (b->limit)
			break;
	}
	if (ended == 1) {
		bg_proc_kill(&p, 0, r);
		r->timed_out = false;
		if (!r->exit_code)
			r->exit_code = 128 + SIGKILL;
	} else if (!b->limit) {
		/*
		 * A step can pass a limit and end between two looks: a fork bomb refused at
		 * the limit can die out and exit 0 ("wait" says nothing of its children), and
		 * a write past the disk limit can come after the last look. Either way the
		 * step did not run within its limits, whatever it returned.
		 */
		b->limit = cgroup_refused(b);
		if (!b->limit && over_disk(b))
			b->limit = disk_limit;
		if (b->limit && !r->exit_code)
			r->exit_code = 1;
	}
	cgroup_kill_others(b);
	if (p.out >= 0)
		close(p.out);
	if (b->limit)
		log_line(b, "bootgate-build: %s (%lu s, %lu processes, %lu MiB)\n", b->limit,
			 b->timeout, b->max_procs, b->max_disk_mb);
	return 0;
}

/*
 * Runs a build step, in the sandbox unless asked not to: no network (its loopback is its
 * own), the file system read-only but for the build directory and the ccache (the
 * worktree and the config fragments read-only too, so that no build can plant a link
 * there for this worker to follow later), and neither the cache's other contents, nor
 * the lab's configuration, nor the home directories in view. A posted patch is untrusted
 * code.
 */
static int step(struct build *b, char *const *argv, struct bg_proc_result *r)
{
	struct bg_strvec a = BG_STRVEC_INIT, env = BG_STRVEC_INIT;
	struct bg_proc_opts o = { 0 };
	int ret;

	if (b->sandbox) {
		/*
		 * As root, bwrap keeps every capability: without --cap-drop a build could
		 * unmount what hides a secret, remount / writable or load a module. uid 0
		 * without them still writes any file root owns: so /proc/sys (core_pattern)
		 * and sysrq-trigger read-only, /dev read-only, and the writable memory file
		 * systems bounded.
		 */
		bg_strvec_pushv(&a, (char *const[]){ "bwrap", "--die-with-parent", "--cap-drop",
			"ALL", "--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
			"--ro-bind", "/", "/", "--dev", "/dev", "--size", TMPFS_SIZE, "--tmpfs",
			"/dev/shm", "--remount-ro", "/dev", "--proc", "/proc", "--ro-bind",
			"/proc/sys", "/proc/sys", "--size", TMPFS_SIZE, "--tmpfs", "/tmp", NULL });
		hide(&a, "/proc/sysrq-trigger");
		/* /run: the host's sockets (a read-only mount does not stop a connect) */
		hide(&a, "/run");
		hide(&a, "/root");
		hide(&a, "/home");
		hide(&a, getenv("HOME"));
		hide(&a, "/etc/bootgate");
		/*
		 * uid 0 reads any file root owns, capabilities or not: the system's secrets
		 * and every service's data (the store's default place among them) are hidden.
		 */
		for (size_t i = 0; i < ARRAY_SIZE(system_secrets); i++)
			hide(&a, system_secrets[i]);
		hide(&a, getenv("BOOTGATE_STATE"));
		for (size_t i = 0; i < b->hidden.n; i++)
			hide(&a, b->hidden.v[i]);
		hide(&a, b->cache);
		hide(&a, b->board.lab);
		if (b->perf)
			bg_strvec_pushv(&a, (char *const[]){ "--bind", b->perf_out,
							     (char *)b->in_perf, NULL });
		/*
		 * Every tree's worktree is seen at one path: the kernel writes its source path
		 * into every compile (-I, -fmacro-prefix-map), so only then do the tracing,
		 * printk and perf trees, 99% one source, share their compiles in ccache.
		 */
		bg_strvec_pushv(&a, (char *const[]){ "--ro-bind", b->src, (char *)b->in_src,
			"--ro-bind", b->frag, (char *)b->in_frag, "--bind", b->out,
			(char *)b->in_out, b->untrusted ? "--ro-bind" : "--bind", b->ccache,
			b->ccache, "--chdir",
			(char *)b->in_out, "--", NULL });
	}
	bg_strvec_pushv(&a, argv);
	build_env(b, &env);
	o.argv = bg_strvec_argv(&a);
	o.envp = bg_strvec_argv(&env);
	o.dir = b->out;
	o.in_fd = -1;
	o.out_fd = b->log_fd;
	o.err_fd = BG_PROC_SAME;
	ret = run_limited(b, &o, r);
	bg_strvec_release(&a);
	bg_strvec_release(&env);
	return ret;
}

static void log_line(struct build *b, const char *fmt, ...)
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

/* make -C src O=out ARCH=... CROSS_COMPILE=... CC="ccache ...gcc" TARGET */
static int make(struct build *b, const char *target, bool jobs, struct bg_proc_result *r)
{
	struct bg_strvec a = BG_STRVEC_INIT;
	int ret;

	bg_strvec_pushv(&a, (char *const[]){ "make", "-s", "-C", (char *)b->in_src, NULL });
	bg_strvec_pushf(&a, "O=%s", b->in_out);
	bg_strvec_pushf(&a, "ARCH=%s", b->board.kernel_arch);
	bg_strvec_pushf(&a, "CROSS_COMPILE=%s", b->board.cross_compile);
	bg_strvec_pushf(&a, "CC=ccache %sgcc", b->board.cross_compile);
	bg_strvec_push(&a, "LOCALVERSION=");
	bg_strvec_pushf(&a, "-j%u", jobs ? b->jobs : 1);
	bg_strvec_push(&a, target);
	log_line(b, "+ make ARCH=%s CROSS_COMPILE=%s %s -j%u\n", b->board.kernel_arch,
		 b->board.cross_compile, target, jobs ? b->jobs : 1);
	ret = step(b, bg_strvec_argv(&a), r);
	bg_strvec_release(&a);
	return ret;
}

/* Builds tools/perf of the worktree into perf/, then strips it for the initramfs. */
static int make_perf(struct build *b, struct bg_proc_result *r)
{
	struct bg_strvec a = BG_STRVEC_INIT;
	char *line = bg_perf_make_line();
	int ret;

	/* where perf's .cmd files will say the sources are: another tree's seed reads it */
	if (!b->untrusted) {
		char *source = bg_path_join(b->work, "perf-source");

		if (bg_write_file(source, b->in_src, strlen(b->in_src)) < 0)
			log_warnx("%s (no other tree's perf build will start from this one)",
				  bg_error_last());
		free(source);
	}
	bg_strvec_pushv(&a, (char *const[]){ "make", "-s", "-C", NULL });
	bg_strvec_pushf(&a, "%s/tools/perf", b->in_src);
	bg_strvec_pushf(&a, "O=%s", b->in_perf);
	bg_strvec_push(&a, "CC=ccache gcc");
	bg_strvec_pushf(&a, "-j%u", b->jobs);
	bg_strvec_pushv(&a, (char *const *)bg_perf_make_flags);
	bg_strvec_push(&a, "perf");
	log_line(b, "+ %s -j%u\n", line, b->jobs);
	ret = step(b, bg_strvec_argv(&a), r);
	bg_strvec_release(&a);
	free(line);
	if (ret < 0 || r->exit_code || r->timed_out)
		return ret;
	bg_strvec_pushv(&a, (char *const[]){ "strip", "-o", NULL });
	bg_strvec_pushf(&a, "%s/perf.stripped", b->in_perf);
	bg_strvec_pushf(&a, "%s/perf", b->in_perf);
	log_line(b, "+ strip perf\n");
	ret = step(b, bg_strvec_argv(&a), r);
	bg_strvec_release(&a);
	return ret;
}

/*
 * The configuration: tinyconfig, then the board's fragments (twice: see ppc64le.config).
 * -1 for the machine's failures; a step that fails leaves r's exit code set.
 */
static int configure(struct build *b, struct bg_proc_result *r)
{
	char *keyfile = bg_path_join(b->slot, "config-key");
	char *dotconfig = bg_path_join(b->out, ".config");
	char *in_dotconfig = bg_path_join(b->in_out, ".config");
	char *fragdir = b->frag;
	char *merge = bg_path_join(b->in_src, "scripts/kconfig/merge_config.sh");
	char *old = bg_read_file(keyfile, 128, NULL);
	int ret = -1;

	if (old && !strcmp(old, b->config_key) && access(dotconfig, R_OK) == 0) {
		ret = 0;
		goto out;
	}
	log_line(b, "configuring (config %.12s: %s)\n", b->config_key, b->base);
	/* the fragments go beside the build (read-only there): the lab is not in view */
	if (bg_mkdirs(fragdir) < 0)
		goto out;
	for (size_t i = 0; i < b->frag_from.n; i++) {
		char *to = bg_path_join(fragdir, b->frag_name.v[i]);
		int copied = bg_copy_file(b->frag_from.v[i], to);

		free(to);
		if (copied < 0)
			goto out;
	}
	if (b->base_file) {
		/* a whole .config, completed by the tree's own defaults */
		if (bg_copy_file(b->base, dotconfig) < 0)
			goto out;
		if (make(b, "olddefconfig", false, r) < 0 || r->exit_code) {
			ret = 0;
			goto out;
		}
	} else if (make(b, b->base, false, r) < 0 || r->exit_code) {
		ret = 0;
		goto out;
	}
	for (int pass = 0; pass < 2; pass++) {
		struct bg_strvec a = BG_STRVEC_INIT;
		int failed;

		bg_strvec_pushv(&a, (char *const[]){ merge, "-m", "-O", (char *)b->in_out,
						     in_dotconfig, NULL });
		for (size_t i = 0; i < b->frag_name.n; i++)
			bg_strvec_pushf(&a, "%s/%s", b->in_frag, b->frag_name.v[i]);
		log_line(b, "+ merge_config.sh -m (pass %d)\n", pass + 1);
		failed = step(b, bg_strvec_argv(&a), r) < 0 || r->exit_code;
		bg_strvec_release(&a);
		if (failed || make(b, "olddefconfig", false, r) < 0 || r->exit_code) {
			ret = 0;
			goto out;
		}
	}
	ret = bg_write_file(keyfile, b->config_key, strlen(b->config_key));
out:
	free(old);
	free(keyfile);
	free(dotconfig);
	free(in_dotconfig);
	free(merge);
	return ret;
}

/*
 * The base and the fragments, checked: a make target is a plain name ending in
 * "config" (tinyconfig, x86_64_defconfig), anything else a .config file.
 */
static int config_inputs(struct build *b, const struct bg_strvec *extra)
{
	if (bg_build_config_check(b->base, extra->v, extra->n, &b->base_file) < 0)
		return -1;
	for (size_t i = 0; i < b->board.nfragments; i++) {
		bg_strvec_pushf(&b->frag_from, "%s/kconfig/%s", b->board.lab, b->board.fragments[i]);
		bg_strvec_push(&b->frag_name, b->board.fragments[i]);
	}
	for (size_t i = 0; i < extra->n; i++) {
		const char *slash = strrchr(extra->v[i], '/');

		bg_strvec_push(&b->frag_from, extra->v[i]);
		/* numbered: two fragments of one name stay two files */
		bg_strvec_pushf(&b->frag_name, "extra-%zu-%s", i, slash ? slash + 1 : extra->v[i]);
	}
	return 0;
}

/* Which board settings and fragments make the configuration: their hash names it. */
static int compute_config_key(struct build *b)
{
	struct bg_strbuf sb = BG_STRBUF_INIT;
	int ret = 0;

	bg_strbuf_addf(&sb, "bootgate-config-1 %s %s %s\n", b->board.kernel_arch,
		       b->board.cross_compile, b->board.make_target);
	/* tinyconfig adds nothing: the keys of the images built before it stay as they were */
	if (strcmp(b->base, "tinyconfig") != 0) {
		char *text = b->base_file ? bg_read_file(b->base, 64 << 20, NULL) : NULL;

		if (b->base_file && !text)
			ret = -1;
		bg_strbuf_addf(&sb, "base %s\n%s\n", b->base_file ? "file" : b->base,
			       text ? text : "");
		free(text);
	}
	for (size_t i = 0; i < b->frag_from.n && !ret; i++) {
		char *text = bg_read_file(b->frag_from.v[i], 1 << 20, NULL);

		if (text)
			bg_strbuf_addf(&sb, "%s\n%s\n", b->frag_name.v[i], text);
		else
			ret = -1;
		free(text);
	}
	bg_sha256_mem(sb.buf, sb.len, b->config_key);
	bg_strbuf_release(&sb);
	return ret;
}

/*
 * A build killed midway (SIGKILL, power) may leave half-written objects that make then
 * takes as done. The marker is made before make runs and removed after it: when it is
 * still there, every file written since it was made is removed, so make does it again.
 */
static int forget_interrupted(struct build *b)
{
	struct bg_strvec a = BG_STRVEC_INIT;
	struct bg_proc_result r;
	int fd, ret = 0;

	/* beside the build directory, where the build cannot plant anything */
	b->marker = bg_path_join(b->slot, "building");
	if (access(b->marker, F_OK) == 0) {
		struct bg_proc_opts o = { .in_fd = -1, .out_fd = -1, .err_fd = b->log_fd };

		log_info("the last build here was interrupted: removing what it wrote");
		bg_strvec_pushv(&a, (char *const[]){ "find", b->out, NULL });
		if (b->perf && access(b->perf_out, F_OK) == 0)
			bg_strvec_push(&a, b->perf_out);
		bg_strvec_pushv(&a, (char *const[]){ "-newer", b->marker, "!", "-type", "d",
						     "-delete", NULL });
		o.argv = bg_strvec_argv(&a);
		if (bg_proc_run(&o, 600, &r) < 0 || r.exit_code)
			ret = bg_error("cannot clear the interrupted build in '%s'", b->out);
		bg_strvec_release(&a);
		if (ret < 0)
			return ret;
	}
	fd = open(b->marker, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return bg_error_errno("cannot write '%s'", b->marker);
	close(fd);
	return 0;
}

/* The compiler's version line, or -1 when it cannot be run (an infrastructure failure). */
static int compiler_version(struct build *b)
{
	char *cc = xasprintf("%sgcc", b->board.cross_compile), *text = NULL;
	char *argv[] = { cc, "--version", NULL };
	struct bg_proc_opts o = { .argv = argv, .in_fd = -1, .out_fd = -1, .err_fd = -1 };
	struct bg_proc_result r;
	int ret = 0;

	if (bg_proc_capture(&o, 60, 4096, &text, &r) < 0 || r.exit_code) {
		b->compiler_missing = r.exec_failed;
		ret = bg_error("compiler '%s' cannot be run: %s", cc,
			       r.exec_failed ? bg_error_last() : "it failed");
	} else {
		text[strcspn(text, "\n")] = '\0';
		b->compiler = xstrdup(text);
	}
	free(text);
	free(cc);
	return ret;
}

/*
 * Whether a failed build's log shows the machine failing rather than the code. An
 * untrusted build writes what it likes there: only a cache file system that is in truth
 * nearly full (under 1 GiB free) makes its failure the machine's.
 */
static bool log_shows_machine(const struct build *b)
{
	char *text = bg_read_file(b->log, 64 << 20, NULL);
	bool found = text && (strstr(text, "No space left on device") ||
			      strstr(text, "Cannot allocate memory"));
	struct statvfs vfs;

	free(text);
	if (found && b->untrusted)
		found = statvfs(b->out, &vfs) == 0 &&
			(unsigned long long)vfs.f_bavail * vfs.f_frsize < 1ULL << 30;
	return found;
}

/* The board's build directory (o, frag, config-key, log) of the trusted builds. */
static char *slot_in(const struct build *b, const char *work)
{
	char *own = xasprintf("qemu-%s", b->board.arch), *slot;

	/* qemu-ARCH keeps the arch's own, the others one of their own (see main) */
	slot = strcmp(b->board.name, own) ? xasprintf("%s/boards/%s", work, b->board.name) :
	       xstrdup(work);
	free(own);
	return slot;
}

static char *trusted_slot(const struct build *b)
{
	return slot_in(b, b->work);
}

/* cp -a: the times kept, which make goes by */
static int copy_dir(const char *from, const char *to)
{
	char *argv[] = { "cp", "-a", "--reflink=auto", (char *)from, (char *)to, NULL };
	struct bg_proc_opts o = { .argv = argv, .in_fd = -1, .out_fd = -1, .err_fd = -1 };
	struct bg_proc_result r;

	if (bg_proc_run(&o, 600, &r) < 0)
		return -1;
	if (r.timed_out)
		return bg_error("cannot copy '%s' to '%s': cp still ran after 600 s", from, to);
	return r.exit_code ? bg_error("cannot copy '%s' to '%s': cp exited %d", from, to,
				      r.exit_code) : 0;
}

/*
 * An untrusted build starts from a copy of the trusted build directory of its board:
 * what another posted patch left in its own (objects dated in the future, .cmd files)
 * is not taken as done, nothing it leaves reaches a trusted build, and the build stays
 * incremental (an empty directory means a whole kbuild pass, minutes even when every
 * compile is in ccache; a copy of a kernel's o/ is about 100 MB, a second). The builds
 * take one lock, so no trusted build writes there meanwhile; a directory a trusted build
 * was killed in is not copied, and a copy that fails leaves an empty directory.
 */
static int fresh_slot(struct build *b)
{
	char *from = trusted_slot(b);
	char *from_out = bg_path_join(from, "o"), *marker = bg_path_join(from, "building");
	char *key = bg_path_join(from, "config-key"), *to_key = bg_path_join(b->slot, "config-key");
	int ret = -1;

	if (bg_remove_tree(b->slot) < 0 || bg_mkdirs(b->slot) < 0)
		goto out;
	if (access(from_out, F_OK) == 0 && access(marker, F_OK) != 0 && access(key, F_OK) == 0) {
		if (copy_dir(from_out, b->out) == 0 && bg_copy_file(key, to_key) == 0) {
			log_info("untrusted: starting from a copy of '%s'", from_out);
		} else {
			log_warnx("cannot copy '%s': the untrusted build starts empty", from_out);
			if (bg_remove_tree(b->slot) < 0 || bg_mkdirs(b->slot) < 0)
				goto out;
		}
	}
	/* the fragments are read when configuring only, but the sandbox binds their place */
	if (bg_mkdirs(b->out) < 0 || bg_mkdirs(b->frag) < 0 ||
	    (b->perf && bg_mkdirs(b->perf_out) < 0))
		goto out;
	ret = 0;
out:
	free(from);
	free(from_out);
	free(marker);
	free(key);
	free(to_key);
	return ret;
}

/* nftw: stops at the first thing that is not a directory */
static int nothing_but_directories(const char *path, const struct stat *st, int type,
				   struct FTW *f)
{
	(void)path;
	(void)st;
	(void)f;
	return type != FTW_D && type != FTW_DP;
}

/* Whether b's worktree and build directories hold nothing yet (the sources included). */
static bool work_is_new(const struct build *b)
{
	return nftw(b->work, nothing_but_directories, 16, FTW_PHYS) == 0;
}

/* Whether a build in work was interrupted: its board's, another board's or perf's. */
static bool interrupted_in(const char *work)
{
	char *boards = bg_path_join(work, "boards"), *marker = bg_path_join(work, "building");
	bool found = access(marker, F_OK) == 0;
	DIR *d = opendir(boards);
	struct dirent *e;

	while (d && !found && (e = readdir(d))) {
		char *m = xasprintf("%s/%s/building", boards, e->d_name);

		found = e->d_name[0] != '.' && access(m, F_OK) == 0;
		free(m);
	}
	if (d)
		closedir(d);
	free(boards);
	free(marker);
	return found;
}

/* Whether the file path holds text and nothing else. */
static bool file_says(const char *path, const char *text)
{
	char *got = bg_read_file(path, 4096, NULL);
	bool same = got && !strcmp(got, text);

	free(got);
	return same;
}

/*
 * Whether work, another tree's for b's arch, can seed b's (see seed_work): its trusted
 * build of the board is of b's configuration, saw its sources where b sees its own
 * (o/source, the link kbuild makes: in the sandbox /tmp/bootgate/src for every tree,
 * without it the tree's own worktree), and no build of that tree was interrupted. Then
 * *when is the time of that build's log.
 */
static bool seed_fits(const struct build *b, const char *work, struct timespec *when)
{
	char *slot = slot_in(b, work), *src = bg_path_join(work, "src");
	char *source = xasprintf("%s/o/source", slot), *key = bg_path_join(slot, "config-key");
	char *log = bg_path_join(slot, "build.log"), link[PATH_MAX];
	ssize_t n = readlink(source, link, sizeof(link) - 1);
	struct stat st;
	bool fits = n > 0 && stat(src, &st) == 0 && S_ISDIR(st.st_mode) &&
		    file_says(key, b->config_key) && !interrupted_in(work) &&
		    stat(log, &st) == 0;

	if (fits) {
		link[n] = '\0';
		fits = !strcmp(link, b->in_src);
		*when = st.st_mtim;
	}
	free(slot);
	free(src);
	free(source);
	free(key);
	free(log);
	return fits;
}

/* Whether work's perf build directory saw its sources where b sees its own. */
static bool seed_has_perf(const struct build *b, const char *work)
{
	char *perf = bg_path_join(work, "perf"), *source = bg_path_join(work, "perf-source");
	bool has = access(perf, F_OK) == 0 && file_says(source, b->in_src);

	free(perf);
	free(source);
	return has;
}

static bool later(struct timespec a, struct timespec b)
{
	return a.tv_sec > b.tv_sec || (a.tv_sec == b.tv_sec && a.tv_nsec > b.tv_nsec);
}

/*
 * Of the other trees' work directories for b's arch that can seed b's, the one whose
 * build of the board is the latest (one with perf's build first, when b builds perf);
 * NULL when there is none. Owned by the caller; *with_perf: whether its perf build is
 * to be copied too.
 */
static char *find_seed(const struct build *b, bool *with_perf)
{
	char *root = bg_path_join(b->cache, "work"), *best = NULL;
	struct timespec latest = { 0, 0 }, when;
	bool best_perf = false;
	DIR *d = opendir(root);
	struct dirent *e;

	while (d && (e = readdir(d))) {
		char *work;
		bool perf;

		if (e->d_name[0] == '.' || !strcmp(e->d_name, b->tree.id))
			continue;
		work = xasprintf("%s/%s/%s", root, e->d_name, b->board.arch);
		perf = b->perf && seed_has_perf(b, work);
		if (seed_fits(b, work, &when) &&
		    (!best || perf > best_perf || (perf == best_perf && later(when, latest)))) {
			latest = when;
			best_perf = perf;
			free(best);
			best = work;
		} else {
			free(work);
		}
	}
	if (d)
		closedir(d);
	free(root);
	*with_perf = best_perf;
	return best;
}

/* Copies from to the directory to, empty or missing, through a copy beside it. */
static int copy_in_place(const char *from, const char *to)
{
	char *part = xasprintf("%s.seed", to);
	int ret = -1;

	if (bg_remove_tree(part) < 0 || copy_dir(from, part) < 0)
		goto out;
	if (rename(part, to) < 0) {
		bg_error_errno("cannot move '%s' to '%s'", part, to);
		goto out;
	}
	ret = 0;
out:
	if (ret < 0)
		bg_remove_tree(part);
	free(part);
	return ret;
}

/*
 * The first file below the directories dirs that is dated at or after since: a copy of
 * it would be taken as newer than the sources this build wrote. NULL when there is none.
 */
static char *dated_after(char *const *dirs, size_t n, struct timespec since)
{
	struct bg_strvec a = BG_STRVEC_INIT;
	struct bg_proc_result r;
	char *out = NULL;
	/* a tick early: a file's time is the coarse clock's */
	long long ns = (long long)since.tv_sec * 1000000000LL + since.tv_nsec - 10000000LL;
	struct bg_proc_opts o = { .in_fd = -1, .out_fd = -1, .err_fd = -1 };

	bg_strvec_push(&a, "find");
	for (size_t i = 0; i < n; i++)
		bg_strvec_push(&a, dirs[i]);
	bg_strvec_pushv(&a, (char *const[]){ "!", "-type", "d", "-newermt", NULL });
	bg_strvec_pushf(&a, "@%lld.%09lld", ns / 1000000000LL, ns % 1000000000LL);
	bg_strvec_pushv(&a, (char *const[]){ "-print", "-quit", NULL });
	o.argv = bg_strvec_argv(&a);
	if (bg_proc_capture(&o, 600, 8192, &out, &r) < 0 || r.exit_code || r.timed_out) {
		free(out);
		out = xasprintf("(find failed: %s)", bg_error_last());
	} else if (!*out) {
		free(out);
		out = NULL;
	} else {
		out[strcspn(out, "\n")] = '\0';
	}
	bg_strvec_release(&a);
	return out;
}

/*
 * The half copies a worker killed while seeding left (copy_in_place): space only, as the
 * worktree it made is not new any more and is never seeded again.
 */
static void forget_seed_copies(const struct build *b)
{
	char *o = xasprintf("%s.seed", b->out), *perf = xasprintf("%s.seed", b->perf_out);

	if (bg_remove_tree(o) < 0 || bg_remove_tree(perf) < 0)
		log_warnx("%s", bg_error_last());
	free(o);
	free(perf);
}

/*
 * A tree's first build of a board, in a worktree with nothing built yet, would be a
 * whole kbuild pass: minutes even when ccache has every object (the printk tree's first
 * took 172 s for 999 hits). It starts instead from another tree's build of the same board
 * and configuration (find_seed), as if that tree's worktree had checked out this commit:
 * each source file that holds the same bytes as that worktree's takes that file's time,
 * then its build directory (and perf's, for a perf build) is copied with its times.
 * Every other file was written by this build's checkout, after all of the copied ones
 * (a copy with a file dated later is refused), so make rebuilds what depends on it, as
 * at each step of a bisection. The configuration is made again, for these sources.
 * Never into a worktree beside a build (retimed sources would look older to it). A
 * seed that fails, or is killed, leaves the build directory empty: a whole build.
 */
static void seed_work(struct build *b, struct timespec checkout)
{
	bool perf;
	char *from = find_seed(b, &perf), *slot, *src, *dirs[2], *late;
	struct bg_retime rt;
	double t0 = bg_now();

	if (!from)
		return;
	slot = slot_in(b, from);
	src = bg_path_join(from, "src");
	dirs[0] = bg_path_join(slot, "o");
	dirs[1] = bg_path_join(from, "perf");
	late = dated_after(dirs, perf ? 2 : 1, checkout);
	if (late) {
		log_warnx("not starting from the build in '%s': '%s' is dated after this build "
			  "began (a clock set back?): building it whole", from, late);
		goto out;
	}
	if (bg_retime_same(b->src, src, &rt) < 0 || bg_git_refresh_index(b->src) < 0 ||
	    copy_in_place(dirs[0], b->out) < 0) {
		log_warnx("cannot start from the build in '%s' (%s): building it whole", from,
			  bg_error_last());
		goto out;
	}
	if (perf && copy_in_place(dirs[1], b->perf_out) < 0)
		log_warnx("cannot start from perf's build in '%s' (%s): building it whole", from,
			  bg_error_last());
	log_info("started from the build in '%s' (%.1f s): %llu source files the same, %llu "
		 "not", from, bg_now() - t0, rt.same, rt.other);
	log_line(b, "started from the build in '%s': %llu source files the same, %llu not\n",
		 from, rt.same, rt.other);
out:
	free(from);
	free(slot);
	free(src);
	free(dirs[0]);
	free(dirs[1]);
	free(late);
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

/* A result field from what the build knows, when it knows it and it is not set yet. */
static void fill(char **field, const char *value)
{
	if (value && *value && !*field)
		*field = xstrdup(value);
}

/*
 * Prints the result, keeps it in --result, and returns the exit code of its status; or
 * 111 when the result cannot be given: whatever was built, nobody would know.
 */
static int finish(struct build *b, enum bg_build_status status, const char *why)
{
	struct bg_build_result *r = &b->res;
	enum bg_exit code = bg_build_status_exit(status);
	struct bg_json j;

	r->status = status;
	fill(&r->error, why);
	fill(&r->tree, b->tree.real);
	fill(&r->tree_id, b->tree.id);
	fill(&r->commit, b->commit);
	fill(&r->parent, b->parent);
	fill(&r->board, b->board.name);
	fill(&r->arch, b->board.arch);
	fill(&r->config_hash, b->config_key);
	fill(&r->compiler, b->compiler);
	fill(&r->log, b->log);
	if (why)
		log_warnx("%s", why);
	bg_json_init(&j, -1, 1);
	bg_build_result_write(&j, r);
	bg_strbuf_addch(&j.out, '\n');
	if (fwrite(j.out.buf, 1, j.out.len, stdout) != j.out.len || fflush(stdout) == EOF) {
		log_warn("cannot write the result");
		code = BG_EXIT_INFRA;
	}
	if (b->result_path && bg_write_file(b->result_path, j.out.buf, j.out.len) < 0) {
		log_warnx("%s", bg_error_last());
		code = BG_EXIT_INFRA;
	}
	/* an image kept for another commit keeps the metadata of the build that made it */
	if (r->artifact && !r->reused && !b->kept_theirs) {
		char *meta = bg_path_join(r->artifact, "metadata.json");

		if (bg_write_file(meta, j.out.buf, j.out.len) < 0)
			log_warnx("%s", bg_error_last());
		free(meta);
	}
	bg_strbuf_release(&j.out);
	return code;
}

static void same_as_parent(struct build *b);

/* artifacts/by-commit/COMMIT-BOARD-CONFIG, "-perf" after it for the builds with perf */
static char *commit_link(const struct build *b, const char *commit)
{
	return xasprintf("%s/artifacts/by-commit/%s-%s-%.12s%s", b->cache, commit, b->board.name,
			 b->config_key, b->perf ? "-perf" : "");
}

/*
 * The identity of an image built with perf: the hash of both hashes. Boots belong to
 * it, so a commit that changes perf alone shares no boots with its parent.
 */
static void perf_identity(const char *kernel_sha, const char *perf_sha, char out[BG_SHA256_HEX])
{
	char *text = xasprintf("bootgate-perf-1 %s %s", kernel_sha, perf_sha);

	bg_sha256_mem(text, strlen(text), out);
	free(text);
}

/* An artifact kept with perf: its perf, and the hashes of both parts. */
static int reuse_perf(struct build *b, const char *target)
{
	struct bg_build_result *r = &b->res;
	char ksha[BG_SHA256_HEX], psha[BG_SHA256_HEX], both[BG_SHA256_HEX];
	char *perf = bg_path_join(target, "perf");

	if (access(perf, R_OK) != 0 || bg_sha256_file(r->image, ksha) < 0 ||
	    bg_sha256_file(perf, psha) < 0) {
		free(perf);
		return -1;
	}
	perf_identity(ksha, psha, both);
	if (strcmp(both, r->image_sha256) != 0) {
		free(perf);
		return -1;   /* not what its name says: build again */
	}
	r->perf = perf;
	r->perf_sha256 = xstrdup(psha);
	r->kernel_sha256 = xstrdup(ksha);
	return 0;
}

/*
 * artifacts/by-source/KEY: the key hashes the source tree, the configuration (which names
 * the arch, the compiler prefix and the make target), the image's path and the compiler;
 * not the board's name, so that boards that build alike (qemu-x86_64 and a LAVA board
 * booting the same kernel) share one image. An untrusted build's images have keys of their
 * own: a build can tell where it runs and give another image than its source would, and
 * that image must not become a trusted commit's.
 */
static char *source_link(const struct build *b, bool untrusted)
{
	char key[BG_SHA256_HEX];
	/* with perf another artifact: the image and perf (no suffix: the old keys stay) */
	char *text = xasprintf("bootgate-source-2 %s %s %s %s%s%s", b->source, b->config_key,
			       b->board.image, b->compiler ? b->compiler : "",
			       b->perf ? " perf-1" : "", untrusted ? " untrusted" : "");

	bg_sha256_mem(text, strlen(text), key);
	free(text);
	return xasprintf("%s/artifacts/by-source/%s", b->cache, key);
}

/*
 * An image built before from the same source tree with the same board, configuration
 * and compiler: taken as this commit's, with nothing compiled. 1 when reused. A trusted
 * build takes trusted images only; an untrusted one, those and its own kind's.
 */
static int reuse(struct build *b)
{
	struct bg_build_result *r = &b->res;
	char target[PATH_MAX], *link = source_link(b, false), *image = NULL, *byc = NULL;
	ssize_t n = readlink(link, target, sizeof(target) - 1);
	const char *sha;
	int ret = 0;

	if (n <= 0 && b->untrusted) {
		free(link);
		link = source_link(b, true);
		n = readlink(link, target, sizeof(target) - 1);
	}
	if (n <= 0)
		goto out;
	target[n] = '\0';
	image = bg_path_join(target, "image");
	sha = strrchr(target, '/');
	if (access(image, R_OK) != 0 || !sha || strlen(sha + 1) != BG_SHA256_HEX - 1)
		goto out;
	r->artifact = xstrdup(target);
	r->image = image;
	image = NULL;
	r->image_sha256 = xstrdup(sha + 1);
	if (b->perf && reuse_perf(b, target) < 0) {
		free(r->artifact);
		free(r->image);
		free(r->image_sha256);
		r->artifact = r->image = r->image_sha256 = NULL;
		goto out;
	}
	r->reused = true;
	/* the log is the build's that made the image; its metadata stays that build's */
	free(b->log);
	b->log = bg_path_join(target, "build.log");
	byc = commit_link(b, b->commit);
	unlink(byc);
	if (symlink(target, byc) < 0)
		log_warn("cannot link '%s'", byc);
	same_as_parent(b);
	ret = 1;
out:
	free(byc);
	free(image);
	free(link);
	return ret;
}

/*
 * Copies NAME of the build directory DIR to DEST and hashes it. NAME is opened without
 * following a link out of DIR: a link, a directory or nothing there is the build's doing
 * (bad_output), not the machine's.
 */
static int stage_output(struct build *b, const char *dir, const char *name, const char *what,
			const char *dest, char sha[BG_SHA256_HEX])
{
	int fd = bg_open_beneath(dir, name), ret;

	if (fd < 0) {
		b->bad_output = true;
		return -1;
	}
	ret = bg_copy_fd(fd, what, dest);
	close(fd);
	if (ret < 0 || bg_sha256_file(dest, sha) < 0)
		return -1;
	return 0;
}

/*
 * Stores the image content-addressed, with its config, its log and a by-commit name. The
 * image and the .config are the build's own output: opened without following a link,
 * so that a build cannot make this worker copy a file it could not read itself.
 */
static int store(struct build *b)
{
	struct bg_build_result *r = &b->res;
	char sha[BG_SHA256_HEX], *dir = xasprintf("%s/artifacts/by-commit", b->cache);
	char *path = NULL, *link = NULL, *staged = NULL, *staged_perf = NULL;
	int ret = -1, fd;

	staged = bg_path_join(b->slot, "image");
	if (stage_output(b, b->out, b->board.image, b->board.image, staged, sha) < 0)
		goto out;
	if (b->perf) {
		char psha[BG_SHA256_HEX];

		staged_perf = bg_path_join(b->work, "perf.staged");
		if (stage_output(b, b->perf_out, "perf.stripped", "perf", staged_perf, psha) < 0)
			goto out;
		r->kernel_sha256 = xstrdup(sha);
		r->perf_sha256 = xstrdup(psha);
		perf_identity(r->kernel_sha256, psha, sha);
	}
	r->image_sha256 = xstrdup(sha);
	r->artifact = xasprintf("%s/artifacts/%s", b->cache, sha);
	{
		char *sources = xasprintf("%s/artifacts/by-source", b->cache);
		int made = bg_mkdirs(sources);

		free(sources);
		if (bg_mkdirs(r->artifact) < 0 || bg_mkdirs(dir) < 0 || made < 0)
			goto out;
	}
	path = bg_path_join(r->artifact, "image");
	/*
	 * The same bytes built before: an untrusted build leaves that artifact's config, log
	 * and metadata as they are (its .config is the build's to rewrite, and a trusted
	 * commit that takes the image again reports that log).
	 */
	b->kept_theirs = b->untrusted && access(path, R_OK) == 0;
	if (access(path, R_OK) != 0 && rename(staged, path) < 0) {
		bg_error_errno("cannot store '%s'", path);
		goto out;
	}
	r->image = path;
	if (staged_perf) {
		path = bg_path_join(r->artifact, "perf");
		if (access(path, R_OK) != 0 && rename(staged_perf, path) < 0) {
			bg_error_errno("cannot store '%s'", path);
			goto out;
		}
		if (chmod(path, 0755) < 0)
			log_warn("cannot chmod '%s'", path);
		r->perf = path;
	}
	path = bg_path_join(r->artifact, "config");
	if ((fd = bg_open_beneath(b->out, ".config")) < 0) {
		b->bad_output = true;
		goto out;
	}
	ret = b->kept_theirs ? 0 : bg_copy_fd(fd, ".config", path);
	close(fd);
	if (ret < 0)
		goto out;
	ret = -1;
	free(path);
	path = bg_path_join(r->artifact, "build.log");
	if (!b->kept_theirs && bg_copy_file(b->log, path) < 0)
		goto out;
	free(link);
	link = commit_link(b, b->commit);
	unlink(link);
	if (symlink(r->artifact, link) < 0) {
		bg_error_errno("cannot link '%s'", link);
		goto out;
	}
	/* the same source, board, configuration and compiler give this image again */
	free(link);
	link = source_link(b, b->untrusted);
	unlink(link);
	if (symlink(r->artifact, link) < 0) {
		bg_error_errno("cannot link '%s'", link);
		goto out;
	}
	same_as_parent(b);
	ret = 0;
out:
	if (staged)
		unlink(staged);
	if (staged_perf)
		unlink(staged_perf);
	free(staged);
	free(staged_perf);
	free(path);
	free(link);
	free(dir);
	return ret;
}

/* A commit whose image equals its parent's cannot change boot time. */
static void same_as_parent(struct build *b)
{
	struct bg_build_result *r = &b->res;
	char *link;

	if (!b->parent[0])
		return;
	link = commit_link(b, b->parent);
	{
		char target[PATH_MAX];
		ssize_t n = readlink(link, target, sizeof(target) - 1);

		if (n > 0) {
			target[n] = '\0';
			r->identical_to_parent = !strcmp(target, r->artifact);
		}
	}
	free(link);
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

static void build_waiting(void *data)
{
	(void)data;
	log_info("waiting for another build to finish");
}

/* One kernel build at a time on this machine: more only thrash the cores. */
static int take_build_lock(const struct build *b)
{
	char *lock = bg_path_join(b->cache, ".build-lock");
	int fd, ret = bg_lock_file(lock, true, build_waiting, NULL, &fd);

	free(lock);
	return ret;   /* the descriptor stays open: the lock lasts as long as we do */
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
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
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct build b = { .log_fd = -1, .base = "tinyconfig", .timeout = 3 * 3600,
			   .max_procs = 4096, .max_disk_mb = 32768 };
	struct bg_strvec extra = BG_STRVEC_INIT;
	const char *tree = NULL, *board = NULL, *lab = NULL;
	struct bg_proc_result r = { 0 };   /* configure() leaves it alone when nothing changed */
	unsigned long jobs;
	int opt, ret;
	bool new_work;
	struct timespec checkout;
	bool perf_failed = false;
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	double t0;

	log_init("bootgate-build", 0);
	opterr = 0;     /* a bad option is named once, escaped, below */
	bg_build_result_init(&b.res);
	b.sandbox = true;
	b.jobs = cores > 0 ? (unsigned)cores : 1;
	b.service = getenv("BOOTGATE_SERVICE");
	while ((opt = getopt_long(argc, argv, "t:c:b:l:j:r:nC:F:PUS:T:p:D:h", opts, NULL)) != -1) {
		switch (opt) {
		case 't': tree = optarg; break;
		case 'c': b.rev = optarg; break;
		case 'b': board = optarg; break;
		case 'l': lab = optarg; break;
		case 'j':
			if (bg_num_parse_ulong(optarg, 1, 1024, &jobs) < 0) {
				log_warnx("--jobs: %s", bg_error_last());
				return BG_EXIT_USAGE;
			}
			b.jobs = (unsigned)jobs;
			break;
		case 'r': b.result_path = optarg; break;
		case 'n': b.sandbox = false; break;
		case 'C': b.base = optarg; break;
		case 'F': bg_strvec_push(&extra, optarg); break;
		case 'P': b.perf = true; break;
		case 'U': b.untrusted = true; break;
		case 'S': b.service = optarg; break;
		case 'T': case 'p': case 'D':
			if (bg_num_parse_ulong(optarg, 1, opt == 'T' ? 7 * 86400 :
					       opt == 'p' ? 1 << 20 : 1 << 30,
					       opt == 'T' ? &b.timeout : opt == 'p' ?
					       &b.max_procs : &b.max_disk_mb) < 0) {
				log_warnx("%s: %s", argv[optind - 1], bg_error_last());
				return BG_EXIT_USAGE;
			}
			break;
		case 'h': usage(stdout); return BG_EXIT_OK;
		default:
			log_warnx("unknown option, or one without its value: '%s'", argv[optind - 1]);
			usage(stderr);
			return BG_EXIT_USAGE;
		}
	}
	if (!tree || !b.rev || !board || optind < argc) {
		usage(stderr);
		return BG_EXIT_USAGE;
	}
	if (b.untrusted && !b.sandbox) {
		log_warnx("--untrusted builds in the sandbox: not with --no-sandbox");
		return BG_EXIT_USAGE;
	}
	b.cache = bg_cache_dir();

	/* every input is checked before any work: a usage error is never retried */
	if (check_result_path(b.result_path) < 0 ||
	    bg_board_load(lab ? lab : bg_lab_dir(), board, &b.board) < 0 ||
	    bg_tree_open(tree, &b.tree) < 0 ||
	    bg_git_resolve(b.tree.real, b.rev, b.commit) < 0 ||
	    config_inputs(&b, &extra) < 0 || perf_arch_check(&b) < 0 || hide_service(&b) < 0) {
		bg_strvec_release(&extra);
		ret = finish(&b, BG_BUILD_USAGE, bg_error_last());
		goto out;
	}
	bg_strvec_release(&extra);
	hide_tokens(&b);
	b.work = bg_tree_workdir(&b.tree, b.board.arch);
	b.src = bg_path_join(b.work, "src");
	/*
	 * One worktree per tree and arch, but a build directory per board: boards of one arch
	 * with other fragments (qemu-x86_64-smp beside qemu-x86_64) would otherwise configure
	 * it anew and rebuild nearly everything at each switch. qemu-ARCH keeps the arch's.
	 */
	b.slot = b.untrusted ? xasprintf("%s/untrusted/%s", b.work, b.board.name) :
		 trusted_slot(&b);
	b.out = bg_path_join(b.slot, "o");
	b.frag = bg_path_join(b.slot, "frag");
	b.log = bg_path_join(b.slot, "build.log");
	b.ccache = bg_path_join(b.cache, "ccache");
	b.in_src = b.sandbox ? "/tmp/bootgate/src" : b.src;
	b.in_out = b.sandbox ? "/tmp/bootgate/o" : b.out;
	b.in_frag = b.sandbox ? "/tmp/bootgate/frag" : b.frag;
	b.perf_out = bg_path_join(b.untrusted ? b.slot : b.work, "perf");
	b.in_perf = b.sandbox ? "/tmp/bootgate/perf" : b.perf_out;
	{
		struct bg_git_commit c;

		if (bg_git_commit_info(b.tree.real, b.commit, &c) < 0) {
			ret = finish(&b, BG_BUILD_INFRA, bg_error_last());
			goto out;
		}
		memcpy(b.source, c.tree, sizeof(b.source));
		memcpy(b.parent, c.parents[0], sizeof(b.parent));
		bg_git_commit_release(&c);
	}
	if (compiler_version(&b) < 0) {
		/* a compiler that is not there is a program that cannot be run, not a retry */
		ret = finish(&b, b.compiler_missing ? BG_BUILD_EXEC : BG_BUILD_INFRA,
			     bg_error_last());
		goto out;
	}
	if (compute_config_key(&b) < 0) {
		ret = finish(&b, BG_BUILD_INFRA, bg_error_last());
		goto out;
	}
	/* BOOTGATE_REUSE=0 builds anyway: benchmarks compare builds, not a lookup */
	if ((!getenv("BOOTGATE_REUSE") || strcmp(getenv("BOOTGATE_REUSE"), "0")) && reuse(&b)) {
		log_info("%.12s: the image of the same source is kept: %s%s", b.commit, b.res.image,
			 b.res.identical_to_parent == 1 ?
			 " (byte-identical to its parent's: it cannot change boot time)" : "");
		ret = finish(&b, BG_BUILD_BUILT, NULL);
		goto out;
	}
	if (bg_mkdirs(b.out) < 0 || bg_mkdirs(b.ccache) < 0 ||
	    (b.perf && bg_mkdirs(b.perf_out) < 0) || take_build_lock(&b) < 0 ||
	    (b.untrusted && fresh_slot(&b) < 0)) {
		ret = finish(&b, BG_BUILD_INFRA, bg_error_last());
		goto out;
	}
	new_work = work_is_new(&b);
	/* what a seed's copy must be older than: every file the checkout writes is not */
	clock_gettime(CLOCK_REALTIME_COARSE, &checkout);
	forget_seed_copies(&b);
	cgroup_enter(&b);
	b.log_fd = open(b.log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (b.log_fd < 0) {
		bg_error_errno("cannot write '%s'", b.log);
		ret = finish(&b, BG_BUILD_INFRA, bg_error_last());
		goto out;
	}
	t0 = bg_now();
	log_info("%s %s for %s", b.tree.id, b.rev, b.board.name);
	{
		char rev[BG_OID_HEX];

		memcpy(rev, b.commit, sizeof(rev));
		/*
		 * Under the build lock no other worker is in this worktree: an index.lock or
		 * HEAD.lock there is a killed worker's, and would fail every checkout.
		 */
		if (bg_git_worktree_clear_locks(b.src) < 0 ||
		    bg_git_checkout(b.tree.real, b.src, rev, b.commit, b.parent) < 0) {
			ret = finish(&b, BG_BUILD_INFRA, bg_error_last());
			goto out;
		}
	}
	if (new_work)
		seed_work(&b, checkout);
	if (forget_interrupted(&b) < 0) {
		ret = finish(&b, BG_BUILD_INFRA, bg_error_last());
		goto out;
	}
	{
		char *stats = xasprintf("%s/.ccache-stats.log", b.out);

		unlink(stats);
		free(stats);
	}
	log_info("commit %.12s, config %.12s, %s", b.commit, b.config_key,
		 !b.sandbox ? "no sandbox" : b.untrusted ? "sandboxed, untrusted" : "sandboxed");
	if (configure(&b, &r) < 0) {
		ret = finish(&b, BG_BUILD_INFRA, bg_error_last());
		goto out;
	}
	if (!r.exit_code)
		make(&b, b.board.make_target, true, &r);
	if (b.perf && !r.exit_code && !r.timed_out && !r.exec_failed) {
		perf_failed = make_perf(&b, &r) == 0 && (r.exit_code || r.timed_out);
		if (perf_failed)
			log_line(&b, "perf: tools/perf does not build\n");
	}
	/* make finished its files, failed or not; one it was killed in is not finished */
	if (!r.timed_out && !b.limit)
		unlink(b.marker);
	ccache_rate(&b);
	b.res.build_seconds = bg_now() - t0;
	if (r.exec_failed) {
		ret = finish(&b, BG_BUILD_EXEC, bg_error_last());
		goto out;
	}
	if (r.exit_code || r.timed_out) {
		/*
		 * A limit is the build's doing: retried, it would do it again. But an
		 * enclosing cgroup's limit is the machine's, whoever's the build, and so is a
		 * trusted tree past its time (slow or busy): a commit recorded failed is never
		 * built again, and a bisection would skip it for good.
		 */
		bool infra;
		char *dir, *failed;

		if (b.limit)
			infra = b.limit == enclosing_limit ||
				(b.limit == time_limit && !b.untrusted);
		else
			infra = r.timed_out || log_shows_machine(&b);
		dir = xasprintf("%s/artifacts/failed", b.cache);
		failed = xasprintf("%s/%s-%s.log", dir, b.commit, b.board.name);

		/* keep the log of a failed build where the next build will not overwrite it */
		if (bg_mkdirs(dir) == 0 && bg_copy_file(b.log, failed) == 0) {
			free(b.log);
			b.log = failed;
		} else {
			free(failed);
		}
		free(dir);
		log_info("%.12s %s after %.0f s; log: %s", b.commit,
			 infra ? "failed for the machine's reasons" : "does not build",
			 b.res.build_seconds, b.log);
		show_errors(b.log);
		ret = finish(&b, infra ? BG_BUILD_INFRA : BG_BUILD_FAILED,
			     b.limit ? b.limit : infra ? "the build failed for the machine's reasons" :
			     perf_failed ? "perf: tools/perf does not build" : NULL);
		goto out;
	}
	if (store(&b) < 0) {
		ret = finish(&b, b.bad_output ? BG_BUILD_FAILED : BG_BUILD_INFRA, bg_error_last());
		goto out;
	}
	log_info("built %.12s in %.1f s: %s%s", b.commit, b.res.build_seconds, b.res.image,
		 b.res.identical_to_parent == 1 ?
		 " (byte-identical to its parent's: it cannot change boot time)" : "");
	ret = finish(&b, BG_BUILD_BUILT, NULL);
out:
	cgroup_leave(&b);
	if (b.log_fd >= 0)
		close(b.log_fd);
	bg_build_result_release(&b.res);
	bg_board_release(&b.board);
	bg_tree_release(&b.tree);
	free(b.work);
	free(b.slot);
	free(b.src);
	free(b.out);
	free(b.frag);
	free(b.perf_out);
	free(b.log);
	free(b.ccache);
	free(b.marker);
	bg_strvec_release(&b.frag_from);
	bg_strvec_release(&b.frag_name);
	bg_strvec_release(&b.hidden);
	free(b.compiler);
	return ret;
}
