/*
 * Writes a boot as the boot-time wizard's boot-data file (bootdata.h): the sections its
 * reader knows (GRAB-BOOT-DATA INFO, Kernel Info, KERNEL MESSAGES) and one of bootgate's.
 */
#include "report/bootdata.h"

#include <time.h>

#include "parse/bootlog.h"
#include "util/strbuf.h"
#include "util/text.h"
#include "util/xmalloc.h"

#define NAME_MAX_PART 64

/* n times U+FFFD: one for each byte of a C1 control or of what is not UTF-8 */
static void add_replacements(struct bg_strbuf *out, size_t n)
{
	while (n--)
		bg_strbuf_addstr(out, "\xef\xbf\xbd");
}

/* "yymmdd-HHMMSS" in UTC, as grab-boot-data.sh stamps its files; the epoch for no time. */
static void stamp(char buf[16], double when)
{
	time_t t = (when >= 0 && when < 253402300800.0) ? (time_t)when : 0;
	struct tm tm;

	if (!gmtime_r(&t, &tm) || !strftime(buf, 16, "%y%m%d-%H%M%S", &tm))
		snprintf(buf, 16, "700101-000000");
}

/*
 * A value on one line: a C0 control or DEL becomes '?', each byte of a C1 control or of
 * what is not UTF-8 U+FFFD.
 */
static void add_value(struct bg_strbuf *out, const char *key, const char *value)
{
	const char *s = value ? value : "";
	size_t len = strlen(s);

	bg_strbuf_addf(out, "%s=\"", key);
	for (size_t i = 0; i < len;) {
		struct bg_text_unit u = bg_text_next(s + i, len - i);

		if (u.kind == BG_TEXT_C0)
			bg_strbuf_addch(out, '?');
		else if (u.kind == BG_TEXT_C1 || u.kind == BG_TEXT_INVALID)
			add_replacements(out, u.len);
		else
			bg_strbuf_add(out, s + i, u.len);
		i += u.len;
	}
	bg_strbuf_addstr(out, "\"\n");
}

/*
 * A plain name of at most max bytes of [A-Za-z0-9._+-], others as '_', never starting
 * with '.' or '-' (bg_path_name_ok's names); "unknown" for none.
 */
static void add_name_part(struct bg_strbuf *out, const char *s, size_t max)
{
	size_t start = out->len, i;

	for (i = 0; s && s[i] && i < max; i++) {
		char c = s[i];
		bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			     (c >= '0' && c <= '9') || c == '_' || c == '+' ||
			     (i > 0 && (c == '.' || c == '-'));

		bg_strbuf_addch(out, plain ? c : '_');
	}
	if (out->len == start)
		bg_strbuf_addstr(out, "unknown");
}

char *bg_bootdata_file_name(const char *board, const char *commit, int64_t boot, double when)
{
	struct bg_strbuf name = BG_STRBUF_INIT;
	char ts[16];

	stamp(ts, when);
	bg_strbuf_addstr(&name, "boot-data-" BG_BOOTDATA_LAB "-");
	add_name_part(&name, board, NAME_MAX_PART);
	bg_strbuf_addch(&name, '-');
	add_name_part(&name, commit, 12);
	bg_strbuf_addf(&name, "-%" PRId64 "-%s.txt", boot, ts);
	return bg_strbuf_detach(&name, NULL);
}

static void add_console(struct bg_strbuf *out, const char *console, size_t len)
{
	const unsigned char *s = (const unsigned char *)console;
	bool line_start = true;

	for (size_t i = 0; i < len;) {
		struct bg_text_unit u;

		if (s[i] == '\r' || s[i] == '\n') {
			/* CRLF, LF and a lone CR (SLOF, progress bars) all end a line */
			i += (s[i] == '\r' && i + 1 < len && s[i + 1] == '\n') ? 2 : 1;
			bg_strbuf_addch(out, '\n');
			line_start = true;
			continue;
		}
		if (line_start && len - i >= 3 && !memcmp(s + i, "== ", 3))
			bg_strbuf_addch(out, ' ');
		line_start = false;
		/* the console as it was, but a C1 control's bytes and what is not UTF-8 */
		u = bg_text_next(console + i, len - i);
		if (u.kind == BG_TEXT_C1 || u.kind == BG_TEXT_INVALID)
			add_replacements(out, u.len);
		else
			bg_strbuf_add(out, console + i, u.len);
		i += u.len;
	}
	if (!line_start)
		bg_strbuf_addch(out, '\n');
}

void bg_bootdata_write(struct bg_strbuf *out, const struct bg_bootdata_info *info,
		       const char *console, size_t len)
{
	struct bg_strbuf machine = BG_STRBUF_INIT;
	char ts[16];

	add_name_part(&machine, info->machine, NAME_MAX_PART);
	stamp(ts, info->when);
	bg_strbuf_addstr(out, "=== Machine Info ==============================\n");
	bg_strbuf_addstr(out, "== GRAB-BOOT-DATA INFO ==\n");
	bg_strbuf_addf(out, "GBD_ARGS=\"-l %s -m %s\"\n", BG_BOOTDATA_LAB, machine.buf);
	add_value(out, "GBD_TIMESTAMP", ts);
	add_value(out, "GBD_LAB", BG_BOOTDATA_LAB);
	add_value(out, "GBD_MACHINE", machine.buf);
	bg_strbuf_addstr(out, "\n== Kernel Info ==\n");
	if (info->kernel)
		add_value(out, "KERNEL_VERSION", info->kernel);
	if (info->cmdline)
		add_value(out, "KERNEL_CMDLINE", info->cmdline);
	if (info->extra && info->extra[0]) {
		bg_strbuf_addstr(out, "\n== BOOTGATE ==\n");
		for (size_t i = 0; info->extra[i] && info->extra[i + 1]; i += 2)
			add_value(out, info->extra[i], info->extra[i + 1]);
	}
	bg_strbuf_addstr(out, "\n== " BG_BOOTDATA_KERNEL " ==\n");
	add_console(out, console, len);
	bg_strbuf_addch(out, '\n');
	bg_strbuf_release(&machine);
}
