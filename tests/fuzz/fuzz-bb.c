/*
 * libFuzzer target of the .bb corpus reader: any input is either read, or refused with
 * a "file:line: why" message; a corpus that is read can be bisected without a crash.
 */
#include "decide/bisect.h"
#include "bisect-bench.h"
#include "util/error.h"

/* A broken property is a crash: libFuzzer keeps the input that caused it. */
#define fuzz_assert(cond) do { if (!(cond)) __builtin_trap(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bg_bb_corpus c;

	if (bg_bb_parse_mem("fuzz.bb", (const char *)data, size, &c) < 0) {
		/* refused: with a message that says where */
		fuzz_assert(strncmp(bg_error_last(), "fuzz.bb", 7) == 0);
		return 0;
	}
	/* bisect the first small history: the engine must cope with what the reader took */
	if (c.h[0].commits <= 64) {
		struct bg_bisect_config cfg;
		struct bg_bisect_result r;
		struct bg_bisect_counts n;

		bg_bisect_config_init(&cfg, c.h[0].commits);
		cfg.sigma = c.h[0].sigma;
		cfg.max_boots = 400;
		bg_bb_bisect(&c.h[0], &cfg, &r, &n);
		fuzz_assert(r.first >= 1 && r.last < c.h[0].commits && r.first <= r.last);
	}
	bg_bb_corpus_release(&c);
	return 0;
}
