/*
 * Reads a LAVA job log (a YAML list of {dt, lvl, msg}) and hands its console lines,
 * those of level "target" and "feedback", to the console parser.
 *
 * LAVA writes one entry per line (a line is at most 10^6 characters: it replaces longer
 * entries), so each line is read as a YAML document of its own. That bounds what libyaml
 * holds to one line, and the nesting it sees to one line's: its scanner slows down
 * quadratically with nesting ("- " and then 200 000 '[' took minutes), so a line nested
 * deeper than LAVA_MAX_DEPTH, or longer than LAVA_MAX_LINE, or that is no entry, ends the
 * log there, as a cut log does, and is reported where; the entries before it are kept.
 */
#include "parse/bootlog.h"
#include "parse/yaml-event.h"
#include "util/error.h"
#include "util/strbuf.h"
#include "util/xmalloc.h"

#define LAVA_MAX_LINE (1u << 20)
#define LAVA_MAX_DEPTH 64

static bool is_console_level(const struct bg_strbuf *lvl)
{
	return !strcmp(lvl->buf, "target") || !strcmp(lvl->buf, "feedback");
}

/* LAVA writes the console's quotes as \" inside the message: undo that. */
static void unescape_quotes(struct bg_strbuf *msg)
{
	char *w = msg->buf;

	for (size_t i = 0; i < msg->len; i++) {
		if (msg->buf[i] == '\\' && i + 1 < msg->len && msg->buf[i + 1] == '"')
			continue;
		*w++ = msg->buf[i];
	}
	bg_strbuf_setlen(msg, (size_t)(w - msg->buf));
}

/* Sends a message, which may hold several lines, to the console parser. */
static int feed_message(struct bg_bootlog *p, const struct bg_strbuf *msg)
{
	const char *s = msg->buf, *end = msg->buf + msg->len;
	int ret = 0;

	while (s <= end && !ret) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *stop = nl ? nl : end;

		ret = bg_bootlog_console_line(p, s, (size_t)(stop - s));
		if (!nl)
			break;
		s = nl + 1;
	}
	return ret;
}

/*
 * The deepest nesting of '[' and '{' in a line, quoted or not: an over-count for brackets
 * inside strings (a console line's "[    0.1]" adds one), never an under-count.
 */
static int line_depth(const char *s, size_t len)
{
	int depth = 0, max = 0;

	for (size_t i = 0; i < len; i++) {
		if (s[i] == '[' || s[i] == '{') {
			if (++depth > max)
				max = depth;
		} else if ((s[i] == ']' || s[i] == '}') && depth > 0) {
			depth--;
		}
	}
	return max;
}

/* The UTF-16 unit of the JSON escape "\\uXXXX" at s, or -1 when s holds none. */
static long read_u16_escape(const char *s, const char *end)
{
	long v = 0;

	if (end - s < 6 || s[0] != '\\' || s[1] != 'u')
		return -1;
	for (int i = 2; i < 6; i++) {
		int c = (unsigned char)s[i], d = c >= '0' && c <= '9' ? c - '0' :
						 c >= 'a' && c <= 'f' ? c - 'a' + 10 :
						 c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;

		if (d < 0)
			return -1;
		v = v * 16 + d;
	}
	return v;
}

/*
 * LAVA writes a console's bytes as JSON, and JSON spells a character past U+FFFF as a
 * pair of "\\uD83D\\uDE00" surrogates, which YAML refuses, one with its other half lost
 * included: that ended the whole log at one odd line. In double-quoted scalars a pair
 * becomes "\\U0001F600" and a lone surrogate "\\uFFFD"; never longer, so in place.
 */
