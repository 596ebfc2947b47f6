#!/bin/sh
# beside: t0100-kernel.sh
# The documentation against the code: every key the configuration readers accept is on
# bootgate.yaml(5), with its range and default, and the page names no key they do not
# read; the page renders without a warning; every relative link of the Markdown files
# leads to a file; the README stays short; make bench's figures land in bench/RESULTS.md.
. "$(dirname "$0")/lib.sh"

PAGE=$ROOT/docs/bootgate.yaml.5

# a call that reads a key, in the readers' own words (get_list, opt_str: their wrappers)
READ_KEY='(bg_conf_(str|str_req|long|list|map|maps)|get_list|opt_str)\([a-z_&>.-]+, "[A-Za-z0-9_.-]+"'

# code_keys FILE: every key name FILE asks its configuration for, one a line
code_keys() {
	grep -oE "$READ_KEY" "$1" | sed -E 's/.*"([^"]*)"$/\1/' | sort -u
}

# page_items SECTION: the page's key items under ".SH SECTION" (and its .SS), one a
# line: the key, a tab, the item's text on one line
page_items() {
	awk -v want="$1" '
	function flush() { if (key != "") print key "\t" text; key = ""; text = "" }
	/^\.SH / { flush(); sec = substr($0, 5); gsub(/"/, "", sec); next }
	sec != want { next }
	/^\.(TP|SS|PP|LP|P)( |$)/ { flush(); tp = ($0 ~ /^\.TP/); next }
	tp && /^\.B / { key = substr($0, 4); tp = 0; next }
	{ tp = 0; if (key != "") text = text " " $0 }
	END { flush() }' "$PAGE"
}

# page_keys SECTION: each dotted part of each key the section documents, one a line
page_keys() {
	page_items "$1" | cut -f1 | tr . '\n' | sort -u
}

# same_keys CODEFILE SECTION: the two lists of keys agree, or both differences are shown
same_keys() {
	code_keys "$ROOT/$1" >code.keys &&
	page_keys "$2" >page.keys &&
	test -s code.keys &&
	comm -23 code.keys page.keys >missing &&
	comm -13 code.keys page.keys >unread &&
	if [ -s missing ] || [ -s unread ]; then
		sed "s|^|$1 reads it, not on the page: |" missing >&2
		sed "s|^|on the page under $2, $1 never reads it: |" unread >&2
		return 1
	fi
}

# ranges CODEFILE SECTION: each number the code reads, its range ("MIN to MAX") and a
# literal default ("Default: N") in an item of that key
ranges() {
	grep -oE 'bg_conf_long\([a-z_&>.-]+, "[^"]*", [^,]*, [^,]*, [^,]*,' "$ROOT/$1" |
	sed -E 's/^bg_conf_long\([^,]*, "([^"]*)", ([^,]*), ([^,]*), ([^,]*),$/\1|\2|\3|\4/' >longs &&
	page_items "$2" >items &&
	bad=0 &&
	while IFS='|' read -r key def min max; do
		case $max in *[!0-9]*) max=$(($max)) ;; esac
		case $def in
		*[!0-9]*) def=$(sed -n "s/^#define $def \([0-9][0-9]*\)$/\1/p" "$ROOT/$1") ;;
		esac
		awk -F'\t' -v k="$key" '{ n = split($1, p, "."); if (p[n] == k) print $2 }' \
			items >item.txt
		if ! grep -q "[^0-9]$min to $max[^0-9]" item.txt; then
			echo "$1: '$key' is $min to $max; its item on the page does not say so" >&2
			bad=1
		fi
		if [ -n "$def" ] && ! grep -q "Default: $def[^0-9]" item.txt; then
			echo "$1: '$key' defaults to $def; its item on the page does not say so" >&2
			bad=1
		fi
	done <longs &&
	[ "$bad" = 0 ]
}

test_expect_success 'the service file: every key read by service-conf.c, and no other' '
	same_keys lib/conf/service-conf.c "SERVICE FILE"
'

test_expect_success 'the board files: every key read by board.c, and no other' '
	same_keys lib/conf/board.c "BOARD FILES"
'

test_expect_success 'no other file reads configuration keys (a new reader joins this test)' '
	(cd "$ROOT" && grep -rlE "bg_conf_(str|str_req|long|list|map|maps)\([^,]*, \"" \
		lib daemon workers --include="*.c") | sort >readers &&
	printf "lib/conf/board.c\nlib/conf/service-conf.c\n" >expect &&
	test_cmp expect readers
'

test_expect_success 'every number read: its range and default on its item' '
	ranges lib/conf/service-conf.c "SERVICE FILE" &&
	ranges lib/conf/board.c "BOARD FILES"
'

test_expect_success 'every key item says its default (or that it is required)' '
	{ page_items "SERVICE FILE"; page_items "BOARD FILES"; } >all &&
	test "$(wc -l <all)" -gt 50 &&
	sed -n "/Default\|Required/!p" all >nodefault &&
	cut -f1 nodefault | sed "s/^/no default on the page: /" >&2 &&
	test ! -s nodefault
'

