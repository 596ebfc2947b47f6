/*
 * What a build step sees (build.h): its environment, and the sandbox it runs in, where
 * the service's secrets, the machine's and the cache's other contents are hidden.
 */
#include <dirent.h>
#include <limits.h>
#include <sys/stat.h>

#include "build.h"
#include "conf/service-conf.h"
#include "util/error.h"
#include "util/log.h"
#include "util/path.h"
#include "util/xmalloc.h"

/* The sandbox's /tmp and /dev/shm: memory, so bounded */
#define TMPFS_SIZE "268435456"

/* The environment of every build step: nothing of the service's own. */
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
	/*
	 * Shared by the build hosts, read and written by trusted builds alone: a posted
	 * patch's build could write to the server through its socket, whatever ccache is
	 * told, so it has none of it (and its path is hidden from it: sandbox_argv).
	 */
	if (b->ccache_remote && !b->untrusted)
		bg_strvec_pushf(env, "CCACHE_REMOTE_STORAGE=%s", b->ccache_remote);
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
int hide_service(struct build *b)
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

/*
 * What a build step may not see, in the order the sandbox hides it (NULL and empty names
 * left out), into out.
 */
static void hidden_paths(const struct build *b, struct bg_strvec *out)
{
	const char *first[] = {
		"/proc/sysrq-trigger",
		/* /run: the host's sockets (a read-only mount does not stop a connect) */
		"/run", "/root", "/home", getenv("HOME"), "/etc/bootgate",
	};
	const char *state = getenv("BOOTGATE_STATE"), *last[] = { b->cache, b->board.lab };

	for (size_t i = 0; i < ARRAY_SIZE(first); i++)
		if (first[i] && *first[i])
			bg_strvec_push(out, first[i]);
	/*
	 * uid 0 reads any file root owns, capabilities or not: the system's secrets
	 * and every service's data (the store's default place among them) are hidden.
	 */
	for (size_t i = 0; i < ARRAY_SIZE(system_secrets); i++)
		bg_strvec_push(out, system_secrets[i]);
	if (state && *state)
		bg_strvec_push(out, state);
	for (size_t i = 0; i < b->hidden.n; i++)
		bg_strvec_push(out, b->hidden.v[i]);
	for (size_t i = 0; i < ARRAY_SIZE(last); i++)
		if (last[i] && *last[i])
			bg_strvec_push(out, last[i]);
}

/* Whether path is dir or below it. */
static bool path_within(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		n--;
	return !strncmp(path, dir, n) && (path[n] == '/' || !path[n] || n == 1);
}

/*
 * The remote cache's path, before a build binds it into the sandbox: a socket for
 * redis+unix:, a directory for file:, and neither one that holds something the sandbox
 * hides (file:/var would show it /var/lib again, file:/ the whole host, writable).
 */
int remote_check(const struct build *b)
{
	struct bg_strvec hidden = BG_STRVEC_INIT;
	char real[PATH_MAX];
	struct stat st;
	bool sock;
	int ret = 0;

	if (!b->ccache_remote || !b->ccache_remote_path)
		return 0;
	sock = !strncmp(b->ccache_remote, "redis+unix:", 11);
	if (!realpath(b->ccache_remote_path, real)) {
		if (errno == ENOENT)    /* a server not there yet: the compiles stay local */
			return 0;
		return bg_error_errno("--ccache-remote '%s'", b->ccache_remote_path);
	}
	if (stat(real, &st) < 0 || (sock ? !S_ISSOCK(st.st_mode) : !S_ISDIR(st.st_mode)))
		return bg_error("--ccache-remote: '%s' is not a %s", real,
				sock ? "socket" : "directory");
	hidden_paths(b, &hidden);
	for (size_t i = 0; i < hidden.n && !ret; i++) {
		char hreal[PATH_MAX];

		if (path_within(realpath(hidden.v[i], hreal) ? hreal : hidden.v[i], real))
			ret = bg_error("--ccache-remote: '%s' holds '%s', which a build may not see",
				       real, hidden.v[i]);
	}
	bg_strvec_release(&hidden);
	return ret;
}