static void fix_surrogates(struct bg_strbuf *line)
{
	char *r = line->buf, *w = line->buf, *end = line->buf + line->len;
	char prev = '-';          /* the last byte outside quotes that is no space */
	int quote = 0;

	if (!memmem(line->buf, line->len, "\\ud", 3) && !memmem(line->buf, line->len, "\\uD", 3))
		return;
	while (r < end) {
		long hi, lo;

		if (!quote) {
			/* a quote opens a scalar only where a scalar starts */
			if ((*r == '"' || *r == '\'') && prev && strchr("-[{,:?", prev))
				quote = *r;
			if (*r != ' ')
				prev = *r;
			*w++ = *r++;
		} else if (quote == '\'') {
			if (*r == '\'' && r + 1 < end && r[1] == '\'')
				*w++ = *r++;
			else if (*r == '\'')
				quote = 0;
			*w++ = *r++;
		} else if (*r == '"') {
			quote = 0;
			*w++ = *r++;
		} else if (*r != '\\' || r + 1 >= end) {
			*w++ = *r++;
		} else if ((hi = read_u16_escape(r, end)) < 0xd800 || hi > 0xdfff) {
			*w++ = *r++;        /* any other escape: its two bytes as they are */
			*w++ = *r++;
		} else if (hi < 0xdc00 && (lo = read_u16_escape(r + 6, end)) >= 0xdc00 &&
			   lo <= 0xdfff) {
			/* 10 bytes and a NUL where the 12 of the pair were */
			snprintf(w, 11, "\\U%08lX", 0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00));
			w += 10;
			r += 12;
		} else {
			memcpy(w, "\\uFFFD", 6);
			w += 6;
			r += 6;
		}
	}
	bg_strbuf_setlen(line, (size_t)(w - line->buf));
}

/* The value after a key, read into what (a scalar) or skipped (a collection). */
static int entry_value(struct bg_yaml_reader *r, struct bg_strbuf *what, bool *have)
{
	struct bg_yaml_event ev;

	if (bg_yaml_next(r, &ev) < 0)
		return -1;
	if (ev.type == BG_YAML_SCALAR) {
		if (what) {
			bg_strbuf_reset(what);
			bg_strbuf_add(what, ev.value, ev.len);
			*have = true;
		}
		return 0;
	}
	/* "results" entries carry a mapping as msg: not console output */
	if (ev.type == BG_YAML_MAP_BEGIN || ev.type == BG_YAML_SEQ_BEGIN)
		return bg_yaml_skip(r);
	return 0;
}

struct entry {
	struct bg_strbuf lvl, msg, key;
	bool have_lvl, have_msg;
};

/*
 * One line: "- {dt: ..., lvl: ..., msg: ...}". 0 and the entry, 1 for a line that holds
 * no entry (a blank one), or -1 with bg_error_last() = "col: why" when it is not one.
 */
static int read_entry(const char *line, size_t len, struct entry *e)
{
	struct bg_yaml_reader *r = bg_yaml_reader_new_mem(line, len);
	struct bg_yaml_event ev;
	int ret = -1;

	e->have_lvl = e->have_msg = false;
	if (!r)
		return bg_error("1:1: cannot set up the YAML parser");
	if (bg_yaml_next(r, &ev) < 0)
		goto out;
	if (ev.type == BG_YAML_END) {
		ret = 1;
		goto out;
	}
	if (ev.type != BG_YAML_SEQ_BEGIN)
		goto not_entry;
	/* the YAML reader's own "line:col: why", which points at what it could not read */
	if (bg_yaml_next(r, &ev) < 0)
		goto out;
	if (ev.type != BG_YAML_MAP_BEGIN)
		goto not_entry;
	for (;;) {
		if (bg_yaml_next(r, &ev) < 0)
			goto out;
		if (ev.type == BG_YAML_MAP_END)
			break;
		if (ev.type != BG_YAML_SCALAR)
			goto not_entry;
		bg_strbuf_reset(&e->key);
		bg_strbuf_add(&e->key, ev.value, ev.len);
		if (entry_value(r, !strcmp(e->key.buf, "lvl") ? &e->lvl :
				!strcmp(e->key.buf, "msg") ? &e->msg : NULL,
				!strcmp(e->key.buf, "lvl") ? &e->have_lvl : &e->have_msg) < 0)
			goto out;
	}
	if (bg_yaml_next(r, &ev) < 0)
		goto out;
	if (ev.type != BG_YAML_SEQ_END || bg_yaml_next(r, &ev) < 0 || ev.type != BG_YAML_END)
		goto not_entry;
	ret = 0;
	goto out;
not_entry:
	bg_error("%zu:%zu: a LAVA log is a YAML list of entries, one a line", ev.line, ev.column);
out:
	bg_yaml_reader_free(r);
	return ret;
}

