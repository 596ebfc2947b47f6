#!/bin/sh
# The test harness itself: a case whose command fails must fail, wherever the command is.
. "$(dirname "$0")/lib.sh"
# the servers a case leaves running on purpose, stopped however the script ends
trap 'for p in $(cat "$SCRATCH/.servers" 2>/dev/null); do kill "$p" 2>/dev/null; done
	rm -rf "$SCRATCH"' EXIT

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

test_expect_success 'a skipped case is counted apart, in the script'"'"'s line and the runner'"'"'s' '
	mkdir -p skip &&
	cat >skip/t1.sh <<-EOF &&
	. "$ROOT/tests/e2e/lib.sh"
	test_expect_success "pass: runs" "true"
	test_skip "skip: needs what is absent" "no ../shared here"
	test_done
	EOF
	env -u TEST_ONLY sh skip/t1.sh >out 2>&1 &&
	cat out &&
	test_grep "^ok 2 - t1: skip: needs what is absent # skip no ../shared here$" out &&
	test "$(tail -n 1 out)" = "1 passed, 0 failed, 1 skipped" &&
	printf "%s\n" "echo \"2 passed, 0 failed\"" >skip/t2.sh &&
	env -u CHECK_SUMMARY -u TEST_ONLY sh "$ROOT/tests/run.sh" e2e skip/t1.sh skip/t2.sh >out 2>&1 &&
	cat out &&
	test_grep "^e2e: 3 passed, 0 failed, 1 skipped in [0-9]* s$" out &&
	: a skip fails nothing, nor counts as a pass, and alone says so too &&
	printf "%s\n" ". \"$ROOT/tests/e2e/lib.sh\"" "test_skip \"x\" \"y\"" test_done >skip/t3.sh &&
	env -u CHECK_SUMMARY -u TEST_ONLY sh "$ROOT/tests/run.sh" e2e skip/t3.sh >out 2>&1 &&
	test_grep "^e2e: 0 passed, 0 failed, 1 skipped in [0-9]* s$" out
'

