/* The workers as programs (workers.h). */
#include <libgen.h>
#include <limits.h>
#include <sys/stat.h>

#include "lab/workers.h"
#include "util/error.h"
#include "util/path.h"
#include "util/proc.h"
#include "util/strbuf.h"
#include "util/strvec.h"
#include "util/xmalloc.h"

/* A worker's result is small; more than this is not one. */
#define RESULT_MAX (64u << 20)

char *bg_worker_path(const char *name)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		return xstrdup(name);
	exe[n] = '\0';
	return xasprintf("%s/%s", dirname(exe), name);
}

/* Runs a worker, its progress on our stderr; its result (stdout) into *out. */
static int run_worker(struct bg_strvec *argv, char **out, struct bg_proc_result *r)
{
	struct bg_proc_opts po = { .argv = bg_strvec_argv(argv), .in_fd = -1, .out_fd = -1,
				   .err_fd = STDERR_FILENO };

	return bg_proc_capture(&po, 0, RESULT_MAX, out, r);
}

static int config_file_ok(const char *path, const char *what)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return bg_error_errno("%s '%s'", what, path);
	if (!S_ISREG(st.st_mode) || access(path, R_OK) != 0)
		return bg_error("%s '%s' is not a file that can be read", what, path);
	return 0;
}

int bg_build_config_check(const char *base, char *const *fragments, size_t n, bool *is_file)
{
	size_t len = base ? strlen(base) : 0;
	bool file = false;

	if (base && !len)
		return bg_error("--config is empty");
	if (base && !(bg_path_name_ok(base) && base[0] != '.' && len > 6 &&
		      !strcmp(base + len - 6, "config"))) {
		if (config_file_ok(base, "--config") < 0)
			return -1;
		file = true;
	}
	for (size_t i = 0; i < n; i++)
		if (config_file_ok(fragments[i], "--fragment") < 0)
			return -1;
	if (is_file)
		*is_file = file;
	return 0;
}

int bg_worker_build(const char *tree, const char *commit, const char *board, const char *lab,
		    const struct bg_build_config *config, struct bg_build_result *b)
{
	struct bg_strvec argv = BG_STRVEC_INIT;
	struct bg_proc_result r;
	char *prog = bg_worker_path("bootgate-build"), *out = NULL;
	int ret = -1;

	bg_strvec_push(&argv, prog);
	bg_strvec_pushv(&argv, (char *const[]){ "--tree", (char *)tree, "--commit",
						(char *)commit, "--board", (char *)board, NULL });
	if (lab)
		bg_strvec_pushv(&argv, (char *const[]){ "--lab", (char *)lab, NULL });
	if (config && config->base)
		bg_strvec_pushv(&argv, (char *const[]){ "--config", (char *)config->base, NULL });
	for (size_t i = 0; config && i < config->nfragments; i++)
		bg_strvec_pushv(&argv, (char *const[]){ "--fragment", config->fragments[i], NULL });
	if (config && config->perf_runs)
		bg_strvec_push(&argv, "--perf");
	if (config && config->untrusted)
		bg_strvec_push(&argv, "--untrusted");
	if (run_worker(&argv, &out, &r) < 0) {
		b->status = BG_BUILD_EXEC;
		goto out;
	}
	if (bg_build_result_read("bootgate-build", out, b) < 0) {
		bg_error("bootgate-build (exit %d) gave no result: %s", r.exit_code,
			 bg_error_last());
		b->status = r.exit_code == BG_EXIT_EXEC ? BG_BUILD_EXEC : BG_BUILD_INFRA;
		goto out;
	}
	if (b->status == BG_BUILD_FAILED) {
		bg_error("%.12s does not build (log: %s)", commit, b->log ? b->log : "-");
		goto out;
	}
	if (b->status != BG_BUILD_BUILT) {
		bg_error("building %.12s failed for the machine's reasons (%s): %s", commit,
			 bg_build_status_name(b->status), b->error ? b->error : "-");
		goto out;
	}
	ret = 0;
out:
	free(prog);
	free(out);
	bg_strvec_release(&argv);
	return ret;
}

/*
 * Static, with libelf, zlib and the in-tree libtraceevent of 6.1, without the optional
 * libraries (each would want a static build of its own); the target perf alone, as the
 * default one also links the dlfilters shared objects, which -static cannot.
 */
