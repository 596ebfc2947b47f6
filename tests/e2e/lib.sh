# Sourced by every end-to-end test (git's t/test-lib.sh in small): each test file runs
# in its own scratch directory, each case in a subshell with "set -e", and the file
# ends with "N passed, N failed", then ", N skipped" when a case could not run here.
#
# A case fails when any of its commands fails. Two things make sure of it: the body runs
# where "set -e" holds (never as the condition of an "if", where POSIX switches it off),
# and before that a chain lint (git's) checks that its commands are joined by "&&": run
# as "(exit 117) && BODY", an unbroken chain stops at once with 117, while a line that
# does not continue the chain runs on its own and changes the status.
set -u

TEST_NAME=$(basename "$0" .sh)
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BOOTGATE=${BOOTGATE:-$ROOT/bin/bootgate}
FIXTURES=$ROOT/tests/fixtures
EXPECT=$ROOT/tests/e2e/expect
# a test may set SCRATCH_BASE (the build sandbox hides /tmp: its test lives elsewhere)
SCRATCH=$(mktemp -d "${SCRATCH_BASE:-${TMPDIR:-/tmp}}/bootgate-$TEST_NAME.XXXXXX")
trap 'rm -rf "$SCRATCH"' EXIT
# stopped (Ctrl-C, or tests/run.sh ending a script beside another), it still runs its
# EXIT trap: the daemons and servers it started are stopped, its scratch removed
trap 'exit 130' INT
trap 'exit 143' TERM HUP
cd "$SCRATCH" || exit 1
export LC_ALL=C

test_count=0
test_passed=0
test_failed=0
test_skipped=0

bootgate() {
	"$BOOTGATE" "$@"
}

# git_ ARGS: git with a committer of its own and master as the first branch
git_() {
	git -c user.name=t -c user.email=t@localhost -c init.defaultBranch=master "$@"
}

# series_fixture NAME TIP: a copy of tests/fixtures/series/NAME whose base-commit: line
# names TIP, the scenario tree's tip here, and its path. kernel-repo.sh commits the
# kernel source when it imports it, so each machine's commits have ids of their own.
series_fixture() {
	sed "s/^base-commit: .*/base-commit: $2/" "$FIXTURES/series/$1" >"$SCRATCH/$1" &&
	echo "$SCRATCH/$1"
}

# new_store FILE: an empty store made by the project's migrations, as bootgated makes it
# (the commands that only read or mail from a store never make one)
new_store() {
	mkdir -p "$(dirname "$1")" &&
	cat "$ROOT"/schemas/[0-9][0-9][0-9]-*.sql | sqlite3 "$1" &&
	sqlite3 "$1" "PRAGMA user_version = $(ls "$ROOT"/schemas/[0-9][0-9][0-9]-*.sql | wc -l)"
}

# tiny_lab: ./lab with one board, "tiny", that builds the make target "image" of a tree
# standing in for a kernel (its image.bin)
tiny_lab() {
	mkdir -p lab/boards lab/kconfig &&
	echo "CONFIG_TINY=y" >lab/kconfig/tiny.config &&
	cat >lab/boards/tiny.yaml <<EOF
name: tiny
arch: tiny
kernel_arch: x86
make_target: image
image: image.bin
fragments: [tiny.config]
qemu: qemu-system-x86_64
machine: pc
cmdline: console=ttyS0
EOF
}

# kconfig_stub TREE: TREE/scripts/kconfig/merge_config.sh for a tree standing in for a
# kernel, which adds each fragment to the .config as the kernel's does
# (merge_config.sh -m -O DIR CONFIG FRAGMENT...)
kconfig_stub() {
	mkdir -p "$1/scripts/kconfig" &&
	printf '#!/bin/sh\nout=$3; shift 4; cat "$@" >>"$out/.config"\n' \
		>"$1/scripts/kconfig/merge_config.sh" &&
	chmod +x "$1/scripts/kconfig/merge_config.sh"
}

# The body of a case, in a function of its own so that "return 1" ends it.
test_body_() {
	eval "$1"
}

# test_note MESSAGE: a figure a case measured, printed under its "ok" line
test_note() {
	echo "$*" >>"$SCRATCH/.case-notes"
}

