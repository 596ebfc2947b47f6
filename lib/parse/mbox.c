/* Mail as the lists carry it, read into struct bg_msg and grouped into series (mbox.h). */
#include "parse/mbox.h"
#include "util/error.h"
#include "util/strbuf.h"
#include "util/strmap.h"
#include "util/strvec.h"
#include "util/xmalloc.h"

#include <ctype.h>
#include <iconv.h>

#define MIME_DEPTH_MAX 50

struct hdr {
	char *name;
	char *value;        /* unfolded, trimmed */
	size_t line;
};

struct hdrs {
	struct hdr *v;
	size_t n, alloc;
};

static void hdrs_release(struct hdrs *h)
{
	for (size_t i = 0; i < h->n; i++) {
		free(h->v[i].name);
		free(h->v[i].value);
	}
	free(h->v);
	h->v = NULL;
	h->n = h->alloc = 0;
}

/* The first header called name (case-insensitive): duplicates after it are ignored. */
static const struct hdr *hdr_get(const struct hdrs *h, const char *name)
{
	for (size_t i = 0; i < h->n; i++)
		if (!strcasecmp(h->v[i].name, name))
			return &h->v[i];
	return NULL;
}

static const char *hdr_value(const struct hdrs *h, const char *name)
{
	const struct hdr *x = hdr_get(h, name);

	return x ? x->value : NULL;
}

static bool is_wsp(int c)
{
	return c == ' ' || c == '\t';
}

static char *trim_dup(const char *s, size_t len)
{
	while (len && isspace((unsigned char)*s)) {
		s++;
		len--;
	}
	while (len && isspace((unsigned char)s[len - 1]))
		len--;
	return xstrndup(s, len);
}

static const char *line_end(const char *p, const char *end)
{
	const char *nl = memchr(p, '\n', end - p);

	return nl ? nl : end;
}

static int add_header(struct hdrs *h, struct bg_strbuf *cur, size_t line)
{
	const char *colon = memchr(cur->buf, ':', cur->len);
	struct hdr *x;

	ALLOC_GROW(h->v, h->n + 1, h->alloc);
	x = &h->v[h->n++];
	x->name = trim_dup(cur->buf, colon - cur->buf);
	x->value = trim_dup(colon + 1, cur->len - (colon + 1 - cur->buf));
	x->line = line;
	return 0;
}

/* Is [p, e) "Name: value": a field name of printable characters but space, then ':'? */
static bool is_header_line(const char *p, const char *e)
{
	const char *s;

	for (s = p; s < e && *s != ':'; s++)
		if ((unsigned char)*s <= ' ' || (unsigned char)*s >= 127)
			return false;
	return s < e && s > p;
}

/*
 * Reads the header block at [p, end) (LF line ends), *line being the number of its first
 * line; leaves *body at the first byte after the blank line and *line at its number.
 * strict (a whole message): every line must be a header, there must be one. Else (a MIME
 * part) a line that is not a header starts the body.
 */
static int parse_headers(const char *name, const char *p, const char *end, size_t *line,
			 bool strict, struct hdrs *h, const char **body)
{
	struct bg_strbuf cur = BG_STRBUF_INIT;
	size_t cur_line = 0, first = *line;
	int ret = -1;

	while (p < end) {
		const char *e = line_end(p, end);

		if (e == p)
			break;
		if (is_wsp(*p) && cur.len) {
			bg_strbuf_add(&cur, p, e - p);
		} else if (is_header_line(p, e)) {
			if (cur.len)
				add_header(h, &cur, cur_line);
			bg_strbuf_reset(&cur);
			bg_strbuf_add(&cur, p, e - p);
			cur_line = *line;
		} else if (strict && *line == first && e - p >= 5 && !memcmp(p, "From ", 5)) {
			/* an mbox separator in front of a single message */
		} else if (strict) {
			bg_error("%s:%zu: not a header line", name, *line);
			goto out;
		} else {
			break;
		}
		if (cur.len > BG_MSG_HEADER_MAX) {
			bg_error("%s:%zu: header line longer than %u bytes", name, cur_line,
				 BG_MSG_HEADER_MAX);
			goto out;
		}
		(*line)++;
		p = e < end ? e + 1 : end;
	}
	if (cur.len)
		add_header(h, &cur, cur_line);
	if (p < end && *p == '\n') {
		p++;
		(*line)++;
	}
	if (strict && !h->n) {
		bg_error("%s:%zu: no header", name, first);
		goto out;
	}
	*body = p;
	ret = 0;
out:
	bg_strbuf_release(&cur);
	return ret;
}

/* ---- charsets and encodings */

static bool is_utf8_name(const char *cs)
{
	return !strcasecmp(cs, "utf-8") || !strcasecmp(cs, "utf8") ||
	       !strcasecmp(cs, "us-ascii") || !strcasecmp(cs, "ascii");
}

/* Appends s[0..len) in charset cs as UTF-8; an unknown charset is copied as it is. */
static void add_converted(struct bg_strbuf *out, const char *cs, const char *s, size_t len)
{
	iconv_t cd;
	char *in = (char *)s;
	size_t left = len;

	if (!cs || !*cs || is_utf8_name(cs)) {
		bg_strbuf_add(out, s, len);
		return;
	}
	cd = iconv_open("UTF-8", cs);
	if (cd == (iconv_t)-1) {
		bg_strbuf_add(out, s, len);
		return;
	}
	while (left) {
		char buf[4096], *o = buf;
		size_t room = sizeof(buf);
		size_t r = iconv(cd, &in, &left, &o, &room);

		bg_strbuf_add(out, buf, o - buf);
		if (r == (size_t)-1 && errno != E2BIG) {
			/* a byte that is not of the charset: U+FFFD, then go on */
			bg_strbuf_addstr(out, "\xef\xbf\xbd");
			in++;
			left--;
			iconv(cd, NULL, NULL, NULL, NULL);
		}
	}
	iconv_close(cd);
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Quoted-printable; header: RFC 2047's Q, where '_' is a space. */
static void qp_decode(struct bg_strbuf *out, const char *s, size_t len, bool header)
{
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '=' && i + 1 < len && s[i + 1] == '\n') {
			i++;
		} else if (s[i] == '=' && i + 2 < len + 0 && hexval(s[i + 1]) >= 0 &&
			   hexval(s[i + 2]) >= 0) {
			bg_strbuf_addch(out, hexval(s[i + 1]) * 16 + hexval(s[i + 2]));
			i += 2;
		} else if (header && s[i] == '_') {
			bg_strbuf_addch(out, ' ');
		} else {
			bg_strbuf_addch(out, s[i]);
		}
	}
}

static int b64val(int c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

/* Base64; what is not of the alphabet (line ends) is skipped, '=' ends it. */
static void b64_decode(struct bg_strbuf *out, const char *s, size_t len)
{
	unsigned acc = 0;
	int bits = 0;

	for (size_t i = 0; i < len && s[i] != '='; i++) {
		int v = b64val((unsigned char)s[i]);

		if (v < 0)
			continue;
		acc = (acc << 6) | (unsigned)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			bg_strbuf_addch(out, (acc >> bits) & 0xff);
		}
	}
}

/*
 * One RFC 2047 encoded word at s ("=?cs?B|Q?text?="): its length, with the decoded
 * text added to out; 0 (nothing added) when s is not one.
 */
