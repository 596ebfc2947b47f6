/*
 * bootgate-boot: boots kernel images on a board (QEMU) several times and reads every
 * console with the boot-log parser. Boots of two images are interleaved, A B A B, so that
 * drift in the host's load hits both alike; several run at once, up to the cores. Each
 * boot's console (with host timestamps) and its parsed result are kept side by side.
 * Exit: 0 every boot reached userspace, 1 a boot panicked or hung (a real failure),
 * 111 the lab failed (QEMU could not boot at all), 127 QEMU could not be run, 2 usage.
 */
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <sys/stat.h>

#include "conf/board.h"
#include "lab/lava-run.h"
#include "lab/result.h"
#include "conf/tree.h"
#include "parse/bootlog.h"
#include "report/boot-json.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/log.h"
#include "util/num.h"
#include "util/path.h"
#include "util/proc.h"
#include "util/strbuf.h"
#include "util/strvec.h"
#include "util/xmalloc.h"

struct boot {
	unsigned index;            /* in start order */
	int side;                  /* 0: image A, 1: image B */
	unsigned nth;              /* boot number of its image */
	struct bg_proc proc;
	FILE *log, *times;
	char *log_path;
	struct bg_strbuf line;     /* the console line being received */
	double deadline;
	bool marker, panic, running, done, exec_failed;
	bool lost;                 /* the console could not be kept whole: the lab failed */
	bool hup;                  /* the console closed: only the exit is left to wait for */
	int qemu_exit;
	enum bg_outcome outcome;
	double wall, marker_wall;
	unsigned long lines;
};

struct run {
	struct bg_board board;
	const char *images[2];
	const char *initrd;
	const char *out;
	const char *extra;
	const char *perf[2];       /* each image's static perf for the initramfs, or NULL */
	const char *initrds[2];    /* each image's initramfs: the test one, perf added */
	char *made_initrd, *with_perf[2];   /* those of them made here: owned */
	unsigned boots, parallel, perf_runs;
	bool deterministic;
	enum bg_console console;
	const char *accel;
	char *cmdline;
	char memory[32], icount[64], smp[32];   /* QEMU arguments made once */
};

/* Host seconds allowed for one perf run after the marker (about 0.2 s under TCG). */
#define PERF_RUN_SECONDS 30

static void usage(FILE *f)
{
	fprintf(f,
		"usage: bootgate-boot --image IMG [--image2 IMG] --board NAME [--boots N]\n"
		"                     [--mode timing|deterministic] [--parallel N] [--out DIR]\n"
		"                     [--initrd CPIO] [--append ARGS] [--lab DIR] [--print-job]\n"
		"                     [--console verbose|quiet]\n"
		"                     [--perf BIN [--perf2 BIN] [--perf-runs R]]\n"
		"\nBoots IMG (and IMG2, interleaved) N times each (3) on a QEMU board of\n"
		"lab-configs/boards/. timing: wall clock, statistics decide. deterministic:\n"
		"-icount, guest time counts instructions, so code-path changes read the same in\n"
		"every boot. --console quiet: a user's quiet console, the initcalls read from the\n"
		"ring buffer the init dumps after userspace. Writes each console, its host\n"
		"timestamps and its parsed result to DIR (a new directory under\n"
		"$BOOTGATE_CACHE/boots by default); prints a JSON summary.\n"
		"\n--perf BIN: BIN (a static perf, bootgate-build --perf) goes into the initramfs\n"
		"and the test init times `perf trace -C 0 -- true` R times (3) after userspace is\n"
		"reached: the boot's perf.trace_startup samples. --perf2: IMG2's own perf.\n"
		"\nexit: 0 all reached userspace, 1 a boot panicked or hung, 111 the lab failed,\n"
		"127 QEMU could not be run, 2 usage\n");
}

/* The host's TSC in kHz: what the guest TSC counts under TCG. */
static long host_tsc_khz(void)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];
	double mhz = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "cpu MHz", 7) && strchr(line, ':')) {
			mhz = strtod(strchr(line, ':') + 1, NULL);
			break;
		}
	fclose(f);
	return (long)(mhz * 1000);
}

