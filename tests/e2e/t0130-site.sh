#!/bin/sh
# beside: t0110-service.sh
# The static results site: a real store filled by SQL with the boots of the shipped
# console logs, then "bootgate site", and its pages opened in headless Chromium. No
# kernel is built: the comparisons' results are made by "bootgate parse" and "compare".
. "$(dirname "$0")/lib.sh"

LOGS=$FIXTURES/bootlogs
BASE=aaaaaaaaaaaa000000000000000000000000000a
CAND=bbbbbbbbbbbb000000000000000000000000000b
NEXT=cccccccccccc000000000000000000000000000c
EVIL="<script>document.title='pwned'</script> & \"quoted\""
ARTIFACTS=$ROOT/build/test-artifacts
export BOOTGATE_STATE="$SCRATCH/state"
. "$ROOT/tests/e2e/lib-store.sh"

sql() {
	sqlite3 -batch -noheader store.db "$@"
}

B1=$LOGS/x86_64-tiny-baseline-run1.log B2=$LOGS/x86_64-tiny-baseline-run2.log
B3=$LOGS/x86_64-tiny-baseline-run3.log R1=$LOGS/x86_64-tiny-regressed-run1.log
R2=$LOGS/x86_64-tiny-regressed-run2.log R3=$LOGS/x86_64-tiny-regressed-run3.log
BASES="1:$B1 2:$B2 3:$B3 4:$B1 5:$B2 6:$B3 7:$B1 8:$B2 9:$B3"
CANDS="11:$R1 12:$R2 13:$R3 14:$R1 15:$R2 16:$R3 17:$R1 18:$R2 19:$R3"

