/* Outbox rows into mails, mails into SMTP (mailer.h): the store's side of the reports. */
#include <math.h>

#include "publish/mailer.h"
#include "decide/stats.h"
#include "decide/verdict.h"
#include "conf/board.h"
#include "net/git.h"
#include "store/mail.h"
#include "store/results.h"
#include "store/service.h"
#include "store/views.h"
#include "lab/record.h"
#include "net/smtp.h"
#include "lab/workers.h"
#include "parse/bootlog.h"
#include "parse/mbox.h"
#include "parse/metrics.h"
#include "report/mail.h"
#include "util/error.h"
#include "util/path.h"
#include "util/secret.h"
#include "util/strbuf.h"
#include "util/strvec.h"
#include "util/xmalloc.h"

#define PASSWORD_MAX 4096

/* ---- what the boots say ---- */

/* The kernel's own line for metric in the first boot of a side that printed it, or NULL. */
static char *kernel_line(struct bg_store *s, int64_t comparison, enum bg_side side,
			 const char *metric)
{
	char *console = NULL, *line = NULL;
	uint64_t at;

	if (comparison && metric &&
	    bg_store_comparison_line(s, comparison, side, metric, &console, &at) > 0)
		line = bg_bootlog_quote(console, at);
	free(console);
	return line;
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
 * A patch mail's commit message (its body up to "---"; a mail without a diff, all of its
 * body), whose trailers name its people: never the diff's lines.
 */
