#!/bin/sh
# Runs test programs and adds up their results.
#   tests/run.sh unit BIN...     cmocka programs
#   tests/run.sh e2e SCRIPT...   shell tests ending with "N passed, N failed" (then
#                                ", N skipped" if any), each timed;
#                                some run beside another, in a second lane ("# beside:
#                                NAME", below)
#   tests/run.sh timed FILE TIER CMD...
#                                runs CMD, appends "TIER SECONDS RC" to FILE, exits as CMD
#   tests/run.sh total FILE [TIMES START]
#                                the sum of every suite recorded in FILE; with TIMES (the
#                                lines of "timed") and START (the run's first second), each
#                                tier's seconds and the whole run's beside the budget
# With CHECK_SUMMARY set, each suite appends "suite passed failed" to that file.
set -u
mode=$1
shift

# record SUITE PASSED FAILED: the suite's line, with its seconds since this run began
record() {
	[ -n "${CHECK_SUMMARY:-}" ] && echo "$1 $2 $3" >>"$CHECK_SUMMARY"
	rs=
	[ "${skipped:-0}" = 0 ] || rs=", $skipped skipped"
	echo "$1: $2 passed, $3 failed$rs in $(($(date +%s) - run_start)) s"
}
run_start=$(date +%s)
acct=$(dirname "$0")/acct.sh

passed=0
failed=0
skipped=0

# tally OUT RC CMD: prints a test program's output OUT, adds its counts to the totals.
# $passed_re and $failed_re are sed expressions that pull the counts from its output; a
# program that exited RC (not 0) but counted no failure counts as one, and so does one
# that printed no count at all (it stopped before its end, whatever its exit code).
tally() {
	printf '%s\n' "$1"
	p=$(printf '%s\n' "$1" | sed -n "$passed_re" | tail -n 1)
	f=$(printf '%s\n' "$1" | sed -n "$failed_re" | tail -n 1)
	k=$(printf '%s\n' "$1" | sed -n 's/^[0-9]* passed, [0-9]* failed, \([0-9]*\) skipped$/\1/p' |
		tail -n 1)
	if [ -z "$p$f" ]; then
		echo "$3: no count of its tests in its output (it did not reach its end)" >&2
		f=1
	fi
	p=${p:-0}
	f=${f:-0}
	if [ "$2" != 0 ] && [ "$f" = 0 ]; then
		echo "$3: exited $2" >&2
		f=1
	fi
	passed=$((passed + p))
	failed=$((failed + f))
	skipped=$((skipped + ${k:-0}))
}

# partner SCRIPT: the script named on its "# beside: NAME" line (one of lines 2 to 5),
# if any
partner() {
	sed -n '2,5s/^# beside: \([^ ]*\)$/\1/p' "$1"
}

