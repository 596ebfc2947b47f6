/* Child processes (proc.h): fork, exec, process groups, pidfd-based waiting. */
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

#include "util/proc.h"
#include "util/error.h"
#include "util/strbuf.h"

double bg_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int open_null(int flags)
{
	return open("/dev/null", flags | O_CLOEXEC);
}

int bg_proc_start(struct bg_proc *p, const struct bg_proc_opts *o)
{
	int errpipe[2], outpipe[2] = { -1, -1 }, child_errno = 0;
	pid_t parent = getpid();
	ssize_t n;

	memset(p, 0, sizeof(*p));
	p->out = p->pidfd = -1;
	/* with SIGCHLD ignored (inherited so), children reap themselves and cannot be waited */
	signal(SIGCHLD, SIG_DFL);
	if (pipe2(errpipe, O_CLOEXEC) < 0)
		return bg_error_errno("cannot create a pipe");
	if (o->out_fd == BG_PROC_PIPE && pipe2(outpipe, O_CLOEXEC) < 0) {
		close(errpipe[0]);
		close(errpipe[1]);
		return bg_error_errno("cannot create a pipe");
	}
	p->started = bg_now();
	p->pid = fork();
	if (p->pid < 0) {
		bg_error_errno("cannot fork for '%s'", o->argv[0]);
		close(errpipe[0]);
		close(errpipe[1]);
		if (outpipe[0] >= 0) {
			close(outpipe[0]);
			close(outpipe[1]);
		}
		return -1;
	}
	if (p->pid == 0) {
		int in = o->in_fd >= 0 ? o->in_fd : open_null(O_RDONLY);
		int out = o->out_fd == BG_PROC_PIPE ? outpipe[1] :
			  o->out_fd >= 0 ? o->out_fd : open_null(O_WRONLY);
		int err = o->err_fd == BG_PROC_SAME ? out :
			  o->err_fd >= 0 ? o->err_fd : open_null(O_WRONLY);

		sigset_t none;

		setpgid(0, 0);
		/* a parent's blocked or ignored signals are no program's: its death signal too */
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGPIPE, SIG_DFL);
		/* if we die (killed, Ctrl-C), so does it: no build or QEMU runs on orphaned */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() != parent)
			_exit(127);
		if (dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0 ||
		    (o->dir && chdir(o->dir) < 0)) {
			child_errno = errno;
		} else {
			if (o->envp)
				execvpe(o->argv[0], o->argv, o->envp);
			else
				execvp(o->argv[0], o->argv);
			child_errno = errno;
		}
		n = write(errpipe[1], &child_errno, sizeof(child_errno));
		(void)n;
		_exit(127);
	}
	setpgid(p->pid, p->pid);
	close(errpipe[1]);
	if (outpipe[1] >= 0) {
		close(outpipe[1]);
		p->out = outpipe[0];
	}
	do {
		n = read(errpipe[0], &child_errno, sizeof(child_errno));
	} while (n < 0 && errno == EINTR);
	close(errpipe[0]);
	if (n == (ssize_t)sizeof(child_errno)) {
		int status;

		waitpid(p->pid, &status, 0);
		if (p->out >= 0)
			close(p->out);
		p->out = -1;
		p->pid = 0;
		errno = child_errno;
		return bg_error_errno("cannot run '%s'", o->argv[0]);
	}
	p->pidfd = (int)syscall(SYS_pidfd_open, p->pid, 0);
	return 0;
}

static void fill_result(const struct bg_proc *p, int status, struct bg_proc_result *r)
{
	r->exec_failed = false;
	r->seconds = bg_now() - p->started;
	if (WIFEXITED(status))
		r->exit_code = WEXITSTATUS(status);
	else if (WIFSIGNALED(status))
		r->exit_code = 128 + WTERMSIG(status);
	else
		r->exit_code = 255;
}

/*
 * Whether the program has ended, waiting up to timeout_ms (-1: forever), without reaping
 * it: its zombie keeps its pid and process group from being reused meanwhile. On the
 * pidfd when there is one; else (pidfd_open is Linux 5.3) by looking every 10 ms, so that
 * a 60 s limit is still 60 s.
 */
static bool ended(struct bg_proc *p, int timeout_ms)
{
	double deadline = timeout_ms > 0 ? bg_now() + timeout_ms / 1000.0 : 0;

	for (;;) {
		siginfo_t si;
		int left;

		memset(&si, 0, sizeof(si));
		if (waitid(P_PID, (id_t)p->pid, &si, WEXITED | WNOWAIT | WNOHANG) < 0) {
			if (errno == EINTR)
				continue;
			return true;     /* not our child (any more): nothing to wait for */
		}
		if (si.si_pid == p->pid)
			return true;
		if (timeout_ms == 0)
			return false;
		left = timeout_ms < 0 ? -1 : (int)((deadline - bg_now()) * 1000) + 1;
		if (timeout_ms > 0 && left <= 0)
			return false;
		if (p->pidfd >= 0) {
			struct pollfd pfd = { p->pidfd, POLLIN, 0 };

			poll(&pfd, 1, left);
		} else {
			int ms = left < 0 || left > 10 ? 10 : left;
			struct timespec ts = { 0, (long)ms * 1000000 };

			nanosleep(&ts, NULL);
		}
	}
}

