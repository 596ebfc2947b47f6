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
 * the C1 controls, the bidirectional formatting characters and every byte that is not
 * part of valid UTF-8 written as \xNN (each byte of a sequence), and a backslash as \\
 * (so the escapes cannot be forged).
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
 * What stands at the start of a text, as the one UTF-8 walker of every output reads it.
 * Each output (this terminal's escapes, HTML, mail, JSON, boot-data files) has its own
 * policy for each kind; a BG_TEXT_CHAR is shown as it is by all of them.
 */
enum bg_text_kind {
	BG_TEXT_CHAR,       /* a printable character: ASCII from ' ' to '~', or valid UTF-8 */
	BG_TEXT_C0,         /* a C0 control byte (a line break, a tab, an escape...) or DEL */
	BG_TEXT_C1,         /* U+0080..U+009F: valid UTF-8, and controls a terminal acts on */
	/*
	 * a bidirectional formatting character (U+202A..U+202E, U+2066..U+2069, U+200E,
	 * U+200F, U+061C): it reorders what a terminal shows after it (Trojan Source)
	 */
	BG_TEXT_BIDI,
	/* a byte that begins no valid sequence: cut short, overlong, a surrogate, >U+10FFFF */
	BG_TEXT_INVALID,
};

struct bg_text_unit {
	enum bg_text_kind kind;
	size_t len;         /* its bytes, 1..4: 1 for BG_TEXT_INVALID */
	uint32_t cp;        /* its code point; the byte itself for BG_TEXT_INVALID */
};

/* Decodes what stands at s[0..left), left > 0: one character or one invalid byte. */
struct bg_text_unit bg_text_next(const char *s, size_t left);
/* Columns text that is valid UTF-8 takes: a character each. */
size_t bg_text_columns(const char *s, size_t len);
/* Whether s holds a C0 control byte (a line break, a tab, an escape...) or DEL. */
bool bg_text_has_control(const char *s);
/* printf, with the whole result escaped as above; -1 on a write error. */
int bg_text_printf(FILE *f, const char *fmt, ...) BG_PRINTF(2, 3);
/*
 * One line of a table or a heading: printf escaped as bg_text_escape_line does (a newline
 * in a file name cannot start a forged row), then a newline; -1 on a write error.
 */
int bg_text_println(FILE *f, const char *fmt, ...) BG_PRINTF(2, 3);

#endif
