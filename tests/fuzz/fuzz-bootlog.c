/*
 * libFuzzer target of the boot-log parser. Besides "no crash, no leak", it checks one
 * property: a console log fed in two pieces, split anywhere, reads exactly as it does
 * whole. Every boot is also written as JSON, which exercises the escaping.
 */
#include "parse/bootlog.h"
#include "report/boot-json.h"
#include "util/json.h"

/* A broken property is a crash: libFuzzer keeps the input that caused it. */
#define fuzz_assert(cond) do { if (!(cond)) __builtin_trap(); } while (0)

struct summary {
	unsigned boots;
	uint64_t initcalls, probes, usecs, unparsed;
	int64_t init_us;
	int ret;
	struct bg_json json;
};

static int on_boot(const struct bg_boot *b, void *data)
{
	struct summary *s = data;

	s->boots++;
	s->initcalls += b->nr_initcalls;
	s->probes += b->nr_probes;
	s->unparsed += b->unparsed_lines;
	s->init_us += b->init_us;
	for (size_t i = 0; i < b->nr_initcalls; i++)
		s->usecs += (uint64_t)b->initcalls[i].usecs;
	bg_strbuf_reset(&s->json.out);
	bg_boot_write_json(&s->json, b, "fuzz");
	return 0;
}

static void summarize(struct summary *s, const uint8_t *data, size_t size, size_t split)
{
	struct bg_bootlog *p = bg_bootlog_new("fuzz", on_boot, s);

	memset(s, 0, sizeof(*s));
	bg_json_init(&s->json, -1, 2);
	if (split == (size_t)-1) {
		s->ret = bg_bootlog_parse_mem(p, (const char *)data, size);
	} else {
		bg_bootlog_feed(p, (const char *)data, split);
		bg_bootlog_feed(p, (const char *)data + split, size - split);
		s->ret = bg_bootlog_finish(p);
	}
	bg_bootlog_free(p);
	bg_strbuf_release(&s->json.out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct summary whole, halves;
	size_t split;

	summarize(&whole, data, size, (size_t)-1);
	if (bg_bootlog_is_lava((const char *)data, size) || size < 2)
		return 0;
	split = (size_t)data[0] * 131 % size;
	summarize(&halves, data, size, split);
	fuzz_assert(whole.boots == halves.boots && whole.initcalls == halves.initcalls &&
		    whole.probes == halves.probes && whole.usecs == halves.usecs &&
		    whole.unparsed == halves.unparsed && whole.init_us == halves.init_us &&
		    whole.ret == halves.ret);
	/*
	 * every log yields at least one boot, if only an empty truncated one, or says why it
	 * has none (a boot-data file without its kernel section)
	 */
	fuzz_assert(whole.boots >= 1 || whole.ret < 0);
	return 0;
}
