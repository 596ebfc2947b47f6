/* The report mails as text (mail.h): headers, encoded words, wrapping, recipients, rules. */
#include <ctype.h>
#include <math.h>
#include <strings.h>
#include <time.h>

#include "decide/bisect.h"
#include "report/mail.h"
#include "report/comparison.h"
#include "util/error.h"
#include "util/text.h"
#include "util/xmalloc.h"

/* Q-encoded text of one encoded word: 75 minus "=?UTF-8?Q?" and "?=". */
#define QWORD_TEXT 63
/* A word longer than this is encoded, so that it folds like any other. */
#define HEADER_WORD_MAX 70
#define ADDR_MAX 254
#define MSGID_MAX 250
/*
 * A commit subject or a metric name in a Subject: header is cut after this many bytes:
 * a 64 KiB subject would make a header of a thousand lines (and more than some servers'
 * header size limit); the body quotes it whole.
 */
#define SUBJECT_PART 200
/* RFC 5322: a line is at most 998 octets without its CRLF. */
#define LINE_OCTETS 998

/* ---- UTF-8 ---- */

/*
 * The mail's policy: a control (C0, DEL or C1) becomes a space, so that no CR or LF
 * reaches a header or splits a body line; a byte that is not UTF-8 U+FFFD. The rest is
 * kept, a bidirectional formatting character too: the reader's mail program lays the
 * text out.
 */

static void clean_n(struct bg_strbuf *sb, const char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		struct bg_text_unit u = bg_text_next(s + i, n - i);

		if (u.kind == BG_TEXT_C0 || u.kind == BG_TEXT_C1)
			bg_strbuf_addch(sb, ' ');
		else if (u.kind == BG_TEXT_INVALID)
			bg_strbuf_addstr(sb, "\xef\xbf\xbd");
		else
			bg_strbuf_add(sb, s + i, u.len);
		i += u.len;
	}
}

void bg_mail_clean(struct bg_strbuf *sb, const char *s)
{
	if (s)
		clean_n(sb, s, strlen(s));
}

/* ---- addresses ---- */

static bool addr_char(int c)
{
	return c > 0x20 && c < 0x7f && !strchr("<>()[]\\,;:\"@", c);
}

bool bg_mail_addr_ok(const char *s)
{
	const char *at = s ? strchr(s, '@') : NULL;
	size_t n;

	if (!at || at == s || !at[1] || strchr(at + 1, '@') || (n = strlen(s)) > ADDR_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if (s + i != at && !addr_char((unsigned char)s[i]))
			return false;
	/* a domain of labels: no empty one */
	return at[1] != '.' && s[n - 1] != '.' && !strstr(at, "..") && s[0] != '.' &&
	       at[-1] != '.';
}

static char *trim(const char *s, size_t n)
{
	while (n && (*s == ' ' || *s == '\t'))
		s++, n--;
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	return xstrndup(s, n);
}

int bg_mail_addr_parse(const char *s, struct bg_mail_addr *out)
{
	const char *lt = strchr(s, '<'), *gt = lt ? strchr(lt, '>') : NULL;
	char *name = NULL, *addr;

	memset(out, 0, sizeof(*out));
	if (lt) {
		if (!gt || gt[1 + strspn(gt + 1, " \t")])
			return bg_error("'%s' is not an address: 'Name <local@domain>'", s);
		addr = xstrndup(lt + 1, (size_t)(gt - lt - 1));
		name = trim(s, (size_t)(lt - s));
		if (name[0] == '"' && strlen(name) >= 2 && name[strlen(name) - 1] == '"') {
			/* a quoted name: its quotes and backslashes go */
			char *w = name;

			for (const char *r = name + 1; r < name + strlen(name) - 1; r++) {
				if (*r == '\\' && r[1] && r + 1 < name + strlen(name) - 1)
					r++;
				*w++ = *r;
			}
			*w = '\0';
		}
		if (!*name) {
			free(name);
			name = NULL;
		}
	} else {
		addr = trim(s, strlen(s));
	}
	if (!bg_mail_addr_ok(addr)) {
		free(name);
		free(addr);
		return bg_error("'%s' is not an address bootgate mails: local@domain, printable "
				"ASCII without spaces", s);
	}
	out->name = name;
	out->addr = addr;
	return 0;
}

void bg_mail_addr_release(struct bg_mail_addr *a)
{
	free(a->name);
	free(a->addr);
	a->name = a->addr = NULL;
}

bool bg_mail_addrs_has(const struct bg_mail_addrs *l, const char *addr)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcasecmp(l->v[i].addr, addr))
			return true;
	return false;
}

