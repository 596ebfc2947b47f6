#!/bin/sh
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

test_expect_success '1 GiB through stdin: every boot, memory bounded' '
	i=0
	( while [ $i -lt 64 ]; do cat chunk.log; i=$((i + 1)); done ) |
		/usr/bin/time -f "%M" -o rss "$BOOTGATE" parse --summary - >out &&
	total=$(grep -c " complete " out) &&
	echo "boots: $total, peak RSS: $(cat rss) KiB" &&
	[ "$total" = $((64 * boots_per_chunk)) ] &&
	[ "$(cat rss)" -lt 65536 ]
'

test_expect_success 'the JSON of a large log stays valid' '
	head -c 4000000 chunk.log >four.log &&
	bootgate parse --json four.log >out &&
	jq -e "(.logs | length) > 100 and ([.logs[] | select(.outcome == \"complete\")] | length) > 100" out
'

test_done
