/* Boots as LAVA jobs (lava-run.h). */
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <sys/stat.h>
#include <time.h>

#include "lab/lava-run.h"
#include "lab/lava.h"
#include "util/sha.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/path.h"
#include "util/proc.h"
#include "net/artifacts.h"
#include "util/xmalloc.h"

#define POLL_SECONDS 1.0
#define RETRY_PAUSE 10.0      /* s before the first resubmission; doubles */
#define CANCEL_GRACE 60.0     /* s a cancelled job may take to end */
#define REQUEST_SECONDS 15    /* s one request to the server may take */

enum phase { WAITING, QUEUED, RUNNING, CANCELLING, DONE };

struct job {
	unsigned index;            /* in start order */
	int side;
	unsigned nth;
	enum phase phase;
	unsigned attempt;          /* jobs sent for this boot */
	long id;
	char *url;
	char *log_path;
	FILE *log;
	size_t lines;              /* of the log so far */
	double not_before;         /* a resubmission waits */
	double running, deadline;
	bool unreachable;          /* said once per outage */
	struct bg_lava_console con;
	bool lost;                 /* its log could not be kept whole: no evidence */
	bool log_failing;          /* its log is not answered: said once */
	enum bg_outcome outcome;
	double wall;
};

struct run {
	const struct bg_lava_run *o;
	struct bg_lava srv;
	char sha[3][BG_SHA256_HEX];  /* image A, image B, initramfs */
	char *urls[3];
	struct job *jobs;
	unsigned n;
};

/*
 * Puts file in the store as artifacts/SHA/image, where the artifact server finds it by its
 * hash; a built image is there already. A link when the file system allows, else a copy.
 */
static int publish(const char *cache, const char *file, char sha[BG_SHA256_HEX])
{
	char *dir, *dest, *tmp;
	struct stat st;
	int ret = 0;

	if (bg_sha256_file(file, sha) < 0)
		return -1;
	dir = xasprintf("%s/artifacts/%s", cache, sha);
	dest = bg_path_join(dir, "image");
	if (stat(dest, &st) == 0 && S_ISREG(st.st_mode)) {
		free(dir);
		free(dest);
		return 0;
	}
	tmp = xasprintf("%s.%ld.tmp", dest, (long)getpid());
	unlink(tmp);
	if (bg_mkdirs(dir) < 0 ||
	    (link(file, tmp) < 0 && bg_copy_file(file, tmp) < 0)) {
		ret = -1;
	} else if (rename(tmp, dest) < 0) {
		ret = bg_error_errno("cannot store '%s'", dest);
		unlink(tmp);
	}
	free(tmp);
	free(dest);
	free(dir);
	return ret;
}

/* The pause before a boot's next job: RETRY_PAUSE, doubled with each job sent. */
static double retry_pause(const struct job *j)
{
	return RETRY_PAUSE * (double)(1u << (j->attempt - 1));
}

static long minutes(double seconds)
{
	return (long)ceil(seconds / 60.0);
}

/* The job of a boot: the template with this boot's values. */
static int render(struct run *r, const struct job *j, struct bg_strbuf *out)
{
	const struct bg_board *b = r->o->board;
	double boot = bg_board_boot_seconds(b, r->o->deterministic);
	char name[160], jobmin[32], bootmin[32], qemu[96] = "";
	const char *kernel_url = r->urls[j->side], *kernel_sha = r->sha[j->side];

	snprintf(name, sizeof(name), "bootgate %s %.12s boot %u%s", b->name, kernel_sha, j->nth,
		 r->o->deterministic ? " deterministic" : "");
	/* LAVA's own steps (download, deploy) get five minutes beside the boot */
	snprintf(jobmin, sizeof(jobmin), "%ld", minutes(boot + (double)b->exit_timeout) + 5);
	snprintf(bootmin, sizeof(bootmin), "%ld", minutes(boot));
	if (r->o->deterministic)
		snprintf(qemu, sizeof(qemu), "-icount shift=%ld,sleep=off,align=off -rtc clock=vm",
			 b->icount_shift);
	{
		const struct bg_lava_var vars[] = {
			{ "DEVICE_TYPE", b->lava.device_type },
			{ "JOB_NAME", name },
			{ "JOB_MINUTES", jobmin },
			{ "BOOT_MINUTES", bootmin },
			{ "CMDLINE", r->o->cmdline },
			{ "QEMU_ARGS", qemu },
			{ "KERNEL_URL", kernel_url },
			{ "KERNEL_SHA256", kernel_sha },
			{ "RAMDISK_URL", r->urls[2] },
			{ "RAMDISK_SHA256", r->sha[2] },
			{ "MARKER", BG_USERSPACE_MARKER },
			{ "ARTIFACT_URL", b->lava.artifact_url },
		};

		return bg_lava_render(b, vars, sizeof(vars) / sizeof(*vars), out);
	}
}

