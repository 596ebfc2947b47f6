#!/bin/sh
# beside: t0165-demo.sh
# Faults injected into a running service, each with its expected outcome: the store
# locked by another process, the clock stepping back an hour, a store damaged or cut to
# nothing (QEMU killed mid-boot and the cache's disk full are t0175-faults-kernel's).
# None may count as a regression, lose a result or stop the daemon answering the CLI.
# (The other faults of the list are tested where their part is: docs/TESTING.md, "Faults".)
# It mostly waits, with a cache of its own, so it runs beside the demo (tests/run.sh).
#
# The daemon here is the real bootgated, copied beside a stand-in for the `bootgate`
# it runs as its children (it finds them next to itself): the stand-in's fetch gives a
# fixed tip and its gate writes a comparison or fails as the test says, so the daemon's
# own handling of each fault is tested in seconds, without a kernel.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/lib-daemon.sh"

STATE=$SCRATCH/state
DB=$STATE/bootgate.db
SOCK=$STATE/bootgate.sock
FAKE=$SCRATCH/fake
FAKETIME_LIB=/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1
TIP=1111111111111111111111111111111111111111
export BOOTGATE_STATE=$STATE BOOTGATE_CACHE=$SCRATCH/cache FAKE

mkdir -p "$SCRATCH/bin" "$FAKE"
cp "$ROOT/bin/bootgated" "$SCRATCH/bin/bootgated"
cat >"$SCRATCH/bin/bootgate" <<'EOF'
#!/bin/sh
# the daemon's children as the test wants them: $FAKE/gate-exit is the gate's exit
case "$1" in
fetch)	cat "$FAKE/tip" ;;
gate)
	db= rev=
	while [ $# -gt 0 ]; do
		case "$1" in --db) db=$2 ;; --rev) rev=$2 ;; esac
		shift
	done
	echo "$(date +%s) $rev" >>"$FAKE/gates"
	code=$(cat "$FAKE/gate-exit")
	[ "$code" != 0 ] || sqlite3 "$db" "INSERT INTO comparisons (base, cand, board, mode,
		verdict, created) VALUES ('base', '$rev', 'qemu-x86_64', 'deterministic', 'same',
		strftime('%s', 'now'))"
	exit "$code" ;;
*)	exit 0 ;;
esac
EOF
chmod +x "$SCRATCH/bin/bootgate"
echo "$TIP" >"$FAKE/tip"
echo 0 >"$FAKE/gate-exit"
cat >"$SCRATCH/bootgate.yaml" <<EOF
state: $STATE
poll: 3600
trees:
  - name: tracing
    url: git://127.0.0.1:9/tracing.git
    branch: for-next
    arches: [x86_64]
EOF

# start_daemon [VAR=VALUE...]: the daemon, with those variables in its environment
start_daemon() {
	env "$@" setsid "$SCRATCH/bin/bootgated" --lab "$ROOT/lab-configs" -f "$SCRATCH/bootgate.yaml" \
		>>"$SCRATCH/daemon.log" 2>&1 &
	echo $! >"$SCRATCH/daemon.pid"
	wait_for 30 'bootgate trigger --socket "$SOCK" tracing >/dev/null 2>&1'
}


# running: the daemon runs, and has gated the tip once (any case may come first)
running() {
	if [ ! -s "$SCRATCH/daemon.pid" ] || ! kill -0 "$(cat "$SCRATCH/daemon.pid")" 2>/dev/null; then
		echo 0 >"$FAKE/gate-exit" &&
		start_daemon || return 1
	fi
	wait_for 30 "[ \"\$(q \"SELECT count(*) FROM jobs WHERE state = 'done'\")\" -ge 1 ]"
}

# results: what the store holds that no fault may take away
results() {
	q "SELECT (SELECT count(*) FROM comparisons) || ' ' || (SELECT count(*) FROM jobs
		WHERE state = 'done') || ' ' || (SELECT count(*) FROM trees)"
}

# lock_store SECONDS: another process holds the store's write lock that long
lock_store() {
	python3 -c '
import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=30)
c.execute("BEGIN EXCLUSIVE")
c.execute("INSERT INTO events (at, level, message) VALUES (0, \"info\", \"a stranger\")")
open(sys.argv[3], "w").close()
time.sleep(float(sys.argv[2]))
c.execute("COMMIT")
' "$DB" "$1" "$SCRATCH/locked" &
	echo $! >"$SCRATCH/locker.pid"
	wait_for 10 'test -e "$SCRATCH/locked"'
}

trap 'stop_daemon; [ ! -s "$SCRATCH/locker.pid" ] || kill "$(cat "$SCRATCH/locker.pid")" 2>/dev/null;
	! mountpoint -q "$SCRATCH/small" || umount "$SCRATCH/small"; rm -rf "$SCRATCH"' EXIT

test_expect_success 'setup: the daemon gates its tip; one result is in the store' '
	running &&
	test "$(results)" = "1 1 1" &&
	bootgate status >status &&
	test_grep "name=tracing" status
'

