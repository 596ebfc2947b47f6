#!/bin/sh
# beside: t0110-service.sh
# Load on bootgated (lib-load.sh): 1 000 triggers in a minute over the socket and the
# webhook, 200 webhook connections at once, signed pushes to a tree not served, slow and
# endless clients: nothing lost, every client answered or closed within a bound, the
# daemon's memory (VmRSS) flat. Its soak is t0186-soak. It mostly waits, and has a cache
# of its own (lib-load.sh), so it runs beside t0110 (tests/run.sh), which mostly boots on
# one core: at a tenth of the weight it takes little from t0110's timing-mode boots (with
# it beside, the culprit's confirmation there read 279 -> 6 353 us over 5 boots a side,
# p = 7.5e-07; alone, 262 -> 6 356 us, p = 4.5e-10).
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/lib-load.sh"

CLIENT="python3 $ROOT/tests/e2e/load-client.py"

# tally FILE KEY: the count after KEY in the client's output, 0 when absent
tally() {
	awk -v k="$2" '{ n = $NF; $NF = ""; sub(/ $/, "") } $0 == k { print n; f = 1 }
		END { if (!f) print 0 }' "$1"
}

# hook_events: how many pushes the webhook handed on to the loop
hook_events() {
	q "SELECT count(*) FROM events WHERE message LIKE '%fetch asked by webhook%'"
}

test_expect_success 'started: each tree fetched and its first tip gated' '
	start_daemon &&
	wait_for 60 "[ \"\$(q \"SELECT count(*) FROM jobs WHERE state = '"'done'"'\")\" = 3 ]"
'

test_expect_success '1 000 triggers in a minute: all answered, coalesced, none lost, RSS flat' '
	before=$(hook_events) &&
	sample "$SCRATCH/rss1" &&
	$CLIENT triggers "$SOCK" "$HOOK_PORT" "$SCRATCH/secret" "$SCRATCH/work" 1000 55 \
		$TREES >out &&
	sleep 5 &&
	stop_sample "$SCRATCH/rss1" &&
	test "$(tally out "socket ok")" = 500 &&
	test "$(tally out "webhook 202")" = 500 &&
	test "$(grep -c -v "^socket ok\|^webhook 202\|^tip\|^seconds\|^pushes" out)" = 0 &&
	: sent at an even pace over 55 s: how long they took is a figure, not a check, as a \
		busy machine slows the client as much as the daemon &&
	test "$(($(hook_events) - before))" = 500 &&
	for t in $TREES; do
		tip=$(awk -v t="$t" "\$1 == \"tip\" && \$2 == t { print \$3 }" out) &&
		test -n "$tip" &&
		wait_for 60 "[ \"\$(q \"SELECT last_tip FROM trees WHERE name = '"'\$t'"'\")\" = $tip ]" &&
		# coalesced: never more than one gate waiting for a tree
		test "$(q "SELECT count(*) FROM jobs j JOIN trees t ON t.id = j.tree_id WHERE t.name = '"'\$t'"' AND j.state = '"'queued'"'")" -le 1 ||
		return 1
	done &&
	set -- $(quarters "$SCRATCH/rss1") &&
	test_note "1 000 triggers sent in $(tally out seconds) s; VmRSS KiB: first-quarter max $1, last-quarter max $2, $(wc -l <"$SCRATCH/rss1") samples; $(tally out pushes) pushes, $(q "SELECT count(*) FROM jobs") gate jobs" &&
	test "$2" -le $(($1 + 1024))
'

test_expect_success '200 webhook connections at once: each answered, each push handed on' '
	before=$(hook_events) &&
	$CLIENT crowd "$HOOK_PORT" "$SCRATCH/secret" 200 load-a >out &&
	test "$(tally out 202)" = 200 &&
	wait_for 10 "[ \$((\$(hook_events) - $before)) = 200 ]"
'

test_expect_success 'signed pushes to a tree the daemon does not serve: 404, none handed on' '
	before=$(hook_events) &&
	$CLIENT crowd "$HOOK_PORT" "$SCRATCH/secret" 200 made-up >out &&
	test "$(tally out 404)" = 200 &&
	sleep 2 &&
	test "$(hook_events)" = "$before" &&
	test "$(q "SELECT count(*) FROM events WHERE message LIKE '"'%made-up%'"'")" = 0
'

test_expect_success 'a push while the loop is held and its pipe full: taken later, not lost' '
	b=$(q "SELECT count(*) FROM events WHERE message LIKE '"'load-b: fetch asked by webhook%'"'") &&
	$CLIENT burst "$SOCK" "$HOOK_PORT" "$SCRATCH/secret" 2000 load-a load-b >out &&
	cat out &&
	test "$(tally out "load-a 202")" = 2000 &&
	test "$(tally out "load-b 202")" = 10 &&
	wait_for 90 "[ \$(q \"SELECT count(*) FROM events WHERE message LIKE '"'load-b: fetch asked by webhook%'"'\") -gt $b ]" &&
	test_grep "fetch asked by webhook (pushes while the daemon was busy)" "$SCRATCH/daemon.log"
'

