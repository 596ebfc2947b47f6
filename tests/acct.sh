#!/bin/sh
# The CPU time of one test script's processes, for tests/run.sh: where a run's time goes.
#   tests/acct.sh new NAME          makes a cpuacct cgroup (cgroup v1) under this
#                                   process's own and prints its path; prints nothing
#                                   where there is none (cgroup v2 alone: no figure)
#   tests/acct.sh run CGROUP SCRIPT joins CGROUP (none when empty), then runs SCRIPT
#   tests/acct.sh done CGROUP       prints ", N CPU s" of all that ran in CGROUP, moves
#                                   what still runs there to the cgroup above, removes it
# A script's children are counted however they were started; a server it leaves running
# for later scripts (the LAVA lab) is counted with it until that script ends.
set -u
case "${1:-}" in
new)
	[ $# = 2 ] || { echo "usage: tests/acct.sh new NAME" >&2; exit 2; }
	own=$(sed -n 's/^[0-9]*:\([^:]*,\)*cpuacct\(,[^:]*\)*:\(.*\)/\3/p' /proc/self/cgroup)
	[ -n "$own" ] && [ -w "/sys/fs/cgroup/cpuacct$own/cgroup.procs" ] || exit 0
	dir=/sys/fs/cgroup/cpuacct${own%/}
	# the empty ones of runs gone (killed): bootgate-acct.PID.NAME, PID the caller's (tests/
	# run.sh, or the sub-lane's shell for a script beside another)
	for old in "$dir"/bootgate-acct.*; do
		[ -d "$old" ] || continue
		pid=${old#"$dir"/bootgate-acct.}
		kill -0 "${pid%%.*}" 2>/dev/null || rmdir "$old" 2>/dev/null
	done
	mkdir "$dir/bootgate-acct.$PPID.$2" 2>/dev/null && echo "$dir/bootgate-acct.$PPID.$2"
	exit 0
	;;
run)
	[ $# = 3 ] || { echo "usage: tests/acct.sh run CGROUP SCRIPT" >&2; exit 2; }
	[ -z "$2" ] || echo $$ 2>/dev/null >"$2/cgroup.procs" ||
		echo "# tests/acct.sh: not in '$2': no CPU figure" >&2
	exec sh "$3"
	;;
done)
	[ $# = 2 ] || { echo "usage: tests/acct.sh done CGROUP" >&2; exit 2; }
	[ -n "$2" ] && [ -d "$2" ] || exit 0
	ns=$(cat "$2/cpuacct.usage" 2>/dev/null)
	for pid in $(cat "$2/cgroup.procs" 2>/dev/null); do
		echo "$pid" 2>/dev/null >"${2%/*}/cgroup.procs"
	done
	rmdir "$2" 2>/dev/null
	case "$ns" in
	'' | *[!0-9]*) ;;
	*) printf ', %d CPU s' $((ns / 1000000000)) ;;
	esac
	;;
*)
	echo "usage: tests/acct.sh new NAME | run CGROUP SCRIPT | done CGROUP" >&2
	exit 2
	;;
esac
