/* Board files (board.h). */
#include <limits.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "conf/board.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/path.h"
#include "util/strbuf.h"
#include "util/xmalloc.h"

/* The first ancestor of the running program that holds rel, as "DIR/rel" in buf. */
static const char *find_upward(const char *rel, char *buf, size_t size)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;

	if (n <= 0)
		return NULL;
	exe[n] = '\0';
	/*
	 * .../bin/bootgate in a checkout (or .../build/sanitize/bin/...), up to four levels;
	 * or PREFIX/bin/bootgate with the rest installed in PREFIX/share/bootgate
	 */
	for (int up = 0; up < 4 && (slash = strrchr(exe, '/')); up++) {
		*slash = '\0';
		snprintf(buf, size, "%s/%s", exe, rel);
		if (access(buf, R_OK) == 0)
			return buf;
		snprintf(buf, size, "%s/share/bootgate/%s", exe, rel);
		if (access(buf, R_OK) == 0)
			return buf;
	}
	return NULL;
}

const char *bg_lab_dir(void)
{
	static char dir[PATH_MAX + 32];

	if (getenv("BOOTGATE_LAB"))
		return getenv("BOOTGATE_LAB");
	return find_upward("lab-configs", dir, sizeof(dir)) ? dir : "lab-configs";
}

const char *bg_project_file(const char *rel)
{
	static char path[PATH_MAX + 64];

	return find_upward(rel, path, sizeof(path));
}

/* A string required unless def is given. */
static int opt_str(struct bg_conf *c, const char *key, const char *def, const char **out)
{
	return def ? bg_conf_str(c, key, def, out) : bg_conf_str_req(c, key, out);
}

/*
 * No login either: a user:password@ would be printed in errors, stored as the job's URL
 * and, in artifact_url, written into a job that LAVA shows to anyone.
 */
static bool http_url_ok(const char *u)
{
	if (strncmp(u, "http://", 7) != 0 && strncmp(u, "https://", 8) != 0)
		return false;
	for (const char *p = u; *p; p++)
		if ((unsigned char)*p <= ' ' || *p == 0x7f || *p == '?' || *p == '#' || *p == '@')
			return false;
	return u[strlen(u) - 1] != '/';
}

