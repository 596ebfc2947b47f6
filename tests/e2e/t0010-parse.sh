#!/bin/sh
# beside: t0110-service.sh
# bootgate parse on the shipped real logs: tables, JSON, stdin, several boots in one log.
. "$(dirname "$0")/lib.sh"

cp "$FIXTURES"/bootlogs/*.log "$FIXTURES"/lava/*.yaml .

test_expect_success 'table of a regressed x86_64 boot' '
	bootgate parse --top 5 x86_64-tiny-regressed-run1.log >out &&
	test_cmp "$EXPECT/parse-x86_64-tiny-regressed-run1.txt" out
'

test_expect_success 'JSON of an arm64 boot, every initcall in boot order' '
	bootgate parse --json arm64-tiny-baseline-run1.log >out &&
	test_cmp "$EXPECT/parse-arm64-tiny-baseline-run1.json" out
'

test_expect_success 'each initcall, probe and init names the line that gave it, as sed reads the log' '
	for f in x86_64-tiny-regressed-run1.log x86_64-debian-6.1.0-57-run1.log fresh-chroot-job1-boot.log.yaml; do
		bootgate parse --json "$f" >j &&
		jq -r ".logs[0] | (.initcalls[] | \"\(.line) initcall \(.name)\"),
			(.probes[] | \"\(.line) probe of \(.device)\"),
			\"\(.milestones.init_line) Run /\"" j >want &&
		test "$(wc -l <want)" -gt 100 &&
		while read -r n what; do
			sed -n "${n}p" "$f" | grep -qF "$what" ||
				{ echo "$f:$n: not \"$what\": $(sed -n "${n}p" "$f")"; return 1; }
		done <want || return 1
	done
'

# figures worked out independently of bootgate (see tests/unit/t-bootlog.c)
cat >want <<\WANT
arm64-coreboot-panic-reboot.log 1 0 null panic activate_jump_labels
arm64-coreboot-panic-reboot.log 4 322 3319641 complete nf_defrag_init
arm64-tiny-baseline-run1.log 192 638672 862956 complete pty_init
arm64-tiny-baseline-run2.log 192 362686 478865 complete pty_init
ppc64-native-powernv.log 2 2137 1920112 complete pty_init
ppc64le-tiny-baseline-run1.log 266 374989 523644 complete pty_init
ppc64le-tiny-baseline-run2.log 266 394456 563167 complete pty_init
x86_64-debian-6.1.0-57-noinitrd-panic.log 670 1645942 null panic crypto_algapi_init
x86_64-debian-6.1.0-57-run1.log 670 1195684 2093205 complete crypto_algapi_init
x86_64-debian-6.1.0-57-run2.log 670 1206823 2645101 complete crypto_algapi_init
x86_64-tiny-baseline-run1.log 185 293290 1115802 complete pty_init
x86_64-tiny-baseline-run2.log 185 159477 785188 complete pty_init
x86_64-tiny-baseline-run3.log 185 162705 834851 complete pty_init
x86_64-tiny-regressed-run1.log 185 302887 1074148 complete init_kprobe_trace
x86_64-tiny-regressed-run2.log 185 220859 890150 complete pty_init
x86_64-tiny-regressed-run3.log 185 223180 790752 complete init_kprobe_trace
fresh-chroot-job1-boot.log.yaml 670 1978511 3398610 complete crypto_algapi_init
job10-incomplete.log.yaml 670 1394423 2910466 complete crypto_algapi_init
WANT

test_expect_success 'JSON of every shipped log: counts, sums, time to init, outcome' '
	bootgate parse --json *.log *.yaml >all.json &&
	jq -r ".logs[] | [.file, (.initcalls|length), ([.initcalls[].usecs]|add),
		.milestones.init_us, .outcome, (.initcalls|max_by(.usecs).name)] | map(tostring) | join(\" \")" \
		all.json >got &&
	test_cmp want got
'

test_expect_success 'JSON: every initcall has the contract fields' '
	bootgate parse --json *.log *.yaml >all.json &&
	test_jq "[.logs[].initcalls[] | has(\"name\") and has(\"module\") and has(\"ret\")
		and has(\"usecs\") and has(\"start_us\")] | all" all.json &&
	test_jq "[.logs[] | has(\"kernel\") and has(\"cmdline\") and has(\"unparsed_lines\")
		and (.milestones | has(\"init_us\") and has(\"userspace_us\"))] | all" all.json &&
	test_jq "[.logs[].unparsed_lines] | add == 0" all.json
'

test_expect_success 'standard input reads like the file' '
	bootgate parse --json x86_64-debian-6.1.0-57-run1.log | jq -c ".logs[0] | del(.file)" >a &&
	bootgate parse --json - <x86_64-debian-6.1.0-57-run1.log | jq -c ".logs[0] | del(.file)" >b &&
	test_cmp a b &&
	bootgate parse --json - <job10-incomplete.log.yaml | test_jq ".logs[0].initcalls | length == 670"
'

test_expect_success 'three boots in one log are three results' '
	cat x86_64-tiny-baseline-run1.log arm64-tiny-baseline-run1.log \
		x86_64-tiny-regressed-run3.log >three.log &&
	bootgate parse --json three.log >out &&
	jq -r ".logs[] | [.boot, (.initcalls|length), .milestones.init_us] | map(tostring) | join(\" \")" out >got &&
	printf "%s\n" "0 185 1115802" "1 192 862956" "2 185 790752" >want3 &&
	test_cmp want3 got
'

test_expect_success 'firmware opens no boot and gives no problem; a native ppc64 has an arch' '
	bootgate parse --json arm64-coreboot-panic-reboot.log ppc64-native-powernv.log >out &&
	jq -c ".logs[] | [.log_lines, .outcome, .arch, .problems_total]" out >got &&
	printf "%s\n" "[[9,20],\"panic\",\"arm\",2]" "[[28,49],\"complete\",\"arm\",3]" \
		"[[1,22],\"complete\",\"powerpc\",0]" >want2 &&
	test_cmp want2 got
'

test_expect_success 'summary: one line per boot' '
	bootgate parse --summary x86_64-tiny-baseline-run2.log x86_64-debian-6.1.0-57-noinitrd-panic.log >out &&
	test_cmp "$EXPECT/parse-summary.txt" out
'

test_expect_success 'a newline in a log file name forges no row: the name is escaped' '
	name=$(printf "x.log\n== forged.log (boot 9, lines 1-2)") &&
	cp x86_64-tiny-baseline-run2.log "$name" &&
	bootgate parse "$name" >out &&
	test "$(grep -c "^== " out)" = 1 &&
	test_grep "^== x.log\\\\x0a== forged.log (boot 9, lines 1-2) (boot 0, lines 8-570)$" out &&
	bootgate parse --summary "$name" x86_64-tiny-baseline-run2.log >out &&
	test "$(wc -l <out)" = 3 &&
	test_grep " x.log\\\\x0a== forged.log (boot 9, lines 1-2) (0)$" out
'

test_done
