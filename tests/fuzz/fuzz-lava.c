/*
 * libFuzzer target of what bootgate reads from a LAVA server: each input is taken as the
 * answer to a job's submission, as a job's status and as a piece of its YAML log, whose
 * console lines are then read as a boot's evidence. Besides "no crash, no leak", it
 * checks what comes back: a job id in range, status fields of printable words only, a log
 * cut at whole lines and counted right, and a console read the same in one piece or two.
 */
#include <math.h>

#include "lab/lava-run.h"
#include "lab/lava.h"
#include "util/error.h"
#include "util/xmalloc.h"

#define fuzz_assert(cond) do { if (!(cond)) __builtin_trap(); } while (0)

#define URL "http://lava.test"

static void fuzz_submit(const char *body, size_t len)
{
	long id = -1;

	if (bg_lava_parse_submit(URL, body, len, &id) == BG_LAVA_OK) {
		fuzz_assert(id >= 1 && id < 1000000000000000L);
	} else {
		fuzz_assert(id == 0 && !strncmp(bg_error_last(), URL ":", strlen(URL ":")));
	}
}

static void assert_word(const char *s, size_t size)
{
	size_t n = strnlen(s, size);

	fuzz_assert(n < size);
	for (size_t i = 0; i < n; i++)
		fuzz_assert(s[i] > ' ' && s[i] < 0x7f);
}

static void fuzz_status(const char *body, size_t len)
{
	struct bg_lava_job job;

	if (bg_lava_parse_status(URL, 7, body, len, &job) == BG_LAVA_OK) {
		fuzz_assert(*job.state);
		assert_word(job.state, sizeof(job.state));
		assert_word(job.health, sizeof(job.health));
		assert_word(job.device, sizeof(job.device));
	} else {
		fuzz_assert(!*job.state && !strncmp(bg_error_last(), URL ":", strlen(URL ":")));
	}
}

static bool same(double a, double b)
{
	return (isnan(a) && isnan(b)) || a == b;
}

/* The console of lines read whole, and read in two pieces cut after a line: the same. */
static void fuzz_console(const struct bg_strbuf *log, unsigned cut)
{
	struct bg_lava_console one, two;
	char *a = xmalloc(log->len + 1), *b = xmalloc(log->len + 1);
	size_t at = 0, nth = 0;
	double up;

	memcpy(a, log->buf, log->len + 1);
	memcpy(b, log->buf, log->len + 1);
	bg_lava_console_init(&one);
	bg_lava_console_scan(&one, a, log->len);
	up = bg_lava_console_userspace(&one);
	fuzz_assert(isnan(up) || (up >= 0 && one.marker));
	fuzz_assert(isnan(one.first_dt) || isfinite(one.first_dt));
	for (size_t i = 0; i < log->len && nth < cut; i++)
		if (log->buf[i] == '\n') {
			at = i + 1;
			nth++;
		}
	bg_lava_console_init(&two);
	bg_lava_console_scan(&two, b, at);
	bg_lava_console_scan(&two, b + at, log->len - at);
	fuzz_assert(one.kernel == two.kernel && one.marker == two.marker &&
		    one.panic == two.panic && same(one.first_dt, two.first_dt) &&
		    same(one.marker_dt, two.marker_dt));
	free(a);
	free(b);
}

static void fuzz_log(const char *body, size_t len)
{
	struct bg_strbuf out = BG_STRBUF_INIT;
	size_t lines, n = 0;

	/* a job still running: whole lines only, appended to what came before */
	bg_strbuf_addstr(&out, "before\n");
	lines = bg_lava_parse_log(body, len, false, &out);
	fuzz_assert(out.len >= 7 && !memcmp(out.buf, "before\n", 7));
	fuzz_assert(out.len - 7 <= len && !memcmp(out.buf + 7, body, out.len - 7));
	fuzz_assert(out.buf[out.len - 1] == '\n');
	for (size_t i = 7; i < out.len; i++)
		n += out.buf[i] == '\n';
	fuzz_assert(n == lines);
	/* a finished one: every byte, its last line ended */
	bg_strbuf_reset(&out);
	lines = bg_lava_parse_log(body, len, true, &out);
	fuzz_assert(out.len == len || (out.len == len + 1 && out.buf[len] == '\n'));
	fuzz_assert(!memcmp(out.buf, body, len) && (!len || out.buf[out.len - 1] == '\n'));
	n = 0;
	for (size_t i = 0; i < out.len; i++)
		n += out.buf[i] == '\n';
	fuzz_assert(n == lines);
	fuzz_console(&out, len ? (unsigned char)body[0] % 8 : 0);
	bg_strbuf_release(&out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *body = (const char *)data;

	fuzz_submit(body, size);
	fuzz_status(body, size);
	fuzz_log(body, size);
	return 0;
}
