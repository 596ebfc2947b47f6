/*
 * bootgate-build: builds a commit of a kernel tree for a board, in a sandbox, into a
 * content-addressed artifact. A plain program: arguments in, a result (JSON on stdout and
 * in --result) and an exit code out: 0 built, 1 the kernel does not build, 111 an
 * infrastructure failure worth a retry, 127 a program could not be run, 2 usage.
 */
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <sys/file.h>
#include <sys/stat.h>

#include "board.h"
#include "fs.h"
#include "error.h"
#include "git.h"
#include "json.h"
#include "log.h"
#include "proc.h"
#include "sha.h"
#include "strbuf.h"
#include "xmalloc.h"

#define EXIT_BUILT 0
#define EXIT_FAILED 1
#define EXIT_USAGE 2
#define EXIT_INFRA 111
#define EXIT_EXEC 127

struct build {
	const char *tree, *rev, *cache, *result_path;
	struct bg_board board;
	unsigned jobs;
	bool sandbox;
	char tree_real[PATH_MAX], name[128];
	char *work, *src, *out, *log;
	char commit[BG_OID_HEX], parent[BG_OID_HEX];
	char config_key[BG_SHA256_HEX];
	char compiler[256];
	int log_fd;
	double seconds;
};

static void usage(void)
{
	fprintf(stderr,
		"usage: bootgate-build --tree DIR --commit REV --board NAME [--lab DIR]\n"
		"                      [--jobs N] [--result FILE] [--no-sandbox]\n"
		"\nBuilds REV of the kernel tree DIR for a board of lab-configs/boards/ (or an\n"
		"arch: x86_64, arm64, ppc64le). The worktree and the out-of-tree build directory\n"
		"of each tree and arch are kept in $BOOTGATE_CACHE (default /var/cache/bootgate),\n"
		"so neighbouring commits build incrementally; compiles go through ccache.\n"
		"\nexit: 0 built, 1 the kernel does not build, 111 infrastructure (retry),\n"
		"127 a program could not be run, 2 usage\n");
}

/* The environment of every build step: nothing of the service's own. */
static char **build_env(const struct build *b)
{
	static char env[8][PATH_MAX + 32];
	static char *envp[9];

	snprintf(env[0], sizeof(env[0]), "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
	snprintf(env[1], sizeof(env[1]), "HOME=/tmp");
	snprintf(env[2], sizeof(env[2]), "LC_ALL=C");
	/* identical sources give identical images: no date, user, host or build count */
	snprintf(env[3], sizeof(env[3]), "KBUILD_BUILD_TIMESTAMP=2026-01-01");
	snprintf(env[4], sizeof(env[4]), "KBUILD_BUILD_USER=bootgate");
	snprintf(env[5], sizeof(env[5]), "KBUILD_BUILD_HOST=bootgate");
	snprintf(env[6], sizeof(env[6]), "KBUILD_BUILD_VERSION=1");
	snprintf(env[7], sizeof(env[7]), "CCACHE_DIR=%s/ccache", b->cache);
	for (int i = 0; i < 8; i++)
		envp[i] = env[i];
	envp[8] = NULL;
	return envp;
}

/*
 * Runs a build step, in the sandbox unless asked not to: no network (its loopback is its
 * own), the file system read-only but for the worktree, the build directory and the
 * ccache, and neither the cache's other contents nor the lab's configuration nor root's
 * home in view. A posted patch is untrusted code.
 */
static int step(struct build *b, char **argv, struct bg_proc_result *r)
{
	struct bg_strvec {
		char **v;
		size_t n, alloc;
	} a = { NULL, 0, 0 };
	char ccache[PATH_MAX + 16];
	struct bg_proc_opts o = { 0 };
	int ret;

#define ADD(s) do { ALLOC_GROW(a.v, a.n + 1, a.alloc); a.v[a.n++] = (char *)(s); } while (0)
	snprintf(ccache, sizeof(ccache), "%s/ccache", b->cache);
	if (b->sandbox) {
		ADD("bwrap");
		ADD("--die-with-parent");
		ADD("--unshare-net");
		ADD("--unshare-pid");
		ADD("--unshare-ipc");
		ADD("--ro-bind");
		ADD("/");
		ADD("/");
		ADD("--dev");
		ADD("/dev");
		ADD("--proc");
		ADD("/proc");
		ADD("--tmpfs");
		ADD("/tmp");
		ADD("--tmpfs");
		ADD("/root");
		ADD("--tmpfs");
		ADD(b->cache);
		ADD("--tmpfs");
		ADD(b->board.lab);
		ADD("--bind");
		ADD(b->work);
		ADD(b->work);
		ADD("--bind");
		ADD(ccache);
		ADD(ccache);
		ADD("--chdir");
		ADD(b->work);
		ADD("--");
	}
	for (char **p = argv; *p; p++)
		ADD(*p);
	ADD(NULL);
#undef ADD
	o.argv = a.v;
	o.envp = build_env(b);
	o.dir = b->work;
	o.in_fd = -1;
	o.out_fd = b->log_fd;
	o.err_fd = BG_PROC_SAME;
	ret = bg_proc_run(&o, 3 * 3600, r);
	free(a.v);
	return ret;
}

static void logf_line(struct build *b, const char *fmt, ...) BG_PRINTF(2, 3);
static void logf_line(struct build *b, const char *fmt, ...)
{
	char buf[PATH_MAX * 2];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > 0 && write(b->log_fd, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1) < 0)
		log_warn("cannot write '%s'", b->log);
}

