#!/bin/sh
# Twenty SIGKILLs of bootgated, each followed by a restart, at moments the test waits for
# rather than hopes for: inside a schema migration of a large store of an older version,
# during a gate (one of them between a build and its record), during a bisection, and
# during the report (one of them between the server's acceptance of the mail and the
# store's mark). Then: the same culprit, every commit built at most once, every boot and
# sample counted once, the mail received once by the SMTP server, and a sound store. Its
# boots take one core: t0151 (LAVA) runs beside it (tests/run.sh).
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/lib-gitd.sh"
. "$ROOT/tests/e2e/lib-smtp.sh"
. "$ROOT/tests/e2e/lib-daemon.sh"

BOOTGATED=$ROOT/bin/bootgated
TREE=$(sh "$ROOT/scripts/kernel-repo.sh")
scenario_tree
STATE=$SCRATCH/state
DB=$STATE/bootgate.db
SOCK=$STATE/bootgate.sock
export BOOTGATE_STATE=$STATE BOOTGATE_JOB_BACKOFF=2
# no job of this test may fail: a wait for one that did ends at once
WAIT_ABORT=a_job_failed
MIRRORS=${BOOTGATE_CACHE:-/var/cache/bootgate}/mirrors
# boots of the old store: enough that migration 4's index takes seconds
OLD_BOOTS=${OLD_BOOTS:-800000}
# s the SMTP server holds its answer to a message it has already written
SINK_HOLD=8
KILLS=$SCRATCH/kills

# launch: starts bootgated, without waiting for it (a migration may come first)
launch() {
	setsid "$BOOTGATED" -f "$SCRATCH/bootgate.yaml" >>"$SCRATCH/daemon.log" 2>&1 &
	echo $! >"$SCRATCH/daemon.pid"
}

# answering: whether the daemon answers on its socket
answering() {
	"$ROOT/bin/bootgate" trigger --socket "$SOCK" tracing >/dev/null 2>&1
}

# sigkill PHASE WHAT: kills bootgated with SIGKILL, notes the moment, starts it again
sigkill() {
	kill -KILL "$(cat "$SCRATCH/daemon.pid")" &&
	echo "$1: $2" >>"$KILLS" &&
	while kill -0 "$(cat "$SCRATCH/daemon.pid")" 2>/dev/null; do sleep 0.1; done &&
	launch
}

# kills_in PHASE: how many kills the phase had
kills_in() {
	grep -c "^$1: " "$KILLS" || true
}

# phase NAME: notes when a phase starts; phases prints each one's seconds
phase() {
	echo "$1 $(date +%s)" >>"$SCRATCH/phases"
}

phases() {
	echo "end $(date +%s)" >>"$SCRATCH/phases" &&
	awk 'NR > 1 { printf "%s %d s; ", name, $2 - t } { name = $1; t = $2 }' "$SCRATCH/phases"
}

# rand N: 0..N-1
rand() {
	echo $(($(od -An -N2 -tu2 /dev/urandom) % $1))
}

# written PID: the bytes PID wrote so far (its I/O accounting)
written() {
	awk '$1 == "wchar:" { print $2 }' "/proc/$1/io" 2>/dev/null || echo 0
}

q_done() {
	q "SELECT count(*) FROM bisections WHERE state = 'done'"
}

# builds_of SHA [REUSED]: how many builds the store has of SHA (with reused = REUSED)
builds_of() {
	q "SELECT count(*) FROM builds WHERE commit_sha = '$1'${2:+ AND reused = $2}"
}

# boots_of SHA: how many boots the store has of SHA's image
boots_of() {
	q "SELECT count(*) FROM boots WHERE image_sha256 IN
		(SELECT image_sha256 FROM builds WHERE commit_sha = '$1')"
}

trap 'stop_daemon; stop_git_daemon; stop_sink; rm -rf "$SCRATCH"' EXIT

