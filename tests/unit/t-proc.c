/* Unit tests of child processes: exit codes, exec failures, timeouts killing the group. */
#include <fcntl.h>
#include <signal.h>

#include "unit.h"
#include "error.h"
#include "proc.h"

static void test_exit_codes(void **state)
{
	char *ok[] = { "sh", "-c", "exit 0", NULL }, *three[] = { "sh", "-c", "exit 3", NULL };
	char *missing[] = { "/nonexistent/program", NULL };
	struct bg_proc_opts o = { ok, NULL, NULL, -1, -1, -1 };
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

/* A timeout kills the child and what it started, and only them. */
static void test_timeout_kills_group(void **state)
{
	char pidfile[] = "/tmp/bootgate-t-proc.XXXXXX";
	char script[256], *argv[] = { "sh", "-c", script, NULL };
	struct bg_proc_opts o = { argv, NULL, NULL, -1, -1, -1 };
	struct bg_proc_result r;
	int fd = mkstemp(pidfile);
	char buf[32] = "";
	pid_t grandchild;
	ssize_t n;
	double t0 = bg_now();

	(void)state;
	close(fd);
	/* the grandchild records its pid and sleeps; so does the child */
	snprintf(script, sizeof(script), "sleep 300 & echo $! > %s; sleep 300", pidfile);
	assert_int_equal(bg_proc_run(&o, 1, &r), 0);
	assert_true(r.timed_out);
	assert_true(bg_now() - t0 < 10);
	fd = open(pidfile, O_RDONLY);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	unlink(pidfile);
	assert_true(n > 0);
	grandchild = (pid_t)strtol(buf, NULL, 10);
	assert_true(grandchild > 1);
	/* gone (or a zombie of init): no signal can reach a live one */
	usleep(100000);
	assert_true(kill(grandchild, 0) < 0 || getpgid(grandchild) != getpgrp());
	/* and we are still here: the kill did not reach our own group */
	assert_int_equal(kill(getpid(), 0), 0);
}

static void test_pipe(void **state)
{
	char *argv[] = { "sh", "-c", "echo console line; echo error >&2", NULL };
	struct bg_proc_opts o = { argv, NULL, NULL, -1, BG_PROC_PIPE, BG_PROC_SAME };
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
	struct bg_proc_opts o = { argv, NULL, NULL, -1, -1, -1 };
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exit_codes),
		cmocka_unit_test(test_timeout_kills_group),
		cmocka_unit_test(test_pipe),
		cmocka_unit_test(test_capture),
	};

	return cmocka_run_group_tests_name("proc", tests, NULL, NULL);
}