/* make -C src O=out ARCH=... CROSS_COMPILE=... CC="ccache ...gcc" ARGS... */
static int make(struct build *b, const char *target, bool jobs, struct bg_proc_result *r)
{
	char o_arg[PATH_MAX + 8], arch[64], cross[128], cc[256], j[32];
	char *argv[] = { "make", "-s", "-C", b->src, o_arg, arch, cross, cc, "LOCALVERSION=",
			 jobs ? j : "-j1", (char *)target, NULL };

	snprintf(o_arg, sizeof(o_arg), "O=%s", b->out);
	snprintf(arch, sizeof(arch), "ARCH=%s", b->board.kernel_arch);
	snprintf(cross, sizeof(cross), "CROSS_COMPILE=%s", b->board.cross_compile);
	snprintf(cc, sizeof(cc), "CC=ccache %sgcc", b->board.cross_compile);
	snprintf(j, sizeof(j), "-j%u", b->jobs);
	logf_line(b, "+ make %s %s %s %s\n", arch, cross, target, jobs ? j : "");
	return step(b, argv, r);
}

/* The configuration: tinyconfig, then the board's fragments (twice: see ppc64le.config). */
static int configure(struct build *b, struct bg_proc_result *r)
{
	char fragdir[PATH_MAX + 32], keyfile[PATH_MAX + 32], merge[PATH_MAX + 48];
	char dotconfig[PATH_MAX + 16], *argv[32];
	char *old;
	size_t na;

	snprintf(keyfile, sizeof(keyfile), "%s/.bootgate-config-key", b->out);
	snprintf(dotconfig, sizeof(dotconfig), "%s/.config", b->out);
	old = bg_read_file(keyfile, 128, NULL);
	if (old && !strcmp(old, b->config_key) && access(dotconfig, R_OK) == 0) {
		free(old);
		return 0;
	}
	free(old);
	logf_line(b, "configuring (config %.12s)\n", b->config_key);
	/* the fragments go beside the build: the sandbox does not show the lab's files */
	snprintf(fragdir, sizeof(fragdir), "%s/.bootgate-fragments", b->out);
	if (bg_mkdirs(fragdir) < 0)
		return -1;
	for (size_t i = 0; i < b->board.nfragments; i++) {
		char from[PATH_MAX * 2], to[PATH_MAX * 2];

		snprintf(from, sizeof(from), "%s/kconfig/%s", b->board.lab, b->board.fragments[i]);
		snprintf(to, sizeof(to), "%s/%s", fragdir, b->board.fragments[i]);
		if (bg_copy_file(from, to) < 0)
			return -1;
	}
	if (make(b, "tinyconfig", false, r) < 0 || r->exit_code)
		return 0;
	snprintf(merge, sizeof(merge), "%s/scripts/kconfig/merge_config.sh", b->src);
	for (int pass = 0; pass < 2; pass++) {
		na = 0;
		argv[na++] = merge;
		argv[na++] = "-m";
		argv[na++] = "-O";
		argv[na++] = b->out;
		argv[na++] = dotconfig;
		for (size_t i = 0; i < b->board.nfragments && na < 30; i++)
			argv[na++] = xasprintf("%s/%s", fragdir, b->board.fragments[i]);
		argv[na] = NULL;
		logf_line(b, "+ merge_config.sh -m (pass %d)\n", pass + 1);
		if (step(b, argv, r) < 0 || r->exit_code) {
			for (size_t i = 5; i < na; i++)
				free(argv[i]);
			return 0;
		}
		for (size_t i = 5; i < na; i++)
			free(argv[i]);
		if (make(b, "olddefconfig", false, r) < 0 || r->exit_code)
			return 0;
	}
	return bg_write_file(keyfile, b->config_key, strlen(b->config_key));
}

