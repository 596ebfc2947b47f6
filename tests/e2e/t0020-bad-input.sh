#!/bin/sh
# beside: t0100-kernel.sh
# Bad input: a clear message naming the file (and line), or an empty result with outcome
# "truncated"; never a crash, and the other logs are still read.
. "$(dirname "$0")/lib.sh"

cp "$FIXTURES"/bootlogs/x86_64-tiny-baseline-run1.log good.log

test_expect_success 'missing file: named, exit 1, the other logs still read' '
	test_exit_code 1 bootgate parse --json nope.log good.log >out 2>err &&
	test_grep "^bootgate: error: cannot open .nope.log.: No such file or directory$" err &&
	test_jq ".logs | length == 1 and .[0].file == \"good.log\"" out
'

test_expect_success 'a directory is not a log' '
	mkdir adir &&
	test_exit_code 1 bootgate parse adir 2>err &&
	test_grep "cannot read .adir.: Is a directory" err
'

test_expect_success 'empty file: no kernel log in it, exit 1, the other logs still read' '
	: >empty.log &&
	test_exit_code 1 bootgate parse --json empty.log good.log >out 2>err &&
	test_grep "^bootgate: error: empty.log: empty log, no kernel log in it$" err &&
	test_jq ".logs | length == 1 and .[0].file == \"good.log\"" out
'

test_expect_success 'binary file or text without a kernel log: named, exit 1, no row' '
	gzip -9 -c good.log >bin.log &&
	test_exit_code 1 bootgate parse --summary bin.log >out 2>err &&
	test_grep "^bootgate: error: bin.log: binary data ([0-9]* NUL bytes) and no kernel log in it$" err &&
	test ! -s out &&
	echo "hello world" >junk.log &&
	test_exit_code 1 bootgate parse junk.log >out 2>err &&
	test_grep "^bootgate: error: junk.log: no kernel log in it$" err &&
	test ! -s out
'

test_expect_success 'a timestamp out of range is an unparsed line, never a figure' '
	{
		echo "[    0.000000] Linux version 6.1.0 (x)" &&
		echo "[   -1.000000] initcall neg_init+0x0/0x1 returned 0 after 5 usecs" &&
		echo "[18446744073709.551615] initcall huge_init+0x0/0x1 returned 0 after 5 usecs" &&
		echo "[    0.100000] initcall ok_init+0x0/0x1 returned 0 after 7 usecs" &&
		echo "[99999999999.999999] Run /init as init process"
	} >ts.log &&
	bootgate parse --json ts.log >out 2>err &&
	test_jq ".logs[0] | .unparsed_lines == 3 and (.initcalls | length) == 1 and
		.initcalls[0].name == \"ok_init\" and .init_us == null and .outcome == \"truncated\"" out
'

test_expect_success 'a LAVA line with a lone surrogate escape: U+FFFD, and reading goes on' '
	{
		printf "%s\n" "- {\"dt\": \"t\", \"lvl\": \"target\", \"msg\": \"[    0.000000] Linux version 6.1.0 (x)\"}" &&
		printf "%s\n" "- {\"dt\": \"t\", \"lvl\": \"target\", \"msg\": \"[    0.050000] a \\ud800 b \\ud83d\\ude00 c\"}" &&
		printf "%s\n" "- {\"dt\": \"t\", \"lvl\": \"target\", \"msg\": \"[    0.100000] initcall a_init+0x0/0x1 returned 0 after 7 usecs\"}" &&
		printf "%s\n" "- {\"dt\": \"t\", \"lvl\": \"target\", \"msg\": \"[    0.200000] Run /init as init process\"}"
	} >sur.yaml &&
	bootgate parse --json sur.yaml >out 2>err &&
	test ! -s err &&
	test_jq ".logs[0] | .outcome == \"complete\" and .initcalls[0].usecs == 7" out &&
	{
		printf "%s\n" "- {\"dt\": \"t\", \"lvl\": \"target\", \"msg\": \"[    0.000000] Linux version 6.1.0 (x)\"}" &&
		printf "%s\n" "- {\"dt\": \"t\", \"lvl\": \"target\", \"msg\": \"[    0.050000] bad \\uzz here\"}"
	} >badesc.yaml &&
	bootgate parse --json badesc.yaml >out 2>err &&
	test_grep "warning: badesc.yaml:2:61: LAVA log is cut or malformed here (did not find expected hexdecimal number" err
