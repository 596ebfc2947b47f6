/*
 * bootgate's test init: PID 1 of the initramfs booted by bootgate-boot. It mounts proc,
 * sysfs and devtmpfs; writes "bootgate: userspace reached" to /dev/kmsg, where the kernel
 * stamps it with the same clock as every other line (boot.userspace); runs the workload
 * named on the kernel command line (bootgate.run=/path,arg,...); runs and times
 * `perf trace -C 0 -- true` R times (bootgate.perf=R, with /bin/perf in the initramfs;
 * this program is /bin/true too, by that name); dumps the ring buffer
 * between DMESG-BEGIN and DMESG-END when asked (bootgate.dump=1); then powers off, or
 * reboots where the machine cannot power off (bootgate.reboot=1, with QEMU's -no-reboot).
 * Built static for each arch; it uses nothing but the C library's system calls.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MARKER "bootgate: userspace reached"

static char cmdline[4096];

static void say(const char *s)
{
	ssize_t n = write(1, s, strlen(s));

	(void)n;
}

/* The value of key= on the kernel command line, or NULL. */
static const char *param(const char *key)
{
	size_t len = strlen(key);

	for (char *p = cmdline; (p = strstr(p, key)); p += len)
		if ((p == cmdline || p[-1] == ' ') && p[len] == '=')
			return p + len + 1;
	return NULL;
}

static void read_cmdline(void)
{
	int fd = open("/proc/cmdline", O_RDONLY);
	ssize_t n = fd >= 0 ? read(fd, cmdline, sizeof(cmdline) - 1) : -1;

	cmdline[n > 0 ? n : 0] = '\0';
	if (fd >= 0)
		close(fd);
	for (char *p = cmdline; *p; p++)
		if (*p == '\n')
			*p = '\0';
}

/*
 * At KERN_ALERT: the one line the console must show even when quiet hides the rest, since
 * the boot worker waits for it there (the prefix sets the level, the facility stays user).
 */
#define KMSG_MARKER "<1>" MARKER "\n"

static void marker(void)
{
	int fd = open("/dev/kmsg", O_WRONLY);

	if (fd >= 0 && write(fd, KMSG_MARKER, strlen(KMSG_MARKER)) == (ssize_t)strlen(KMSG_MARKER)) {
		close(fd);
		return;
	}
	/* no /dev/kmsg: the console gets the marker with the time we know */
	{
		struct timespec ts;
		char buf[128];

		clock_gettime(CLOCK_BOOTTIME, &ts);
		snprintf(buf, sizeof(buf), MARKER " uptime_us=%lld\n",
			 (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000);
		say(buf);
	}
	if (fd >= 0)
		close(fd);
}

/* bootgate.run=/path,arg,arg: runs it and says how it ended. */
static void workload(void)
{
	const char *run = param("bootgate.run");
	char spec[1024], *argv[32], buf[160];
	int argc = 0, status;
	pid_t pid;

	if (!run)
		return;
	snprintf(spec, sizeof(spec), "%.*s", (int)strcspn(run, " "), run);
	for (char *p = spec; p && argc < 31; ) {
		argv[argc++] = p;
		p = strchr(p, ',');
		if (p)
			*p++ = '\0';
	}
	argv[argc] = NULL;
	pid = fork();
	if (pid == 0) {
		execv(argv[0], argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		status = 127 << 8;
	snprintf(buf, sizeof(buf), "bootgate: workload %s exited %d\n", argv[0],
		 WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	say(buf);
}

/* A line to /dev/kmsg, where the kernel stamps it; the console gets it otherwise. */
static void kmsg(const char *line)
{
	int fd = open("/dev/kmsg", O_WRONLY);

	if (fd < 0 || write(fd, line, strlen(line)) < 0)
		say(line);
	if (fd >= 0)
		close(fd);
}

/*
 * bootgate.perf=R: `perf trace -C 0 -- /bin/true` R times, each timed here with the
 * monotonic clock from fork to reap, its output thrown away. perf needs tracefs and
 * debugfs, a home and a PATH, and a /bin/true it can exec.
 */
static void perf_runs(void)
{
	const char *v = param("bootgate.perf");
	long runs = v ? strtol(v, NULL, 10) : 0;
	char line[160];

	if (runs <= 0)
		return;
	if (runs > 100)
		runs = 100;
	mkdir("/sys/kernel/tracing", 0755);
	mkdir("/sys/kernel/debug", 0755);
	mount("tracefs", "/sys/kernel/tracing", "tracefs", 0, NULL);
	mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	mkdir("/root", 0700);
	mkdir("/tmp", 01777);
	setenv("HOME", "/root", 1);
	setenv("PATH", "/bin:/sbin", 1);
	for (long i = 0; i < runs; i++) {
		char *argv[] = { "perf", "trace", "-C", "0", "--", "/bin/true", NULL };
		struct timespec t0, t1;
		int status = 0;
		pid_t pid;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		pid = fork();
		if (pid == 0) {
			int null = open("/dev/null", O_WRONLY);

			if (null >= 0) {
				dup2(null, 1);
				dup2(null, 2);
			}
			execv("/bin/perf", argv);
			_exit(127);
		}
		if (pid < 0 || waitpid(pid, &status, 0) < 0)
			status = 127 << 8;
		clock_gettime(CLOCK_MONOTONIC, &t1);
		/* the parser reads this line (parse/bootlog.h BG_PERF_RUN_LINE) */
		snprintf(line, sizeof(line), "bootgate: perf.trace_startup=%lld run=%ld exit=%d\n",
			 (long long)(t1.tv_sec - t0.tv_sec) * 1000000 +
			 (t1.tv_nsec - t0.tv_nsec) / 1000, i,
			 WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
		kmsg(line);
	}
}

static void dump(void)
{
	static char buf[1 << 20];
	int n;

	if (!param("bootgate.dump"))
		return;
	n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf, sizeof(buf));
	say("DMESG-BEGIN\n");
	if (n > 0 && write(1, buf, (size_t)n) < 0)
		say("bootgate: cannot write the dump\n");
	say("DMESG-END\n");
}

int main(int argc, char **argv)
{
	const char *self = argc > 0 ? strrchr(argv[0], '/') : NULL;

	/* as /bin/true, the workload perf trace runs: nothing to do */
	if (argc > 0 && !strcmp(self ? self + 1 : argv[0], "true"))
		return 0;
	mkdir("/proc", 0755);
	mkdir("/sys", 0755);
	mkdir("/dev", 0755);
	mount("proc", "/proc", "proc", 0, NULL);
	mount("sysfs", "/sys", "sysfs", 0, NULL);
	mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	read_cmdline();
	marker();
	workload();
	perf_runs();
	dump();
	sync();
	reboot(param("bootgate.reboot") ? RB_AUTOBOOT : RB_POWER_OFF);
	/* only if both failed */
	for (;;)
		pause();
}
