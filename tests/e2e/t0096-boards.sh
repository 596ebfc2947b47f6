#!/bin/sh
# Every board of a tree is gated: bootgated on a tree served by a real git daemon, with
# arches [x86_64, arm64] and a LAVA board, queues a gate per board for each new tip and
# for a gate asked for by hand. The tree is "unbuildable" (a README, no kernel), so each
# gate ends at its build: no kernel is built, nothing boots; it takes seconds.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/lib-gitd.sh"
. "$ROOT/tests/e2e/lib-daemon.sh"

daemon_paths
WAIT_ABORT=a_job_failed

trap 'stop_daemon; stop_git_daemon; rm -rf "$SCRATCH"' EXIT

start_daemon() {
	setsid "$BOOTGATED" -f "$SCRATCH/bootgate.yaml" >>"$SCRATCH/daemon.log" 2>&1 &
	echo $! >"$SCRATCH/daemon.pid"
}

# gates STATE: "board state" of each gate job, sorted
gates() {
	q "SELECT coalesce(board, '-') || ' ' || state FROM jobs WHERE kind = 'gate' AND
		state = '$1' ORDER BY board"
}

test_expect_success 'a tree with two arches and a LAVA board, served' '
	start_git_daemon "$SCRATCH/served" >/dev/null &&
	git init -q --bare "$SCRATCH/served/multi.git" &&
	git init -q "$SCRATCH/work" &&
	echo multi >"$SCRATCH/work/README" &&
	git -C "$SCRATCH/work" add README &&
	git_ -C "$SCRATCH/work" commit -q -m multi &&
	git -C "$SCRATCH/work" push -q "$SCRATCH/served/multi.git" HEAD:refs/heads/for-next &&
	cat >"$SCRATCH/bootgate.yaml" <<-EOC
	state: $STATE
	limits:
	  builds: 3
	  boots: 2
	poll: 3600
	trees:
	  - name: multi
	    url: $(gitd_url)/multi.git
	    branch: for-next
	    arches: [x86_64, arm64]
	    boards: [lava-x86-pc]
	    mode: timing
	EOC
'

test_expect_success 'bootgated -n lists the boards the tree is gated on' '
	"$BOOTGATED" -n -f "$SCRATCH/bootgate.yaml" >out &&
	cat >expect <<-EOF &&
	$SCRATCH/bootgate.yaml: 1 trees, ok
	  multi: gated on lava-x86-pc (lava) qemu-x86_64 qemu-arm64
	EOF
	test_cmp expect out
'

test_expect_success 'the first tip: a gate on each board, each log naming its board' '
	start_daemon &&
	wait_for 60 "[ \"\$(q \"SELECT count(*) FROM jobs WHERE state = '"'done'"'\")\" = 3 ]" &&
	gates done >out &&
	printf "%s done\n" lava-x86-pc qemu-arm64 qemu-x86_64 >expect &&
	test_cmp expect out &&
	tip=$(git -C "$SCRATCH/work" rev-parse HEAD) &&
	short=$(git -C "$SCRATCH/work" rev-parse --short=12 HEAD) &&
	test "$(q "SELECT count(DISTINCT rev) FROM jobs")" = 1 &&
	test "$(q "SELECT rev FROM jobs LIMIT 1")" = "$tip" &&
	for b in lava-x86-pc qemu-arm64 qemu-x86_64; do
		id=$(q "SELECT id FROM jobs WHERE board = '"'\$b'"'") &&
		test_grep "\-\-board $b\|for $b" "$STATE/jobs/$id.log" &&
		test_grep "gate $short on $b started" "$SCRATCH/daemon.log" &&
		test "$(q "SELECT count(*) FROM events WHERE message = '"'\$short does not build for \$b'"'")" = 1 ||
		return 1
	done
'

