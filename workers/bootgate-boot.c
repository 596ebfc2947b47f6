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

#include "board.h"
#include "fs.h"
#include "bootlog.h"
#include "bootlog-json.h"
#include "error.h"
#include "json.h"
#include "log.h"
#include "proc.h"
#include "strbuf.h"
#include "xmalloc.h"

#define EXIT_OK 0
#define EXIT_FAILED 1
#define EXIT_USAGE 2
#define EXIT_INFRA 111
#define EXIT_EXEC 127

enum outcome { OUT_COMPLETE, OUT_PANIC, OUT_HANG, OUT_INFRA };

static const char *outcome_name[] = { "complete", "panic", "hang", "infra" };

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
	bool hup;                  /* the console closed: only the exit is left to wait for */
	int qemu_exit;
	enum outcome outcome;
	double wall, marker_wall;
	unsigned long lines;
};

struct run {
	struct bg_board board;
	const char *images[2];
	const char *initrd;
	const char *out;
	const char *extra;
	unsigned boots, parallel;
	bool deterministic;
	const char *accel;
	char cmdline[4096];
	char memory[32], icount[64];   /* QEMU arguments made once */
};

static void usage(void)
{
	fprintf(stderr,
		"usage: bootgate-boot --image IMG [--image2 IMG] --board NAME [--boots N]\n"
		"                     [--mode timing|deterministic] [--parallel N] [--out DIR]\n"
		"                     [--initrd CPIO] [--append ARGS] [--lab DIR]\n"
		"\nBoots IMG (and IMG2, interleaved) N times each (3) on a QEMU board of\n"
		"lab-configs/boards/. timing: wall clock, statistics decide. deterministic:\n"
		"-icount, guest time counts instructions, so code-path changes read the same in\n"
		"every boot. Writes each console, its host timestamps and its parsed result to\n"
		"DIR (a new directory under $BOOTGATE_CACHE/boots by default); prints a JSON summary.\n"
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

static void build_cmdline(struct run *r)
{
	struct bg_strbuf sb = BG_STRBUF_INIT;
	const char *t = r->board.timing_cmdline;

	bg_strbuf_addstr(&sb, r->board.cmdline);
	if (!r->deterministic && t && *t) {
		const char *at = strstr(t, "@HOST_TSC_KHZ@");

		bg_strbuf_addch(&sb, ' ');
		if (at) {
			bg_strbuf_add(&sb, t, (size_t)(at - t));
			bg_strbuf_addf(&sb, "%ld", host_tsc_khz());
			bg_strbuf_addstr(&sb, at + strlen("@HOST_TSC_KHZ@"));
		} else {
			bg_strbuf_addstr(&sb, t);
		}
	}
	if (r->board.poweroff == BG_REBOOT)
		bg_strbuf_addstr(&sb, " bootgate.reboot=1");
	if (r->extra && *r->extra)
		bg_strbuf_addf(&sb, " %s", r->extra);
	snprintf(r->cmdline, sizeof(r->cmdline), "%s", sb.buf);
	bg_strbuf_release(&sb);
}

static char **qemu_argv(const struct run *r, const char *image)
{
	char **v = NULL;
	size_t n = 0, alloc = 0;

#define ADD(s) do { ALLOC_GROW(v, n + 1, alloc); v[n++] = (char *)(s); } while (0)
	ADD(r->board.qemu);
	ADD("-accel");
	ADD(r->accel);
	ADD("-M");
	ADD(r->board.machine);
	if (*r->board.cpu) {
		ADD("-cpu");
		ADD(r->board.cpu);
	}
	ADD("-m");
	ADD(r->memory);
	for (size_t i = 0; i < r->board.nqemu_args; i++)
		ADD(r->board.qemu_args[i]);
	ADD("-kernel");
	ADD(image);
	ADD("-initrd");
	ADD(r->initrd);
	ADD("-append");
	ADD(r->cmdline);
	if (r->deterministic) {
		ADD("-icount");
		ADD(r->icount);
		ADD("-rtc");
		ADD("clock=vm");
	}
	ADD(NULL);
#undef ADD
	return v;
}

static int start_boot(struct run *r, struct boot *b)
{
	char **argv = qemu_argv(r, r->images[b->side]);
	char *times = xasprintf("%s.times", b->log_path);
	char *err = xasprintf("%s.qemu-stderr", b->log_path);
	struct bg_proc_opts o = { argv, NULL, NULL, -1, BG_PROC_PIPE, -1 };
	int errfd = open(err, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	int ret;

	b->log = fopen(b->log_path, "wb");
	b->times = fopen(times, "w");
	if (!b->log || !b->times || errfd < 0) {
		ret = bg_error_errno("cannot write '%s'", b->log_path);
		goto out;
	}
	o.err_fd = errfd;
	ret = bg_proc_start(&b->proc, &o);
	if (ret < 0) {
		b->exec_failed = true;
		b->done = true;
		b->outcome = OUT_INFRA;
		goto out;
	}
	fcntl(b->proc.out, F_SETFL, O_NONBLOCK);
	b->running = true;
	b->deadline = bg_now() + (double)r->board.boot_timeout * (r->deterministic ? 4 : 1);
out:
	if (errfd >= 0)
		close(errfd);
	free(times);
	free(err);
	free(argv);
	return ret;
}

/* One line of console: note when it came, and watch for the marker and a panic. */
static void console_line(struct run *r, struct boot *b)
{
	double t = bg_now() - b->proc.started;

	(void)r;
	b->lines++;
	fprintf(b->times, "%.6f %lu\n", t, b->lines);
	if (!b->marker && strstr(b->line.buf, BG_USERSPACE_MARKER)) {
		b->marker = true;
		b->marker_wall = t;
		/* the init powers off next; give QEMU time to exit on its own */
		b->deadline = bg_now() + (double)r->board.exit_timeout;
	}
	if (strstr(b->line.buf, "Kernel panic - not syncing"))
		b->panic = true;
}

static void read_console(struct run *r, struct boot *b)
{
	char buf[65536];
	ssize_t n;

	while ((n = read(b->proc.out, buf, sizeof(buf))) > 0) {
		fwrite(buf, 1, (size_t)n, b->log);
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

	if (killed)
		bg_proc_kill(&b->proc, &res);
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
	fclose(b->log);
	fclose(b->times);
	b->log = b->times = NULL;
	if (b->marker)
		b->outcome = OUT_COMPLETE;
	else if (b->panic)
		b->outcome = OUT_PANIC;
	else if (!killed && (b->lines == 0 || res.exit_code))
		b->outcome = OUT_INFRA;   /* QEMU stopped without the kernel saying a word */
	else
		b->outcome = OUT_HANG;    /* killed at the timeout, or the kernel fell silent */
	fprintf(stderr, "bootgate-boot: boot %u (%c%u) %s in %.1f s%s\n", b->index,
		'A' + b->side, b->nth, outcome_name[b->outcome], b->wall,
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

int main(int argc, char **argv)
{
	static const struct option opts[] = {
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
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct run r = { 0 };
	const char *board = NULL, *lab = NULL, *cache;
	struct boot *boots;
	unsigned n, sides, complete = 0, failed = 0, infra = 0, execfail = 0;
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	char outdir[PATH_MAX], initrd[PATH_MAX];
	struct bg_json j;
	int opt;

	log_init("bootgate-boot", 0);
	r.boots = 3;
	r.parallel = cores > 0 ? (unsigned)cores : 1;
	while ((opt = getopt_long(argc, argv, "i:I:b:n:m:p:o:r:a:l:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'i': r.images[0] = optarg; break;
		case 'I': r.images[1] = optarg; break;
		case 'b': board = optarg; break;
		case 'n': r.boots = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'm':
			if (!strcmp(optarg, "deterministic"))
				r.deterministic = true;
			else if (strcmp(optarg, "timing") != 0) {
				usage();
				return EXIT_USAGE;
			}
			break;
		case 'p': r.parallel = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'o': r.out = optarg; break;
		case 'r': r.initrd = optarg; break;
		case 'a': r.extra = optarg; break;
		case 'l': lab = optarg; break;
		case 'h': usage(); return 0;
		default: usage(); return EXIT_USAGE;
		}
	}
	if (!r.images[0] || !board || !r.boots || r.boots > 1000 || !r.parallel ||
	    r.parallel > 64 || optind < argc) {
		usage();
		return EXIT_USAGE;
	}
	for (int s = 0; s < 2; s++)
		if (r.images[s] && access(r.images[s], R_OK) != 0) {
			log_warn("image '%s'", r.images[s]);
			return EXIT_USAGE;
		}
	if (bg_board_load(lab ? lab : bg_lab_dir(), board, &r.board) < 0) {
		log_warnx("%s", bg_error_last());
		return EXIT_USAGE;
	}
	cache = getenv("BOOTGATE_CACHE") ? getenv("BOOTGATE_CACHE") : "/var/cache/bootgate";
	if (!r.initrd) {
		/* the test initramfs of this arch, built once by scripts/initramfs.sh */
		const char *script = bg_project_file("scripts/initramfs.sh");
		char *args[] = { "sh", (char *)script, (char *)r.board.arch, (char *)r.board.init_cc,
				 NULL };
		struct bg_proc_opts o = { args, NULL, NULL, -1, -1, -1 };
		struct bg_proc_result res;
		char *path = NULL;

		if (!script) {
			log_warnx("scripts/initramfs.sh not found near this program: give --initrd");
			return EXIT_INFRA;
		}
		if (bg_proc_capture(&o, 600, sizeof(initrd) - 1, &path, &res) < 0 || res.exit_code ||
		    !*path) {
			log_warnx("cannot build the test initramfs for %s (%s)", r.board.arch, script);
			free(path);
			return EXIT_INFRA;
		}
		snprintf(initrd, sizeof(initrd), "%.*s", (int)strcspn(path, "\n"), path);
		free(path);
		r.initrd = initrd;
	}
	if (r.out) {
		snprintf(outdir, sizeof(outdir), "%s", r.out);
	} else {
		char tmpl[PATH_MAX];

		snprintf(tmpl, sizeof(tmpl), "%s/boots", cache);
		bg_mkdirs(tmpl);
		snprintf(outdir, sizeof(outdir), "%s/boots/run.XXXXXX", cache);
		if (!mkdtemp(outdir)) {
			log_warn("cannot create '%s'", outdir);
			return EXIT_INFRA;
		}
	}
	if (bg_mkdirs(outdir) < 0) {
		log_warnx("%s", bg_error_last());
		return EXIT_INFRA;
	}
	r.accel = pick_accel(&r.board);
	snprintf(r.memory, sizeof(r.memory), "%ld", r.board.memory);
	snprintf(r.icount, sizeof(r.icount), "shift=%ld,sleep=off,align=off", r.board.icount_shift);
	build_cmdline(&r);
	sides = r.images[1] ? 2 : 1;
	n = r.boots * sides;
	boots = xcalloc(n, sizeof(*boots));
	for (unsigned i = 0; i < n; i++) {
		struct boot *b = &boots[i];

		/* A B A B ...: the host's drift falls on both sides alike */
		b->index = i;
		b->side = (int)(i % sides);
		b->nth = i / sides;
		b->log_path = xasprintf("%s/boot-%03u-%c.log", outdir, i, 'A' + b->side);
		bg_strbuf_init(&b->line, 0);
	}
	fprintf(stderr, "bootgate-boot: %u boot%s on %s (%s, %s mode), %u at a time; logs in %s\n",
		n, n == 1 ? "" : "s", r.board.name, r.accel,
		r.deterministic ? "deterministic" : "timing", r.parallel, outdir);
	run_boots(&r, boots, n);

	bg_json_init(&j, STDOUT_FILENO, 2);
	bg_json_object_begin(&j);
	bg_json_key(&j, "board");
	bg_json_str(&j, r.board.name);
	bg_json_key(&j, "mode");
	bg_json_str(&j, r.deterministic ? "deterministic" : "timing");
	bg_json_key(&j, "accel");
	bg_json_str(&j, r.accel);
	bg_json_key(&j, "cmdline");
	bg_json_str(&j, r.cmdline);
	bg_json_key(&j, "out");
	bg_json_str(&j, outdir);
	bg_json_key(&j, "boots");
	bg_json_array_begin(&j);
	for (unsigned i = 0; i < n; i++) {
		struct boot *b = &boots[i];
		struct bg_json pj;
		struct parsed p = { &pj, b->log_path, 0 };
		struct bg_bootlog *log;
		char *json_path = xasprintf("%s.json", b->log_path);
		FILE *f;

		complete += b->outcome == OUT_COMPLETE;
		failed += b->outcome == OUT_PANIC || b->outcome == OUT_HANG;
		infra += b->outcome == OUT_INFRA;
		execfail += b->exec_failed;
		/* the parsed boot, kept beside its console */
		bg_json_init(&pj, -1, 0);
		log = bg_bootlog_new(b->log_path, write_boot, &p);
		bg_bootlog_parse_path(log, b->log_path);
		bg_bootlog_free(log);
		if ((f = fopen(json_path, "w"))) {
			fprintf(f, "%s\n", pj.out.buf);
			fclose(f);
		}
		bg_json_object_begin(&j);
		bg_json_key(&j, "image");
		bg_json_str(&j, b->side ? "B" : "A");
		bg_json_key(&j, "path");
		bg_json_str(&j, r.images[b->side]);
		bg_json_key(&j, "outcome");
		bg_json_str(&j, outcome_name[b->outcome]);
		bg_json_key(&j, "wall_seconds");
		bg_json_double(&j, b->wall);
		bg_json_key(&j, "userspace_wall_seconds");
		if (b->marker)
			bg_json_double(&j, b->marker_wall);
		else
			bg_json_null(&j);
		bg_json_key(&j, "log");
		bg_json_str(&j, b->log_path);
		bg_json_key(&j, "parsed");
		bg_json_str(&j, json_path);
		bg_json_object_end(&j);
		bg_strbuf_release(&pj.out);
		bg_strbuf_release(&b->line);
		free(json_path);
		free(b->log_path);
	}
	bg_json_array_end(&j);
	bg_json_object_end(&j);
	bg_json_finish(&j);
	free(boots);
	bg_board_release(&r.board);
	if (execfail)
		return EXIT_EXEC;
	if (failed)
		return EXIT_FAILED;
	if (infra)
		return EXIT_INFRA;
	return EXIT_OK;
}