make_store() {
	test -f store.db && return 0
	n=$(ls "$ROOT"/schemas/[0-9][0-9][0-9]-*.sql | wc -l) &&
	cat "$ROOT"/schemas/[0-9][0-9][0-9]-*.sql | sqlite3 store.db &&
	sql "PRAGMA user_version = $n" &&
	{
		echo "BEGIN;" &&
		echo "INSERT INTO trees (id, name, path, branch, last_good) VALUES
			(1, 'tracing', '/nowhere', 'for-next', '$NEXT'), (2, '../evil', '/x', NULL, NULL);" &&
		echo "INSERT INTO commits VALUES ('$BASE', NULL, 'tracing: the base', 'A <a@x>'),
			('$CAND', '$BASE', '$(echo "$EVIL" | sed "s/'/''/g")', 'Ève <e@x>'),
			('$NEXT', '$CAND', 'tracing: revert the delay', 'C <c@x>');" &&
		for c in "$BASE:base" "$CAND:cand" "$NEXT:next"; do
			echo "INSERT INTO builds (commit_sha, board, status, image_sha256, created)
				VALUES ('${c%%:*}', 'qemu-x86_64', 'built', 'img-${c#*:}', 0);" || return 1
		done &&
		: each console booted three times: nine boots a side, enough for a verdict &&
		for k in 0 3 6; do
			store_boot $((k + 1)) img-base "$B1" qemu-x86_64 timing &&
			store_boot $((k + 2)) img-base "$B2" qemu-x86_64 timing &&
			store_boot $((k + 3)) img-base "$B3" qemu-x86_64 timing &&
			store_boot $((k + 11)) img-cand "$R1" qemu-x86_64 timing &&
			store_boot $((k + 12)) img-cand "$R2" qemu-x86_64 timing &&
			store_boot $((k + 13)) img-cand "$R3" qemu-x86_64 timing || return 1
		done &&
		store_boot 21 img-next "$B1" qemu-x86_64 timing &&
		store_boot 22 img-next "$B2" qemu-x86_64 timing &&
		store_comparison 1 gate 0 "$BASE" "$CAND" regression initcall.init_kprobe_trace \
			"$BASES" "$CANDS" &&
		store_comparison 2 gate 0 "$CAND" "$NEXT" pass "" "$CANDS" "21:$B1 22:$B2" &&
		echo "UPDATE comparisons SET mode = 'timing', metric = nullif(metric, ''),
			delta = CASE id WHEN 2 THEN 0 ELSE delta END,
			created = 1000 * id WHERE id IN (1, 2);" &&
		echo "INSERT INTO bisections (id, tree_id, good, bad, board, mode, metric, state,
			outcome, culprit, confidence, created, finished, range_first, range_last,
			builds, boots, wall_s, revert_applies, revert_commit, regression_us) VALUES
			(1, 1, '$BASE', '$NEXT', 'qemu-x86_64', 'deterministic',
			 'initcall.init_kprobe_trace', 'done', 'found', '$CAND', 0.9987, 3000, 3100,
			 1, 1, 3, 6, 95, 1, '$NEXT', 49942),
			(2, 1, '$CAND', '$NEXT', 'qemu-x86_64', 'deterministic', NULL, 'running',
			 NULL, NULL, NULL, 4000, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);" &&
		echo "INSERT INTO bisection_commits VALUES (1, 0, '$BASE'), (1, 1, '$CAND'),
			(1, 2, '$NEXT'), (2, 0, '$CAND'), (2, 1, '$NEXT');" &&
		echo "INSERT INTO bisection_reports (bisection_id, seq, idx, kind, value) VALUES
			(1, 0, 0, 'value', 94), (1, 1, 0, 'value', 95), (1, 2, 1, 'value', 50036),
			(1, 3, 1, 'value', 50040), (2, 0, 0, 'value', 50036), (2, 1, 1, 'value', 94);" &&
		store_comparison 3 step 1 "$BASE" "$CAND" different initcall.init_kprobe_trace \
			"$BASES" "$CANDS" &&
		store_comparison 4 timing 1 "$BASE" "$CAND" different initcall.init_kprobe_trace \
			"$BASES" "$CANDS" &&
		store_comparison 5 revert 1 "$NEXT" "$CAND" different initcall.init_kprobe_trace \
			"21:$B1 22:$B2" "$CANDS" &&
		echo "UPDATE comparisons SET mode = 'timing' WHERE id = 4;" &&
		echo "INSERT INTO series (id, tree_id, message_id, version, total, subject, author,
			source, base, state, created, finished) VALUES (1, 1, 'cover@x', 2, 3,
			'[PATCH v2 0/3] tracing: faster probes', 'D <d@x>', 'inbox:linux-trace',
			'$BASE', 'done', 5000, 5100);" &&
		echo "INSERT INTO series_patches (series_id, idx, message_id, subject, mbox,
			commit_sha, status, error, comparison_id, verdict, metric, delta) VALUES
			(1, 0, 'cover@x', '[PATCH v2 0/3] tracing: faster probes', '', NULL, NULL,
			 NULL, NULL, NULL, NULL, NULL),
			(1, 1, 'p1@x', '[PATCH v2 1/3] tracing: delay', '', '$CAND', 'applied', NULL,
			 1, 'regression', 'initcall.init_kprobe_trace', 49942),
			(1, 2, 'p2@x', '[PATCH v2 2/3] tracing: more', '', NULL, 'failed',
			 'does not apply: kernel/trace/trace_kprobe.c', NULL, NULL, NULL, NULL),
			(1, 3, 'p3@x', '[PATCH v2 3/3] tracing: last', '', NULL, 'skipped', NULL,
			 NULL, NULL, NULL, NULL);" &&
		echo "COMMIT;"
	} >fill.sql &&
	sql <fill.sql
}

# chromium_dom PAGE: the DOM Chromium builds from the page, opened from disk
chromium_dom() {
	chromium --headless --no-sandbox --disable-gpu --user-data-dir="$SCRATCH/chromium" \
		--dump-dom "file://$SCRATCH/$1" 2>/dev/null
}

# count PATTERN FILE: how many times PATTERN occurs in FILE
count() {
	grep -o -e "$1" "$2" | wc -l
}

