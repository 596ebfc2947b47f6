#!/bin/sh
# beside: t0165-demo.sh
# The mail: a bisection and a series from the store become mails sent by libcurl to a
# real SMTP server on 127.0.0.1 (postfix's smtp-sink writing each message to a file);
# the store is real SQLite, the consoles are the shipped logs, the culprit a real commit
# of a real git tree. The bisection and series rows are written by the test. It mostly
# waits, with a cache of its own, so it runs beside the demo (tests/run.sh).
. "$(dirname "$0")/lib.sh"

BOOTGATED=$ROOT/bin/bootgated
export BOOTGATE_MAIL_BACKOFF=1 BOOTGATE_CACHE=$SCRATCH/cache
. "$ROOT/tests/e2e/lib-smtp.sh"
. "$ROOT/tests/e2e/lib-daemon.sh"
. "$ROOT/tests/e2e/lib-store.sh"
PORT=$SMTP_PORT
mkdir -p "$SCRATCH/state"

start_daemon() {
	setsid "$BOOTGATED" -f "$SCRATCH/bootgate.yaml" --db "$SCRATCH/state/bootgate.db" \
		>>"$SCRATCH/daemon.log" 2>&1 &
	echo $! >"$SCRATCH/daemon.pid"
}
trap 'stop_daemon; stop_sink; rm -rf "$SCRATCH"' EXIT

write_config() {
	cat >"$SCRATCH/bootgate.yaml" <<EOF
state: $SCRATCH/state
socket: $SCRATCH/state/s.sock
report:
  from: "bootgate robot <bootgate@ci.example.org>"
  smtp: smtp://127.0.0.1:$PORT
  site-url: https://ci.example.org/boot/
  min-confidence: "0.9"
trees:
  - name: tracing
    url: git://127.0.0.1:1/none
    branch: for-next
    arches: [x86_64]
    mode: deterministic
    poll: 86400
    mail:
      to: ["linux-trace-kernel@vger.example.org"]
      cc: ["Régis Müller <regis@example.org>"]
      maintainers: ["Steven Rostedt <rostedt@example.org>"]
      send: list
EOF
}

# wait_sent ABOUT: until the mail about ABOUT is marked sent (30 s at most)
wait_sent() {
	for i in $(seq 60); do
		[ "$(SQL "SELECT sent IS NOT NULL FROM mails WHERE about = '$1'")" != 1 ] || return 0
		sleep 0.5
	done
	return 1
}

SQL() {
	sqlite3 "$SCRATCH/state/bootgate.db" "$@"
}

test_expect_success 'setup: a tree whose culprit carries trailers and a hostile subject' '
	git init -q tree &&
	(cd tree &&
	 git config user.name "Ada Lovelace" && git config user.email ada@example.org &&
	 echo a >f && git add f && git commit -q -m "tracing: base" &&
	 printf "%s\r\nBcc: x@y\n\nSlow it down.\n\nCc: stable@vger.example.org # 6.1\nSigned-off-by: Ada Lovelace <ada@example.org>\nSigned-off-by: Zoë Maintainer <zoe@example.org>\n" \
		"tracing: make kprobe init wait" >msg &&
	 echo b >f && git commit -q -a -F msg &&
	 echo c >f && git commit -q -a -m "tracing: after") &&
	GOOD=$(git -C tree rev-parse HEAD~2) && CULPRIT=$(git -C tree rev-parse HEAD~1) &&
	BAD=$(git -C tree rev-parse HEAD) &&
	echo "$GOOD $CULPRIT $BAD" >revs &&
	write_config && start_sink &&
	test_exit_code 1 bootgate mail --config bootgate.yaml >out 2>err &&
	test_grep "no store at .*state/bootgate.db" err &&
	test ! -e state/bootgate.db &&
	new_store state/bootgate.db &&
	bootgate mail --config bootgate.yaml >out