/* 0, BG_LAVA_RUN_CONFIG (a command line QEMU would misread) or BG_LAVA_RUN_MACHINE. */
static int prepare(struct run *r, const struct bg_lava_run *o)
{
	const char *files[3] = { o->images[0], o->images[1], o->initrd };

	memset(r, 0, sizeof(*r));
	r->o = o;
	/*
	 * the QEMU templates put it inside -append "..." on the worker's QEMU command line:
	 * a quote there would end the argument and let the rest become QEMU options
	 */
	for (const char *p = o->cmdline; *p; p++)
		if (*p == '"' || *p == '\\' || (unsigned char)*p < ' ' || *p == 0x7f) {
			bg_error("the kernel command line of a LAVA job may not hold a quote, a "
				 "backslash or a control character");
			return BG_LAVA_RUN_CONFIG;
		}
	for (int i = 0; i < 3; i++) {
		if (!files[i])
			continue;
		if (publish(o->cache, files[i], r->sha[i]) < 0) {
			bg_error("cannot put '%s' where the artifact server serves it: %s",
				 files[i], bg_error_last());
			return BG_LAVA_RUN_MACHINE;
		}
		r->urls[i] = bg_artifacts_url(o->board->lava.artifact_url, r->sha[i]);
	}
	return 0;
}

static void release(struct run *r)
{
	for (int i = 0; i < 3; i++)
		free(r->urls[i]);
	for (unsigned i = 0; i < r->n; i++) {
		free(r->jobs[i].url);
		free(r->jobs[i].log_path);
		if (r->jobs[i].log)
			fclose(r->jobs[i].log);
	}
	free(r->jobs);
	bg_lava_close(&r->srv);
}

int bg_lava_run_print(const struct bg_lava_run *o, struct bg_strbuf *job)
{
	struct run r;
	struct job j = { 0 };
	int ret = -1;

	if (prepare(&r, o) == 0)
		ret = render(&r, &j, job);
	release(&r);
	return ret;
}

/* "2026-11-29T23:22:46.608606" (the lab's clock, UTC) as seconds since the epoch. */
static double dt_seconds(const char *line)
{
	const char *p = strstr(line, "\"dt\": \"");
	struct tm tm = { 0 };
	double s;

	if (!p || sscanf(p + 7, "%4d-%2d-%2dT%2d:%2d:%lf", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
			 &tm.tm_hour, &tm.tm_min, &s) != 6 || !(s >= 0 && s < 61))
		return NAN;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	return (double)timegm(&tm) + s;
}

/* What a new log line says about the boot: only the console counts. */
static void scan_line(struct bg_lava_console *c, const char *line)
{
	if (!strstr(line, "\"lvl\": \"target\"") && !strstr(line, "\"lvl\": \"feedback\""))
		return;
	if (isnan(c->first_dt))
		c->first_dt = dt_seconds(line);
	if (strstr(line, "Linux version"))
		c->kernel = true;
	if (!c->marker && strstr(line, BG_USERSPACE_MARKER)) {
		c->marker = true;
		c->marker_dt = dt_seconds(line);
	}
	if (strstr(line, BG_PANIC_MARKER))
		c->panic = true;
}

void bg_lava_console_init(struct bg_lava_console *c)
{
	memset(c, 0, sizeof(*c));
	c->first_dt = c->marker_dt = NAN;
}

