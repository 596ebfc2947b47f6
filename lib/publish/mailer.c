/* Outbox rows into mails, mails into SMTP (mailer.h): the store's side of the reports. */
#include <math.h>

#include "publish/mailer.h"
#include "decide/stats.h"
#include "decide/verdict.h"
#include "conf/board.h"
#include "net/git.h"
#include "util/json-read.h"
#include "lab/record.h"
#include "net/smtp.h"
#include "lab/workers.h"
#include "parse/bootlog.h"
#include "parse/metrics.h"
#include "report/mail.h"
#include "util/error.h"
#include "util/path.h"
#include "util/secret.h"
#include "util/strbuf.h"
#include "util/strvec.h"
#include "util/xmalloc.h"

/* Boots read per side for the figures: as many as a timing confirmation makes. */
#define FIGURE_BOOTS 64
#define PASSWORD_MAX 4096

/* ---- rows ---- */

#define ROW_MAX 16
struct row {
	char *v[ROW_MAX];
	bool got;
};

static int take_row(const struct bg_store_row *r, void *data)
{
	struct row *t = data;

	for (int i = 0; i < bg_row_columns(r) && i < ROW_MAX; i++)
		t->v[i] = bg_row_null(r, i) ? NULL : xstrdup(bg_row_text(r, i));
	t->got = true;
	return 1;
}

/* Each row's first column into a strvec: the LAVA job URLs of a report's boots. */
static int take_url(const struct bg_store_row *r, void *data)
{
	bg_strvec_push(data, bg_row_text(r, 0));
	return 0;
}

static void row_release(struct row *t)
{
	for (int i = 0; i < ROW_MAX; i++)
		free(t->v[i]);
	memset(t, 0, sizeof(*t));
}

static int add_id(const struct bg_store_row *r, void *data)
{
	struct { int64_t *v; size_t n, alloc; } *ids = data;

	ALLOC_GROW(ids->v, ids->n + 1, ids->alloc);
	ids->v[ids->n++] = bg_row_int(r, 0);
	return 0;
}

/* ---- what the boots say ---- */

struct side {
	struct bg_sample_set set;
	char *console;          /* the first complete boot's */
};

static int load_side(struct bg_store *s, const char *commit, const char *board,
		     const char *mode, const char *console, struct side *out)
{
	struct { int64_t *v; size_t n, alloc; } ids = { NULL, 0, 0 };
	char *image = NULL;
	int ret = -1;

	bg_sample_set_init(&out->set);
	out->console = NULL;
	if (bg_store_text(s, &image, "SELECT image_sha256 FROM builds WHERE commit_sha = ? AND "
			  "board = ? AND status = 'built' AND image_sha256 IS NOT NULL ORDER BY "
			  "id DESC LIMIT 1", "ss", commit, board) < 0)
		return -1;
	if (!image)
		return 0;
	if (bg_store_query(s, add_id, &ids, "SELECT id FROM boots WHERE image_sha256 = ? AND "
			   "board = ? AND mode = ? AND console_mode = ? AND outcome = 'complete' "
			   "ORDER BY id LIMIT ?", "ssssi", image, board, mode, console,
			   (int64_t)FIGURE_BOOTS) < 0 ||
	    bg_store_text(s, &out->console, "SELECT console FROM boots WHERE image_sha256 = ? "
			  "AND board = ? AND outcome = 'complete' AND console IS NOT NULL ORDER BY "
			  "mode = ? DESC, console_mode = ? DESC, id LIMIT 1", "ssss", image, board,
			  mode, console) < 0)
		goto out;
	for (size_t i = 0; i < ids.n; i++)
		bg_record_load_boot(s, ids.v[i], &out->set);
	ret = 0;
out:
	free(ids.v);
	free(image);
	return ret;
}

static void side_release(struct side *x)
{
	bg_sample_set_release(&x->set);
	free(x->console);
}

struct find_line {
	const char *metric;
	char *line;
	bool done;
};

static void on_metric(const char *metric, int64_t usecs, const char *line, void *data)
{
	struct find_line *f = data;

	(void)usecs;
	if (!f->line && line && !strcmp(metric, f->metric))
		f->line = xstrdup(line);
}

static int on_boot(const struct bg_boot *b, void *data)
{
	struct find_line *f = data;

	if (f->done)
		return 0;
	f->done = true;
	bg_boot_metrics(b, on_metric, f);
	return 1;
}

/* The kernel's own line for metric in the first boot of a console log, or NULL. */
static char *kernel_line(const char *console, const char *metric)
{
	struct find_line f = { metric, NULL, false };
	struct bg_bootlog *p;

	if (!console || !metric || access(console, R_OK) != 0)
		return NULL;
	p = bg_bootlog_new(console, on_boot, &f);
	bg_bootlog_keep_lines(p, true);
	bg_bootlog_parse_path(p, console);
	bg_bootlog_free(p);
	return f.line;
}

/* Figures and lines of metric from the boots of two commits, when the store has them. */
static void measure(struct bg_store *s, const struct bg_compare_config *cfg, const char *base,
		    const char *cand, const char *board, const char *mode, const char *console,
		    const char *metric, struct bg_mail_figures *fig, char **before, char **after)
{
	struct side a, b;
	struct bg_comparison cmp;

	*before = *after = NULL;
	if (!base || !cand || !metric)
		return;
	if (load_side(s, base, board, mode, console, &a) < 0 ||
	    load_side(s, cand, board, mode, console, &b) < 0) {
		side_release(&a);
		return;
	}
	*before = kernel_line(a.console, metric);
	*after = kernel_line(b.console, metric);
	if (a.set.boots && b.set.boots && bg_compare(&a.set, &b.set, cfg, &cmp) == 0) {
		for (size_t i = 0; i < cmp.n; i++) {
			const struct bg_verdict *v = &cmp.v[i];
			const struct bg_series *sa, *sb;

			if (strcmp(v->metric, metric))
				continue;
			sa = bg_sample_set_find(&a.set, metric);
			sb = bg_sample_set_find(&b.set, metric);
			*fig = (struct bg_mail_figures){ true, v->base_median, v->cand_median,
				v->delta, v->delta_pct, v->ci_lo, v->ci_hi, v->p, v->q,
				sa && sa->n ? bg_stats_mad(sa->v, sa->n) : 0,
				sb && sb->n ? bg_stats_mad(sb->v, sb->n) : 0, v->n_base, v->n_cand,
				v->exact };
		}
		bg_comparison_release(&cmp);
	}
	side_release(&a);
	side_release(&b);
}

