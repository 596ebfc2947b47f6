#!/bin/sh
# The test harness itself: a case whose command fails must fail, wherever the command is.
. "$(dirname "$0")/lib.sh"

# a test file of its own, run with the same lib.sh; its cases' names say what they expect
write_cases() {
	cat >cases.sh <<EOF
. "$ROOT/tests/e2e/lib.sh"
test_expect_success 'fail: a command fails, then one succeeds' 'false; true'
test_expect_success 'fail: a broken chain' 'true &&
false
true'
test_expect_success 'fail: a chain broken after a failing pair' 'false && true
true'
test_expect_success 'fail: the middle of a loop fails' 'for i in 1 2 3; do test \$i != 2 || return 1; done'
test_expect_success 'fail: the last link fails' 'true && false'
test_expect_success 'fail: a failing function' 'test_grep missing /dev/null'
test_expect_success 'fail: a JSON check of no output' ': >empty && test_jq ".a == 1" empty'
test_expect_success 'pass: a whole chain' 'true &&
echo a >a &&
for i in 1 2; do test -f a || return 1; done'
test_done
EOF
}

test_expect_success 'failures are counted, whatever their place in the case' '
	write_cases &&
	test_exit_code 1 env -u TEST_ONLY sh cases.sh >out 2>&1 &&
	cat out &&
	test_grep "^1 passed, 7 failed$" out &&
	test "$(grep -c "^not ok .*: fail: " out)" = 7 &&
	test "$(grep -c "^ok .*: pass: " out)" = 1
'

test_expect_success 'a broken chain is named as such' '
	write_cases &&
	test_exit_code 1 env -u TEST_ONLY sh cases.sh >out 2>&1 &&
	grep -A1 "fail: a chain broken after a failing pair" out >case &&
	test_grep "broken &&-chain" case
'

test_done
