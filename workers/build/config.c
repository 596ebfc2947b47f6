/*
 * The configuration of a build (build.h): its inputs, the key that names it and the
 * compiler, then the make steps that make it and build the image and perf, and what
 * their output says afterwards.
 */
#include <sys/stat.h>
#include <sys/statvfs.h>

#include "build.h"
#include "lab/workers.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/path.h"
#include "util/strbuf.h"
#include "util/xmalloc.h"

/*
 * The base and the fragments, checked: a make target is a plain name ending in
 * "config" (tinyconfig, x86_64_defconfig), anything else a .config file.
 */
int config_inputs(struct build *b, const struct bg_strvec *extra)
{
	if (bg_build_config_check(b->base, extra->v, extra->n, &b->base_file) < 0)
		return -1;
	for (size_t i = 0; i < b->board.nfragments; i++) {
		bg_strvec_pushf(&b->frag_from, "%s/kconfig/%s", b->board.lab, b->board.fragments[i]);
		bg_strvec_push(&b->frag_name, b->board.fragments[i]);
	}
	for (size_t i = 0; i < extra->n; i++) {
		const char *slash = strrchr(extra->v[i], '/');

		bg_strvec_push(&b->frag_from, extra->v[i]);
		/* numbered: two fragments of one name stay two files */
		bg_strvec_pushf(&b->frag_name, "extra-%zu-%s", i, slash ? slash + 1 : extra->v[i]);
	}
	return 0;
}

/* Which board settings and fragments make the configuration: their hash names it. */
int compute_config_key(struct build *b)
{
	struct bg_strbuf sb = BG_STRBUF_INIT;
	int ret = 0;

	bg_strbuf_addf(&sb, "bootgate-config-1 %s %s %s\n", b->board.kernel_arch,
		       b->board.cross_compile, b->board.make_target);
	/* tinyconfig adds nothing: the keys of the images built before it stay as they were */
	if (strcmp(b->base, "tinyconfig") != 0) {
		char *text = b->base_file ? bg_read_file(b->base, 64 << 20, NULL) : NULL;

		if (b->base_file && !text)
			ret = -1;
		bg_strbuf_addf(&sb, "base %s\n%s\n", b->base_file ? "file" : b->base,
			       text ? text : "");
		free(text);
	}
	for (size_t i = 0; i < b->frag_from.n && !ret; i++) {
		char *text = bg_read_file(b->frag_from.v[i], 1 << 20, NULL);

		if (text)
			bg_strbuf_addf(&sb, "%s\n%s\n", b->frag_name.v[i], text);
		else
			ret = -1;
		free(text);
	}
	bg_sha256_mem(sb.buf, sb.len, b->config_key);
	bg_strbuf_release(&sb);
	return ret;
}

/* The compiler's version line, or -1 when it cannot be run (an infrastructure failure). */
int compiler_version(struct build *b)
{
	char *cc = xasprintf("%sgcc", b->board.cross_compile), *text = NULL;
	char *argv[] = { cc, "--version", NULL };
	struct bg_proc_opts o = { .argv = argv, .in_fd = -1, .out_fd = -1, .err_fd = -1 };
	struct bg_proc_result r;
	int ret = 0;

	if (bg_proc_capture(&o, 60, 4096, &text, &r) < 0 || r.exit_code) {
		b->compiler_missing = r.exec_failed;
		ret = bg_error("compiler '%s' cannot be run: %s", cc,
			       r.exec_failed ? bg_error_last() : "it failed");
	} else {
		text[strcspn(text, "\n")] = '\0';
		b->compiler = xstrdup(text);
	}
	free(text);
	free(cc);
	return ret;
}