/* ---- how to do it again ---- */

static void repro_lines(const struct bg_service_tree *t, const char *board_name,
			const char *mode, enum bg_console console, struct bg_strbuf *config,
			struct bg_strbuf *make, struct bg_strbuf *qemu)
{
	struct bg_board b;
	char *cmdline;

	bg_strbuf_addstr(config, t ? t->config_name : "tinyconfig");
	if (bg_board_load(bg_lab_dir(), board_name, &b) < 0)
		return;
	for (size_t i = 0; i < b.nfragments; i++)
		bg_strbuf_addf(config, " + %s", b.fragments[i]);
	for (size_t i = 0; t && i < t->nfragments; i++)
		bg_strbuf_addf(config, " + %s", t->fragments[i]);
	bg_strbuf_addf(make, "make O=out ARCH=%s CROSS_COMPILE=%s %s\n", b.kernel_arch,
		       b.cross_compile, t && t->config == BG_KCONFIG_TARGET ? t->config_name :
		       "tinyconfig");
	bg_strbuf_addstr(make, "scripts/kconfig/merge_config.sh -m -O out out/.config");
	for (size_t i = 0; i < b.nfragments; i++)
		bg_strbuf_addf(make, " lab-configs/kconfig/%s", b.fragments[i]);
	bg_strbuf_addf(make, "\nmake O=out ARCH=%s CROSS_COMPILE=%s olddefconfig\n"
		       "make O=out ARCH=%s CROSS_COMPILE=%s -j$(nproc) %s", b.kernel_arch,
		       b.cross_compile, b.kernel_arch, b.cross_compile, b.make_target);
	if (t && t->perf_runs) {
		char *line = bg_perf_make_line();

		/* perf joins the test initramfs (scripts/initramfs-perf.sh) */
		bg_strbuf_addf(make, "\n%s\ncp $(scripts/initramfs-perf.sh initramfs.cpio "
			       "out-perf/perf) initramfs-perf.cpio", line);
		free(line);
	}
	if (b.type == BG_BOARD_LAVA) {
		/* the lab's own QEMU or board: the job goes there as bootgate sends it */
		bg_strbuf_addf(qemu, "bootgate-boot --board %s --image out/%s --mode %s --boots 1%s",
			       b.name, b.image, mode, console == BG_CONSOLE_QUIET ?
			       " --console quiet" : "");
		bg_board_release(&b);
		return;
	}
	bg_strbuf_addf(qemu, "%s -M %s", b.qemu, b.machine);
	if (*b.cpu)
		bg_strbuf_addf(qemu, " -cpu %s", b.cpu);
	bg_strbuf_addf(qemu, " -m %ld", b.memory);
	if (b.cpus > 1)
		bg_strbuf_addf(qemu, " -smp %ld,sockets=%ld", b.cpus, b.cpus);
	for (size_t i = 0; i < b.nqemu_args; i++)
		bg_strbuf_addf(qemu, " %s", b.qemu_args[i]);
	/* the command line bootgate-boot gives, the host's TSC left as @HOST_TSC_KHZ@ */
	cmdline = bg_board_cmdline(&b, strcmp(mode, "timing") != 0, console, 0, NULL,
				   t ? (unsigned)t->perf_runs : 0);
	bg_strbuf_addf(qemu, " -kernel out/%s -initrd %s -append '%s'", b.image,
		       t && t->perf_runs ? "initramfs-perf.cpio" : "initramfs.cpio", cmdline);
	free(cmdline);
	if (!strcmp(mode, "deterministic"))
		bg_strbuf_addf(qemu, " -icount shift=%ld,sleep=off,align=off -rtc clock=vm",
			       b.icount_shift);
	bg_board_release(&b);
}

/* ---- recipients ---- */

static void add_list(struct bg_mail_addrs *l, char **v, size_t n, const struct bg_mail_addrs *not)
{
	for (size_t i = 0; i < n; i++) {
		struct bg_mail_addr a;

		if (bg_mail_addr_parse(v[i], &a) < 0)
			continue;
		if (!not || !bg_mail_addrs_has(not, a.addr))
			bg_mail_addrs_add(l, a.name, a.addr);
		bg_mail_addr_release(&a);
	}
}

/*
 * send: list: To the list and the author, Cc the copies, the maintainers and the
 * trailers. send: maintainers: To the maintainers and the author, nobody else.
 */
static void recipients(const struct bg_mail_conf *m, const char *author, const char *message,
		       struct bg_mail_addrs *to, struct bg_mail_addrs *cc)
{
	struct bg_mail_addr a = { NULL, NULL };
	struct bg_mail_addrs people = { NULL, 0, 0 };

	if (m->send_list)
		add_list(to, m->to, m->nto, NULL);
	else
		add_list(to, m->maintainers, m->nmaintainers, NULL);
	if (author && bg_mail_addr_parse(author, &a) == 0)
		bg_mail_addrs_add(to, a.name, a.addr);
	bg_mail_addr_release(&a);
	if (m->send_list) {
		add_list(cc, m->cc, m->ncc, to);
		add_list(cc, m->maintainers, m->nmaintainers, to);
		bg_mail_trailers(message, &people);
		for (size_t i = 0; i < people.n; i++)
			if (!bg_mail_addrs_has(to, people.v[i].addr))
				bg_mail_addrs_add(cc, people.v[i].name, people.v[i].addr);
	}
	bg_mail_addrs_release(&people);
}