static int load_lava(struct bg_conf *c, const char *lab, struct bg_lava_board *l)
{
	char *tmpl;
	int ret = 0;

	if (bg_conf_str_req(c, "lava_url", &l->url) < 0 ||
	    bg_conf_str(c, "lava_token_file", "", &l->token_file) < 0 ||
	    bg_conf_str(c, "lava_token_env", "", &l->token_env) < 0 ||
	    bg_conf_str_req(c, "lava_device_type", &l->device_type) < 0 ||
	    bg_conf_list(c, "lava_tags", &l->tags, &l->ntags) < 0 ||
	    bg_conf_list(c, "lava_vars", &l->vars, &l->nvars) < 0 ||
	    bg_conf_str_req(c, "lava_template", &l->job_template) < 0 ||
	    bg_conf_str_req(c, "artifact_url", &l->artifact_url) < 0 ||
	    bg_conf_long(c, "lava_limit", 1, 1, 64, &l->limit) < 0 ||
	    bg_conf_long(c, "lava_queue_timeout", 3600, 1, 7 * 86400, &l->queue_timeout) < 0 ||
	    bg_conf_long(c, "lava_retries", 2, 0, 10, &l->retries) < 0)
		return -1;
	if (!http_url_ok(l->url))
		return bg_conf_error_at(c, "lava_url", 0, "'lava_url' is http://HOST[:PORT] or "
					"https://..., without a login, a query or a trailing '/'");
	if (!http_url_ok(l->artifact_url))
		return bg_conf_error_at(c, "artifact_url", 0, "'artifact_url' is http://HOST[:PORT] "
					"or https://..., without a login, a query or a trailing '/'");
	if (!*l->token_file == !*l->token_env)
		return bg_conf_error_at(c, "lava_token_file", 0, "a LAVA board names its token with "
					"one of 'lava_token_file' or 'lava_token_env'");
	for (size_t i = 0; i < l->nvars; i++) {
		const char *v = l->vars[i], *eq = strchr(v, '=');

		if (!eq || eq == v || strspn(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") !=
		    (size_t)(eq - v))
			return bg_conf_error_at(c, "lava_vars", i, "a LAVA variable is NAME=value, "
						"NAME in [A-Z0-9_], not '%s'", v);
	}
	if (!bg_path_name_ok(l->job_template))
		return bg_conf_error_at(c, "lava_template", 0, "'lava_template' is a file name of "
					"%s/lava, not a path", lab);
	tmpl = xasprintf("%s/lava/%s", lab, l->job_template);
	if (access(tmpl, R_OK) != 0)
		ret = bg_conf_error_at(c, "lava_template", 0, "cannot read '%s': %s", tmpl,
				       strerror(errno));
	free(tmpl);
	return ret;
}

int bg_board_load(const char *lab, const char *name, struct bg_board *b)
{
	char *path, *text;
	size_t len;
	int ret;

	memset(b, 0, sizeof(*b));
	/* a board's name becomes a path: "../../x" must not reach outside the lab */
	if (!bg_path_name_ok(name))
		return bg_error("board '%s': a board or an arch is a plain name ([A-Za-z0-9._+-], "
				"no '/')", name);
	path = xasprintf("%s/boards/%s.yaml", lab, name);
	if (access(path, R_OK) != 0) {
		free(path);
		path = xasprintf("%s/boards/qemu-%s.yaml", lab, name);
	}
	if (access(path, R_OK) != 0) {
		bg_error("no board '%s' in %s/boards (a board name, or an arch with a "
			 "qemu-ARCH.yaml)", name, lab);
		free(path);
		return -1;
	}
	if (!(text = bg_read_file(path, BG_CONF_FILE_MAX, &len))) {
		free(path);
		return -1;
	}
	ret = bg_board_load_mem(lab, path, text, len, b);
	free(text);
	free(path);
	return ret;
}

/*
 * KCIDB's form of a compatible string, ^[^ \0]+(,[^ \0]+)*$: its parts may hold commas,
 * so it comes to "not empty, no space" (no NUL: a C string has none).
 */
static bool compatible_ok(const char *s)
{
	return *s && !strchr(s, ' ');
}

int bg_board_load_mem(const char *lab, const char *file, const char *text, size_t len,
		      struct bg_board *b)
{
	struct bg_conf *c = &b->conf;
	const char *poweroff, *type, *qemu_def;
	struct stat st;
	int ret = -1;

	memset(b, 0, sizeof(*b));
	if (bg_conf_load_mem(file, text, len, c) < 0 || bg_conf_str(c, "type", "qemu", &type) < 0)
		goto out;
	if (!strcmp(type, "lava")) {
		b->type = BG_BOARD_LAVA;
	} else if (strcmp(type, "qemu") != 0) {
		bg_conf_error_at(c, "type", 0, "'type' is qemu or lava, not '%s'", type);
		goto out;
	}
	/* a LAVA device brings its own emulator or hardware */
	qemu_def = b->type == BG_BOARD_LAVA ? "" : NULL;
	if (bg_conf_str_req(c, "name", &b->name) < 0 ||
	    bg_conf_str_req(c, "arch", &b->arch) < 0 ||
	    bg_conf_str_req(c, "kernel_arch", &b->kernel_arch) < 0 ||
	    bg_conf_str(c, "cross_compile", "", &b->cross_compile) < 0 ||
	    bg_conf_str_req(c, "make_target", &b->make_target) < 0 ||
	    bg_conf_str_req(c, "image", &b->image) < 0 ||
	    bg_conf_list(c, "fragments", &b->fragments, &b->nfragments) < 0 ||
	    bg_conf_str(c, "init_cc", "gcc", &b->init_cc) < 0 ||
	    opt_str(c, "qemu", qemu_def, &b->qemu) < 0 ||
	    opt_str(c, "machine", qemu_def, &b->machine) < 0 ||
	    bg_conf_str(c, "cpu", "", &b->cpu) < 0 ||
	    bg_conf_long(c, "memory", 512, 64, 65536, &b->memory) < 0 ||
	    bg_conf_long(c, "cpus", 1, 1, 64, &b->cpus) < 0 ||
	    bg_conf_list(c, "qemu_args", &b->qemu_args, &b->nqemu_args) < 0 ||
	    bg_conf_str(c, "poweroff", "poweroff", &poweroff) < 0 ||
	    bg_conf_str_req(c, "cmdline", &b->cmdline) < 0 ||
	    bg_conf_str(c, "timing_cmdline", "", &b->timing_cmdline) < 0 ||
	    bg_conf_long(c, "boot_timeout", 120, 1, 86400, &b->boot_timeout) < 0 ||
	    bg_conf_long(c, "exit_timeout", 60, 1, 86400, &b->exit_timeout) < 0 ||
	    bg_conf_long(c, "icount_shift", 3, 0, 10, &b->icount_shift) < 0 ||
	    bg_conf_list(c, "modes", &b->modes, &b->nmodes) < 0 ||
	    bg_conf_list(c, "compatible", &b->compatible, &b->ncompatible) < 0 ||
	    (b->type == BG_BOARD_LAVA && load_lava(c, lab, &b->lava) < 0) ||
	    bg_conf_check_unused(c) < 0)
		goto out;
	/* the name and the arch name directories of the cache and of the artifacts */
	if (!bg_path_name_ok(b->name)) {
		bg_conf_error_at(c, "name", 0, "'name' is a plain name ([A-Za-z0-9._+-], no '/'), "
				 "not '%s'", b->name);
		goto out;
	}
	if (!bg_path_name_ok(b->arch)) {
		bg_conf_error_at(c, "arch", 0, "'arch' is a plain name ([A-Za-z0-9._+-], no '/'), "
				 "not '%s'", b->arch);
		goto out;
	}
	if (!strcmp(poweroff, "poweroff")) {
		b->poweroff = BG_POWEROFF;
	} else if (!strcmp(poweroff, "reboot")) {
		b->poweroff = BG_REBOOT;
	} else {
		bg_conf_error_at(c, "poweroff", 0, "'poweroff' is poweroff or reboot, not '%s'",
				 poweroff);
		goto out;
	}
	for (size_t i = 0; i < b->nmodes; i++)
		if (strcmp(b->modes[i], "timing") != 0 && strcmp(b->modes[i], "deterministic") != 0) {
			bg_conf_error_at(c, "modes", i, "a mode is timing or deterministic, not '%s'",
					 b->modes[i]);
			goto out;
		}
	for (size_t i = 0; i < b->ncompatible; i++)
		if (!compatible_ok(b->compatible[i])) {
			bg_conf_error_at(c, "compatible", i, "'%s' is no device tree compatible "
					 "string (KCIDB's: not empty, no space)",
					 b->compatible[i]);
			goto out;
		}
	for (size_t i = 0; i < b->nfragments; i++) {
		char *frag;

		if (!bg_path_name_ok(b->fragments[i])) {
			bg_conf_error_at(c, "fragments", i, "fragment '%s' is a file name of %s/kconfig, "
					 "not a path", b->fragments[i], lab);
			goto out;
		}
		frag = xasprintf("%s/kconfig/%s", lab, b->fragments[i]);
		if (stat(frag, &st) < 0 || access(frag, R_OK) != 0) {
			bg_conf_error_at(c, "fragments", i, "fragment '%s': cannot read '%s': %s",
					 b->fragments[i], frag, strerror(errno));
			free(frag);
			goto out;
		}
		if (!S_ISREG(st.st_mode)) {
			bg_conf_error_at(c, "fragments", i, "fragment '%s': '%s' is not a file",
					 b->fragments[i], frag);
			free(frag);
			goto out;
		}
		free(frag);
	}
	/* absolute: the build sandbox hides it by path */
	{
		char real[PATH_MAX];

		b->lab = xstrdup(realpath(lab, real) ? real : lab);
	}
	ret = 0;
out:
	if (ret < 0)
		bg_conf_release(c);
	return ret;
}

const char *bg_console_name(enum bg_console c)
{
	return c == BG_CONSOLE_QUIET ? "quiet" : "verbose";
}

int bg_console_parse(const char *s, enum bg_console *out)
{
	if (!strcmp(s, "verbose"))
		*out = BG_CONSOLE_VERBOSE;
	else if (!strcmp(s, "quiet"))
		*out = BG_CONSOLE_QUIET;
	else
		return bg_error("the console is verbose or quiet, not '%s'", s);
	return 0;
}

/*
 * The board's own words, for quiet: each loglevel= gives way to one "quiet" (initcall_debug,
 * printk.time and log_buf_len stay: the dump needs them), and the ring buffer is dumped
 * after init, where the parser reads the initcalls.
 */
static void add_board_words(struct bg_strbuf *sb, const char *cmdline, enum bg_console console)
{
	bool quiet = false;

	if (console != BG_CONSOLE_QUIET) {
		bg_strbuf_addstr(sb, cmdline);
		return;
	}
	for (const char *p = cmdline; *p; ) {
		size_t n = strcspn(p, " ");

		if (n && (!strncmp(p, "loglevel=", 9) || (n == 5 && !strncmp(p, "quiet", 5)))) {
			if (!quiet)
				bg_strbuf_addf(sb, "%squiet", sb->len ? " " : "");
			quiet = true;
		} else if (n) {
			bg_strbuf_addf(sb, "%s%.*s", sb->len ? " " : "", (int)n, p);
		}
		p += n;
		p += strspn(p, " ");
	}
	if (!quiet)
		bg_strbuf_addf(sb, "%squiet", sb->len ? " " : "");
	bg_strbuf_addstr(sb, " bootgate.dump=1");
}

char *bg_board_cmdline(const struct bg_board *b, bool deterministic, enum bg_console console,
		       long tsc_khz, const char *extra, unsigned perf_runs)
{
	struct bg_strbuf sb = BG_STRBUF_INIT;
	const char *t = b->timing_cmdline;

	add_board_words(&sb, b->cmdline, console);
	if (!deterministic && t && *t) {
		const char *at = strstr(t, "@HOST_TSC_KHZ@");

		bg_strbuf_addch(&sb, ' ');
		if (at && tsc_khz > 0) {
			bg_strbuf_add(&sb, t, (size_t)(at - t));
			bg_strbuf_addf(&sb, "%ld", tsc_khz);
			bg_strbuf_addstr(&sb, at + strlen("@HOST_TSC_KHZ@"));
		} else {
			bg_strbuf_addstr(&sb, t);
		}
	}
	if (b->poweroff == BG_REBOOT)
		bg_strbuf_addstr(&sb, " bootgate.reboot=1");
	if (extra && *extra)
		bg_strbuf_addf(&sb, " %s", extra);
	if (perf_runs)
		bg_strbuf_addf(&sb, " bootgate.perf=%u", perf_runs);
	return bg_strbuf_detach(&sb, NULL);
}

int bg_board_check_mode(const struct bg_board *b, bool deterministic)
{
	const char *mode = deterministic ? "deterministic" : "timing";

	for (size_t i = 0; i < b->nmodes; i++)
		if (!strcmp(b->modes[i], mode))
			return 0;
	if (!b->nmodes)
		return 0;
	return bg_error("board %s does not boot in %s mode (its modes: %s%s)", b->name, mode,
			b->modes[0], b->nmodes > 1 ? ", ..." : "");
}

int bg_board_check_perf(const struct bg_board *b)
{
	struct utsname u;
	const char *host;

	if (b->type == BG_BOARD_LAVA)
		return bg_error("board %s is a LAVA board; perf runs on QEMU boards", b->name);
	if (uname(&u) < 0)
		return bg_error_errno("cannot read the host's arch");
	/* the kernel's name for the arch, as boards say it */
	host = !strcmp(u.machine, "aarch64") ? "arm64" : u.machine;
	if (strcmp(host, b->arch) != 0)
		return bg_error("perf is built for this host (%s), not for board %s (%s)", host,
				b->name, b->arch);
	return 0;
}

double bg_board_boot_seconds(const struct bg_board *b, bool deterministic)
{
	return (double)b->boot_timeout * (deterministic ? 4 : 1);
}

void bg_board_release(struct bg_board *b)
{
	bg_conf_release(&b->conf);
	free(b->lab);
	memset(b, 0, sizeof(*b));
}

/* Whether s ends with tail. */
static bool has_tail(const char *s, const char *tail)
{
	size_t n = strlen(s), t = strlen(tail);

	return n >= t && !strcmp(s + n - t, tail);
}

const char *bg_ccache_remote_path(const char *url)
{
	static const char *const schemes[] = { "redis+unix:", "file:" };
	const char *path = NULL;

	for (size_t i = 0; i < ARRAY_SIZE(schemes) && !path; i++)
		if (!strncmp(url, schemes[i], strlen(schemes[i])))
			path = url + strlen(schemes[i]);
	if (!path) {
		bg_error("'%.80s': the build's sandbox has no network: a remote cache is "
			 "redis+unix:/SOCKET or file:/DIR", url);
		return NULL;
	}
	if (path[0] != '/' || path[1] == '/') {
		bg_error("'%.80s': the path after the scheme is absolute, as in "
			 "redis+unix:/run/redis/ccache.sock", url);
		return NULL;
	}
	/* ccache reads ?db=, # and %XX in a URL: the path must mean only itself */
	for (const char *c = path; *c; c++)
		if (strchr("|?#% ", *c) || (unsigned char)*c < 0x20 || *c == 0x7f) {
			bg_error("'%.80s': no '|', '?', '#', '%%', blank or control character in the "
				 "path", url);
			return NULL;
		}
	if (strstr(path, "/./") || strstr(path, "/../") || has_tail(path, "/.") ||
	    has_tail(path, "/..") || !strcmp(path, "/")) {
		bg_error("'%.80s': a path with no '.' or '..' part, and not '/'", url);
		return NULL;
	}
	/* a Unix socket's path fits in sun_path: 108 bytes with its NUL */
	if (strlen(path) > (url[0] == 'r' ? 107 : 4000)) {
		bg_error("the remote cache's path is %zu bytes long", strlen(path));
		return NULL;
	}
	return path;
}