# The lock outlasts a writer's 30 s of waiting by 15 s: with 5 (35 s), a rerun that
# started a few seconds late on a busy machine found the store free again and passed.
test_expect_success 'the store locked by another process for 45 s: status answers, a trigger is taken, a writer says busy' '
	running &&
	before=$(results) &&
	lock_store 45 &&
	start=$(date +%s) &&
	bootgate status >status &&
	test_grep "name=tracing" status &&
	bootgate trigger --socket "$SOCK" tracing >out &&
	test_grep "^ok" out &&
	answered=$(($(date +%s) - start)) &&
	test_note "status and the trigger answered in $answered s under the lock" &&
	test "$answered" -lt 5 &&
	test_exit_code 1 bootgate rerun --socket "$SOCK" 1 2>err &&
	test_grep "bootgate.db.*database is locked" err &&
	kill -0 "$(cat "$SCRATCH/daemon.pid")" &&
	wait_for 30 "! kill -0 $(cat "$SCRATCH/locker.pid") 2>/dev/null" &&
	wait_for 40 "[ \"\$(q \"SELECT fetched_at > $start FROM trees\")\" = 1 ]" &&
	test "$(results)" = "$before" &&
	test "$(q "SELECT count(*) FROM comparisons WHERE verdict != '"'same'"'")" = 0 &&
	done_before=$(q "SELECT count(*) FROM jobs WHERE state = '"'done'"'") &&
	bootgate rerun --socket "$SOCK" 1 >out &&
	wait_for 30 "[ \"\$(q \"SELECT count(*) FROM jobs WHERE state = '"'done'"'\")\" = $((done_before + 1)) ]"
'

test_expect_success 'the clock steps back an hour: a failed job is tried after its backoff, not an hour later' '
	running &&
	stop_daemon &&
	echo "+0" >"$SCRATCH/faketime" &&
	echo 111 >"$FAKE/gate-exit" &&
	: >"$FAKE/gates" &&
	start_daemon LD_PRELOAD=$FAKETIME_LIB FAKETIME_TIMESTAMP_FILE=$SCRATCH/faketime \
		FAKETIME_NO_CACHE=1 FAKETIME_DONT_FAKE_MONOTONIC=1 BOOTGATE_JOB_BACKOFF=10 &&
	before=$(results) &&
	bootgate rerun --socket "$SOCK" 1 >out &&
	wait_for 30 "[ \"\$(q \"SELECT count(*) FROM jobs WHERE state = '"'queued'"' AND attempts = 1\")\" = 1 ]" &&
	echo "-3600" >"$SCRATCH/faketime" &&
	stepped=$(date +%s) &&
	wait_for 40 "[ \"\$(q \"SELECT max(attempts) FROM jobs\")\" -ge 2 ]" &&
	waited=$(($(date +%s) - stepped)) &&
	test_note "the second try came $waited s after the step back (backoff 10 s)" &&
	test "$waited" -le 20 &&
	test "$(wc -l <"$FAKE/gates")" -ge 2 &&
	test "$(results)" = "$before" &&
	test "$(q "SELECT count(*) FROM bisections")" = 0 &&
	test "$(q "SELECT count(*) FROM comparisons WHERE verdict != '"'same'"'")" = 0 &&
	bootgate status >status &&
	test_grep "name=tracing" status &&
	echo 0 >"$FAKE/gate-exit" &&
	wait_for 120 "[ \"\$(q \"SELECT count(*) FROM jobs WHERE state IN ('"'queued'"', '"'running'"')\")\" = 0 ]" &&
	stop_daemon
'

# damaged COPY FAULT: a copy of the store with a fault, its checksum kept in COPY.sum
# (a daemon that took it would run: "timeout" ends it, and its exit is not 1)
damaged() {
	cp "$DB" "$1" &&
	case "$2" in
	header) printf "not a database!!" | dd of="$1" bs=1 conv=notrunc 2>/dev/null ;;
	# page 5: the root of builds, which neither the daemon nor status reads here
	page) printf "\015\377\377\377\377\377\377\377" |
		dd of="$1" bs=4096 seek=4 conv=notrunc 2>/dev/null ;;
	empty) : >"$1" ;;
	esac &&
	sha256sum <"$1" >"$1.sum"
}

test_expect_success 'a damaged or empty store: the daemon and the CLI refuse it by name, and keep it' '
	running &&
	stop_daemon &&
	sqlite3 "$DB" "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null &&
	good=$(results) &&
	for fault in header page empty; do
		damaged "$SCRATCH/$fault.db" "$fault" &&
		sed "s|^state: .*|state: $SCRATCH/state-$fault|" "$SCRATCH/bootgate.yaml" >"$fault.yaml" &&
		test_exit_code 1 timeout 20 "$SCRATCH/bin/bootgated" --lab "$ROOT/lab-configs" -f "$fault.yaml" --db "$SCRATCH/$fault.db" 2>err &&
		cat err &&
		test_grep "$SCRATCH/$fault.db: " err &&
		sha256sum <"$SCRATCH/$fault.db" | cmp - "$SCRATCH/$fault.db.sum" || return 1
	done &&
	test_exit_code 1 bootgate status --db "$SCRATCH/header.db" 2>err &&
	test_grep "header.db: .*not a database" err &&
	test_exit_code 1 bootgate status --db "$SCRATCH/empty.db" 2>err &&
	test_grep "empty.db: an empty file, not a store" err &&
	test_exit_code 1 timeout 20 "$SCRATCH/bin/bootgated" --lab "$ROOT/lab-configs" -f page.yaml --db "$SCRATCH/page.db" 2>err &&
	test_grep "page.db: .*\(damaged\|malformed\)" err &&
	for fault in header page empty; do
		sha256sum <"$SCRATCH/$fault.db" | cmp - "$SCRATCH/$fault.db.sum" || return 1
	done &&
	start_daemon &&
	results >now &&
	echo "$good" >before &&
	test_cmp before now
'

stop_daemon
test_done
