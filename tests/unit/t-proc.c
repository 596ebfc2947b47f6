/* Unit tests of child processes: exit codes, exec failures, timeouts killing the group. */
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>

#include "unit.h"
#include "util/error.h"
#include "util/proc.h"

static void test_exit_codes(void **state)
{
	char *ok[] = { "sh", "-c", "exit 0", NULL }, *three[] = { "sh", "-c", "exit 3", NULL };
	char *missing[] = { "/nonexistent/program", NULL };
	struct bg_proc_opts o = { .argv = ok, .in_fd = -1, .out_fd = -1, .err_fd = -1 };
	struct bg_proc_result r;

	(void)state;
	assert_int_equal(bg_proc_run(&o, 10, &r), 0);
	assert_int_equal(r.exit_code, 0);
	assert_false(r.timed_out);
	o.argv = three;
	assert_int_equal(bg_proc_run(&o, 10, &r), 0);
	assert_int_equal(r.exit_code, 3);
	/* a program that cannot be started is told apart from one that failed */
	o.argv = missing;
	assert_int_equal(bg_proc_run(&o, 10, &r), -1);
	assert_true(r.exec_failed);
	assert_int_equal(r.exit_code, 127);
	assert_string_equal(bg_error_last(), "cannot run '/nonexistent/program': No such file or directory");
}

/*
 * This test program adopts the orphans of its children (a subreaper, set up once for the
 * group), so a grandchild left behind is its own to check and to reap: "was it killed"
 * is then a fact, not a guess about process groups.
 */
static int become_subreaper(void **state)
{
	(void)state;
	return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
}

/* A file for a grandchild to write its pid into. */
static void make_pidfile(char *pidfile)
{
	int fd = mkstemp(pidfile);

	assert_true(fd >= 0);
	close(fd);
}

static pid_t read_pid(const char *pidfile)
{
	char buf[32] = "";
	int fd = open(pidfile, O_RDONLY);
	ssize_t n = read(fd, buf, sizeof(buf) - 1);

	close(fd);
	unlink(pidfile);
	assert_true(n > 0);
	return (pid_t)strtol(buf, NULL, 10);
}

#define REAPED_BY_ITS_PARENT (-2)

/*
 * Reaps the adopted grandchild: the signal that ended it; REAPED_BY_ITS_PARENT when its
 * shell outlived it long enough to reap it (it is gone: no such process); 0 if it still
 * runs (it is killed then, so that no test leaves a process behind).
 */
static int grandchild_fate(pid_t pid)
{
	int status = 0;
	pid_t got = 0;

	/* the group kill is sent before bg_proc returns; the exit may take a moment */
	for (int i = 0; i < 200 && got == 0; i++) {
		got = waitpid(pid, &status, WNOHANG);
		if (got == 0)
			usleep(10000);
	}
	if (got < 0 && errno == ECHILD && kill(pid, 0) < 0 && errno == ESRCH)
		return REAPED_BY_ITS_PARENT;
	if (got <= 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		return 0;
	}
	return WIFSIGNALED(status) ? WTERMSIG(status) : -1;
}

/* A timeout kills the child and everything it started, and nothing else. */
static void test_timeout_kills_group(void **state)
{
	char pidfile[] = "/tmp/bootgate-t-proc.XXXXXX";
	char script[256], *argv[] = { "sh", "-c", script, NULL };
	struct bg_proc_opts o = { .argv = argv, .in_fd = -1, .out_fd = -1, .err_fd = -1 };
	struct bg_proc_result r;
	double t0 = bg_now();

	(void)state;
	make_pidfile(pidfile);
	/* the grandchild records its pid and sleeps; so does the child */
	snprintf(script, sizeof(script), "sleep 300 & echo $! > %s; sleep 300", pidfile);
	assert_int_equal(bg_proc_run(&o, 1, &r), 0);
	assert_true(r.timed_out);
	assert_true(bg_now() - t0 < 10);
	/*
	 * SIGTERM to the group, or SIGKILL after the grace period: killed either way (when
	 * it died first, its shell may have reaped it before dying itself)
	 */
	{
		int sig = grandchild_fate(read_pid(pidfile));

		assert_true(sig == SIGTERM || sig == SIGKILL || sig == REAPED_BY_ITS_PARENT);
	}
	/* and we are still here: the kill did not reach our own group */
	assert_int_equal(kill(getpid(), 0), 0);
}

