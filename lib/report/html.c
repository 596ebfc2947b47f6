/* Escaping for HTML (html.h). */
#include "report/html.h"
#include "util/text.h"

#define REPLACEMENT "\xef\xbf\xbd"

static void escape(struct bg_strbuf *sb, const char *s, size_t len, bool attr)
{
	size_t i = 0;

	while (i < len) {
		unsigned char c = (unsigned char)s[i];
		size_t n = bg_text_utf8_len(s + i, len - i);

		if (n > 1) {
			bg_strbuf_add(sb, s + i, n);
			i += n;
			continue;
		}
		i++;
		switch (n ? c : 0) {
		case '&': bg_strbuf_addstr(sb, "&amp;"); break;
		case '<': bg_strbuf_addstr(sb, "&lt;"); break;
		case '>': bg_strbuf_addstr(sb, "&gt;"); break;
		case '"': bg_strbuf_addstr(sb, "&quot;"); break;
		case '\'': bg_strbuf_addstr(sb, "&#39;"); break;
		case '\n': bg_strbuf_addstr(sb, attr ? "&#10;" : "\n"); break;
		case '\t': bg_strbuf_addstr(sb, attr ? "&#9;" : "\t"); break;
		default:
			/* n == 0: not UTF-8 (or a C1 control) */
			if (n && c >= 0x20 && c != 0x7f)
				bg_strbuf_addch(sb, c);
			else
				bg_strbuf_addstr(sb, REPLACEMENT);
		}
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
	size_t len = 0;

	if (!s)
		return;
	while (len < n && s[len]) {
		size_t k = bg_text_utf8_len(s + len, strlen(s + len));

		len += k ? k : 1;
	}
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