bool bg_mail_addrs_add(struct bg_mail_addrs *l, const char *name, const char *addr)
{
	if (bg_mail_addrs_has(l, addr))
		return false;
	ALLOC_GROW(l->v, l->n + 1, l->alloc);
	l->v[l->n].name = name && *name ? xstrdup(name) : NULL;
	l->v[l->n].addr = xstrdup(addr);
	l->n++;
	return true;
}

void bg_mail_addrs_release(struct bg_mail_addrs *l)
{
	for (size_t i = 0; i < l->n; i++)
		bg_mail_addr_release(&l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/* Whether line (to eol) opens a trailer: "Token: value", the token letters, digits and '-'. */
static bool trailer_line(const char *line, const char *eol)
{
	size_t n = strspn(line, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-");

	return n && line + n < eol && line[n] == ':';
}

/*
 * The trailer block of message: its last paragraph, when every line of it is a trailer,
 * the continuation of one (it starts with a blank) or a maintainer's "[ note ]" (as git
 * interpret-trailers reads it, less its 25 % rule). [*start, *end) or false.
 */
static bool trailer_block(const char *message, const char **start, const char **end)
{
	const char *para = NULL, *para_end = NULL, *p;
	bool after_blank = true;

	for (p = message; *p;) {
		const char *eol = p + strcspn(p, "\r\n");
		bool blank = p + strspn(p, " \t") >= eol;

		if (!blank && after_blank)
			para = p;
		if (!blank)
			para_end = eol;
		after_blank = blank;
		/* one line end at a time: a blank line between two is a paragraph's end */
		p = eol + (*eol == '\r' && eol[1] == '\n' ? 2 : *eol ? 1 : 0);
	}
	if (!para)
		return false;
	for (p = para; p < para_end;) {
		const char *eol = p + strcspn(p, "\r\n");

		if (!trailer_line(p, eol) && *p != ' ' && *p != '\t' && *p != '[' && *p != '(')
			return false;
		p = eol + strspn(eol, "\r\n");
	}
	*start = para;
	*end = para_end;
	return true;
}

void bg_mail_trailers(const char *message, struct bg_mail_addrs *out)
{
	static const char *const keys[] = { "signed-off-by:", "cc:" };
	const char *p, *block_end;
	size_t added = 0;

	if (!message || !trailer_block(message, &p, &block_end))
		return;
	while (p < block_end && added < BG_MAIL_TRAILERS_MAX) {
		const char *eol = p + strcspn(p, "\r\n");

		for (size_t k = 0; k < ARRAY_SIZE(keys); k++) {
			size_t kl = strlen(keys[k]);
			struct bg_mail_addr a;
			const char *end = eol, *hash;
			char *v;

			if ((size_t)(eol - p) < kl || strncasecmp(p, keys[k], kl))
				continue;
			/* "Cc: <stable@vger.kernel.org> # 6.1": the comment is no address */
			hash = memchr(p + kl, '#', (size_t)(eol - p - (ptrdiff_t)kl));
			if (hash)
				end = hash;
			v = xstrndup(p + kl, (size_t)(end - p - (ptrdiff_t)kl));
			if (bg_mail_addr_parse(v, &a) == 0) {
				added += bg_mail_addrs_add(out, a.name, a.addr);
				bg_mail_addr_release(&a);
			}
			free(v);
		}
		p = eol + strspn(eol, "\r\n");
	}
}

bool bg_mail_msgid_ok(const char *id)
{
	const char *at = id ? strchr(id, '@') : NULL;
	size_t n;

	if (!at || at == id || !at[1] || strchr(at + 1, '@') || (n = strlen(id)) > MSGID_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if (id + i != at && !addr_char((unsigned char)id[i]))
			return false;
	return true;
}

/* ---- headers ---- */

static bool atext_word(const char *w, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)w[i]) && !strchr("!#$%&'*+-/=?^_`{|}~", w[i]))
			return false;
	return n > 0;
}

/* Whether a word of unstructured text must be encoded to stay what it is. */
static bool needs_encoding(const char *w, size_t n)
{
	if (n > HEADER_WORD_MAX || (n >= 2 && w[0] == '=' && w[1] == '?'))
		return true;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)w[i] >= 0x80)
			return true;
	return false;
}

/*
 * Whether a word must be encoded: in a phrase (a display name) also any word that is not
 * atext; a long one or one reading as an encoded word in either, as a name comes from
 * anyone's commit trailer as freely as a subject does.
 */
static bool must_encode(const char *w, size_t n, bool phrase)
{
	return needs_encoding(w, n) || (phrase && !atext_word(w, n));
}

struct fold {
	struct bg_strbuf *sb;
	size_t col;
	bool first;             /* nothing after "Name: " yet */
};