test_expect_success 'a gate asked for by hand without a board: queued on every board' '
	tip=$(git -C "$SCRATCH/work" rev-parse HEAD) &&
	short=$(git -C "$SCRATCH/work" rev-parse --short=12 HEAD) &&
	"$BOOTGATE" rerun --db "$DB" --socket "$SOCK" --tree multi "$tip" >out &&
	wait_for 60 "[ \"\$(q \"SELECT count(*) FROM jobs WHERE state = '"'done'"' AND origin = '"'rerun'"'\")\" = 3 ]" &&
	q "SELECT board FROM jobs WHERE origin = '"'rerun'"' ORDER BY board" >out &&
	printf "%s\n" lava-x86-pc qemu-arm64 qemu-x86_64 >expect &&
	test_cmp expect out &&
	test_grep "gate $short queued on 3 boards" "$SCRATCH/daemon.log"
'

test_expect_success 'bootgate status names the board of a queued job' '
	stop_daemon &&
	id=$(q "SELECT max(id) FROM jobs WHERE board = '"'qemu-arm64'"'") &&
	"$BOOTGATE" rerun --db "$DB" --socket "$SOCK" "$id" >out &&
	test_grep "no daemon answers: the job waits in the queue" out &&
	"$BOOTGATE" status --db "$DB" >out &&
	sed -n "/^jobs:/,/^verdicts:/p" out >jobs &&
	test "$(grep -c "kind=gate tree=multi board=qemu-arm64 .*state=queued" jobs)" = 1 &&
	test "$(grep -c "^  id=" jobs)" = 1 &&
	"$BOOTGATE" status --db "$DB" --json >out.json &&
	test_jq ".jobs | length == 1 and .[0].board == \"qemu-arm64\"" out.json
'

test_expect_success 'bootgate gate with two boards: a verdict line for each, each stored' '
	rev=$(git -C "$SCRATCH/work" rev-parse HEAD) &&
	"$BOOTGATE" gate --tree "$SCRATCH/work" --name cli --rev "$rev" --arch x86_64 \
		--board qemu-arm64 --db "$SCRATCH/cli.db" >out 2>err &&
	printf "%s unbuildable %s\n" "$rev" x86_64 "$rev" qemu-arm64 >expect &&
	test_cmp expect out &&
	DB=$SCRATCH/cli.db q "SELECT board || '"' '"' || status FROM builds ORDER BY id" >out &&
	printf "%s failed\n" qemu-x86_64 qemu-arm64 >expect &&
	test_cmp expect out
'

test_expect_success 'bootgate bisect with two boards: a bisection on each' '
	echo more >>"$SCRATCH/work/README" &&
	git_ -C "$SCRATCH/work" commit -q -a -m more &&
	test_exit_code 1 "$BOOTGATE" bisect --tree "$SCRATCH/work" --name cli --good HEAD~1 --bad HEAD \
		--arch x86_64 --arch arm64 --db "$SCRATCH/cli.db" 2>err &&
	DB=$SCRATCH/cli.db q "SELECT board || '"' '"' || state FROM bisections ORDER BY id" >out &&
	printf "%s failed\n" qemu-x86_64 qemu-arm64 >expect &&
	test_cmp expect out &&
	test_grep "error: arm64: the good endpoint .* does not build" err &&
	"$BOOTGATE" status --db "$SCRATCH/cli.db" >out &&
	test_grep "^  id=2 tree=cli board=qemu-arm64 state=failed" out &&
	test_grep "^  id=1 tree=cli board=qemu-x86_64 state=failed" out &&
	"$BOOTGATE" gate --tree "$SCRATCH/work" --name cli --rev HEAD --arch arm64 \
		--db "$SCRATCH/cli.db" >/dev/null 2>&1 &&
	"$BOOTGATE" show --db "$SCRATCH/cli.db" 1 >out &&
	test_grep "^bisection 1: cli, qemu-x86_64, " out &&
	test_grep "^other boards: qemu-arm64 unbuildable$" out
'

test_expect_success 'measure and series take one board: two are a usage error' '
	test_exit_code 2 "$BOOTGATE" measure --tree "$SCRATCH/work" --commit HEAD \
		--arch x86_64 --arch arm64 2>err &&
	test_grep "one --arch or --board: measure runs on one board" err &&
	test_exit_code 2 "$BOOTGATE" series --tree "$SCRATCH/work" --arch x86_64 \
		--board qemu-arm64 - </dev/null 2>err &&
	test_grep "one --arch or --board: series runs on one board" err
'

test_done
