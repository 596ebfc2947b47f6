/*
 * What a build step may use (build.h): its time, its processes (a pids cgroup of the
 * build's own) and its disk; a step past one of them is stopped, and b->limit says which.
 */
#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <sys/stat.h>

#include "build.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/num.h"
#include "util/path.h"
#include "util/xmalloc.h"

/* Where this worker makes each build's pids cgroup (cgroup v1), under its own. */
#define PIDS_CGROUP "/sys/fs/cgroup/pids"

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

/*
 * Whether the limit that stopped the build is the machine's rather than the build's: an
 * enclosing cgroup's, or a trusted tree's time (slow or busy).
 */
bool limit_is_machines(const struct build *b)
{
	return b->limit == enclosing_limit || (b->limit == time_limit && !b->untrusted);
}

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

		if (strncmp(e->d_name, "bootgate-build-", 15) != 0)
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
void cgroup_enter(struct build *b)
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
void cgroup_leave(struct build *b)
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
int run_limited(struct build *b, const struct bg_proc_opts *o, struct bg_proc_result *r)
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

