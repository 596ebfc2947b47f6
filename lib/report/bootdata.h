/*
 * A stored boot as a boot-data file of Tim Bird's boot-time wizard (the format its
 * grab-boot-data.sh writes and its boot_data_parser.py reads), so that bootgate's boots
 * can join the embedded Linux boot-time collection. bootgate parse reads such files back
 * (parse/bootlog-bootdata.c).
 */
#ifndef BG_REPORT_BOOTDATA_H
#define BG_REPORT_BOOTDATA_H

#include "util/compat.h"
#include "util/strbuf.h"

/* The lab name bootgate writes: the wizard's reader splits "LAB-MACHINE" at the first '-'. */
#define BG_BOOTDATA_LAB "bootgate"

struct bg_bootdata_info {
	const char *machine;        /* GBD_MACHINE: the board */
	double when;                /* Unix seconds: GBD_TIMESTAMP */
	const char *kernel;         /* KERNEL_VERSION ("6.1.192+ #3 ..."), or NULL */
	const char *cmdline;        /* KERNEL_CMDLINE, or NULL */
	/* KEY, VALUE pairs of bootgate's own section (commit, mode, ...), NULL-ended */
	const char *const *extra;
};

/*
 * Appends the file to out: the wizard's sections with what bootgate knows, then the
 * console under "== KERNEL MESSAGES ==". Values and the console are made safe for the
 * wizard's reader: no value holds a line end or a control character, the file is UTF-8
 * (bytes that are not become U+FFFD), line ends are LF, and a console line that starts
 * with "== " (firmware chatter; the kernel's lines start with '[' or '<') is indented by
 * one space so that it cannot open a section.
 */
void bg_bootdata_write(struct bg_strbuf *out, const struct bg_bootdata_info *info,
		       const char *console, size_t len);

/*
 * "boot-data-bootgate-BOARD-COMMIT12-BOOT-YYMMDD-HHMMSS.txt", the wizard's file name
 * with the board, the commit and the boot in its machine part; owned by the caller.
 * Every part is made a plain name: a board or a commit from the store never brings a
 * '/', a "..", a control character or a leading '.' or '-' into it.
 */
char *bg_bootdata_file_name(const char *board, const char *commit, int64_t boot, double when);

#endif
