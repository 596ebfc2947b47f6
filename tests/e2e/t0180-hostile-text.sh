#!/bin/sh
# beside: t0110-service.sh
# Hostile text through every output. Commit subjects and authors (a real git tree, put
# in the store by "bootgate gate", whose build fails at once: the tree is no kernel),
# initcall and device names and log lines (console logs read by parse, diff, compare),
# and a series' subject and author (a mail read by "bootgate inbox --drop") carry HTML,
# CR/LF with a header after it, terminal escapes, invalid UTF-8 and 64 KiB. What no
# cheap real path makes (boots, a comparison, a found bisection, events) is written
# with sqlite3 from the parser's own JSON of the hostile logs. Then: the site opened in
# headless Chromium, the mails at a real SMTP server (and as stored, CRLF and all), every
# JSON through jq (invalid UTF-8 comes back as U+FFFD, one per byte; C0/C1 controls and
# DEL as \uXXXX, the same code points), and every table checked for control bytes.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/lib-smtp.sh"
. "$ROOT/tests/e2e/lib-store.sh"
trap 'stop_sink; [ -n "${KEEP:-}" ] || rm -rf "$SCRATCH"' EXIT

export BOOTGATE_CACHE="$SCRATCH/cache" BOOTGATE_STATE="$SCRATCH/state"
DB=$SCRATCH/state/bootgate.db
mkdir -p "$SCRATCH/state" "$SCRATCH/drop"

# The payloads, one a line of hostile.txt; the ESC, BEL and CR are real bytes.
# 1 script, 2 img onerror, 3 quotes, 4 clear screen, 5 OSC 8 link, 6 BEL, 7 invalid
# UTF-8, 8 overlong "/", 9 lone surrogate, 10 C1 CSI (as UTF-8), 11 DEL, 12 CR + header
printf '%s\n' "<script>document.title='pwned'</script>" \
	"<img/src=x/onerror=document.title='pwned'>" "q\"'&amp;" >hostile.txt
printf 'esc\033[2Jclear\nosc\033]8;;http://evil/\007link\033]8;;\007\nbel\007x\n' >>hostile.txt
printf 'inv\377\376\nover\300\257\nsurr\355\240\200\nc1\302\23331m\ndel\177x\n' >>hostile.txt
BIG=$(head -c 65000 /dev/zero | tr '\0' B)

sql() {
	sqlite3 -batch -noheader "$DB" "$@"
}

# hostile_log FILE SCALE: a console log whose initcalls, probes and lines carry each
# payload (names stop at a space: the img payload has none), one 65000-byte name, one
# line over the reader's 64 KiB limit, and names with a NUL (not taken: a C string would
# cut them); SCALE multiplies the durations
hostile_log() {
	{
		echo "[    0.000000] Linux version 6.1.0 (x@y) #1 SMP"
		i=0
		{ cat hostile.txt; echo "big$BIG"; } | while IFS= read -r n; do
			i=$((i + 1))
			printf '[    1.%03d000] calling  %s+0x0/0x10 @ 1\n' "$i" "$n"
			printf '[    1.%03d100] initcall %s+0x0/0x10 returned 0 after %d usecs\n' \
				"$i" "$n" $((i * 100 * $2))
			printf '[    1.%03d200] probe of dev%s returned 0 after %d usecs\n' \
				"$i" "$n" $((i * 10 * $2))
			printf '[    1.%03d300] hostile line %s\r\n' "$i" "$n"
		done
		printf '[    1.900000] too long %s%s\n' "$BIG" "$BIG"
		printf '[    1.910000] initcall nul\000<b>+0x0/0x10 returned 0 after 5 usecs\n'
		printf '[    1.920000] probe of nul\000<b> returned 0 after 5 usecs\n'
		echo "[    2.000000] Run /init as init process"
	} >"$1"
}

# no_control FILE: no C0 control byte but newline (and tab), no DEL, no C1 in any form
no_control() {
	if LC_ALL=C grep -n -P '[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]' "$1" >ctl.found; then
		echo "control bytes in $1:" >&2
		cut -c1-200 ctl.found | od -c | head -20 >&2
		return 1
	fi
}

# json_ok FILE: parses, and holds no raw control byte (C1 included)
json_ok() {
	jq -e . "$1" >/dev/null && no_control "$1"
}

