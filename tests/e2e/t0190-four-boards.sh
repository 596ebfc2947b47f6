#!/bin/sh
# One tree on four boards: the three QEMU arches (x86_64, arm64, ppc64le) and the LAVA
# lab's x86_64 board, with real kernels from the cached repository. A push is gated on
# all four; its commit makes arm64's topology_init() (arch/arm64/kernel/setup.c, built
# for arm64 alone) 30 ms slower, so arm64 alone reads a regression, which is bisected
# on arm64 alone and mailed with the other boards' verdicts. The gates watch the
# initcalls: boot.userspace moves by some 15 us between boots of one image even in
# deterministic mode, and two boots a side then say "unknown", not "pass". The commits
# have fixed dates: the same ids every run, whose images the cache keeps.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/lib-lava.sh"
. "$ROOT/tests/e2e/lib-gitd.sh"
. "$ROOT/tests/e2e/lib-daemon.sh"
. "$ROOT/tests/e2e/lib-smtp.sh"

BOOTGATED=$ROOT/bin/bootgated
TREE=$(sh "$ROOT/scripts/kernel-repo.sh")
STATE=$SCRATCH/state
DB=$STATE/bootgate.db
SOCK=$STATE/bootgate.sock
LAB=$SCRATCH/lab
ART_PORT=$(free_port 34100 1000)
export BOOTGATE_STATE=$STATE BOOTGATE_JOB_BACKOFF=2 BOOTGATE_LAB=$LAB
WAIT_ABORT=a_job_failed

trap 'stop_daemon; stop_git_daemon; stop_sink; lava_stop; rm -rf "$SCRATCH"' EXIT

# the planted commit, on master, made the same way every run, in a scratch repository
# that borrows the cached one's objects (the cache is not written)
plant() {
	r=$SCRATCH/scratch.git f=arch/arm64/kernel/setup.c
	export GIT_AUTHOR_DATE="2026-01-01T00:00:00Z" GIT_COMMITTER_DATE="2026-01-01T00:00:00Z"
	git clone -q --bare --shared "$TREE" "$r" &&
	GIT_INDEX_FILE=$SCRATCH/.index git -C "$r" read-tree master &&
	blob=$(git -C "$r" cat-file -p "master:$f" |
		sed "/^static int __init topology_init(void)$/,/^}/s/^\treturn 0;$/\tmdelay(30);\n\treturn 0;/" |
		git -C "$r" hash-object -w --stdin) &&
	GIT_INDEX_FILE=$SCRATCH/.index git -C "$r" update-index --cacheinfo "100644,$blob,$f" &&
	t=$(GIT_INDEX_FILE=$SCRATCH/.index git -C "$r" write-tree) &&
	echo "arm64: topology_init waits 30 ms" | git -C "$r" -c user.name=t \
		-c user.email=t@localhost commit-tree "$t" -p master
}

# verdict BOARD: the gate's verdict of the planted commit on BOARD
verdict() {
	q "SELECT verdict FROM comparisons WHERE role = 'gate' AND cand = '$TIP' AND board = '$1'"
}

test_expect_success 'a tree on four boards is served and configured' '
	BASE=$(git -C "$TREE" rev-parse master) &&
	TIP=$(plant) &&
	git -C "$SCRATCH/scratch.git" show "$TIP" | grep -q "^+	mdelay(30);" &&
	echo "$BASE $TIP" >"$SCRATCH/revs" &&
	lava_start &&
	cp -R "$ROOT/lab-configs" "$LAB" &&
	sed -i -e "s|^lava_url: .*|lava_url: $LAVA_URL|" \
		-e "s|^lava_token_file: .*|lava_token_file: $LAVA_TOKEN_FILE|" \
		-e "s|^artifact_url: .*|artifact_url: http://127.0.0.1:$ART_PORT|" \
		"$LAB/boards/lava-qemu-x86_64.yaml" &&
	start_git_daemon "$SCRATCH/served" >/dev/null &&
	make_served_repo four.git >/dev/null &&
	start_sink &&
	cat >"$SCRATCH/bootgate.yaml" <<-EOF &&
	state: $STATE
	limits:
	  builds: 2
	  boots: 4
	poll: 3600
	artifacts:
	  listen: 127.0.0.1:$ART_PORT
	report:
	  from: "bootgate <bootgate@ci.example.org>"
	  smtp: smtp://127.0.0.1:$SMTP_PORT
	trees:
	  - name: four
	    url: $(gitd_url)/four.git
	    branch: master
	    reference: $TREE
	    arches: [x86_64, arm64, ppc64le]
	    boards: [lava-qemu-x86_64]
	    mode: deterministic
	    metrics: ["initcall.*"]
	    mail:
	      to: ["linux-arm-kernel@lists.example.org"]
	      send: list
	EOF
	"$BOOTGATED" -n -f "$SCRATCH/bootgate.yaml" >out &&
	test_grep "four: gated on lava-qemu-x86_64 (lava) qemu-x86_64 qemu-arm64 qemu-ppc64le" out