/* Warns that the log ends at lineno for why ("col: ..." from the YAML reader, or not). */
static void cut_here(struct bg_bootlog *p, uint64_t lineno, const char *why, bool yaml,
		     uint64_t entries)
{
	char where[4096], *end;
	const char *colon = yaml ? strchr(why, ':') : NULL;
	unsigned long col = 0;

	/* a line is a document of its own: its "1:COL: why" becomes the log's "LINE:COL" */
	if (colon) {
		errno = 0;
		col = strtoul(colon + 1, &end, 10);
		if (!errno && end > colon + 1 && end[0] == ':' && end[1] == ' ') {
			snprintf(where, sizeof(where), "%s:%" PRIu64 ":%lu", bg_bootlog_name(p),
				 lineno, col);
			why = end + 2;
		} else {
			colon = NULL;
		}
	}
	if (!colon)
		snprintf(where, sizeof(where), "%s:%" PRIu64, bg_bootlog_name(p), lineno);
	if (yaml)
		bg_bootlog_warn(p, where, "LAVA log is cut or malformed here (%s); entries kept: %"
				PRIu64, why, entries);
	else
		bg_bootlog_warn(p, where, "LAVA log cut here: %s; entries kept: %" PRIu64, why,
				entries);
}

int bg_bootlog_parse_lava(struct bg_bootlog *p,
			  ssize_t (*read_fn)(void *data, char *buf, size_t size), void *data)
{
	struct entry e = { BG_STRBUF_INIT, BG_STRBUF_INIT, BG_STRBUF_INIT, false, false };
	struct bg_strbuf line = BG_STRBUF_INIT;
	char buf[65536];
	uint64_t lineno = 0, entries = 0;
	bool eof = false, over = false;
	int ret = 0;

	e.msg.max = (size_t)BG_BOOTLOG_MAX_LINE * 4;
	line.max = LAVA_MAX_LINE;
	while (!eof && !ret) {
		ssize_t n = read_fn(data, buf, sizeof(buf));
		size_t start = 0;

		if (n < 0) {
			ret = bg_error_errno("cannot read '%s'", bg_bootlog_name(p));
			break;
		}
		eof = n == 0;
		/* each whole line, and at the end what is left */
		for (ssize_t i = 0; i <= n && !ret; i++) {
			int r;

			if (i < n && buf[i] != '\n')
				continue;
			if (i > (ssize_t)start || i == n)
				over |= bg_strbuf_add(&line, buf + start, (size_t)i - start) < 0;
			start = (size_t)i + 1;
			if (i == n && !eof)
				break;              /* the line goes on in the next read */
			lineno++;
			if (over) {
				cut_here(p, lineno, "a line longer than 1 MiB", false, entries);
				goto out;
			}
			if (line_depth(line.buf, line.len) > LAVA_MAX_DEPTH) {
				cut_here(p, lineno, "nesting deeper than 64 levels", false, entries);
				goto out;
			}
			fix_surrogates(&line);
			r = read_entry(line.buf, line.len, &e);
			bg_strbuf_reset(&line);
			if (r < 0) {
				char *why = xstrdup(bg_error_last());

				cut_here(p, lineno, why, true, entries);
				free(why);
				goto out;
			}
			if (r > 0)
				continue;
			entries++;
			bg_bootlog_set_lineno(p, lineno);
			if (e.have_msg && e.have_lvl && is_console_level(&e.lvl)) {
				unescape_quotes(&e.msg);
				ret = feed_message(p, &e.msg);
			}
		}
	}
out:
	bg_strbuf_release(&line);
	bg_strbuf_release(&e.lvl);
	bg_strbuf_release(&e.msg);
	bg_strbuf_release(&e.key);
	return ret;
}
