/* Terminal-safe text (text.h). */
#include "util/text.h"

bool bg_text_has_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return true;
	return false;
}

size_t bg_text_utf8_len(const char *str, size_t left)
{
	const unsigned char *s = (const unsigned char *)str;
	uint32_t cp;
	size_t n;

	if (s[0] < 0x80)
		return 1;
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
		return 0;
	}
	if (left < n)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* overlong forms, surrogates and what lies past U+10FFFF are not UTF-8 */
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	/* U+0080..U+009F are the C1 controls: a terminal may act on them */
	if (n == 2 && cp < 0xa0)
		return 0;
	return n;
}

static void escape(struct bg_strbuf *sb, const char *s, size_t len, bool newline)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0;

	while (i < len) {
		size_t n = bg_text_utf8_len(s + i, len - i);

		if (n == 1 && (u[i] == '\\'))
			bg_strbuf_addstr(sb, "\\\\");
		else if (n == 1 && (u[i] >= 0x20 || (u[i] == '\n' && newline)) && u[i] != 0x7f)
			bg_strbuf_addch(sb, u[i]);
		else if (n > 1)
			bg_strbuf_add(sb, s + i, n);
		else
			bg_strbuf_addf(sb, "\\x%02x", u[i]);
		i += n ? n : 1;
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
	size_t start = sb->len, cols = 0;

	escape(sb, s, strlen(s), false);
	for (size_t i = start; i < sb->len; i++)
		cols += ((unsigned char)sb->buf[i] & 0xc0) != 0x80;
	for (; cols < width; cols++)
		bg_strbuf_addch(sb, ' ');
}

int bg_text_printf(FILE *f, const char *fmt, ...)
{
	struct bg_strbuf raw = BG_STRBUF_INIT, safe = BG_STRBUF_INIT;
	va_list ap;
	int ret = 0;

	va_start(ap, fmt);
	bg_strbuf_vaddf(&raw, fmt, ap);
	va_end(ap);
	bg_text_escape(&safe, raw.buf, raw.len);
	if (fwrite(safe.buf, 1, safe.len, f) != safe.len)
		ret = -1;
	bg_strbuf_release(&raw);
	bg_strbuf_release(&safe);
	return ret;
}