double bg_lava_console_userspace(const struct bg_lava_console *c)
{
	if (!c->marker || isnan(c->marker_dt) || isnan(c->first_dt))
		return NAN;
	/* a lab's clock stepped back between the two lines measured no time at all */
	if (c->marker_dt < c->first_dt)
		return NAN;
	return c->marker_dt - c->first_dt;
}

void bg_lava_console_scan(struct bg_lava_console *c, char *lines, size_t len)
{
	char *end = lines + len, *next;

	for (char *line = lines; line < end; line = next + 1) {
		/* a NUL inside a line ends what scan_line sees of it, nothing more */
		if (!(next = memchr(line, '\n', (size_t)(end - line))))
			break;
		*next = '\0';
		scan_line(c, line);
	}
}

/*
 * Fetches the log's next lines into the file: how many, or -1 when the server did not
 * answer. An answer of another shape (one past the size cap) loses the log: the boot can
 * prove nothing then.
 */
static long follow_log(struct run *r, struct job *j, bool finished)
{
	struct bg_strbuf chunk = BG_STRBUF_INIT;
	size_t lines;
	enum bg_lava_rc rc = bg_lava_log(&r->srv, j->id, j->lines, finished, &chunk, &lines);

	if (rc != BG_LAVA_OK) {
		/* else a boot judged on a log that never came would not say why */
		if (!j->log_failing)
			log_warnx("boot %u: job %s: its log: %s", j->index, j->url, bg_error_last());
		j->log_failing = true;
		/* an answer of another shape (past the size cap) will not come right */
		if (rc == BG_LAVA_ANSWER)
			j->lost = true;
		bg_strbuf_release(&chunk);
		return -1;
	}
	j->log_failing = false;
	if ((chunk.len && fwrite(chunk.buf, 1, chunk.len, j->log) != chunk.len) ||
	    fflush(j->log) != 0) {
		log_warn("cannot write '%s'", j->log_path);
		j->lost = true;
	}
	j->lines += lines;
	bg_lava_console_scan(&j->con, chunk.buf, chunk.len);
	bg_strbuf_release(&chunk);
	return (long)lines;
}

static int start_log(struct job *j)
{
	if (j->log)
		fclose(j->log);
	if (j->attempt > 0) {
		/* the attempts the lab failed stay beside the boot's log */
		char *old = xasprintf("%s.attempt-%u", j->log_path, j->attempt);

		if (rename(j->log_path, old) < 0 && errno != ENOENT)
			log_warn("boot %u: cannot keep '%s' as '%s'", j->index, j->log_path, old);
		free(old);
	}
	j->lines = 0;
	j->lost = false;
	bg_lava_console_init(&j->con);
	if (!(j->log = fopen(j->log_path, "wb")))
		return bg_error_errno("cannot write '%s'", j->log_path);
	return 0;
}

/*
 * 0 sent, 1 to try again later; BG_LAVA_RUN_CONFIG (the job or the token refused) or
 * BG_LAVA_RUN_MACHINE (its log cannot be written) end the run.
 */
static int submit(struct run *r, struct job *j)
{
	struct bg_strbuf job = BG_STRBUF_INIT;
	enum bg_lava_rc rc;

	if (render(r, j, &job) < 0) {
		bg_strbuf_release(&job);
		return BG_LAVA_RUN_CONFIG;
	}
	if (start_log(j) < 0) {
		bg_strbuf_release(&job);
		return BG_LAVA_RUN_MACHINE;
	}
	rc = bg_lava_submit(&r->srv, job.buf, &j->id);
	bg_strbuf_release(&job);
	if (rc == BG_LAVA_REFUSED || rc == BG_LAVA_INVALID)
		return BG_LAVA_RUN_CONFIG;
	j->attempt++;
	if (rc != BG_LAVA_OK) {
		log_warnx("boot %u: cannot send its job: %s", j->index, bg_error_last());
		return 1;
	}
	free(j->url);
	j->url = bg_lava_job_url(&r->srv, j->id);
	j->phase = QUEUED;
	j->deadline = bg_now() + (double)r->o->board->lava.queue_timeout;
	log_info("boot %u (%c%u): job %s", j->index, 'A' + j->side, j->nth, j->url);
	return 0;
}

