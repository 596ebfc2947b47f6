#!/bin/sh
# Runs test programs and adds up their results.
#   tests/run.sh unit BIN...     cmocka programs
#   tests/run.sh e2e SCRIPT...   shell tests ending with "N passed, N failed", each timed;
#                                one may run beside another ("# beside: NAME", below)
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

# tally OUT RC CMD: prints a test program's output OUT, adds its counts to the totals.
# $passed_re and $failed_re are sed expressions that pull the counts from its output; a
# program that exited RC (not 0) but counted no failure counts as one.
tally() {
	printf '%s\n' "$1"
	p=$(printf '%s\n' "$1" | sed -n "$passed_re" | tail -n 1)
	f=$(printf '%s\n' "$1" | sed -n "$failed_re" | tail -n 1)
	p=${p:-0}
	f=${f:-0}
	if [ "$2" != 0 ] && [ "$f" = 0 ]; then
		echo "$3: exited $2" >&2
		f=1
	fi
	passed=$((passed + p))
	failed=$((failed + f))
}

# run_and_tally CMD...: runs one test program, then tallies it
run_and_tally() {
	out=$("$@" 2>&1)
	tally "$out" $? "$*"
}

# partner SCRIPT: the script named on its "# beside: NAME" line, if any
partner() {
	sed -n '2,5s/^# beside: \([^ ]*\)$/\1/p' "$1"
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
	# A script with a "# beside: NAME" line runs in the background while NAME runs, when
	# NAME is run too (a soak that mostly waits beside a script that mostly compiles),
	# and is counted once NAME is done.
	names=" "
	for t in "$@"; do
		names="$names${t##*/} "
	done
	side=$(mktemp -d "${TMPDIR:-/tmp}/bootgate-run.XXXXXX") || exit 1
	trap 'rm -rf "$side"' EXIT
	for t in "$@"; do
		with=$(partner "$t")
		if [ -n "$with" ]; then
			case "$names" in *" $with "*) continue ;; esac
		fi
		start=$(date +%s)
		beside=
		for s in "$@"; do
			[ "$(partner "$s")" = "${t##*/}" ] || continue
			echo "# $s: started beside $t"
			(
				sh "$s" >"$side/${s##*/}.out" 2>&1
				echo $? >"$side/${s##*/}.rc"
			) &
			beside="$beside $s"
		done
		run_and_tally sh "$t"
		# the wall time of each script: where a cold run's time goes
		echo "# $t: $(($(date +%s) - start)) s"
		[ -z "$beside" ] && continue
		wait
		for s in $beside; do
			tally "$(cat "$side/${s##*/}.out")" "$(cat "$side/${s##*/}.rc" 2>/dev/null || echo 1)" "sh $s"
			echo "# $s: beside $t, both done $(($(date +%s) - start)) s after it started"
		done
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
