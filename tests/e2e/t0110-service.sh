#!/bin/sh
# The service, with real parts: bootgated watching a tracing tree served by a real git
# daemon on 127.0.0.1 (the cached 6.1 repository plus the 12 commits of
# scripts/scenario-tree.sh, the 7th of which makes init_blk_tracer() slower), real
# kernels built and booted. A push is detected, gated, bisected to the culprit and
# confirmed, while the daemon is killed (SIGKILL) at random moments and started again;
# then the post-receive hook, the webhook, a git server that stops, a bad configuration,
# a build worker killed mid-build, and a second tree that builds from the first's ccache.
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
# the daemon's mirrors and worktrees are kept between runs, apart from other tests'
MIRRORS=${BOOTGATE_CACHE:-/var/cache/bootgate}/mirrors

# jobs_for REV: how many jobs the store has for REV
jobs_for() {
	q "SELECT count(*) FROM jobs WHERE rev = '$1'"
}

# tree_field TREE COLUMN: the column of the tree's row in the store
tree_field() {
	q "SELECT $2 FROM trees WHERE name = '$1'"
}

write_conf() {
	tracing_conf >"$SCRATCH/bootgate.yaml"
	if [ -n "${PRINTK:-}" ]; then
		cat >>"$SCRATCH/bootgate.yaml" <<EOF
  - name: printk
    url: $(gitd_url)/printk.git
    branch: for-next
    reference: $TREE
    arches: [x86_64]
    mode: deterministic
EOF
	fi
}

start_daemon() {
	setsid "$BOOTGATED" -f "$SCRATCH/bootgate.yaml" >>"$SCRATCH/daemon.log" 2>&1 &
	echo $! >"$SCRATCH/daemon.pid"
	wait_for 30 '"$ROOT/bin/bootgate" trigger --socket "$SOCK" tracing >/dev/null 2>&1'
}

trap 'stop_daemon; stop_git_daemon; stop_sink; rm -rf "$SCRATCH"' EXIT

# a free port for the webhook
HOOK_PORT=$(free_port 32100 1000)
printf 'a shared secret\n' >"$SCRATCH/secret"
# the second tree starts cold: no mirror, no worktree, no build directory
rm -rf "$MIRRORS/printk.git" "${BOOTGATE_CACHE:-/var/cache/bootgate}"/work/printk.git-*

start_sink
start_git_daemon "$SCRATCH/served" >/dev/null
make_served_repo tracing.git >/dev/null
git -C "$SCRATCH/served/tracing.git" branch -q for-next master
write_conf

test_expect_success 'bootgated -n: the shipped configuration and this one are sound' '
	"$BOOTGATED" -n -f "$SCRATCH/bootgate.yaml" >out &&
	test_grep "1 trees, ok" out
'

test_expect_success 'bootgated -n: a bad configuration is refused with its line' '
	sed "s/mode: deterministic/mode: fast/" "$SCRATCH/bootgate.yaml" >bad.yaml &&
	line=$(grep -n "mode: fast" bad.yaml | cut -d: -f1) &&
	test_exit_code 2 "$BOOTGATED" -n -f bad.yaml 2>err &&
	test_grep "bad.yaml:$line:11: " err &&
	test_exit_code 2 "$BOOTGATED" -n -f /nonexistent.yaml 2>err &&
	test_grep "nonexistent.yaml" err
'

test_expect_success 'started: the tree is fetched and its tip becomes the baseline' '
	start_daemon &&
	wait_for 900 "[ \"\$(tree_field tracing last_good)\" = $BASE ]" &&
	"$ROOT/bin/bootgate" status >status &&
	test_grep "name=tracing" status &&
	"$ROOT/bin/bootgate" status --json | test_jq ".trees[0].last_good == \"$BASE\""
'

