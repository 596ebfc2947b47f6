#!/bin/sh
# Runs a libFuzzer target for a while, seeded with the given files (each also cut in
# 16 KiB pieces, which the fuzzer mutates faster); fails on a crash, a leak, or a broken
# property the target checks.
#   tests/fuzz/run.sh FUZZER SECONDS SEED...
# With FUZZ_RUNS=N in the environment it runs N inputs instead, however long they take,
# and any input over FUZZ_TIMEOUT s (default 1) fails (make fuzz-long); SECONDS is then
# not used. The limit is wall-clock time: on a machine busy with other work, under nice,
# an input of a few milliseconds can wait past it. Each input slower than all before it,
# from 1 s up (libFuzzer's -report_slow_units, in whole seconds), is kept in
# build/fuzz/slow: `FUZZER FILE` times it again alone.
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
if [ -n "${FUZZ_RUNS:-}" ]; then
	echo "$name: fuzzing for $FUZZ_RUNS executions"
	limit="-runs=$FUZZ_RUNS -max_total_time=0 -timeout=${FUZZ_TIMEOUT:-1}"
else
	echo "$name: fuzzing for ${seconds}s"
	limit="-max_total_time=$seconds -timeout=10"
fi
start=$(date +%s)
# shellcheck disable=SC2086 # limit is several options
"$fuzzer" $limit -rss_limit_mb=2048 -max_len=32768 -report_slow_units=1 \
	-detect_leaks=1 -print_final_stats=1 -artifact_prefix="$work/" \
	"$work/corpus" "$work/seeds" >"$work/log" 2>&1
rc=$?
end=$(date +%s)
grep -E '^(stat::number_of_executed_units|stat::slowest_unit_time_sec|stat::peak_rss_mb|#[0-9]+ +DONE)' "$work/log"
over=$(find "$work" -maxdepth 1 -name 'timeout-*' | wc -l)
awk -v name="$name" -v s=$((end - start)) -v over="$over" '
	/^stat::number_of_executed_units/ { n = $2 }
	/^stat::slowest_unit_time_sec/ { slow = $2 }
	/^stat::peak_rss_mb/ { rss = $2 }
	END {
		rate = s ? n / s : n
		if (over)
			why = "an input over the time limit"
		else if (slow == "")
			why = "slowest input unknown"
		else if (slow == 0)
			why = "every input under 1 s"
		else
			why = "slowest input " slow " s"
		printf "%s: %s executions in %d s (%d/s), %s, peak RSS %s MB\n", name, n, s, rate,
		       why, rss
	}' \
	"$work/log"
if ls "$work"/slow-unit-* >/dev/null 2>&1; then
	mkdir -p build/fuzz/slow
	for f in "$work"/slow-unit-*; do cp "$f" "build/fuzz/slow/$name-${f##*/}"; done
	echo "$name: its slowest inputs (1 s or more) kept in build/fuzz/slow"
fi
if [ $rc != 0 ]; then
	tail -n 40 "$work/log"
	mkdir -p build/fuzz/crashes
	cp "$work"/crash-* "$work"/leak-* "$work"/timeout-* build/fuzz/crashes/ 2>/dev/null
	echo "$name: crash, leak or slow input (kept in build/fuzz/crashes)"
	[ -n "${CHECK_SUMMARY:-}" ] && echo "$name 0 1" >>"$CHECK_SUMMARY"
	echo "0 passed, 1 failed"
	exit 1
fi
[ -n "${CHECK_SUMMARY:-}" ] && echo "$name 1 0" >>"$CHECK_SUMMARY"
echo "1 passed, 0 failed"