/* ---- composing ---- */

struct made {
	struct bg_mail_addrs to, cc;
	struct bg_strbuf subject, body, message;
	char *message_id, *in_reply_to;
	char *about;            /* one mail per culprit and metric, per series */
	const char *tree, *branch, *kind;
};

static void made_release(struct made *m)
{
	bg_mail_addrs_release(&m->to);
	bg_mail_addrs_release(&m->cc);
	bg_strbuf_release(&m->subject);
	bg_strbuf_release(&m->body);
	bg_strbuf_release(&m->message);
	free(m->message_id);
	free(m->in_reply_to);
	free(m->about);
}

struct ctx {
	struct bg_store *s;
	const struct bg_service_conf *c;
	struct bg_mail_addr from;
	const char *domain;
	char *reporter;
	bool dry_run;
	bg_mailer_fn fn;
	void *data;
};

static const char *doc_str(const struct bg_json_doc *d, const char *fmt, size_t i)
{
	char *path = xasprintf(fmt, i);
	const char *v = bg_json_doc_str(d, path);

	free(path);
	return v;
}

static double doc_num(const struct bg_json_doc *d, const char *fmt, size_t i)
{
	char *path = xasprintf(fmt, i);
	double v = bg_json_doc_num(d, path);

	free(path);
	return v;
}

struct steps {
	struct bg_mail_step *v;
	char **owned;
	size_t n, nowned;
};

static const char *own(struct steps *st, char *s)
{
	st->owned = xreallocarray(st->owned, st->nowned + 1, sizeof(*st->owned));
	return st->owned[st->nowned++] = s;
}

static void read_steps(struct ctx *x, const struct bg_json_doc *d, struct steps *st)
{
	size_t n = bg_json_doc_len(d, "steps");

	st->v = xcalloc(n ? n : 1, sizeof(*st->v));
	for (size_t i = 0; i < n; i++) {
		struct bg_strbuf vals = BG_STRBUF_INIT;
		size_t nv;
		char *path = xasprintf("steps.%zu.values", i), *subject = NULL;
		const char *commit = doc_str(d, "steps.%zu.commit", i);

		nv = bg_json_doc_len(d, path);
		for (size_t k = 0; k < nv; k++) {
			char *p = xasprintf("%s.%zu", path, k);

			bg_strbuf_addf(&vals, "%s%.0f", k ? " " : "", bg_json_doc_num(d, p));
			free(p);
		}
		free(path);
		if (!commit)
			continue;
		bg_store_text(x->s, &subject, "SELECT subject FROM commits WHERE sha = ?", "s",
			      commit);
		st->v[st->n].commit = own(st, xstrdup(commit));
		st->v[st->n].values = own(st, bg_strbuf_detach(&vals, NULL));
		st->v[st->n].verdict = doc_str(d, "steps.%zu.verdict", i);
		st->v[st->n].subject = subject ? own(st, subject) : NULL;
		st->n++;
	}
}

static void steps_release(struct steps *st)
{
	for (size_t i = 0; i < st->nowned; i++)
		free(st->owned[i]);
	free(st->owned);
	free(st->v);
}

/* Why a row makes no mail, stored with it; 0, or -1 on a store error. */
static int skip(struct ctx *x, int64_t outbox, const char *kind, int64_t ref, const char *why)
{
	struct bg_mailer_event e = { "skipped", outbox, 0, kind, ref, NULL, NULL, why, NULL, 0, 0 };

	if (!x->dry_run && bg_store_exec(x->s, "UPDATE outbox SET done = ?, note = ? WHERE id = ? "
					 "AND done IS NULL", "dsi", bg_store_now(), why, outbox) < 0)
		return -1;
	if (x->fn)
		x->fn(&e, x->data);
	return 0;
}

static void finish_message(struct ctx *x, struct made *m)
{
	struct bg_mail_head h = { x->from, &m->to, &m->cc, m->subject.buf, m->message_id,
				  m->in_reply_to, (time_t)bg_store_now(), m->tree, m->branch,
				  m->kind };

	bg_mail_message(&m->message, &h, m->body.buf);
}

/* The mail into mails and its row marked done, inside the caller's transaction. */
static int store_mail(struct ctx *x, int64_t outbox, const struct made *m, const char *rcpt,
		      int64_t *mail_id)
{
	if (bg_store_exec(x->s, "INSERT INTO mails (outbox_id, about, message_id, mail_from, "
			  "rcpt, subject, message) VALUES (?, ?, ?, ?, ?, ?, ?)", "issssss",
			  outbox, m->about, m->message_id, x->from.addr, rcpt, m->subject.buf,
			  m->message.buf) < 0)
		return -1;
	*mail_id = bg_store_last_id(x->s);
	return bg_store_exec(x->s, "UPDATE outbox SET done = ? WHERE id = ?", "di",
			     bg_store_now(), outbox);
}

