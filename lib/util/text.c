/* The UTF-8 walker of every output, and terminal-safe text (text.h). */
#include "util/text.h"

bool bg_text_has_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return true;
	return false;
}

/* Unicode's Bidi_Control characters: the embeddings, overrides, isolates and marks. */
static bool is_bidi(uint32_t cp)
{
	return (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069) ||
	       cp == 0x200e || cp == 0x200f || cp == 0x061c;
}

struct bg_text_unit bg_text_next(const char *str, size_t left)
{
	const unsigned char *s = (const unsigned char *)str;
	struct bg_text_unit u = { .kind = BG_TEXT_INVALID, .len = 1, .cp = s[0] };
	uint32_t cp;
	size_t n;

	if (s[0] < 0x80) {
		u.kind = s[0] < 0x20 || s[0] == 0x7f ? BG_TEXT_C0 : BG_TEXT_CHAR;
		return u;
	}
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		cp = s[0] & 0x07;
	} else {
		return u;
	}
	if (left < n)
		return u;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return u;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* overlong forms, surrogates and what lies past U+10FFFF are not UTF-8 */
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return u;
	u.len = n;
	u.cp = cp;
	u.kind = cp < 0xa0 ? BG_TEXT_C1 : is_bidi(cp) ? BG_TEXT_BIDI : BG_TEXT_CHAR;
	return u;
}

size_t bg_text_columns(const char *s, size_t len)
{
	size_t cols = 0;

	for (size_t i = 0; i < len; i++)
		cols += ((unsigned char)s[i] & 0xc0) != 0x80;
	return cols;
}

/* The terminal's policy: what could act on it, or is no UTF-8, shown as \xNN escapes. */
static void escape(struct bg_strbuf *sb, const char *s, size_t len, bool newline)
{
	for (size_t i = 0; i < len;) {
		struct bg_text_unit u = bg_text_next(s + i, len - i);

		if (u.kind == BG_TEXT_CHAR && u.cp == '\\')
			bg_strbuf_addstr(sb, "\\\\");
		else if (u.kind == BG_TEXT_CHAR || (u.kind == BG_TEXT_C0 && u.cp == '\n' && newline))
			bg_strbuf_add(sb, s + i, u.len);
		else
			for (size_t k = 0; k < u.len; k++)
				bg_strbuf_addf(sb, "\\x%02x", (unsigned char)s[i + k]);
		i += u.len;
	}
}

void bg_text_escape(struct bg_strbuf *sb, const char *s, size_t len)
{
	escape(sb, s, len, true);
}

void bg_text_escape_line(struct bg_strbuf *sb, const char *s, size_t len)
{
	escape(sb, s, len, false);
}

void bg_text_cell(struct bg_strbuf *sb, const char *s, size_t width)
{
	size_t start = sb->len, cols;

	escape(sb, s, strlen(s), false);
	for (cols = bg_text_columns(sb->buf + start, sb->len - start); cols < width; cols++)
		bg_strbuf_addch(sb, ' ');
}

static int vprint(FILE *f, bool line, const char *fmt, va_list ap)
{
	struct bg_strbuf raw = BG_STRBUF_INIT, safe = BG_STRBUF_INIT;
	int ret = 0;

	bg_strbuf_vaddf(&raw, fmt, ap);
	escape(&safe, raw.buf, raw.len, !line);
	if (line)
		bg_strbuf_addch(&safe, '\n');
	if (fwrite(safe.buf, 1, safe.len, f) != safe.len)
		ret = -1;
	bg_strbuf_release(&raw);
	bg_strbuf_release(&safe);
	return ret;
}

int bg_text_printf(FILE *f, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vprint(f, false, fmt, ap);
	va_end(ap);
	return ret;
}

int bg_text_println(FILE *f, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vprint(f, true, fmt, ap);
	va_end(ap);
	return ret;
}