/* The LAVA token file of every board of the lab: the lab itself is hidden, they may not be. */
void hide_tokens(struct build *b)
{
	char *dir = bg_path_join(b->board.lab, "boards");
	DIR *d = opendir(dir);
	struct dirent *e;

	while (d && (e = readdir(d))) {
		size_t n = strlen(e->d_name);
		struct bg_board other;
		char *name;

		if (n <= 5 || strcmp(e->d_name + n - 5, ".yaml") != 0)
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

/*
 * The bubblewrap before a sandboxed step's argv: capabilities dropped, the machine's and
 * the service's secrets hidden, and only the build's own directories writable.
 */
static void sandbox_argv(const struct build *b, struct bg_strvec *a)
{
	struct bg_strvec hidden = BG_STRVEC_INIT;

	/*
	 * As root, bwrap keeps every capability: without --cap-drop a build could
	 * unmount what hides a secret, remount / writable or load a module. uid 0
	 * without them still writes any file root owns: so /proc/sys (core_pattern)
	 * and sysrq-trigger read-only, /dev read-only, and the writable memory file
	 * systems bounded.
	 */
	bg_strvec_pushv(a, (char *const[]){ "bwrap", "--die-with-parent", "--cap-drop",
		"ALL", "--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
		"--ro-bind", "/", "/", "--dev", "/dev", "--size", TMPFS_SIZE, "--tmpfs",
		"/dev/shm", "--remount-ro", "/dev", "--proc", "/proc", "--ro-bind",
		"/proc/sys", "/proc/sys", "--size", TMPFS_SIZE, "--tmpfs", "/tmp", NULL });
	hidden_paths(b, &hidden);
	for (size_t i = 0; i < hidden.n; i++)
		hide(a, hidden.v[i]);
	bg_strvec_release(&hidden);
	if (b->perf)
		bg_strvec_pushv(a, (char *const[]){ "--bind", b->perf_out,
						    (char *)b->in_perf, NULL });
	/*
	 * The remote cache's socket or directory (checked: remote_check), at its own path,
	 * after what is hidden (/run, the state, the cache), so that one there is seen by a
	 * trusted build; hidden from an untrusted one, which could write to it. One that is
	 * not there is left out: ccache then compiles locally.
	 */
	if (b->ccache_remote_path && b->untrusted)
		hide(a, b->ccache_remote_path);
	else if (b->ccache_remote_path && access(b->ccache_remote_path, F_OK) == 0)
		bg_strvec_pushv(a, (char *const[]){ "--bind", (char *)b->ccache_remote_path,
						    (char *)b->ccache_remote_path, NULL });
	/*
	 * Every tree's worktree is seen at one path: the kernel writes its source path
	 * into every compile (-I, -fmacro-prefix-map), so only then do the tracing,
	 * printk and perf trees, 99% one source, share their compiles in ccache.
	 */
	bg_strvec_pushv(a, (char *const[]){ "--ro-bind", b->src, (char *)b->in_src,
		"--ro-bind", b->frag, (char *)b->in_frag, "--bind", b->out,
		(char *)b->in_out, b->untrusted ? "--ro-bind" : "--bind", b->ccache,
		b->ccache, "--chdir",
		(char *)b->in_out, "--", NULL });
}

/*
 * Runs a build step, in the sandbox unless asked not to: no network (its loopback is its
 * own), the file system read-only but for the build directory and the ccache (the
 * worktree and the config fragments read-only too, so that no build can plant a link
 * there for this worker to follow later), and neither the cache's other contents, nor
 * the lab's configuration, nor the home directories in view. A posted patch is untrusted
 * code.
 */
int step(struct build *b, char *const *argv, struct bg_proc_result *r)
{
	struct bg_strvec a = BG_STRVEC_INIT, env = BG_STRVEC_INIT;
	struct bg_proc_opts o = { 0 };
	int ret;

	if (b->sandbox)
		sandbox_argv(b, &a);
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