HOOK_PORT=$(free_port 32100 1000)
printf 'a shared secret\n' >"$SCRATCH/secret"
start_sink -W ".:$SINK_HOLD"
start_git_daemon "$SCRATCH/served" >/dev/null
make_served_repo tracing.git >/dev/null
git -C "$SCRATCH/served/tracing.git" branch -q for-next master
: >"$KILLS"
tracing_conf >"$SCRATCH/bootgate.yaml"
# the first case's: the mailer alone, on a store of its own
cat >m.yaml <<EOF
state: $SCRATCH/m
report:
  from: bootgate <b@ci.example.org>
  smtp: smtp://127.0.0.1:$SMTP_PORT
trees:
  - name: t
    url: git://127.0.0.1:1/t.git
    branch: main
    arches: [x86_64]
EOF

# due_mail N: an outbox row and its mail N (Message-ID mN@ci.example.org), due, in m.db
due_mail() {
	sqlite3 m.db "INSERT INTO outbox (kind, body, created, done) VALUES ('x', '{}', 0, 0);
		INSERT INTO mails (outbox_id, about, message_id, subject, mail_from, rcpt, message)
		VALUES ($1, 'about $1', 'm$1@ci.example.org', 's', 'b@ci.example.org',
		'c@example.org', 'Subject: s' || char(13, 10, 13, 10) || 'hi')"
}