/* make -C src O=out ARCH=... CROSS_COMPILE=... CC="ccache ...gcc" TARGET */
int make(struct build *b, const char *target, bool jobs, struct bg_proc_result *r)
{
	struct bg_strvec a = BG_STRVEC_INIT;
	int ret;

	bg_strvec_pushv(&a, (char *const[]){ "make", "-s", "-C", (char *)b->in_src, NULL });
	bg_strvec_pushf(&a, "O=%s", b->in_out);
	bg_strvec_pushf(&a, "ARCH=%s", b->board.kernel_arch);
	bg_strvec_pushf(&a, "CROSS_COMPILE=%s", b->board.cross_compile);
	bg_strvec_pushf(&a, "CC=ccache %sgcc", b->board.cross_compile);
	bg_strvec_push(&a, "LOCALVERSION=");
	bg_strvec_pushf(&a, "-j%u", jobs ? b->jobs : 1);
	bg_strvec_push(&a, target);
	log_line(b, "+ make ARCH=%s CROSS_COMPILE=%s %s -j%u\n", b->board.kernel_arch,
		 b->board.cross_compile, target, jobs ? b->jobs : 1);
	ret = step(b, bg_strvec_argv(&a), r);
	bg_strvec_release(&a);
	return ret;
}

/* Builds tools/perf of the worktree into perf/, then strips it for the initramfs. */
int make_perf(struct build *b, struct bg_proc_result *r)
{
	struct bg_strvec a = BG_STRVEC_INIT;
	char *line = bg_perf_make_line();
	int ret;

	/* where perf's .cmd files will say the sources are: another tree's seed reads it */
	if (!b->untrusted) {
		char *source = bg_path_join(b->work, "perf-source");

		if (bg_write_file(source, b->in_src, strlen(b->in_src)) < 0)
			log_warnx("%s (no other tree's perf build will start from this one)",
				  bg_error_last());
		free(source);
	}
	bg_strvec_pushv(&a, (char *const[]){ "make", "-s", "-C", NULL });
	bg_strvec_pushf(&a, "%s/tools/perf", b->in_src);
	bg_strvec_pushf(&a, "O=%s", b->in_perf);
	bg_strvec_push(&a, "CC=ccache gcc");
	bg_strvec_pushf(&a, "-j%u", b->jobs);
	bg_strvec_pushv(&a, (char *const *)bg_perf_make_flags);
	bg_strvec_push(&a, "perf");
	log_line(b, "+ %s -j%u\n", line, b->jobs);
	ret = step(b, bg_strvec_argv(&a), r);
	bg_strvec_release(&a);
	free(line);
	if (ret < 0 || r->exit_code || r->timed_out)
		return ret;
	bg_strvec_pushv(&a, (char *const[]){ "strip", "-o", NULL });
	bg_strvec_pushf(&a, "%s/perf.stripped", b->in_perf);
	bg_strvec_pushf(&a, "%s/perf", b->in_perf);
	log_line(b, "+ strip perf\n");
	ret = step(b, bg_strvec_argv(&a), r);
	bg_strvec_release(&a);
	return ret;
}

/*
 * The configuration: tinyconfig, then the board's fragments (twice: see ppc64le.config).
 * -1 for the machine's failures; a step that fails leaves r's exit code set.
 */