/* One item that cannot be split; space before it unless glue. */
static void fold_item(struct fold *f, const char *s, size_t n, bool glue)
{
	if (!f->first && !glue && f->col + 1 + n > BG_MAIL_HEADER_COLUMNS) {
		bg_strbuf_addstr(f->sb, "\r\n ");
		f->col = 1;
	} else if (!f->first && !glue) {
		bg_strbuf_addch(f->sb, ' ');
		f->col++;
	}
	bg_strbuf_add(f->sb, s, n);
	f->col += n;
	f->first = false;
}

/* Text (cleaned) as Q encoded words of at most 75 characters, split between characters. */
static void fold_encoded(struct fold *f, const char *s, size_t n)
{
	struct bg_strbuf w = BG_STRBUF_INIT;
	size_t text = 0;

	bg_strbuf_addstr(&w, "=?UTF-8?Q?");
	for (size_t i = 0; i < n;) {
		size_t len = bg_text_next(s + i, n - i).len, need = 0;

		for (size_t k = 0; k < len; k++) {
			unsigned char c = (unsigned char)s[i + k];

			need += isalnum(c) || c == ' ' || strchr("!*+-/", c) ? 1 : 3;
		}
		if (text && text + need > QWORD_TEXT) {
			bg_strbuf_addstr(&w, "?=");
			fold_item(f, w.buf, w.len, false);
			bg_strbuf_reset(&w);
			bg_strbuf_addstr(&w, "=?UTF-8?Q?");
			text = 0;
		}
		for (size_t k = 0; k < len; k++) {
			unsigned char c = (unsigned char)s[i + k];

			if (c == ' ')
				bg_strbuf_addch(&w, '_');
			else if (isalnum(c) || strchr("!*+-/", c))
				bg_strbuf_addch(&w, c);
			else
				bg_strbuf_addf(&w, "=%02X", c);
		}
		text += need;
		i += len;
	}
	bg_strbuf_addstr(&w, "?=");
	fold_item(f, w.buf, w.len, false);
	bg_strbuf_release(&w);
}

/* Words of cleaned text; runs of words that need encoding become encoded words. */
static void fold_words(struct fold *f, const char *s, bool phrase)
{
	const char *p = s;

	while (*p) {
		const char *w, *run_end = NULL;
		size_t n;

		p += strspn(p, " ");
		if (!*p)
			break;
		w = p;
		n = strcspn(w, " ");
		if (must_encode(w, n, phrase)) {
			/* the run goes on while the words need it: the spaces are kept inside */
			const char *q = w + n;

			run_end = q;
			for (;;) {
				const char *nw = q + strspn(q, " ");
				size_t nn = strcspn(nw, " ");

				if (!nn || !must_encode(nw, nn, phrase))
					break;
				run_end = q = nw + nn;
			}
			fold_encoded(f, w, (size_t)(run_end - w));
			p = run_end;
		} else {
			fold_item(f, w, n, false);
			p = w + n;
		}
	}
}

void bg_mail_header_text(struct bg_strbuf *sb, const char *name, const char *value)
{
	struct bg_strbuf v = BG_STRBUF_INIT;
	struct fold f = { sb, 0, true };

	bg_mail_clean(&v, value);
	bg_strbuf_addf(sb, "%s:", name);
	f.col = strlen(name) + 1;
	bg_strbuf_addch(sb, ' ');
	f.col++;
	fold_words(&f, v.buf, false);
	bg_strbuf_addstr(sb, "\r\n");
	bg_strbuf_release(&v);
}

void bg_mail_header_addrs(struct bg_strbuf *sb, const char *name, const struct bg_mail_addrs *l)
{
	struct fold f = { sb, 0, true };

	bg_strbuf_addf(sb, "%s: ", name);
	f.col = strlen(name) + 2;
	for (size_t i = 0; i < l->n; i++) {
		struct bg_strbuf a = BG_STRBUF_INIT;

		if (l->v[i].name) {
			struct bg_strbuf v = BG_STRBUF_INIT;

			bg_mail_clean(&v, l->v[i].name);
			fold_words(&f, v.buf, true);
			bg_strbuf_release(&v);
			bg_strbuf_addf(&a, "<%s>", l->v[i].addr);
		} else {
			bg_strbuf_addstr(&a, l->v[i].addr);
		}
		if (i + 1 < l->n)
			bg_strbuf_addch(&a, ',');
		fold_item(&f, a.buf, a.len, false);
		bg_strbuf_release(&a);
	}
	bg_strbuf_addstr(sb, "\r\n");
}

void bg_mail_date(char *buf, size_t size, time_t t)
{
	static const char days[7][4] = { "Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat" };
	static const char months[12][4] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul",
					    "Aug", "Sep", "Oct", "Nov", "Dec" };
	struct tm tm;

	gmtime_r(&t, &tm);
	snprintf(buf, size, "%s, %02d %s %04d %02d:%02d:%02d +0000", days[tm.tm_wday],
		 tm.tm_mday, months[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min,
		 tm.tm_sec);
}