/* The boot's outcome once its job is over, from what its console said. */
static void judge(struct job *j)
{
	if (j->lost)
		j->outcome = BG_OUTCOME_INFRA;
	else if (j->con.marker)
		j->outcome = BG_OUTCOME_COMPLETE;
	else if (j->con.panic)
		j->outcome = BG_OUTCOME_PANIC;
	else if (j->con.kernel)
		j->outcome = BG_OUTCOME_HANG;    /* the kernel spoke, and never reached init */
	else
		j->outcome = BG_OUTCOME_INFRA;   /* no kernel spoke: the lab failed */
}

static void finish(struct run *r, struct job *j)
{
	unsigned retries = (unsigned)r->o->board->lava.retries;

	/* the rest of the log, in as many answers as it takes */
	while (follow_log(r, j, true) > 0)
		;
	judge(j);
	j->wall = j->running > 0 ? bg_now() - j->running : 0;
	if (j->outcome == BG_OUTCOME_INFRA && j->attempt <= retries) {
		double pause = retry_pause(j);

		log_warnx("boot %u: job %s: the lab failed (no kernel spoke); again in %.0f s "
			  "(%u of %u)", j->index, j->url, pause, j->attempt, retries);
		j->phase = WAITING;
		j->not_before = bg_now() + pause;
		j->running = 0;
		return;
	}
	j->phase = DONE;
	log_info("boot %u (%c%u) %s on %s in %.1f s", j->index, 'A' + j->side, j->nth,
		 bg_outcome_name(j->outcome), j->url, j->wall);
}

static void cancel(struct run *r, struct job *j, const char *why)
{
	log_warnx("boot %u: job %s %s: cancelling it", j->index, j->url, why);
	if (bg_lava_cancel(&r->srv, j->id) != BG_LAVA_OK)
		log_warnx("boot %u: %s", j->index, bg_error_last());
	j->phase = CANCELLING;
	j->deadline = bg_now() + CANCEL_GRACE;
}

/* One look at a job in flight. */
static void poll_job(struct run *r, struct job *j)
{
	const struct bg_board *b = r->o->board;
	struct bg_lava_job st;
	double now = bg_now();
	enum bg_lava_rc rc = bg_lava_status(&r->srv, j->id, &st);

	if (rc != BG_LAVA_OK) {
		if (!j->unreachable)
			log_warnx("boot %u: job %s: %s; waiting for the server", j->index, j->url,
				  bg_error_last());
		j->unreachable = true;
	} else {
		if (j->unreachable)
			log_info("boot %u: the server answers again", j->index);
		j->unreachable = false;
		if (j->phase == QUEUED && (!strcmp(st.state, "Running") ||
					   !strcmp(st.state, "Finished"))) {
			j->phase = RUNNING;
			j->running = now;
			j->deadline = now + bg_board_boot_seconds(b, r->o->deterministic) +
				      (double)b->exit_timeout;
		}
		if (j->phase != QUEUED)
			follow_log(r, j, false);
		if (!strcmp(st.state, "Finished")) {
			finish(r, j);
			return;
		}
	}
	if (now < j->deadline)
		return;
	if (j->phase == CANCELLING) {
		/* the server never said it ended: judge what came */
		log_warnx("boot %u: job %s did not end after it was cancelled", j->index, j->url);
		j->attempt = UINT_MAX / 2;   /* no resubmission of a job that may still run */
		finish(r, j);
	} else {
		cancel(r, j, j->phase == QUEUED ? "waited too long for a device" :
			     "ran past the board's timeout");
	}
}

static void cancel_all(struct run *r)
{
	for (unsigned i = 0; i < r->n; i++)
		if (r->jobs[i].phase == QUEUED || r->jobs[i].phase == RUNNING)
			bg_lava_cancel(&r->srv, r->jobs[i].id);
}