static size_t encoded_word(struct bg_strbuf *out, const char *s)
{
	const char *cs, *q1, *q2, *q3;
	struct bg_strbuf raw = BG_STRBUF_INIT;
	char *charset;
	int enc;

	if (s[0] != '=' || s[1] != '?')
		return 0;
	cs = s + 2;
	q1 = memchr(cs, '?', strnlen(cs, 80));
	if (!q1 || q1 == cs || !q1[1] || q1[2] != '?')
		return 0;
	enc = toupper((unsigned char)q1[1]);
	if (enc != 'B' && enc != 'Q')
		return 0;
	q2 = q1 + 2;
	/* bounded, so that a header of many "=?" stays linear */
	q3 = memmem(q2 + 1, strnlen(q2 + 1, 1024), "?=", 2);
	if (!q3)
		return 0;
	for (const char *t = q2 + 1; t < q3; t++)
		if (isspace((unsigned char)*t))
			return 0;
	for (const char *t = cs; t < q1; t++)
		if (isspace((unsigned char)*t))
			return 0;
	charset = xstrndup(cs, strcspn(cs, "*?"));   /* RFC 2231: "utf-8*en" */
	if (enc == 'B')
		b64_decode(&raw, q2 + 1, q3 - (q2 + 1));
	else
		qp_decode(&raw, q2 + 1, q3 - (q2 + 1), true);
	add_converted(out, charset, raw.buf, raw.len);
	free(charset);
	bg_strbuf_release(&raw);
	return q3 + 2 - s;
}

/*
 * A header value with its encoded words decoded (the space between two adjacent ones
 * dropped), as UTF-8; control characters (CR, LF, NUL from a decoded word) become
 * spaces, so nothing decoded can start a header of its own downstream.
 */
static char *decode_words(const char *s)
{
	struct bg_strbuf out = BG_STRBUF_INIT;
	size_t pending = 0;         /* whitespace after an encoded word, held back */
	bool after_word = false;

	for (size_t i = 0; s[i];) {
		size_t start = out.len, n = 0;

		if (s[i] == '=' && s[i + 1] == '?') {
			/* decoded after the held whitespace: drop that space if a word follows */
			struct bg_strbuf w = BG_STRBUF_INIT;

			n = encoded_word(&w, s + i);
			if (n) {
				if (!after_word && pending)
					bg_strbuf_add(&out, s + i - pending, pending);
				bg_strbuf_add(&out, w.buf, w.len);
				bg_strbuf_release(&w);
				for (size_t k = start; k < out.len; k++)
					if ((unsigned char)out.buf[k] < ' ' || out.buf[k] == 0x7f)
						out.buf[k] = ' ';
				i += n;
				pending = 0;
				after_word = true;
				continue;
			}
			bg_strbuf_release(&w);
		}
		if (is_wsp(s[i])) {
			pending++;
			i++;
			continue;
		}
		if (pending)
			bg_strbuf_add(&out, s + i - pending, pending);
		pending = 0;
		after_word = false;
		bg_strbuf_addch(&out, (unsigned char)s[i] < ' ' ? ' ' : s[i]);
		i++;
	}
	for (size_t k = 0; k < out.len; k++)
		if (out.buf[k] == '\t')
			out.buf[k] = ' ';
	return bg_strbuf_detach(&out, NULL);
}

/* ---- header values */

/* A parameter of a Content-Type value (boundary, charset), unquoted; NULL when absent. */
static char *ct_param(const char *v, const char *param)
{
	size_t plen = strlen(param);
	const char *p = v;

	while ((p = strchr(p, ';'))) {
		const char *e;

		p++;
		while (isspace((unsigned char)*p))
			p++;
		if (strncasecmp(p, param, plen) || p[plen] != '=')
			continue;
		p += plen + 1;
		if (*p == '"') {
			struct bg_strbuf sb = BG_STRBUF_INIT;

			for (p++; *p && *p != '"'; p++) {
				if (*p == '\\' && p[1])
					p++;
				bg_strbuf_addch(&sb, *p);
			}
			return bg_strbuf_detach(&sb, NULL);
		}
		e = p + strcspn(p, "; \t");
		return xstrndup(p, e - p);
	}
	return NULL;
}

/* The media type of a Content-Type value, lowercase, "text/plain" when none. */
static char *ct_type(const char *v)
{
	char *t;

	if (!v || !*v)
		return xstrdup("text/plain");
	t = trim_dup(v, strcspn(v, ";"));
	for (char *c = t; *c; c++)
		*c = tolower((unsigned char)*c);
	return t;
}

/* The id between the first <> of s, else s itself when it is one token; NULL if none. */
static char *msgid_at(const char **sp)
{
	const char *s = *sp, *lt = strchr(s, '<'), *gt;

	if (!lt)
		return NULL;
	gt = strchr(lt + 1, '>');
	if (!gt)
		return NULL;
	*sp = gt + 1;
	return trim_dup(lt + 1, gt - lt - 1);
}

static char *msgid_first(const char *v)
{
	const char *p = v;
	char *id;

	if (!v)
		return NULL;
	id = msgid_at(&p);
	if (id && !*id) {
		free(id);
		id = NULL;
	}
	if (!id && *v && !strpbrk(v, " \t<>"))
		id = xstrdup(v);
	return id;
}

static void parse_references(struct bg_msg *m, const char *v)
{
	size_t alloc = 0;
	char *id;

	if (!v)
		return;
	while ((id = msgid_at(&v))) {
		if (!*id) {
			free(id);
			continue;
		}
		ALLOC_GROW(m->references, m->nreferences + 1, alloc);
		m->references[m->nreferences++] = id;
	}
}

/* s with every run of white space made one space, and trimmed. */
static char *fold_spaces(const char *s)
{
	struct bg_strbuf sb = BG_STRBUF_INIT;

	for (; *s; s++) {
		if (!isspace((unsigned char)*s))
			bg_strbuf_addch(&sb, *s);
		else if (sb.len && sb.buf[sb.len - 1] != ' ')
			bg_strbuf_addch(&sb, ' ');
	}
	if (sb.len && sb.buf[sb.len - 1] == ' ')
		sb.buf[--sb.len] = '\0';
	return bg_strbuf_detach(&sb, NULL);
}

/*
 * A From: value read as git mailinfo reads it, so that bootgate commits the author git am
 * would: quotes and their backslashes dropped, the address the word around the first '@'
 * (inside <> when it has them), the name what is left, a "(Name)" unwrapped; without an
 * '@', a "<addr>" if there is one, else no address and no name. The name is decoded
 * (RFC 2047) after the address is found, so that a decoded word cannot forge one.
 */