'

test_expect_success 'a 10 MB line is skipped with its line number, the rest read' '
	head -n 300 good.log >long.log &&
	head -c 10485760 /dev/zero | tr "\0" "x" >>long.log &&
	printf "\n" >>long.log &&
	tail -n +301 good.log >>long.log &&
	bootgate parse --json long.log >out 2>err &&
	test_grep "warning: long.log:301: line longer than 65536 bytes, skipped" err &&
	test_jq ".logs[0] | (.initcalls|length) == 185 and .unparsed_lines == 1 and .outcome == \"complete\"" out
'

test_expect_success 'invalid UTF-8: still valid JSON, U+FFFD in its place' '
	printf "[    0.000000] Linux version 6.1\377+ (x)\n[    0.100000] initcall a\376_init+0x0/0x1 returned 0 after 5 usecs\n" >utf.log &&
	bootgate parse --json utf.log >out &&
	test_jq ".logs[0] | .kernel == \"6.1\uFFFD+\" and .initcalls[0].name == \"a\uFFFD_init\"" out
'

test_expect_success 'a LAVA log cut in the middle: where, and what came before' '
	head -c 120000 "$FIXTURES/lava/fresh-chroot-job1-boot.log.yaml" >cut.yaml &&
	bootgate parse --json cut.yaml >out 2>err &&
	test_grep "warning: cut.yaml:[0-9]*:[0-9]*: LAVA log is cut or malformed here (.*); entries kept: [0-9]*" err &&
	test_jq ".logs[0] | .outcome == \"truncated\" and .kernel == \"6.1.0-57-amd64\" and (.initcalls|length) > 100" out
'

test_expect_success 'a LAVA log that is not a list' '
	printf "%s\n" "- {\"dt\": 1, \"lvl\": \"target\", \"msg\": \"[    0.1] x\"}" "key: value" >notlist.yaml &&
	bootgate parse --json notlist.yaml >out 2>err &&
	test_grep "notlist.yaml:2:1:" err &&
	test_jq ".logs[0].outcome == \"truncated\"" out
'

test_expect_success 'numbers too large to be read exactly: the line is unparsed, never mangled' '
	{
		echo "[    0.000000] Linux version 6.1.0 (x)" &&
		echo "[    0.100000] initcall a_init+0x0/0x1 returned 0 after 99999999999999999999 usecs" &&
		echo "[    0.100001] initcall b_init+0x0/0x1 returned 0 after 922337203685477570 msecs" &&
		echo "[    0.100002] initcall c_init+0x0/0x1 returned 4294967296 after 5 usecs" &&
		echo "[    0.100003] probe of d0 returned 0 after 100000000001 usecs" &&
		echo "[    0.100004] initcall e_init+0x0/0x1 returned -22 after 9223372036854775807 usecs" &&
		echo "[    0.100005] initcall ok_init+0x0/0x1 returned -19 after 100000000 msecs" &&
		echo "[    0.200000] Run /init as init process"
	} >big.log &&
	bootgate parse --json big.log >out &&
	test_jq ".logs[0] | .unparsed_lines == 5 and (.initcalls | length) == 1 and
		.initcalls[0].name == \"ok_init\" and .initcalls[0].ret == -19 and
		.initcalls[0].usecs == 100000000000 and (.probes | length) == 0" out
'

test_expect_success 'a LAVA log nested 200 000 deep: cut there, the entries before kept' '
	{
		printf "%s\n" "- {\"dt\": \"t\", \"lvl\": \"target\", \"msg\": \"[    0.000000] Linux version 6.1.0 (x)\"}" &&
		printf "%s\n" "- {\"dt\": \"t\", \"lvl\": \"target\", \"msg\": \"[    0.100000] initcall a_init+0x0/0x1 returned 0 after 7 usecs\"}" &&
		printf "%s" "- " && head -c 200000 /dev/zero | tr "\0" "[" && echo
	} >deep.yaml &&
	timeout 120 "$BOOTGATE" parse --json deep.yaml >out 2>err &&
	test_grep "warning: deep.yaml:3: LAVA log cut here: nesting deeper than 64 levels; entries kept: 2" err &&
	test_jq ".logs[0] | .kernel == \"6.1.0\" and .initcalls[0].usecs == 7" out
'

