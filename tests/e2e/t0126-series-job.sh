#!/bin/sh
# beside: t0110-service.sh
# bootgated runs series jobs as `bootgate series --id N` children: a series superseded
# while its job waited is skipped without a build; a series that fails ends its job once
# (no retry: its result is the report) with one outbox row. A small repository served by
# a real git daemon on 127.0.0.1 stands in for the tree: nothing in it is a kernel, so
# no kernel is built, and the cache is this test's own.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/lib-gitd.sh"
. "$ROOT/tests/e2e/lib-daemon.sh"

BOOTGATED=$ROOT/bin/bootgated
STATE=$SCRATCH/state
DB=$STATE/bootgate.db
SOCK=$STATE/bootgate.sock
export BOOTGATE_STATE=$STATE BOOTGATE_CACHE=$SCRATCH/cache BOOTGATE_JOB_BACKOFF=1

start_daemon() {
	setsid "$BOOTGATED" -f bootgate.yaml >>daemon.log 2>&1 &
	echo $! >daemon.pid
}

trap 'stop_daemon; stop_git_daemon; rm -rf "$SCRATCH"' EXIT

git init -q -b master small &&
	mkdir -p small/kernel/trace &&
	echo one >small/kernel/trace/blktrace.c &&
	git -C small add . &&
	git -C small -c user.name=t -c user.email=t@localhost commit -q -m first
start_git_daemon "$SCRATCH/served" >/dev/null
GITD_SOURCE=$SCRATCH/small make_served_repo small.git >/dev/null
cat >bootgate.yaml <<EOF
state: $STATE
poll: 3600
trees:
  - name: small
    url: $(gitd_url)/small.git
    branch: master
    arches: [x86_64]
    mode: deterministic
EOF

# one patch mail that applies to the small tree
cat >one.mbox <<'EOF'
From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001
Message-ID: <one.1@example.org>
From: Mira Okafor <mira.okafor@example.org>
Date: Tue, 10 Feb 2026 09:15:00 +0100
Subject: [PATCH] blktrace: two

Signed-off-by: Mira Okafor <mira.okafor@example.org>
---
diff --git a/kernel/trace/blktrace.c b/kernel/trace/blktrace.c
--- a/kernel/trace/blktrace.c
+++ b/kernel/trace/blktrace.c
@@ -1 +1 @@
-one
+two
-- 
2.39.5
EOF

test_expect_success 'the daemon starts on the small tree and gates its tip' '
	start_daemon &&
	wait_for 30 "test \"\$(q \"SELECT count(*) FROM jobs WHERE kind = '"'gate'"' AND state IN ('"'done'"', '"'failed'"')\" 2>/dev/null)\" = 1"
'

test_expect_success 'a superseded series: its job is skipped, nothing built' '
	tree=$(q "SELECT id FROM trees WHERE name = '"'small'"'") &&
	q "INSERT INTO series (tree_id, message_id, total, subject, source, state, created)
		VALUES ($tree, '"'old@example.org'"', 1, '"'[PATCH] old'"', '"'cli'"', '"'superseded'"', 0);
	   INSERT INTO jobs (kind, tree_id, series_id, created) VALUES ('"'series'"', $tree, 1, 0)" &&
	builds=$(q "SELECT count(*) FROM builds") &&
	"$ROOT/bin/bootgate" trigger --socket "$SOCK" small >/dev/null &&
	wait_for 30 "test \"\$(q \"SELECT state || error FROM jobs WHERE series_id = 1\")\" = donesuperseded" &&
	test "$(q "SELECT count(*) FROM builds")" = "$builds" &&
	test "$(q "SELECT coalesce(finished, '"'none'"') FROM series WHERE id = 1")" = none &&
	test_grep "series 1 superseded: job" daemon.log
'

test_expect_success 'a series that fails ends its job once, with one outbox row' '
	tree=$(q "SELECT id FROM trees WHERE name = '"'small'"'") &&
	test_exit_code 1 "$ROOT/bin/bootgate" series --tree small --arch x86_64 --json one.mbox \
		>direct.json 2>err &&
	test_jq ".state == \"failed\" and .patches[0].status == \"applied\"" direct.json &&
	q "INSERT INTO series (tree_id, message_id, total, subject, source, created)
		VALUES ($tree, '"'two@example.org'"', 1, '"'[PATCH] two'"', '"'inbox:test'"', 0);
	   INSERT INTO series_patches (series_id, idx, message_id, subject, mbox)
		SELECT 3, 1, '"'one.1@example.org'"', subject, mbox FROM series_patches
		WHERE series_id = 2 AND idx = 1;
	   INSERT INTO jobs (kind, tree_id, series_id, created) VALUES ('"'series'"', $tree, 3, 0)" &&
	"$ROOT/bin/bootgate" trigger --socket "$SOCK" small >/dev/null &&
	wait_for 60 "test \"\$(q \"SELECT state FROM jobs WHERE series_id = 3\")\" = done" &&
	test "$(q "SELECT attempts FROM jobs WHERE series_id = 3")" = 1 &&
	test "$(q "SELECT state FROM series WHERE id = 3")" = failed &&
	q "SELECT error FROM series WHERE id = 3" >error &&
	test_grep "^its base [0-9a-f]\{12\} does not build$" error &&
	test "$(q "SELECT count(*) FROM outbox WHERE kind = '"'series'"' AND ref = 3")" = 1 &&
	# it ran in the mirror, on the branch, with the tree'"'"'s board and mode
	test "$(q "SELECT board || '"' '"' || mode FROM series WHERE id = 3")" = "qemu-x86_64 deterministic" &&
	test "$(q "SELECT base FROM series WHERE id = 3")" = "$(git -C small rev-parse master)" &&
	test_grep "^series: series 3: \[PATCH\] two (1 patch)" "$STATE/jobs/$(q "SELECT id FROM jobs WHERE series_id = 3").log"
'

test_done