'
read -r GOOD CULPRIT BAD <revs 2>/dev/null || true

BASELINE=$FIXTURES/bootlogs/x86_64-tiny-baseline-run
REGRESSED=$FIXTURES/bootlogs/x86_64-tiny-regressed-run
test_expect_success 'setup: the store holds a found bisection, its builds, boots and figures' '
	{
	echo "BEGIN;" &&
	echo "INSERT INTO trees (id, name, path, url, branch) VALUES (1, '\''tracing'\'', '\''$SCRATCH/tree'\'', '\''git://127.0.0.1:1/none'\'', '\''for-next'\'');" &&
	echo "INSERT INTO builds (commit_sha, board, status, image_sha256, created) VALUES ('\''$GOOD'\'', '\''qemu-x86_64'\'', '\''built'\'', '\''img-good'\'', 0), ('\''$CULPRIT'\'', '\''qemu-x86_64'\'', '\''built'\'', '\''img-bad'\'', 0);" &&
	for i in 1 2 3; do
		store_boot "$i" img-good "$BASELINE$i.log" &&
		store_boot "$((i + 3))" img-bad "$REGRESSED$i.log"
	done &&
	echo "INSERT INTO bisections (id, tree_id, good, bad, board, mode, metric, state, outcome, culprit, confidence, created, finished, range_first, range_last, revert_applies, revert_commit, regression_us) VALUES (1, 1, '\''$GOOD'\'', '\''$BAD'\'', '\''qemu-x86_64'\'', '\''deterministic'\'', '\''initcall.init_kprobe_trace'\'', '\''done'\'', '\''found'\'', '\''$CULPRIT'\'', 0.998, 0, 1, 1, 1, 1, '\''0000'\'', 91978);" &&
	echo "INSERT INTO bisection_commits VALUES (1, 0, '\''$GOOD'\''), (1, 1, '\''$CULPRIT'\''), (1, 2, '\''$BAD'\'');" &&
	echo "INSERT INTO bisection_reports (bisection_id, seq, idx, kind, value) VALUES (1, 0, 0, '\''value'\'', 94), (1, 1, 0, '\''value'\'', 94), (1, 2, 1, '\''value'\'', 49882), (1, 3, 1, '\''value'\'', 49882), (1, 4, 2, '\''value'\'', 49882);" &&
	store_comparison 1 step 1 "$GOOD" "$CULPRIT" different initcall.init_kprobe_trace \
		"1:${BASELINE}1.log 2:${BASELINE}2.log 3:${BASELINE}3.log" \
		"4:${REGRESSED}1.log 5:${REGRESSED}2.log 6:${REGRESSED}3.log" &&
	store_comparison 2 timing 1 "$GOOD" "$CULPRIT" different initcall.init_kprobe_trace \
		"1:${BASELINE}1.log 2:${BASELINE}2.log" "4:${REGRESSED}1.log 5:${REGRESSED}2.log" &&
	store_comparison 3 revert 1 0000 "$BAD" different initcall.init_kprobe_trace \
		"1:${BASELINE}1.log" "4:${REGRESSED}1.log" &&
	echo "UPDATE comparisons SET mode = '\''timing'\'' WHERE id = 2;" &&
	echo "INSERT INTO outbox (kind, ref, body, created) VALUES ('\''bisection'\'', 1, '\''{}'\'', 0);" &&
	echo "COMMIT;"
	} >setup.sql &&
	SQL <setup.sql &&
	test "$(SQL "SELECT count(*) FROM samples WHERE metric = '\''initcall.init_kprobe_trace'\'' AND line > 0")" = 6 &&
	test "$(SQL "SELECT count(*) FROM verdicts WHERE comparison_id = 1")" -gt 150
'

test_expect_success 'mail --dry-run: the mail as it would go, nothing stored' '
	bootgate mail --config bootgate.yaml --dry-run >dry &&
	test_grep "^Subject: \[tracing:for-next\] " dry &&
	test "$(SQL "SELECT count(*) FROM mails")" = 0 &&
	test "$(SQL "SELECT count(*) FROM outbox WHERE done IS NULL")" = 1
