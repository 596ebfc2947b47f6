/* Escaping for HTML (html.h). */
#include "report/html.h"
#include "util/text.h"

#define REPLACEMENT "\xef\xbf\xbd"

/*
 * HTML's policy: the markup characters as entities; newline and tab kept (in an attribute
 * as references, which its value keeps); every other control byte, DEL, and each byte of
 * a C1 control or of what is not UTF-8, U+FFFD. A bidirectional formatting character is
 * kept: the browser ends its effect with the element's block, where the terminal would
 * carry it over the rest of the line.
 */
static void escape(struct bg_strbuf *sb, const char *s, size_t len, bool attr)
{
	for (size_t i = 0; i < len;) {
		struct bg_text_unit u = bg_text_next(s + i, len - i);

		switch (u.kind) {
		case BG_TEXT_CHAR:
		case BG_TEXT_BIDI:
			switch (u.cp) {
			case '&': bg_strbuf_addstr(sb, "&amp;"); break;
			case '<': bg_strbuf_addstr(sb, "&lt;"); break;
			case '>': bg_strbuf_addstr(sb, "&gt;"); break;
			case '"': bg_strbuf_addstr(sb, "&quot;"); break;
			case '\'': bg_strbuf_addstr(sb, "&#39;"); break;
			default: bg_strbuf_add(sb, s + i, u.len);
			}
			break;
		case BG_TEXT_C0:
			if (u.cp == '\n')
				bg_strbuf_addstr(sb, attr ? "&#10;" : "\n");
			else if (u.cp == '\t')
				bg_strbuf_addstr(sb, attr ? "&#9;" : "\t");
			else
				bg_strbuf_addstr(sb, REPLACEMENT);
			break;
		case BG_TEXT_C1:
		case BG_TEXT_INVALID:
			for (size_t k = 0; k < u.len; k++)
				bg_strbuf_addstr(sb, REPLACEMENT);
			break;
		}
		i += u.len;
	}
}

void bg_html_txt(struct bg_strbuf *sb, const char *s)
{
	if (s)
		escape(sb, s, strlen(s), false);
}

void bg_html_attr(struct bg_strbuf *sb, const char *s)
{
	if (s)
		escape(sb, s, strlen(s), true);
}

void bg_html_txt_prefix(struct bg_strbuf *sb, const char *s, size_t n)
{
	size_t len = 0, all;

	if (!s)
		return;
	/* cut between characters, never in one (the longest is 4 bytes: no more is read) */
	for (all = strnlen(s, n + 4); len < n && len < all;)
		len += bg_text_next(s + len, all - len).len;
	escape(sb, s, len, false);
}

void bg_html_txtf(struct bg_strbuf *sb, const char *fmt, ...)
{
	struct bg_strbuf raw = BG_STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	bg_strbuf_vaddf(&raw, fmt, ap);
	va_end(ap);
	escape(sb, raw.buf, raw.len, false);
	bg_strbuf_release(&raw);
}

void bg_html_link(struct bg_strbuf *sb, const char *href, const char *text)
{
	bg_strbuf_addstr(sb, "<a href=\"");
	bg_html_attr(sb, href);
	bg_strbuf_addstr(sb, "\">");
	bg_html_txt(sb, text);
	bg_strbuf_addstr(sb, "</a>");
}