/* ---- bodies ---- */

static void wrap_words(struct bg_strbuf *sb, const char *first, const char *rest,
		       const char *text, const char *brk)
{
	struct bg_strbuf v = BG_STRBUF_INIT;
	size_t col = bg_text_columns(first, strlen(first)), start = col, bl = strlen(brk);
	const char *p;

	bg_mail_clean(&v, text);
	bg_strbuf_addstr(sb, first);
	for (p = v.buf; *p;) {
		size_t n, w;

		p += strspn(p, " ");
		if (!*p)
			break;
		n = strcspn(p, " ");
		if (*brk) {
			/* a shell word: a quoted part holds its spaces, a break inside would not */
			const char *q = p;

			for (; *q && *q != ' '; q++)
				if (*q == '\\' && q[1])
					q++;
				else if (*q == '\'' && strchr(q + 1, '\''))
					q = strchr(q + 1, '\'');
			n = (size_t)(q - p);
		}
		w = bg_text_columns(p, n);
		if (col > start && col + 1 + w + (p[n] ? bl : 0) > BG_MAIL_BODY_COLUMNS) {
			bg_strbuf_addf(sb, "%s\n%s", brk, rest);
			col = start = bg_text_columns(rest, strlen(rest));
		} else if (col > start) {
			bg_strbuf_addch(sb, ' ');
			col++;
		}
		bg_strbuf_add(sb, p, n);
		col += w;
		p += n;
	}
	bg_strbuf_addch(sb, '\n');
	bg_strbuf_release(&v);
}

void bg_mail_wrap(struct bg_strbuf *sb, const char *first, const char *rest, const char *text)
{
	wrap_words(sb, first, rest, text, "");
}

void bg_mail_command(struct bg_strbuf *sb, const char *indent, const char *cmd)
{
	char *rest = xasprintf("%*s", (int)bg_text_columns(indent, strlen(indent)) + 4, "");

	wrap_words(sb, indent, rest, cmd, " \\");
	free(rest);
}

