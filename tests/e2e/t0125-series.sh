#!/bin/sh
# bootgate series on real kernels: a v2 series in the lists' form (a cover letter and
# three patches made by git format-patch --cover-letter --base, patch 2 quoted-printable)
# on the scenario-tracing branch. Patch 1 rewords a comment (its image is its parent's,
# the same), patch 2 removes init_blk_tracer()'s 6 ms wait (an improvement), patch 3
# makes init_kprobe_trace() 5 ms slower (a regression). A v3 whose patch 2 does not
# apply builds nothing for patches 2 and 3. Input mistakes fail before any build. The v2
# mails are made as if on a newer tree: every hunk 40 lines further down and blobs this
# tree lacks, as real series are; each patch is applied where git am applies it.
. "$(dirname "$0")/lib.sh"

TREE=$(sh "$ROOT/scripts/kernel-repo.sh")
sh "$ROOT/scripts/scenario-tree.sh" >scenario
tip=$(sed -n 's/^tip //p' scenario)
export BOOTGATE_STATE=$SCRATCH/state
DB=$BOOTGATE_STATE/bootgate.db
V2=$(series_fixture tracing-v2.mbox "$tip")
perl -pi -e 's/^@@ -(\d+)(,\d+)? \+(\d+)/"@@ -".($1 + 40).$2." +".($3 + 40)/e;
	s/^index [0-9a-f]+\.\.[0-9a-f]+/index 1234567..89abcde/' "$V2"
V3=$(series_fixture tracing-v3-does-not-apply.mbox "$tip")

# a small repository for the cases that fail before any build
git init -q small &&
	echo one >small/a.c &&
	git -C small add a.c &&
	git -C small -c user.name=t -c user.email=t@localhost commit -q -m first