/* Which board settings and fragments make the configuration: their hash names it. */
static void compute_config_key(struct build *b)
{
	struct bg_strbuf sb = BG_STRBUF_INIT;

	bg_strbuf_addf(&sb, "bootgate-config-1 %s %s %s\n", b->board.kernel_arch,
		       b->board.cross_compile, b->board.make_target);
	for (size_t i = 0; i < b->board.nfragments; i++) {
		char path[PATH_MAX * 2], *text;

		snprintf(path, sizeof(path), "%s/kconfig/%s", b->board.lab, b->board.fragments[i]);
		text = bg_read_file(path, 1 << 20, NULL);
		bg_strbuf_addf(&sb, "%s\n%s\n", b->board.fragments[i], text ? text : "");
		free(text);
	}
	bg_sha256_mem(sb.buf, sb.len, b->config_key);
	bg_strbuf_release(&sb);
}

/* The compiler's version line, or -1 when it cannot be run (an infrastructure failure). */
static int compiler_version(struct build *b)
{
	char cc[256], *text, *nl;
	char *argv[] = { cc, "--version", NULL };
	struct bg_proc_opts o = { argv, NULL, NULL, -1, -1, -1 };
	struct bg_proc_result r;

	snprintf(cc, sizeof(cc), "%sgcc", b->board.cross_compile);
	if (bg_proc_capture(&o, 60, 4096, &text, &r) < 0 || r.exit_code) {
		free(text);
		return bg_error("compiler '%s' cannot be run: %s", cc,
				r.exec_failed ? bg_error_last() : "it failed");
	}
	if ((nl = strchr(text, '\n')))
		*nl = '\0';
	snprintf(b->compiler, sizeof(b->compiler), "%s", text);
	free(text);
	return 0;
}

static bool log_says(const char *path, const char *what)
{
	char *text = bg_read_file(path, 64 << 20, NULL);
	bool found = text && strstr(text, what);

	free(text);
	return found;
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
			fprintf(stderr, "  %s\n", line);
			shown++;
		}
	free(text);
}

static void write_result(const struct build *b, const char *status, const char *image,
			 const char *sha, int identical, const char *artifact)
{
	struct bg_json j;

	bg_json_init(&j, -1, 1);
	bg_json_object_begin(&j);
	bg_json_key(&j, "status");
	bg_json_str(&j, status);
	bg_json_key(&j, "tree");
	bg_json_str(&j, b->tree_real);
	bg_json_key(&j, "commit");
	bg_json_str(&j, b->commit[0] ? b->commit : NULL);
	bg_json_key(&j, "parent");
	bg_json_str(&j, b->parent[0] ? b->parent : NULL);
	bg_json_key(&j, "board");
	bg_json_str(&j, b->board.name);
	bg_json_key(&j, "arch");
	bg_json_str(&j, b->board.arch);
	bg_json_key(&j, "config_hash");
	bg_json_str(&j, b->config_key[0] ? b->config_key : NULL);
	bg_json_key(&j, "compiler");
	bg_json_str(&j, b->compiler[0] ? b->compiler : NULL);
	bg_json_key(&j, "image");
	bg_json_str(&j, image);
	bg_json_key(&j, "image_sha256");
	bg_json_str(&j, sha);
	bg_json_key(&j, "identical_to_parent");
	if (identical < 0)
		bg_json_null(&j);
	else
		bg_json_bool(&j, identical);
	bg_json_key(&j, "artifact");
	bg_json_str(&j, artifact);
	bg_json_key(&j, "build_seconds");
	bg_json_double(&j, b->seconds);
	bg_json_key(&j, "log");
	bg_json_str(&j, b->log);
	bg_json_object_end(&j);
	bg_strbuf_addch(&j.out, '\n');
	fputs(j.out.buf, stdout);
	fflush(stdout);
	if (b->result_path && bg_write_file(b->result_path, j.out.buf, j.out.len) < 0)
		log_warnx("%s", bg_error_last());
	if (artifact) {
		char meta[PATH_MAX + 32];

		snprintf(meta, sizeof(meta), "%s/metadata.json", artifact);
		if (bg_write_file(meta, j.out.buf, j.out.len) < 0)
			log_warnx("%s", bg_error_last());
	}
	bg_strbuf_release(&j.out);
}

