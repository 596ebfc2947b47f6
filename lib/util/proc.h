/*
 * Child processes: each in its own process group, killed as a group on timeout and sent
 * SIGTERM when its parent dies; a close-on-exec pipe tells a program that could not be
 * started (127) from one that ran and failed.
 */
#ifndef BG_PROC_H
#define BG_PROC_H

#include "util/compat.h"

/*
 * Filled with designated initializers, each descriptor named: one left out is 0, our
 * standard input, not /dev/null.
 */
struct bg_proc_opts {
	char *const *argv;
	char *const *envp;      /* NULL: the current environment */
	const char *dir;        /* NULL: the current directory */
	int in_fd;              /* -1: /dev/null */
	int out_fd;             /* -1: /dev/null; BG_PROC_PIPE: a pipe read from p->out */
	int err_fd;             /* -1: /dev/null; BG_PROC_SAME: where stdout goes */
};

#define BG_PROC_PIPE (-2)
#define BG_PROC_SAME (-3)

struct bg_proc {
	pid_t pid;
	int out;                /* the read end with BG_PROC_PIPE, else -1 */
	int pidfd;
	double started;         /* monotonic seconds */
};

struct bg_proc_result {
	int exit_code;          /* 0-255; 127 when exec failed; 128+N for a signal */
	bool exec_failed;
	bool timed_out;
	double seconds;
};

/* The monotonic clock, in seconds. */
double bg_now(void);
/* Starts a process; -1 when it could not be started (bg_error_last says why). */
int bg_proc_start(struct bg_proc *p, const struct bg_proc_opts *o);
/*
 * Waits up to timeout_ms (-1: forever); 0 when it ended (r filled), 1 still running.
 * When it has ended, whatever it left running in its process group is killed before it
 * is reaped: until then the group's id cannot be given to another process.
 */
int bg_proc_wait(struct bg_proc *p, int timeout_ms, struct bg_proc_result *r);
/* How long a group killed with SIGTERM has before SIGKILL, by default. */
#define BG_PROC_GRACE_MS 2000

/*
 * SIGTERM to the group, SIGKILL after grace_ms (at once when it is 0, for callers that
 * cannot wait); then reaps it.
 */
void bg_proc_kill(struct bg_proc *p, int grace_ms, struct bg_proc_result *r);
/* Start, wait up to timeout_s (0: none), kill the group past it. */
int bg_proc_run(const struct bg_proc_opts *o, unsigned timeout_s, struct bg_proc_result *r);
/*
 * The same, with the program's standard output returned in *out (NUL-terminated, at most
 * max bytes kept, owned by the caller; o->out_fd is ignored). It returns when the program
 * ends, even if something it left behind holds its output open (that is killed with its
 * group). -1 when it could not start.
 */
int bg_proc_capture(const struct bg_proc_opts *o, unsigned timeout_s, size_t max, char **out,
		    struct bg_proc_result *r);

#endif