void bg_mail_shell_word(struct bg_strbuf *sb, const char *s)
{
	static const char plain[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
				    "0123456789@%+=:,./_-";

	if (*s && !s[strspn(s, plain)]) {
		bg_strbuf_addstr(sb, s);
		return;
	}
	bg_strbuf_addch(sb, '\'');
	for (; *s; s++)
		if (*s == '\'')
			bg_strbuf_addstr(sb, "'\\''");
		else
			bg_strbuf_addch(sb, *s);
	bg_strbuf_addch(sb, '\'');
}

/* ---- when to mail ---- */

const char *bg_mail_bisection_skip(const char *state, const char *outcome, const char *culprit,
				   double confidence, double floor)
{
	static char why[96];

	if (!state || strcmp(state, "done"))
		return "the bisection did not end";
	if (outcome && !strcmp(outcome, BG_BISECT_UNCONFIRMED))
		return "unconfirmed: reverting the culprit on the bad tip took nothing back";
	if (!outcome || strcmp(outcome, "found"))
		return "no culprit: the outcome is not 'found'";
	if (!culprit || !*culprit)
		return "no single culprit commit";
	if (isnan(confidence) || confidence < floor) {
		snprintf(why, sizeof(why), "confidence %.3f is below the floor %.3f",
			 isnan(confidence) ? 0.0 : confidence, floor);
		return why;
	}
	return NULL;
}

const char *bg_mail_series_skip(const char *state, const struct bg_mail_patch *p, size_t n,
				size_t *reply, bool *regression)
{
	size_t cover = n, first = n, worst = n;

	if (!state || strcmp(state, "done"))
		return "the series was not measured to its end";
	for (size_t i = 0; i < n; i++) {
		if (p[i].idx == 0) {
			cover = i;
			continue;
		}
		if (first == n || p[i].idx < p[first].idx)
			first = i;
		if (p[i].status && !strcmp(p[i].status, "failed"))
			return "a patch did not apply";
		if (p[i].verdict && !strcmp(p[i].verdict, "regression") &&
		    (worst == n || p[i].delta > p[worst].delta))
			worst = i;
	}
	if (first == n)
		return "the series has no patch";
	{
		bool known = false;

		for (size_t i = 0; i < n; i++)
			if (p[i].idx && p[i].verdict && strcmp(p[i].verdict, "unknown"))
				known = true;
		if (!known)
			return "nothing but unknown was measured";
	}
	*regression = worst != n;
	*reply = worst != n ? worst : cover != n ? cover : first;
	return NULL;
}

/* ---- the reports ---- */

static const char *nz(const char *s, const char *def)
{
	return s && *s ? s : def;
}

/* A quiet console is another boot than the usual initcall_debug one: the mail says so. */
static const char *quiet_words(const char *console)
{
	return console && !strcmp(console, "quiet") ? ", quiet console" : "";
}

/* s cleaned, or its first SUBJECT_PART bytes (never half a UTF-8 sequence) and "...". */
static void subject_part(struct bg_strbuf *sb, const char *s)
{
	struct bg_strbuf c = BG_STRBUF_INIT;
	size_t len = 0;

	bg_mail_clean(&c, s);
	while (len < c.len && len < SUBJECT_PART)
		len += bg_text_next(c.buf + len, c.len - len).len;
	bg_strbuf_add(sb, c.buf, len);
	if (len < c.len)
		bg_strbuf_addstr(sb, "...");
	bg_strbuf_release(&c);
}

/* The figure a report leads with: timing mode's when a deterministic bisection has it. */
static void headline(const struct bg_mail_bisection *b, struct bg_headline *h)
{
	bg_headline_pick(b->step, b->mode && !strcmp(b->mode, "deterministic"), b->timing, h);
}

void bg_mail_bisection_subject(struct bg_strbuf *sb, const struct bg_mail_bisection *b)
{
	char pct[32];
	struct bg_headline h;

	headline(b, &h);
	bg_strbuf_addf(sb, "[%s:%s] %.12s ", b->tree, b->branch, b->culprit);
	subject_part(sb, nz(b->subject, "(no subject)"));
	bg_strbuf_addstr(sb, ": ");
	subject_part(sb, nz(b->metric, ""));
	if (h.paid && !isnan(h.paid->delta))
		bg_strbuf_addf(sb, " %+.0f \xc2\xb5s (%s)", h.paid->delta,
			       bg_pct_text(pct, sizeof(pct), h.paid->delta_pct));
	bg_strbuf_addstr(sb, " boot-time regression");
	if (b->board) {
		bg_strbuf_addstr(sb, " on ");
		subject_part(sb, b->board);
	}
}

void bg_mail_series_subject(struct bg_strbuf *sb, const struct bg_mail_series *s)
{
	const char *subj = nz(s->p[s->reply].subject, "(no subject)");

	if (strncasecmp(subj, "re:", 3) != 0)
		bg_strbuf_addstr(sb, "Re: ");
	subject_part(sb, subj);
}

static void kernel_lines(struct bg_strbuf *sb, const char *before, const char *after)
{
	if (!before && !after)
		return;
	bg_strbuf_addstr(sb, "\nThe kernel's own lines, before and after:\n\n");
	bg_mail_wrap(sb, "    ", "        ", nz(before, "(absent)"));
	bg_mail_wrap(sb, "  \xe2\x86\x92 ", "        ", nz(after, "(absent)"));
}

static void figures(struct bg_strbuf *sb, const struct bg_verdict *f, const char *what)
{
	char pct[32];

	if (!f)
		return;
	bg_strbuf_addf(sb, "\nFigures, %s:\n", what);
	bg_strbuf_addf(sb, "  boots    %zu before, %zu after\n", f->n_base, f->n_cand);
	bg_strbuf_addf(sb, "  median   %.0f -> %.0f \xc2\xb5s\n", f->base_median, f->cand_median);
	bg_strbuf_addf(sb, "  spread   %.0f and %.0f \xc2\xb5s (median absolute deviation)\n",
		       f->mad_base, f->mad_cand);
	bg_strbuf_addf(sb, "  change   %+.0f \xc2\xb5s (%s), 95%% interval %+.0f to %+.0f\n",
		       f->delta, bg_pct_text(pct, sizeof(pct), f->delta_pct), f->ci_lo, f->ci_hi);
	if (f->exact)
		bg_strbuf_addstr(sb, "  test     none needed: every boot repeated its value "
			       "exactly\n");
	else
		bg_strbuf_addf(sb, "  test     p = %.2g, q = %.2g (Welch, Benjamini-Hochberg)\n",
			       f->p, f->q);
}

static void repro(struct bg_strbuf *sb, const struct bg_mail_repro *r)
{
	bg_strbuf_addstr(sb, "\nTo reproduce:\n\n");
	if (r->config)
		bg_mail_wrap(sb, "  config: ", "          ", r->config);
	if (r->command)
		bg_mail_command(sb, "  $ ", r->command);
	if (r->rerun)
		bg_mail_command(sb, "  $ ", r->rerun);
	if (r->make || r->qemu)
		bg_strbuf_addstr(sb, "\nor by hand, as bootgate runs them:\n\n");
	for (const char *p = r->make; p && *p;) {
		size_t n = strcspn(p, "\n");
		char *line = xstrndup(p, n);

		bg_mail_command(sb, "  $ ", line);
		free(line);
		p += n + (p[n] == '\n');
	}
	if (r->qemu)
		bg_mail_command(sb, "  $ ", r->qemu);
}

/* "Boots ran on BOARD: URL ...", each URL a word of its own: none, no paragraph. */
static void lab_jobs(struct bg_strbuf *sb, const char *board, const char *const *urls,
		     size_t n)
{
	struct bg_strbuf t = BG_STRBUF_INIT;

	if (!n)
		return;
	bg_strbuf_addf(&t, "Boots ran on %s:", board);
	for (size_t i = 0; i < n; i++)
		bg_strbuf_addf(&t, " %s", urls[i]);
	bg_strbuf_addch(sb, '\n');
	bg_mail_wrap(sb, "", "", t.buf);
	bg_strbuf_release(&t);
}

static void tags(struct bg_strbuf *sb, const char *reporter, const char *closes,
		 const char *culprit, const char *subject)
{
	struct bg_strbuf v = BG_STRBUF_INIT;

	bg_strbuf_addstr(sb, "\nIf you fix it in a separate commit, please add these tags\n"
			 "(kernel tags are never wrapped):\n\n");
	/* checkpatch: Reported-by: is immediately followed by Closes: */
	bg_mail_clean(&v, reporter);
	bg_strbuf_addf(sb, "Reported-by: %s\n", v.buf);
	bg_strbuf_reset(&v);
	bg_mail_clean(&v, closes);
	bg_strbuf_addf(sb, "Closes: %s\n", v.buf);
	if (culprit) {
		bg_strbuf_reset(&v);
		bg_mail_clean(&v, nz(subject, ""));
		bg_strbuf_addf(sb, "Fixes: %.12s (\"%s\")\n", culprit, v.buf);
	}
	bg_strbuf_release(&v);
}

static void signature(struct bg_strbuf *sb)
{
	bg_strbuf_addstr(sb, "\n-- \nbootgate: boot-time regressions found, bisected and "
			 "measured again\nby a machine. It can be wrong: the figures above are "
			 "its evidence.\n");
}

/*
 * The first paragraph: what a boot pays, in timing mode when a deterministic bisection
 * was confirmed there, and then the deterministic figure as the exact evidence of where,
 * with the ratio of the two (instructions are counted, so compute and waits are inflated).
 */
static void lead(struct bg_strbuf *t, const struct bg_mail_bisection *b)
{
	char pct[32];
	struct bg_headline h;

	headline(b, &h);
	bg_strbuf_addf(t, "bootgate bisected a boot-time regression of %s on %s:%s to this "
		       "commit", b->metric, b->tree, b->branch);
	if (!h.paid) {
		bg_strbuf_addch(t, '.');
		return;
	}
	bg_strbuf_addf(t, ": %s went from %.0f to %.0f \xc2\xb5s (%+.0f \xc2\xb5s, %s)%s.",
		       b->metric, h.paid->base_median, h.paid->cand_median, h.paid->delta,
		       bg_pct_text(pct, sizeof(pct), h.paid->delta_pct),
		       h.exact ? " in timing mode, what a boot pays" : "");
	if (h.exact) {
		bg_strbuf_addf(t, " Deterministic mode, which counts instructions, shows %+.0f "
			       "\xc2\xb5s (%s)", h.exact->delta,
			       bg_pct_text(pct, sizeof(pct), h.exact->delta_pct));
		if (!isnan(h.ratio))
			bg_strbuf_addf(t, ", %.1f times that", h.ratio);
		bg_strbuf_addstr(t, ": the exact evidence of where the time goes.");
	}
}

void bg_mail_bisection_body(struct bg_strbuf *sb, const struct bg_mail_bisection *b)
{
	struct bg_strbuf t = BG_STRBUF_INIT;

	lead(&t, b);
	bg_mail_wrap(sb, "", "", t.buf);
	bg_strbuf_addch(sb, '\n');
	bg_strbuf_reset(&t);
	bg_strbuf_addf(&t, "%s (\"%s\")", b->culprit, nz(b->subject, ""));
	bg_mail_wrap(sb, "commit: ", "        ", t.buf);
	if (b->author)
		bg_mail_wrap(sb, "author: ", "        ", b->author);
	if (b->date)
		bg_mail_wrap(sb, "date:   ", "        ", b->date);
	bg_strbuf_reset(&t);
	bg_strbuf_addf(&t, "%s %s %s", b->tree, b->branch, nz(b->url, ""));
	bg_mail_wrap(sb, "tree:   ", "        ", t.buf);
	bg_strbuf_reset(&t);
	bg_strbuf_addf(&t, "%.12s..%.12s", b->good, b->bad);
	bg_mail_wrap(sb, "range:  ", "        ", t.buf);
	bg_strbuf_reset(&t);
	bg_strbuf_addf(&t, "%s, %s mode%s", b->board, b->mode, quiet_words(b->console));
	bg_mail_wrap(sb, "board:  ", "        ", t.buf);
	if (b->other_boards && *b->other_boards) {
		bg_strbuf_reset(&t);
		bg_strbuf_addf(&t, "other boards: %s", b->other_boards);
		bg_mail_wrap(sb, "", "        ", t.buf);
	}

	kernel_lines(sb, b->line_before, b->line_after);
	figures(sb, b->step, "the culprit's parent against the culprit");

	bg_strbuf_reset(&t);
	bg_strbuf_addf(&t, "Confidence: the bisection gives this commit a posterior "
		       "probability of %.3f of being the first slow one.", b->confidence);
	bg_strbuf_addch(sb, '\n');
	bg_mail_wrap(sb, "", "", t.buf);
	if (b->timing) {
		bg_strbuf_reset(&t);
		bg_strbuf_addf(&t, "Timing mode %s it: %u boots a side, %+.0f \xc2\xb5s "
			       "(%.0f -> %.0f), p = %.2g; boot.init ",
			       b->timing->verdict == BG_DIFFERENT ? "confirmed" : "did not confirm",
			       b->timing_boots, b->timing->delta, b->timing->base_median,
			       b->timing->cand_median, b->timing->p);
		if (b->timing_init)
			bg_strbuf_addf(&t, "%+.0f \xc2\xb5s (%s).", b->timing_init->delta,
				       bg_verdict_name(b->timing_init->verdict));
		else
			bg_strbuf_addstr(&t, "not measured.");
		bg_mail_wrap(sb, "", "", t.buf);
	} else if (!b->mode || strcmp(b->mode, "timing")) {
		bg_mail_wrap(sb, "", "", "It was not measured again in timing mode.");
	}
	bg_strbuf_reset(&t);
	bg_revert_text(&t, b->revert_applies, b->revert, b->regression_us);
	if (t.len) {
		t.buf[0] = (char)toupper((unsigned char)t.buf[0]);
		bg_strbuf_addch(&t, '.');
		bg_mail_wrap(sb, "", "", t.buf);
	}

	if (b->nsteps) {
		bg_strbuf_addf(sb, "\nBisection log (commit, verdict, %s in \xc2\xb5s):\n\n",
			       b->metric);
		for (size_t i = 0; i < b->nsteps; i++) {
			const struct bg_mail_step *s = &b->steps[i];

			bg_strbuf_reset(&t);
			bg_strbuf_addf(&t, "%.12s %-7s %s", s->commit, nz(s->verdict, "-"),
				       nz(s->values, "-"));
			if (s->subject)
				bg_strbuf_addf(&t, " %s", s->subject);
			bg_mail_wrap(sb, "  ", "                       ", t.buf);
		}
	}
	lab_jobs(sb, b->board, b->job_urls, b->njob_urls);
	repro(sb, &b->repro);
	/* regzbot reads this line anywhere in the report (handling-regressions.rst) */
	if (b->regzbot)
		bg_strbuf_addf(sb, "\n#regzbot introduced: %.12s\n", b->culprit);
	tags(sb, b->reporter, b->closes, b->culprit, b->subject);
	signature(sb);
	bg_strbuf_release(&t);
}

/* "Patch 2/3 made METRIC slower: B -> C µs (+D µs, +P%)", its verdict's figures */
static void patch_change(struct bg_strbuf *t, const struct bg_mail_patch *p, size_t total,
			 const char *how)
{
	char pct[32];

	bg_strbuf_addf(t, "Patch %d/%zu made %s %s", p->idx, total, nz(p->metric, "?"), how);
	if (p->v)
		bg_strbuf_addf(t, ": %.0f -> %.0f \xc2\xb5s (%+.0f \xc2\xb5s, %s)",
			       p->v->base_median, p->v->cand_median, p->v->delta,
			       bg_pct_text(pct, sizeof(pct), p->v->delta_pct));
	else if (!isnan(p->delta))
		bg_strbuf_addf(t, " by %+.0f \xc2\xb5s", p->delta);
}

void bg_mail_series_body(struct bg_strbuf *sb, const struct bg_mail_series *s)
{
	const struct bg_mail_patch *r = &s->p[s->reply];
	size_t total = 0;
	struct bg_strbuf t = BG_STRBUF_INIT;

	for (size_t i = 0; i < s->n; i++)
		total += s->p[i].idx > 0;
	if (r->author) {
		struct bg_mail_addr a;

		if (bg_mail_addr_parse(r->author, &a) == 0 && a.name) {
			bg_strbuf_addf(&t, "Hi %.*s,", (int)strcspn(a.name, " "), a.name);
			bg_mail_wrap(sb, "", "", t.buf);
			bg_strbuf_addch(sb, '\n');
		}
		bg_mail_addr_release(&a);
	}
	bg_strbuf_reset(&t);
	bg_strbuf_addf(&t, "bootgate applied this series of %zu patches to %s:%s (base %.12s), "
		       "built and booted the tree after each patch on %s in %s mode%s, and "
		       "compared it with the tree before.", total, s->tree, s->branch,
		       nz(s->base, "?"), s->board, s->mode, quiet_words(s->console));
	bg_mail_wrap(sb, "", "", t.buf);
	if (s->regression) {
		bg_strbuf_reset(&t);
		patch_change(&t, r, total, "slower");
		bg_strbuf_addch(&t, '.');
		bg_strbuf_addch(sb, '\n');
		bg_mail_wrap(sb, "", "", t.buf);
		kernel_lines(sb, r->line_before, r->line_after);
		figures(sb, r->v, "the tree before the patch against the tree after it");
	} else if (s->improved) {
		const struct bg_mail_patch *f = s->improved;

		bg_strbuf_reset(&t);
		patch_change(&t, f, total, "faster");
		bg_strbuf_addstr(&t, ", and no patch made boot slower.");
		bg_strbuf_addch(sb, '\n');
		bg_mail_wrap(sb, "", "", t.buf);
		kernel_lines(sb, f->line_before, f->line_after);
		figures(sb, f->v, "the tree before the patch against the tree after it");
	}
	bg_strbuf_addstr(sb, "\nPatch by patch (the metric that moved most):\n\n");
	for (size_t i = 0; i < s->n; i++) {
		const struct bg_mail_patch *p = &s->p[i];

		if (!p->idx)
			continue;
		bg_strbuf_reset(&t);
		if (p->metric && p->verdict && strcmp(p->verdict, "unknown"))
			bg_strbuf_addf(&t, "%2d/%zu %-11s %+9.0f \xc2\xb5s %s", p->idx, total,
				       p->verdict, p->delta, p->metric);
		else
			bg_strbuf_addf(&t, "%2d/%zu %-11s", p->idx, total,
				       nz(p->verdict, nz(p->status, "-")));
		bg_mail_wrap(sb, "  ", "                            ", t.buf);
	}
	lab_jobs(sb, s->board, s->job_urls, s->njob_urls);
	repro(sb, &s->repro);
	tags(sb, s->reporter, s->closes, NULL, NULL);
	signature(sb);
	bg_strbuf_release(&t);
}

/* ---- the message ---- */

void bg_mail_message(struct bg_strbuf *out, const struct bg_mail_head *h, const char *body)
{
	struct bg_mail_addrs from = { (struct bg_mail_addr *)&h->from, 1, 1 };
	char date[64];

	bg_mail_date(date, sizeof(date), h->date);
	bg_mail_header_addrs(out, "From", &from);
	if (h->to && h->to->n)
		bg_mail_header_addrs(out, "To", h->to);
	if (h->cc && h->cc->n)
		bg_mail_header_addrs(out, "Cc", h->cc);
	bg_mail_header_text(out, "Subject", h->subject);
	bg_strbuf_addf(out, "Date: %s\r\n", date);
	bg_strbuf_addf(out, "Message-ID: <%s>\r\n", h->message_id);
	if (h->in_reply_to && bg_mail_msgid_ok(h->in_reply_to))
		bg_strbuf_addf(out, "In-Reply-To: <%s>\r\nReferences: <%s>\r\n", h->in_reply_to,
			       h->in_reply_to);
	bg_strbuf_addstr(out, "MIME-Version: 1.0\r\n"
			 "Content-Type: text/plain; charset=utf-8\r\n"
			 "Content-Transfer-Encoding: 8bit\r\n");
	bg_mail_header_text(out, "X-Bootgate-Tree", h->tree);
	bg_mail_header_text(out, "X-Bootgate-Branch", h->branch);
	bg_mail_header_text(out, "X-Bootgate-Kind", h->kind);
	bg_strbuf_addstr(out, "\r\n");
	for (size_t col = 0; *body; body++) {
		/* a CR goes before the break test: the CR of a CRLF would break the line there */
		if (*body == '\r')
			continue;
		/*
		 * a longer line (a 64 KiB kernel line) is broken before a character; a run of
		 * stray continuation bytes, where there is none, at the limit itself
		 */
		if (*body != '\n' && (col >= LINE_OCTETS ||
				      (col + 3 >= LINE_OCTETS && ((unsigned char)*body & 0xc0) != 0x80))) {
			bg_strbuf_addstr(out, "\r\n");
			col = 0;
		}
		if (*body == '\n') {
			bg_strbuf_addstr(out, "\r\n");
			col = 0;
		} else {
			bg_strbuf_addch(out, *body);
			col++;
		}
	}
	if (out->len < 2 || strcmp(out->buf + out->len - 2, "\r\n"))
		bg_strbuf_addstr(out, "\r\n");
}