test_expect_success 'site: every page and its JSON, the JSON the stored rows' '
	make_store &&
	bootgate site --db store.db --json site >out.json &&
	test_jq ".ok == true and .written == (.files | length) and .unchanged == 0" out.json &&
	for f in index.html style.css tree/tracing.html comparison/1.html comparison/1.json \
		comparison/2.html bisection/1.html bisection/1.json bisection/2.html \
		bisection/2.json series/1.html series/1.json; do
		test -s "site/$f" || { echo "missing $f" >&2; return 1; }
	done &&
	: the verdicts of_ the page are the rows of_ the store, in their order &&
	sql "SELECT metric || \" \" || verdict || \" \" || coalesce(printf(\"%.17g\", delta), \"null\")
		FROM verdicts WHERE comparison_id = 1 ORDER BY rank" >rows &&
	jq -r ".verdicts[] | \"\(.metric) \(.verdict) \(.delta // \"null\")\"" site/comparison/1.json |
		awk "{ if (\$3 == \"null\") print; else printf \"%s %s %.17g\\n\", \$1, \$2, \$3 }" >json-rows &&
	test_cmp rows json-rows &&
	jq -e ".id == 1 and .role == \"gate\" and .boots.base == 9 and
		.boot_ids.cand == [11, 12, 13, 14, 15, 16, 17, 18, 19]" site/comparison/1.json &&
	jq -e ".id == 2 and .state == \"running\" and .step == null and
		([.steps[].verdict] == [\"unknown\", \"unknown\"])" site/bisection/2.json &&
	jq -e ".id == 1 and .outcome == \"found\" and .confirmation.revert.applies and
		.step.delta_us > 0 and .headline.mode == \"timing\"" site/bisection/1.json &&
	jq -e "[.patches[].idx] == [1, 2, 3]" site/series/1.json &&
	cmp "$ROOT/web-static/style.css" site/style.css &&
	test ! -e site/evil.html && test "$(ls site/tree)" = tracing.html &&
	! grep -q "<script" site/index.html site/comparison/1.html site/series/1.html
'

test_expect_success 'site: the comparison in Chromium: table rows, bars, inert subject, screenshot' '
	make_store &&
	bootgate site --db store.db site >/dev/null &&
	chromium_dom site/comparison/1.html >dom.html &&
	sql "SELECT count(*) FROM verdicts WHERE comparison_id = 1 AND metric NOT LIKE '\''probe.%'\''" \
		>want-rows &&
	sed -n "/<table class=\"metrics initcalls\">/,/<\/table>/p" dom.html >table.html &&
	test "$(count "<tr" table.html)" = "$(($(cat want-rows) + 1))" &&
	grep -q "<tr class=\"v-different regressed\"><td class=\"metric\">initcall.init_kprobe_trace</td>" table.html &&
	: each side draws its boot with the median time to init, its initcalls with both times &&
	for side in "1, 2, 3, 4, 5, 6, 7, 8, 9" "11, 12, 13, 14, 15, 16, 17, 18, 19"; do
		sql "SELECT count(*) FROM samples WHERE metric LIKE '\''initcall.%'\'' AND
			start_us IS NOT NULL AND end_us IS NOT NULL AND boot_id = (SELECT boot_id
			FROM samples WHERE metric = '\''boot.init'\'' AND boot_id IN ($side)
			ORDER BY value, boot_id LIMIT 1 OFFSET 4)" || return 1
	done >bars &&
	read -r nb nc <<-EOF &&
	$(tr "\n" " " <bars)
	EOF
	echo "$nb" >nb && echo "$nc" >nc &&
	want=$(($(cat nb) + $(cat nc))) &&
	test "$(count "<rect class=\"ic" dom.html)" = "$want" &&
	test_note "comparison 1: $(cat want-rows) metric rows, $want initcall bars" &&
	sql "SELECT count(*) FROM verdicts WHERE comparison_id = 1 AND verdict = '\''different'\''
		AND delta > 0 AND metric LIKE '\''initcall.%'\''" >nreg &&
	test "$(cat nreg)" -ge 1 &&
	test "$(count "<rect class=\"ic regressed" dom.html)" = "$(($(cat nreg) * 2))" &&
	test "$(count "<path class=\"critpath\"" dom.html)" = 2 &&
	test "$(count "Run /init" dom.html)" -ge 2 &&
	grep -q "time since the kernel started (ms)" dom.html &&
	! grep -q "<script" dom.html &&
	grep -q "&lt;script&gt;document.title=.pwned.&lt;/script&gt; &amp; \"quoted\"" dom.html &&
	grep -q "<title>Comparison 1: bbbbbbbbbbbb against aaaaaaaaaaaa - bootgate</title>" dom.html &&
	! grep -q pwned.*</title> dom.html &&
	mkdir -p "$ARTIFACTS" &&
	chromium --headless --no-sandbox --disable-gpu --user-data-dir="$SCRATCH/chromium" \
		--hide-scrollbars --window-size=1200,2000 \
		--screenshot="$ARTIFACTS/t0130-comparison.png" "file://$SCRATCH/site/comparison/1.html" \
		2>/dev/null &&
	test -s "$ARTIFACTS/t0130-comparison.png" &&
	test "$(head -c 8 "$ARTIFACTS/t0130-comparison.png" | od -An -c | tr -d " ")" = "211PNG\r\n032\n" &&
	test_note "screenshot: $ARTIFACTS/t0130-comparison.png"
'

