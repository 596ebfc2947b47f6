/*
 * libFuzzer target of the mail parser. Besides "no crash, no leak", it checks that what
 * it returns holds together: a message read alone reads as it did in its mbox, every
 * series it assembles is complete, and a patch's split lies within its body.
 */
#include <ctype.h>

#include "parse/mbox.h"

#define fuzz_assert(cond) do { if (!(cond)) __builtin_trap(); } while (0)

/* Whether the first line that is not blank opens with "From ", as an mbox does. */
static bool from_line_first(const uint8_t *data, size_t size)
{
	size_t line = 0;

	for (size_t i = 0; i < size; i++) {
		if (data[i] == '\n')
			line = i + 1;
		else if (!isspace(data[i]))
			return size - line >= 5 && !memcmp(data + line, "From ", 5);
	}
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bg_msg *m;
	struct bg_series_msgs *s;
	size_t n, ns;

	if (bg_mbox_parse("fuzz", (const char *)data, size, &m, &n))
		return 0;
	fuzz_assert(n >= 1);
	for (size_t i = 0; i < n; i++) {
		const char *msg, *diff;
		size_t ml, dl;
		char *from, *date;

		/* an idx past the total is a stray patch, read and left out of every series */
		fuzz_assert(m[i].total <= BG_MSG_TOTAL_MAX && m[i].idx <= BG_MSG_TOTAL_MAX);
		fuzz_assert(m[i].from && m[i].from_addr && m[i].from_name && m[i].subject &&
			    m[i].title && m[i].body && strlen(m[i].body) <= m[i].body_len);
		/* nothing decoded can end a header line */
		fuzz_assert(!strpbrk(m[i].subject, "\r\n") && !strpbrk(m[i].from, "\r\n"));
		if (!bg_msg_patch(&m[i], &msg, &ml, &diff, &dl, &from, &date)) {
			fuzz_assert(msg >= m[i].body && msg + ml <= m[i].body + m[i].body_len);
			fuzz_assert(diff >= m[i].body && diff + dl <= m[i].body + m[i].body_len);
			fuzz_assert(dl >= 11 && !memcmp(diff, "diff --git ", 11));
			free(from);
			free(date);
		}
	}
	if (!bg_series_assemble(m, n, &s, &ns)) {
		for (size_t k = 0; k < ns; k++) {
			fuzz_assert(s[k].total >= 1);
			for (unsigned p = 0; p < s[k].total; p++)
				/* a patch naming no version takes its cover's ("[PATCH v3 0/4]",
				 * then "[PATCH 1/4]") */
				fuzz_assert(s[k].patches[p] && s[k].patches[p]->idx == p + 1 &&
					    (s[k].patches[p]->version == s[k].version ||
					     s[k].patches[p]->version == 1));
			fuzz_assert(!s[k].cover || s[k].cover->idx == 0);
		}
		bg_series_msgs_free(s, ns);
	}
	/*
	 * a bare message (no mbox separator, after the blank lines git mailsplit skips before
	 * one): bg_msg_parse reads the same
	 */
	if (n == 1 && size >= 5 && !from_line_first(data, size)) {
		struct bg_msg one;

		fuzz_assert(!bg_msg_parse("fuzz", (const char *)data, size, &one));
		fuzz_assert(one.body_len == m[0].body_len && one.idx == m[0].idx &&
			    !memcmp(one.body, m[0].body, one.body_len));
		bg_msg_release(&one);
	}
	bg_msgs_free(m, n);
	return 0;
}