static void read_from(const char *v, char **name_out, char **addr_out)
{
	struct bg_strbuf sb = BG_STRBUF_INIT;
	char *s = fold_spaces(v ? v : ""), *at, *name, *raw;
	bool quoted = false;
	int depth = 0;

	for (const char *p = s; *p; p++) {
		if (*p == '\\' && p[1] && (quoted || depth)) {
			bg_strbuf_addch(&sb, *++p);
			continue;
		}
		if (*p == '"' && !depth) {
			quoted = !quoted;
			continue;
		}
		if (!quoted && *p == '(')
			depth++;
		else if (!quoted && *p == ')' && depth)
			depth--;
		bg_strbuf_addch(&sb, *p);
	}
	free(s);
	s = bg_strbuf_detach(&sb, NULL);
	at = strchr(s, '@');
	if (at) {
		char *start = at, *end = at;

		while (start > s && !isspace((unsigned char)start[-1]) && start[-1] != '<')
			start--;
		while (*end && !isspace((unsigned char)*end) && *end != '>')
			end++;
		*addr_out = xstrndup(start, end - start);
		if (start > s && start[-1] == '<')
			start[-1] = ' ';
		if (*end)
			end++;          /* the '>' or the space after the address */
		memmove(start, end, strlen(end) + 1);
		raw = fold_spaces(s);
		if (raw[0] == '(' && raw[strlen(raw) - 1] == ')') {
			memmove(raw, raw + 1, strlen(raw));
			raw[strlen(raw) - 1] = '\0';
		}
	} else {
		char *lt = strchr(s, '<'), *gt = lt ? strchr(lt, '>') : NULL;

		*addr_out = gt ? xstrndup(lt + 1, gt - lt - 1) : xstrdup("");
		raw = gt ? trim_dup(s, lt - s) : xstrdup("");
	}
	free(s);
	name = decode_words(raw);
	free(raw);
	*name_out = trim_dup(name, strlen(name));
	free(name);
	for (char *c = *addr_out; *c; c++)
		if ((unsigned char)*c < ' ')
			*c = ' ';
}

/* The header's From: in m->from, m->from_name and m->from_addr (its domain lowercase). */
static void parse_from(struct bg_msg *m, const char *v)
{
	char *at;

	read_from(v, &m->from_name, &m->from_addr);
	at = strrchr(m->from_addr, '@');
	if (at)
		for (char *c = at; *c; c++)
			*c = tolower((unsigned char)*c);
	if (*m->from_name)
		m->from = xasprintf("%s <%s>", m->from_name, m->from_addr);
	else
		m->from = xstrdup(m->from_addr);
}

/* ---- Date: */