int bg_proc_wait(struct bg_proc *p, int timeout_ms, struct bg_proc_result *r)
{
	int status;

	memset(r, 0, sizeof(*r));
	if (p->pid <= 0)
		return 0;
	if (!ended(p, timeout_ms))
		return 1;
	/* what it left running in its group goes too, while the group's id is still ours */
	kill(-p->pid, SIGKILL);
	while (waitpid(p->pid, &status, 0) < 0) {
		if (errno != EINTR) {
			status = 255 << 8;
			break;
		}
	}
	fill_result(p, status, r);
	if (p->pidfd >= 0)
		close(p->pidfd);
	p->pidfd = -1;
	p->pid = 0;
	return 0;
}

void bg_proc_kill(struct bg_proc *p, int grace_ms, struct bg_proc_result *r)
{
	if (p->pid <= 0)
		return;
	if (grace_ms > 0) {
		kill(-p->pid, SIGTERM);
		if (!ended(p, grace_ms))
			kill(-p->pid, SIGKILL);
	} else {
		kill(-p->pid, SIGKILL);
	}
	bg_proc_wait(p, -1, r);   /* kills the rest of the group, then reaps */
	r->timed_out = true;
}

/* A limit in seconds as poll's milliseconds: 0 is none (-1), and no overflow past 24 days. */
static int timeout_ms(unsigned timeout_s)
{
	if (!timeout_s)
		return -1;
	return timeout_s >= INT_MAX / 1000 ? INT_MAX : (int)timeout_s * 1000;
}

int bg_proc_run(const struct bg_proc_opts *o, unsigned timeout_s, struct bg_proc_result *r)
{
	struct bg_proc p;

	memset(r, 0, sizeof(*r));
	if (bg_proc_start(&p, o) < 0) {
		r->exec_failed = true;
		r->exit_code = 127;
		return -1;
	}
	if (bg_proc_wait(&p, timeout_ms(timeout_s), r) == 1)
		bg_proc_kill(&p, BG_PROC_GRACE_MS, r);
	if (p.out >= 0)
		close(p.out);
	return 0;
}

int bg_proc_capture(const struct bg_proc_opts *o, unsigned timeout_s, size_t max, char **out,
		    struct bg_proc_result *r)
{
	struct bg_proc_opts po = *o;
	struct bg_strbuf sb = BG_STRBUF_INIT;
	struct bg_proc p;
	double deadline;
	bool killed = false, out_open = true;
	char buf[8192];
	ssize_t n;

	memset(r, 0, sizeof(*r));
	*out = NULL;
	po.out_fd = BG_PROC_PIPE;
	if (bg_proc_start(&p, &po) < 0) {
		r->exec_failed = true;
		r->exit_code = 127;
		return -1;
	}
	deadline = timeout_s ? p.started + timeout_s : 0;
	sb.max = max;
	/*
	 * Until the program ends: its output is read as it comes, but its end is what is
	 * waited for, not the pipe's. Something it left running may hold the pipe open.
	 */
	while (!ended(&p, 0)) {
		struct pollfd pfd[2] = { { out_open ? p.out : -1, POLLIN, 0 },
					 { p.pidfd, POLLIN, 0 } };
		int wait_ms = deadline ? (int)((deadline - bg_now()) * 1000) + 1 : -1;

		if (deadline && wait_ms <= 0) {
			killed = true;
			break;
		}
		/* without a pidfd, look for the program's end every 10 ms */
		if (p.pidfd < 0 && (wait_ms < 0 || wait_ms > 10))
			wait_ms = 10;
		if (poll(pfd, 2, wait_ms) <= 0)
			continue;   /* nothing yet, or a signal: the loop looks again */
		if (out_open && pfd[0].revents) {
			n = read(p.out, buf, sizeof(buf));
			if (n > 0)
				bg_strbuf_add(&sb, buf, (size_t)n);   /* past max: read on, keep nothing */
			else if (n == 0 || errno != EINTR)
				out_open = false;
		}
	}
	if (killed)
		bg_proc_kill(&p, BG_PROC_GRACE_MS, r);
	else
		bg_proc_wait(&p, -1, r);   /* kills what it left in its group, then reaps */
	/* what it wrote before it ended is still in the pipe */
	fcntl(p.out, F_SETFL, O_NONBLOCK);
	while (out_open && (n = read(p.out, buf, sizeof(buf))) != 0) {
		if (n > 0)
			bg_strbuf_add(&sb, buf, (size_t)n);
		else if (errno != EINTR)
			break;
	}
	close(p.out);
	*out = bg_strbuf_detach(&sb, NULL);
	return 0;
}