test_expect_success 'setup: a git tree whose commits carry every payload' '
	git init -q tree &&
	git -C tree config user.name "Ève Hostile" && git -C tree config user.email e@x &&
	echo a >tree/f && git -C tree add f && git -C tree commit -q -m "base: benign" &&
	{ tr "\n" " " <hostile.txt && printf "\r\nBcc: x@evil\n\nbody\n"; } >msg &&
	echo b >tree/f && git -C tree commit -q -a -F "$SCRATCH/msg" 2>/dev/null &&
	printf "big: %s\n" "$BIG" >msg &&
	echo c >tree/f && git -C tree commit -q -a -F "$SCRATCH/msg" &&
	git -C tree cat-file commit HEAD~1 |
		sed "s/^author Ève Hostile/author <script>document.title=\x27pwned\x27<\/script>\rBcc: a@evil \x1b[2J Ève/" >obj &&
	EVIL=$(git -C tree hash-object -t commit -w --literally --stdin <obj) &&
	git -C tree update-ref refs/heads/evil "$EVIL" &&
	git -C tree cat-file commit evil | grep -q "^author <script>" &&
	{ git -C tree cat-file commit HEAD | sed "/^\$/q" &&
	  printf "nul\000<script>document.title=1</script>\n\nbody\n"; } >obj &&
	NUL=$(git -C tree hash-object -t commit -w --literally --stdin <obj) &&
	git -C tree update-ref refs/heads/nul "$NUL" &&
	git -C tree log --format=%s -1 HEAD~1 | grep -q "Bcc: x@evil"
'