static int64_t days_from_civil(int64_t y, unsigned mo, unsigned d)
{
	int64_t era;
	unsigned yoe, doy, doe;

	y -= mo <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = (unsigned)(y - era * 400);
	doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

static bool read_uint(const char **sp, unsigned maxdigits, unsigned *out)
{
	const char *s = *sp;
	unsigned v = 0, n = 0;

	while (isdigit((unsigned char)*s) && n < maxdigits) {
		v = v * 10 + (unsigned)(*s++ - '0');
		n++;
	}
	if (!n || isdigit((unsigned char)*s))
		return false;
	*sp = s;
	*out = v;
	return true;
}

static void skip_space(const char **sp)
{
	while (isspace((unsigned char)**sp))
		(*sp)++;
}

/* RFC 5322 date-time, with the obsolete two-digit years and zone names. */
static void parse_date(struct bg_msg *m, const char *v)
{
	static const char months[] = "janfebmaraprmayjunjulaugsepoctnovdec";
	static const struct { const char *name; int minutes; } zones[] = {
		{ "UT", 0 }, { "UTC", 0 }, { "GMT", 0 }, { "Z", 0 },
		{ "EST", -300 }, { "EDT", -240 }, { "CST", -360 }, { "CDT", -300 },
		{ "MST", -420 }, { "MDT", -360 }, { "PST", -480 }, { "PDT", -420 },
	};
	const char *s = v;
	unsigned day, year, hh, mm, ss = 0, mon = 0, zone;
	int tz = 0;
	char mname[4];

	skip_space(&s);
	if (isalpha((unsigned char)*s)) {
		const char *comma = strchr(s, ',');

		if (!comma)
			return;
		s = comma + 1;
		skip_space(&s);
	}
	if (!read_uint(&s, 2, &day) || day < 1 || day > 31)
		return;
	skip_space(&s);
	if (!isalpha((unsigned char)s[0]) || !isalpha((unsigned char)s[1]) ||
	    !isalpha((unsigned char)s[2]))
		return;
	for (int i = 0; i < 3; i++)
		mname[i] = tolower((unsigned char)s[i]);
	mname[3] = '\0';
	for (unsigned i = 0; i < 12; i++)
		if (!memcmp(months + 3 * i, mname, 3))
			mon = i + 1;
	if (!mon)
		return;
	s += 3;
	while (isalpha((unsigned char)*s))
		s++;
	skip_space(&s);
	if (!read_uint(&s, 4, &year))
		return;
	if (year < 50)
		year += 2000;
	else if (year < 1000)
		year += 1900;
	skip_space(&s);
	if (!read_uint(&s, 2, &hh) || *s++ != ':' || !read_uint(&s, 2, &mm))
		return;
	if (*s == ':' && (s++, !read_uint(&s, 2, &ss)))
		return;
	if (hh > 23 || mm > 59 || ss > 60)
		return;
	skip_space(&s);
	if ((*s == '+' || *s == '-') && (s[1] != '\0')) {
		const char *z = s + 1;

		if (!read_uint(&z, 4, &zone) || z - s != 5 || zone % 100 > 59 || zone / 100 > 23)
			return;
		tz = (int)(zone / 100 * 60 + zone % 100);
		if (*s == '-')
			tz = -tz;
	} else {
		for (size_t i = 0; i < ARRAY_SIZE(zones); i++)
			if (!strncasecmp(s, zones[i].name, strlen(zones[i].name)) &&
			    !isalpha((unsigned char)s[strlen(zones[i].name)]))
				tz = zones[i].minutes;
	}
	m->when = days_from_civil(year, mon, day) * 86400 + hh * 3600 + mm * 60 + ss -
		  (int64_t)tz * 60;
	m->tz_minutes = tz;
}

/* ---- the subject's tag */

static bool eat_prefix(const char **sp, const char *prefix)
{
	size_t n = strlen(prefix);

	if (strncasecmp(*sp, prefix, n))
		return false;
	*sp += n;
	skip_space(sp);
	return true;
}

/* A number filling [s, e): 0, or -1; more than 9 digits read as UINT_MAX (refused later). */
static int tok_num(const char *s, const char *e, unsigned *out)
{
	unsigned v = 0;

	if (s == e)
		return -1;
	for (const char *c = s; c < e; c++)
		if (!isdigit((unsigned char)*c))
			return -1;
	if (e - s > 9) {
		*out = UINT_MAX;
		return 0;
	}
	for (; s < e; s++)
		v = v * 10 + (unsigned)(*s - '0');
	*out = v;
	return 0;
}

/* A number as tok_num reads it; a negative one ("-1") is read as UINT_MAX, out of every
 * bound, so that "[PATCH -1/2]" is refused rather than taken for an unnumbered patch. */
static int signed_num(const char *s, const char *e, unsigned *out)
{
	if (s < e && *s == '-' && !tok_num(s + 1, e, out)) {
		*out = UINT_MAX;
		return 0;
	}
	return tok_num(s, e, out);
}

struct tag {
	bool patch, rfc, numbered, versioned;
	unsigned version, idx, total;
	const char *vtok, *ntok;     /* the tokens as written, for errors */
	int vlen, nlen;
};

static void tag_token(struct tag *t, const char *s, const char *e)
{
	const char *slash = memchr(s, '/', e - s);
	unsigned a, b;

	if (e - s >= 5 && !strncasecmp(s, "PATCH", 5)) {
		if (e - s == 5) {
			t->patch = true;
		} else if ((s[5] == 'v' || s[5] == 'V') && !tok_num(s + 6, e, &a)) {
			t->patch = t->versioned = true;
			t->version = a;
			t->vtok = s + 5;
			t->vlen = (int)(e - s - 5);
		}
	} else if (e - s == 3 && !strncasecmp(s, "RFC", 3)) {
		t->rfc = true;
	} else if ((*s == 'v' || *s == 'V') && !tok_num(s + 1, e, &a)) {
		t->versioned = true;
		t->version = a;
		t->vtok = s;
		t->vlen = (int)(e - s);
	} else if (slash && !signed_num(s, slash, &a) && !signed_num(slash + 1, e, &b)) {
		t->numbered = true;
		t->idx = a;
		t->total = b;
		t->ntok = s;
		t->nlen = (int)(e - s);
	}
}

/* The next word of a tag at *p (before close): its end; *p moved to its start. */
static const char *tag_word(const char **p, const char *close)
{
	const char *e;

	while (*p < close && (isspace((unsigned char)**p) || **p == ','))
		(*p)++;
	for (e = *p; e < close && !isspace((unsigned char)*e) && *e != ','; e++)
		;
	return e;
}

/* The tag; *tentative when only an RFC or a numbering makes it a patch (mbox.h). */
static int parse_subject(struct bg_msg *m, size_t line, bool *tentative)
{
	const char *s = m->subject, *title;
	bool re = false, fwd = false;
	struct tag t = { 0 };

	for (;;) {
		skip_space(&s);
		if (eat_prefix(&s, "re:") || eat_prefix(&s, "aw:") || eat_prefix(&s, "sv:"))
			re = true;
		else if (eat_prefix(&s, "fwd:") || eat_prefix(&s, "fw:"))
			fwd = true;
		else
			break;
	}
	while (*s == '[') {
		const char *close = strchr(s, ']'), *p;

		if (!close)
			break;
		for (p = s + 1; p < close;) {
			const char *e = tag_word(&p, close), *of = e, *of_end, *n2, *q;
			unsigned a, b;

			/* Mercurial's "1 of 2" */
			of_end = tag_word(&of, close);
			n2 = of_end;
			q = tag_word(&n2, close);
			if (of_end - of == 2 && !strncasecmp(of, "of", 2) && !tok_num(p, e, &a) &&
			    !tok_num(n2, q, &b)) {
				t.numbered = true;
				t.idx = a;
				t.total = b;
				t.ntok = p;
				t.nlen = (int)(q - p);
				e = q;
			} else if (e > p) {
				tag_token(&t, p, e);
			}
			p = e;
		}
		s = close + 1;
		skip_space(&s);
	}
	/* "[Patch 2/2]: title" */
	while (*s == ':' || isspace((unsigned char)*s))
		s++;
	title = s;
	m->title = trim_dup(title, strlen(title));
	m->rfc = t.rfc;
	m->version = 1;
	m->idx = m->total = 1;
	/* b4 reads [RFC v2 1/4] as [PATCH RFC v2 1/4], patchwork [net,v2,1/2] as a patch */
	*tentative = !t.patch && (t.rfc || t.numbered);
	if (t.patch || *tentative) {
		if (t.versioned) {
			if (t.version < 1 || t.version > BG_MSG_TOTAL_MAX)
				return bg_error("%s:%zu: version %.*s is not from 1 to %u", m->name,
						line, t.vlen, t.vtok, BG_MSG_TOTAL_MAX);
			m->version = t.version;
		}
		if (t.numbered) {
			/* a stray 3/2 is read; a 5000/2 is no patch of any series */
			if (t.total < 1 || t.total > BG_MSG_TOTAL_MAX || t.idx > BG_MSG_TOTAL_MAX)
				return bg_error("%s:%zu: patch %.*s: a series of 1 to %u patches",
						m->name, line, t.nlen, t.ntok, BG_MSG_TOTAL_MAX);
			m->idx = t.idx;
			m->total = t.total;
		}
	}
	m->patch = (t.patch || *tentative) && !re && !fwd;
	m->reply = re || (!m->patch && m->in_reply_to);
	return 0;
}

/* ---- MIME */

struct walk {
	const char *name;
	unsigned parts;
	struct bg_strbuf text, patch;
	bool have_text, have_patch;
};

static bool has_diff(const char *s, size_t len)
{
	static const char d[] = "diff --git ";

	if (len >= sizeof(d) - 1 && !memcmp(s, d, sizeof(d) - 1))
		return true;
	return memmem(s, len, "\ndiff --git ", sizeof(d)) != NULL;
}

static void decode_part(struct bg_strbuf *out, const struct hdrs *h, const char *body,
			const char *end, const char *ctv)
{
	const char *cte = hdr_value(h, "Content-Transfer-Encoding");
	char *charset = ctv ? ct_param(ctv, "charset") : NULL;
	struct bg_strbuf raw = BG_STRBUF_INIT;

	if (cte && !strncasecmp(cte, "quoted-printable", 16))
		qp_decode(&raw, body, end - body, false);
	else if (cte && !strncasecmp(cte, "base64", 6))
		b64_decode(&raw, body, end - body);
	else
		bg_strbuf_add(&raw, body, end - body);
	add_converted(out, charset, raw.buf, raw.len);
	/* the line end before a MIME delimiter belongs to the delimiter: give it back */
	if (out->len && out->buf[out->len - 1] != '\n')
		bg_strbuf_addch(out, '\n');
	bg_strbuf_release(&raw);
	free(charset);
}

static bool is_patch_type(const char *type, const struct hdrs *h, const char *ctv)
{
	const char *disp = hdr_value(h, "Content-Disposition");
	char *fname = NULL;
	bool yes = !strcmp(type, "text/x-patch") || !strcmp(type, "text/x-diff") ||
		   !strcmp(type, "application/x-patch") || !strcmp(type, "text/x-diff") ||
		   !strcmp(type, "application/x-diff");

	if (yes)
		return true;
	if (disp)
		fname = ct_param(disp, "filename");
	if (!fname && ctv)
		fname = ct_param(ctv, "name");
	if (fname) {
		size_t n = strlen(fname);

		yes = (n > 6 && !strcasecmp(fname + n - 6, ".patch")) ||
		      (n > 5 && !strcasecmp(fname + n - 5, ".diff"));
		free(fname);
	}
	return yes;
}

static int walk_entity(struct walk *w, const struct hdrs *h, const char *body,
		       const char *end, size_t line, unsigned depth, bool top);

/* One part of a multipart at [part, end), its headers first. */
static int walk_part(struct walk *w, const char *part, const char *end, size_t part_line,
		     unsigned depth)
{
	struct hdrs ph = { 0 };
	const char *pbody;
	size_t pl = part_line;
	int r = parse_headers(w->name, part, end, &pl, false, &ph, &pbody);

	if (!r)
		r = walk_entity(w, &ph, pbody, end, part_line, depth + 1, false);
	hdrs_release(&ph);
	return r;
}

static int walk_multipart(struct walk *w, const char *boundary, const char *body,
			  const char *end, size_t line, unsigned depth)
{
	size_t blen = strlen(boundary);
	const char *p = body, *part = NULL;
	size_t part_line = 0;
	bool closed = false;

	while (p < end && !closed) {
		const char *e = line_end(p, end);
		bool delim = e - p >= (ptrdiff_t)blen + 2 && p[0] == '-' && p[1] == '-' &&
			     !memcmp(p + 2, boundary, blen);

		if (delim) {
			const char *rest = p + 2 + blen;

			closed = e - rest >= 2 && rest[0] == '-' && rest[1] == '-';
			/* the LF before a delimiter belongs to the delimiter */
			if (part && walk_part(w, part, p > part ? p - 1 : p, part_line, depth))
				return -1;
			part = e < end ? e + 1 : end;
			part_line = line + 1;
		}
		line++;
		p = e < end ? e + 1 : end;
	}
	/* a missing closing delimiter: the last part runs to the end */
	if (part && !closed && part < end)
		return walk_part(w, part, end, part_line, depth);
	return 0;
}

static int walk_entity(struct walk *w, const struct hdrs *h, const char *body,
		       const char *end, size_t line, unsigned depth, bool top)
{
	const char *ctv = hdr_value(h, "Content-Type");
	char *type = ct_type(ctv);
	int ret = 0;

	if (++w->parts > BG_MSG_PARTS_MAX) {
		ret = bg_error("%s:%zu: more than %d MIME parts", w->name, line, BG_MSG_PARTS_MAX);
		goto out;
	}
	if (depth > MIME_DEPTH_MAX) {
		ret = bg_error("%s:%zu: MIME parts nested deeper than %d", w->name, line,
			       MIME_DEPTH_MAX);
		goto out;
	}
	if (!strncmp(type, "multipart/", 10)) {
		char *boundary = ct_param(ctv, "boundary");

		if (boundary && *boundary && strlen(boundary) <= 200) {
			ret = walk_multipart(w, boundary, body, end, line, depth);
			free(boundary);
			goto out;
		}
		free(boundary);
		/* no usable boundary: read it as text */
	}
	if (is_patch_type(type, h, ctv)) {
		if (!w->have_patch) {
			decode_part(&w->patch, h, body, end, ctv);
			w->have_patch = true;
		}
	} else if (!w->have_text && (top || !strcmp(type, "text/plain"))) {
		decode_part(&w->text, h, body, end, ctv);
		w->have_text = true;
	}
out:
	free(type);
	return ret;
}

/* ---- what git am commits */

/* The in-body headers at the top of a body, as git mailinfo reads them. */
struct inbody {
	char *from, *subject, *date;   /* unfolded, NULL when absent */
	size_t end;                    /* where the commit message starts in the body */
};

static char **inbody_slot(struct inbody *ib, const char *p, const char *e, const char **val)
{
	static const char *const names[] = { "From", "Subject", "Date" };
	char **slots[] = { &ib->from, &ib->subject, &ib->date };

	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		size_t n = strlen(names[i]);

		if ((size_t)(e - p) > n && !strncasecmp(p, names[i], n) && p[n] == ':' &&
		    !*slots[i]) {
			*val = p + n + 1;
			return slots[i];
		}
	}
	return NULL;
}