if command -v man >/dev/null && command -v groff >/dev/null; then
	test_expect_success 'bootgate.yaml(5) renders at 80 columns without a warning' '
		MANWIDTH=80 man --warnings -l "$PAGE" >page.txt 2>warn &&
		test_cmp /dev/null warn &&
		test_grep "^BOOTGATE.YAML(5)" page.txt &&
		test_grep "limits.builds" page.txt
	'
else
	test_skip 'bootgate.yaml(5) renders at 80 columns without a warning' 'no man or groff'
fi

# md_links FILE: each relative link target of FILE, without its #anchor
md_links() {
	grep -oE '\]\([^)#[:space:]]+(#[^)]*)?\)' "$1" | sed -E 's/^\]\(//; s/\)$//; s/#.*//' |
		grep -vE '^[a-z]+:' || true
}

test_expect_success 'every relative link of the Markdown files leads to a file' '
	: >dead &&
	for f in "$ROOT"/README.md "$ROOT"/docs/*.md "$ROOT"/docs/*/*.md "$ROOT"/bench/*.md \
		"$ROOT"/lab-configs/README.md "$ROOT"/lab-configs/*/README.md; do
		[ -f "$f" ] || continue
		for l in $(md_links "$f"); do
			[ -e "$(dirname "$f")/$l" ] || echo "${f#$ROOT/}: $l" >>dead
		done
	done &&
	test_cmp /dev/null dead &&
	md_links "$ROOT/README.md" >readme.links &&
	test_grep "docs/INSTALL.md" readme.links
'

test_expect_success 'the README is under 100 lines and points at the documentation' '
	test "$(wc -l <"$ROOT/README.md")" -lt 100 &&
	test_grep "make demo" "$ROOT/README.md" &&
	test_grep "make check" "$ROOT/README.md" &&
	test_grep "systemctl enable --now bootgated" "$ROOT/README.md"
'

# usage_of PROGRAM [COMMAND]: the program's own usage line, without "usage: "
usage_of() {
	if [ $# = 1 ]; then "$1" --help 2>&1; else "$1" help "$2" 2>&1; fi |
		sed -n '1s/^usage: \(.*[^ ]\) *$/\1/p'
}

test_expect_success 'docs/CLI.md: every command, with the usage line it prints itself' '
	sed -n "/^\`\`\`$/,/^\`\`\`$/p" "$ROOT/docs/CLI.md" | sed "1d" |
		sed "/^\`\`\`$/,\$d" >doc.usage &&
	bootgate help | sed -n "/^commands:/,/^$/s/^  \([a-z-]*\) .*/\1/p" >cmds &&
	test "$(wc -l <cmds)" -gt 15 &&
	: >want.usage &&
	while read -r c; do usage_of "$BOOTGATE" "$c" >>want.usage; done <cmds &&
	usage_of "$ROOT/bin/bootgated" >>want.usage &&
	sort want.usage >want.sorted && sort doc.usage >doc.sorted &&
	test_cmp want.sorted doc.sorted
'

# a bench/ of stand-ins: one prints a figure, one fails
fake_bench() {
	mkdir -p fake/bench &&
	cp "$ROOT/bench/results.sh" fake/bench/ &&
	printf "#!/bin/sh\necho \"parse: %s MB/s\"\n" "$1" >fake/bench/bench-one.sh &&
	printf "#!/bin/sh\necho half a figure\nexit 3\n" >fake/bench/bench-two.sh
}

test_expect_success 'make bench: its figures replace their section of RESULTS.md' '
	fake_bench 512 &&
	printf "# Results\n\nhand-written, kept\n" >fake/bench/RESULTS.md &&
	sh fake/bench/results.sh fake/bench/RESULTS.md one >out 2>err &&
	test_grep "^parse: 512 MB/s$" out &&
	test_grep "^hand-written, kept$" fake/bench/RESULTS.md &&
	test_grep "^parse: 512 MB/s$" fake/bench/RESULTS.md &&
	test_grep "^Run of 20[0-9-]* [0-9:]* UTC, at " fake/bench/RESULTS.md &&
	fake_bench 640 &&
	sh fake/bench/results.sh fake/bench/RESULTS.md one >out 2>err &&
	test_grep "^parse: 640 MB/s$" fake/bench/RESULTS.md &&
	! grep -q "512 MB/s" fake/bench/RESULTS.md &&
	test "$(grep -c "^hand-written, kept$" fake/bench/RESULTS.md)" = 1 &&
	test "$(grep -c "make bench: begin" fake/bench/RESULTS.md)" = 1
'

test_expect_success 'make bench: a benchmark that fails is recorded as failed, exit 1' '
	fake_bench 700 &&
	printf "# Results\n" >fake/bench/RESULTS.md &&
	test_exit_code 1 sh fake/bench/results.sh fake/bench/RESULTS.md one two >out 2>err &&
	test_grep "^parse: 700 MB/s$" fake/bench/RESULTS.md &&
	test_grep "^half a figure$" fake/bench/RESULTS.md &&
	test_grep "bench-two.sh failed (exit 3)" fake/bench/RESULTS.md &&
	test_grep "bench-two.sh failed (exit 3)" err
'

test_done