int bg_lava_run_boots(const struct bg_lava_run *o, struct bg_boot_run *res)
{
	const struct bg_lava_board *l = &o->board->lava;
	unsigned sides = o->images[1] ? 2 : 1, done = 0;
	unsigned limit = o->parallel < (unsigned)l->limit ? o->parallel : (unsigned)l->limit;
	struct run r;
	enum bg_lava_rc rc;
	int ret;

	if ((ret = prepare(&r, o)) < 0)
		goto out;
	ret = BG_LAVA_RUN_CONFIG;
	if (bg_lava_open(l, &r.srv) < 0)
		goto out;
	/* jobs are followed one after another: one silent answer must not hold them all */
	r.srv.timeout = REQUEST_SECONDS;
	/*
	 * a wrong token is said before any job, not after the first boot's wait; a server
	 * that does not answer is the lab's failure, worth a retry, not the configuration's
	 */
	rc = bg_lava_whoami(&r.srv);
	if (rc != BG_LAVA_OK && rc != BG_LAVA_UNREACHABLE) {
		bg_error("LAVA: %s", bg_error_last());
		goto out;
	}
	if (rc == BG_LAVA_UNREACHABLE)
		log_warnx("LAVA: %s: every boot is the lab's failure", bg_error_last());
	r.n = o->boots * sides;
	r.jobs = xcalloc(r.n, sizeof(*r.jobs));
	for (unsigned i = 0; i < r.n; i++) {
		struct job *j = &r.jobs[i];

		j->index = i;
		j->side = (int)(i % sides);
		j->nth = i / sides;
		j->log_path = xasprintf("%s/boot-%03u-%c.log", o->out, i, 'A' + j->side);
		bg_lava_console_init(&j->con);
		if (rc == BG_LAVA_UNREACHABLE) {
			j->phase = DONE;
			j->outcome = BG_OUTCOME_INFRA;
			done++;
		}
	}
	log_info("%u boot%s on %s (%s, device type %s), %u at a time; logs in %s", r.n,
		 r.n == 1 ? "" : "s", o->board->name, l->url, l->device_type, limit, o->out);
	while (done < r.n) {
		unsigned inflight = 0;
		double now = bg_now();

		for (unsigned i = 0; i < r.n; i++)
			inflight += r.jobs[i].phase == QUEUED || r.jobs[i].phase == RUNNING ||
				    r.jobs[i].phase == CANCELLING;
		for (unsigned i = 0; i < r.n && inflight < limit; i++) {
			struct job *j = &r.jobs[i];
			int s;

			if (j->phase != WAITING || now < j->not_before)
				continue;
			if ((s = submit(&r, j)) < 0) {
				/* kept aside: a refused cancel would put its own words in its place */
				char *why = xstrdup(bg_error_last());

				cancel_all(&r);
				bg_error("LAVA: %s", why);
				free(why);
				ret = s;
				goto out;
			}
			if (s > 0) {
				/* the server did not take it: later, unless retries are spent */
				if (j->attempt > (unsigned)l->retries) {
					j->phase = DONE;
					j->outcome = BG_OUTCOME_INFRA;
					done++;
				} else {
					j->not_before = now + retry_pause(j);
				}
				continue;
			}
			inflight++;
		}
		for (unsigned i = 0; i < r.n; i++) {
			struct job *j = &r.jobs[i];

			if (j->phase != QUEUED && j->phase != RUNNING && j->phase != CANCELLING)
				continue;
			poll_job(&r, j);
			done += j->phase == DONE;
		}
		if (done < r.n) {
			struct timespec ts = { (time_t)POLL_SECONDS, 0 };

			nanosleep(&ts, NULL);
		}
	}
	bg_boot_run_init(res);
	for (unsigned i = 0; i < r.n; i++) {
		struct job *j = &r.jobs[i];
		struct bg_boot_record *rec;

		if (j->log && fclose(j->log) != 0)
			j->outcome = BG_OUTCOME_INFRA;   /* a console not kept whole proves nothing */
		j->log = NULL;
		rec = bg_boot_run_add(res, j->side, o->images[j->side], j->outcome, j->log_path);
		rec->wall_seconds = j->wall;
		rec->userspace_wall_seconds = bg_lava_console_userspace(&j->con);
		rec->job_url = j->url ? xstrdup(j->url) : NULL;
	}
	ret = 0;
out:
	release(&r);
	return ret;
}