/*
 * KVM only when it can work: /dev/kvm is there, the CPU has VMX or SVM, and the guest is
 * the host's arch. /dev/kvm alone proves nothing (here it hangs in the firmware).
 */
static const char *pick_accel(const struct bg_board *b)
{
	FILE *f;
	char line[4096];
	bool flags = false;

	if (strcmp(b->arch, "x86_64") != 0 || access("/dev/kvm", R_OK | W_OK) != 0)
		return "tcg";
	if (!(f = fopen("/proc/cpuinfo", "r")))
		return "tcg";
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "flags", 5)) {
			flags = strstr(line, " vmx") || strstr(line, " svm");
			break;
		}
	fclose(f);
	return flags ? "kvm" : "tcg";
}

static void qemu_argv(const struct run *r, int side, const char *image, struct bg_strvec *v)
{
	/*
	 * -icount needs one TCG thread running the vCPUs in turn (QEMU refuses it with
	 * thread=multi): said, not left to QEMU's default, so that the boot repeats
	 */
	bg_strvec_pushv(v, (char *const[]){ (char *)r->board.qemu, "-accel",
					    r->deterministic && !strcmp(r->accel, "tcg") ?
					    "tcg,thread=single" : (char *)r->accel,
					    "-M", (char *)r->board.machine, NULL });
	if (*r->board.cpu)
		bg_strvec_pushv(v, (char *const[]){ "-cpu", (char *)r->board.cpu, NULL });
	bg_strvec_pushv(v, (char *const[]){ "-m", (char *)r->memory, NULL });
	if (r->board.cpus > 1)
		bg_strvec_pushv(v, (char *const[]){ "-smp", (char *)r->smp, NULL });
	for (size_t i = 0; i < r->board.nqemu_args; i++)
		bg_strvec_push(v, r->board.qemu_args[i]);
	bg_strvec_pushv(v, (char *const[]){ "-kernel", (char *)image, "-initrd",
					    (char *)r->initrds[side], "-append", r->cmdline, NULL });
	if (r->deterministic)
		bg_strvec_pushv(v, (char *const[]){ "-icount", (char *)r->icount, "-rtc",
						    "clock=vm", NULL });
}

/*
 * Starts a boot; -1 when it could not be started, the boot then done with outcome infra
 * (its console could not be written, or QEMU could not be run: exec_failed).
 */