# path_of NAME SCRIPT...: the SCRIPT whose file name is NAME, if any
path_of() {
	po_name=$1
	shift
	for po in "$@"; do
		[ "${po##*/}" != "$po_name" ] || { echo "$po"; return; }
	done
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

# lane_leftovers CGROUP: the processes still in the lane's cgroup once its scripts are
# done go back to the cgroup above it, at the default weight, each named on stderr. It
# may be a server one of them started for later scripts (the LAVA lab that t0151 starts
# again, kept for the tier), or a leak: the runner cannot tell, the reader can.
lane_leftovers() {
	[ -n "$1" ] && [ -f "$1/cgroup.procs" ] || return 0
	for pid in $(cat "$1/cgroup.procs"); do
		echo "$pid" 2>/dev/null >"${1%/*}/cgroup.procs" &&
			echo "# left running by the scripts beside, out of their cgroup: $pid $(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | cut -c1-80)" >&2
	done
}

case "$mode" in
unit)
	passed_re='s/^\[  PASSED  \] \([0-9]*\) test.*/\1/p'
	failed_re='s/^\[  FAILED  \] \([0-9]*\) test.*/\1/p'
	# as many programs at once as there are cores (UNIT_JOBS=N for N): each of N lanes
	# runs, in the order given, the programs no other lane has claimed (mkdir claims
	# one), in a session of its own, so that a signal here stops the program it runs;
	# their outputs are told in the order given
	jobs=${UNIT_JOBS:-$(nproc 2>/dev/null || echo 1)}
	case "$jobs" in
	'' | *[!0-9]* | 0)
		echo "tests/run.sh: UNIT_JOBS wants a number of programs, not '$jobs'" >&2
		exit 2
		;;
	esac
	outs=$(mktemp -d "${TMPDIR:-/tmp}/bootgate-unit.XXXXXX") || exit 1
	lanes=
	trap 'rm -rf "$outs"' EXIT
	trap 'for l in $lanes; do kill -TERM "-$l" 2>/dev/null; done; exit 130' INT
	trap 'for l in $lanes; do kill -TERM "-$l" 2>/dev/null; done; exit 143' TERM HUP
	l=0
	while [ "$l" -lt "$jobs" ]; do
		setsid sh -c 'outs=$1
			shift
			n=0
			for t in "$@"; do
				n=$((n + 1))
				mkdir "$outs/$n.claim" 2>/dev/null || continue
				"$t" >"$outs/$n.out" 2>&1
				echo $? >"$outs/$n.rc"
			done' lane "$outs" "$@" &
		lanes="$lanes $!"
		l=$((l + 1))
	done
	wait
	n=0
	for t in "$@"; do
		n=$((n + 1))
		rc=$(cat "$outs/$n.rc" 2>/dev/null) || rc=1
		tally "$(cat "$outs/$n.out" 2>/dev/null)" "$rc" "$t"
	done
	record "${SUITE:-unit}" "$passed" "$failed"
	;;