/* Stores the mail and marks the row done, at once; or tells it (dry run). */
static int keep(struct ctx *x, int64_t outbox, int64_t ref, struct made *m)
{
	struct bg_mailer_event e = { x->dry_run ? "dry-run" : "composed", outbox, 0, m->kind, ref,
				     m->message_id, m->subject.buf, NULL, NULL, 0, 0 };
	struct bg_strbuf rcpt = BG_STRBUF_INIT;
	int64_t done = 0;
	int ret = -1;

	if (x->dry_run) {
		e.message = m->message.buf;
		if (x->fn)
			x->fn(&e, x->data);
		return 1;
	}
	for (size_t i = 0; i < m->to.n; i++)
		bg_strbuf_addf(&rcpt, "%s\n", m->to.v[i].addr);
	for (size_t i = 0; i < m->cc.n; i++)
		bg_strbuf_addf(&rcpt, "%s\n", m->cc.v[i].addr);
	if (bg_store_begin(x->s) < 0)
		goto out;
	/* another mailer may have taken the row meanwhile */
	if (bg_store_int(x->s, 1, &done, "SELECT done IS NOT NULL FROM outbox WHERE id = ?", "i",
			 outbox) < 0 ||
	    (!done && store_mail(x, outbox, m, rcpt.buf, &e.mail_id) < 0)) {
		bg_store_rollback(x->s);
		goto out;
	}
	if (bg_store_commit(x->s) < 0)
		goto out;
	if (!done && x->fn)
		x->fn(&e, x->data);
	ret = !done;
out:
	bg_strbuf_release(&rcpt);
	return ret;
}

/* Appends the words (NULL ends them) to a command, each quoted as the shell needs it. */
static void shell_words(struct bg_strbuf *sb, ...)
{
	const char *w;
	va_list ap;

	va_start(ap, sb);
	while ((w = va_arg(ap, const char *))) {
		if (sb->len && sb->buf[sb->len - 1] != ' ')
			bg_strbuf_addch(sb, ' ');
		bg_mail_shell_word(sb, w);
	}
	va_end(ap);
}

/* The composed mail, made whole and kept; or why not, when it has nobody to go to. */
static int deliver(struct ctx *x, int64_t outbox, int64_t ref, struct made *m)
{
	if (!m->to.n && !m->cc.n)
		return skip(x, outbox, m->kind, ref, "nobody to mail: no maintainer, list or "
			    "author address");
	finish_message(x, m);
	return keep(x, outbox, ref, m);
}

/* A mail about the same thing exists already: its id, else 0. */
static int already(struct ctx *x, const char *about, int64_t *id)
{
	return bg_store_int(x->s, 0, id, "SELECT id FROM mails WHERE about = ?", "s", about);
}

