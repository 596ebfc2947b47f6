#!/bin/sh
# beside: t0150-lava-templates.sh
# A hostile user's findings against bootgated's webhook (lib-load.sh: trees whose gates
# end at once, no kernel): a flood of refused connections and unsigned posts makes a few
# lines of log and a count; a reload whose secret cannot be read keeps the old webhook;
# reloads under a stream of pushes refuse none; a new secret takes effect on reload.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/lib-load.sh"

CLIENT="python3 $ROOT/tests/e2e/load-client.py"

# tally FILE KEY: the count after KEY in the client's output, 0 when absent
tally() {
	awk -v k="$1" '$1 == k { print $2; f = 1 } END { if (!f) print 0 }' "$2"
}

# push TREE [SECRET-FILE]: the status of one signed push
push() {
	body="{\"ref\": \"refs/heads/for-next\"}" &&
	sig=$(printf "%s" "$body" | sh "$ROOT/scripts/webhook-sign.sh" "${2:-$SCRATCH/secret}") &&
	curl -s -m 5 -o /dev/null -w "%{http_code}" -H "X-Hub-Signature-256: $sig" \
		--data-binary "$body" "http://127.0.0.1:$HOOK_PORT/hook/$1"
}

# reloaded N: waits for the Nth "configuration reloaded" or "keeping the old" event
reloaded() {
	wait_for 20 "[ \$(q \"SELECT count(*) FROM events WHERE message LIKE 'configuration reloaded%' OR message LIKE 'keeping the old configuration%'\") -ge $1 ]"
}

test_expect_success 'started' '
	start_daemon &&
	test "$(push load-a)" = 202
'

test_expect_success 'a flood from one client: a few lines of log and a count, not a line each' '
	before=$(wc -l <"$SCRATCH/daemon.log") &&
	$CLIENT flood "$HOOK_PORT" 2000 >out &&
	cat out &&
	test "$(tally closed out)" = 2000 &&
	test "$(tally 401 out)" = 2000 &&
	: the window ends, and the reaper says what it left out, within a second of it &&
	sleep 12 &&
	tail -n +$((before + 1)) "$SCRATCH/daemon.log" | grep "webhook: " >flood.log &&
	lines=$(wc -l <flood.log) &&
	suppressed=$(sed -n "s/.*webhook: \([0-9]*\) lines suppressed.*/\1/p" flood.log |
		awk "{ n += \$1 } END { print n + 0 }") &&
	test_note "2 000 refused connections and 2 000 unsigned posts: $lines lines of log, $suppressed suppressed" &&
	: a window or two of 60 lines, and their counts &&
	test "$lines" -le 124 &&
	test "$suppressed" -ge 3870
'

test_expect_success 'a reload whose secret cannot be read: -n says so, the old webhook stays' '
	sed "s|secret-file: .*|secret-file: $SCRATCH/no-such-secret|" "$SCRATCH/bootgate.yaml" \
		>"$SCRATCH/bad.yaml" &&
	test_exit_code 2 "$BOOTGATED" -n -f "$SCRATCH/bad.yaml" 2>err &&
	why="'"'secret-file'"': cannot open '"'$SCRATCH/no-such-secret'"': No such file or directory" &&
	echo "$SCRATCH/bad.yaml:7:16: $why" >want &&
	test_cmp want err &&
	cp "$SCRATCH/bootgate.yaml" "$SCRATCH/good.yaml" &&
	cp "$SCRATCH/bad.yaml" "$SCRATCH/bootgate.yaml" &&
	kill -HUP "$(cat "$SCRATCH/daemon.pid")" &&
	reloaded 1 &&
	q "SELECT message FROM events WHERE message LIKE '"'keeping the old configuration%'"'" >got &&
	echo "keeping the old configuration: $SCRATCH/bootgate.yaml:7:16: $why" >want &&
	test_cmp want got &&
	test "$(q "SELECT count(*) FROM events WHERE message LIKE '"'configuration reloaded%'"'")" = 0 &&
	test "$(push load-b)" = 202 &&
	cp "$SCRATCH/good.yaml" "$SCRATCH/bootgate.yaml"
'

test_expect_success '20 reloads during 400 pushes: none refused' '
	n=$(q "SELECT count(*) FROM events WHERE message LIKE '"'configuration reloaded%'"'") &&
	$CLIENT pushes "$HOOK_PORT" "$SCRATCH/secret" 400 load-c >out &
	client=$! &&
	for i in $(seq 20); do
		sleep 0.1 &&
		kill -HUP "$(cat "$SCRATCH/daemon.pid")" || return 1
	done &&
	wait $client &&
	cat out &&
	reloaded $((n + 1)) &&
	test_note "20 SIGHUPs during 400 pushes: $(tally 202 out) answered 202, $(tally refused out) refused" &&
	test "$(tally 202 out)" = 400
'

test_expect_success 'a new secret takes effect on reload, the listener kept' '
	n=$(q "SELECT count(*) FROM events WHERE message LIKE '"'configuration reloaded%'"'") &&
	cp "$SCRATCH/secret" "$SCRATCH/old-secret" &&
	printf "another secret\r\n" >"$SCRATCH/secret" &&
	kill -HUP "$(cat "$SCRATCH/daemon.pid")" &&
	wait_for 20 "[ \$(q \"SELECT count(*) FROM events WHERE message LIKE '"'configuration reloaded%'"'\") -gt $n ]" &&
	test "$(push load-a)" = 202 &&
	test "$(push load-a "$SCRATCH/old-secret")" = 401
'

test_expect_success 'the daemon stops cleanly' '
	stop_daemon
'

test_done