'

test_expect_success 'mail --send: the report reaches the server, with its headers' '
	bootgate mail --config bootgate.yaml --send >out &&
	test "$(mails_with "bootgate-bisection-1-")" = 1 &&
	headers_of "bootgate-bisection-1-" >h &&
	test_grep "^From: bootgate robot <bootgate@ci.example.org>" h &&
	test_grep "^To: linux-trace-kernel@vger.example.org, Ada Lovelace <ada@example.org>" h &&
	test_grep "stable@vger.example.org" h &&
	test_grep "=?UTF-8?Q?Zo=C3=AB?=" h &&
	test_grep "=?UTF-8?Q?R=C3=A9gis_M=C3=BCller?=" h &&
	test_grep "^Message-ID: <bootgate-bisection-1-$(echo $CULPRIT | cut -c1-12)@ci.example.org>" h &&
	test_grep "=?UTF-8?Q?=C2=B5s?=" h &&
	test_grep "^X-Bootgate-Kind: bisection" h &&
	test_grep "^Content-Type: text/plain; charset=utf-8" h &&
	test "$(SQL "SELECT sent IS NOT NULL AND attempts = 1 FROM mails WHERE outbox_id = 1")" = 1 &&
	test "$(SQL "SELECT done IS NOT NULL FROM outbox WHERE id = 1")" = 1
'

test_expect_success 'a CR LF in the commit subject adds no header' '
	headers_of "bootgate-bisection-1-" >h &&
	! grep -i "^bcc:" h &&
	sed -n "/^From: /,\$p" h | grep -o "^[A-Za-z-]*:" >names &&
	printf "%s:\n" From To Cc Subject Date Message-ID MIME-Version Content-Type \
		Content-Transfer-Encoding X-Bootgate-Tree X-Bootgate-Branch X-Bootgate-Kind >want &&
	test_cmp want names &&
	test_grep "^ x@y: initcall.init_kprobe_trace" h
'