# Two kills here: t0170 kills the same flow twenty times, at each of its stages; five
# here cost some 30 s of the suite's longest lanes for what t0170 already shows.
test_expect_success 'a push: detected, gated, bisected and confirmed through 2 SIGKILLs' '
	git -C "$TREE" push -q "$SCRATCH/served/tracing.git" "$TIP:refs/heads/for-next" &&
	"$ROOT/bin/bootgate" trigger --socket "$SOCK" tracing "$TIP" >out &&
	test_grep "^ok" out &&
	wait_for 900 "[ \"\$(q \"SELECT count(*) FROM bisections\")\" = 1 ]" &&
	kills=0 &&
	while [ "$kills" -lt 2 ] &&
	      [ "$(q "SELECT count(*) FROM bisections WHERE state = '"'done'"'")" = 0 ]; do
		sleep $((3 + $(od -An -N1 -tu1 /dev/urandom) % 8)) &&
		kill -KILL "$(cat "$SCRATCH/daemon.pid")" &&
		kills=$((kills + 1)) &&
		echo "SIGKILL $kills at $(q "SELECT count(*) FROM bisection_reports") reports" \
			>>"$SCRATCH/kills" &&
		sleep 1 &&
		start_daemon || return 1
	done &&
	cat "$SCRATCH/kills" &&
	test_note "$(tr "\n" ";" <"$SCRATCH/kills")" &&
	test "$kills" = 2 &&
	wait_for 1800 "[ \"\$(q \"SELECT count(*) FROM bisections WHERE state = '"'done'"'\")\" = 1 ]" &&
	"$ROOT/bin/bootgate" show 1 >show &&
	cat show &&
	"$ROOT/bin/bootgate" show --json 1 >show.json &&
	test_jq ".culprit == \"$CULPRIT\" and .metric == \"initcall.$INITCALL\" and
		.confidence > 0.99 and .mode == \"deterministic\"" show.json &&
	test_jq ".confirmation.revert.applies == true" show.json &&
	test_jq ".confirmation.verdict == \"different\"" show.json
'

test_expect_success 'after the kills: each commit built once, no boot counted twice, no job lost' '
	test "$(q "SELECT count(*) FROM (SELECT commit_sha FROM builds WHERE reused = 0 AND
		status = '"'built'"' GROUP BY commit_sha, board HAVING count(*) > 1)")" = 0 &&
	test "$(q "SELECT count(*) FROM (SELECT 1 FROM bisection_reports WHERE boot_id IS NOT
		NULL GROUP BY bisection_id, idx, boot_id HAVING count(*) > 1)")" = 0 &&
	test "$(q "SELECT count(*) FROM (SELECT 1 FROM samples GROUP BY boot_id, metric
		HAVING count(*) > 1)")" = 0 &&
	test "$(q "SELECT count(*) FROM bisections")" = 1 &&
	test "$(q "SELECT count(*) FROM comparisons")" -ge 1 &&
	test "$(q "SELECT count(*) FROM comparisons c JOIN trees t ON t.id = c.tree_id")" = \
		"$(q "SELECT count(*) FROM comparisons")" &&
	test "$(q "SELECT count(*) FROM jobs WHERE state != '"'done'"'")" = 0 &&
	test "$(q "SELECT count(*) FROM outbox WHERE kind = '"'bisection'"'")" = 1
'