# tests/run.sh's "# beside: NAME": two scripts of its own, the second beside the first,
# which prints where it ran: its cpu cgroup (v1, or v2's) and that cgroup's weight
write_pair() {
	mkdir -p pair &&
	cat >pair/t1-main.sh <<-\EOF &&
	echo "$BOOTGATE_TEST_LANE" >pair/main-lane
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
	echo "$BOOTGATE_TEST_LANE" >pair/side-lane
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
	: each lane picks its ports from its own third &&
	test "$(cat pair/main-lane)" = 0 &&
	grep -qx "[12]" pair/side-lane &&
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

test_expect_success 'several scripts beside one: one after another, or two at a time, each counted' '
	write_lane &&
	test_exit_code 1 env -u CHECK_SUMMARY sh "$ROOT/tests/run.sh" e2e pair/t1-main.sh \
		pair/t2-side.sh pair/t3-side.sh pair/t4-side.sh >out 2>&1 &&
	cat out &&
	test_grep "^e2e: 3 passed, 1 failed in [0-9]* s$" out &&
	: by default each began after the one before it ended &&
	test "$(sed -n 1p pair/t3.times)" -ge "$(sed -n 2p pair/t2.times)" &&
	test "$(sed -n 1p pair/t4.times)" -ge "$(sed -n 2p pair/t3.times)" &&
	test_exit_code 2 env -u CHECK_SUMMARY BOOTGATE_BESIDE_LANES=3 sh "$ROOT/tests/run.sh" e2e \
		pair/t1-main.sh pair/t2-side.sh 2>err &&
	test_grep "BOOTGATE_BESIDE_LANES is 1 or 2, not .3." err &&
	write_lane &&
	test_exit_code 1 env -u CHECK_SUMMARY BOOTGATE_BESIDE_LANES=2 sh "$ROOT/tests/run.sh" e2e \
		pair/t1-main.sh pair/t2-side.sh pair/t3-side.sh pair/t4-side.sh >out 2>&1 &&
	cat out &&
	test_grep "^e2e: 3 passed, 1 failed in [0-9]* s$" out &&
	for n in 2 3 4; do
		test_grep "^# pair/t$n-side.sh: started beside pair/t1-main.sh$" out &&
		test_grep "^# pair/t$n-side.sh: [0-9]* s\(, [0-9]* CPU s\)*, beside pair/t1-main.sh$" out || return 1
	done &&
	test_grep "^# pair/t1-main.sh: with the scripts beside it done, [0-9]* s$" out &&
	: with two, the first two together, the third once one of them ended &&
	test "$(sed -n 1p pair/t3.times)" -lt "$(sed -n 2p pair/t2.times)" &&
	test "$(sed -n 1p pair/t2.times)" -lt "$(sed -n 2p pair/t3.times)" &&
	first_end=$(sort -n pair/t2.times pair/t3.times | sed -n 3p) &&
	test "$(sed -n 1p pair/t4.times)" -ge "$first_end"
'

# write_cpu: cpu/t1-busy.sh, whose child burns 1.5 s of a core (of CPU time, however long
# a busy machine takes to give it), and cpu/t2-idle.sh beside it, which sleeps
write_cpu() {
	mkdir -p cpu &&
	cat >cpu/t1-busy.sh <<-\EOF &&
	python3 -c 'import time
	while time.process_time() < 1.5: pass' &
	wait
	echo "1 passed, 0 failed"
	EOF
	cat >cpu/t2-idle.sh <<-\EOF
	#!/bin/sh
	# beside: t1-busy.sh
	sleep 1
	echo "1 passed, 0 failed"
	EOF
}

test_expect_success 'each script'"'"'s CPU seconds, its children'"'"'s too, in the lane beside as well' '
	probe=$(sh "$ROOT/tests/acct.sh" new probe) &&
	if [ -n "$probe" ]; then
		rmdir "$probe" &&
		write_cpu &&
		env -u CHECK_SUMMARY sh "$ROOT/tests/run.sh" e2e cpu/t1-busy.sh cpu/t2-idle.sh >out 2>&1 &&
		cat out &&
		busy=$(sed -n "s|^# cpu/t1-busy.sh: [0-9]* s, \([0-9]*\) CPU s$|\1|p" out) &&
		idle=$(sed -n "s|^# cpu/t2-idle.sh: [0-9]* s, \([0-9]*\) CPU s, beside cpu/t1-busy.sh$|\1|p" out) &&
		test "$busy" -ge 1 && test "$idle" = 0 &&
		test -z "$(find /sys/fs/cgroup/cpuacct -maxdepth 4 -name "bootgate-acct.*.t[12]-*.sh")"
	else
		test_note "no cpuacct cgroup (v1) can be made here: no CPU figure"
	fi
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
		env -u CHECK_SUMMARY sh "$ROOT/tests/run.sh" e2e pair/t1-main.sh pair/t2-side.sh >out 2>err &&
		cat out err &&
		pid=$(cat pair/server.pid) &&
		echo "$pid" >>"$SCRATCH/.servers" &&
		test_grep "^# left running by the scripts beside, out of their cgroup: $pid sleep 60" err &&
		! grep "a process of a script beside is still in it" err &&
		! grep -q "bootgate-beside" "/proc/$pid/cgroup"
	else
		test_note "no cpu cgroup can be made here: nothing to move"
	fi
'

test_expect_success 'timed and total: each tier'"'"'s seconds, its tests, and the budget' '
	rm -f times summary &&
	test_exit_code 3 sh "$ROOT/tests/run.sh" timed times fuzz sh -c "sleep 1; exit 3" &&
	test_grep "^fuzz [1-9][0-9]* 3$" times &&
	sh "$ROOT/tests/run.sh" timed times packages true &&
	sh "$ROOT/tests/run.sh" timed times unit true &&
	printf "%s\\n" "unit 222 0" "fuzz-bb 1 0" "fuzz-mbox 0 1" >summary &&
	echo $(($(date +%s) - 125)) >start &&
	test_exit_code 1 sh "$ROOT/tests/run.sh" total summary times start >out &&
	cat out &&
	test_grep "^fuzz  *1  *1  *[1-9][0-9]*$" out &&
	test_grep "^packages  *-  *-  *[0-9]*$" out &&
	test_grep "^unit  *222  *0  *[0-9]*$" out &&
	test_grep "^total  *223  *1  *12[5-9]  (2 min [5-9] s)$" out &&
	tail -1 out >last &&
	test_grep "^223 passed, 1 failed in 2 min [5-9] s (cold budget 60 min, warm 20 min)$" last
'

# fake NAME LAST-LINE [BESIDE]: chain/NAME.sh, a test that notes it ran and prints
# LAST-LINE; with BESIDE, it names that script on its "# beside:" line
fake() {
	mkdir -p chain &&
	{
		echo "#!/bin/sh"
		[ -z "${3:-}" ] || echo "# beside: $3"
		echo "touch ran-$1"
		echo "echo \"$2\""
	} >"chain/$1.sh"
}

test_expect_success 'every script runs: a chain of beside lines, bare names, no count, a lane cut short' '
	rm -f ran-* &&
	fake a "1 passed, 0 failed" b.sh &&
	fake b "1 passed, 0 failed" c.sh &&
	fake c "1 passed, 0 failed" &&
	fake quiet "no count here" &&
	(cd chain && test_exit_code 1 env -u CHECK_SUMMARY sh "$ROOT/tests/run.sh" e2e \
		a.sh b.sh c.sh quiet.sh) >out 2>&1 &&
	cat out &&
	for n in a b c quiet; do test -f "chain/ran-$n" || return 1; done &&
	test_grep "^# a.sh: not beside b.sh (itself, or a script beside another): alone$" out &&
	test_grep "^# b.sh: started beside c.sh$" out &&
	test_grep "^sh quiet.sh: no count of its tests in its output" out &&
	test_grep "^e2e: 3 passed, 1 failed in [0-9]* s$" out &&
	! grep -q "can.t read" out
'

test_expect_success 'stopped: the script running stops at once, the lane too, nothing left in its cgroup' '
	mkdir -p stop &&
	printf "%s\\n" "#!/bin/sh" "sleep 30" "echo \"1 passed, 0 failed\"" >stop/t1.sh &&
	printf "%s\\n" "#!/bin/sh" "# beside: t1.sh" "setsid sleep 61 >/dev/null 2>&1 &" \
		"echo \$! >stop/server.pid" "sleep 30" "echo \"1 passed, 0 failed\"" >stop/t2.sh &&
	{ env -u CHECK_SUMMARY sh "$ROOT/tests/run.sh" e2e stop/t1.sh stop/t2.sh >out 2>&1 & } &&
	run=$! &&
	i=0 && while [ ! -s stop/server.pid ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done &&
	echo "$(cat stop/server.pid)" >>"$SCRATCH/.servers" &&
	start=$(date +%s) &&
	kill -TERM "$run" &&
	{ wait "$run"; rc=$?; } &&
	cat out &&
	test "$rc" = 143 &&
	test $(($(date +%s) - start)) -le 5 &&
	! pgrep -f "^sleep 30$" &&
	if cgroups_here; then
		test_grep "^# left running by the scripts beside, out of their cgroup: $(cat stop/server.pid) sleep 61" out &&
		! grep "still in it" out
	fi
'

test_expect_success 'timed and total refuse what they cannot use' '
	test_exit_code 2 sh "$ROOT/tests/run.sh" timed times 2>err &&
	test_grep "^usage: tests/run.sh timed FILE TIER CMD" err &&
	test_exit_code 2 sh "$ROOT/tests/run.sh" timed times unit 2>err &&
	test_exit_code 2 sh "$ROOT/tests/run.sh" timed times "my tier" true 2>err &&
	test_grep "TIER one word" err &&
	echo "unit 10 0" >summary &&
	printf "%s\\n" "build 30 2" "unit 5 0" "e2e 900 1" >times &&
	date +%s >start &&
	test_exit_code 1 sh "$ROOT/tests/run.sh" total summary times start >out &&
	cat out &&
	test_grep "^build  *0  *1  *30  exited 2$" out &&
	test_grep "^e2e  *0  *1  *900  exited 1$" out &&
	test_grep "^10 passed, 2 failed in 0 min [0-9]* s" out &&
	test_exit_code 1 sh "$ROOT/tests/run.sh" total /nonexistent times start 2>err &&
	test_grep "cannot read ./nonexistent." err &&
	test_exit_code 1 sh "$ROOT/tests/run.sh" total summary /nonexistent start 2>err &&
	test_exit_code 2 sh "$ROOT/tests/run.sh" total summary times 2>err &&
	test_grep "^usage: tests/run.sh total" err &&
	echo abc >start &&
	test_exit_code 1 sh "$ROOT/tests/run.sh" total summary times start 2>err &&
	test_grep "holds no start time" err
'

test_expect_success 'the soak refuses a length it cannot use before it starts anything' '
	for v in "" 0 9 abc 060 100000 " 60"; do
		start=$(date +%s) &&
		test_exit_code 2 env BOOTGATE_SOAK_SECONDS="$v" sh "$ROOT/tests/e2e/t0186-soak.sh" >out 2>err &&
		test_grep "BOOTGATE_SOAK_SECONDS wants seconds from 10 to 99999, not .$v." err &&
		test ! -s out &&
		test $(($(date +%s) - start)) -le 2 || return 1
	done
'

test_expect_success 'free_port: each lane of tests/run.sh keeps to its own third of the span' '
	(
		. "$ROOT/scripts/lib-net.sh" &&
		for i in $(seq 200); do
			a=$(BOOTGATE_TEST_LANE=0 free_port) &&
			b=$(BOOTGATE_TEST_LANE=1 free_port) &&
			c=$(BOOTGATE_TEST_LANE=2 free_port) &&
			d=$(BOOTGATE_TEST_LANE=1 free_port 33100 999) &&
			test "$a" -ge 20000 && test "$a" -lt 24000 &&
			test "$b" -ge 24000 && test "$b" -lt 28000 &&
			test "$c" -ge 28000 && test "$c" -lt 32000 &&
			test "$d" -ge 33433 && test "$d" -lt 33766 || return 1
		done &&
		seen=$(for i in $(seq 200); do env -u BOOTGATE_TEST_LANE sh -c ". \"$ROOT/scripts/lib-net.sh\" && free_port"; done |
			awk "\$1 >= 28000 { hi++ } \$1 < 24000 { lo++ } END { print (hi > 0 && lo > 0) }") &&
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

test_expect_success 'unit: programs two at a time, told in order, a lost count a failure' '
	mkdir u &&
	: each of meet-a and meet-b passes only if the other runs while it waits for it &&
	for me in a b; do
		other=$( [ $me = a ] && echo b || echo a ) &&
		printf "%s\n" "#!/bin/sh" "touch \"$PWD/u/$me.here\"" "n=0" \
			"until [ -e \"$PWD/u/$other.here\" ]; do" \
			"	n=\$((n + 1)); [ \$n -lt 100 ] || { echo \"[  FAILED  ] 1 test(s).\"; exit 1; }" \
			"	sleep 0.1" "done" "echo \"[  PASSED  ] 2 test(s).\"" >u/meet-$me || return 1
	done &&
	printf "%s\n" "#!/bin/sh" "echo \"[  PASSED  ] 1 test(s).\"" \
		"echo \"[  FAILED  ] 2 test(s).\"" "exit 1" >u/fails &&
	printf "#!/bin/sh\necho started\n" >u/stops &&
	chmod +x u/* &&
	test_exit_code 1 env -u CHECK_SUMMARY UNIT_JOBS=2 SUITE=u sh "$ROOT/tests/run.sh" unit \
		u/meet-a u/meet-b u/fails u/stops >out 2>err &&
	grep -v "^u:" out >told &&
	printf "%s\n" "[  PASSED  ] 2 test(s)." "[  PASSED  ] 2 test(s)." "[  PASSED  ] 1 test(s)." \
		"[  FAILED  ] 2 test(s)." started >want &&
	test_cmp want told &&
	test_grep "^u: 5 passed, 3 failed in" out &&
	test_grep "u/stops: no count of its tests" err &&
	test_exit_code 2 env -u CHECK_SUMMARY UNIT_JOBS=0 sh "$ROOT/tests/run.sh" unit u/fails \
		2>err &&
	test_grep "UNIT_JOBS wants a number" err
'

test_expect_success 'layout: each forbidden include named, with its line; a clean tree passes' '
	mkdir -p lt/tests lt/lib/util lt/lib/store lt/lib/ci lt/lib/decide lt/daemon lt/workers/w \
		lt/bench &&
	cp "$ROOT/tests/layout.sh" lt/tests/ &&
	for f in daemon/main.c workers/w/main.c workers/x.c bench/b.c lib/ci/job.c lib/decide/d.c
	do
		printf "#include \"util/fs.h\"\n#include <stdio.h>\n" >lt/$f || return 1
	done &&
	printf "#include <sqlite3.h>\n#include \"util/fs.h\"\n" >lt/lib/store/store.c &&
	printf "#include <stdio.h>\n#include <sys/stat.h>\n" >lt/lib/util/fs.c &&
	env -u CHECK_SUMMARY sh lt/tests/layout.sh >out &&
	test_grep "^layout: 8 files checked, 0 problems$" out &&
	printf "%s\n" "#include \"store/store.h\"" "#include \"fs.h\"" "#include <sqlite3.h>" \
		"#include <pthread.h>" >lt/lib/util/bad.c &&
	printf "#include \"util/fs.h\"\n#include <curl/curl.h>\n" >lt/workers/w/main.c &&
	: an empty file of no group is named too, in its place &&
	mkdir lt/lib/zzz && : >lt/lib/zzz/empty.c &&
	test_exit_code 1 env -u CHECK_SUMMARY sh lt/tests/layout.sh >out &&
	not_c="is not the C library or POSIX: lib/util/bad.c may not include it" &&
	printf "%s\n" \
		"lib/util/bad.c:1: lib/util may not include '\''store/store.h'\''" \
		"lib/util/bad.c:2: name '\''fs.h'\'' by its group (\"group/name.h\")" \
		"lib/util/bad.c:3: includes <sqlite3.h>, which only lib/store/store.c may" \
		"lib/zzz/empty.c: lib/zzz is not a known group" \
		"workers/w/main.c:2: includes <curl/curl.h>, which only lib/net/curl.c may" \
		"lib/util/bad.c:3: <sqlite3.h> $not_c" "lib/util/bad.c:4: <pthread.h> $not_c" \
		"layout: 10 files checked, 7 problems" "0 passed, 1 failed" >want &&
	test_cmp want out
'

test_done