/* A program that ends normally leaves nothing behind either. */
static void test_exit_kills_leftovers(void **state)
{
	char pidfile[] = "/tmp/bootgate-t-proc.XXXXXX";
	char script[256], *argv[] = { "sh", "-c", script, NULL };
	struct bg_proc_opts o = { .argv = argv, .in_fd = -1, .out_fd = -1, .err_fd = -1 };
	struct bg_proc_result r;

	(void)state;
	make_pidfile(pidfile);
	snprintf(script, sizeof(script), "sleep 300 & echo $! > %s; exit 3", pidfile);
	assert_int_equal(bg_proc_run(&o, 60, &r), 0);
	assert_false(r.timed_out);
	assert_int_equal(r.exit_code, 3);
	assert_int_equal(grandchild_fate(read_pid(pidfile)), SIGKILL);
}

/*
 * Without a pidfd (kernels before 5.3) a wait still waits: a 5 s limit on a program that
 * ends after 0.2 s sees it end, and a 0.3 s limit on one that does not is not cut short.
 */
static void test_wait_without_pidfd(void **state)
{
	char *quick[] = { "sleep", "0.2", NULL }, *slow[] = { "sleep", "30", NULL };
	struct bg_proc_opts o = { .argv = quick, .in_fd = -1, .out_fd = -1, .err_fd = -1 };
	struct bg_proc p;
	struct bg_proc_result r;
	double t0;

	(void)state;
	assert_int_equal(bg_proc_start(&p, &o), 0);
	if (p.pidfd >= 0)
		close(p.pidfd);
	p.pidfd = -1;
	assert_int_equal(bg_proc_wait(&p, 5000, &r), 0);
	assert_int_equal(r.exit_code, 0);

	o.argv = slow;
	assert_int_equal(bg_proc_start(&p, &o), 0);
	if (p.pidfd >= 0)
		close(p.pidfd);
	p.pidfd = -1;
	t0 = bg_now();
	assert_int_equal(bg_proc_wait(&p, 300, &r), 1);
	assert_true(bg_now() - t0 >= 0.29);
	bg_proc_kill(&p, BG_PROC_GRACE_MS, &r);
	assert_true(r.timed_out);
}

static void test_pipe(void **state)
{
	char *argv[] = { "sh", "-c", "echo console line; echo error >&2", NULL };
	struct bg_proc_opts o = { .argv = argv, .in_fd = -1, .out_fd = BG_PROC_PIPE,
				  .err_fd = BG_PROC_SAME };
	struct bg_proc p;
	struct bg_proc_result r;
	char buf[128] = "";
	size_t got = 0;
	ssize_t n;

	(void)state;
	assert_int_equal(bg_proc_start(&p, &o), 0);
	while ((n = read(p.out, buf + got, sizeof(buf) - 1 - got)) > 0)
		got += (size_t)n;
	close(p.out);
	assert_int_equal(bg_proc_wait(&p, -1, &r), 0);
	assert_int_equal(r.exit_code, 0);
	assert_string_equal(buf, "console line\nerror\n");
}

static void test_capture(void **state)
{
	char *argv[] = { "sh", "-c", "echo 0123456789; echo to stderr >&2", NULL };
	char *hang[] = { "sh", "-c", "echo early; exec >&-; sleep 300", NULL };
	struct bg_proc_opts o = { .argv = argv, .in_fd = -1, .out_fd = -1, .err_fd = -1 };
	struct bg_proc_result r;
	char *out;
	double t0;

	(void)state;
	assert_int_equal(bg_proc_capture(&o, 10, 1024, &out, &r), 0);
	assert_int_equal(r.exit_code, 0);
	assert_string_equal(out, "0123456789\n");
	free(out);
	/* at most max bytes are kept */
	assert_int_equal(bg_proc_capture(&o, 10, 4, &out, &r), 0);
	assert_string_equal(out, "0123");
	free(out);
	/* a program that closes its output and hangs is still killed at the deadline */
	o.argv = hang;
	t0 = bg_now();
	assert_int_equal(bg_proc_capture(&o, 1, 1024, &out, &r), 0);
	assert_true(r.timed_out);
	assert_true(bg_now() - t0 < 10);
	assert_string_equal(out, "early\n");
	free(out);
}

/*
 * A capture ends when its program does, not when its output closes: a program that
 * exits at once, leaving a child that holds its output for 30 s, is captured in well
 * under those 30 s, with its exit code and what it wrote, and the child is killed.
 */
