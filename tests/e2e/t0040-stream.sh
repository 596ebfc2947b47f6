#!/bin/sh
# beside: t0100-kernel.sh
# A 1 GiB log streamed through a pipe is read in bounded memory, every boot counted.
. "$(dirname "$0")/lib.sh"

# 16 MiB of whole boots, each ending with its reboot line
: >chunk.log
boots_per_chunk=0
while [ "$(wc -c <chunk.log)" -lt 16777216 ]; do
	cat "$FIXTURES"/bootlogs/x86_64-tiny-baseline-run1.log \
		"$FIXTURES"/bootlogs/arm64-tiny-baseline-run2.log >>chunk.log
	boots_per_chunk=$((boots_per_chunk + 2))
done

# The parser's memory is one boot's, whatever the log: a 1 GiB log through a pipe peaks
# within 1 MiB of the RSS of reading a single boot (the program and its shared libraries).
test_expect_success '1 GiB through stdin: every boot, memory as for one boot' '
	/usr/bin/time -f "%M" -o rss1 "$BOOTGATE" parse --summary \
		"$FIXTURES"/bootlogs/x86_64-tiny-baseline-run1.log >/dev/null &&
	( i=0; while [ $i -lt 64 ]; do cat chunk.log; i=$((i + 1)); done ) |
		/usr/bin/time -f "%M" -o rss "$BOOTGATE" parse --summary - >out &&
	total=$(grep -c " complete " out) &&
	echo "boots: $total, peak RSS: $(cat rss) KiB; one boot: $(cat rss1) KiB" &&
	[ "$total" = $((64 * boots_per_chunk)) ] &&
	[ "$(cat rss)" -lt $(($(cat rss1) + 1024)) ]
'

test_expect_success 'the JSON of a large log stays valid' '
	head -c 4000000 chunk.log >four.log &&
	bootgate parse --json four.log >out &&
	test_jq "(.logs | length) > 100 and ([.logs[] | select(.outcome == \"complete\")] | length) > 100" out
'

test_done