static int compose_bisection(struct ctx *x, int64_t outbox, int64_t id)
{
	struct row r = { { NULL }, false };
	struct bg_git_commit gc;
	bool have_git = false;
	const struct bg_service_tree *t;
	struct bg_mail_bisection b;
	struct bg_json_doc *d = NULL;
	struct made m;
	struct steps st = { NULL, NULL, 0, 0 };
	struct bg_strbuf config = BG_STRBUF_INIT, make = BG_STRBUF_INIT, qemu = BG_STRBUF_INIT;
	char *before = NULL, *after = NULL, *parent = NULL, *subject = NULL, *author = NULL;
	struct bg_strbuf command = BG_STRBUF_INIT, rerun = BG_STRBUF_INIT;
	char *closes = NULL, *why = NULL, *console = NULL;
	enum bg_console cm = BG_CONSOLE_VERBOSE;
	struct bg_strvec urls = BG_STRVEC_INIT;
	const char *skip_why;
	int64_t dup = 0;
	int ret = -1;

	memset(&m, 0, sizeof(m));
	memset(&b, 0, sizeof(b));
	if (bg_store_query(x->s, take_row, &r, "SELECT b.state, b.outcome, b.culprit, "
			   "b.confidence, b.result, b.metric, b.mode, b.board, b.good, b.bad, "
			   "t.name, coalesce(t.branch, ''), t.url, t.path FROM bisections b JOIN "
			   "trees t ON t.id = b.tree_id WHERE b.id = ?", "i", id) < 0)
		return -1;
	if (!r.got) {
		ret = skip(x, outbox, "bisection", id, "no such bisection in the store");
		goto out;
	}
	skip_why = bg_mail_bisection_skip(r.v[0], r.v[1], r.v[2], r.v[3] ? strtod(r.v[3], NULL) :
					  NAN, x->c->report.min_confidence);
	if (skip_why) {
		ret = skip(x, outbox, "bisection", id, skip_why);
		goto out;
	}
	if (!r.v[5] || !r.v[6] || !r.v[7]) {
		ret = skip(x, outbox, "bisection", id, "the bisection names no metric or board");
		goto out;
	}
	t = bg_service_conf_tree(x->c, r.v[10]);
	if (!t) {
		why = xasprintf("tree '%s' is not in the configuration: nobody to mail", r.v[10]);
		ret = skip(x, outbox, "bisection", id, why);
		goto out;
	}
	m.about = xasprintf("culprit %s %s", r.v[2], r.v[5]);
	if (already(x, m.about, &dup) < 0)
		goto out;
	if (dup) {
		why = xasprintf("this culprit and metric were mailed already (mail %" PRId64 ")",
				dup);
		ret = skip(x, outbox, "bisection", id, why);
		goto out;
	}
	/* the commit as git has it (its trailers), else as the store noted it */
	if (r.v[13] && bg_git_commit_info(r.v[13], r.v[2], &gc) == 0) {
		have_git = true;
		subject = xstrdup(gc.subject ? gc.subject : "");
		author = gc.author ? xstrdup(gc.author) : NULL;
		parent = gc.nparents ? xstrdup(gc.parents[0]) : NULL;
	} else {
		bg_store_text(x->s, &subject, "SELECT subject FROM commits WHERE sha = ?", "s",
			      r.v[2]);
		bg_store_text(x->s, &author, "SELECT author FROM commits WHERE sha = ?", "s", r.v[2]);
		bg_store_text(x->s, &parent, "SELECT parent FROM commits WHERE sha = ?", "s", r.v[2]);
	}
	/* the figures come from boots of the bisection's own console mode only */
	if (bg_store_text(x->s, &console, "SELECT console_mode FROM bisections WHERE id = ?", "i",
			  id) < 0)
		goto out;
	if (console)
		bg_console_parse(console, &cm);
	measure(x->s, &t->compare, parent, r.v[2], r.v[7], r.v[6], bg_console_name(cm), r.v[5],
		&b.fig, &before, &after);
	if (!b.fig.have) {
		/* the parent was never booted: the good end speaks for it */
		free(before);
		free(after);
		measure(x->s, &t->compare, r.v[8], r.v[2], r.v[7], r.v[6], bg_console_name(cm),
			r.v[5], &b.fig, &before, &after);
	}
	d = bg_json_doc_parse("result", r.v[4] ? r.v[4] : "{}");
	b.id = id;
	b.tree = r.v[10];
	b.branch = r.v[11];
	b.url = r.v[12];
	b.culprit = r.v[2];
	b.subject = subject;
	b.author = author;
	b.metric = r.v[5];
	b.mode = r.v[6];
	b.console = bg_console_name(cm);
	b.board = r.v[7];
	b.good = r.v[8];
	b.bad = r.v[9];
	b.confidence = strtod(r.v[3], NULL);
	b.line_before = before;
	b.line_after = after;
	b.revert_applies = -1;
	if (d) {
		b.conf_verdict = bg_json_doc_str(d, "confirmation.verdict");
		b.conf_mode = bg_json_doc_str(d, "confirmation.mode");
		b.conf_boots = bg_json_doc_num(d, "confirmation.boots");
		b.conf_base = bg_json_doc_num(d, "confirmation.base_us");
		b.conf_cand = bg_json_doc_num(d, "confirmation.cand_us");
		b.conf_delta = bg_json_doc_num(d, "confirmation.delta_us");
		b.conf_p = bg_json_doc_num(d, "confirmation.p");
		b.boot_init_delta = bg_json_doc_num(d, "confirmation.boot_init_delta_us");
		b.boot_init_verdict = bg_json_doc_str(d, "confirmation.boot_init_verdict");
		b.revert_applies = bg_json_doc_bool(d, "confirmation.revert.applies");
		b.revert_delta = bg_json_doc_num(d, "confirmation.revert.delta_us");
		b.revert_regression = bg_json_doc_num(d, "confirmation.revert.regression_us");
		b.revert_verdict = bg_json_doc_str(d, "confirmation.revert.verdict");
		read_steps(x, d, &st);
		b.steps = st.v;
		b.nsteps = st.n;
		if (!b.fig.have && st.n) {
			/* no boots in the store: the log's own values, medians of each end */
			for (size_t i = 0; i < bg_json_doc_len(d, "steps"); i++) {
				const char *v = doc_str(d, "steps.%zu.verdict", i);
				double val = doc_num(d, "steps.%zu.values.0", i);

				if (v && !strcmp(v, "good") && !isnan(val))
					b.fig.base_us = val;
				if (v && !strcmp(v, "culprit") && !isnan(val))
					b.fig.cand_us = val;
			}
			b.fig.delta_us = b.fig.cand_us - b.fig.base_us;
			b.fig.delta_pct = b.fig.base_us > 0 ? 100 * b.fig.delta_us / b.fig.base_us : 0;
		}
	}
	repro_lines(t, r.v[7], r.v[6], cm, &config, &make, &qemu);
	shell_words(&command, "bootgate", "bisect", "--tree", r.v[13], "--name", r.v[10],
		    "--good", r.v[8], "--bad", r.v[9], "--board", r.v[7], "--mode", r.v[6],
		    "--metric", r.v[5] ? r.v[5] : "",
		    /* verbose, the default, is not said: the list ends there */
		    cm == BG_CONSOLE_QUIET ? "--console" : NULL, "quiet", NULL);
	shell_words(&rerun, "bootgate", "rerun", "--tree", r.v[10], r.v[2], NULL);
	/* the boots the engine was told of, each lab job once, in the order they came */
	if (bg_store_query(x->s, take_url, &urls, "SELECT o.job_url FROM bisection_reports r "
			   "JOIN boots o ON o.id = r.boot_id WHERE r.bisection_id = ? AND "
			   "o.job_url IS NOT NULL GROUP BY o.job_url ORDER BY min(r.seq)", "i", id) < 0)
		goto out;
	b.job_urls = (const char *const *)urls.v;
	b.njob_urls = urls.n;
	b.repro = (struct bg_mail_repro){ config.buf, command.buf, rerun.buf,
					  make.len ? make.buf : NULL,
					  qemu.len ? qemu.buf : NULL };
	closes = xasprintf("%s/bisection/%" PRId64 ".html", x->c->report.site_url, id);
	b.closes = closes;
	b.reporter = x->reporter;

	m.tree = r.v[10];
	m.branch = r.v[11];
	m.kind = "bisection";
	m.message_id = xasprintf("bootgate-bisection-%" PRId64 "-%.12s@%s", id, r.v[2], x->domain);
	recipients(&t->mail, author, have_git ? gc.message : NULL, &m.to, &m.cc);
	bg_mail_bisection_subject(&m.subject, &b);
	bg_mail_bisection_body(&m.body, &b);
	ret = deliver(x, outbox, id, &m);
out:
	if (have_git)
		bg_git_commit_release(&gc);
	bg_json_doc_free(d);
	steps_release(&st);
	made_release(&m);
	row_release(&r);
	bg_strbuf_release(&config);
	bg_strbuf_release(&make);
	bg_strbuf_release(&qemu);
	free(before);
	free(after);
	free(parent);
	free(subject);
	free(author);
	bg_strbuf_release(&command);
	bg_strbuf_release(&rerun);
	bg_strvec_release(&urls);
	free(closes);
	free(console);
	free(why);
	return ret;
}

/* ---- series ---- */

