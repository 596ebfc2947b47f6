#!/bin/sh
# Runs a libFuzzer target for a while, seeded with the given files (each also cut in
# 16 KiB pieces, which the fuzzer mutates faster); fails on a crash, a leak, or a broken
# property the target checks.
#   tests/fuzz/run.sh FUZZER SECONDS SEED...
set -u
fuzzer=$1
seconds=$2
shift 2
name=$(basename "$fuzzer")
work=$(mktemp -d "${TMPDIR:-/tmp}/bootgate-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir "$work/corpus" "$work/seeds"
for f in "$@"; do
	cp "$f" "$work/seeds/"
	split -b 16384 "$f" "$work/seeds/piece-$(basename "$f")-"
done
echo "$name: fuzzing for ${seconds}s"
"$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=32768 \
	-detect_leaks=1 -print_final_stats=1 -artifact_prefix="$work/" \
	"$work/corpus" "$work/seeds" >"$work/log" 2>&1
rc=$?
grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb|#[0-9]+ +DONE)' "$work/log"
if [ $rc != 0 ]; then
	tail -n 40 "$work/log"
	mkdir -p build/fuzz/crashes
	cp "$work"/crash-* "$work"/leak-* build/fuzz/crashes/ 2>/dev/null
	echo "$name: crash or leak (input kept in build/fuzz/crashes)"
	[ -n "${CHECK_SUMMARY:-}" ] && echo "$name 0 1" >>"$CHECK_SUMMARY"
	echo "0 passed, 1 failed"
	exit 1
fi
[ -n "${CHECK_SUMMARY:-}" ] && echo "$name 1 0" >>"$CHECK_SUMMARY"
echo "1 passed, 0 failed"