test_expect_success 'input mistakes: no build, a clear error, exit 1 or 2' '
	test_exit_code 2 bootgate series --arch x86_64 "$V2" &&
	test_exit_code 2 bootgate series --tree small --arch x86_64 &&
	test_exit_code 2 bootgate series --tree small --arch x86_64 --boots 0 "$V2" &&
	test_exit_code 2 bootgate series --tree small --arch x86_64 --base nope "$V2" 2>err &&
	test_grep "cannot resolve .nope." err &&
	test_exit_code 2 bootgate series --tree small --arch x86_64 --id 1 "$V2" &&
	test_exit_code 2 bootgate series --tree small --arch x86_64 --id 0 &&
	test_exit_code 2 bootgate series --tree small --arch x86_64 --id 99999999999999999999 &&
	test_exit_code 2 bootgate series --tree small --arch x86_64 --boots 4294967297 "$V2" &&
	test_exit_code 2 bootgate series --tree small --arch x86_64 --name ../x "$V2" &&
	test_exit_code 2 bootgate series --tree small --arch x86_64 --mode fast "$V2" &&
	test_exit_code 2 bootgate series --tree small --arch nope "$V2" &&
	: >empty.mbox &&
	test_exit_code 1 bootgate series --tree small --arch x86_64 --db s.db empty.mbox 2>err &&
	test_grep "empty.mbox:1: no message" err &&
	# patch 2 of 3 left out: the error says which is missing
	awk "/^From [0-9a-f]+ Mon Sep 17/ { n++ } n != 3" "$V2" >two.mbox &&
	test "$(grep -c "^Subject: \[PATCH" two.mbox)" = 3 &&
	test_exit_code 1 bootgate series --tree small --arch x86_64 --db s.db two.mbox 2>err &&
	test_grep "patch 2/3 missing" err &&
	printf "\\377\\376garbage\\r\\n\\r\\n" >bin.mbox &&
	test_exit_code 1 bootgate series --tree small --arch x86_64 --db s.db bin.mbox 2>err &&
	test_exit_code 1 bootgate series --tree small --arch x86_64 --db s.db no-such.mbox 2>err &&
	test_grep "no-such.mbox" err &&
	test_exit_code 1 bootgate series --id 99 --db s.db 2>err &&
	test_grep "series 99 does not exist" err &&
	test "$(sqlite3 s.db "SELECT count(*) FROM builds")" = 0
'

test_expect_success 'a series whose base-commit is not in the tree fails, naming it' '
	test_exit_code 1 bootgate series --tree small --arch x86_64 --db s.db --json "$V2" \
		>r.json 2>err &&
	test_jq ".state == \"failed\" and (.error | test(\"base commit $tip is not in the tree\"))
		and .patches[0].status == null" r.json &&
	test "$(sqlite3 s.db "SELECT count(*) FROM builds")" = 0 &&
	test "$(sqlite3 s.db "SELECT count(*) FROM outbox WHERE kind = '"'series'"'")" = 1 &&
	# the same from stdin, into a store of its own
	test_exit_code 1 bootgate series --tree small --arch x86_64 --db s4.db - <"$V2" >table &&
	test_grep "^error: its base commit $tip is not in the tree" table
'

test_expect_success 'a patch that does not apply on the small tree names its file' '
	sed "/^base-commit:/d" "$V2" >nobase.mbox &&
	test_exit_code 1 bootgate series --tree small --arch x86_64 --db s3.db --json nobase.mbox \
		>r.json 2>err &&
	test_jq ".state == \"failed\" and .base.from == \"tip\" and
		(.patches[0].error | startswith(\"patch 1/3 does not apply: kernel/trace/trace_kprobe.c: \"))
		and [.patches[].status] == [\"failed\", \"skipped\", \"skipped\"]" r.json &&
	test "$(sqlite3 s3.db "SELECT count(*) FROM builds")" = 0
'

test_expect_success 'v2 measured patch by patch: same, improvement, regression' '
	bootgate series --tree "$TREE" --arch x86_64 --mode deterministic --boots 2 \
		--base master --json "$V2" >v2.json 2>err &&
	cat err &&
	# the base-commit: line wins over --base
	test_jq ".state == \"done\" and .base.commit == \"$tip\" and .base.from == \"base-commit\"
		and .total == 3 and .version == 2 and .mode == \"deterministic\"
		and .board == \"qemu-x86_64\"" v2.json &&
	test_jq "[.patches[].verdict] == [\"same\", \"improvement\", \"regression\"]" v2.json &&
	test_jq ".patches[0].image_same_as_parent == true and .patches[0].metric == null" v2.json &&
	test_jq ".patches[1].metric == \"initcall.init_blk_tracer\" and .patches[1].delta_us < -5000
		and .patches[1].delta_us > -7000" v2.json &&
	test_jq ".patches[2].metric == \"initcall.init_kprobe_trace\" and .patches[2].delta_us > 4000
		and .patches[2].delta_us < 6000" v2.json &&
	test_jq "[.patches[].status] == [\"applied\", \"applied\", \"applied\"] and
		([.patches[].comparison] | all(. > 0)) and .whole.comparison > 0" v2.json &&
	test_note "$(sqlite3 "$DB" "SELECT count(*) FROM builds") builds, $(sqlite3 "$DB" "SELECT count(*) FROM boots") boots"
'

test_expect_success 'the commits are git am'"'"'s: author, date, message, and a ref' '
	c2=$(jq -r ".patches[1].commit" v2.json) &&
	test "$(git -C "$TREE" log -1 --format="%an <%ae> %ad" --date=raw "$c2")" = \
		"Mira Okafor <mira.okafor@example.org> 1770711300 +0100" &&
	test "$(git -C "$TREE" log -1 --format=%s "$c2")" = \
		"blktrace: Do not wait for command-line traces in init_blk_tracer()" &&
	# the quoted-printable body decoded, its soft line break joined, trailers kept
	git -C "$TREE" log -1 --format=%b "$c2" >body &&
	test_grep "^Fixes: 1b02e81b439e (\"blktrace: Let command-line traces start before registering the tracer\")$" body &&
	test_grep "^Signed-off-by: Mira Okafor <mira.okafor@example.org>$" body &&
	test "$(git -C "$TREE" rev-parse refs/bootgate/series/1/2)" = "$c2" &&
	test "$(git -C "$TREE" rev-parse "$c2~2")" = "$tip"
'

test_expect_success 'each patch is the tree git am makes of the same mails' '
	git clone -q -s -n "$TREE" am &&
	git -C am sparse-checkout set kernel/trace &&
	git -C am checkout -q "$tip" &&
	awk "/^From [0-9a-f]+ Mon Sep 17/ { n++ } n > 1" "$V2" >patches.mbox &&
	git -C am -c user.name=t -c user.email=t@localhost am --3way ../patches.mbox >am.out 2>&1 &&
	i=0 &&
	for c in $(git -C am rev-list --reverse "$tip..HEAD"); do
		mine=$(jq -r ".patches[$i].commit" v2.json) &&
		test "$(git -C am rev-parse "$c^{tree}")" = "$(git -C "$TREE" rev-parse "$mine^{tree}")" &&
		test_note "patch $((i + 1))/3: bootgate $(jq -r ".patches[$i].status" v2.json), git am: $(git -C am log -1 --format=%s "$c")" &&
		i=$((i + 1)) || return 1
	done &&
	test "$i" = 3 &&
	test "$(grep -c "^Applying: " am.out)" = 3
'

test_expect_success 'the store: rows of the series, its comparisons and one outbox row' '
	test "$(sqlite3 "$DB" "SELECT state, source, base FROM series WHERE id = 1")" = "done|cli|$tip" &&
	test "$(sqlite3 "$DB" "SELECT group_concat(verdict, \",\") FROM (SELECT verdict FROM
		series_patches WHERE series_id = 1 AND idx > 0 ORDER BY idx)")" = "same,improvement,regression" &&
	test "$(sqlite3 "$DB" "SELECT count(*) FROM comparisons WHERE tree_id IS NOT NULL")" = 4 &&
	test "$(sqlite3 "$DB" "SELECT count(*) FROM outbox WHERE kind = '"'series'"' AND ref = 1")" = 1 &&
	: the outbox row names the series: the mailer reads the rest from the store &&
	sqlite3 "$DB" "SELECT body FROM outbox WHERE kind = '"'series'"'" | jq -c . >body.json &&
	test "$(cat body.json)" = "{\"kind\":\"series\",\"id\":1}" &&
	: each patch judged as its comparison says: the same figures, from the rows &&
	for i in 1 2 3; do
		c=$(jq ".patches[$((i - 1))].comparison" v2.json) &&
		a=$(jq ".patches[$((i - 1))].delta_us" v2.json) &&
		b=$(sqlite3 "$DB" "SELECT v.delta FROM verdicts v JOIN series_patches p ON
			p.comparison_id = v.comparison_id AND p.metric = v.metric WHERE
			p.series_id = 1 AND p.idx = $i") &&
		if [ "$a" = null ]; then test -z "$b"; else test "$(printf %.3f "$a")" = "$(printf %.3f "$b")"; fi &&
		test "$(sqlite3 "$DB" "SELECT role FROM comparisons WHERE id = $c")" = series || return 1
	done
'

test_expect_success 'the same series again: nothing built, booted or reported twice' '
	before=$(sqlite3 "$DB" "SELECT count(*) FROM builds") &&
	bootgate series --tree "$TREE" --arch x86_64 --json "$V2" >again.json 2>err &&
	test_grep "already in the store" err &&
	test "$(jq -c . again.json)" = "$(jq -c . v2.json)" &&
	test "$(sqlite3 "$DB" "SELECT count(*) FROM builds")" = "$before" &&
	bootgate series --id 1 --json >id.json &&
	test "$(jq -c . id.json)" = "$(jq -c . v2.json)" &&
	test "$(sqlite3 "$DB" "SELECT count(*) FROM outbox")" = 1
'

test_expect_success 'a run killed before its end: the rerun reuses every boot' '
	sqlite3 "$DB" "UPDATE series SET state = '"'running'"' WHERE id = 1; DELETE FROM outbox;
		INSERT INTO outbox (kind, ref, body, created) VALUES ('"'series'"', 1, '"'{}'"', 0)" &&
	boots=$(sqlite3 "$DB" "SELECT count(*) FROM boots") &&
	bootgate series --id 1 --json >rerun.json 2>err &&
	test "$(sqlite3 "$DB" "SELECT count(*) FROM boots")" = "$boots" &&
	test_jq "[.patches[].verdict] == [\"same\", \"improvement\", \"regression\"]" rerun.json &&
	test "$(sqlite3 "$DB" "SELECT count(*) FROM outbox WHERE kind = '"'series'"'")" = 1
'

test_expect_success 'v3, patch 2 does not apply: its error, and no build for 2 or 3' '
	before=$(sqlite3 "$DB" "SELECT max(id) FROM builds") &&
	test_exit_code 1 bootgate series --tree "$TREE" --arch x86_64 --json "$V3" >v3.json 2>err &&
	test_jq ".state == \"failed\" and
		(.error | startswith(\"patch 2/3 does not apply: kernel/trace/blktrace.c: \")) and
		[.patches[].status] == [\"applied\", \"failed\", \"skipped\"] and
		.patches[0].verdict == \"same\" and .whole == null" v3.json &&
	# patch 1 is v2 patch 1 on the same base: the same commit
	test "$(jq -r ".patches[0].commit" v3.json)" = "$(jq -r ".patches[0].commit" v2.json)" &&
	sqlite3 "$DB" "SELECT DISTINCT commit_sha FROM builds WHERE id > $before" | sort >built &&
	{ echo "$tip"; jq -r ".patches[0].commit" v3.json; } | sort >want &&
	test_cmp want built &&
	test_exit_code 1 bootgate series --id 2 >table &&
	test_grep "^2 .*failed" table &&
	test_grep "^error: patch 2/3 does not apply: kernel/trace/blktrace.c" table
'

test_done