struct patches {
	struct bg_mail_patch *p;
	struct row *rows;
	size_t n, alloc;
};

static int take_patch(const struct bg_store_row *r, void *data)
{
	struct patches *ps = data;
	struct row *t;
	struct bg_mail_patch *p;

	ALLOC_GROW(ps->p, ps->n + 1, ps->alloc);
	ps->rows = xreallocarray(ps->rows, ps->alloc, sizeof(*ps->rows));
	t = &ps->rows[ps->n];
	p = &ps->p[ps->n];
	memset(t, 0, sizeof(*t));
	memset(p, 0, sizeof(*p));
	take_row(r, t);
	p->idx = (int)bg_row_int(r, 0);
	p->message_id = t->v[1];
	p->subject = t->v[2];
	p->author = t->v[3];
	p->commit = t->v[5];
	p->status = t->v[6];
	p->error = t->v[7];
	p->verdict = t->v[9];
	p->metric = t->v[10];
	p->delta = bg_row_null(r, 11) ? 0 : bg_row_double(r, 11);
	ps->n++;
	return 0;
}

static void patches_release(struct patches *ps)
{
	for (size_t i = 0; i < ps->n; i++)
		row_release(&ps->rows[i]);
	free(ps->rows);
	free(ps->p);
}

/* Figures of a patch from its comparison's JSON, when its boots are not in the store. */
static void figures_from_json(const char *json, const char *metric, struct bg_mail_figures *f)
{
	struct bg_json_doc *d = json ? bg_json_doc_parse("comparison", json) : NULL;
	size_t n = d ? bg_json_doc_len(d, "verdicts") : 0;

	for (size_t i = 0; i < n && metric; i++) {
		const char *m = doc_str(d, "verdicts.%zu.metric", i);

		if (!m || strcmp(m, metric))
			continue;
		*f = (struct bg_mail_figures){ true, doc_num(d, "verdicts.%zu.base_median", i),
			doc_num(d, "verdicts.%zu.cand_median", i), doc_num(d, "verdicts.%zu.delta", i),
			doc_num(d, "verdicts.%zu.delta_pct", i), doc_num(d, "verdicts.%zu.ci.0", i),
			doc_num(d, "verdicts.%zu.ci.1", i), doc_num(d, "verdicts.%zu.p", i),
			doc_num(d, "verdicts.%zu.q", i), 0, 0,
			(size_t)fmax(0, doc_num(d, "verdicts.%zu.n_base", i)),
			(size_t)fmax(0, doc_num(d, "verdicts.%zu.n_cand", i)), false };
		f->exact = bg_json_doc_bool(d, "verdicts.0.exact") == 1;
		break;
	}
	bg_json_doc_free(d);
}