/*
 * From:, Subject: and Date: lines at the top of a body (blank lines before them skipped,
 * folded lines joined, the first of each kind taken) override the mail's headers, and a
 * first line "[PATCH] title" is a subject: a forwarded patch keeps its author that way.
 * The first blank line after them, or any other line, ends them.
 */
static void read_inbody(const char *body, size_t len, struct inbody *ib)
{
	const char *p = body, *end = body + len;
	struct bg_strbuf cur = BG_STRBUF_INIT;
	char **slot = NULL;

	memset(ib, 0, sizeof(*ib));
	while (p < end) {
		const char *e = line_end(p, end), *next = e < end ? e + 1 : end, *val;
		char **s;

		if (slot && e > p && is_wsp(*p)) {
			bg_strbuf_add(&cur, p, e - p);
			p = next;
			continue;
		}
		if (slot) {
			*slot = bg_strbuf_detach(&cur, NULL);
			slot = NULL;
			if (e == p) {
				p = next;
				break;
			}
		}
		if (e == p) {
			p = next;
			continue;
		}
		if ((s = inbody_slot(ib, p, e, &val))) {
			slot = s;
			bg_strbuf_add(&cur, val, e - val);
		} else if (e - p > 7 && !memcmp(p, "[PATCH]", 7) && isspace((unsigned char)p[7]) &&
			   !ib->subject) {
			ib->subject = xstrndup(p, e - p);
		} else {
			break;
		}
		p = next;
	}
	if (slot)
		*slot = bg_strbuf_detach(&cur, NULL);
	bg_strbuf_release(&cur);
	ib->end = p - body;
}

static void inbody_release(struct inbody *ib)
{
	free(ib->from);
	free(ib->subject);
	free(ib->date);
}

/* A subject as git mailinfo leaves it: leading Re:, ':', spaces and [...] cut, runs of
 * spaces made one. */
static char *clean_subject(const char *s)
{
	for (;;) {
		if (isspace((unsigned char)*s) || *s == ':') {
			s++;
		} else if (!strncasecmp(s, "re:", 3) && s[3]) {
			s += 3;
		} else if (*s == '[' && strchr(s, ']')) {
			s = strchr(s, ']') + 1;
		} else {
			break;
		}
	}
	return fold_spaces(s);
}

/* Does [p, end) hold where git mailinfo sees a patch begin: "diff -", "Index: ", "---"? */
static bool has_patchbreak(const char *p, const char *end)
{
	for (; p < end; p = line_end(p, end) + 1) {
		const char *e = line_end(p, end), *t = p + 3;

		if ((e - p >= 6 && !memcmp(p, "diff -", 6)) ||
		    (e - p >= 7 && !memcmp(p, "Index: ", 7)))
			return true;
		if (e - p >= 3 && !memcmp(p, "---", 3)) {
			if (e - p >= 5 && p[3] == ' ' && !isspace((unsigned char)p[4]))
				return true;
			while (t < e && isspace((unsigned char)*t))
				t++;
			if (t == e)
				return true;
		}
		if (e >= end)
			break;
	}
	return false;
}

/* m->author_name, author_addr and commit_subject (mbox.h), from the body and header_from. */
static void read_author(struct bg_msg *m, const char *header_from)
{
	struct inbody ib;
	char *name;

	read_inbody(m->body, m->body_len, &ib);
	/* git takes in-body headers only from a mail that holds a patch: a cover letter's
	 * "From:" line is text */
	if (!has_patchbreak(m->body + ib.end, m->body + m->body_len)) {
		inbody_release(&ib);
		memset(&ib, 0, sizeof(ib));
	}
	read_from(ib.from ? ib.from : header_from, &name, &m->author_addr);
	/* git's rule: a name that is none, too long or looks like an address is the address */
	if (!*name || strlen(name) > 60 || strpbrk(name, "@<>")) {
		free(name);
		name = xstrdup(m->author_addr);
	}
	m->author_name = name;
	if (ib.subject) {
		char *d = decode_words(ib.subject);

		m->commit_subject = clean_subject(d);
		free(d);
	} else {
		m->commit_subject = clean_subject(m->subject);
	}
	inbody_release(&ib);
}

/* ---- the message */

