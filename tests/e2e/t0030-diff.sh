#!/bin/sh
# beside: t0100-kernel.sh
# bootgate diff: the planted 50 ms delay in init_kprobe_trace shows first, quoted as the
# kernel printed it before and after.
. "$(dirname "$0")/lib.sh"

cp "$FIXTURES"/bootlogs/x86_64-tiny-baseline-run2.log base.log
cp "$FIXTURES"/bootlogs/x86_64-tiny-regressed-run3.log regressed.log

test_expect_success 'largest change first, kernel lines quoted' '
	bootgate diff --top 4 base.log regressed.log >out &&
	test_cmp "$EXPECT/diff-kprobe.txt" out
'

test_expect_success 'JSON rows' '
	bootgate diff --json --all base.log regressed.log >out &&
	test_jq ".rows[0] | .metric == \"initcall.init_kprobe_trace\" and .a_usecs == 94
		and .b_usecs == 49882 and .delta == 49788
		and .b_line == \"initcall init_kprobe_trace+0x0/0x179 returned 0 after 49882 usecs\"" out &&
	test_jq "[.rows[] | select(.metric | startswith(\"initcall.\"))] | length == 185" out &&
	test_jq "[.rows[] | select(.metric == \"boot.init\")][0] | .a_usecs == 785188 and .b_usecs == 790752" out
'

test_expect_success 'a boot against itself: nothing changed' '
	bootgate diff --json --all base.log base.log >out &&
	test_jq "[.rows[].delta] | all(. == 0)" out
'

test_expect_success 'names that repeat are matched by occurrence' '
	cp "$FIXTURES"/bootlogs/x86_64-debian-6.1.0-57-run1.log d1.log &&
	cp "$FIXTURES"/bootlogs/x86_64-debian-6.1.0-57-run2.log d2.log &&
	bootgate diff --json --all d1.log d2.log >out &&
	test_jq "[.rows[] | select(.metric | startswith(\"initcall.blake2s_mod_init\"))] | length == 2" out &&
	test_jq "[.rows[] | select(.a_usecs == null or .b_usecs == null)] | length == 0" out
'

test_expect_success 'a module names its initcall: two modules, two metrics' '
	for us in 12 310; do
		printf "%s\n" "[    0.000000] Linux version 6.1.0 (x) (gcc 12) #1" \
			"[    5.101210] initcall nf_defrag_init+0x0/0x1000 [nf_defrag_ipv4] returned 0 after $us usecs" \
			"[    5.102410] initcall nf_defrag_init+0x0/0x1000 [nf_defrag_ipv6] returned 0 after 310 usecs" \
			"[    5.200000] Run /init as init process" >m$us.log || return 1
	done &&
	bootgate diff --json --all m12.log m310.log >out &&
	jq -r ".rows[] | select(.metric | startswith(\"initcall.\")) | \"\(.metric) \(.delta)\"" out >got &&
	printf "%s\n" "initcall.nf_defrag_init[nf_defrag_ipv4] 298" \
		"initcall.nf_defrag_init[nf_defrag_ipv6] 0" >want &&
	test_cmp want got
'

test_expect_success 'the parse tables name a module'"'"'s initcall as its metric does' '
	bootgate parse m12.log >out &&
	test_grep "^  nf_defrag_init\[nf_defrag_ipv6\] .* 310 " out &&
	test_grep "^  nf_defrag_init\[nf_defrag_ipv4\] .* 12 " out &&
	bootgate parse --summary m12.log >out &&
	test_grep " nf_defrag_init\[nf_defrag_ipv6\] 0.310 " out
'

test_expect_success 'a file with no kernel log in it: refused, exit 1, no table' '
	gzip -9 -c base.log >bin.log &&
	echo "hello world" >junk.log &&
	: >empty.log &&
	test_exit_code 1 bootgate diff bin.log base.log >out 2>err &&
	test_grep "^bootgate: error: bin.log: binary data ([0-9]* NUL bytes) and no kernel log in it$" err &&
	test ! -s out &&
	test_exit_code 1 bootgate diff base.log junk.log >out 2>err &&
	test_grep "^bootgate: error: junk.log: no kernel log in it$" err &&
	test ! -s out &&
	test_exit_code 1 bootgate diff --json empty.log empty.log >out 2>err &&
	test_grep "^bootgate: error: empty.log: empty log, no kernel log in it$" err &&
	test ! -s out
'

test_expect_success 'boots of different arches: refused as compare refuses them' '
	cp "$FIXTURES"/bootlogs/arm64-tiny-baseline-run1.log arm.log &&
	test_exit_code 1 bootgate diff base.log arm.log >out 2>err &&
	test_grep "^bootgate: error: A is x86 (base.log) and B arm (arm.log): boots of different arches are not compared$" err &&
	test ! -s out
'

test_expect_success 'a missing log: exit 1' '
	test_exit_code 1 bootgate diff base.log nope.log 2>err &&
	test_grep "cannot open .nope.log." err
'

test_expect_success 'a newline in a log file name forges no row: the name is escaped' '
	name=$(printf "x.log\nB  forged.log") &&
	cp base.log "$name" &&
	bootgate diff --top 1 "$name" regressed.log >out &&
	test "$(grep -c "^[AB]  " out)" = 2 &&
	test_grep "^A  x.log\\\\x0aB  forged.log  " out
'

test_expect_success '--top N and --all together: usage, exit 2' '
	test_exit_code 2 bootgate diff --top 3 --all base.log regressed.log >out 2>err &&
	test_grep "\-\-top and \-\-all" err &&
	test ! -s out
'

test_done