static int compose_series(struct ctx *x, int64_t outbox, int64_t id)
{
	struct row r = { { NULL }, false }, cmp = { { NULL }, false };
	struct patches ps = { NULL, NULL, 0, 0 };
	const struct bg_service_tree *t;
	struct bg_mail_series se;
	struct bg_strvec urls = BG_STRVEC_INIT;
	struct made m;
	struct bg_strbuf config = BG_STRBUF_INIT, make = BG_STRBUF_INIT, qemu = BG_STRBUF_INIT;
	struct bg_strbuf rerun = BG_STRBUF_INIT;
	char *before = NULL, *after = NULL, *closes = NULL, *why = NULL;
	const char *skip_why;
	size_t reply = 0;
	bool regression = false;
	int best;                   /* without a regression: the patch that helped most */
	int64_t dup = 0;
	int ret = -1;

	memset(&m, 0, sizeof(m));
	memset(&se, 0, sizeof(se));
	if (bg_store_query(x->s, take_row, &r, "SELECT s.state, s.subject, s.base, "
			   "coalesce(s.mode, 'timing'), coalesce(s.board, 'qemu-x86_64'), t.name, "
			   "coalesce(t.branch, ''), t.path FROM series s LEFT JOIN trees t ON t.id = "
			   "s.tree_id WHERE s.id = ?", "i", id) < 0 ||
	    bg_store_query(x->s, take_patch, &ps, "SELECT idx, message_id, subject, author, mbox, "
			   "commit_sha, status, error, comparison_id, verdict, metric, delta FROM "
			   "series_patches WHERE series_id = ? ORDER BY idx", "i", id) < 0)
		goto out;
	if (!r.got) {
		ret = skip(x, outbox, "series", id, "no such series in the store");
		goto out;
	}
	skip_why = bg_mail_series_skip(r.v[0], ps.p, ps.n, &reply, &regression);
	if (skip_why) {
		ret = skip(x, outbox, "series", id, skip_why);
		goto out;
	}
	t = r.v[5] ? bg_service_conf_tree(x->c, r.v[5]) : NULL;
	if (!t) {
		why = xasprintf("tree '%s' is not in the configuration: nobody to mail",
				r.v[5] ? r.v[5] : "(none)");
		ret = skip(x, outbox, "series", id, why);
		goto out;
	}
	m.about = xasprintf("series %" PRId64, id);
	if (already(x, m.about, &dup) < 0)
		goto out;
	if (dup) {
		why = xasprintf("this series was mailed already (mail %" PRId64 ")", dup);
		ret = skip(x, outbox, "series", id, why);
		goto out;
	}
	best = -1;
	if (!regression) {
		/* the quoted figures and lines go to the patch that helped most */
		for (size_t i = 0; i < ps.n; i++)
			if (ps.p[i].idx > 0 && ps.p[i].verdict && ps.p[i].metric &&
			    !strcmp(ps.p[i].verdict, "improvement") &&
			    (best < 0 || ps.p[i].delta < ps.p[best].delta))
				best = (int)i;
	}
	if (regression || best >= 0) {
		struct bg_mail_patch *p = &ps.p[regression ? reply : (size_t)best];

		if (bg_store_query(x->s, take_row, &cmp, "SELECT c.base, c.cand, c.result FROM "
				   "comparisons c JOIN series_patches p ON p.comparison_id = c.id "
				   "WHERE p.series_id = ? AND p.idx = ?", "ii", id,
				   (int64_t)p->idx) < 0)
			goto out;
		measure(x->s, &t->compare, cmp.v[0], cmp.v[1], r.v[4], r.v[3],
			bg_console_name(t->console), p->metric, &p->fig,
			&before, &after);
		if (!p->fig.have)
			figures_from_json(cmp.v[2], p->metric, &p->fig);
		p->line_before = before;
		p->line_after = after;
	}
	se.id = id;
	se.tree = r.v[5];
	se.branch = r.v[6];
	se.base = r.v[2];
	se.mode = r.v[3];
	se.console = bg_console_name(t->console);
	se.board = r.v[4];
	se.p = ps.p;
	se.n = ps.n;
	se.reply = reply;
	se.regression = regression;
	se.improved = !regression && best >= 0 ? &ps.p[best] : NULL;
	/* the boots of the base and of the tree after each patch, on the series' board */
	if (bg_store_query(x->s, take_url, &urls, "SELECT o.job_url FROM boots o WHERE "
			   "o.board = ?1 AND o.mode = ?2 AND o.job_url IS NOT NULL AND "
			   "o.image_sha256 IN (SELECT image_sha256 FROM builds WHERE board = ?1 AND "
			   "(commit_sha = ?3 OR commit_sha IN (SELECT commit_sha FROM series_patches "
			   "WHERE series_id = ?4))) GROUP BY o.job_url ORDER BY min(o.id)", "sssi",
			   r.v[4], r.v[3], r.v[2], id) < 0)
		goto out;
	se.job_urls = (const char *const *)urls.v;
	se.njob_urls = urls.n;
	repro_lines(t, r.v[4], r.v[3], t->console, &config, &make, &qemu);
	shell_words(&rerun, "b4", "am", ps.p[reply].message_id ? ps.p[reply].message_id : "",
		    NULL);
	bg_strbuf_addstr(&rerun, " && ");
	shell_words(&rerun, "bootgate", "series", "--tree", r.v[7] ? r.v[7] : ".", "--name",
		    r.v[5], "--board", r.v[4], "--base", r.v[2] ? r.v[2] : "HEAD", "--mode", r.v[3],
		    NULL);
	bg_strbuf_addstr(&rerun, " ./*.mbx");
	se.repro = (struct bg_mail_repro){ config.buf, rerun.buf, NULL,
					   make.len ? make.buf : NULL,
					   qemu.len ? qemu.buf : NULL };
	closes = xasprintf("%s/series/%" PRId64 ".html", x->c->report.site_url, id);
	se.closes = closes;
	se.reporter = x->reporter;

	m.tree = r.v[5];
	m.branch = r.v[6];
	m.kind = "series";
	m.message_id = xasprintf("bootgate-series-%" PRId64 "-%d@%s", id, ps.p[reply].idx,
				 x->domain);
	if (bg_mail_msgid_ok(ps.p[reply].message_id))
		m.in_reply_to = xstrdup(ps.p[reply].message_id);
	/* the patch's author and its trailers, from the mail as it came */
	recipients(&t->mail, ps.p[reply].author, ps.rows[reply].v[4], &m.to, &m.cc);
	bg_mail_series_subject(&m.subject, &se);
	bg_mail_series_body(&m.body, &se);
	ret = deliver(x, outbox, id, &m);
out:
	patches_release(&ps);
	made_release(&m);
	row_release(&r);
	row_release(&cmp);
	bg_strbuf_release(&config);
	bg_strbuf_release(&make);
	bg_strbuf_release(&qemu);
	free(before);
	free(after);
	free(closes);
	free(why);
	bg_strbuf_release(&rerun);
	bg_strvec_release(&urls);
	return ret;
}

/* ---- the outbox ---- */

struct outbox_row {
	int64_t id, ref;
	char kind[32];
};

static int take_outbox(const struct bg_store_row *r, void *data)
{
	struct { struct outbox_row *v; size_t n, alloc; } *l = data;

	ALLOC_GROW(l->v, l->n + 1, l->alloc);
	l->v[l->n].id = bg_row_int(r, 0);
	l->v[l->n].ref = bg_row_int(r, 2);
	snprintf(l->v[l->n].kind, sizeof(l->v[l->n].kind), "%s", bg_row_text(r, 1));
	l->n++;
	return 0;
}

int bg_mailer_compose(struct bg_store *s, const struct bg_service_conf *c, bool dry_run,
		      bg_mailer_fn fn, void *data)
{
	struct { struct outbox_row *v; size_t n, alloc; } rows = { NULL, 0, 0 };
	struct ctx x = { s, c, { NULL, NULL }, NULL, NULL, dry_run, fn, data };
	int made = 0, ret = -1;

	if (bg_store_query(s, take_outbox, &rows, "SELECT id, kind, ref FROM outbox WHERE done "
			   "IS NULL ORDER BY id", "") < 0)
		return -1;
	if (!rows.n) {
		free(rows.v);
		return 0;
	}
	if (!c->report.enabled || !c->report.from) {
		free(rows.v);
		return bg_error("%s: 'report: from:' is not configured: %zu outbox rows wait",
				c->file, rows.n);
	}
	if (bg_mail_addr_parse(c->report.from, &x.from) < 0) {
		free(rows.v);
		return -1;
	}
	x.domain = strchr(x.from.addr, '@') + 1;
	x.reporter = x.from.name ? xasprintf("%s <%s>", x.from.name, x.from.addr)
				 : xasprintf("bootgate <%s>", x.from.addr);
	for (size_t i = 0; i < rows.n; i++) {
		const struct outbox_row *o = &rows.v[i];
		int r;

		if (!strcmp(o->kind, "bisection"))
			r = compose_bisection(&x, o->id, o->ref);
		else if (!strcmp(o->kind, "series"))
			r = compose_series(&x, o->id, o->ref);
		else
			r = skip(&x, o->id, o->kind, o->ref, "no mail is made for this kind");
		if (r < 0)
			goto out;
		made += r;
	}
	ret = made;
out:
	free(rows.v);
	free(x.reporter);
	bg_mail_addr_release(&x.from);
	return ret;
}

