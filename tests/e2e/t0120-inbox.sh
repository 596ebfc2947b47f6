#!/bin/sh
# beside: t0150-lava-templates.sh
# Series from a list: a real public-inbox v2 inbox (Debian's public-inbox-init -V2, mail
# delivered by public-inbox-mda) that `bootgate inbox` follows as a lore mirror. A
# three-patch series with a cover letter arrives mail by mail with replies between and is
# a series only when its last patch is there; a rerun reads nothing twice; a v2 supersedes
# v1; a malformed mail is named and the rest read; the drop directory; and a
# `git clone --mirror` of the inbox's epoch read as an inbox of its own.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/lib-inbox.sh"

INBOX=$SCRATCH/lkml
DROP=$SCRATCH/drop
DB=$SCRATCH/state/bootgate.db
mkdir -p "$SCRATCH/state" "$DROP"

q() {
	sqlite3 -batch -noheader "$DB" "$1"
}

# write_conf FILE INBOX-PATH: the service's configuration with one tree and one inbox
write_conf() {
	cat >"$1" <<EOC
state: $SCRATCH/state
trees:
  - name: tracing
    url: git://127.0.0.1/linux-trace.git
    branch: for-next
    arches: [x86_64]
inboxes:
  - name: lkml
    path: $2
    tree: tracing
    poll: 10
drop:
  dir: $DROP
  tree: tracing
EOC
}

# post NAME: posts the mail file NAME (made by the helpers in lib-inbox.sh)
post() {
	post_mail lkml "$SCRATCH/$1"
}

V1='tracing: Make kprobe events init faster'

# Each case makes what it needs when an earlier case has not (TEST_ONLY=N runs one alone).
have_inbox() {
	[ -d "$INBOX" ] || make_inbox lkml "$INBOX" &&
	[ -f bootgate.yaml ] || write_conf bootgate.yaml "$INBOX"
}

# v1_mails: the files of v1, a reply among them
v1_mails() {
	cover_mail c1 cover1@goodmis.org - "[PATCH 0/3] $V1" &&
	patch_mail p1 p1.v1@goodmis.org cover1@goodmis.org "[PATCH 1/3] tracing: one" &&
	reply_mail r1 r1@kernel.org p1.v1@goodmis.org "Re: [PATCH 1/3] tracing: one" &&
	patch_mail p2 p2.v1@goodmis.org cover1@goodmis.org "[PATCH 2/3] tracing: two" &&
	patch_mail p3 p3.v1@goodmis.org cover1@goodmis.org "[PATCH 3/3] tracing: three"
}

# have_v1: the v1 series with its cover, posted mail by mail with a reply between, read
have_v1() {
	have_inbox &&
	v1_mails &&
	if [ ! -f "$DB" ] || [ "$(q "SELECT count(*) FROM series WHERE version = 1")" = 0 ]; then
		post c1 && post p1 && post r1 && post p2 && post p3 &&
		bootgate inbox --config bootgate.yaml >/dev/null
	fi
}

# have_v2: v2 in reply to v1's cover, a reply between its patches, read
have_v2() {
	have_v1 &&
	cover_mail c2 cover2@goodmis.org cover1@goodmis.org "[PATCH v2 0/2] $V1" &&
	patch_mail q1 p1.v2@goodmis.org cover2@goodmis.org "[PATCH v2 1/2] tracing: one" &&
	reply_mail r2 r2@kernel.org cover2@goodmis.org "Re: [PATCH v2 0/2] $V1" &&
	patch_mail q2 p2.v2@goodmis.org cover2@goodmis.org "[PATCH v2 2/2] tracing: two" &&
	if [ "$(q "SELECT count(*) FROM series WHERE version = 2")" = 0 ]; then
		post c2 && post q1 && post r2 && post q2 &&
		bootgate inbox --config bootgate.yaml >v2.out
	fi
}