static void crlf_to_lf(char *s, size_t *len)
{
	size_t o = 0;

	for (size_t i = 0; i < *len; i++)
		if (!(s[i] == '\r' && i + 1 < *len && s[i + 1] == '\n'))
			s[o++] = s[i];
	s[o] = '\0';
	*len = o;
}

static void find_base_commit(struct bg_msg *m)
{
	const char *p = m->body, *end = m->body + m->body_len;

	while (p < end) {
		const char *e = line_end(p, end);

		if (e - p >= 13 + 40 && !memcmp(p, "base-commit: ", 13)) {
			const char *h = p + 13;
			size_t n = 0;

			while (h + n < e && isxdigit((unsigned char)h[n]))
				n++;
			if ((n == 40 || n == 64) && (h + n == e || isspace((unsigned char)h[n]))) {
				m->base_commit = xstrndup(h, n);
				for (char *c = m->base_commit; *c; c++)
					*c = tolower((unsigned char)*c);
				return;
			}
		}
		p = e < end ? e + 1 : end;
	}
}

/* The line in buf of m's first raw line that starts with prefix; m's first line without. */
static size_t raw_line(const char *buf, size_t len, const struct bg_msg *m, const char *prefix)
{
	const char *p, *end;
	size_t line = m->line, n = strlen(prefix);

	if (m->raw_off > len || m->raw_len > len - m->raw_off)
		return m->line;
	p = buf + m->raw_off;
	end = p + m->raw_len;
	while (p < end) {
		const char *e = line_end(p, end);

		if ((size_t)(e - p) >= n && !memcmp(p, prefix, n))
			return line;
		line++;
		p = e < end ? e + 1 : end;
	}
	return m->line;
}

/* A "base-commit: " line that find_base_commit did not take: noted, as b4 ignores it too. */
static void note_base_commit(const char *buf, size_t len, const struct bg_msg *m,
			     struct bg_strvec *notes)
{
	static const char key[] = "base-commit: ";
	const char *p = m->body, *end = m->body + m->body_len;

	if (m->base_commit)
		return;
	while (p < end) {
		const char *e = line_end(p, end), *v = p + sizeof(key) - 1;

		if ((size_t)(e - p) >= sizeof(key) - 1 && !memcmp(p, key, sizeof(key) - 1)) {
			bg_strvec_pushf(notes, "%s:%zu: base-commit '%.*s' is no commit id (40 or 64 "
					"hex digits): not taken", m->name,
					raw_line(buf, len, m, key), (int)(e - v > 80 ? 80 : e - v), v);
			return;
		}
		p = e < end ? e + 1 : end;
	}
}

/* The same subject and body, but for the blank lines an mbox puts after a message. */
static bool same_mail(const struct bg_msg *a, const struct bg_msg *b)
{
	size_t la = a->body_len, lb = b->body_len;

	while (la && a->body[la - 1] == '\n')
		la--;
	while (lb && b->body[lb - 1] == '\n')
		lb--;
	return !strcmp(a->subject, b->subject) && la == lb && !memcmp(a->body, b->body, la);
}

void bg_series_notes(const char *buf, size_t len, const struct bg_msg *msgs, size_t n,
		     const struct bg_series_msgs *s, struct bg_strvec *notes)
{
	if (s->cover)
		note_base_commit(buf, len, s->cover, notes);
	for (unsigned k = 0; k < s->total; k++)
		note_base_commit(buf, len, s->patches[k], notes);
	for (size_t i = 0; i < n; i++) {
		const struct bg_msg *m = &msgs[i], *taken;

		if (!m->patch || m->reply || m->total < 1)
			continue;
		if (m->idx > m->total) {
			bg_strvec_pushf(notes, "%s:%zu: patch %u/%u is past the series' end: left out",
					m->name, m->line, m->idx, m->total);
			continue;
		}
		if (m->version != s->version || m->total != s->total || m->idx < 1)
			continue;
		taken = s->patches[m->idx - 1];
		/* the same mail twice (an archive's copy) is no other patch */
		if (taken == m || same_mail(taken, m))
			continue;
		bg_strvec_pushf(notes, "%s:%zu: another patch %u/%u (the one at line %zu is "
				"taken): left out", m->name, m->line, m->idx, m->total, taken->line);
	}
}

/* buf holds LF line ends already; first_line is the number of its first line. */
static int parse_normalized(const char *name, const char *buf, size_t len, size_t first_line,
			    struct bg_msg *m)
{
	struct hdrs h = { 0 };
	struct walk w = { name, 0, BG_STRBUF_INIT, BG_STRBUF_INIT, false, false };
	const struct hdr *sh;
	const char *body, *v;
	size_t line = first_line;
	bool tentative = false;
	int ret = -1;

	memset(m, 0, sizeof(*m));
	m->name = xstrdup(name);
	if (len > BG_MSG_MAX) {
		bg_error("%s:%zu: message larger than %u bytes", name, first_line, BG_MSG_MAX);
		goto out;
	}
	if (memchr(buf, '\0', len)) {
		bg_error("%s:%zu: message holds a NUL byte", name, first_line);
		goto out;
	}
	if (parse_headers(name, buf, buf + len, &line, true, &h, &body))
		goto out;
	m->line = h.v[0].line;
	m->message_id = msgid_first(hdr_value(&h, "Message-ID"));
	m->in_reply_to = msgid_first(hdr_value(&h, "In-Reply-To"));
	parse_references(m, hdr_value(&h, "References"));
	parse_from(m, hdr_value(&h, "From"));
	v = hdr_value(&h, "Date");
	if (v) {
		m->date = xstrdup(v);
		parse_date(m, v);
	}
	m->subject = decode_words((v = hdr_value(&h, "Subject")) ? v : "");
	sh = hdr_get(&h, "Subject");
	if (parse_subject(m, sh ? sh->line : m->line, &tentative))
		goto out;
	if (walk_entity(&w, &h, body, buf + len, line, 0, true))
		goto out;
	if (w.have_patch && !has_diff(w.text.buf, w.text.len)) {
		if (w.text.len && w.text.buf[w.text.len - 1] != '\n')
			bg_strbuf_addch(&w.text, '\n');
		bg_strbuf_add(&w.text, w.patch.buf, w.patch.len);
	}
	m->body = bg_strbuf_detach(&w.text, &m->body_len);
	crlf_to_lf(m->body, &m->body_len);
	find_base_commit(m);
	read_author(m, hdr_value(&h, "From"));
	/* an RFC or a numbered mail without a diff is talk; a cover letter has none */
	if (tentative && m->patch && m->idx && !has_diff(m->body, m->body_len)) {
		m->patch = false;
		m->reply = m->in_reply_to != NULL;
		m->version = m->idx = m->total = 1;
	}
	ret = 0;
out:
	hdrs_release(&h);
	bg_strbuf_release(&w.text);
	bg_strbuf_release(&w.patch);
	if (ret)
		bg_msg_release(m);
	return ret;
}

/* A copy of [buf, buf+len) with CRLF made LF and, for an mbox, ">From " unquoted. */
static char *normalize(const char *buf, size_t len, bool mboxrd, size_t *out_len)
{
	char *out = xmalloc(len + 1);
	size_t o = 0;
	bool bol = true;

	for (size_t i = 0; i < len; i++) {
		if (mboxrd && bol && buf[i] == '>') {
			size_t k = i;

			while (k < len && buf[k] == '>')
				k++;
			if (len - k >= 5 && !memcmp(buf + k, "From ", 5))
				i++;   /* one '>' less */
		}
		if (buf[i] == '\r' && i + 1 < len && buf[i + 1] == '\n')
			continue;
		out[o++] = buf[i];
		bol = buf[i] == '\n';
	}
	out[o] = '\0';
	*out_len = o;
	return out;
}