/* Stores the image content-addressed, with its metadata and a by-commit name. */
static int store(struct build *b, const char *image, char sha[BG_SHA256_HEX],
		 char artifact[PATH_MAX], int *identical)
{
	char *dir = xasprintf("%s/artifacts/by-commit", b->cache), *path, *link, target[PATH_MAX];
	int ret = -1;
	ssize_t n;

	*identical = -1;
	if (bg_sha256_file(image, sha) < 0)
		goto out_dir;
	snprintf(artifact, PATH_MAX, "%s/artifacts/%s", b->cache, sha);
	if (bg_mkdirs(artifact) < 0 || bg_mkdirs(dir) < 0)
		goto out_dir;
	path = xasprintf("%s/image", artifact);
	ret = access(path, R_OK) == 0 ? 0 : bg_copy_file(image, path);
	free(path);
	if (ret < 0)
		goto out_dir;
	path = xasprintf("%s/config", artifact);
	link = xasprintf("%s/.config", b->out);
	ret = bg_copy_file(link, path);
	free(path);
	free(link);
	path = xasprintf("%s/build.log", artifact);
	if (!ret)
		ret = bg_copy_file(b->log, path);
	free(path);
	if (ret < 0)
		goto out_dir;
	link = xasprintf("%s/%s-%s-%.12s", dir, b->commit, b->board.name, b->config_key);
	unlink(link);
	if (symlink(artifact, link) < 0)
		ret = bg_error_errno("cannot link '%s'", link);
	free(link);
	/* a commit whose image equals its parent's cannot change boot time */
	if (!ret && b->parent[0]) {
		link = xasprintf("%s/%s-%s-%.12s", dir, b->parent, b->board.name, b->config_key);
		n = readlink(link, target, sizeof(target) - 1);
		if (n > 0) {
			target[n] = '\0';
			*identical = !strcmp(target, artifact);
		}
		free(link);
	}
out_dir:
	free(dir);
	return ret;
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
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct build b = { 0 };
	const char *board = NULL, *lab = NULL;
	struct bg_proc_result r = { 0 };   /* configure() leaves it alone when nothing changed */
	char image[PATH_MAX * 2], sha[BG_SHA256_HEX], artifact[PATH_MAX];
	int opt, identical;
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	double t0;

	log_init("bootgate-build", 0);
	b.sandbox = true;
	b.jobs = cores > 0 ? (unsigned)cores : 1;
	while ((opt = getopt_long(argc, argv, "t:c:b:l:j:r:nh", opts, NULL)) != -1) {
		switch (opt) {
		case 't': b.tree = optarg; break;
		case 'c': b.rev = optarg; break;
		case 'b': board = optarg; break;
		case 'l': lab = optarg; break;
		case 'j': b.jobs = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'r': b.result_path = optarg; break;
		case 'n': b.sandbox = false; break;
		case 'h': usage(); return 0;
		default: usage(); return EXIT_USAGE;
		}
	}
	if (!b.tree || !b.rev || !board || optind < argc || !b.jobs) {
		usage();
		return EXIT_USAGE;
	}
	b.cache = getenv("BOOTGATE_CACHE") ? getenv("BOOTGATE_CACHE") : "/var/cache/bootgate";
	if (bg_board_load(lab ? lab : bg_lab_dir(), board, &b.board) < 0) {
		log_warnx("%s", bg_error_last());
		return EXIT_USAGE;
	}
	if (!realpath(b.tree, b.tree_real)) {
		log_warn("tree '%s'", b.tree);
		return EXIT_USAGE;
	}
	{
		char copy[PATH_MAX];

		snprintf(copy, sizeof(copy), "%s", b.tree_real);
		snprintf(b.name, sizeof(b.name), "%s", basename(copy));
	}
	b.work = xasprintf("%s/work/%s/%s", b.cache, b.name, b.board.arch);
	b.src = xasprintf("%s/src", b.work);
	b.out = xasprintf("%s/o", b.work);
	b.log = xasprintf("%s/build.log", b.work);
	if (bg_mkdirs(b.out) < 0 || bg_mkdirs(b.cache) < 0) {
		log_warnx("%s", bg_error_last());
		return EXIT_INFRA;
	}
	{
		char ccache[PATH_MAX + 16];

		snprintf(ccache, sizeof(ccache), "%s/ccache", b.cache);
		if (bg_mkdirs(ccache) < 0) {
			log_warnx("%s", bg_error_last());
			return EXIT_INFRA;
		}
	}
	/* one kernel build at a time on this machine: more only thrash the cores */
	{
		char *lock = xasprintf("%s/.build-lock", b.cache);
		int fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);

		if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) < 0 && errno == EWOULDBLOCK) {
			fprintf(stderr, "bootgate-build: waiting for another build to finish\n");
			flock(fd, LOCK_EX);
		}
		free(lock);   /* the descriptor stays open: the lock lasts as long as we do */
	}
	b.log_fd = open(b.log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (b.log_fd < 0) {
		log_warn("cannot write '%s'", b.log);
		return EXIT_INFRA;
	}
	t0 = bg_now();
	fprintf(stderr, "bootgate-build: %s %s for %s\n", b.name, b.rev, b.board.name);
	if (bg_git_checkout(b.tree_real, b.src, b.rev, b.commit, b.parent) < 0) {
		log_warnx("%s", bg_error_last());
		write_result(&b, "infra", NULL, NULL, -1, NULL);
		return bg_git_resolve(b.tree_real, b.rev, b.commit) < 0 ? EXIT_USAGE : EXIT_INFRA;
	}
	if (compiler_version(&b) < 0) {
		log_warnx("%s", bg_error_last());
		write_result(&b, "infra", NULL, NULL, -1, NULL);
		return EXIT_INFRA;
	}
	compute_config_key(&b);
	fprintf(stderr, "bootgate-build: commit %.12s, config %.12s, %s\n", b.commit,
		b.config_key, b.sandbox ? "sandboxed" : "no sandbox");
	if (configure(&b, &r) < 0) {
		log_warnx("%s", bg_error_last());
		write_result(&b, "infra", NULL, NULL, -1, NULL);
		return EXIT_INFRA;
	}
	if (!r.exit_code)
		make(&b, b.board.make_target, true, &r);
	b.seconds = bg_now() - t0;
	if (r.exec_failed) {
		log_warnx("%s", bg_error_last());
		write_result(&b, "infra", NULL, NULL, -1, NULL);
		return EXIT_EXEC;
	}
	if (r.exit_code || r.timed_out) {
		bool infra = r.timed_out || log_says(b.log, "No space left on device") ||
			     log_says(b.log, "Cannot allocate memory");
		char *dir = xasprintf("%s/artifacts/failed", b.cache);
		char *failed = xasprintf("%s/%s-%s.log", dir, b.commit, b.board.name);

		/* keep the log of a failed build where it will not be overwritten */
		bg_mkdirs(dir);
		if (bg_copy_file(b.log, failed) == 0) {
			free(b.log);
			b.log = failed;
		} else {
			free(failed);
		}
		free(dir);
		fprintf(stderr, "bootgate-build: %.12s %s after %.0f s; log: %s\n", b.commit,
			infra ? "failed for the machine's reasons" : "does not build", b.seconds,
			b.log);
		show_errors(b.log);
		write_result(&b, infra ? "infra" : "failed", NULL, NULL, -1, NULL);
		return infra ? EXIT_INFRA : EXIT_FAILED;
	}
	snprintf(image, sizeof(image), "%s/%s", b.out, b.board.image);
	if (store(&b, image, sha, artifact, &identical) < 0) {
		log_warnx("%s", bg_error_last());
		write_result(&b, "infra", NULL, NULL, -1, NULL);
		return EXIT_INFRA;
	}
	snprintf(image, sizeof(image), "%s/image", artifact);
	fprintf(stderr, "bootgate-build: built %.12s in %.1f s: %s%s\n", b.commit, b.seconds,
		image, identical == 1 ? " (byte-identical to its parent's: it cannot change "
		"boot time)" : "");
	write_result(&b, "built", image, sha, identical, artifact);
	close(b.log_fd);
	bg_board_release(&b.board);
	return EXIT_BUILT;
}