test_expect_success 'parse, diff, compare: tables without control bytes, JSON that parses' '
	hostile_log a.log 1 && hostile_log b.log 9 &&
	n=$(wc -l <hostile.txt) &&
	for c in "parse --top 20 a.log" "parse --summary a.log b.log" "diff --all a.log b.log" \
		"compare --all --base a.log --cand b.log"; do
		bootgate $c >table.out 2>table.err &&
		no_control table.out && no_control table.err || return 1
	done &&
	bootgate parse --top 20 a.log >table.out 2>table.err &&
	test_grep "a.log:[0-9]*: line longer than 65536 bytes, skipped" table.err &&
	test_grep "^  <script>document.title=.pwned.</script> " table.out &&
	test_grep "^  inv\\\\xff\\\\xfe " table.out &&
	test "$(grep -c "^  " table.out)" = $((2 * (n + 1) + 2)) &&
	test "$(grep "^  inv" table.out | awk "{ print length }")" = 76 &&
	test "$(grep "^  q\"" table.out | awk "{ print length }")" = 76 &&
	bootgate diff --all a.log b.log 2>/dev/null | grep "^initcall\.inv\|^metric" |
		awk "{ print length }" | uniq >widths &&
	test "$(cat widths)" = 92 &&
	bootgate compare --all --base a.log --cand b.log 2>/dev/null |
		grep "^initcall\.inv\|^initcall\.bel\|^metric" | awk "{ print length }" | uniq >widths &&
	test "$(cat widths)" = 135 &&
	bootgate parse --json a.log >p.json && json_ok p.json &&
	test_jq ".logs[0].initcalls | length == $n + 1" p.json &&
	test_jq ".logs[0].initcalls | map(.name) | index(\"<script>document.title=\u0027pwned\u0027</script>\") != null" p.json &&
	test_jq ".logs[0].initcalls | map(.name) | index(\"inv\ufffd\ufffd\") != null" p.json &&
	test_jq ".logs[0].initcalls | map(.name) | index(\"c1\u009b31m\") != null" p.json &&
	test_jq ".logs[0].initcalls | map(.name | length) | max == 65003" p.json &&
	test_jq "[.logs[0].initcalls[].name, .logs[0].probes[].device |
		select(startswith(\"nul\"))] == []" p.json &&
	bootgate diff --json --all a.log b.log >d.json && json_ok d.json &&
	test_jq "[.rows[] | select(.a_line != null)] | length >= $n" d.json &&
	bootgate compare --json --all --base a.log --cand b.log >c.json && json_ok c.json
'

# series_mail FILE: a patch mail whose encoded subject and author carry the payloads
series_mail() {
	s=$(printf "<img src=x onerror=document.title='pwned'> \r\nBcc: x@evil \033[2J \377\376 \007" |
		base64 -w0) &&
	a=$(printf "<script>document.title='pwned'</script> \033]8;;http://e/\007" | base64 -w0) &&
	cat >"$1" <<EOM
From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001
From: =?UTF-8?B?$a?= <evil@example.org>
Date: Tue, 1 Dec 2026 18:31:49 +0000
Message-ID: <p1@evil>
Subject: [PATCH 1/1] =?UTF-8?B?$s?=

---
diff --git a/g b/g
new file mode 100644
index 0000000..814f4a4
--- /dev/null
+++ b/g
@@ -0,0 +1 @@
+text
-- 
2.39.5
EOM
}

test_expect_success 'the real paths: gate records the commits, series the mail' '
	bootgate gate --tree tree --name hostile --rev evil --arch x86_64 --db "$DB" \
		>gate.out 2>gate.err &&
	bootgate gate --tree tree --name hostile --rev master --arch x86_64 --db "$DB" \
		>>gate.out 2>>gate.err &&
	bootgate gate --tree tree --name hostile --rev nul --arch x86_64 --db "$DB" \
		>>gate.out 2>>gate.err &&
	no_control gate.out && no_control gate.err &&
	test "$(sql "SELECT subject FROM commits WHERE sha = '\''$(git -C tree rev-parse nul)'\''")" = nul &&
	test "$(sql "SELECT count(*) FROM commits WHERE subject LIKE '\''%<script>%Bcc: x@evil%'\''
		AND author LIKE '\''%</script>%Bcc: a@evil%'\''")" = 1 &&
	test "$(sql "SELECT max(length(subject)) FROM commits")" = $((65000 + 5)) &&
	series_mail p.mbox &&
	test_exit_code 1 bootgate series --tree tree --name hostile --arch x86_64 --db "$DB" \
		p.mbox >series.out 2>series.err &&
	no_control series.out && no_control series.err &&
	test "$(sql "SELECT count(*) FROM series WHERE subject LIKE '\''%<img src=x%'\''
		AND author LIKE '\''<script>%'\''")" = 1
'

# What only a kernel build and a QEMU boot would make, written as those would: two
# boots whose samples are the parser's reading of the hostile logs, a comparison whose
# verdicts are "bootgate compare --json" of them (lib-store.sh), two bisections that
# found the hostile commits with their steps, an event, and the outbox asking for the
# mails.
test_expect_success 'setup: boots, a comparison, a bisection and mails of the hostile text' '
	BASE=$(git -C tree rev-parse HEAD~2) && EVIL=$(git -C tree rev-parse evil) &&
	LONG=$(git -C tree rev-parse master) &&
	METRIC="initcall.<script>document.title='\''pwned'\''</script>" &&
	M=$(echo "$METRIC" | sed "s/'\''/'\'''\''/g") &&
	{
		echo "BEGIN;" &&
		echo "INSERT INTO builds (commit_sha, board, status, image_sha256, created) VALUES
			('\''$BASE'\'', '\''qemu-x86_64'\'', '\''built'\'', '\''img-base'\'', 0),
			('\''$EVIL'\'', '\''qemu-x86_64'\'', '\''built'\'', '\''img-evil'\'', 0),
			('\''$LONG'\'', '\''qemu-x86_64'\'', '\''built'\'', '\''img-evil'\'', 0);" &&
		store_boot 1 img-base "$SCRATCH/a.log" &&
		store_boot 2 img-evil "$SCRATCH/b.log" &&
		store_comparison 1 gate 0 "$BASE" "$EVIL" regression "$METRIC" "1:a.log" "2:b.log" &&
		echo "UPDATE comparisons SET mode = '\''timing'\'', delta = 800, created = 1000
			WHERE id = 1;" &&
		echo "INSERT INTO bisections (id, tree_id, good, bad, board, mode, metric, state,
			outcome, culprit, confidence, created, finished, range_first, range_last,
			builds, boots, wall_s) VALUES (1,
			(SELECT id FROM trees WHERE name = '\''hostile'\''), '\''$BASE'\'', '\''$EVIL'\'',
			'\''qemu-x86_64'\'', '\''deterministic'\'', '\''$M'\'', '\''done'\'', '\''found'\'',
			'\''$EVIL'\'', 0.998, 3000, 3100, 1, 1, 2, 4, 9),
			(2, (SELECT id FROM trees WHERE name = '\''hostile'\''), '\''$BASE'\'', '\''$LONG'\'',
			'\''qemu-x86_64'\'', '\''deterministic'\'', '\''$M'\'', '\''done'\'', '\''found'\'',
			'\''$LONG'\'', 0.998, 3200, 3300, 1, 1, 2, 4, 9);" &&
		echo "INSERT INTO bisection_commits VALUES (1, 0, '\''$BASE'\''), (1, 1, '\''$EVIL'\''),
			(2, 0, '\''$BASE'\''), (2, 1, '\''$LONG'\'');" &&
		echo "INSERT INTO bisection_reports (bisection_id, seq, idx, kind, value) VALUES
			(1, 0, 0, '\''value'\'', 100), (1, 1, 1, '\''value'\'', 900),
			(2, 0, 0, '\''value'\'', 100), (2, 1, 1, '\''value'\'', 900);" &&
		store_comparison 2 step 1 "$BASE" "$EVIL" different "$METRIC" "1:a.log" "2:b.log" &&
		store_comparison 3 step 2 "$BASE" "$LONG" different "$METRIC" "1:a.log" "2:b.log" &&
		echo "INSERT INTO events (at, level, tree_id, message) VALUES (5000, '\''warning'\'', 1,
			CAST(X'\''3c623e1b5b324a0d0a4263633a20784065766996c0af07'\'' AS TEXT) || '\''$BIG'\'');" &&
		echo "INSERT INTO outbox (kind, ref, body, created) VALUES
			('\''bisection'\'', 1, '\''{}'\'', 0), ('\''series'\'', 1, '\''{}'\'', 0),
			('\''bisection'\'', 2, '\''{}'\'', 0);" &&
		echo "COMMIT;"
	} >fill.sql &&
	sql <fill.sql &&
	test "$(sql "SELECT count(*) FROM samples WHERE metric = '\''$(echo "$METRIC" | sed "s/'\''/'\'''\''/g")'\''")" = 2
