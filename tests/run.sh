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

# beside_cgroup: makes a cpu cgroup of a tenth of the default weight under this process's
# own, cgroup v1's (cpu.shares 102) or v2's where it delegates cpu (cpu.weight 10), and
# prints its path; or prints nothing, with a note, where none can be made. First removes
# the empty ones of runs gone (killed). The caller removes the one it gets.
beside_cgroup() {
	own=$(sed -n 's/^[0-9]*:\([^:]*,\)*cpu\(,[^:]*\)*:\(.*\)/\3/p' /proc/self/cgroup)
	if [ -n "$own" ] && [ -d "/sys/fs/cgroup/cpu$own" ]; then
		dir=/sys/fs/cgroup/cpu${own%/} file=cpu.shares weight=102
	else
		own=$(sed -n 's/^0:://p' /proc/self/cgroup)
		dir=/sys/fs/cgroup${own%/} file=cpu.weight weight=10
		grep -qw cpu "$dir/cgroup.subtree_control" 2>/dev/null || dir=
	fi
	if [ -n "$dir" ]; then
		for old in "$dir"/bootgate-beside.*; do
			[ -d "$old" ] && ! kill -0 "${old##*.}" 2>/dev/null || continue
			rmdir "$old" 2>/dev/null && echo "# removed '$old', of a run gone" >&2
		done
		if err=$(mkdir "$dir/bootgate-beside.$$" 2>&1) &&
			err=$(echo "$weight" 2>&1 >"$dir/bootgate-beside.$$/$file"); then
			echo "$dir/bootgate-beside.$$"
			return
		fi
		rmdir "$dir/bootgate-beside.$$" 2>/dev/null
		echo "# no cpu cgroup for the scripts beside: ${err:-?}; nice alone" >&2
		return
	fi
	echo "# no cpu cgroup for the scripts beside (no cpu controller here): nice alone" >&2
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
	# and is counted once NAME is done. It measures growth, not speed, so it yields the
	# cores: it runs in a cpu cgroup of a tenth of the default weight, where the host has
	# one (beside_cgroup), and at nice 10. nice alone does little, as the sessions it
	# starts are each an autogroup of their own: measured, a kernel build beside the soak
	# took 241 s where alone it took 200. NAME may not itself run beside another. Paths
	# have no spaces (tests/e2e/tNNNN-NAME.sh).
	names=" "
	for t in "$@"; do
		names="$names${t##*/} "
	done
	pairs=" "       # "SCRIPT=NAME" for each script that runs beside NAME
	for t in "$@"; do
		p=$(partner "$t")
		[ -n "$p" ] || continue
		case "$names" in *" $p "*) ;; *) continue ;; esac
		if [ "$p" = "${t##*/}" ] || [ -n "$(partner "${t%/*}/$p")" ]; then
			echo "# $t: not beside $p (itself, or a script beside another): alone" >&2
			continue
		fi
		pairs="$pairs$t=$p "
	done
	side=$(mktemp -d "${TMPDIR:-/tmp}/bootgate-run.XXXXXX") || exit 1
	cg=
	running=        # the pids of the scripts running beside
	# each in a session of its own: stopped, the whole of it stops (its EXIT trap runs)
	trap 'for pid in $running; do kill -TERM "-$pid" 2>/dev/null; done; wait
		for i in 1 2 3 4 5; do
			[ -n "$cg" ] && [ -d "$cg" ] || break
			rmdir "$cg" 2>/dev/null || sleep 1
		done
		[ -z "$cg" ] || [ ! -d "$cg" ] || echo "# left '$cg': a process of a script beside is still in it" >&2
		rm -rf "$side"' EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM HUP
	[ "$pairs" = " " ] || cg=$(beside_cgroup)
	for t in "$@"; do
		case "$pairs" in *" $t="*) continue ;; esac
		start=$(date +%s)
		beside=
		for pair in $pairs; do
			[ "${pair#*=}" = "${t##*/}" ] || continue
			s=${pair%%=*}
			echo "# $s: started beside $t"
			setsid sh -c '[ -z "$1" ] || echo $$ 2>/dev/null >"$1/cgroup.procs" ||
				echo "# not in the cpu cgroup $1: nice alone"
				exec nice -n 10 sh "$2"' sh "$cg" "$s" >"$side/${s##*/}.out" 2>&1 &
			running="$running $!"
			beside="$beside $s:$!"
		done
		run_and_tally sh "$t"
		# the wall time of each script: where a cold run's time goes
		echo "# $t: $(($(date +%s) - start)) s"
		for b in $beside; do
			s=${b%:*}
			wait "${b##*:}"
			rc=$?
			running=$(echo "$running" | sed "s/ ${b##*:}\>//")
			tally "$(cat "$side/${s##*/}.out")" "$rc" "sh $s"
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