int bg_msg_parse(const char *name, const char *buf, size_t len, struct bg_msg *m)
{
	size_t n;
	char *copy;
	int ret;

	if (len > BG_MSG_MAX) {
		memset(m, 0, sizeof(*m));
		return bg_error("%s:1: message larger than %u bytes", name, BG_MSG_MAX);
	}
	copy = normalize(buf, len, false, &n);
	ret = parse_normalized(name, copy, n, 1, m);
	free(copy);
	if (!ret)
		m->raw_len = len;
	return ret;
}

/* Is the line at [p, e) an mbox separator: "From ADDR DATE" with a time in the date? */
static bool is_from_line(const char *p, const char *e)
{
	const char *sp;

	if (e - p < 7 || memcmp(p, "From ", 5) || p[5] == ' ')
		return false;
	sp = memchr(p + 5, ' ', e - (p + 5));
	return sp && memchr(sp, ':', e - sp);
}

int bg_mbox_parse(const char *name, const char *buf, size_t len, struct bg_msg **msgs,
		  size_t *n)
{
	const char *p = buf, *end = buf + len, *start = NULL;
	size_t line = 1, start_line = 0, alloc = 0, skipped = 0;
	bool prev_blank = true;

	*msgs = NULL;
	*n = 0;
	if (!len)
		return bg_error("%s:1: no message", name);
	/* white space before the first "From " line, as git mailsplit skips it */
	for (const char *q = buf; q < end;) {
		const char *e = line_end(q, end), *t = q;

		while (t < e && isspace((unsigned char)*t))
			t++;
		if (t < e) {
			if (q > buf && is_from_line(q, e)) {
				p = q;
				line += skipped;
			}
			break;
		}
		skipped++;
		q = e < end ? e + 1 : end;
	}
	if (!is_from_line(p, line_end(p, end))) {
		*msgs = xcalloc(1, sizeof(**msgs));
		if (bg_msg_parse(name, buf, len, *msgs)) {
			free(*msgs);
			*msgs = NULL;
			return -1;
		}
		*n = 1;
		return 0;
	}
	for (;;) {
		const char *e = p < end ? line_end(p, end) : end;
		bool sep = p < end && prev_blank && is_from_line(p, e);

		if (p >= end || sep) {
			if (start) {
				size_t mlen;
				const char *mend = p;
				char *copy;
				int r;

				/* the blank line before a separator belongs to the mbox */
				if (p < end && mend > start && mend[-1] == '\n')
					mend--;
				if (mend > start && mend[-1] == '\r')
					mend--;
				if (mend <= start) {
					bg_error("%s:%zu: empty message", name, start_line);
					goto fail;
				}
				copy = normalize(start, mend - start, true, &mlen);
				ALLOC_GROW(*msgs, *n + 1, alloc);
				r = parse_normalized(name, copy, mlen, start_line, &(*msgs)[*n]);
				free(copy);
				if (r)
					goto fail;
				(*msgs)[*n].raw_off = start - buf;
				(*msgs)[*n].raw_len = mend - start;
				(*n)++;
			}
			if (p >= end)
				break;
			start = e < end ? e + 1 : end;
			start_line = line + 1;
		}
		prev_blank = e == p || (e - p == 1 && *p == '\r');
		line++;
		p = e < end ? e + 1 : end;
	}
	return 0;
fail:
	bg_msgs_free(*msgs, *n);
	*msgs = NULL;
	*n = 0;
	return -1;
}

void bg_msg_release(struct bg_msg *m)
{
	free(m->message_id);
	free(m->in_reply_to);
	for (size_t i = 0; i < m->nreferences; i++)
		free(m->references[i]);
	free(m->references);
	free(m->from);
	free(m->from_name);
	free(m->from_addr);
	free(m->date);
	free(m->subject);
	free(m->body);
	free(m->title);
	free(m->base_commit);
	free(m->author_name);
	free(m->author_addr);
	free(m->commit_subject);
	free(m->name);
	memset(m, 0, sizeof(*m));
}

void bg_msgs_free(struct bg_msg *msgs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		bg_msg_release(&msgs[i]);
	free(msgs);
}

/* ---- git am's split */

int bg_msg_patch(const struct bg_msg *m, const char **msg, size_t *msg_len,
		 const char **diff, size_t *diff_len, char **from, char **date)
{
	const char *p = m->body, *end = m->body + m->body_len, *start, *dstart = NULL;
	const char *mend = NULL;
	struct inbody ib;

	read_inbody(m->body, m->body_len, &ib);
	*from = ib.from ? fold_spaces(ib.from) : NULL;
	*date = ib.date ? fold_spaces(ib.date) : NULL;
	if (*from) {
		char *d = decode_words(*from);

		free(*from);
		*from = d;
	}
	inbody_release(&ib);
	p = m->body + ib.end;
	start = p;
	for (; p < end; p = line_end(p, end) + 1) {
		const char *e = line_end(p, end);
		const char *t = p + 3;

		if (!mend && e - p >= 3 && !memcmp(p, "---", 3)) {
			while (t < e && isspace((unsigned char)*t))
				t++;
			if (t == e)
				mend = p;
		}
		if (e - p >= 11 && !memcmp(p, "diff --git ", 11)) {
			dstart = p;
			break;
		}
		if (e >= end)
			break;
	}
	if (!dstart) {
		free(*from);
		free(*date);
		*from = *date = NULL;
		return bg_error("%s: patch %u/%u has no diff", m->name, m->idx, m->total);
	}
	if (!mend)
		mend = dstart;
	while (mend > start && (mend[-1] == '\n' || mend[-1] == ' '))
		mend--;
	*msg = start;
	*msg_len = mend - start;
	*diff = dstart;
	for (p = dstart; p < end; p = line_end(p, end) + 1) {
		const char *e = line_end(p, end);

		if (e - p == 3 && !memcmp(p, "-- ", 3))
			break;
		if (e >= end) {
			p = end;
			break;
		}
	}
	*diff_len = (p < end ? p : end) - dstart;
	return 0;
}

/* ---- series */

struct group {
	char *key;
	size_t *slot;          /* total + 1 entries, SIZE_MAX when empty */
	unsigned version, total;
	size_t first, last;    /* positions in msgs */
	bool loose;            /* started by a mail that answers none: others may join it */
};

/* Mails of one series sent without References: further apart than this are two. */
#define LOOSE_WINDOW (12 * 3600)

static const char *parent_id(const struct bg_msg *m)
{
	if (m->in_reply_to)
		return m->in_reply_to;
	return m->nreferences ? m->references[m->nreferences - 1] : NULL;
}

/*
 * The id of the series root of patch i (see the header); NULL for none. *version is the
 * series' version: the patch's, or that of the cover it hangs from when the patch names
 * none and the cover, of the same sender and total, does ("[PATCH v3 0/4]" then
 * "[PATCH 1/4]").
 */
