#!/bin/sh
# The test harness itself: a case whose command fails must fail, wherever the command is.
. "$(dirname "$0")/lib.sh"

# a test file of its own, run with the same lib.sh; its cases' names say what they expect
write_cases() {
	cat >cases.sh <<EOF
. "$ROOT/tests/e2e/lib.sh"
test_expect_success 'fail: a command fails, then one succeeds' 'false; true'
test_expect_success 'fail: a broken chain' 'true &&
false
true'
test_expect_success 'fail: a chain broken after a failing pair' 'false && true
true'
test_expect_success 'fail: the middle of a loop fails' 'for i in 1 2 3; do test \$i != 2 || return 1; done'
test_expect_success 'fail: the last link fails' 'true && false'
test_expect_success 'fail: a failing function' 'test_grep missing /dev/null'
test_expect_success 'fail: a JSON check of no output' ': >empty && test_jq ".a == 1" empty'
test_expect_success 'fail: a wrong exit code, stderr sent to a file' 'test_exit_code 0 sh -c "exit 3" 2>err'
test_expect_success 'fail: a wrong exit code, said once' 'test_exit_code 0 sh -c "exit 4"'
test_expect_success 'pass: a whole chain' 'true &&
echo a >a &&
for i in 1 2; do test -f a || return 1; done'
test_done
EOF
}

test_expect_success 'failures are counted, whatever their place in the case' '
	write_cases &&
	test_exit_code 1 env -u TEST_ONLY sh cases.sh >out 2>&1 &&
	cat out &&
	test_grep "^1 passed, 9 failed$" out &&
	test "$(grep -c "^not ok .*: fail: " out)" = 9 &&
	test "$(grep -c "^ok .*: pass: " out)" = 1
'

test_expect_success 'a broken chain is named as such' '
	write_cases &&
	test_exit_code 1 env -u TEST_ONLY sh cases.sh >out 2>&1 &&
	grep -A1 "fail: a chain broken after a failing pair" out >case &&
	test_grep "broken &&-chain" case
'

test_expect_success 'a wrong exit code is said under its case, wherever its stderr went' '
	write_cases &&
	test_exit_code 1 env -u TEST_ONLY sh cases.sh >out 2>&1 &&
	grep -A1 "fail: a wrong exit code, stderr sent to a file" out >case &&
	test_grep "^#   exit code 3, want 0: sh -c exit 3$" case &&
	test "$(grep -c "exit code 4, want 0" out)" = 1
'