int configure(struct build *b, struct bg_proc_result *r)
{
	char *keyfile = bg_path_join(b->slot, "config-key");
	char *dotconfig = bg_path_join(b->out, ".config");
	char *in_dotconfig = bg_path_join(b->in_out, ".config");
	char *fragdir = b->frag;
	char *merge = bg_path_join(b->in_src, "scripts/kconfig/merge_config.sh");
	char *old = bg_read_file(keyfile, 128, NULL);
	int ret = -1;

	if (old && !strcmp(old, b->config_key) && access(dotconfig, R_OK) == 0) {
		ret = 0;
		goto out;
	}
	log_line(b, "configuring (config %.12s: %s)\n", b->config_key, b->base);
	/* the fragments go beside the build (read-only there): the lab is not in view */
	if (bg_mkdirs(fragdir) < 0)
		goto out;
	for (size_t i = 0; i < b->frag_from.n; i++) {
		char *to = bg_path_join(fragdir, b->frag_name.v[i]);
		int copied = bg_copy_file(b->frag_from.v[i], to);

		free(to);
		if (copied < 0)
			goto out;
	}
	if (b->base_file) {
		/* a whole .config, completed by the tree's own defaults */
		if (bg_copy_file(b->base, dotconfig) < 0)
			goto out;
		if (make(b, "olddefconfig", false, r) < 0 || r->exit_code) {
			ret = 0;
			goto out;
		}
	} else if (make(b, b->base, false, r) < 0 || r->exit_code) {
		ret = 0;
		goto out;
	}
	for (int pass = 0; pass < 2; pass++) {
		struct bg_strvec a = BG_STRVEC_INIT;
		int failed;

		bg_strvec_pushv(&a, (char *const[]){ merge, "-m", "-O", (char *)b->in_out,
						     in_dotconfig, NULL });
		for (size_t i = 0; i < b->frag_name.n; i++)
			bg_strvec_pushf(&a, "%s/%s", b->in_frag, b->frag_name.v[i]);
		log_line(b, "+ merge_config.sh -m (pass %d)\n", pass + 1);
		failed = step(b, bg_strvec_argv(&a), r) < 0 || r->exit_code;
		bg_strvec_release(&a);
		if (failed || make(b, "olddefconfig", false, r) < 0 || r->exit_code) {
			ret = 0;
			goto out;
		}
	}
	ret = bg_write_file(keyfile, b->config_key, strlen(b->config_key));
out:
	free(old);
	free(keyfile);
	free(dotconfig);
	free(in_dotconfig);
	free(merge);
	return ret;
}

/* This build's ccache hits and misses, from its stats log (the build's own file). */
void ccache_rate(struct build *b)
{
	int fd = bg_open_beneath(b->out, ".ccache-stats.log");
	char *text = NULL, *path = xasprintf("%s/.ccache-stats.log", b->out);
	struct stat st;

	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		text = bg_read_file(path, 256 << 20, NULL);
	if (fd >= 0)
		close(fd);

	b->res.ccache_hits = b->res.ccache_misses = b->res.ccache_remote_hits = 0;
	b->res.ccache_remote_errors = 0;
	for (char *line = text; line && *line;) {
		size_t len = strcspn(line, "\n");

		if ((len == 16 && !strncmp(line, "direct_cache_hit", len)) ||
		    (len == 22 && !strncmp(line, "preprocessed_cache_hit", len)))
			b->res.ccache_hits++;
		else if (len == 10 && !strncmp(line, "cache_miss", len))
			b->res.ccache_misses++;
		/* one a compile: the hit its answer came from the remote storage */
		else if (len == 18 && !strncmp(line, "remote_storage_hit", len))
			b->res.ccache_remote_hits++;
		else if ((len == 20 && !strncmp(line, "remote_storage_error", len)) ||
			 (len == 22 && !strncmp(line, "remote_storage_timeout", len)))
			b->res.ccache_remote_errors++;
		line += len + (line[len] == '\n');
	}
	if (b->res.ccache_hits + b->res.ccache_misses)
		log_info("ccache: %ld hits, %ld misses (%.0f%%)", b->res.ccache_hits,
			 b->res.ccache_misses, 100.0 * (double)b->res.ccache_hits /
			 (double)(b->res.ccache_hits + b->res.ccache_misses));
	if (b->ccache_remote)
		log_info("ccache's remote storage: %ld hits%s", b->res.ccache_remote_hits,
			 b->res.ccache_remote_errors ? ", and it failed: those compiles stayed local" : "");
	free(text);
	free(path);
}

/*
 * Whether a failed build's log shows the machine failing rather than the code. An
 * untrusted build writes what it likes there: only a cache file system that is in truth
 * nearly full (under 1 GiB free) makes its failure the machine's.
 */
bool log_shows_machine(const struct build *b)
{
	char *text = bg_read_file(b->log, 64 << 20, NULL);
	bool found = text && (strstr(text, "No space left on device") ||
			      strstr(text, "Cannot allocate memory"));
	struct statvfs vfs;

	free(text);
	if (found && b->untrusted)
		found = statvfs(b->out, &vfs) == 0 &&
			(unsigned long long)vfs.f_bavail * vfs.f_frsize < 1ULL << 30;
	return found;
}