test_expect_success 'site: index, tree, bisection and series pages in Chromium' '
	make_store &&
	bootgate site --db store.db site >/dev/null &&
	chromium_dom site/index.html >index.html &&
	sed -n "/<table class=\"commits\">/,/<\/table>/p" index.html >commits.html &&
	test "$(count "<tr>" commits.html)" = 3 &&
	grep -q "<td class=\"v-regression\">regression</td>" commits.html &&
	grep -q "<td class=\"v-same\">same</td>" commits.html &&
	grep -q "href=\"comparison/2.html\"" commits.html &&
	grep -q "&lt;script&gt;document.title" commits.html &&
	sed -n "/<table class=\"trees\">/,/<\/table>/p" index.html >trees.html &&
	grep -q "<a href=\"tree/tracing.html\">tracing</a>" trees.html &&
	grep -q "<td>../evil</td>" trees.html &&
	sed -n "/<table class=\"bisections\">/,/<\/table>/p" index.html >bis.html &&
	test "$(count "<tr>" bis.html)" = 3 &&
	grep -q "0.999" bis.html &&
	grep -q "href=\"series/1.html\"" index.html &&
	! grep -q "<script" index.html &&
	chromium_dom site/tree/tracing.html >tree.html &&
	test "$(count "<svg class=\"trend\"" tree.html)" = 6 &&
	test "$(count "<circle class=\"pt\"" tree.html)" = 18 &&
	sed -n "/<table class=\"trend-commits\">/,/<\/table>/p" tree.html >tc.html &&
	test "$(count "<tr>" tc.html)" = 4 &&
	sql "SELECT value FROM samples WHERE metric = '\''boot.init'\'' AND boot_id BETWEEN 11 AND 19
		ORDER BY value LIMIT 1 OFFSET 4" >median &&
	grep -q "<td class=\"num\">$(printf %.0f "$(cat median)")</td>" tc.html &&
	chromium_dom site/bisection/1.html >b1.html &&
	test "$(count "<tr class=\"s-" b1.html)" = 2 &&
	grep -q "<tr class=\"s-culprit\">" b1.html &&
	grep -q "50036 50040" b1.html &&
	grep -q "<dt>posterior</dt><dd>0.9987</dd>" b1.html &&
	restored=$(sql "SELECT printf(\"%.0f\", delta) FROM verdicts WHERE comparison_id = 5 AND
		metric = '\''initcall.init_kprobe_trace'\''") &&
	test_grep "Reverting it on the bad tip restores $restored µs of 49942" b1.html &&
	grep -q "<dt>what a boot pays (timing mode)</dt>" b1.html &&
	chromium_dom site/bisection/2.html >b2.html &&
	sed -n "/<table class=\"reports\">/,/<\/table>/p" b2.html >reports.html &&
	test "$(count "<tr>" reports.html)" = 3 &&
	chromium_dom site/series/1.html >s1.html &&
	sed -n "/<table class=\"patches\">/,/<\/table>/p" s1.html >patches.html &&
	test "$(count "<tr" patches.html)" = 5 &&
	grep -q "<tr class=\"p-failed\">" patches.html &&
	grep -q "does not apply: kernel/trace/trace_kprobe.c" patches.html &&
	grep -q "href=\"../comparison/1.html\"" patches.html
'

test_expect_success 'site: a second run writes nothing; a file changed by hand is written again' '
	make_store &&
	bootgate site --db store.db site >/dev/null &&
	touch -d "2000-01-01" site/index.html site/comparison/1.html &&
	bootgate site --db store.db --json site >again.json &&
	test_jq ".ok and .written == 0 and .unchanged == (.files | length)" again.json &&
	test "$(stat -c %Y site/index.html)" = "$(stat -c %Y site/comparison/1.html)" &&
	test "$(date -d @"$(stat -c %Y site/index.html)" +%Y)" = 2000 &&
	echo defaced >site/comparison/1.html &&
	bootgate site --db store.db --json site >third.json &&
	test_jq "[.files[] | select(.status == \"written\") | .path] == [\"comparison/1.html\"]" third.json &&
	grep -q "Comparison 1" site/comparison/1.html &&
	ls -a site/comparison | grep -v "^\.\.*$" | sort >files &&
	printf "%s\n" 1.html 1.json 2.html 2.json 3.html 3.json 4.html 4.json 5.html 5.json >want &&
	test_cmp want files &&
	cp store.db fewer.db &&
	sqlite3 fewer.db "DELETE FROM comparisons WHERE id = 2;
		INSERT INTO bisection_reports (bisection_id, seq, idx, kind, value)
			VALUES (2, 2, 0, '\''value'\'', 50040);
		UPDATE commits SET subject = '\''tracing: the base, reworded'\''
			WHERE sha = '\''$BASE'\''" &&
	bootgate site --db fewer.db --json site >fourth.json &&
	jq -c "[.files[] | select(.status == \"written\") | .path]" fourth.json &&
	: the pages that name the reworded commit, the running bisection, the tree, the index &&
	test_jq "[.files[] | select(.status == \"written\") | .path] ==
		[\"comparison/1.html\", \"comparison/3.html\", \"comparison/4.html\",
		 \"bisection/2.json\", \"bisection/2.html\", \"tree/tracing.html\", \"index.html\"]" fourth.json &&
	grep -q "tracing: the base, reworded" site/comparison/1.html &&
	grep -q "50040" site/bisection/2.html &&
	test -s site/comparison/2.html &&
	! grep -q comparison/2.html site/index.html
'

test_expect_success 'site: OUTDIR a file, a missing store, bad arguments' '
	make_store &&
	echo x >afile &&
	test_exit_code 1 bootgate site --db store.db afile >out.txt 2>err &&
	test_grep "afile. is not a directory" err &&
	test ! -s out.txt &&
	test_exit_code 1 bootgate site --db nostore.db out 2>err &&
	test_grep "no store at .nostore.db." err &&
	test ! -e nostore.db && test ! -e out &&
	test_exit_code 2 bootgate site --db store.db 2>err &&
	test_grep "output directory is missing" err &&
	test_exit_code 2 bootgate site --db store.db a b 2>err &&
	test_exit_code 2 bootgate site --db store.db --url "javascript:alert(1)" out 2>err &&
	test_exit_code 2 bootgate site --db store.db --url "http://x/\"><script>" out 2>err &&
	test ! -e out &&
	bootgate site --db store.db --url https://ci.example.org/boot site >/dev/null &&
	grep -q "<link rel=\"canonical\" href=\"https://ci.example.org/boot/comparison/1.html\">" \
		site/comparison/1.html &&
	mkdir ro && chmod 500 ro &&
	if [ "$(id -u)" != 0 ]; then test_exit_code 1 bootgate site --db store.db ro/x; fi &&
	rm -f site/index.html && ln -s /etc/passwd site/index.html &&
	test_exit_code 1 bootgate site --db store.db site 2>err &&
	test_grep "not a regular file" err &&
	test -L site/index.html
'

test_expect_success 'site: hostile rows: NaN and absurd figures, huge, CR/LF, bytes that are not UTF-8' '
	make_store &&
	cp store.db hostile.db &&
	big=$(head -c 65536 /dev/zero | tr "\0" "<") &&
	sqlite3 hostile.db "UPDATE verdicts SET delta = NULL, delta_pct = 1e308, ci_lo = -1e308,
			verdict = '\''bogus'\'' WHERE comparison_id = 2 AND rank = 0;
		UPDATE verdicts SET metric = CAST(X'\''696e697463616c6c2e0d0a3c623e'\'' AS TEXT)
			WHERE comparison_id = 2 AND rank = 1;
		UPDATE commits SET subject = '\''$big'\'' WHERE sha = '\''$BASE'\'';
		UPDATE commits SET subject = CAST(X'\''61ff0d0a42'\'' || '\''cc: x@y'\'' AS TEXT),
			author = CAST(X'\''c3'\'' AS TEXT) WHERE sha = '\''$NEXT'\'';
		UPDATE bisections SET range_first = 7, range_last = -3 WHERE id = 1;
		UPDATE series SET whole_comparison_id = 999 WHERE id = 1;" &&
	bootgate site --db hostile.db hsite >/dev/null &&
	jq -e ".id == 2 and .verdict == \"pass\" and .verdicts[0].delta == null" \
		hsite/comparison/2.json &&
	jq -e ".outcome == \"found\"" hsite/bisection/1.json &&
	jq -e ".patches | length == 3" hsite/series/1.json &&
	test "$(count "&lt;" hsite/comparison/1.html)" -ge 65536 &&
	! grep -q "<<" hsite/comparison/1.html &&
	iconv -f UTF-8 -t UTF-8 hsite/comparison/2.html >/dev/null &&
	grep -q "a$(printf "\357\277\275\357\277\275")" hsite/comparison/2.html &&
	! grep -q "$(printf "\r")" hsite/comparison/2.html &&
	! grep -q "<b>" hsite/comparison/2.html &&
	chromium_dom hsite/comparison/2.html >dom2.html &&
	grep -q "<title>Comparison 2: cccccccccccc against bbbbbbbbbbbb - bootgate</title>" dom2.html
'

test_done
