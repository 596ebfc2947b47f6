#!/bin/sh
# beside: t0161-perf.sh
# scripts/scenario-tree.sh --scenario on the cached kernel repository, without building
# anything: the three seed branches (24 commits, the culprit at its position, each commit
# in its own part of the tree), their reruns, bad arguments, and the tracing fix series,
# read by bootgate series and applied by git am on the seed-tracing tip.
. "$(dirname "$0")/lib.sh"

TREE=$(sh "$ROOT/scripts/kernel-repo.sh")
SERIES=$ROOT/scripts/scenario-tree/seed-tracing-fix/series.mbox

# seed NAME: makes seed-NAME (or finds it made), its output in NAME.out
seed() {
	sh "$ROOT/scripts/scenario-tree.sh" --scenario "$1" >"$1.out" 2>"$1.err"
}

# field NAME KEY: a line of seed NAME's output
field() {
	sed -n "s/^$2 //p" "$1.out"
}

# touched REV: the paths REV changes, one a line
touched() {
	git -C "$TREE" diff-tree --no-commit-id --name-only -r "$1"
}

# check_branch NAME POSITION METRIC PART CULPRIT_FILES: the output's fields; 24 commits
# on master, one after the other; the culprit at POSITION changes CULPRIT_FILES (a
# regular expression every path it changes matches); every commit changes paths under
# PART only, the others each one line of one C file's string; six authors
check_branch() {
	seed "$1" &&
	base=$(git -C "$TREE" rev-parse master) &&
	test "$(field "$1" branch)" = "seed-$1" &&
	test "$(field "$1" base)" = "$base" &&
	test "$(field "$1" tip)" = "$(git -C "$TREE" rev-parse "seed-$1")" &&
	test "$(field "$1" commits)" = 24 &&
	test "$(field "$1" position)" = "$2" &&
	test "$(field "$1" metric)" = "$3" &&
	test "$(git -C "$TREE" rev-list --count "master..seed-$1")" = 24 &&
	test "$(git -C "$TREE" rev-list --count --merges "master..seed-$1")" = 0 &&
	test "$(git -C "$TREE" rev-parse "seed-$1~24")" = "$base" &&
	culprit=$(field "$1" culprit) &&
	test "$(git -C "$TREE" rev-parse "seed-$1~$((24 - $2))")" = "$culprit" &&
	touched "$culprit" >culprit.paths &&
	test -s culprit.paths &&
	! grep -Ev "$5" culprit.paths &&
	git -C "$TREE" rev-list "master..seed-$1" >revs &&
	while read -r rev; do
		touched "$rev" >paths &&
		test -s paths &&
		! grep -v "^$4" paths || return 1
		git -C "$TREE" log -1 --format=%B "$rev" >msg &&
		test_grep "^Signed-off-by: .* <.*@example.org>$" msg || return 1
		[ "$rev" != "$culprit" ] || continue
		test "$(wc -l <paths)" = 1 &&
		grep -q "\.c$" paths &&
		git -C "$TREE" diff "$rev~1" "$rev" >diff &&
		test "$(grep -c "^-[^-]" diff)" = 1 &&
		test "$(grep -c "^+[^+]" diff)" = 1 &&
		grep -q "^+.*\"" diff || return 1
	done <revs &&
	test "$(git -C "$TREE" log --format=%an "master..seed-$1" | sort -u | wc -l)" -ge 6
}

test_expect_success 'seed-tracing: 24 commits in kernel/trace, the eval-map culprit 17th' '
	check_branch tracing 17 initcall.init_kprobe_trace kernel/trace/ \
		"^kernel/trace/trace_events.c$" &&
	test "$(field tracing initcall)" = init_kprobe_trace &&
	git -C "$TREE" show "$(field tracing culprit)" >culprit.diff &&
	test_grep "^+			update_event_printk(call, map\[i\]);" culprit.diff
'

test_expect_success 'seed-printk: 24 commits in printk and tty, the 8250 console culprit 9th' '
	check_branch printk 9 probe.serial8250 "\(kernel/printk/\|drivers/tty/\)" \
		"^drivers/tty/serial/8250/8250_(core|port).c$" &&
	test "$(wc -l <culprit.paths)" = 2 &&
	git -C "$TREE" show "$(field printk culprit)" >culprit.diff &&
	test_grep "^-	register_console(&univ8250_console);" culprit.diff &&
	test_grep "^+		serial8250_register_ports(&serial8250_reg, &dev->dev);" culprit.diff &&
	test_grep "^+		ndelay(160 \* (NSEC_PER_SEC / port->uartclk));" culprit.diff
'

test_expect_success 'seed-perf: 24 commits in tools/perf, the culprit 14th' '
	check_branch perf 14 perf.trace_startup tools/perf/ "^tools/perf/" &&
	test "$(field perf initcall)" = -
'