# tests/run.sh's "# beside: NAME": two scripts of its own, the second beside the first,
# which prints where it ran: its cpu cgroup (v1, or v2's) and that cgroup's weight
write_pair() {
	mkdir -p pair &&
	cat >pair/t1-main.sh <<-\EOF &&
	i=0
	while [ ! -f pair/side-started ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	[ -f pair/side-started ] && echo "1 passed, 0 failed" || echo "0 passed, 1 failed"
	EOF
	cat >pair/t2-side.sh <<-\EOF
	#!/bin/sh
	# beside: t1-main.sh
	cg=$(sed -n "s/^[0-9]*:\([^:]*,\)*cpu\(,[^:]*\)*:\(.*\)/\3/p" /proc/self/cgroup)
	if [ -n "$cg" ]; then cg=/sys/fs/cgroup/cpu$cg; else cg=/sys/fs/cgroup$(sed -n "s/^0:://p" /proc/self/cgroup); fi
	echo "$cg" >pair/side-cgroup
	cat "$cg/cpu.shares" "$cg/cpu.weight" >pair/side-weight 2>/dev/null
	touch pair/side-started
	echo "1 passed, 0 failed"
	EOF
}

# cgroups_here: whether tests/run.sh can make a cpu cgroup here (root, and v1's cpu
# hierarchy or v2's root delegating cpu, writable)
cgroups_here() {
	[ "$(id -u)" = 0 ] && { [ -w /sys/fs/cgroup/cpu/cgroup.procs ] ||
		{ grep -qw cpu /sys/fs/cgroup/cgroup.subtree_control && [ -w /sys/fs/cgroup/cgroup.procs ]; }; }
}

test_expect_success 'a script "beside" another runs while it runs, in a cpu cgroup it then removes' '
	write_pair &&
	env -u CHECK_SUMMARY sh "$ROOT/tests/run.sh" e2e pair/t1-main.sh pair/t2-side.sh >out 2>&1 &&
	cat out &&
	test_grep "^# pair/t2-side.sh: started beside pair/t1-main.sh$" out &&
	test_grep "^e2e: 2 passed, 0 failed in [0-9]* s$" out &&
	cg=$(cat pair/side-cgroup) &&
	if cgroups_here; then
		case "$cg" in */bootgate-beside.[0-9]*) ;; *) echo "cgroup: $cg" && false ;; esac &&
		case "$cg" in
		/sys/fs/cgroup/cpu/*) test "$(cat pair/side-weight)" = 102 ;;
		*) test "$(cat pair/side-weight)" = 10 ;;
		esac &&
		test ! -d "$cg"
	else
		test_note "no cpu cgroup can be made here: the note checked instead" &&
		test_grep "no cpu cgroup for the scripts beside" out
	fi
'

test_expect_success 'the empty cgroup of a run killed is removed by the next' '
	if cgroups_here; then
		write_pair &&
		pid=4000000 &&
		while kill -0 $pid 2>/dev/null; do pid=$((pid + 1)); done &&
		if [ -w /sys/fs/cgroup/cpu/cgroup.procs ]; then
			old=/sys/fs/cgroup/cpu/bootgate-beside.$pid
		else
			old=/sys/fs/cgroup/bootgate-beside.$pid
		fi &&
		mkdir "$old" &&
		env -u CHECK_SUMMARY sh "$ROOT/tests/run.sh" e2e pair/t1-main.sh pair/t2-side.sh >out 2>&1 &&
		cat out &&
		test_grep "^# removed .$old., of a run gone$" out &&
		test ! -d "$old"
	else
		test_note "no cpu cgroup can be made here: nothing to remove"
	fi
'

# write_lane: pair/t1-main.sh, which waits for the last of three scripts beside it; each
# of those notes when it started and ended; the third fails
write_lane() {
	mkdir -p pair &&
	rm -f pair/*.times pair/lane-done &&
	cat >pair/t1-main.sh <<-\EOF &&
	i=0
	while [ ! -f pair/lane-done ] && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
	[ -f pair/lane-done ] && echo "1 passed, 0 failed" || echo "0 passed, 1 failed"
	EOF
	for n in 2 3 4; do
		cat >pair/t$n-side.sh <<-EOF || return 1
		#!/bin/sh
		# beside: t1-main.sh
		date +%s%N >pair/t$n.times
		sleep 0.3
		date +%s%N >>pair/t$n.times
		EOF
	done &&
	echo "echo \"1 passed, 0 failed\"" >>pair/t2-side.sh &&
	echo "echo \"1 passed, 0 failed\"" >>pair/t3-side.sh &&
	printf "%s\\n" "touch pair/lane-done" "echo \"0 passed, 1 failed\"" >>pair/t4-side.sh
}

test_expect_success 'several scripts beside one run one after another while it runs, each counted' '
	write_lane &&
	test_exit_code 1 env -u CHECK_SUMMARY sh "$ROOT/tests/run.sh" e2e pair/t1-main.sh \
		pair/t2-side.sh pair/t3-side.sh pair/t4-side.sh >out 2>&1 &&
	cat out &&
	test_grep "^e2e: 3 passed, 1 failed in [0-9]* s$" out &&
	for n in 2 3 4; do
		test_grep "^# pair/t$n-side.sh: started beside pair/t1-main.sh$" out &&
		test_grep "^# pair/t$n-side.sh: [0-9]* s, beside pair/t1-main.sh$" out || return 1
	done &&
	test_grep "^# pair/t1-main.sh: with the scripts beside it done, [0-9]* s$" out &&
	: each began after the one before it ended &&
	test "$(sed -n 1p pair/t3.times)" -ge "$(sed -n 2p pair/t2.times)" &&
	test "$(sed -n 1p pair/t4.times)" -ge "$(sed -n 2p pair/t3.times)"
'

test_expect_success 'a server a script beside leaves running goes back to the default weight' '
	if cgroups_here; then
		write_pair &&
		cat >pair/t2-side.sh <<-\EOF &&
		#!/bin/sh
		# beside: t1-main.sh
		setsid sleep 60 >/dev/null 2>&1 &
		echo $! >pair/server.pid
		touch pair/side-started
		echo "1 passed, 0 failed"
		EOF
		env -u CHECK_SUMMARY sh "$ROOT/tests/run.sh" e2e pair/t1-main.sh pair/t2-side.sh >out 2>&1 &&
		cat out &&
		pid=$(cat pair/server.pid) &&
		test_grep "^# left by the scripts beside, out of their cgroup: $pid sleep 60" out &&
		! grep "^# left .*: a process of a script beside is still in it" out &&
		! grep -q "bootgate-beside" "/proc/$pid/cgroup" &&
		kill "$pid"
	else
		test_note "no cpu cgroup can be made here: nothing to move"
	fi
'

test_expect_success 'timed and total: each tier'"'"'s seconds, its tests, and the budget' '
	rm -f times summary &&
	test_exit_code 3 sh "$ROOT/tests/run.sh" timed "$SCRATCH/times" fuzz sh -c "sleep 1; exit 3" &&
	test_grep "^fuzz [1-9][0-9]* 3$" times &&
	sh "$ROOT/tests/run.sh" timed "$SCRATCH/times" packages true &&
	sh "$ROOT/tests/run.sh" timed "$SCRATCH/times" unit true &&
	printf "%s\\n" "unit 222 0" "fuzz-bb 1 0" "fuzz-mbox 0 1" >summary &&
	echo $(($(date +%s) - 125)) >start &&
	test_exit_code 1 sh "$ROOT/tests/run.sh" total summary times start >out &&
	cat out &&
	test_grep "^fuzz  *1  *1  *[1-9][0-9]*$" out &&
	test_grep "^packages  *-  *-  *[0-9]*$" out &&
	test_grep "^unit  *222  *0  *[0-9]*$" out &&
	test_grep "^total  *223  *1  *12[5-9]  (2 min [5-9] s)$" out &&
	test "$(tail -1 out)" = "$(printf "223 passed, 1 failed in 2 min %s s (cold budget 60 min, warm 20 min)" \
		"$(sed -n "s/^total .*(2 min \([0-9]*\) s)$/\1/p" out)")"
'

test_expect_success 'free_port: each lane of tests/run.sh keeps to its own half of the span' '
	(
		. "$ROOT/scripts/lib-net.sh" &&
		for i in $(seq 200); do
			a=$(BOOTGATE_TEST_LANE=0 free_port) &&
			b=$(BOOTGATE_TEST_LANE=1 free_port) &&
			c=$(BOOTGATE_TEST_LANE=1 free_port 33100 1000) &&
			test "$a" -ge 20000 && test "$a" -lt 26000 &&
			test "$b" -ge 26000 && test "$b" -lt 32000 &&
			test "$c" -ge 33600 && test "$c" -lt 34100 || return 1
		done &&
		seen=$(for i in $(seq 200); do env -u BOOTGATE_TEST_LANE sh -c ". \"$ROOT/scripts/lib-net.sh\" && free_port"; done |
			awk "\$1 >= 26000 { hi++ } \$1 < 26000 { lo++ } END { print (hi > 0 && lo > 0) }") &&
		test "$seen" = 1
	)
'

# write_store: w.db, a store of one job done, with a log of that job and an empty daemon
# log; and failed.sql, which makes that job failed for good
write_store() {
	mkdir -p jobs &&
	echo "the index is locked" >jobs/1.log &&
	: >daemon.log &&
	sqlite3 w.db <<-\EOF &&
	CREATE TABLE jobs (id, kind, rev, state, attempts);
	CREATE TABLE events (id, message);
	INSERT INTO jobs VALUES (1, 'gate', 'abc', 'done', 1);
	INSERT INTO events VALUES (1, 'job 1 ended');
	EOF
	echo "UPDATE jobs SET state = 'failed', attempts = 5;" >failed.sql
}

# stubborn: a stand-in daemon that ignores SIGTERM and ends 2 s later; its pid in daemon.pid
stubborn() {
	sh -c 'trap "" TERM; sleep 2' &
	echo $! >daemon.pid
}

test_expect_success 'wait_for: a failed job ends the wait at once, and its store is shown' '
	(
		. "$ROOT/tests/e2e/lib-daemon.sh" &&
		write_store &&
		DB=$SCRATCH/w.db &&
		WAIT_ABORT=a_job_failed &&
		! wait_for 2 false 2>out &&
		test_grep "^not true after 2 s: false" out &&
		sqlite3 "$DB" <failed.sql &&
		start=$(date +%s) &&
		! wait_for 60 false 2>out &&
		test $(($(date +%s) - start)) -lt 30 &&
		test_grep "^given up after 0 s: a_job_failed (waiting for: false)" out &&
		test_grep "^1|gate|abc|failed|5$" out &&
		test_grep "^job 1 ended$" out &&
		test_grep "^the index is locked$" out &&
		stubborn &&
		pid=$(cat daemon.pid) &&
		stop_daemon 2>out &&
		! kill -0 "$pid" 2>/dev/null &&
		test ! -s out
	)
'

test_done