static int start_boot(struct run *r, struct boot *b)
{
	struct bg_strvec argv = BG_STRVEC_INIT;
	char *times = xasprintf("%s.times", b->log_path);
	char *err = xasprintf("%s.qemu-stderr", b->log_path);
	struct bg_proc_opts o = { .in_fd = -1, .out_fd = BG_PROC_PIPE, .err_fd = -1 };
	int errfd = open(err, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	int ret = -1;

	b->log = fopen(b->log_path, "wb");
	b->times = fopen(times, "w");
	if (!b->log || !b->times || errfd < 0) {
		bg_error_errno("cannot write '%s'", !b->log ? b->log_path : !b->times ? times : err);
		goto out;
	}
	qemu_argv(r, b->side, r->images[b->side], &argv);
	o.argv = bg_strvec_argv(&argv);
	o.err_fd = errfd;
	if (bg_proc_start(&b->proc, &o) < 0) {
		b->exec_failed = true;
		goto out;
	}
	fcntl(b->proc.out, F_SETFL, O_NONBLOCK);
	b->running = true;
	b->deadline = bg_now() + bg_board_boot_seconds(&r->board, r->deterministic);
	ret = 0;
out:
	if (ret < 0) {
		/* never started: the lab failed, and nothing about the kernel is known */
		b->done = true;
		b->outcome = BG_OUTCOME_INFRA;
		if (b->log)
			fclose(b->log);
		if (b->times)
			fclose(b->times);
		b->log = b->times = NULL;
	}
	if (errfd >= 0)
		close(errfd);
	free(times);
	free(err);
	bg_strvec_release(&argv);
	return ret;
}

/* One line of console: note when it came, and watch for the marker and a panic. */
static void console_line(struct run *r, struct boot *b)
{
	double t = bg_now() - b->proc.started;

	b->lines++;
	if (fprintf(b->times, "%.6f %lu\n", t, b->lines) < 0)
		b->lost = true;
	if (!b->marker && strstr(b->line.buf, BG_USERSPACE_MARKER)) {
		b->marker = true;
		b->marker_wall = t;
		/* the init runs perf, then powers off; give QEMU time to exit on its own */
		b->deadline = bg_now() + (double)r->board.exit_timeout +
			      (double)r->perf_runs * PERF_RUN_SECONDS;
	}
	if (strstr(b->line.buf, BG_PANIC_MARKER))
		b->panic = true;
}

static void read_console(struct run *r, struct boot *b)
{
	char buf[65536];
	ssize_t n;

	while ((n = read(b->proc.out, buf, sizeof(buf))) > 0) {
		if (fwrite(buf, 1, (size_t)n, b->log) != (size_t)n)
			b->lost = true;
		for (ssize_t i = 0; i < n; i++) {
			if (buf[i] == '\n') {
				console_line(r, b);
				bg_strbuf_reset(&b->line);
			} else if (b->line.len < 4096) {
				bg_strbuf_addch(&b->line, buf[i]);
			}
		}
	}
}

/* Ends a boot: reaped (res given), or killed at its deadline (res NULL). */
static void finish_boot(struct run *r, struct boot *b, const struct bg_proc_result *reaped)
{
	struct bg_proc_result res;
	bool killed = !reaped;

	/* QEMU at once: a grace period here would stall every other boot's console */
	if (killed)
		bg_proc_kill(&b->proc, 0, &res);
	else
		res = *reaped;
	read_console(r, b);
	if (b->line.len)
		console_line(r, b);
	close(b->proc.out);
	b->wall = bg_now() - b->proc.started;
	b->qemu_exit = res.exit_code;
	b->running = false;
	b->done = true;
	if (fclose(b->log) != 0)
		b->lost = true;
	if (fclose(b->times) != 0)
		b->lost = true;
	b->log = b->times = NULL;
	if (b->lost) {
		/* a console not kept whole is no evidence of anything about the kernel */
		log_warnx("boot %u: cannot write its console '%s'", b->index, b->log_path);
		b->outcome = BG_OUTCOME_INFRA;
	} else if (b->marker) {
		b->outcome = BG_OUTCOME_COMPLETE;
	} else if (b->panic) {
		b->outcome = BG_OUTCOME_PANIC;
	} else if (!killed && (b->lines == 0 || res.exit_code)) {
		b->outcome = BG_OUTCOME_INFRA;   /* QEMU stopped before the kernel said a word */
	} else {
		b->outcome = BG_OUTCOME_HANG;    /* killed at the timeout, or the kernel fell silent */
	}
	log_info("boot %u (%c%u) %s in %.1f s%s", b->index,
		 'A' + b->side, b->nth, bg_outcome_name(b->outcome), b->wall,
		 b->marker ? "" : killed ? " (killed at the timeout)" : "");
}

/* Runs every boot, at most r->parallel at a time, in one poll loop. */
static void run_boots(struct run *r, struct boot *boots, unsigned n)
{
	unsigned next = 0, running = 0, done = 0;

	while (done < n) {
		struct pollfd pfd[64];
		unsigned np = 0;
		double now = bg_now(), wait = 1.0;

		while (running < r->parallel && next < n) {
			if (start_boot(r, &boots[next]) < 0) {
				log_warnx("%s", bg_error_last());
				done++;
			} else {
				running++;
			}
			next++;
		}
		for (unsigned i = 0; i < n && np < 64; i++) {
			if (!boots[i].running)
				continue;
			if (boots[i].deadline - now < wait)
				wait = boots[i].deadline - now;
			if (boots[i].hup) {
				wait = fmin(wait, 0.05);   /* closing: check its exit soon */
				continue;
			}
			pfd[np].fd = boots[i].proc.out;
			pfd[np].events = POLLIN;
			np++;
		}
		poll(pfd, np, wait > 0 ? (int)(wait * 1000) + 1 : 0);
		for (unsigned k = 0; k < np; k++)
			for (unsigned i = 0; i < n; i++)
				if (boots[i].running && boots[i].proc.out == pfd[k].fd) {
					if (pfd[k].revents & POLLIN)
						read_console(r, &boots[i]);
					else if (pfd[k].revents & (POLLHUP | POLLERR))
						boots[i].hup = true;
				}
		now = bg_now();
		for (unsigned i = 0; i < n; i++) {
			struct boot *b = &boots[i];
			struct bg_proc_result res;

			if (!b->running)
				continue;
			if (bg_proc_wait(&b->proc, 0, &res) == 0)
				finish_boot(r, b, &res);
			else if (now >= b->deadline)
				finish_boot(r, b, NULL);
			else
				continue;
			running--;
			done++;
		}
	}
}

struct parsed {
	struct bg_json *j;
	const char *file;
	unsigned nboots;
};

static int write_boot(const struct bg_boot *boot, void *data)
{
	struct parsed *p = data;

	if (p->nboots++ == 0)
		bg_boot_write_json(p->j, boot, p->file);
	return 0;
}

/*
 * An initramfs made by a script of the project (scripts/NAME A B): the path it prints,
 * or NULL with why.
 */
static char *initramfs_script(const char *name, const char *a, const char *b)
{
	char *rel = xasprintf("scripts/%s", name), *path = NULL;
	const char *script = bg_project_file(rel);
	char *args[] = { "sh", (char *)script, (char *)a, (char *)b, NULL };
	struct bg_proc_opts o = { .argv = args, .in_fd = -1, .out_fd = -1, .err_fd = -1 };
	struct bg_proc_result res;

	if (!script) {
		bg_error("%s not found near this program: give --initrd", rel);
	} else if (bg_proc_capture(&o, 600, PATH_MAX, &path, &res) < 0 || res.exit_code ||
		   !path || !*path) {
		bg_error("%s %s %s failed: no initramfs", script, a, b);
		free(path);
		path = NULL;
	} else {
		path[strcspn(path, "\n")] = '\0';
	}
	free(rel);
	return path;
}

/* What the parser finds wrong in a console, for the run's log. */
static void warn_line(const char *where, const char *msg, void *data)
{
	(void)data;
	log_warnx("%s: %s", where, msg);
}

/*
 * Parses a boot's console and keeps the result beside it; returns the result's path. It
 * is the one reading of the console every later stage uses (lab/result.h).
 */
static char *keep_parsed(const char *log_path)
{
	struct bg_json pj;
	struct parsed p = { &pj, log_path, 0 };
	struct bg_bootlog *log;
	char *json_path = xasprintf("%s.json", log_path);

	bg_json_init(&pj, -1, 0);
	log = bg_bootlog_new(log_path, write_boot, &p);
	bg_bootlog_set_warning(log, warn_line);
	/* a boot written before a read error is kept: null only when there is none */
	if (bg_bootlog_parse_path(log, log_path) < 0)
		log_warnx("%s", bg_error_last());
	if (!p.nboots)
		bg_strbuf_addstr(&pj.out, "null");
	bg_bootlog_free(log);
	bg_strbuf_addch(&pj.out, '\n');
	if (bg_write_file(json_path, pj.out.buf, pj.out.len) < 0) {
		log_warnx("%s", bg_error_last());
		free(json_path);
		json_path = NULL;
	}
	bg_strbuf_release(&pj.out);
	return json_path;
}

/* The run's directory: --out, else a new one under the cache's boots/. NULL with a warning. */
static char *make_outdir(const struct run *r)
{
	char *outdir;

	if (r->out) {
		outdir = xstrdup(r->out);
	} else {
		char *boots_dir = xasprintf("%s/boots", bg_cache_dir());

		bg_mkdirs(boots_dir);
		outdir = xasprintf("%s/run.XXXXXX", boots_dir);
		free(boots_dir);
		if (!mkdtemp(outdir)) {
			log_warn("cannot create '%s'", outdir);
			free(outdir);
			return NULL;
		}
	}
	if (bg_mkdirs(outdir) < 0) {
		log_warnx("%s", bg_error_last());
		free(outdir);
		return NULL;
	}
	return outdir;
}

/* Every boot under QEMU into res; how many QEMU could not be run. */
static unsigned run_qemu(struct run *r, const char *outdir, struct bg_boot_run *res)
{
	unsigned sides = r->images[1] ? 2 : 1, n = r->boots * sides, execfail = 0;
	struct boot *boots = xcalloc(n, sizeof(*boots));

	for (unsigned i = 0; i < n; i++) {
		struct boot *b = &boots[i];

		/* A B A B ...: the host's drift falls on both sides alike */
		b->index = i;
		b->side = (int)(i % sides);
		b->nth = i / sides;
		b->log_path = xasprintf("%s/boot-%03u-%c.log", outdir, i, 'A' + b->side);
		bg_strbuf_init(&b->line, 0);
	}
	log_info("%u boot%s on %s (%s, %s mode), %u at a time; logs in %s", n, n == 1 ? "" : "s",
		 r->board.name, r->accel, r->deterministic ? "deterministic" : "timing",
		 r->parallel < n ? r->parallel : n, outdir);
	run_boots(r, boots, n);
	for (unsigned i = 0; i < n; i++) {
		struct boot *b = &boots[i];
		struct bg_boot_record *rec;

		execfail += b->exec_failed;
		rec = bg_boot_run_add(res, b->side, r->images[b->side], b->outcome, b->log_path);
		rec->wall_seconds = b->wall;
		if (b->marker)
			rec->userspace_wall_seconds = b->marker_wall;
		/* the parsed boot, kept beside its console (none for a boot never started) */
		if (!b->lost && (b->outcome != BG_OUTCOME_INFRA || b->lines))
			rec->parsed = keep_parsed(b->log_path);
		bg_strbuf_release(&b->line);
		free(b->log_path);
	}
	free(boots);
	return execfail;
}

static void lava_opts(const struct run *r, const char *outdir, struct bg_lava_run *o)
{
	memset(o, 0, sizeof(*o));
	o->board = &r->board;
	o->images[0] = r->images[0];
	o->images[1] = r->images[1];
	o->initrd = r->initrd;
	o->cmdline = r->cmdline;
	o->deterministic = r->deterministic;
	o->boots = r->boots;
	o->parallel = r->parallel;
	o->out = outdir;
	o->cache = bg_cache_dir();
}

/* Every boot as a LAVA job into res; 0, or BG_LAVA_RUN_CONFIG or BG_LAVA_RUN_MACHINE. */
static int run_lava(struct run *r, const char *outdir, struct bg_boot_run *res)
{
	struct bg_lava_run o;
	int ret;

	lava_opts(r, outdir, &o);
	if ((ret = bg_lava_run_boots(&o, res)) < 0)
		return ret;
	for (size_t i = 0; i < res->n; i++) {
		struct bg_boot_record *rec = &res->boots[i];

		/* a job in which no kernel spoke has no console to read */
		if (rec->outcome != BG_OUTCOME_INFRA && access(rec->log, R_OK) == 0)
			rec->parsed = keep_parsed(rec->log);
	}
	return 0;
}

/* --print-job: the first boot's LAVA job on stdout, nothing sent. */
static int print_lava_job(const struct run *r)
{
	struct bg_lava_run o;
	struct bg_strbuf job = BG_STRBUF_INIT;
	int ret = BG_EXIT_OK;

	if (r->board.type != BG_BOARD_LAVA) {
		log_warnx("--print-job: board %s is not a LAVA board (type: lava)", r->board.name);
		return BG_EXIT_USAGE;
	}
	lava_opts(r, NULL, &o);
	if (bg_lava_run_print(&o, &job) < 0) {
		log_warnx("%s", bg_error_last());
		ret = BG_EXIT_USAGE;
	} else if (fwrite(job.buf, 1, job.len, stdout) != job.len || fflush(stdout) != 0) {
		log_warn("cannot write the job");
		ret = BG_EXIT_INFRA;
	}
	bg_strbuf_release(&job);
	return ret;
}

static const struct option long_options[] = {
	{ "image", required_argument, NULL, 'i' },
	{ "image2", required_argument, NULL, 'I' },
	{ "board", required_argument, NULL, 'b' },
	{ "boots", required_argument, NULL, 'n' },
	{ "mode", required_argument, NULL, 'm' },
	{ "parallel", required_argument, NULL, 'p' },
	{ "out", required_argument, NULL, 'o' },
	{ "initrd", required_argument, NULL, 'r' },
	{ "append", required_argument, NULL, 'a' },
	{ "lab", required_argument, NULL, 'l' },
	{ "print-job", no_argument, NULL, 'P' },
	{ "console", required_argument, NULL, 'c' },
	{ "perf", required_argument, NULL, 'f' },
	{ "perf2", required_argument, NULL, 'F' },
	{ "perf-runs", required_argument, NULL, 'R' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* What the options say besides the run's own settings (struct run). */
struct options {
	const char *board, *lab;
	bool print_job;
	bool parallel_given, perf_runs_given;
};

/*
 * The settings before any option: 3 boots of each image, as many at once as cores (in a
 * job of bootgated, the cores the daemon gave it).
 */
static void run_init(struct run *r)
{
	const char *slots = getenv(BG_BOOT_SLOTS_ENV);
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned long v;

	if (slots && bg_num_parse_ulong(slots, 1, 64, &v) == 0)
		cores = (long)v;
	else if (slots)
		log_warnx("%s='%s' is not a number of cores from 1 to 64: %ld", BG_BOOT_SLOTS_ENV,
			  slots, cores);

	*r = (struct run){ .boots = 3, .parallel = cores > 0 ? (unsigned)cores : 1,
			   .perf_runs = 3 };
}

/* An option whose value is checked (n, p, m, c or R): -1, said, when it is not valid. */
static int parse_checked(int opt, const char *arg, struct run *r, struct options *o)
{
	unsigned long v;

	switch (opt) {
	case 'n':
	case 'p':
		if (bg_num_parse_ulong(arg, 1, opt == 'n' ? 1000 : 64, &v) < 0) {
			log_warnx("--%s: %s", opt == 'n' ? "boots" : "parallel", bg_error_last());
			return -1;
		}
		*(opt == 'n' ? &r->boots : &r->parallel) = (unsigned)v;
		o->parallel_given |= opt == 'p';
		break;
	case 'm':
		if (!strcmp(arg, "deterministic")) {
			r->deterministic = true;
		} else if (strcmp(arg, "timing") != 0) {
			log_warnx("--mode is timing or deterministic, not '%s'", arg);
			return -1;
		}
		break;
	case 'c':
		if (bg_console_parse(arg, &r->console) < 0) {
			log_warnx("--console: %s", bg_error_last());
			return -1;
		}
		break;
	case 'R':
		if (bg_num_parse_ulong(arg, 1, 100, &v) < 0) {
			log_warnx("--perf-runs: %s", bg_error_last());
			return -1;
		}
		r->perf_runs = (unsigned)v;
		o->perf_runs_given = true;
		break;
	}
	return 0;
}

/*
 * Reads the options into r and o: -1 to go on, or the exit code to leave with at once
 * (after --help, or a usage error, said).
 */
static int parse_options(int argc, char **argv, struct run *r, struct options *o)
{
	int opt;

	opterr = 0;     /* a bad option is named once, escaped, below */
	while ((opt = getopt_long(argc, argv, "i:I:b:n:m:p:o:r:a:l:c:f:F:R:h", long_options,
				  NULL)) != -1) {
		switch (opt) {
		case 'i': r->images[0] = optarg; break;
		case 'I': r->images[1] = optarg; break;
		case 'b': o->board = optarg; break;
		case 'o': r->out = optarg; break;
		case 'r': r->initrd = optarg; break;
		case 'a': r->extra = optarg; break;
		case 'l': o->lab = optarg; break;
		case 'P': o->print_job = true; break;
		case 'f': r->perf[0] = optarg; break;
		case 'F': r->perf[1] = optarg; break;
		case 'n': case 'p': case 'm': case 'c': case 'R':
			if (parse_checked(opt, optarg, r, o) < 0)
				return BG_EXIT_USAGE;
			break;
		case 'h': usage(stdout); return BG_EXIT_OK;
		default:
			log_warnx("unknown option, or one without its value: '%s'",
				  argv[optind - 1]);
			usage(stderr);
			return BG_EXIT_USAGE;
		}
	}
	if (!r->images[0] || !o->board || optind < argc) {
		usage(stderr);
		return BG_EXIT_USAGE;
	}
	return -1;
}

/* The options that go together: --perf2 and --perf-runs with --perf, --perf2 with --image2. */
static int check_options(struct run *r, const struct options *o)
{
	if ((o->perf_runs_given || r->perf[1]) && !r->perf[0]) {
		log_warnx("--perf-runs and --perf2 need --perf BIN");
		return -1;
	}
	if (r->perf[1] && !r->images[1]) {
		log_warnx("--perf2 is the perf of --image2");
		return -1;
	}
	if (!r->perf[0])
		r->perf_runs = 0;
	else if (r->images[1] && !r->perf[1])
		r->perf[1] = r->perf[0];
	if (r->parallel > 64)
		r->parallel = 64;
	return 0;
}

/* Each file named: there, readable and a regular file; a perf not empty. */
static int check_files(const struct run *r)
{
	static const char *what[] = { "image", "image", "initrd", "perf", "perf2" };

	for (int s = 0; s < 5; s++) {
		const char *f = s < 2 ? r->images[s] : s == 2 ? r->initrd : r->perf[s - 3];
		struct stat st;

		if (!f)
			continue;
		if (stat(f, &st) < 0 || access(f, R_OK) != 0) {
			log_warn("%s '%s'", what[s], f);
			return -1;
		}
		if (!S_ISREG(st.st_mode)) {
			log_warnx("%s '%s' is not a file", what[s], f);
			return -1;
		}
		if (s >= 3 && st.st_size == 0) {
			log_warnx("%s '%s' is empty: no perf program", what[s], f);
			return -1;
		}
	}
	return 0;
}

/* The board, which must boot in the mode asked (and run perf, with --perf). */
static int load_board(struct run *r, const struct options *o)
{
	if (bg_board_load(o->lab ? o->lab : bg_lab_dir(), o->board, &r->board) < 0 ||
	    bg_board_check_mode(&r->board, r->deterministic) < 0) {
		log_warnx("%s", bg_error_last());
		return -1;
	}
	if (r->perf[0] && bg_board_check_perf(&r->board) < 0) {
		log_warnx("--perf: %s", bg_error_last());
		return -1;
	}
	return 0;
}

/* The initramfs of each image: --initrd or the test init, and the image's perf in it. */
static int make_initrds(struct run *r)
{
	if (!r->initrd) {
		/* the board arch's test init, built once */
		r->made_initrd = initramfs_script("initramfs.sh", r->board.arch, r->board.init_cc);
		if (!r->made_initrd) {
			log_warnx("%s", bg_error_last());
			return -1;
		}
		r->initrd = r->made_initrd;
	}
	r->initrds[0] = r->initrds[1] = r->initrd;
	for (int s = 0; s < 2; s++)
		if (r->perf[s] && !(r->initrds[s] = r->with_perf[s] =
				   initramfs_script("initramfs-perf.sh", r->initrd, r->perf[s]))) {
			log_warnx("%s", bg_error_last());
			return -1;
		}
	return 0;
}

/* What every boot is given: the accelerator, QEMU's arguments, the kernel's command line. */
static void boot_settings(struct run *r, const struct options *o)
{
	r->accel = r->board.type == BG_BOARD_LAVA ? "lava" : pick_accel(&r->board);
	snprintf(r->memory, sizeof(r->memory), "%ld", r->board.memory);
	snprintf(r->icount, sizeof(r->icount), "shift=%ld,sleep=off,align=off",
		 r->board.icount_shift);
	/*
	 * one CPU per socket: without ACPI an x86 kernel learns its CPUs from SeaBIOS's MP
	 * table, which lists only the first CPU of each package (QEMU's -smp 2 is one package
	 * of two cores)
	 */
	snprintf(r->smp, sizeof(r->smp), "%ld,sockets=%ld", r->board.cpus, r->board.cpus);
	/* timing: each boot's vCPUs run on host threads of their own; keep them off each other */
	if (!o->parallel_given && !r->deterministic && r->board.cpus > 1)
		r->parallel = r->parallel / (unsigned)r->board.cpus ?
			      r->parallel / (unsigned)r->board.cpus : 1;
	r->cmdline = bg_board_cmdline(&r->board, r->deterministic, r->console, host_tsc_khz(),
				      r->extra, r->perf[0] ? r->perf_runs : 0);
}

/* The summary of the boots on stdout, and the run's exit code. */
static int summary(const struct run *r, const char *outdir, struct bg_boot_run *res,
		   unsigned execfail)
{
	unsigned failed = 0, infra = 0;
	bool result_lost = false;
	struct bg_json j;

	res->board = xstrdup(r->board.name);
	res->mode = xstrdup(r->deterministic ? "deterministic" : "timing");
	res->console = xstrdup(bg_console_name(r->console));
	res->accel = xstrdup(r->accel);
	res->cmdline = xstrdup(r->cmdline);
	res->out = xstrdup(outdir);
	for (size_t i = 0; i < res->n; i++) {
		failed += res->boots[i].outcome == BG_OUTCOME_PANIC ||
			  res->boots[i].outcome == BG_OUTCOME_HANG;
		infra += res->boots[i].outcome == BG_OUTCOME_INFRA;
	}
	bg_json_init(&j, STDOUT_FILENO, 2);
	bg_boot_run_write(&j, res);
	if (bg_json_finish(&j) < 0) {
		/* nobody will know what the boots said: as a lab failure, worth a retry */
		log_warnx("%s", bg_error_last());
		result_lost = true;
	}
	/* a panic or a hang is the kernel's and decides; a lab failure alone is worth a retry */
	return execfail ? BG_EXIT_EXEC : result_lost ? BG_EXIT_INFRA : failed ? BG_EXIT_FAILED :
	       infra ? BG_EXIT_INFRA : BG_EXIT_OK;
}

/* Every boot, under QEMU or as LAVA jobs, then the summary: the run's exit code. */
static int boot(struct run *r)
{
	struct bg_boot_run res;
	unsigned execfail = 0;
	char *outdir = make_outdir(r);
	int ret;

	if (!outdir)
		return BG_EXIT_INFRA;
	bg_boot_run_init(&res);
	if (r->board.type == BG_BOARD_LAVA) {
		ret = run_lava(r, outdir, &res);
		/* the token or the job refused: no retry helps; the cache full: it may */
		if (ret < 0) {
			log_warnx("%s", bg_error_last());
			ret = ret == BG_LAVA_RUN_CONFIG ? BG_EXIT_USAGE : BG_EXIT_INFRA;
			goto out;
		}
	} else {
		execfail = run_qemu(r, outdir, &res);
	}
	ret = summary(r, outdir, &res, execfail);
out:
	bg_boot_run_release(&res);
	free(outdir);
	return ret;
}

static void run_release(struct run *r)
{
	free(r->cmdline);
	free(r->made_initrd);
	free(r->with_perf[0]);
	free(r->with_perf[1]);
	bg_board_release(&r->board);
}

int main(int argc, char **argv)
{
	struct run r;
	struct options o = { 0 };
	int ret;

	log_init("bootgate-boot", 0);
	run_init(&r);
	ret = parse_options(argc, argv, &r, &o);
	if (ret >= 0)
		return ret;
	if (check_options(&r, &o) < 0 || check_files(&r) < 0 || load_board(&r, &o) < 0) {
		ret = BG_EXIT_USAGE;
		goto out;
	}
	if (make_initrds(&r) < 0) {
		ret = BG_EXIT_INFRA;
		goto out;
	}
	boot_settings(&r, &o);
	ret = o.print_job ? print_lava_job(&r) : boot(&r);
out:
	run_release(&r);
	return ret;
}