'

# dom PAGE: the DOM headless Chromium builds from the site's PAGE, after its scripts ran
dom() {
	chromium --headless --no-sandbox --disable-gpu --user-data-dir="$SCRATCH/chromium" \
		--dump-dom "file://$SCRATCH/site/$1" 2>/dev/null
}

test_expect_success 'site: in Chromium no payload runs, the text shows, the rows stay' '
	bootgate site --db "$DB" --json site >site.json 2>site.err && json_ok site.json &&
	test_jq ".ok == true and .written == 15" site.json &&
	for f in $(find site -type f); do
		no_control "$f" &&
		test "$(LC_ALL=C.UTF-8 grep -c -a -x -v ".*" "$f")" = 0 || return 1
	done &&
	for f in comparison/1.json bisection/1.json series/1.json; do
		json_ok "site/$f" || return 1
	done &&
	for p in index.html:9 tree/hostile.html:3 comparison/1.html:30 bisection/1.html:3 \
		bisection/2.html:3 series/1.html:2; do
		page=${p%:*} rows=${p#*:} &&
		dom "$page" >dom.html &&
		test_grep "</html>" dom.html &&
		! grep -q "<title>pwned</title>" dom.html &&
		! grep -q -i "<script\|<img" dom.html &&
		test "$(grep -o "<tr" dom.html | wc -l)" = "$rows" &&
		test "$(grep -o "<tr" "site/$page" | wc -l)" = "$rows" || return 1
	done &&
	dom bisection/1.html >dom.html &&
	test_grep "&lt;script&gt;document.title=.pwned.&lt;/script&gt;" dom.html &&
	test_grep "q\".&amp;amp;" dom.html &&
	dom series/1.html >dom.html &&
	test_grep "&lt;img src=x onerror=document.title=.pwned.&gt;" dom.html &&
	dom comparison/1.html >dom.html &&
	test_grep "$(printf "inv\357\277\275\357\277\275")" dom.html
'

write_config() {
	cat >bootgate.yaml <<EOC
state: $SCRATCH/state
report:
  from: "bootgate robot <bootgate@ci.example.org>"
  smtp: smtp://127.0.0.1:$SMTP_PORT
  site-url: https://ci.example.org/boot/
trees:
  - name: hostile
    url: git://127.0.0.1:1/none
    branch: for-next
    arches: [x86_64]
    mail:
      to: ["list@example.org"]
      send: list
EOC
}

test_expect_success 'mail: no header injected, encoded words, short lines, a valid body' '
	write_config && start_sink &&
	bootgate mail --config bootgate.yaml --send --json >mail.json 2>mail.err &&
	json_ok mail.json && no_control mail.err &&
	test_jq "[.events[] | select(.what == \"sent\")] | length == 2" mail.json &&
	test "$(ls mails | wc -l)" = 2 &&
	for m in mails/*; do
		sed "/^\$/q" "$m" >h && ! grep -i -a "^bcc:" h || return 1
	done &&
	for id in 1 2; do
		sql "SELECT writefile('\''sent.eml'\'', message) FROM mails WHERE id = $id" \
			>/dev/null &&
		test "$(wc -l <sent.eml)" -gt 20 &&
		test "$(LC_ALL=C grep -c -a -P "\r\$" sent.eml)" = "$(wc -l <sent.eml)" &&
		test "$(tr -d "\r\n" <sent.eml | LC_ALL=C grep -c -a -P "[\x00-\x08\x0a-\x1f\x7f]")" = 0 &&
		test "$(awk "length > 998" sent.eml | wc -l)" = 0 &&
		sed "/^\r\$/q" sent.eml >h.$id &&
		! grep -i -a "^bcc:" h.$id &&
		test "$(LC_ALL=C grep -c -a -P "[\x80-\xff]" h.$id)" = 0 &&
		test "$(wc -l <h.$id)" -lt 40 &&
		sed "1,/^\r\$/d" sent.eml >body.$id &&
		test "$(LC_ALL=C.UTF-8 grep -c -a -x -v ".*" body.$id)" = 0 || return 1
	done &&
	test_grep "^Subject: \[hostile:\] " h.1 && test_grep "^ =?UTF-8?Q?inv=C3=BF=C3=BE" h.1 &&
	test_grep "^        (\"<script>document.title=.pwned.</script>" body.1 &&
	test_grep "^ =?UTF-8?Q?B*=2E=2E=2E=3A?=" h.2 &&
	test_grep "^ initcall.<script>document.title=.pwned.</script> +800" h.2 &&
	test "$(tr -d "\r\n" <body.2 | grep -o "B*" | awk "length > m { m = length } END { print m }")" -ge 65000
'

test_expect_success 'JSON of the store: parses, no raw control byte, strings kept' '
	EVIL=$(git -C tree rev-parse evil) &&
	bootgate status --db "$DB" --json >st.json && json_ok st.json &&
	bootgate log --db "$DB" --json >log.json && json_ok log.json &&
	bootgate show --db "$DB" --json 1 >show.json && json_ok show.json &&
	bootgate export --kcidb --db "$DB" -o kcidb.json && json_ok kcidb.json &&
	test_jq "[.events[].message | select(startswith(\"<b>\u001b[2J\r\nBcc: x@evi\ufffd\ufffd\ufffd\u0007\"))] | length == 1" log.json &&
	test_jq "[.events[].message | select(length == 65000 + 23)] | length == 1" log.json &&
	test_jq "[.. | strings | select(contains(\"<script>document.title=\u0027pwned\u0027</script>\"))] | length > 0" kcidb.json &&
	test_jq "[.. | strings | select(test(\"\u009b\"))] | length > 0" kcidb.json
'

test_expect_success 'tables: show, status, log without control bytes, one line a row' '
	EVIL=$(git -C tree rev-parse evil) &&
	bootgate status --db "$DB" >st.out && no_control st.out &&
	# trees, boards, jobs, verdicts, bisections and boots: a heading and rows each
	test "$(wc -l <st.out)" = 14 &&
	bootgate log --db "$DB" >log.out && no_control log.out &&
	test "$(wc -l <log.out)" = "$(sql "SELECT count(*) FROM events")" &&
	test_grep "message=<b>\\\\x1b\\[2J\\\\x0d\\\\x0aBcc: x@evi" log.out &&
	bootgate show --db "$DB" 1 >show.out && no_control show.out &&
	test_grep "^culprit: $EVIL <script>document.title=.pwned.</script> " show.out &&
	test_grep "^the step: +800 µs (+800.0%), 100 -> 900 µs$" show.out &&
	test "$(wc -l <show.out)" = 8 &&
	bootgate show --db "$DB" "$EVIL" >show.out && no_control show.out &&
	test_grep "esc\\\\x1b\\[2Jclear osc\\\\x1b\\]8;;" show.out &&
	bootgate mail --config bootgate.yaml --dry-run >dry.out && no_control dry.out
'

test_done
