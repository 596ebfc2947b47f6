/*
 * HTML for the results site, in the manner of cgit's html_txt and html_attr: every text
 * and attribute that comes from a log, a commit, a patch or a name goes through these,
 * so that nothing of it can become markup. Pages are built in a strbuf.
 */
#ifndef BG_HTML_H
#define BG_HTML_H

#include "util/compat.h"
#include "util/strbuf.h"

/*
 * Appends s as element text: & < > " ' as character references; newline and tab kept;
 * every other control character (CR included), DEL, C1 control and byte that is not
 * valid UTF-8 becomes U+FFFD, one per byte.
 */
void bg_html_txt(struct bg_strbuf *sb, const char *s);
/* The same for a quoted attribute value: newline and tab as &#10; and &#9; too. */
void bg_html_attr(struct bg_strbuf *sb, const char *s);
/* The first n bytes of s as text, never cutting a UTF-8 sequence (a commit's "sha12"). */
void bg_html_txt_prefix(struct bg_strbuf *sb, const char *s, size_t n);
/* printf for text: the whole result escaped as bg_html_txt does. */
void bg_html_txtf(struct bg_strbuf *sb, const char *fmt, ...) BG_PRINTF(2, 3);
/* <a href="HREF">TEXT</a>, both escaped. */
void bg_html_link(struct bg_strbuf *sb, const char *href, const char *text);

#endif