test_expect_success 'a LAVA log that hides its nesting or spreads an entry over lines: cut at once' '
	{
		printf "%s\n" "- {\"dt\": \"t\", \"lvl\": \"target\", \"msg\": \"[    0.000000] Linux version 6.1.0 (x)\"}" &&
		printf "%s\n" "- x # \"" &&
		printf "%s" "- " && head -c 100000 /dev/zero | tr "\0" "[" && echo
	} >hidden.yaml &&
	timeout 120 "$BOOTGATE" parse --json hidden.yaml >out 2>err &&
	test_grep "warning: hidden.yaml:2:3: LAVA log is cut or malformed here" err &&
	test_jq ".logs[0].kernel == \"6.1.0\"" out &&
	{
		printf "%s\n" "- {\"dt\": \"t\", \"lvl\": \"target\", \"msg\": \"[    0.000000] Linux version 6.1.0 (x)\"}" &&
		printf "%s" "- {\"dt\": \"t\", \"lvl\": \"target\", \"msg\": \"" &&
		yes "a line of the same message" | head -n 200000 && echo "\"}"
	} >spread.yaml &&
	/usr/bin/time -f "%M" -o rss timeout 120 "$BOOTGATE" parse --json spread.yaml >out 2>err &&
	test_grep "warning: spread.yaml:2:.*LAVA log is cut or malformed here" err &&
	test "$(cat rss)" -lt 65536
'

test_expect_success 'a LAVA line past 1 MiB: cut there, the entries before kept' '
	{
		printf "%s\n" "- {\"dt\": \"t\", \"lvl\": \"target\", \"msg\": \"[    0.000000] Linux version 6.1.0 (x)\"}" &&
		printf "%s" "- {\"dt\": \"t\", \"lvl\": \"target\", \"msg\": \"" &&
		head -c 2000000 /dev/zero | tr "\0" "x" && echo "\"}"
	} >long.yaml &&
	timeout 120 "$BOOTGATE" parse --json long.yaml >out 2>err &&
	test_grep "warning: long.yaml:2: LAVA log cut here: a line longer than 1 MiB; entries kept: 1" err &&
	test_jq ".logs[0].kernel == \"6.1.0\"" out
'

test_expect_success 'BEL, escape sequences, DEL and bad UTF-8 never reach the terminal raw' '
	printf "[    0.000000] Linux version 6.1\033[2J\007 (x)\n[    0.1] initcall evil\177\302\233\377_init+0x0/0x1 returned 0 after 5000 usecs\n[    0.2] Run /init as init process\n" >evil.log &&
	bootgate parse evil.log >out &&
	! grep -q "$(printf "\033")" out &&
	! grep -q "$(printf "\007")" out &&
	! grep -q "$(printf "\177")" out &&
	test_grep "kernel      6.1\\\\x07" out &&
	test_grep "evil\\\\x7f\\\\xc2\\\\x9b\\\\xff_init" out &&
	bootgate compare --all --base evil.log --cand evil.log >cmp &&
	test_grep "^initcall.evil\\\\x7f" cmp &&
	test_exit_code 1 bootgate parse "evil$(printf "\033")]0;title$(printf "\007").log" 2>err &&
	! grep -q "$(printf "\033")" err &&
	test_grep "evil\\\\x1b]0;title\\\\x07.log" err
'

test_expect_success 'output that cannot be written: exit 1' '
	test_exit_code 1 bootgate parse --json good.log >/dev/full 2>err &&
	test_grep "No space left on device" err
'

# A reader that has gone (bootgate ... | head -1) is a write error like any other: the
# command is never killed by SIGPIPE between two steps of its work, it says so and exits
# 1. The pipe's read end is closed before bootgate starts (Python's os.pipe), so that no
# write can reach a reader: the same result on every run.
test_expect_success 'output to a pipe nobody reads: exit 1 and said, never killed by SIGPIPE' '
	/usr/bin/python3 -c "
import os, subprocess, sys
r, w = os.pipe()
os.close(r)
p = subprocess.run(sys.argv[1:], stdout=w, stderr=subprocess.PIPE)
sys.stdout.write(\"%d\\n%s\" % (p.returncode, p.stderr.decode()))
" "$BOOTGATE" parse good.log >out &&
	test "$(head -n 1 out)" = 1 &&
	test_grep "^bootgate: error: cannot write the output: Broken pipe$" out
'

test_done