test_expect_success 'mail --send: a SIGTERM between the send and the mark waits for it; one mail' '
	new_store m.db &&
	bootgate mail --config m.yaml --db m.db &&
	due_mail 1 &&
	{ "$BOOTGATE" mail --send --config m.yaml --db m.db >send.out 2>&1 & } &&
	pid=$! &&
	wait_for 30 "[ \"\$(ls \"$SCRATCH/mails\" | wc -l)\" = 1 ]" &&
	test_exit_code 1 bootgate mail --send --config m.yaml --db m.db 2>second.err &&
	test_grep "another .bootgate mail --send. holds .*m.db-mail.lock" second.err &&
	kill -TERM "$pid" &&
	wait_for 30 "! kill -0 $pid 2>/dev/null" &&
	test_grep "mail 1: sent <m1@ci.example.org> (try 1)" send.out &&
	test "$(sqlite3 m.db "SELECT count(*) FROM mails WHERE sent IS NOT NULL")" = 1 &&
	# the lease over: a mail cut short after the server took it would go again now
	sqlite3 m.db "UPDATE mails SET not_before = 0" &&
	bootgate mail --send --config m.yaml --db m.db &&
	test "$(ls "$SCRATCH/mails" | wc -l)" = 1 &&
	mkdir -p "$SCRATCH/mails-m" &&
	mv "$SCRATCH"/mails/* "$SCRATCH/mails-m/"
'

test_expect_success 'a store of schema 3 with many boots, SIGKILLed 3 times inside migration 4' '
	mkdir -p "$STATE" &&
	{ cat "$ROOT"/schemas/001-*.sql "$ROOT"/schemas/002-*.sql "$ROOT"/schemas/003-*.sql &&
	  echo "PRAGMA user_version = 3; PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;
		WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n
		WHERE i < $OLD_BOOTS) INSERT INTO boots (image_sha256, board, mode, outcome,
		created) SELECT hex(randomblob(32)), '"'qemu-x86_64'"', '"'deterministic'"',
		'"'complete'"', i FROM n;"; } | sqlite3 -batch "$DB" >/dev/null &&
	test "$(q "PRAGMA user_version")" = 3 &&
	q "SELECT count(*), sum(created), max(id) FROM boots" >before &&
	phase migration &&
	launch &&
	while [ "$(kills_in migration)" -lt 3 ]; do
		pid=$(cat "$SCRATCH/daemon.pid") &&
		start=$(written "$pid") &&
		waited=0 &&
		# a migration in a transaction: its pages go to the WAL, uncommitted, so the
		# version stays 3 for every other reader until the end
		while [ $(($(written "$pid") - start)) -lt 4000000 ]; do
			sleep 0.05 &&
			waited=$((waited + 1)) &&
			test "$waited" -lt 600 || return 1
		done &&
		mb=$((($(written "$pid") - start) / 1000000)) &&
		test "$(q "PRAGMA user_version")" = 3 &&
		sigkill migration "inside migration 4, $mb MB written, user_version still 3" ||
		return 1
	done &&
	wait_for 300 answering &&
	test "$(q "PRAGMA user_version")" = "$(ls "$ROOT"/schemas/[0-9][0-9][0-9]-*.sql | wc -l)" &&
	q "SELECT count(*), sum(created), max(id) FROM boots" >after &&
	test_cmp before after &&
	test "$(q "SELECT count(*) FROM boots WHERE console_mode = '"'verbose'"'")" = "$OLD_BOOTS" &&
	q "PRAGMA index_info(boots_by_image)" | cut -d"|" -f3 >cols &&
	printf "image_sha256\nboard\nmode\nconsole_mode\n" >expect &&
	test_cmp expect cols &&
	test "$(q "PRAGMA integrity_check")" = ok &&
	test_note "$(tr "\n" ";" <"$KILLS")" &&
	test_note "boots before and after: $(cat after)"
'

test_expect_success 'the tree is fetched and its tip becomes the baseline' '
	phase baseline &&
	wait_for 900 "[ \"\$(q \"SELECT last_good FROM trees WHERE name = '"'tracing'"'\")\" = $BASE ]"
'

test_expect_success 'a gate SIGKILLed between a build and its record, then at random' '
	phase gate &&
	tip=$(new_commit "$TIP") &&
	echo "$tip" >"$SCRATCH/tip" &&
	git -C "$SCRATCH/scratch.git" push -q "$SCRATCH/served/tracing.git" \
		"$tip:refs/heads/for-next" &&
	"$ROOT/bin/bootgate" trigger --socket "$SOCK" tracing "$tip" >out &&
	test_grep "^ok" out &&
	wait_for 900 "pgrep -f \"bootgate-build --tree $MIRRORS/tracing.git --commit $tip\" >pids" &&
	worker=$(head -1 pids) &&
	job=$(ps -o ppid= -p "$worker" | tr -d " ") &&
	tr "\0" " " <"/proc/$job/cmdline" >jobcmd &&
	test_grep " gate " jobcmd &&
	# the job stopped: the worker ends and waits to be read, its build not yet recorded
	kill -STOP "$job" &&
	wait_for 900 "ps -o stat= -p $worker | grep -q Z" &&
	test "$(builds_of "$tip")" = 0 &&
	sigkill gate "between the build of the new tip (worker $worker ended) and its record" &&
	# SIGTERM (its parent'"'"'s death signal) ends even a stopped process: nothing to go on
	{ kill -CONT "$job" 2>/dev/null || true; } &&
	while [ "$(kills_in gate)" -lt 4 ] &&
	      [ "$(q "SELECT count(*) FROM bisections")" = 0 ]; do
		sleep $((3 + $(rand 8))) &&
		sigkill gate "at random, $(boots_of "$tip") boots of the tip" ||
		return 1
	done &&
	test "$(kills_in gate)" -ge 2 &&
	wait_for 900 "[ \"\$(q \"SELECT count(*) FROM bisections\")\" = 1 ]" &&
	# its one build was the killed run'"'"'s: the next ones took its image
	test "$(builds_of "$tip" 0)" = 0 &&
	test "$(builds_of "$tip" 1)" -ge 1 &&
	test_note "$(grep "^gate: " "$KILLS" | tr "\n" ";")"
'

test_expect_success 'the bisection SIGKILLed at random moments until 17 kills in all' '
	phase bisection &&
	while [ "$(wc -l <"$KILLS")" -lt 17 ] && [ "$(q_done)" = 0 ]; do
		sleep $((3 + $(rand 8))) &&
		sigkill bisection "at random, $(q "SELECT count(*) FROM bisection_reports") reports" ||
		return 1
	done &&
	test "$(wc -l <"$KILLS")" = 17 &&
	test_note "$(grep "^bisection: " "$KILLS" | tr "\n" ";")"
'

test_expect_success 'the report SIGKILLed 3 times, first between the send and its mark' '
	wait_for 1800 "[ \"\$(q_done)\" = 1 ]" &&
	phase report &&
	# the sink wrote the message at its end and holds its 250: the mail is sent, not marked
	wait_for 300 "[ \"\$(ls \"$SCRATCH/mails\" | wc -l)\" -ge 1 ]" &&
	test "$(q "SELECT count(*) FROM mails WHERE sent IS NULL")" = 1 &&
	pgrep -P "$(cat "$SCRATCH/daemon.pid")" -f " mail --send " >child &&
	sigkill report "between the send and its mark: the server holds the message and its answer ($SINK_HOLD s), mails.sent NULL, the mail child $(cat child) the daemon'"'"'s" &&
	sleep "$(rand 3)" &&
	sigkill report "at random, $(q "SELECT count(*) FROM mails WHERE sent IS NULL") mails unsent" &&
	sleep "$(rand 3)" &&
	sigkill report "at random, $(q "SELECT count(*) FROM mails WHERE sent IS NULL") mails unsent" &&
	test "$(wc -l <"$KILLS")" = 20 &&
	test_note "$(grep "^report: " "$KILLS" | tr "\n" ";")"
'

test_expect_success 'after 20 kills: the culprit, builds and samples once, the mail once' '
	wait_for 300 "[ \"\$(q \"SELECT count(*) FROM mails WHERE sent IS NOT NULL\")\" = 1 ]" &&
	wait_for 300 answering &&
	echo "at the SMTP server: $(ls "$SCRATCH/mails" | wc -l) messages; in the store: $(q "SELECT count(*), sum(attempts) FROM mails") mails|tries" &&
	"$ROOT/bin/bootgate" show --json 1 >show.json &&
	test_jq ".culprit == \"$CULPRIT\" and .metric == \"initcall.$INITCALL\"" show.json &&
	test "$(q "SELECT count(*) FROM (SELECT 1 FROM builds WHERE reused = 0 AND
		status = '"'built'"' GROUP BY commit_sha, board HAVING count(*) > 1)")" = 0 &&
	test "$(q "SELECT count(*) FROM (SELECT 1 FROM bisection_reports WHERE boot_id IS NOT
		NULL GROUP BY bisection_id, idx, boot_id HAVING count(*) > 1)")" = 0 &&
	test "$(q "SELECT count(*) FROM (SELECT 1 FROM samples GROUP BY boot_id, metric
		HAVING count(*) > 1)")" = 0 &&
	test "$(q "SELECT count(*) FROM outbox WHERE kind = '"'bisection'"'")" = 1 &&
	test "$(q "SELECT count(*) FROM mails")" = 1 &&
	test "$(mails_with bootgate-bisection-1-)" = 1 &&
	test "$(ls "$SCRATCH/mails" | wc -l)" = 1 &&
	test "$(q "PRAGMA integrity_check")" = ok &&
	test_note "seconds: $(phases)" &&
	test_note "kills: migration $(kills_in migration), gate $(kills_in gate), bisection $(kills_in bisection), report $(kills_in report)" &&
	test_note "builds: $(q "SELECT count(*) FROM builds WHERE reused = 0") made, $(q "SELECT count(*) FROM builds WHERE reused = 1") reused; boots: $(q "SELECT count(*) FROM boots WHERE created > $OLD_BOOTS"); samples: $(q "SELECT count(*) FROM samples"); mails at the SMTP server: $(ls "$SCRATCH/mails" | wc -l)"
'

stop_daemon
test_done