test_expect_success 'the body: the kernel lines, figures, log, reproduction, tags' '
	f=$(grep -l "bootgate-bisection-1-" mails/*) &&
	tr -d "\r" <"$f" | sed "1,/^\$/d" >body &&
	test_grep "^    initcall init_kprobe_trace+0x0/0x165 returned 0 after 88 usecs" body &&
	test_grep "^  → initcall init_kprobe_trace+0x0/0x179 returned 0 after 92066 usecs" body &&
	test_grep "^  boots    3 before, 3 after" body &&
	test_grep "95% interval" body &&
	: the figures are the stored comparisons of_ the step, the timing check and the revert &&
	if [ "$(jq -r ".verdicts[] | select(.metric == \"initcall.init_kprobe_trace\") | .verdict" compare-2.json)" = different ]; then
		test_grep "Timing mode confirmed it" body
	else
		test_grep "Timing mode did not confirm it" body
	fi &&
	step=$(jq ".verdicts[] | select(.metric == \"initcall.init_kprobe_trace\")" compare-1.json) &&
	timing=$(jq ".verdicts[] | select(.metric == \"initcall.init_kprobe_trace\")" compare-2.json) &&
	restored=$(jq ".verdicts[] | select(.metric == \"initcall.init_kprobe_trace\") | .delta" compare-3.json) &&
	tr "\n" " " <body | tr -s " " >flat &&
	f() { printf "%.${2:-0}f" "$(echo "$timing" | jq ".$1")"; } &&
	test_grep "went from $(f base_median) to $(f cand_median) µs (+$(f delta) µs, +$(f delta_pct 1)%) in timing mode" flat &&
	test_grep "shows +$(printf %.0f "$(echo "$step" | jq .delta)") µs" flat &&
	test_grep "restores $(printf %.0f "$restored") µs of 91978" flat &&
	test_grep "^  $(echo $CULPRIT | cut -c1-12) culprit 49882 49882" body &&
	test_grep "bootgate bisect --tree" body &&
	test_grep "qemu-system-x86_64 -M pc" body &&
	grep -A1 "^Reported-by: bootgate robot <bootgate@ci.example.org>" body >tags &&
	test_grep "^Closes: https://ci.example.org/boot/bisection/1.html" tags &&
	test_grep "^Fixes: $(echo $CULPRIT | cut -c1-12) (\"tracing: make kprobe init wait Bcc: x@y\")" body &&
	sed "s/µ/u/g; s/→/>/g" body |
		awk "!/^(Fixes|Closes|Reported-by):/ && length(\$0) > 72 && NF > 1 && !/^ *\x27/" >long &&
	test ! -s long
'

test_expect_success 'one mail per culprit: a second outbox row makes none' '
	SQL "INSERT INTO outbox (kind, ref, body, created) VALUES ('\''bisection'\'', 1, '\''{}'\'', 0)" &&
	bootgate mail --config bootgate.yaml --send --json >out.json &&
	test_jq ".events[0].what == \"skipped\" and (.events[0].note | test(\"mailed already\"))" out.json &&
	test "$(SQL "SELECT count(*) FROM mails")" = 1 &&
	test "$(mails_with "bootgate-bisection-1-")" = 1
'

test_expect_success 'no mail for a failed bisection, an unknown one, a low confidence' '
	SQL "INSERT INTO bisections (id, tree_id, good, bad, board, mode, state, error, created) VALUES (2, 1, '\''$GOOD'\'', '\''$BAD'\'', '\''qemu-x86_64'\'', '\''deterministic'\'', '\''failed'\'', '\''infra'\'', 0);
	     INSERT INTO bisections (id, tree_id, good, bad, board, mode, metric, state, outcome, created) VALUES (3, 1, '\''$GOOD'\'', '\''$BAD'\'', '\''qemu-x86_64'\'', '\''deterministic'\'', '\''boot.init'\'', '\''done'\'', '\''unknown'\'', 0);
	     INSERT INTO bisections (id, tree_id, good, bad, board, mode, metric, state, outcome, culprit, confidence, created) VALUES (4, 1, '\''$GOOD'\'', '\''$BAD'\'', '\''qemu-x86_64'\'', '\''deterministic'\'', '\''boot.init'\'', '\''done'\'', '\''found'\'', '\''$BAD'\'', 0.6, 0);
	     INSERT INTO outbox (kind, ref, body, created) VALUES ('\''bisection'\'', 2, '\''{}'\'', 0), ('\''bisection'\'', 3, '\''{}'\'', 0), ('\''bisection'\'', 4, '\''{}'\'', 0);" &&
	bootgate mail --config bootgate.yaml --send >out &&
	test "$(SQL "SELECT count(*) FROM mails")" = 1 &&
	test "$(SQL "SELECT count(*) FROM outbox WHERE done IS NULL")" = 0 &&
	test "$(SQL "SELECT note FROM outbox WHERE ref = 2")" = "the bisection did not end" &&
	test "$(SQL "SELECT note FROM outbox WHERE ref = 3")" = "no culprit: the outcome is not '\''found'\''" &&
	test "$(SQL "SELECT note FROM outbox WHERE ref = 4")" = "confidence 0.600 is below the floor 0.900"
'

series_sql() {
	sid=$1 cover=$2 verdict2=$3
	echo "INSERT INTO series (id, tree_id, message_id, version, total, subject, author, source, base, board, mode, state, created) VALUES ($sid, 1, '$cover', 2, 3, '[PATCH v2 0/3] tracing: faster probes', 'Ada Lovelace <ada@example.org>', 'cli', '$GOOD', 'qemu-x86_64', 'deterministic', 'done', 0);"
	store_comparison $((10 + sid)) series 0 "$GOOD" "$CULPRIT" regression initcall.init_kprobe_trace \
		"1:${BASELINE}1.log 2:${BASELINE}2.log 3:${BASELINE}3.log" \
		"4:${REGRESSED}1.log 5:${REGRESSED}2.log 6:${REGRESSED}3.log"
	echo "INSERT INTO series_patches (series_id, idx, message_id, subject, author, mbox, status) VALUES ($sid, 0, '$cover', '[PATCH v2 0/3] tracing: faster probes', 'Ada Lovelace <ada@example.org>', 'x', NULL);"
	for i in 1 2 3; do
		v=same
		[ "$i" != 2 ] || v=$verdict2
		echo "INSERT INTO series_patches (series_id, idx, message_id, subject, author, mbox, status, comparison_id, verdict, metric, delta) VALUES ($sid, $i, 'p$i-$cover', '[PATCH v2 $i/3] tracing: step $i', 'Bob Builder <bob@example.org>', 'From: Bob Builder <bob@example.org>
Subject: [PATCH v2 $i/3] tracing: step $i

As discussed, cc: stranger@example.org
Cc: bystander@example.org

Cc: reviewer@example.org
Signed-off-by: Bob Builder <bob@example.org>
---
 kernel/trace/trace.c | 2 +-
diff --git a/kernel/trace/trace.c b/kernel/trace/trace.c
--- a/kernel/trace/trace.c
+++ b/kernel/trace/trace.c
@@ -1,3 +1,3 @@
 Cc: context@example.org
-x
+Cc: added@example.org
', 'applied', $((10 + sid)), '$v', 'initcall.init_kprobe_trace', $([ "$v" = regression ] && echo 49942 || echo 3));"
	done
	echo "INSERT INTO outbox (kind, ref, body, created) VALUES ('series', $sid, '{}', 0);"
}

test_expect_success 'a series reply answers the patch that made boot slower' '
	series_sql 1 "cover-1@example.org" regression | SQL &&
	bootgate mail --config bootgate.yaml --send >out &&
	test "$(mails_with "bootgate-series-1-2@")" = 1 &&
	headers_of "bootgate-series-1-2@" >h &&
	test_grep "^In-Reply-To: <p2-cover-1@example.org>\$" h &&
	test_grep "^References: <p2-cover-1@example.org>\$" h &&
	test_grep "^Subject: Re: \[PATCH v2 2/3\] tracing: step 2\$" h &&
	test_grep "Bob Builder <bob@example.org>" h &&
	test_grep "reviewer@example.org" h &&
	: only the trailers of its message: nobody from its text or its diff &&
	! grep -E "stranger|bystander|context@|added@" h &&
	f=$(grep -l "bootgate-series-1-2@" mails/*) &&
	tr -d "\r" <"$f" | sed "1,/^\$/d" >body &&
	test_grep "^Patch 2/3 made initcall.init_kprobe_trace slower" body &&
	test_grep "returned 0 after 92066 usecs" body &&
	test_grep "^  2/3 regression " body &&
	grep -A1 "^Reported-by:" body >tags &&
	test_grep "^Closes: https://ci.example.org/boot/series/1.html" tags
'

test_expect_success 'a Message-ID from the list is one quoted word of the repro command' '
	series_sql 3 "c3;\`touch pwned\`|\$x@example.org" regression | SQL &&
	bootgate mail --config bootgate.yaml --dry-run >out &&
	SQL "UPDATE outbox SET done = 0 WHERE kind = '\''series'\'' AND ref = 3" &&
	tr -d "\r" <out >body &&
	test_grep "b4 am '\''p2-c3;\`touch pwned\`|\$x@example.org'\'' &&" body
'

test_expect_success 'server down: the mail waits (attempts, error), then leaves once' '
	stop_sink &&
	series_sql 2 "cover-2@example.org" improvement | SQL &&
	test_exit_code 1 bootgate mail --config bootgate.yaml --send >out 2>err &&
	test_grep "wait" err &&
	test "$(SQL "SELECT attempts FROM mails WHERE about = '\''series 2'\''")" = 1 &&
	SQL "SELECT error FROM mails WHERE about = '\''series 2'\''" >error &&
	test_grep "127.0.0.1:$PORT" error &&
	sleep 1.2 &&
	test_exit_code 1 bootgate mail --config bootgate.yaml --send >out 2>err &&
	test "$(SQL "SELECT attempts FROM mails WHERE about = '\''series 2'\''")" = 2 &&
	test "$(SQL "SELECT not_before - strftime('\''%s'\'', '\''now'\'') > 1 FROM mails WHERE about = '\''series 2'\''")" = 1 &&
	test "$(mails_with "bootgate-series-2-")" = 0
'

test_expect_success 'the daemon sends it once the server is back, and serves status' '
	start_daemon &&
	sleep 3 &&
	bootgate status --db state/bootgate.db >status &&
	test "$(mails_with "bootgate-series-2-")" = 0 &&
	start_sink &&
	wait_sent "series 2" &&
	test "$(SQL "SELECT sent IS NOT NULL FROM mails WHERE about = '\''series 2'\''")" = 1 &&
	sleep 6 &&
	test "$(mails_with "bootgate-series-2-0@")" = 1 &&
	headers_of "bootgate-series-2-0@" >h &&
	test_grep "^In-Reply-To: <cover-2@example.org>" h &&
	bootgate status --db state/bootgate.db >status &&
	bootgate log --db state/bootgate.db >log &&
	test_grep "mail: the outbox is sent" log &&
	stop_daemon &&
	test "$(ls mails | wc -l)" = 3
'

test_expect_success 'the LAVA jobs of the boots a report rests on are listed, once each' '
	SQL "UPDATE boots SET job_url = '\''http://lava.example.org/scheduler/job/'\'' || id WHERE id IN (1, 4);
	     INSERT INTO bisections (id, tree_id, good, bad, board, mode, metric, state, outcome, culprit, confidence, created) VALUES (5, 1, '\''$GOOD'\'', '\''$BAD'\'', '\''qemu-x86_64'\'', '\''deterministic'\'', '\''boot.init'\'', '\''done'\'', '\''found'\'', '\''$CULPRIT'\'', 0.99, 0);
	     INSERT INTO bisection_commits VALUES (5, 0, '\''$GOOD'\''), (5, 1, '\''$CULPRIT'\''), (5, 2, '\''$BAD'\'');
	     INSERT INTO bisection_reports (bisection_id, seq, idx, kind, boot_id, value) VALUES (5, 0, 1, '\''value'\'', 4, 2), (5, 1, 0, '\''value'\'', 1, 1), (5, 2, 0, '\''value'\'', 2, 1), (5, 3, 2, '\''value'\'', 4, 2);
	     INSERT INTO outbox (kind, ref, body, created) VALUES ('\''bisection'\'', 5, '\''{}'\'', 0);" &&
	series_sql 4 "cover-4@example.org" regression | SQL &&
	bootgate mail --config bootgate.yaml --send >out &&
	body_of "bootgate-bisection-5-" >body &&
	test "$(grep -c "^Boots ran on" body)" = 1 &&
	grep -A2 "^Boots ran on" body >jobs &&
	printf "%s\n" "Boots ran on qemu-x86_64: http://lava.example.org/scheduler/job/4" \
		"http://lava.example.org/scheduler/job/1" "" >expect &&
	test_cmp expect jobs &&
	body_of "bootgate-series-4-" >sbody &&
	test_grep "^Boots ran on qemu-x86_64: http://lava.example.org/scheduler/job/1\$" sbody &&
	body_of "bootgate-bisection-1-" >old &&
	! grep -q "Boots ran on" old
'

test_done
