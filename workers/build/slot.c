/*
 * Where a build happens (build.h): the worktree of each tree and arch, the build
 * directory of each board, the lock that keeps one build there at a time, an untrusted
 * build's fresh copy, the seed a new worktree starts from, and what an interrupted build
 * left behind.
 */
#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <sys/stat.h>

#include "build.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/path.h"
#include "util/xmalloc.h"

/* The board's build directory (o, frag, config-key, log) of the trusted builds. */
static char *slot_in(const struct build *b, const char *work)
{
	char *own = xasprintf("qemu-%s", b->board.arch), *slot;

	/* qemu-ARCH keeps the arch's own, the others one of their own (see slot_paths) */
	slot = strcmp(b->board.name, own) ? xasprintf("%s/boards/%s", work, b->board.name) :
	       xstrdup(work);
	free(own);
	return slot;
}

static char *trusted_slot(const struct build *b)
{
	return slot_in(b, b->work);
}

/* Where the build happens, as this worker sees it and as the build does. */
void slot_paths(struct build *b)
{
	b->work = bg_tree_workdir(&b->tree, b->board.arch);
	b->src = bg_path_join(b->work, "src");
	/*
	 * One worktree per tree and arch, but a build directory per board: boards of one arch
	 * with other fragments (qemu-x86_64-smp beside qemu-x86_64) would otherwise configure
	 * it anew and rebuild nearly everything at each switch. qemu-ARCH keeps the arch's.
	 */
	b->slot = b->untrusted ? xasprintf("%s/untrusted/%s", b->work, b->board.name) :
		  trusted_slot(b);
	b->out = bg_path_join(b->slot, "o");
	b->frag = bg_path_join(b->slot, "frag");
	b->log = bg_path_join(b->slot, "build.log");
	b->ccache = bg_path_join(b->cache, "ccache");
	b->in_src = b->sandbox ? "/tmp/bootgate/src" : b->src;
	b->in_out = b->sandbox ? "/tmp/bootgate/o" : b->out;
	b->in_frag = b->sandbox ? "/tmp/bootgate/frag" : b->frag;
	b->perf_out = bg_path_join(b->untrusted ? b->slot : b->work, "perf");
	b->in_perf = b->sandbox ? "/tmp/bootgate/perf" : b->perf_out;
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

/*
 * The build's directories made and the build lock taken; an untrusted build then starts
 * from a fresh copy of the trusted build directory (fresh_slot).
 */
int take_slot(struct build *b)
{
	if (bg_mkdirs(b->out) < 0 || bg_mkdirs(b->ccache) < 0 ||
	    (b->perf && bg_mkdirs(b->perf_out) < 0) || take_build_lock(b) < 0)
		return -1;
	return b->untrusted ? fresh_slot(b) : 0;
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
bool work_is_new(const struct build *b)
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
void forget_seed_copies(const struct build *b)
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
void seed_work(struct build *b, struct timespec checkout)
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

/*
 * A build killed midway (SIGKILL, power) may leave half-written objects that make then
 * takes as done. The marker is made before make runs and removed after it: when it is
 * still there, every file written since it was made is removed, so make does it again.
 */
int forget_interrupted(struct build *b)
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