const char *const bg_perf_make_flags[] = {
	"LDFLAGS=-static", "WERROR=0", "NO_LIBPYTHON=1", "NO_LIBPERL=1", "NO_JVMTI=1",
	"NO_GTK2=1", "NO_SLANG=1", "NO_LIBNUMA=1", "NO_LIBAUDIT=1", "NO_LIBUNWIND=1",
	"NO_LIBDW_DWARF_UNWIND=1", "NO_DWARF=1", "NO_LIBBPF=1", "NO_LIBCRYPTO=1", "NO_LIBCAP=1",
	"NO_LIBZSTD=1", "NO_LZMA=1", "NO_LIBBABELTRACE=1", "NO_DEMANGLE=1", "NO_LIBPFM4=1",
	"NO_AUXTRACE=1", "NO_JEVENTS=1", "NO_SDT=1", "NO_BPF_SKEL=1", NULL,
};

char *bg_perf_make_line(void)
{
	struct bg_strbuf sb = BG_STRBUF_INIT;

	bg_strbuf_addstr(&sb, "make -C tools/perf O=out-perf");
	for (size_t i = 0; bg_perf_make_flags[i]; i++)
		bg_strbuf_addf(&sb, " %s", bg_perf_make_flags[i]);
	bg_strbuf_addstr(&sb, " perf");
	return bg_strbuf_detach(&sb, NULL);
}

int bg_worker_boot(const struct bg_worker_boot *wb, struct bg_boot_run *run)
{
	struct bg_strvec argv = BG_STRVEC_INIT;
	struct bg_proc_result r;
	char *prog = bg_worker_path("bootgate-boot"), *out = NULL;
	int ret = -1;

	bg_strvec_push(&argv, prog);
	bg_strvec_pushv(&argv, (char *const[]){ "--board", (char *)wb->board, "--mode",
						wb->deterministic ? "deterministic" : "timing",
						"--image", (char *)wb->image, NULL });
	bg_strvec_pushf(&argv, "--boots=%u", wb->boots);
	if (wb->image2)
		bg_strvec_pushv(&argv, (char *const[]){ "--image2", (char *)wb->image2, NULL });
	if (wb->lab)
		bg_strvec_pushv(&argv, (char *const[]){ "--lab", (char *)wb->lab, NULL });
	if (wb->parallel)
		bg_strvec_pushf(&argv, "--parallel=%u", wb->parallel);
	if (wb->console != BG_CONSOLE_VERBOSE)
		bg_strvec_pushf(&argv, "--console=%s", bg_console_name(wb->console));
	if (wb->perf_runs) {
		/* bootgate-build --perf keeps perf beside the image, in its artifact */
		for (int s = 0; s < 2; s++) {
			const char *image = s ? wb->image2 : wb->image;
			const char *slash = image ? strrchr(image, '/') : NULL;

			if (image)
				bg_strvec_pushf(&argv, "--perf%s=%.*s%sperf", s ? "2" : "",
						(int)(slash ? slash + 1 - image : 0), image,
						slash ? "" : "./");
		}
		bg_strvec_pushf(&argv, "--perf-runs=%u", wb->perf_runs);
	}
	if (run_worker(&argv, &out, &r) < 0)
		goto out;
	if (r.exit_code == BG_EXIT_USAGE || r.exit_code == BG_EXIT_EXEC) {
		bg_error("bootgate-boot could not boot (exit %d)", r.exit_code);
		goto out;
	}
	if (bg_boot_run_read("bootgate-boot", out, run) < 0) {
		bg_error("bootgate-boot (exit %d) gave no result: %s", r.exit_code, bg_error_last());
		goto out;
	}
	ret = 0;
out:
	free(prog);
	free(out);
	bg_strvec_release(&argv);
	return ret;
}

struct bg_boot *bg_worker_parsed(const struct bg_boot_record *rec,
				 void (*warn)(const char *where, const char *msg, void *data),
				 void *data)
{
	struct bg_boot *b;

	if (!rec->parsed) {
		if (warn)
			warn(rec->log, "the boot worker kept no reading of this console", data);
		return NULL;
	}
	b = bg_boot_read_parsed(rec->parsed);
	if (!b && warn)
		warn(rec->parsed, bg_error_last(), data);
	return b;
}
