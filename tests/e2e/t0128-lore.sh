#!/bin/sh
# A series from a list, end to end, with real parts only: a public-inbox v2 inbox
# (public-inbox-init -V2, mail delivered by public-inbox-mda) that bootgated follows like
# a lore mirror, the scenario-tracing tree served by git daemon, real kernels, postfix's
# smtp-sink on 127.0.0.1. The seed-style series of tests/fixtures/series is posted as a
# v1 and then a v2; the daemon supersedes v1 before building it, measures v2 patch by
# patch, replies once, to the patch that made boot slower, and puts the series on the
# site its Closes: names.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/lib-gitd.sh"
. "$ROOT/tests/e2e/lib-smtp.sh"
. "$ROOT/tests/e2e/lib-inbox.sh"
. "$ROOT/tests/e2e/lib-daemon.sh"

BOOTGATED=$ROOT/bin/bootgated
TREE=$(sh "$ROOT/scripts/kernel-repo.sh")
scenario_tree
STATE=$SCRATCH/state
DB=$STATE/bootgate.db
SOCK=$STATE/bootgate.sock
INBOX=$SCRATCH/lkml
V2=$(series_fixture tracing-v2.mbox "$TIP")
export BOOTGATE_STATE=$STATE BOOTGATE_JOB_BACKOFF=2

trap 'stop_daemon; stop_git_daemon; stop_sink; rm -rf "$SCRATCH"' EXIT

# split MBOX PREFIX: each message of MBOX into PREFIX.N (1-based), without its From_ line
split_mbox() {
	awk -v p="$2" '/^From [0-9a-f]+ Mon Sep 17 00:00:00 2001$/ { n++; next }
		{ print > (p "." n) }' "$1"
}

start_sink
start_git_daemon "$SCRATCH/served" >/dev/null
make_served_repo tracing.git >/dev/null
git -C "$TREE" push -q "$SCRATCH/served/tracing.git" "$TIP:refs/heads/for-next"
make_inbox lkml "$INBOX"
cat >"$SCRATCH/bootgate.yaml" <<EOF
state: $STATE
poll: 3600
report:
  from: "bootgate <bootgate@ci.example.org>"
  smtp: smtp://127.0.0.1:$SMTP_PORT
  site-url: https://ci.example.org/boot
trees:
  - name: tracing
    url: $(gitd_url)/tracing.git
    branch: for-next
    reference: $TREE
    arches: [x86_64]
    mode: deterministic
    mail:
      to: ["linux-trace-kernel@vger.example.org"]
      send: list
inboxes:
  - name: lkml
    path: $INBOX
    tree: tracing
    poll: 3600
EOF

# v1: the same patches a week earlier, without the version in their subjects and ids
sed -e 's/\[PATCH v2 /[PATCH /' -e 's/cover\.1770711240\./cover.1770106440./' \
	-e 's/<20260210/<20260203/' -e 's/Tue, 10 Feb 2026/Tue, 3 Feb 2026/' "$V2" >v1.mbox
split_mbox v1.mbox v1
split_mbox "$V2" v2

test_expect_success 'v1 then v2 posted to the list; one read supersedes v1 before any build' '
	test "$(ls v1.? v2.? | wc -l)" = 8 &&
	for i in 1 2 3 4; do post_mail lkml "v1.$i" || return 1; done &&
	for i in 1 2 3 4; do post_mail lkml "v2.$i" || return 1; done &&
	{ setsid "$BOOTGATED" -f "$SCRATCH/bootgate.yaml" >>"$SCRATCH/daemon.log" 2>&1 & } &&
	echo $! >"$SCRATCH/daemon.pid" &&
	wait_for 30 "\"\$ROOT/bin/bootgate\" trigger --socket \"$SOCK\" lkml >/dev/null 2>&1" &&
	wait_for 120 "[ \"\$(q \"SELECT count(*) FROM series\")\" = 2 ]" &&
	q "SELECT version, state, coalesce(superseded_by, 0) FROM series ORDER BY id" >got &&
	printf "%s\n" "1|superseded|2" >want &&
	head -1 got >got1 &&
	test_cmp want got1 &&
	test "$(q "SELECT count(*) FROM jobs WHERE series_id = 1 AND state = '"'done'"'")" = 1
'

test_expect_success 'v2 measured patch by patch: same, improvement, regression' '
	wait_for 1800 "[ \"\$(q \"SELECT state FROM series WHERE version = 2\")\" = done ]" &&
	q "SELECT idx, status, verdict FROM series_patches WHERE idx > 0 AND series_id =
	   (SELECT id FROM series WHERE version = 2) ORDER BY idx" >got &&
	printf "%s\n" "1|applied|same" "2|applied|improvement" "3|applied|regression" >want &&
	test_cmp want got &&
	test "$(q "SELECT metric FROM series_patches WHERE idx = 3 AND series_id =
		(SELECT id FROM series WHERE version = 2)")" = initcall.init_kprobe_trace &&
	test "$(q "SELECT state FROM series WHERE version = 1")" = superseded &&
	test "$(q "SELECT count(*) FROM series_patches WHERE commit_sha IS NOT NULL AND
		series_id = (SELECT id FROM series WHERE version = 1)")" = 0 &&
	test "$(q "SELECT count(*) FROM jobs WHERE kind = '"'series'"' AND state != '"'done'"'")" = 0
'

test_expect_success 'one reply, threaded under the patch that made boot slower' '
	wait_for 120 "[ \"\$(mails_with \"^X-Bootgate-Kind: series\")\" = 1 ]" &&
	headers_of "^X-Bootgate-Kind: series" >h &&
	cat h &&
	test_grep "^Subject: Re: \[PATCH v2 3/3\] tracing/kprobes: Let patched code" h &&
	test_grep "^In-Reply-To: <202602100917.3-mira.okafor@example.org>" h &&
	test_grep "^References: .*<202602100917.3-mira.okafor@example.org>" h &&
	test_grep "linux-trace-kernel@vger.example.org" h &&
	test_grep "mira.okafor@example.org" h &&
	body_of "^X-Bootgate-Kind: series" >body &&
	cat body &&
	test_grep "initcall init_kprobe_trace+0x0/0x[0-9a-f]* returned 0 after [0-9]* usecs" body &&
	id=$(q "SELECT id FROM series WHERE version = 2") &&
	grep -A1 "^Reported-by: bootgate <bootgate@ci.example.org>" body >tags &&
	test_grep "^Closes: https://ci.example.org/boot/series/$id.html" tags &&
	test "$(ls "$SCRATCH"/mails | wc -l)" = 1 &&
	mkdir -p "$ROOT/build/test-artifacts" &&
	cp "$SCRATCH"/mails/* "$ROOT/build/test-artifacts/t0128-series-reply.eml" &&
	test_note "the reply as sent: build/test-artifacts/t0128-series-reply.eml"
'

test_expect_success 'the site has the series page the mail links to, its JSON beside it' '
	id=$(q "SELECT id FROM series WHERE version = 2") &&
	wait_for 120 "grep -q regression \"$STATE/site/series/$id.html\" 2>/dev/null" &&
	jq -e ".patches | length >= 3" "$STATE/site/series/$id.json" >/dev/null &&
	test_grep "Let patched code" "$STATE/site/series/$id.html" &&
	test -f "$STATE/site/index.html"
'

test_done
