/* Child processes (proc.h): fork, exec, process groups, pidfd-based waiting. */
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

#include "proc.h"
#include "error.h"
#include "strbuf.h"

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
	ssize_t n;

	memset(p, 0, sizeof(*p));
	p->out = p->pidfd = -1;
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

		setpgid(0, 0);
		signal(SIGPIPE, SIG_DFL);
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

int bg_proc_wait(struct bg_proc *p, int timeout_ms, struct bg_proc_result *r)
{
	int status;
	pid_t got;

	memset(r, 0, sizeof(*r));
	if (p->pid <= 0)
		return 0;
	if (timeout_ms != 0 && p->pidfd >= 0) {
		struct pollfd pfd = { p->pidfd, POLLIN, 0 };

		if (poll(&pfd, 1, timeout_ms) == 0)
			return 1;
	} else if (timeout_ms < 0) {
		got = waitpid(p->pid, &status, 0);
		goto reaped;
	}
	got = waitpid(p->pid, &status, WNOHANG);
reaped:
	if (got == 0)
		return 1;
	if (got < 0)
		status = 255 << 8;
	fill_result(p, status, r);
	if (p->pidfd >= 0)
		close(p->pidfd);
	p->pidfd = -1;
	p->pid = 0;
	return 0;
}

void bg_proc_kill(struct bg_proc *p, struct bg_proc_result *r)
{
	/* reaping clears p->pid: a kill(-0) would then hit our own process group */
	pid_t group = p->pid;

	if (group <= 0)
		return;
	kill(-group, SIGTERM);
	if (bg_proc_wait(p, 2000, r) == 1) {
		kill(-group, SIGKILL);
		bg_proc_wait(p, -1, r);
	}
	/* whatever the leader left behind in its group goes too */
	kill(-group, SIGKILL);
	r->timed_out = true;
}

int bg_proc_run(const struct bg_proc_opts *o, unsigned timeout_s, struct bg_proc_result *r)
{
	struct bg_proc p;
	pid_t group;

	memset(r, 0, sizeof(*r));
	if (bg_proc_start(&p, o) < 0) {
		r->exec_failed = true;
		r->exit_code = 127;
		return -1;
	}
	group = p.pid;
	if (bg_proc_wait(&p, timeout_s ? (int)(timeout_s * 1000) : -1, r) == 1)
		bg_proc_kill(&p, r);
	else
		kill(-group, SIGKILL);   /* no stray grandchildren past the leader */
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
	pid_t group;
	bool killed = false;

	memset(r, 0, sizeof(*r));
	*out = NULL;
	po.out_fd = BG_PROC_PIPE;
	if (bg_proc_start(&p, &po) < 0) {
		r->exec_failed = true;
		r->exit_code = 127;
		return -1;
	}
	group = p.pid;
	deadline = timeout_s ? p.started + timeout_s : 0;
	sb.max = max;
	for (;;) {
		struct pollfd pfd = { p.out, POLLIN, 0 };
		int wait_ms = deadline ? (int)((deadline - bg_now()) * 1000) + 1 : -1;
		char buf[8192];
		ssize_t n;

		if (deadline && wait_ms <= 0) {
			killed = true;
			break;
		}
		if (poll(&pfd, 1, wait_ms) == 0)
			continue;
		n = read(p.out, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		bg_strbuf_add(&sb, buf, (size_t)n);   /* past max: read on, keep nothing */
	}
	close(p.out);
	/* the output may end before the program does: the deadline still holds */
	if (!killed && deadline) {
		int left = (int)((deadline - bg_now()) * 1000) + 1;

		killed = bg_proc_wait(&p, left > 0 ? left : 0, r) == 1;
	} else if (!killed) {
		bg_proc_wait(&p, -1, r);
	}
	if (killed)
		bg_proc_kill(&p, r);
	kill(-group, SIGKILL);   /* no stray grandchildren past the leader */
	*out = bg_strbuf_detach(&sb, NULL);
	return 0;
}