# misbehave NAME KIND COUNT SRC SECONDS: COUNT hostile clients (load-client.py) from SRC
# in the background; their outcomes in NAME.out once they are done, their pid in NAME.pid
misbehave() {
	$CLIENT hostile "$HOOK_PORT" "$4" "$3" "$2" "$5" >"$SCRATCH/$1.out" &
	echo $! >"$SCRATCH/$1.pid"
}

# held: how many connections the webhook has open
held() {
	ss -Htn state established "( sport = :$HOOK_PORT )" | wc -l
}

# served_meanwhile: a signed push from 127.0.0.1 answered 202 and bootgate status read,
# within 5 s
served_meanwhile() {
	body="{\"ref\": \"refs/heads/for-next\", \"after\": \"$(printf "%040d" 0)\"}" &&
	sig=$(printf "%s" "$body" | sh "$ROOT/scripts/webhook-sign.sh" "$SCRATCH/secret") &&
	code=$(curl -s -m 5 -o /dev/null -w "%{http_code}" -H "X-Hub-Signature-256: $sig" \
		--data-binary "$body" "http://127.0.0.1:$HOOK_PORT/hook/load-b") &&
	test "$code" = 202 &&
	timeout 5 "$BOOTGATE" status >/dev/null
}

test_expect_success 'slow clients from one address: 16 held at most, cut at 20 s, others served' '
	misbehave loris loris 40 127.0.0.2 60 &&
	misbehave trickle trickle 8 127.0.0.3 60 &&
	misbehave chunked chunked 8 127.0.0.4 60 &&
	wait_for 30 "[ \$(held) -ge 32 ]" &&
	served_meanwhile &&
	wait "$(cat "$SCRATCH/loris.pid")" &&
	wait "$(cat "$SCRATCH/trickle.pid")" &&
	wait "$(cat "$SCRATCH/chunked.pid")" &&
	cat "$SCRATCH/loris.out" "$SCRATCH/trickle.out" "$SCRATCH/chunked.out" &&
	test "$(tally "$SCRATCH/loris.out" closed)" = 40 &&
	test "$(tally "$SCRATCH/loris.out" quick)" = 24 &&
	test "$(tally "$SCRATCH/trickle.out" closed)" = 8 &&
	test "$(tally "$SCRATCH/chunked.out" closed)" = 8 &&
	for f in loris trickle chunked; do
		test "$(tally "$SCRATCH/$f.out" slowest)" -ge 19 &&
		test "$(tally "$SCRATCH/$f.out" slowest)" -le 30 || return 1
	done &&
	: the log is rate-limited: the first cuts are logged, not each of them &&
	test_grep "no whole request within 20 s: closed" "$SCRATCH/daemon.log"
'

test_expect_success 'every connection held from many addresses: cut at 20 s, then served' '
	for i in 5 6 7 8; do
		misbehave "loris$i" loris 16 127.0.0.$i 60 || return 1
	done &&
	wait_for 30 "[ \$(held) -ge 64 ]" &&
	start=$(date +%s) &&
	body="{\"ref\": \"refs/heads/for-next\"}" &&
	sig=$(printf "%s" "$body" | sh "$ROOT/scripts/webhook-sign.sh" "$SCRATCH/secret") &&
	code=$(curl -s -m 40 -o /dev/null -w "%{http_code}" -H "X-Hub-Signature-256: $sig" \
		--data-binary "$body" "http://127.0.0.1:$HOOK_PORT/hook/load-c" || true) &&
	took=$(($(date +%s) - start)) &&
	for i in 5 6 7 8; do
		wait "$(cat "$SCRATCH/loris$i.pid")" || return 1
	done &&
	echo "answer $code after $took s" &&
	cat "$SCRATCH"/loris[5-8].out &&
	test "$code" = 202 &&
	test_note "a push waited ${took} s behind 64 slow clients" &&
	test "$took" -ge 10 &&
	test "$took" -le 25 &&
	timeout 5 "$BOOTGATE" status >/dev/null &&
	for i in 5 6 7 8; do
		test "$(tally "$SCRATCH/loris$i.out" closed)" = 16 &&
		test "$(tally "$SCRATCH/loris$i.out" quick)" = 0 || return 1
	done
'

test_expect_success 'oversized bodies: 413 or closed at once, others served' '
	misbehave huge huge 12 127.0.0.9 30 &&
	misbehave endless endless 12 127.0.0.10 30 &&
	served_meanwhile &&
	wait "$(cat "$SCRATCH/huge.pid")" &&
	wait "$(cat "$SCRATCH/endless.pid")" &&
	cat "$SCRATCH/huge.out" "$SCRATCH/endless.out" &&
	test $(($(tally "$SCRATCH/huge.out" 413) + $(tally "$SCRATCH/huge.out" closed))) = 12 &&
	test $(($(tally "$SCRATCH/endless.out" 413) + $(tally "$SCRATCH/endless.out" closed))) = 12 &&
	test "$(tally "$SCRATCH/huge.out" slowest)" -le 5 &&
	test "$(tally "$SCRATCH/endless.out" slowest)" -le 5 &&
	kill -0 "$(cat "$SCRATCH/daemon.pid")"
'

test_expect_success 'the store is sound after it all' '
	test "$(q "PRAGMA integrity_check")" = ok &&
	stop_daemon
'

test_done