# test_expect_success DESCRIPTION BODY
# With TEST_ONLY=N, only the N-th case runs (to show that a case needs no other).
test_expect_success() {
	test_count=$((test_count + 1))
	if [ -n "${TEST_ONLY:-}" ] && [ "$TEST_ONLY" != "$test_count" ]; then
		return 0
	fi
	rm -f "$SCRATCH/.case-notes" "$SCRATCH/.case-why"
	case_start=$(date +%s)
	lint=$( (test_body_ "(exit 117) && $2
echo chain-\$? >&3") 3>&1 >/dev/null 2>&1)
	if [ "$lint" != chain-117 ]; then
		echo "broken &&-chain in this case: a command's failure would go unnoticed" \
			>"$SCRATCH/.case-out"
		rc=1
	else
		(set -e; test_body_ "$2") >"$SCRATCH/.case-out" 2>&1
		rc=$?
	fi
	if [ "$rc" = 0 ]; then
		test_passed=$((test_passed + 1))
		echo "ok $test_count - $TEST_NAME: $1"
		[ ! -s "$SCRATCH/.case-notes" ] || sed 's/^/#   /' "$SCRATCH/.case-notes"
		# where a script's minutes go, for the suite's budget: the cases that cost some
		case_secs=$(($(date +%s) - case_start))
		[ "$case_secs" -lt 30 ] || echo "#   this case: $case_secs s"
	else
		test_failed=$((test_failed + 1))
		echo "not ok $test_count - $TEST_NAME: $1"
		# the figures noted before the failure, then what the case printed, then why a
		# check failed where its message went elsewhere (test_exit_code ... 2>err)
		[ ! -s "$SCRATCH/.case-notes" ] || sed 's/^/#   /' "$SCRATCH/.case-notes"
		sed 's/^/#   /' "$SCRATCH/.case-out"
		[ ! -s "$SCRATCH/.case-why" ] ||
			grep -vxF -f "$SCRATCH/.case-out" "$SCRATCH/.case-why" | sed 's/^/#   /'
	fi
}

# test_cmp EXPECTED ACTUAL
test_cmp() {
	diff -u "$1" "$2"
}

# test_exit_code WANT COMMAND...: runs COMMAND, fails unless it exits with WANT
test_exit_code() {
	want=$1
	shift
	set +e
	"$@"
	got=$?
	set -e
	if [ "$got" != "$want" ]; then
		# kept for the failure's report too: the caller may send stderr to a file
		echo "exit code $got, want $want: $*" | tee -a "$SCRATCH/.case-why" >&2
		return 1
	fi
}

# test_jq FILTER [FILE]: fails unless FILE (or standard input) holds JSON for which
# FILTER is true. (jq 1.6's -e passes on an empty input: a command that printed nothing
# would pass every check made with it.)
test_jq() {
	if [ $# -lt 2 ]; then
		cat >"$SCRATCH/.jq-in"
		set -- "$1" "$SCRATCH/.jq-in"
	fi
	if [ ! -s "$2" ]; then
		echo "test_jq: no JSON to check in $2" >&2
		return 1
	fi
	if ! jq -e "$1" "$2" >/dev/null; then
		echo "test_jq: not true of $2: $1" >&2
		return 1
	fi
}

# test_grep PATTERN FILE: fails, showing FILE, when PATTERN is not in it
test_grep() {
	if ! grep -q -e "$1" "$2"; then
		echo "'$1' not found in $2:" >&2
		cat "$2" >&2
		return 1
	fi
}

# test_skip DESCRIPTION REASON: a case that cannot run here (what it needs is absent),
# counted apart and said in the summary, so that it never reads as a pass
test_skip() {
	test_count=$((test_count + 1))
	if [ -n "${TEST_ONLY:-}" ] && [ "$TEST_ONLY" != "$test_count" ]; then
		return 0
	fi
	test_skipped=$((test_skipped + 1))
	echo "ok $test_count - $TEST_NAME: $1 # skip $2"
}

test_done() {
	if [ "$test_skipped" = 0 ]; then
		echo "$test_passed passed, $test_failed failed"
	else
		echo "$test_passed passed, $test_failed failed, $test_skipped skipped"
	fi
	[ "$test_failed" = 0 ]
}