static void test_capture_leftover(void **state)
{
	char pidfile[] = "/tmp/bootgate-t-proc.XXXXXX";
	char script[256], *argv[] = { "sh", "-c", script, NULL };
	struct bg_proc_opts o = { .argv = argv, .in_fd = -1, .out_fd = -1, .err_fd = -1 };
	struct bg_proc_result r;
	char *out;
	double t0 = bg_now();

	(void)state;
	make_pidfile(pidfile);
	snprintf(script, sizeof(script), "sleep 30 & echo $! > %s; echo done; exit 4", pidfile);
	assert_int_equal(bg_proc_capture(&o, 0, 1024, &out, &r), 0);
	assert_true(bg_now() - t0 < 20);
	assert_false(r.timed_out);
	assert_int_equal(r.exit_code, 4);
	assert_string_equal(out, "done\n");
	free(out);
	assert_int_equal(grandchild_fate(read_pid(pidfile)), SIGKILL);
	/* and with a limit, a program that ended in time did not time out */
	{
		char pidfile2[] = "/tmp/bootgate-t-proc.XXXXXX";

		make_pidfile(pidfile2);
		snprintf(script, sizeof(script), "sleep 30 & echo $! > %s; echo done; exit 4",
			 pidfile2);
		assert_int_equal(bg_proc_capture(&o, 10, 1024, &out, &r), 0);
		assert_false(r.timed_out);
		assert_int_equal(r.exit_code, 4);
		free(out);
		assert_int_equal(grandchild_fate(read_pid(pidfile2)), SIGKILL);
	}
}

static void on_alarm(int sig)
{
	(void)sig;
}

/* A signal that interrupts the wait does not make the capture miss its deadline. */
static void test_capture_deadline_with_signals(void **state)
{
	char *argv[] = { "sleep", "30", NULL };
	struct bg_proc_opts o = { .argv = argv, .in_fd = -1, .out_fd = -1, .err_fd = -1 };
	struct sigaction sa, old;
	struct itimerval every = { { 0, 100000 }, { 0, 100000 } }, off = { { 0, 0 }, { 0, 0 } };
	struct bg_proc_result r;
	char *out;
	double t0;

	(void)state;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, &old);
	setitimer(ITIMER_REAL, &every, NULL);
	t0 = bg_now();
	assert_int_equal(bg_proc_capture(&o, 1, 1024, &out, &r), 0);
	setitimer(ITIMER_REAL, &off, NULL);
	sigaction(SIGALRM, &old, NULL);
	assert_true(r.timed_out);
	assert_true(bg_now() - t0 < 10);
	free(out);
}

/* A child dies with its parent: nothing bootgate starts outlives it. */
static void test_dies_with_parent(void **state)
{
	char pidfile[] = "/tmp/bootgate-t-proc.XXXXXX";
	pid_t middle;
	int status;

	(void)state;
	make_pidfile(pidfile);
	middle = fork();
	assert_true(middle >= 0);
	if (middle == 0) {
		/* a parent that starts a child through bg_proc and is then killed */
		char script[256], *argv[] = { "sh", "-c", script, NULL };
		struct bg_proc_opts o = { .argv = argv, .in_fd = -1, .out_fd = -1, .err_fd = -1 };
		struct bg_proc p;

		snprintf(script, sizeof(script), "echo $$ > %s; exec sleep 30", pidfile);
		if (bg_proc_start(&p, &o) < 0)
			_exit(1);
		sleep(30);
		_exit(0);
	}
	for (int i = 0; i < 500; i++) {
		struct stat st;

		if (stat(pidfile, &st) == 0 && st.st_size > 0)
			break;
		usleep(10000);
	}
	kill(middle, SIGKILL);
	waitpid(middle, &status, 0);
	assert_int_equal(grandchild_fate(read_pid(pidfile)), SIGTERM);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exit_codes),
		cmocka_unit_test(test_timeout_kills_group),
		cmocka_unit_test(test_exit_kills_leftovers),
		cmocka_unit_test(test_wait_without_pidfd),
		cmocka_unit_test(test_capture_leftover),
		cmocka_unit_test(test_capture_deadline_with_signals),
		cmocka_unit_test(test_dies_with_parent),
		cmocka_unit_test(test_pipe),
		cmocka_unit_test(test_capture),
	};

	return cmocka_run_group_tests_name("proc", tests, become_subreaper, NULL);
}