'
read -r BASE TIP <"$SCRATCH/revs" 2>/dev/null || true

start_daemon() {
	setsid "$BOOTGATED" -f "$SCRATCH/bootgate.yaml" >>"$SCRATCH/daemon.log" 2>&1 &
	echo $! >"$SCRATCH/daemon.pid"
}

test_expect_success 'the base is the baseline of each of the four boards' '
	start_daemon &&
	wait_for 1800 "[ \"\$(q \"SELECT count(*) FROM tree_boards WHERE last_good = '"'$BASE'"'\")\" = 4 ]"
'

test_expect_success 'the push is gated on all four: arm64 a regression, the others pass' '
	date +%s >"$SCRATCH/pushed" &&
	git -C "$SCRATCH/scratch.git" push -q "$SCRATCH/served/four.git" "$TIP:refs/heads/master" &&
	"$ROOT/bin/bootgate" trigger --socket "$SOCK" four "$TIP" >/dev/null &&
	wait_for 1800 "[ \"\$(q \"SELECT count(*) FROM comparisons WHERE role = '"'gate'"' AND cand = '"'$TIP'"'\")\" = 4 ]" &&
	for b in lava-qemu-x86_64 qemu-x86_64 qemu-arm64 qemu-ppc64le; do
		echo "$b $(verdict "$b")"
	done >verdicts &&
	test_note "$(tr "\n" ";" <verdicts)" &&
	cat >expect <<-EOF &&
	lava-qemu-x86_64 pass
	qemu-x86_64 pass
	qemu-arm64 regression
	qemu-ppc64le pass
	EOF
	test_cmp expect verdicts &&
	test "$(q "SELECT metric FROM comparisons WHERE role = '"'gate'"' AND cand = '"'$TIP'"' AND board = '"'qemu-arm64'"'")" = initcall.topology_init &&
	test_note "the gate of the tip took $(($(date +%s) - $(cat "$SCRATCH/pushed"))) s on four boards"
'

test_expect_success 'bisected on arm64 alone; the mail names it and the others pass' '
	wait_for 1800 "[ \"\$(q \"SELECT count(*) FROM bisections WHERE state = '"'done'"'\")\" = 1 ]" &&
	test "$(q "SELECT count(*) FROM bisections")" = 1 &&
	test "$(q "SELECT board || \" \" || metric || \" \" || culprit FROM bisections")" = \
		"qemu-arm64 initcall.topology_init $TIP" &&
	wait_for 300 "[ \"\$(mails_with bootgate-bisection-1-)\" = 1 ]" &&
	m=$(grep -l "bootgate-bisection-1-" "$SCRATCH"/mails/*) &&
	# the subject is folded: its lines joined
	cp "$m" "$ROOT/build/test-artifacts/t0190-bisection-report.eml" &&
	tr -d "\r" <"$m" | sed "/^$/q" | sed -n "/^Subject:/,/^[^ S]/p" | tr -d "\n" >subject &&
	test_grep "initcall.topology_init +[23][0-9][0-9][0-9][0-9] .* boot-time regression on qemu-arm64" subject &&
	# the boards whose gates had ended when the bisection did: the x86_64 ones, gated
	# before arm64 (ppc64le may still be booting)
	tr -d "\r" <"$m" | sed -n "s/^other boards: //p" >others &&
	test_grep "^lava-qemu-x86_64 pass, \(qemu-ppc64le pass, \)\?qemu-x86_64 pass$" others &&
	# the two x86_64 boards boot one image of the tip
	test "$(q "SELECT count(DISTINCT image_sha256) FROM builds WHERE commit_sha = '"'$TIP'"' AND board IN ('"'qemu-x86_64'"', '"'lava-qemu-x86_64'"') AND status = '"'built'"'")" = 1 &&
	test_note "builds of the tip: $(q "SELECT board || \" \" || reused FROM builds WHERE commit_sha = '"'$TIP'"' ORDER BY id" | tr "\n" ";")"
'

stop_daemon
test_done