test_expect_success 'an inbox made by public-inbox-init -V2 is read; a series waits for its last patch' '
	have_inbox &&
	v1_mails &&
	post c1 && post p1 && post r1 && post p2 &&
	test -d "$(inbox_epoch "$INBOX" 0)" &&
	bootgate inbox --config bootgate.yaml --json >out.json &&
	test_jq ".inboxes[0].messages == 4 and .inboxes[0].patches == 3 and
		 .inboxes[0].replies == 1 and (.inboxes[0].series | length) == 0" out.json &&
	test "$(q "SELECT count(*) FROM series")" = 0 &&
	post p3 &&
	bootgate inbox --config bootgate.yaml --json >out.json &&
	test_jq ".inboxes[0].messages == 1 and (.inboxes[0].series | length) == 1 and
		 .inboxes[0].series[0].version == 1 and .inboxes[0].series[0].total == 3 and
		 .inboxes[0].series[0].message_id == \"cover1@goodmis.org\"" out.json &&
	echo "inbox:lkml|1|3|queued|830b3c68c1fb1e9176028d02ef86f3cf76aa2476|[PATCH 0/3] $V1" >want &&
	q "SELECT source, version, total, state, base, subject FROM series" >got &&
	test_cmp want got &&
	test "$(q "SELECT group_concat(idx) FROM series_patches ORDER BY idx")" = "0,1,2,3" &&
	test "$(q "SELECT count(*) FROM jobs WHERE kind = '\''series'\'' AND state = '\''queued'\''")" = 1 &&
	test "$(q "SELECT length(patchset_hash) FROM series")" = 64
'

test_expect_success 'a second run reads nothing twice' '
	have_v1 &&
	bootgate inbox --config bootgate.yaml --json >out.json &&
	test_jq ".inboxes[0].messages == 0 and (.inboxes[0].series | length) == 0" out.json &&
	test "$(q "SELECT count(*) FROM series")" = 1 &&
	test "$(q "SELECT count(*) FROM inbox_messages")" = 4
'

test_expect_success 'a v2 posted later supersedes v1 and cancels its queued job' '
	have_v1 &&
	have_v2 &&
	test_grep "series 2: v2, 2 patches, \[PATCH v2 0/2\] $V1" v2.out &&
	test_grep "supersedes 1 older version" v2.out &&
	test "$(q "SELECT state || '\'' '\'' || superseded_by FROM series WHERE id = 1")" = "superseded 2" &&
	test "$(q "SELECT state || '\'': '\'' || error FROM jobs WHERE series_id = 1")" = "done: superseded by v2" &&
	test "$(q "SELECT state FROM jobs WHERE series_id = 2")" = queued
'

test_expect_success 'a malformed mail is named with its line, and the mails after it are read' '
	have_inbox &&
	printf "From: x@y\nTo: lkml@lists.test\nSubject: [PATCH 1/1000] absurd\nMessage-ID: <bad@y>\n\nx\n" >bad &&
	patch_mail solo solo@z.org - "[PATCH] printk: a single patch" "Jane <jane@z.org>" &&
	post bad && post solo &&
	bootgate inbox --config bootgate.yaml --json >out.json 2>err &&
	test_jq ".inboxes[0].malformed == 1 and (.inboxes[0].series | length) == 1 and
		 .inboxes[0].series[0].message_id == \"solo@z.org\"" out.json &&
	test_grep "git/0.git@[0-9a-f]\{12\}:3: patch 1/1000: a series of 1 to 999 patches" err
'