test_expect_success 'the culprit is mailed once, to the list, and its page is on the site' '
	short=$(echo "$CULPRIT" | cut -c1-12) &&
	wait_for 120 "[ \"\$(mails_with bootgate-bisection-1-)\" = 1 ]" &&
	headers_of bootgate-bisection-1- >h &&
	cat h &&
	test_grep "^Subject: \[tracing:for-next\] $short " h &&
	test_grep "initcall.$INITCALL" h &&
	test_grep "^To: linux-trace-kernel@vger.example.org" h &&
	body_of bootgate-bisection-1- >body &&
	test_grep "^Fixes: $short (" body &&
	test_grep "initcall $INITCALL+0x0/0x[0-9a-f]* returned 0 after" body &&
	grep -A1 "^Reported-by: bootgate <bootgate@ci.example.org>" body >tags &&
	test_grep "^Closes: file://$STATE/site/bisection/1.html" tags &&
	wait_for 60 "test -f \"$STATE/site/bisection/1.html\"" &&
	test_grep "$CULPRIT" "$STATE/site/bisection/1.html" &&
	jq -e ".culprit == \"$CULPRIT\"" "$STATE/site/bisection/1.json" >/dev/null &&
	test -f "$STATE/site/index.html" &&
	test "$(mails_with bootgate-bisection-1-)" = 1 &&
	test "$(ls "$SCRATCH"/mails | wc -l)" = 1 &&
	mkdir -p "$ROOT/build/test-artifacts" &&
	cp "$SCRATCH"/mails/* "$ROOT/build/test-artifacts/t0110-bisection-report.eml" &&
	test_note "the report as sent: build/test-artifacts/t0110-bisection-report.eml"
'

test_expect_success 'the post-receive hook of the git server triggers a fetch' '
	before=$(q "SELECT count(*) FROM events WHERE message LIKE '"'%fetch asked by the socket%'"'") &&
	cp "$ROOT/scripts/post-receive" "$SCRATCH/served/tracing.git/hooks/post-receive" &&
	git -C "$SCRATCH/served/tracing.git" config bootgate.tree tracing &&
	git -C "$SCRATCH/served/tracing.git" config bootgate.socket "$SOCK" &&
	git -C "$SCRATCH/served/tracing.git" config bootgate.program "$ROOT/bin/bootgate" &&
	c=$(new_commit "$TIP") &&
	git -C "$SCRATCH/scratch.git" push -q "$SCRATCH/served/tracing.git" \
		"$c:refs/heads/for-next" 2>push.err &&
	test_grep "will be fetched" push.err &&
	wait_for 60 "[ \"\$(jobs_for \$c)\" = 1 ]" &&
	after=$(q "SELECT count(*) FROM events WHERE message LIKE '"'%fetch asked by the socket%'"'") &&
	test "$after" -gt "$before"
'

test_expect_success 'a build worker killed mid-build: the job is tried again' '
	wait_for 600 "pgrep -f \"bootgate-build --tree $MIRRORS/tracing.git\" >/dev/null" &&
	pkill -KILL -f "bootgate-build --tree $MIRRORS/tracing.git" &&
	wait_for 120 "[ \"\$(q \"SELECT count(*) FROM events WHERE message LIKE '"'%ended with exit 1%again in%'"'\")\" -ge 1 ]" &&
	wait_for 900 "[ \"\$(q \"SELECT count(*) FROM jobs WHERE state != '"'done'"'\")\" = 0 ]" &&
	test "$(q "SELECT max(attempts) FROM jobs WHERE kind = '"'gate'"'")" -ge 2
'

sign() {
	printf '%s' "$1" | sh "$ROOT/scripts/webhook-sign.sh" "$SCRATCH/secret"
}

# post BODY SIGNATURE-HEADER...: the HTTP status of a POST to the webhook
post() {
	body=$1
	shift
	curl -s -o /dev/null -w "%{http_code}" "$@" -H "Content-Type: application/json" \
		--data-binary "$body" "http://127.0.0.1:$HOOK_PORT/hook/tracing"
}

hooked() {
	q "SELECT count(*) FROM events WHERE message LIKE '%fetch asked by webhook%'"
}

test_expect_success 'the webhook: a signed push is taken, others get 401 and nothing' '
	body="{\"ref\": \"refs/heads/for-next\", \"after\": \"$TIP\"}" &&
	before=$(hooked) &&
	test "$(post "$body" -H "X-Hub-Signature-256: $(sign "$body")")" = 202 &&
	wait_for 10 "[ \$(hooked) = $((before + 1)) ]" &&
	test "$(post "$body" -H "X-Hub-Signature-256: $(sign "x$body")")" = 401 &&
	test "$(post "$body")" = 401 &&
	other="{\"ref\": \"refs/heads/for-next\", \"after\": \"$BASE\"}" &&
	test "$(post "$other" -H "X-Hub-Signature-256: $(sign "$body")")" = 401 &&
	test "$(post "$body" -H "X-Hub-Signature-256: sha256=$(printf %064d 0)")" = 401 &&
	sleep 2 &&
	test "$(hooked)" = "$((before + 1))" &&
	test_grep "401" "$SCRATCH/daemon.log"
'

test_expect_success 'git daemon stopped: fetches fail and back off, the CLI answers' '
	stop_git_daemon &&
	"$ROOT/bin/bootgate" trigger --socket "$SOCK" tracing >/dev/null &&
	wait_for 60 "[ \"\$(tree_field tracing fetch_failures)\" -ge 2 ]" &&
	"$ROOT/bin/bootgate" status >status &&
	test_grep "fetch_failures=" status &&
	"$ROOT/bin/bootgate" log --tree tracing >log &&
	test_grep "fetch failed.*next try in" log &&
	start_git_daemon "$SCRATCH/served" >/dev/null
'

test_expect_success 'SIGHUP: a bad file keeps the old configuration; a good one is taken' '
	cp "$SCRATCH/bootgate.yaml" good.yaml &&
	printf "trees: nonsense\n" >>"$SCRATCH/bootgate.yaml" &&
	kill -HUP "$(cat "$SCRATCH/daemon.pid")" &&
	wait_for 20 "\"\$ROOT/bin/bootgate\" log | grep -q \"keeping the old configuration: .*bootgate.yaml:\"" &&
	write_conf &&
	kill -HUP "$(cat "$SCRATCH/daemon.pid")" &&
	wait_for 20 "\"\$ROOT/bin/bootgate\" log | grep -q \"configuration reloaded\"" &&
	"$ROOT/bin/bootgate" trigger --socket "$SOCK" tracing >/dev/null &&
	wait_for 120 "[ \"\$(tree_field tracing fetch_failures)\" = 0 ]"
'

test_expect_success 'a second tree of nearly the same source builds from the first'"'"'s ccache' '
	make_served_repo printk.git >/dev/null &&
	c=$(new_commit "$BASE") &&
	git -C "$SCRATCH/scratch.git" push -q "$SCRATCH/served/printk.git" "$c:refs/heads/for-next" &&
	PRINTK=1 write_conf &&
	kill -HUP "$(cat "$SCRATCH/daemon.pid")" &&
	wait_for 1200 "[ \"\$(tree_field printk last_good)\" = $c ]" &&
	q "SELECT ccache_hits, ccache_misses FROM builds WHERE reused = 0 ORDER BY id DESC LIMIT 1" >rate &&
	test_note "the second tree'"'"'s first build: ccache hits|misses $(cat rate)" &&
	hits=$(cut -d"|" -f1 rate) && misses=$(cut -d"|" -f2 rate) &&
	test "$hits" -gt $((9 * misses))
'

test_expect_success 'one daemon per state directory; a socket path that is a file is kept' '
	test_exit_code 1 "$BOOTGATED" -f "$SCRATCH/bootgate.yaml" 2>err &&
	test_grep "another bootgated (pid $(cat "$SCRATCH/daemon.pid")) runs on" err &&
	test -S "$SOCK" &&
	mkdir -p other &&
	echo precious >other/not-a-socket &&
	sed -e "s|^state: .*|state: $SCRATCH/other|" "$SCRATCH/bootgate.yaml" >other.yaml &&
	echo "socket: $SCRATCH/other/not-a-socket" >>other.yaml &&
	test_exit_code 1 "$BOOTGATED" -f other.yaml 2>err &&
	test_grep "there and not a socket" err &&
	test "$(cat other/not-a-socket)" = precious
'

stop_daemon
test_done