static char *patch_message(const char *mbox)
{
	struct bg_msg *m = NULL;
	const char *body, *diff;
	size_t n = 0, body_len, diff_len;
	char *from = NULL, *date = NULL, *message = NULL;

	/* no patch, or not one mail: no message */
	if (!mbox || bg_mbox_parse("the patch", mbox, strlen(mbox), &m, &n) < 0 || n != 1)
		goto out;
	if (bg_msg_patch(&m[0], &body, &body_len, &diff, &diff_len, &from, &date) == 0)
		message = xstrndup(body, body_len);
	else if (m[0].body)
		message = xstrndup(m[0].body, m[0].body_len);
out:
	bg_msgs_free(m, n);
	free(from);
	free(date);
	return message;
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

/* The bisection log: each commit measured, its verdict, its values and its subject. */
static void mail_steps(struct ctx *x, const struct bg_bisection_steps *bs, struct steps *st)
{
	st->v = xcalloc(bs->n ? bs->n : 1, sizeof(*st->v));
	for (size_t i = 0; i < bs->n; i++) {
		const struct bg_bisection_step *p = &bs->v[i];
		struct bg_strbuf vals = BG_STRBUF_INIT;
		char *subject = NULL;

		for (size_t k = 0; k < p->nvalues; k++)
			bg_strbuf_addf(&vals, "%s%.0f", k ? " " : "", p->values[k]);
		bg_store_commit_subject(x->s, p->commit, &subject);
		st->v[st->n].commit = own(st, xstrdup(p->commit));
		st->v[st->n].values = own(st, bg_strbuf_detach(&vals, NULL));
		st->v[st->n].verdict = p->verdict;
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

	if (!x->dry_run && bg_store_outbox_skip(x->s, outbox, why) < 0)
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

/* Stores the mail and marks the row done, at once; or tells it (dry run). */
static int keep(struct ctx *x, int64_t outbox, int64_t ref, struct made *m)
{
	struct bg_mailer_event e = { x->dry_run ? "dry-run" : "composed", outbox, 0, m->kind, ref,
				     m->message_id, m->subject.buf, NULL, NULL, 0, 0 };
	struct bg_strbuf rcpt = BG_STRBUF_INIT;
	struct bg_mail_row row;
	int ret;

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
	row = (struct bg_mail_row){ outbox, m->about, m->message_id, x->from.addr, rcpt.buf,
				    m->subject.buf, m->message.buf };
	/* 0: another mailer took the row meanwhile */
	ret = bg_store_mail_add(x->s, &row, &e.mail_id);
	if (ret > 0 && x->fn)
		x->fn(&e, x->data);
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

static const struct bg_verdict *verdict_in(const struct bg_stored_comparison *c,
					   const char *metric)
{
	return c->id ? bg_comparison_find(&c->cmp, metric) : NULL;
}

static int compose_bisection(struct ctx *x, int64_t outbox, int64_t id)
{
	struct bg_stored_bisection sb;
	struct bg_stored_comparison c[3];
	struct bg_bisection_steps bs = { NULL, 0, 0 };
	struct bg_git_commit gc;
	bool have_git = false;
	const struct bg_service_tree *t;
	struct bg_mail_bisection b;
	struct made m;
	struct steps st = { NULL, NULL, 0, 0 };
	struct bg_strbuf config = BG_STRBUF_INIT, make = BG_STRBUF_INIT, qemu = BG_STRBUF_INIT;
	char *before = NULL, *after = NULL, *subject = NULL, *author = NULL;
	struct bg_strbuf command = BG_STRBUF_INIT, rerun = BG_STRBUF_INIT, others = BG_STRBUF_INIT;
	char *closes = NULL, *why = NULL, *tree_path = NULL, *url = NULL, *branch = NULL;
	enum bg_console cm = BG_CONSOLE_VERBOSE;
	struct bg_strvec urls = BG_STRVEC_INIT;
	const char *skip_why;
	int64_t dup = 0;
	int ret = -1, found;

	memset(&m, 0, sizeof(m));
	memset(&b, 0, sizeof(b));
	bg_stored_bisection_init(&sb);
	for (int i = 0; i < 3; i++)
		bg_stored_comparison_init(&c[i]);
	found = bg_store_bisection_get(x->s, id, &sb);
	if (found < 0)
		goto out;
	if (!found) {
		ret = skip(x, outbox, "bisection", id, "no such bisection in the store");
		goto out;
	}
	skip_why = bg_mail_bisection_skip(sb.state, sb.outcome, sb.culprit, sb.confidence,
					  x->c->report.min_confidence);
	if (skip_why) {
		ret = skip(x, outbox, "bisection", id, skip_why);
		goto out;
	}
	if (!sb.metric || !sb.mode || !sb.board) {
		ret = skip(x, outbox, "bisection", id, "the bisection names no metric or board");
		goto out;
	}
	t = sb.tree ? bg_service_conf_tree(x->c, sb.tree) : NULL;
	if (!t) {
		why = xasprintf("tree '%s' is not in the configuration: nobody to mail",
				sb.tree ? sb.tree : "(none)");
		ret = skip(x, outbox, "bisection", id, why);
		goto out;
	}
	m.about = xasprintf("culprit %s %s", sb.culprit, sb.metric);
	if (bg_store_mail_about(x->s, m.about, &dup) < 0)
		goto out;
	if (dup) {
		why = xasprintf("this culprit and metric were mailed already (mail %" PRId64 ")",
				dup);
		ret = skip(x, outbox, "bisection", id, why);
		goto out;
	}
	if (bg_store_tree_path(x->s, sb.tree_id, &tree_path) < 0 ||
	    bg_store_tree_url(x->s, sb.tree_id, &url) < 0 ||
	    bg_store_tree_branch(x->s, sb.tree_id, &branch) < 0 ||
	    bg_store_bisection_comparisons(x->s, &sb, c) < 0 ||
	    bg_store_bisection_steps(x->s, &sb, &bs) < 0 ||
	    bg_store_other_boards(x->s, sb.tree_id, sb.bad, sb.board, &others) < 0)
		goto out;
	/* the commit as git has it (its trailers), else as the store noted it */
	if (tree_path && bg_git_commit_info(tree_path, sb.culprit, &gc) == 0) {
		have_git = true;
		subject = xstrdup(gc.subject ? gc.subject : "");
		author = gc.author ? xstrdup(gc.author) : NULL;
	} else {
		subject = sb.culprit_subject ? xstrdup(sb.culprit_subject) : NULL;
		author = sb.culprit_author ? xstrdup(sb.culprit_author) : NULL;
	}
	if (sb.console)
		bg_console_parse(sb.console, &cm);
	before = kernel_line(x->s, c[0].id, BG_BASE, sb.metric);
	after = kernel_line(x->s, c[0].id, BG_CAND, sb.metric);
	b.id = id;
	b.tree = sb.tree;
	b.branch = branch;
	b.url = url;
	b.culprit = sb.culprit;
	b.subject = subject;
	b.author = author;
	b.metric = sb.metric;
	b.mode = sb.mode;
	b.console = bg_console_name(cm);
	b.board = sb.board;
	b.good = sb.good;
	b.bad = sb.bad;
	b.other_boards = others.buf;
	b.confidence = sb.confidence;
	b.line_before = before;
	b.line_after = after;
	b.step = verdict_in(&c[0], sb.metric);
	b.timing = verdict_in(&c[1], sb.metric);
	b.timing_init = verdict_in(&c[1], "boot.init");
	b.timing_boots = c[1].boots[BG_CAND];
	b.revert = verdict_in(&c[2], sb.metric);
	b.revert_applies = sb.revert_applies;
	b.regression_us = sb.regression_us;
	mail_steps(x, &bs, &st);
	b.steps = st.v;
	b.nsteps = st.n;
	repro_lines(t, sb.board, sb.mode, cm, &config, &make, &qemu);
	shell_words(&command, "bootgate", "bisect", "--tree", tree_path ? tree_path : ".",
		    "--name", sb.tree, "--good", sb.good, "--bad", sb.bad, "--board", sb.board,
		    "--mode", sb.mode, "--metric", sb.metric,
		    /* verbose, the default, is not said: the list ends there */
		    cm == BG_CONSOLE_QUIET ? "--console" : NULL, "quiet", NULL);
	shell_words(&rerun, "bootgate", "rerun", "--tree", sb.tree, sb.culprit, NULL);
	/* the boots the engine was told of, each lab job once, in the order they came */
	if (bg_store_bisection_job_urls(x->s, id, &urls) < 0)
		goto out;
	b.job_urls = (const char *const *)urls.v;
	b.njob_urls = urls.n;
	b.repro = (struct bg_mail_repro){ config.buf, command.buf, rerun.buf,
					  make.len ? make.buf : NULL,
					  qemu.len ? qemu.buf : NULL };
	closes = xasprintf("%s/bisection/%" PRId64 ".html", x->c->report.site_url, id);
	b.closes = closes;
	b.reporter = x->reporter;

	m.tree = sb.tree;
	m.branch = branch;
	m.kind = "bisection";
	m.message_id = xasprintf("bootgate-bisection-%" PRId64 "-%.12s@%s", id, sb.culprit,
				 x->domain);
	recipients(&t->mail, author, have_git ? gc.message : NULL, &m.to, &m.cc);
	b.regzbot = t->mail.regzbot;
	if (b.regzbot && !bg_mail_addrs_has(&m.to, BG_MAIL_REGRESSIONS))
		bg_mail_addrs_add(&m.cc, NULL, BG_MAIL_REGRESSIONS);
	bg_mail_bisection_subject(&m.subject, &b);
	bg_mail_bisection_body(&m.body, &b);
	ret = deliver(x, outbox, id, &m);
out:
	if (have_git)
		bg_git_commit_release(&gc);
	steps_release(&st);
	bg_bisection_steps_release(&bs);
	for (int i = 0; i < 3; i++)
		bg_stored_comparison_release(&c[i]);
	bg_stored_bisection_release(&sb);
	made_release(&m);
	bg_strbuf_release(&config);
	bg_strbuf_release(&make);
	bg_strbuf_release(&qemu);
	free(before);
	free(after);
	free(subject);
	free(author);
	free(tree_path);
	free(url);
	free(branch);
	bg_strbuf_release(&command);
	bg_strbuf_release(&rerun);
	bg_strbuf_release(&others);
	bg_strvec_release(&urls);
	free(closes);
	free(why);
	return ret;
}

/* ---- series ---- */

/* The patches as the mail reads them, borrowing from the stored ones. */
static struct bg_mail_patch *mail_patches(const struct bg_stored_patches *ps)
{
	struct bg_mail_patch *p = xcalloc(ps->n ? ps->n : 1, sizeof(*p));

	for (size_t i = 0; i < ps->n; i++) {
		const struct bg_stored_patch *q = &ps->v[i];

		p[i] = (struct bg_mail_patch){
			.idx = q->idx, .subject = q->subject, .message_id = q->message_id,
			.author = q->author, .status = q->status, .error = q->error,
			.commit = q->commit, .verdict = q->verdict, .metric = q->metric,
			.delta = q->delta,
		};
	}
	return p;
}

static int compose_series(struct ctx *x, int64_t outbox, int64_t id)
{
	struct bg_stored_series ss;
	struct bg_stored_patches ps = { NULL, 0, 0 };
	struct bg_stored_comparison cmp;
	struct bg_mail_patch *mp = NULL;
	const struct bg_service_tree *t;
	struct bg_mail_series se;
	struct bg_strvec urls = BG_STRVEC_INIT;
	struct made m;
	struct bg_strbuf config = BG_STRBUF_INIT, make = BG_STRBUF_INIT, qemu = BG_STRBUF_INIT;
	struct bg_strbuf rerun = BG_STRBUF_INIT;
	char *before = NULL, *after = NULL, *closes = NULL, *why = NULL, *branch = NULL;
	char *tree_path = NULL, *patch_text = NULL;
	const char *skip_why, *mode, *board;
	size_t reply = 0;
	bool regression = false;
	int best;                   /* without a regression: the patch that helped most */
	int64_t dup = 0;
	int ret = -1, found;

	memset(&m, 0, sizeof(m));
	memset(&se, 0, sizeof(se));
	bg_stored_series_init(&ss);
	bg_stored_comparison_init(&cmp);
	found = bg_store_series_get(x->s, id, &ss);
	if (found < 0 || (found && bg_store_series_patches(x->s, id, true, &ps) < 0))
		goto out;
	if (!found) {
		ret = skip(x, outbox, "series", id, "no such series in the store");
		goto out;
	}
	mp = mail_patches(&ps);
	skip_why = bg_mail_series_skip(ss.state, mp, ps.n, &reply, &regression);
	if (skip_why) {
		ret = skip(x, outbox, "series", id, skip_why);
		goto out;
	}
	t = ss.tree ? bg_service_conf_tree(x->c, ss.tree) : NULL;
	if (!t) {
		why = xasprintf("tree '%s' is not in the configuration: nobody to mail",
				ss.tree ? ss.tree : "(none)");
		ret = skip(x, outbox, "series", id, why);
		goto out;
	}
	m.about = xasprintf("series %" PRId64, id);
	if (bg_store_mail_about(x->s, m.about, &dup) < 0)
		goto out;
	if (dup) {
		why = xasprintf("this series was mailed already (mail %" PRId64 ")", dup);
		ret = skip(x, outbox, "series", id, why);
		goto out;
	}
	if (bg_store_tree_branch(x->s, ss.tree_id, &branch) < 0 ||
	    bg_store_tree_path(x->s, ss.tree_id, &tree_path) < 0)
		goto out;
	mode = ss.mode ? ss.mode : "timing";
	board = ss.board ? ss.board : "qemu-x86_64";
	best = -1;
	if (!regression) {
		/* the quoted figures and lines go to the patch that helped most */
		for (size_t i = 0; i < ps.n; i++)
			if (mp[i].idx > 0 && mp[i].verdict && mp[i].metric &&
			    !strcmp(mp[i].verdict, "improvement") &&
			    (best < 0 || mp[i].delta < mp[best].delta))
				best = (int)i;
	}
	if (regression || best >= 0) {
		size_t k = regression ? reply : (size_t)best;
		struct bg_mail_patch *p = &mp[k];

		if (ps.v[k].comparison_id &&
		    bg_store_comparison_get(x->s, ps.v[k].comparison_id, &cmp) < 0)
			goto out;
		p->v = cmp.id ? bg_comparison_find(&cmp.cmp, p->metric) : NULL;
		before = kernel_line(x->s, cmp.id, BG_BASE, p->metric);
		after = kernel_line(x->s, cmp.id, BG_CAND, p->metric);
		p->line_before = before;
		p->line_after = after;
	}
	se.id = id;
	se.tree = ss.tree;
	se.branch = branch;
	se.base = ss.base;
	se.mode = mode;
	se.console = bg_console_name(t->console);
	se.board = board;
	se.p = mp;
	se.n = ps.n;
	se.reply = reply;
	se.regression = regression;
	se.improved = !regression && best >= 0 ? &mp[best] : NULL;
	/* the boots of the base and of the tree after each patch, on the series' board */
	if (bg_store_series_job_urls(x->s, id, board, mode, ss.base, &urls) < 0)
		goto out;
	se.job_urls = (const char *const *)urls.v;
	se.njob_urls = urls.n;
	repro_lines(t, board, mode, t->console, &config, &make, &qemu);
	shell_words(&rerun, "b4", "am", mp[reply].message_id ? mp[reply].message_id : "", NULL);
	bg_strbuf_addstr(&rerun, " && ");
	shell_words(&rerun, "bootgate", "series", "--tree", tree_path ? tree_path : ".", "--name",
		    ss.tree, "--board", board, "--base", ss.base ? ss.base : "HEAD", "--mode", mode,
		    NULL);
	bg_strbuf_addstr(&rerun, " ./*.mbx");
	se.repro = (struct bg_mail_repro){ config.buf, rerun.buf, NULL,
					   make.len ? make.buf : NULL,
					   qemu.len ? qemu.buf : NULL };
	closes = xasprintf("%s/series/%" PRId64 ".html", x->c->report.site_url, id);
	se.closes = closes;
	se.reporter = x->reporter;

	m.tree = ss.tree;
	m.branch = branch;
	m.kind = "series";
	m.message_id = xasprintf("bootgate-series-%" PRId64 "-%d@%s", id, mp[reply].idx,
				 x->domain);
	if (bg_mail_msgid_ok(mp[reply].message_id))
		m.in_reply_to = xstrdup(mp[reply].message_id);
	/* the patch's author and the trailers of its message, from the mail as it came */
	patch_text = patch_message(ps.v[reply].mbox);
	recipients(&t->mail, mp[reply].author, patch_text, &m.to, &m.cc);
	bg_mail_series_subject(&m.subject, &se);
	bg_mail_series_body(&m.body, &se);
	ret = deliver(x, outbox, id, &m);
out:
	free(mp);
	bg_stored_patches_release(&ps);
	bg_stored_series_release(&ss);
	bg_stored_comparison_release(&cmp);
	made_release(&m);
	bg_strbuf_release(&config);
	bg_strbuf_release(&make);
	bg_strbuf_release(&qemu);
	free(before);
	free(after);
	free(closes);
	free(why);
	free(branch);
	free(tree_path);
	free(patch_text);
	bg_strbuf_release(&rerun);
	bg_strvec_release(&urls);
	return ret;
}

/* ---- the outbox ---- */

int bg_mailer_compose(struct bg_store *s, const struct bg_service_conf *c, bool dry_run,
		      bg_mailer_fn fn, void *data)
{
	struct bg_outbox_rows rows = { NULL, 0, 0 };
	struct ctx x = { s, c, { NULL, NULL }, NULL, NULL, dry_run, fn, data };
	int made = 0, ret = -1;

	if (bg_store_outbox_waiting(s, &rows) < 0) {
		bg_outbox_rows_release(&rows);
		return -1;
	}
	if (!rows.n) {
		bg_outbox_rows_release(&rows);
		return 0;
	}
	if (!c->report.enabled || !c->report.from) {
		bg_error("%s: 'report: from:' is not configured: %zu outbox rows wait", c->file,
			 rows.n);
		bg_outbox_rows_release(&rows);
		return -1;
	}
	if (bg_mail_addr_parse(c->report.from, &x.from) < 0) {
		bg_outbox_rows_release(&rows);
		return -1;
	}
	x.domain = strchr(x.from.addr, '@') + 1;
	x.reporter = x.from.name ? xasprintf("%s <%s>", x.from.name, x.from.addr)
				 : xasprintf("bootgate <%s>", x.from.addr);
	for (size_t i = 0; i < rows.n; i++) {
		const struct bg_outbox_row *o = &rows.v[i];
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
	bg_outbox_rows_release(&rows);
	free(x.reporter);
	bg_mail_addr_release(&x.from);
	return ret;
}

/* ---- sending ---- */

int bg_mailer_send(struct bg_store *s, const struct bg_service_conf *c, double backoff,
		   const volatile sig_atomic_t *stop, bg_mailer_fn fn, void *data)
{
	struct bg_due_mails due = { NULL, 0, 0 };
	struct bg_smtp srv = { c->report.smtp, c->report.smtp_user, NULL, 0, 0 };
	char *password = NULL;
	int64_t waiting = 0;
	int ret = -1;

	if (bg_store_mails_due(s, bg_store_now(), &due) < 0)
		goto out;
	if (due.n && !c->report.smtp) {
		bg_error("%s: 'report: smtp:' is not configured: %zu mails wait", c->file, due.n);
		goto out;
	}
	if (due.n && c->report.smtp_password_file &&
	    !(password = bg_secret_read(c->report.smtp_password_file, PASSWORD_MAX, NULL)))
		goto out;
	srv.password = password;
	for (size_t i = 0; i < due.n; i++) {
		struct bg_due_mail *d = &due.v[i];
		struct bg_mailer_event e = { "sent", 0, d->id, NULL, 0, d->message_id, d->subject,
					     NULL, NULL, d->attempts + 1, 0 };
		struct bg_strvec rcpt = BG_STRVEC_INIT;
		int taken;

		if (stop && *stop)
			break;
		/* the lease outlasts the longest try: no other mailer sends it meanwhile */
		taken = bg_store_mail_lease(s, d->id, bg_store_now() + BG_SMTP_TIMEOUT + 30);
		if (taken < 0)
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
			if (bg_store_mail_sent(s, d->id) < 0) {
				bg_strvec_release(&rcpt);
				goto out;
			}
		} else {
			double wait = fmin(BG_MAILER_BACKOFF_MAX,
					   backoff * pow(2, (double)(d->attempts < 20 ? d->attempts : 20)));

			e.what = "waiting";
			e.note = bg_error_last();
			e.not_before = bg_store_now() + wait;
			if (bg_store_mail_failed(s, d->id, e.not_before, e.note) < 0) {
				bg_strvec_release(&rcpt);
				goto out;
			}
		}
		bg_strvec_release(&rcpt);
		if (fn)
			fn(&e, data);
	}
	if (bg_store_mails_unsent(s, &waiting) < 0)
		goto out;
	ret = (int)waiting;
out:
	bg_due_mails_release(&due);
	bg_secret_free(password);
	return ret;
}

int bg_mailer_pending(struct bg_store *s, int64_t *n)
{
	return bg_store_mail_pending(s, bg_store_now(), n);
}