static const char *thread_root(const struct bg_msg *msgs, size_t n, const struct bg_strmap *ids,
			       size_t i, unsigned *version)
{
	size_t cur = i;

	*version = msgs[i].version;
	for (size_t steps = 0; steps <= n; steps++) {
		const char *pid = parent_id(&msgs[cur]);
		const struct bg_msg *pm;
		ssize_t j;

		if (msgs[cur].idx == 0 || !pid)
			return msgs[cur].message_id;
		j = bg_strmap_get(ids, pid);
		if (j < 0)
			return pid;   /* the missing cover or message the series answers */
		pm = &msgs[j];
		if (pm->patch && pm->idx == 0 && pm->total == msgs[i].total &&
		    pm->version != *version && *version == 1 &&
		    !strcmp(pm->from_addr, msgs[i].from_addr)) {
			*version = pm->version;
			return pm->message_id;
		}
		if ((size_t)j == cur || !pm->patch || pm->version != *version ||
		    pm->total != msgs[i].total)
			return msgs[cur].message_id;
		cur = (size_t)j;
	}
	return msgs[cur].message_id;
}

char *bg_series_key(const struct bg_series_msgs *s)
{
	const struct bg_msg *m = s->cover ? s->cover : s->patches[0];

	return xasprintf("%s\n%s", m->from_addr ? m->from_addr : "", m->title ? m->title : "");
}

/* The latest loose group patch i may join: same sender, version and total, its place
 * free, sent close by; -1 when none. */
static ssize_t loose_group(const struct bg_msg *msgs, const struct group *g, size_t ng,
			   size_t i, unsigned version)
{
	const struct bg_msg *m = &msgs[i];

	for (size_t k = ng; k-- > 0;) {
		const struct bg_msg *f = &msgs[g[k].first];
		int64_t dt = m->when - f->when;

		if (g[k].loose && g[k].version == version && g[k].total == m->total &&
		    !strcmp(f->from_addr, m->from_addr) && g[k].slot[m->idx] == SIZE_MAX &&
		    dt <= LOOSE_WINDOW && dt >= -LOOSE_WINDOW)
			return (ssize_t)k;
	}
	return -1;
}

/* Which kept series cand is a version of: same sender and the same title of the cover,
 * or of patch 1 (a v2 may come without the cover v1 had); -1 when none. Its keys are
 * added to names, their strings to keep. */
static ssize_t same_series(struct bg_strmap *names, char ***keep, size_t *nkeep,
			   const struct bg_series_msgs *cand, size_t next)
{
	const struct bg_msg *p1 = cand->patches[0];
	char *kp = xasprintf("p\n%s\n%s", p1->from_addr, p1->title);
	char *kc = cand->cover ? xasprintf("c\n%s\n%s", cand->cover->from_addr,
					   cand->cover->title) : NULL;
	ssize_t si = bg_strmap_get(names, kp);

	if (si < 0 && kc)
		si = bg_strmap_get(names, kc);
	*keep = xreallocarray(*keep, *nkeep + 2, sizeof(**keep));
	(*keep)[(*nkeep)++] = kp;
	bg_strmap_put(names, kp, si < 0 ? next : (size_t)si);
	if (kc) {
		(*keep)[(*nkeep)++] = kc;
		bg_strmap_put(names, kc, si < 0 ? next : (size_t)si);
	}
	return si;
}

int bg_series_assemble(const struct bg_msg *msgs, size_t n, struct bg_series_msgs **out,
		       size_t *nout)
{
	struct bg_strmap ids = BG_STRMAP_INIT, keys = BG_STRMAP_INIT, names = BG_STRMAP_INIT;
	struct group *g = NULL;
	size_t ng = 0, galloc = 0, alloc = 0, nkeep = 0;
	struct bg_series_msgs *s;
	char **keep = NULL;
	size_t *spos;

	*out = NULL;
	*nout = 0;
	for (size_t i = 0; i < n; i++)
		if (msgs[i].message_id)
			bg_strmap_put(&ids, msgs[i].message_id, i);
	for (size_t i = 0; i < n; i++) {
		const struct bg_msg *m = &msgs[i];
		const char *root;
		unsigned version;
		ssize_t lg = -1;
		char *key;
		size_t gi;

		if (!m->patch || m->reply || m->total < 1 || m->total > BG_MSG_TOTAL_MAX ||
		    m->idx > m->total)
			continue;
		root = thread_root(msgs, n, &ids, i, &version);
		/* a patch that answers nothing: patchwork groups it by sender and version */
		if (m->idx && !parent_id(m))
			lg = loose_group(msgs, g, ng, i, version);
		if (lg >= 0) {
			gi = (size_t)lg;
		} else {
			key = root ? xasprintf("%s\n%u/%u", root, version, m->total)
				   : xasprintf("#%zu", i);
			gi = bg_strmap_put(&keys, key, ng);
			if (gi == ng) {
				ALLOC_GROW(g, ng + 1, galloc);
				g[ng].key = key;
				g[ng].slot = xmalloc((m->total + 1) * sizeof(size_t));
				for (unsigned k = 0; k <= m->total; k++)
					g[ng].slot[k] = SIZE_MAX;
				g[ng].version = version;
				g[ng].total = m->total;
				g[ng].first = i;
				g[ng].loose = !parent_id(m);
				ng++;
			} else {
				free(key);
			}
		}
		if (g[gi].slot[m->idx] == SIZE_MAX)
			g[gi].slot[m->idx] = i;
		g[gi].last = i;
	}
	s = NULL;
	spos = NULL;
	for (size_t k = 0; k < ng; k++) {
		struct bg_series_msgs cand;
		ssize_t si;
		bool ok = true;

		for (unsigned idx = 1; idx <= g[k].total; idx++)
			ok = ok && g[k].slot[idx] != SIZE_MAX;
		if (!ok)
			continue;
		cand.cover = g[k].slot[0] == SIZE_MAX ? NULL : &msgs[g[k].slot[0]];
		cand.patches = xmalloc(g[k].total * sizeof(*cand.patches));
		for (unsigned idx = 1; idx <= g[k].total; idx++)
			cand.patches[idx - 1] = &msgs[g[k].slot[idx]];
		cand.version = g[k].version;
		cand.total = g[k].total;
		si = same_series(&names, &keep, &nkeep, &cand, *nout);
		if (si < 0) {
			ALLOC_GROW(s, *nout + 1, alloc);
			spos = xreallocarray(spos, alloc, sizeof(*spos));
			s[*nout] = cand;
			spos[*nout] = g[k].last;
			(*nout)++;
		} else if (cand.version > s[si].version ||
			   (cand.version == s[si].version && g[k].last > spos[si])) {
			/* a newer version, or the same one resent later */
			free(s[si].patches);
			s[si] = cand;
			spos[si] = g[k].last;
		} else {
			free(cand.patches);
		}
	}
	for (size_t k = 0; k < ng; k++) {
		free(g[k].key);
		free(g[k].slot);
	}
	bg_strmap_release(&ids);
	bg_strmap_release(&keys);
	bg_strmap_release(&names);
	for (size_t k = 0; k < nkeep; k++)
		free(keep[k]);
	free(keep);
	free(spos);
	free(g);
	*out = s;
	return 0;
}

void bg_series_msgs_free(struct bg_series_msgs *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(s[i].patches);
	free(s);
}