e2e)
	passed_re='s/^\([0-9]*\) passed, [0-9]* failed.*/\1/p'
	failed_re='s/^[0-9]* passed, \([0-9]*\) failed.*/\1/p'
	# A script with a "# beside: NAME" line runs in the background while NAME runs, when
	# NAME is run too (a script that mostly waits beside one that leaves a core free), and
	# is counted once NAME is done; several beside one NAME run one after another, in the
	# order given, as a second lane. They must leave NAME its cores: they run in a cpu
	# cgroup of a tenth of the default weight, where the host has one (beside_cgroup),
	# and at nice 10. nice alone does little, as the sessions they start are each an
	# autogroup of their own: measured, a kernel build beside the soak took 241 s where
	# alone it took 200. NAME may not itself run beside another. Paths have no spaces
	# (tests/e2e/tNNNN-NAME.sh).
	names=" "
	for t in "$@"; do
		names="$names${t##*/} "
	done
	pairs=" "       # "SCRIPT=NAME" for each script that runs beside NAME
	for t in "$@"; do
		p=$(partner "$t")
		[ -n "$p" ] || continue
		pp=$(path_of "$p" "$@")
		[ -n "$pp" ] || continue
		# NAME runs in the main lane only if it is not itself beside a script that runs
		pq=$(partner "$pp")
		if [ "$p" = "${t##*/}" ] || { [ -n "$pq" ] && [ -n "$(path_of "$pq" "$@")" ]; }; then
			echo "# $t: not beside $p (itself, or a script beside another): alone" >&2
			continue
		fi
		pairs="$pairs$t=$p "
	done
	side=$(mktemp -d "${TMPDIR:-/tmp}/bootgate-run.XXXXXX") || exit 1
	# each lane picks its ports from its own half (scripts/lib-net.sh, free_port)
	export BOOTGATE_TEST_LANE=0
	cg=
	main=           # the pid of the script running in the main lane
	running=        # the pid of the lane running beside
	# The main script runs in the background, waited for, so that a signal to this
	# process reaches it at once; it and the lane each in a session of their own: stopped,
	# the script running in it stops too, with what it was waiting for (their EXIT traps
	# run). What the lane leaves running leaves
	# its cgroup too.
	trap '[ -z "$main" ] || kill -TERM "-$main" 2>/dev/null
		for pid in $running; do kill -TERM "-$pid" 2>/dev/null; done; wait
		lane_leftovers "$cg"
		for i in 1 2 3 4 5; do
			[ -n "$cg" ] && [ -d "$cg" ] || break
			rmdir "$cg" 2>/dev/null || sleep 1
		done
		[ -z "$cg" ] || [ ! -d "$cg" ] || echo "# left $cg: a process of a script beside is still in it" >&2
		rm -rf "$side"' EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM HUP
	trap 'exit 141' PIPE
	[ "$pairs" = " " ] || cg=$(beside_cgroup)
	# scripts beside one NAME: one after another, or two at a time (BOOTGATE_BESIDE_LANES=2).
	# Two at a time made three scripts flaky in full runs, their timed checks slower
	# under the added load (t0112's backoff, t0175's lock, t0185's socket): one by default.
	case "${BOOTGATE_BESIDE_LANES:-1}" in
	1 | 2) lanes_beside=${BOOTGATE_BESIDE_LANES:-1} ;;
	*) echo "tests/run.sh: BOOTGATE_BESIDE_LANES is 1 or 2, not '$BOOTGATE_BESIDE_LANES'" >&2; exit 2 ;;
	esac
	for t in "$@"; do
		case "$pairs" in *" $t="*) continue ;; esac
		start=$(date +%s)
		beside=
		for pair in $pairs; do
			[ "${pair#*=}" = "${t##*/}" ] || continue
			beside="$beside ${pair%%=*}"
			echo "# ${pair%%=*}: started beside $t"
		done
		lane=
		if [ -n "$beside" ]; then
			# one session for the lane: stopped, the script running in it stops too
			# shellcheck disable=SC2086 # the scripts, one a word
			setsid sh -c 'cg=$1 side=$2 acct=$3 lanes_beside=$4
				shift 4
				[ -z "$cg" ] || echo $$ 2>/dev/null >"$cg/cgroup.procs" ||
					echo "# not in the cpu cgroup $cg: nice alone" >"$side/lane.note"
				# BOOTGATE_BESIDE_LANES (1, or 2) at a time: each sub-lane (1 and 2,
				# for free_port) takes, in the order given, the next script no
				# other has claimed
				for l in $(seq 1 "$lanes_beside"); do
					(export BOOTGATE_TEST_LANE=$l
					for s in "$@"; do
						n=${s##*/}
						mkdir "$side/$n.claim" 2>/dev/null || continue
						t0=$(date +%s) acg=$(sh "$acct" new "$n")
						nice -n 10 sh "$acct" run "$acg" "$s" >"$side/$n.out" 2>&1
						echo $? >"$side/$n.rc"
						echo "$(($(date +%s) - t0)) s$(sh "$acct" done "$acg")" >"$side/$n.secs"
					done) &
				done
				wait' sh "$cg" "$side" "$acct" "$lanes_beside" $beside >/dev/null 2>&1 &
			lane=$!
			running="$running $lane"
		fi
		# a session of its own too: stopped, what it runs in the foreground stops with it
		acg=$(sh "$acct" new "${t##*/}")
		setsid sh "$acct" run "$acg" "$t" >"$side/main.out" 2>&1 &
		main=$!
		wait "$main"
		rc=$?
		main=
		tally "$(cat "$side/main.out")" "$rc" "sh $t"
		# the wall time of each script, and the CPU time of its processes: where a
		# run's time goes
		echo "# $t: $(($(date +%s) - start)) s$(sh "$acct" done "$acg")"
		if [ -n "$lane" ]; then
			wait "$lane"
			running=$(echo "$running" | sed "s/ $lane\>//")
			lane_leftovers "$cg"
			[ ! -s "$side/lane.note" ] || cat "$side/lane.note"
			for s in $beside; do
				n=${s##*/}
				if [ ! -s "$side/$n.rc" ]; then
					echo "sh $s: did not run to its end (its lane stopped first)" >&2
					failed=$((failed + 1))
					continue
				fi
				tally "$(cat "$side/$n.out")" "$(cat "$side/$n.rc")" "sh $s"
				echo "# $s: $(cat "$side/$n.secs"), beside $t"
			done
			echo "# $t: with the scripts beside it done, $(($(date +%s) - start)) s"
		fi
	done
	record e2e "$passed" "$failed"
	;;
timed)
	case "${2:-}" in
	'' | *[!A-Za-z0-9._-]*) echo "usage: tests/run.sh timed FILE TIER CMD... (TIER one word)" >&2; exit 2 ;;
	esac
	[ $# -ge 3 ] || { echo "usage: tests/run.sh timed FILE TIER CMD... (TIER one word)" >&2; exit 2; }
	file=$1 tier=$2
	shift 2
	start=$(date +%s)
	"$@"
	rc=$?
	mkdir -p "$(dirname "$file")" 2>/dev/null
	if ! echo "$tier $(($(date +%s) - start)) $rc" >>"$file"; then
		echo "tests/run.sh: cannot record the seconds of $tier in '$file'" >&2
		[ "$rc" != 0 ] || rc=1
	fi
	exit "$rc"
	;;
total)
	# the budget every change keeps (docs/TESTING.md, "The budget"): a fresh machine's
	# make check, nothing installed and no cache, and a run with the cache kept
	budget="cold budget 60 min, warm 20 min"
	case $# in
	1 | 3) ;;
	*) echo "usage: tests/run.sh total SUMMARY [TIMES START]" >&2; exit 2 ;;
	esac
	for f in "$@"; do
		[ -r "$f" ] || { echo "tests/run.sh: cannot read '$f'" >&2; exit 1; }
	done
	echo
	if [ $# = 1 ]; then
		echo "suite        passed  failed"
		while read -r suite p f; do
			printf '%-12s %6s  %6s\n' "$suite" "$p" "$f"
			passed=$((passed + p))
			failed=$((failed + f))
		done <"$1"
		echo "$passed passed, $failed failed"
	else
		summary=$1 times=$2
		started=$(cat "$3")
		case "$started" in
		'' | *[!0-9]*) echo "tests/run.sh: '$3' holds no start time (seconds), but '$started'" >&2; exit 1 ;;
		esac
		# a tier's suites: itself, or for the fuzz tier each target's (fuzz-NAME); a tier
		# that exited non-zero and counted no failure is one failure, said in the table
		printf '%-14s %6s  %6s  %7s\n' tier passed failed seconds
		while read -r tier secs rc; do
			counts=$(awk -v t="$tier" '$1 == t || (t == "fuzz" && $1 ~ /^fuzz-/) \
				{ p += $2; f += $3; n++ } END { print (n ? p " " f : "- -") }' "$summary")
			p=${counts% *} f=${counts#* }
			why=
			if [ "${rc:-1}" != 0 ] && { [ "$f" = - ] || [ "$f" = 0 ]; }; then
				why="  exited ${rc:-?}"
				f=1
				[ "$p" != - ] || p=0
			fi
			printf '%-14s %6s  %6s  %7s%s\n' "$tier" "$p" "$f" "$secs" "$why"
			[ "$p" = - ] || { passed=$((passed + p)); failed=$((failed + f)); }
		done <"$times"
		s=$(($(date +%s) - started))
		printf '%-14s %6s  %6s  %7s  (%d min %d s)\n' total "$passed" "$failed" "$s" \
			$((s / 60)) $((s % 60))
		echo "$passed passed, $failed failed in $((s / 60)) min $((s % 60)) s ($budget)"
	fi
	;;
*)
	echo "usage: tests/run.sh unit|e2e|timed|total ..." >&2
	exit 2
	;;
esac
[ "$failed" = 0 ]