test_expect_success '--commits 8: the same culprit where it is in the seed, in proportion, the first 7 ordinary ones' '
	for sp in tracing:6 printk:3 perf:5; do
		s=${sp%:*} pos=${sp#*:} &&
		seed "$s" &&
		sh "$ROOT/scripts/scenario-tree.sh" --scenario "$s" --commits 8 >"$s-8.out" 2>err &&
		test "$(field "$s-8" branch)" = "seed-$s-8" &&
		test "$(field "$s-8" commits)" = 8 &&
		test "$(field "$s-8" position)" = "$pos" &&
		test "$(field "$s-8" metric)" = "$(field "$s" metric)" &&
		tip=$(field "$s-8" tip) &&
		test "$(git -C "$TREE" rev-parse "seed-$s-8")" = "$tip" &&
		test "$(git -C "$TREE" rev-list --count "master..$tip")" = 8 &&
		culprit=$(field "$s-8" culprit) &&
		test "$(git -C "$TREE" rev-parse "$tip~$((8 - pos))")" = "$culprit" &&
		: the culprit changes what the culprit of the whole seed changes, in the same way, &&
		: on files whose earlier edits differ: the blobs named on index lines are not compared &&
		git -C "$TREE" diff "$culprit~1" "$culprit" | sed "/^index /d" >short.diff &&
		full=$(field "$s" culprit) &&
		git -C "$TREE" diff "$full~1" "$full" | sed "/^index /d" >full.diff &&
		test_cmp full.diff short.diff &&
		: the ordinary ones are the first of the seed, in order, by subject &&
		git -C "$TREE" log --reverse --format=%s "master..$tip" | sed "${pos}d" >short.subjects &&
		git -C "$TREE" log --reverse --format=%s "master..seed-$s" |
			grep -vxF "$(git -C "$TREE" log -1 --format=%s "$full")" | head -7 >full.subjects &&
		test_cmp full.subjects short.subjects &&
		: a rerun finds it made and changes nothing &&
		reflog=$(git -C "$TREE" reflog show "seed-$s-8" | wc -l) &&
		sh "$ROOT/scripts/scenario-tree.sh" --scenario "$s" --commits 8 >again.out 2>err &&
		test_cmp "$s-8.out" again.out &&
		! test_grep making err &&
		test "$(git -C "$TREE" reflog show "seed-$s-8" | wc -l)" = "$reflog" || return 1
	done &&
	: the bounds: 24 is the whole seed, 3 the shortest &&
	sh "$ROOT/scripts/scenario-tree.sh" --scenario printk --commits 24 >p24.out 2>err &&
	test_cmp printk.out p24.out &&
	sh "$ROOT/scripts/scenario-tree.sh" --scenario printk --commits 3 >p3.out 2>err &&
	test "$(sed -n "s/^position //p" p3.out)" = 1 &&
	test "$(sed -n "s/^commits //p" p3.out)" = 3 &&
	for n in 2 25 08 x "8 " 24x; do
		test_exit_code 2 sh "$ROOT/scripts/scenario-tree.sh" --scenario tracing --commits "$n" 2>err &&
		test_grep "^scenario-tree.sh: --commits wants a number from 3 to 24, not .$n.$" err || return 1
	done &&
	test_exit_code 2 sh "$ROOT/scripts/scenario-tree.sh" --scenario tracing --commits "" 2>err &&
	test_grep "^scenario-tree.sh: --commits wants a number from 3 to 24, not ..$" err &&
	test_exit_code 2 sh "$ROOT/scripts/scenario-tree.sh" --commits 8 2>err &&
	test_grep "commits shortens a --scenario" err &&
	test_exit_code 2 sh "$ROOT/scripts/scenario-tree.sh" --range 8 --commits 8 2>err &&
	test_grep "commits shortens a --scenario" err &&
	test_exit_code 2 sh "$ROOT/scripts/scenario-tree.sh" --scenario tracing --commits 2>err &&
	test_grep "^usage:" err
'

test_expect_success 'a rerun finds each branch made and changes nothing, at once' '
	for s in tracing printk perf; do
		cp "$s.out" "$s.first" &&
		reflog=$(git -C "$TREE" reflog show "seed-$s" | wc -l) &&
		start=$(date +%s) &&
		seed "$s" &&
		test $(($(date +%s) - start)) -le 10 &&
		test_cmp "$s.first" "$s.out" &&
		! test_grep making "$s.err" &&
		test "$(git -C "$TREE" reflog show "seed-$s" | wc -l)" = "$reflog" || return 1
	done
'

test_expect_success 'a branch moved by hand is an error, and --force puts it back' '
	# in a clone of the cache that borrows its objects, not in the shared one
	git clone -q --bare --shared "$TREE" own.git &&
	tip=$(field tracing tip) &&
	git -C own.git update-ref refs/heads/seed-tracing "$tip~1" &&
	test_exit_code 1 sh "$ROOT/scripts/scenario-tree.sh" --scenario tracing --repo own.git \
		>out 2>err &&
	test_grep "branch .seed-tracing. is at .*, not at the expected $tip" err &&
	test "$(git -C own.git rev-parse seed-tracing)" = "$(git -C "$TREE" rev-parse "$tip~1")" &&
	sh "$ROOT/scripts/scenario-tree.sh" --scenario tracing --repo own.git --force >out &&
	test "$(git -C own.git rev-parse seed-tracing)" = "$tip" &&
	test_grep "^tip $tip$" out
'

test_expect_success 'bad arguments are usage errors (exit 2) that say what is wrong' '
	test_exit_code 2 sh "$ROOT/scripts/scenario-tree.sh" --scenario >out 2>err &&
	test_grep "^usage: scenario-tree.sh .*--scenario tracing|printk|perf" err &&
	test_exit_code 2 sh "$ROOT/scripts/scenario-tree.sh" --scenario bogus 2>err &&
	test_grep "wants tracing, printk or perf, not .bogus." err &&
	test_exit_code 2 sh "$ROOT/scripts/scenario-tree.sh" --scenario "" 2>err &&
	test_grep "not ..$" err &&
	test_exit_code 2 sh "$ROOT/scripts/scenario-tree.sh" --scenario "../tracing" 2>err &&
	test_grep "not .\.\./tracing." err &&
	test_exit_code 2 sh "$ROOT/scripts/scenario-tree.sh" --scenario tracing --range 8 2>err &&
	test_grep "give one" err &&
	test_exit_code 2 sh "$ROOT/scripts/scenario-tree.sh" --scenario tracing --bogus 2>err &&
	test_grep "^usage:" err &&
	test ! -s out &&
	test_exit_code 1 sh "$ROOT/scripts/scenario-tree.sh" --scenario tracing --repo "$SCRATCH/none" 2>err &&
	test_grep "has no master" err &&
	test_exit_code 2 sh "$ROOT/scripts/scenario-tree.sh" --range "" >out 2>err &&
	test_grep "range wants a number from 2 to 4096, not ..$" err &&
	test_exit_code 2 sh "$ROOT/scripts/scenario-tree.sh" --range 99999999999999999999 >>out 2>err &&
	test_grep "not .99999999999999999999.$" err &&
	! grep -q "Illegal number" err &&
	test_exit_code 2 sh "$ROOT/scripts/scenario-tree.sh" --scenario tracing --repo "" >>out 2>err &&
	test_grep "repo wants a directory, not ..$" err &&
	test ! -s out
'

test_expect_success 'the fix series reads as a v2 cover letter and two patches' '
	git init -q small &&
	git -C small -c user.name=t -c user.email=t@localhost commit -q --allow-empty -m first &&
	test_exit_code 1 bootgate series --tree small --arch x86_64 --db s.db --json "$SERIES" \
		>series.json 2>err &&
	test_jq ".subject == \"[PATCH v2 0/2] tracing: Stop init_kprobe_trace() waiting for the eval maps\"
		and (.patches | length) == 2
		and (.patches[0].error | test(\"patch 1/2 does not apply\"))" series.json &&
	test "$(grep -c "^Message-ID: <" "$SERIES")" = 3 &&
	test "$(grep -c "^In-Reply-To: <cover.1771233600.git.ruth.castellanos@example.org>$" "$SERIES")" = 2 &&
	test_grep "initcall init_kprobe_trace+0x0/0x[0-9a-f]* returned 0 after [0-9]* usecs" "$SERIES"
'

test_expect_success 'the fix series applies with git am on the seed-tracing tip' '
	git clone -q --shared --no-checkout "$TREE" fix &&
	git -C fix sparse-checkout set kernel/trace &&
	git -C fix checkout -q -b fix "$(field tracing tip)" &&
	# the cover letter, the first message, is not a patch
	awk "/^From [0-9a-f]+ Mon Sep 17 00:00:00 2001\$/ { n++ } n > 1" "$SERIES" >patches.mbox &&
	git -C fix -c user.name=t -c user.email=t@localhost am -q "$SCRATCH/patches.mbox" &&
	test "$(git -C fix rev-list --count "$(field tracing tip)..fix")" = 2 &&
	git -C fix log --format=%s -2 >subjects &&
	test_grep "^tracing: Look up the eval maps an event.s print format names$" subjects &&
	test_grep "^tracing: Allocate the sorted eval map copy with kmalloc_array()$" subjects &&
	git -C fix show HEAD:kernel/trace/trace_events.c >events.c &&
	test_grep "^static void update_event_printk_names(" events.c &&
	test_grep "sorted = kmalloc_array(len, sizeof(\*map), GFP_KERNEL);" events.c
'

test_done