test_expect_success 'the drop directory: a series taken and moved to done/, a bad file to failed/' '
	have_inbox &&
	patch_mail d1 d1@z.org - "[PATCH 1/2] drop: one" "Jane <jane@z.org>" &&
	patch_mail d2 d2@z.org d1@z.org "[PATCH 2/2] drop: two" "Jane <jane@z.org>" &&
	{ echo "From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001" &&
	  cat d1 && echo && echo "From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001" &&
	  cat d2; } >"$DROP/series.mbox" &&
	printf "not a mail\n" >"$DROP/broken.eml" &&
	bootgate inbox --config bootgate.yaml --drop --json >out.json 2>err &&
	test_jq ".inboxes == [] and .drop.dropped == 1 and .drop.drop_failed == 1 and
		 .drop.series[0].source == \"drop:series.mbox\"" out.json &&
	test -f "$DROP/done/series.mbox" && test -f "$DROP/failed/broken.eml" &&
	echo "broken.eml:1: not a header line" >want &&
	test_cmp want "$DROP/failed/broken.eml.error" &&
	test "$(q "SELECT count(*) FROM series_patches WHERE series_id = (SELECT id FROM series WHERE source = '\''drop:series.mbox'\'')")" = 2
'

test_expect_success 'git clone --mirror of the epoch is an inbox too' '
	have_v2 &&
	git clone -q --mirror "$(inbox_epoch "$INBOX" 0)" mirror.git &&
	write_conf mirror.yaml "$SCRATCH/mirror.git" &&
	bootgate inbox --config mirror.yaml --inbox lkml --db mirror.db --json >mirror.json &&
	bootgate inbox --config bootgate.yaml --inbox lkml --db direct.db --json >direct.json &&
	test_jq ".inboxes[0].messages >= 9 and .inboxes[0].patches >= 7 and
		 (.inboxes[0].series | length) >= 2" mirror.json &&
	jq -c ".inboxes[0] | del(.name, .errors) | .series |= map(del(.source))" mirror.json >m &&
	jq -c ".inboxes[0] | del(.name, .errors) | .series |= map(del(.source))" direct.json >d &&
	test_cmp d m &&
	test "$(sqlite3 mirror.db "SELECT version || state FROM series ORDER BY id LIMIT 2" | tr "\n" " ")" = "1superseded 2queued "
'

test_expect_success 'bootgated follows the inbox; a trigger of its name reads it at once' '
	have_inbox &&
	sed "s/poll: 10$/poll: 86400/" bootgate.yaml >daemon.yaml &&
	{ exec "$ROOT/bin/bootgated" -f daemon.yaml >daemon.log 2>&1 & } &&
	pid=$! &&
	waited=0 &&
	while ! grep -q "started:" daemon.log; do
		if [ "$waited" -ge 100 ]; then cat daemon.log; return 1; fi &&
		sleep 0.1 && waited=$((waited + 1))
	done &&
	sleep 1 &&
	patch_mail t1 t1@z.org - "[PATCH] tracing: read by the daemon" "Jane <jane@z.org>" &&
	post t1 &&
	bootgate trigger --socket "$SCRATCH/state/bootgate.sock" lkml >trig &&
	waited=0 &&
	while [ "$(q "SELECT count(*) FROM series WHERE message_id = '\''t1@z.org'\''")" != 1 ]; do
		if [ "$waited" -ge 300 ]; then cat daemon.log; return 1; fi &&
		sleep 0.1 && waited=$((waited + 1))
	done &&
	test_note "the daemon read the triggered inbox within $waited tenths of a second" &&
	kill "$pid" && wait "$pid"
'

# many_mails DIR N: an epoch of N single-patch mails, written by git fast-import in
# public-inbox's layout (delivering thousands through public-inbox-mda would take an hour)
many_mails() {
	git init -q --bare "$1" &&
	git -C "$1" symbolic-ref HEAD refs/heads/master &&
	awk -v n="$2" "BEGIN {
		for (i = 1; i <= n; i++) {
			m = sprintf(\"From: Dev <dev%d@example.org>\\nSubject: [PATCH] x%d: change\\nMessage-ID: <k%d@example.org>\\n\\nx\\n---\\ndiff --git a/f b/f\\n\", i % 7, i, i)
			printf \"commit refs/heads/master\\ncommitter p <p@example.org> %d +0000\\ndata 1\\nx\\nM 100644 inline m\\ndata %d\\n%s\\n\", 1000000 + i, length(m), m
		}
	}" | git -C "$1" fast-import --quiet
}

