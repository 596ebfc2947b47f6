/*
 * Text for a terminal. What comes from a log, a commit or a patch may hold escape
 * sequences, BEL, DEL or bytes that are not UTF-8; printed raw they can rewrite what a
 * maintainer sees. Everything the CLI prints for people goes through here.
 */
#ifndef BG_TEXT_H
#define BG_TEXT_H

#include "util/compat.h"
#include "util/strbuf.h"

/*
 * Appends s[0..len) to sb with every control character but newline (tab included), DEL,
 * the C1 controls and every byte that is not part of valid UTF-8 written as \xNN, and a
 * backslash as \\ (so the escapes cannot be forged).
 */
void bg_text_escape(struct bg_strbuf *sb, const char *s, size_t len);
/* The same for a text that must stay one line (a log message): newline too is \x0a. */
void bg_text_escape_line(struct bg_strbuf *sb, const char *s, size_t len);
/*
 * A table's cell: s escaped as bg_text_escape_line does, then spaces up to width columns
 * (a UTF-8 character is one), so that what the escapes add does not push the next
 * column. Print the line with fputs: it is escaped already.
 */
void bg_text_cell(struct bg_strbuf *sb, const char *s, size_t width);
/*
 * Length of the valid UTF-8 sequence at s (1-4, at most left bytes), or 0 when it is not
 * one: an invalid byte, an overlong form, a surrogate, past U+10FFFF, or a C1 control.
 */
size_t bg_text_utf8_len(const char *s, size_t left);
/* Whether s holds a C0 control byte (a line break, a tab, an escape...) or DEL. */
bool bg_text_has_control(const char *s);
/* printf, with the whole result escaped as above; -1 on a write error. */
int bg_text_printf(FILE *f, const char *fmt, ...) BG_PRINTF(2, 3);

#endif
