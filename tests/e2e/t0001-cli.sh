#!/bin/sh
# The command table, help and usage errors of the bootgate CLI.
. "$(dirname "$0")/lib.sh"

test_expect_success 'no command: usage on stderr, exit 2' '
	test_exit_code 2 bootgate 2>err &&
	test_grep "usage: bootgate COMMAND" err
'

test_expect_success 'help lists every command' '
	bootgate help >out &&
	for c in parse diff help version; do test_grep "^  $c " out; done
'

test_expect_success 'unknown command: exit 2, named' '
	test_exit_code 2 bootgate frobnicate 2>err &&
	test_grep "unknown command .frobnicate." err
'

test_expect_success 'parse --help prints the usage, exit 0' '
	bootgate parse --help >out &&
	test_grep "usage: bootgate parse \[--json | --summary\] \[--top N\] LOG|- ..." out
'

test_expect_success 'help COMMAND is the same as COMMAND --help' '
	bootgate help diff >a &&
	bootgate diff --help >b &&
	test_cmp a b
'

test_expect_success 'parse without a log: exit 2' '
	test_exit_code 2 bootgate parse 2>err &&
	test_grep "bootgate parse: no log given" err
'

test_expect_success 'unknown option: exit 2 with the usage' '
	test_exit_code 2 bootgate parse --frob x.log 2>err &&
	test_grep "usage: bootgate parse" err
'

test_expect_success '--top needs a number' '
	test_exit_code 2 bootgate parse --top many x.log 2>err &&
	test_grep "--top: .many. is not a whole number from 1 to 1000000" err
'

test_expect_success 'diff needs two logs' '
	test_exit_code 2 bootgate diff a.log 2>err &&
	test_grep "needs exactly two logs" err
'

test_expect_success 'version' '
	bootgate version >out &&
	test_grep "^bootgate [0-9]" out
'

test_done