test_expect_success 'killed with SIGKILL while reading, again and again: nothing lost, nothing twice' '
	many_mails big/git/0.git 12000 &&
	write_conf big.yaml "$SCRATCH/big" &&
	kills=0 && done_=no &&
	while [ "$done_" = no ]; do
		{ exec "$BOOTGATE" inbox --config big.yaml --inbox lkml --db big.db >/dev/null 2>&1 & } &&
		pid=$! &&
		if [ "$kills" -lt 40 ]; then sleep 0.$(( $(od -An -N1 -tu1 /dev/urandom) % 40 + 10 )); fi &&
		if [ "$kills" -lt 40 ] && kill -9 "$pid" 2>/dev/null; then
			kills=$((kills + 1))
		else
			done_=yes
		fi &&
		{ wait "$pid" || :; }
	done &&
	bootgate inbox --config big.yaml --inbox lkml --db big.db --json >out.json &&
	test_jq ".inboxes[0].messages == 0" out.json &&
	test "$(sqlite3 big.db "SELECT count(*) FROM inbox_messages")" = 12000 &&
	test "$(sqlite3 big.db "SELECT count(*), count(DISTINCT message_id) FROM series")" = "12000|12000" &&
	test "$(sqlite3 big.db "SELECT count(*) FROM jobs")" = 12000 &&
	test_note "killed $kills times before a read ran to its end"
'

# many_replies REPO N: a bare epoch of N replies, one commit each (no series to make)
many_replies() {
	git init -q --bare "$1" &&
	git -C "$1" symbolic-ref HEAD refs/heads/master &&
	awk -v n="$2" "BEGIN {
		for (i = 1; i <= n; i++) {
			m = sprintf(\"From: Dev <dev%d@example.org>\\nSubject: Re: x%d\\nMessage-ID: <r%d@example.org>\\n\\nx\\n\", i % 7, i, i)
			printf \"commit refs/heads/master\\ncommitter p <p@example.org> %d +0000\\ndata 1\\nx\\nM 100644 inline m\\ndata %d\\n%s\\n\", 1000000 + i, length(m), m
		}
	}" | git -C "$1" fast-import --quiet
}

# The first read of a long epoch (lore's hold 300 000 commits) once held every commit
# of it before its first batch: 590 MB of libgit2's walk and object cache for 300 000,
# 93 MB for 40 000. Under a 40 MB data limit (RLIMIT_DATA: the heap and anonymous maps,
# not the mapped pack), it is read to its end, the last batch a part one.
test_expect_success 'a first read of a long epoch: memory bounded by the batch, not by the epoch' '
	many_replies long/git/0.git 40001 &&
	write_conf long.yaml "$SCRATCH/long" &&
	(ulimit -d 40000 &&
	 bootgate inbox --config long.yaml --inbox lkml --db long.db --json >out.json) &&
	test_jq ".inboxes[0] | .messages == 40001 and .replies == 40001" out.json &&
	test "$(sqlite3 long.db "SELECT last_commit FROM inbox_cursors")" = \
		"$(git -C long/git/0.git rev-parse HEAD)" &&
	bootgate inbox --config long.yaml --inbox lkml --db long.db --json >out.json &&
	test_jq ".inboxes[0].messages == 0" out.json
'

test_expect_success 'hostile configuration and options: exit 2, said' '
	have_inbox &&
	test_exit_code 2 bootgate inbox --config bootgate.yaml --inbox nosuch 2>err &&
	test_grep "no inbox '\''nosuch'\''" err &&
	sed "s|path: .*lkml|path: $SCRATCH/missing|" bootgate.yaml >bad.yaml &&
	test_exit_code 2 bootgate inbox --config bad.yaml 2>err &&
	test_grep "bad.yaml:[0-9]*:[0-9]*: '\''path'\'': cannot read" err &&
	test_exit_code 2 bootgate inbox --bogus 2>err
'

test_done