/* ---- sending ---- */

struct due {
	int64_t id, attempts;
	char *from, *rcpt, *message, *message_id, *subject;
};

static int take_due(const struct bg_store_row *r, void *data)
{
	struct { struct due *v; size_t n, alloc; } *l = data;
	struct due *d;

	ALLOC_GROW(l->v, l->n + 1, l->alloc);
	d = &l->v[l->n++];
	d->id = bg_row_int(r, 0);
	d->attempts = bg_row_int(r, 1);
	d->from = xstrdup(bg_row_text(r, 2));
	d->rcpt = xstrdup(bg_row_text(r, 3));
	d->message = xstrdup(bg_row_text(r, 4));
	d->message_id = xstrdup(bg_row_text(r, 5));
	d->subject = xstrdup(bg_row_text(r, 6));
	return 0;
}

/* Takes a mail for one try: no other mailer sends it meanwhile. 1 taken, 0 not, -1. */
static int lease(struct bg_store *s, int64_t id)
{
	if (bg_store_exec(s, "UPDATE mails SET not_before = ? WHERE id = ? AND sent IS NULL AND "
			  "not_before <= ?", "did", bg_store_now() + BG_SMTP_TIMEOUT + 30, id,
			  bg_store_now()) < 0)
		return -1;
	return bg_store_changes(s) == 1;
}

int bg_mailer_send(struct bg_store *s, const struct bg_service_conf *c, double backoff,
		   const volatile sig_atomic_t *stop, bg_mailer_fn fn, void *data)
{
	struct { struct due *v; size_t n, alloc; } due = { NULL, 0, 0 };
	struct bg_smtp srv = { c->report.smtp, c->report.smtp_user, NULL, 0, 0 };
	char *password = NULL;
	int64_t waiting = 0;
	int ret = -1;

	if (bg_store_query(s, take_due, &due, "SELECT id, attempts, mail_from, rcpt, message, "
			   "message_id, subject FROM mails WHERE sent IS NULL AND not_before <= ? "
			   "ORDER BY id", "d", bg_store_now()) < 0)
		return -1;
	if (due.n && !c->report.smtp) {
		bg_error("%s: 'report: smtp:' is not configured: %zu mails wait", c->file, due.n);
		goto out;
	}
	if (due.n && c->report.smtp_password_file &&
	    !(password = bg_secret_read(c->report.smtp_password_file, PASSWORD_MAX, NULL)))
		goto out;
	srv.password = password;
	for (size_t i = 0; i < due.n; i++) {
		struct due *d = &due.v[i];
		struct bg_mailer_event e = { "sent", 0, d->id, NULL, 0, d->message_id, d->subject,
					     NULL, NULL, d->attempts + 1, 0 };
		struct bg_strvec rcpt = BG_STRVEC_INIT;
		int taken;

		if (stop && *stop)
			break;
		if ((taken = lease(s, d->id)) < 0)
			goto out;
		if (!taken)
			continue;
		for (const char *p = d->rcpt; *p;) {
			size_t n = strcspn(p, "\n");

			if (n) {
				char *a = xstrndup(p, n);

				bg_strvec_push(&rcpt, a);
				free(a);
			}
			p += n + (p[n] == '\n');
		}
		if (bg_smtp_send(&srv, d->from, rcpt.v, rcpt.n, d->message, strlen(d->message)) == 0) {
			/* marked at once: the server has it, it must never go twice */
			if (bg_store_exec(s, "UPDATE mails SET sent = ?, attempts = attempts + 1, "
					  "error = NULL WHERE id = ?", "di", bg_store_now(), d->id) < 0) {
				bg_strvec_release(&rcpt);
				goto out;
			}
		} else {
			double wait = fmin(BG_MAILER_BACKOFF_MAX,
					   backoff * pow(2, (double)(d->attempts < 20 ? d->attempts : 20)));

			e.what = "waiting";
			e.note = bg_error_last();
			e.not_before = bg_store_now() + wait;
			if (bg_store_exec(s, "UPDATE mails SET attempts = attempts + 1, not_before = ?, "
					  "error = ? WHERE id = ?", "dsi", e.not_before, e.note,
					  d->id) < 0) {
				bg_strvec_release(&rcpt);
				goto out;
			}
		}
		bg_strvec_release(&rcpt);
		if (fn)
			fn(&e, data);
	}
	if (bg_store_int(s, 0, &waiting, "SELECT count(*) FROM mails WHERE sent IS NULL", "") < 0)
		goto out;
	ret = (int)waiting;
out:
	for (size_t i = 0; i < due.n; i++) {
		free(due.v[i].from);
		free(due.v[i].rcpt);
		free(due.v[i].message);
		free(due.v[i].message_id);
		free(due.v[i].subject);
	}
	free(due.v);
	bg_secret_free(password);
	return ret;
}

int bg_mailer_pending(struct bg_store *s, int64_t *n)
{
	return bg_store_int(s, 0, n, "SELECT (SELECT count(*) FROM outbox WHERE done IS NULL) + "
			    "(SELECT count(*) FROM mails WHERE sent IS NULL AND not_before <= ?)",
			    "d", bg_store_now());
}
