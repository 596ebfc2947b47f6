#!/bin/sh
# Runs test programs and adds up their results.
#   tests/run.sh unit BIN...     cmocka programs
#   tests/run.sh e2e SCRIPT...   shell tests ending with "N passed, N failed", each timed
#   tests/run.sh total FILE      the sum of every suite recorded in FILE
# With CHECK_SUMMARY set, each suite appends "suite passed failed" to that file.
set -u
mode=$1
shift

record() {
	[ -n "${CHECK_SUMMARY:-}" ] && echo "$1 $2 $3" >>"$CHECK_SUMMARY"
	echo "$1: $2 passed, $3 failed"
}

passed=0
failed=0

# run_and_tally CMD...: runs one test program, prints its output, adds its counts.
# $passed_re and $failed_re are sed expressions that pull the counts from its output.
run_and_tally() {
	out=$("$@" 2>&1)
	rc=$?
	printf '%s\n' "$out"
	p=$(printf '%s\n' "$out" | sed -n "$passed_re" | tail -n 1)
	f=$(printf '%s\n' "$out" | sed -n "$failed_re" | tail -n 1)
	p=${p:-0}
	f=${f:-0}
	if [ "$rc" != 0 ] && [ "$f" = 0 ]; then
		echo "$*: exited $rc" >&2
		f=1
	fi
	passed=$((passed + p))
	failed=$((failed + f))
}

case "$mode" in
unit)
	passed_re='s/^\[  PASSED  \] \([0-9]*\) test.*/\1/p'
	failed_re='s/^\[  FAILED  \] \([0-9]*\) test.*/\1/p'
	for t in "$@"; do
		run_and_tally "$t"
	done
	record "${SUITE:-unit}" "$passed" "$failed"
	;;
e2e)
	passed_re='s/^\([0-9]*\) passed, [0-9]* failed.*/\1/p'
	failed_re='s/^[0-9]* passed, \([0-9]*\) failed.*/\1/p'
	for t in "$@"; do
		start=$(date +%s)
		run_and_tally sh "$t"
		# the wall time of each script: where a cold run's time goes
		echo "# $t: $(($(date +%s) - start)) s"
	done
	record e2e "$passed" "$failed"
	;;
total)
	echo
	echo "suite        passed  failed"
	while read -r suite p f; do
		printf '%-12s %6s  %6s\n' "$suite" "$p" "$f"
		passed=$((passed + p))
		failed=$((failed + f))
	done <"$1"
	echo "$passed passed, $failed failed"
	;;
*)
	echo "usage: tests/run.sh unit|e2e|total ..." >&2
	exit 2
	;;
esac
[ "$failed" = 0 ]
