/*
 * Tells the sections of a boot-data file (the boot-time wizard's: grab-boot-data.sh
 * writes it, boot_data_parser.py reads it) apart, so that the console parser sees only
 * the kernel's messages. Headers are read as the wizard's reader reads them: a line that
 * starts with "== " and, stripped, ends with " ==".
 */
#include "parse/bootlog.h"

/* What grab-boot-data.sh writes first, before its first section. */
#define BOOTDATA_PREAMBLE "=== Machine Info"

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\v' || c == '\f';
}

bool bg_bootdata_header(const char *s, size_t len, const char **name, size_t *name_len)
{
	size_t b, e;

	if (len < 3 || memcmp(s, "== ", 3) != 0)
		return false;
	for (b = 3; b < len && is_blank(s[b]); b++)
		;
	for (e = len; e > b && is_blank(s[e - 1]); e--)
		;
	/* at least one character of name before " ==" */
	if (e - b < 4 || memcmp(s + e - 3, " ==", 3) != 0)
		return false;
	*name = s + b;
	*name_len = e - 3 - b;
	return true;
}

static bool name_is(const char *name, size_t len, const char *want)
{
	return len == strlen(want) && !memcmp(name, want, len);
}

/*
 * A console that happens to print "== something ==" first must stay a console: only
 * the wizard's own preamble, or one of the sections it writes first or always, opens a
 * boot-data file.
 */
static enum bg_bootdata_format first_line(const char *s, size_t len)
{
	static const char *const opening[] = { "UPTIME", "GRAB-BOOT-DATA INFO", "Kernel Info",
						BG_BOOTDATA_KERNEL };
	const char *name;
	size_t n;

	if (len >= strlen(BOOTDATA_PREAMBLE) && !memcmp(s, BOOTDATA_PREAMBLE,
							 strlen(BOOTDATA_PREAMBLE)))
		return BG_BOOTDATA_YES;
	if (!bg_bootdata_header(s, len, &name, &n))
		return BG_BOOTDATA_NO;
	for (size_t i = 0; i < ARRAY_SIZE(opening); i++)
		if (name_is(name, n, opening[i]))
			return BG_BOOTDATA_YES;
	return BG_BOOTDATA_NO;
}

enum bg_bootdata_line bg_bootdata_line(struct bg_bootdata *bd, const char *s, size_t len)
{
	const char *name;
	size_t n, i;

	if (bd->format == BG_BOOTDATA_NO)
		return BG_BOOTDATA_PASS;
	if (bd->format == BG_BOOTDATA_UNKNOWN) {
		for (i = 0; i < len && (is_blank(s[i]) || s[i] == '\r'); i++)
			;
		if (i == len)
			return BG_BOOTDATA_PASS;
		bd->format = first_line(s, len);
		if (bd->format == BG_BOOTDATA_NO)
			return BG_BOOTDATA_PASS;
	}
	if (len >= 3 && !memcmp(s, "== ", 3)) {
		if (!bg_bootdata_header(s, len, &name, &n))
			return BG_BOOTDATA_MALFORMED;  /* the section goes on, as for the wizard */
		bd->in_kernel = name_is(name, n, BG_BOOTDATA_KERNEL);
		bd->kernel_sections += bd->in_kernel;
		return BG_BOOTDATA_SKIP;
	}
	return bd->in_kernel ? BG_BOOTDATA_PASS : BG_BOOTDATA_SKIP;
}
