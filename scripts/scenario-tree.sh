#!/bin/sh
# Makes the branches that stand in for a tracing tree in the tests and the benchmarks, on
# the cached kernel repository (scripts/kernel-repo.sh), without touching its worktree:
#
#   scenario-tree.sh              scenario-tracing: master plus the 12 patches of
#                                 scripts/scenario-tree/tracing/, ordinary changes under
#                                 kernel/trace/ and drivers/ that all change the x86_64
#                                 image; the 7th makes init_blk_tracer() 6 ms slower
#   scenario-tree.sh --range N    scenario-range-N: master plus N commits, each remapping
#                                 one key code in a table (HID and AT keyboards: one file
#                                 rebuilt; every 16th in the Sun keyboard driver, which the
#                                 board does not build: the image stays its parent's); the
#                                 one at N*83/128 (83 of 128) applies
#                                 scripts/scenario-tree/range/ instead, which makes
#                                 init_uprobe_trace() 4 ms slower
#   scenario-tree.sh --scenario tracing|printk|perf
#                                 seed-NAME: master plus 24 commits made from
#                                 scripts/scenario-tree/seed-NAME/: 23 ordinary ones, one
#                                 a line of its edits file (a message reworded in code
#                                 that is built: each changes the image, or the perf
#                                 binary, and not the boot), and the culprit patch:
#                                   tracing, 17th: the eval-map work at boot holds
#                                     event_mutex and trace_event_sem far longer, and
#                                     init_kprobe_trace() waits for them
#                                   printk, 9th: the legacy 8250 ports and their console
#                                     are registered in the ISA device's probe, which
#                                     flushes the whole backlog there, each character
#                                     given a frame at the base rate (87 us, 115200)
#                                   perf, 14th: perf trace loads the kernel's symbols
#                                     at start-up, which it does not need there
#   scenario-tree.sh --scenario NAME --commits N
#                                 seed-NAME-N: the same seed in a shorter history, N
#                                 commits from 3 to 23 (24 makes seed-NAME): the
#                                 first N-1 ordinary ones and the culprit where it is
#                                 in the seed, in proportion (of 8: tracing 6th,
#                                 printk 3rd, perf 5th), for the tests, which pay for
#                                 each step
#
# Options: --repo DIR (default: the cached repository), --force (replace a branch of that
# name whose tip is not the expected one; without it that is an error).
#
# Authors, committers and dates are fixed: the same script on the same master makes the
# same commit ids, so a rerun finds the branch at the expected tip and changes nothing.
# Prints, one per line: branch, base, tip, culprit, position (1-based), commits, metric
# (what the culprit moves) and initcall (its initcall, "-" for none).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
patches=$here/scenario-tree
usage="usage: scenario-tree.sh [--range N | --scenario tracing|printk|perf [--commits N]] [--repo DIR] [--force]"

range=""
scenario=""
commits=""
given_commits=0
given_scenario=0
repo=""
force=0
while [ $# -gt 0 ]; do
	case "$1" in
	--range)
		[ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }
		# given empty, it would make the default branch instead
		[ -n "$2" ] || { echo "scenario-tree.sh: --range wants a number from 2 to 4096, not ''" >&2; exit 2; }
		range=$2
		shift 2 ;;
	--scenario)
		[ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }
		scenario=$2
		given_scenario=1
		shift 2 ;;
	--commits)
		[ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }
		commits=$2
		given_commits=1
		shift 2 ;;
	--repo)
		[ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }
		# given empty, it would change the shared cached repository instead
		[ -n "$2" ] || { echo "scenario-tree.sh: --repo wants a directory, not ''" >&2; exit 2; }
		repo=$2
		shift 2 ;;
	--force)
		force=1
		shift ;;
	*)
		echo "$usage" >&2
		exit 2 ;;
	esac
done
if [ -n "$range" ]; then
	case "$range" in
	# five digits or more: past 4096, and past what test(1) reads as a number
	'' | *[!0-9]* | 0* | ?????*) echo "scenario-tree.sh: --range wants a number from 2 to 4096, not '$range'" >&2; exit 2 ;;
	esac
	if [ "$range" -lt 2 ] || [ "$range" -gt 4096 ]; then
		echo "scenario-tree.sh: --range wants a number from 2 to 4096, not '$range'" >&2
		exit 2
	fi
fi
case "$given_scenario:$scenario" in
0: | 1:tracing | 1:printk | 1:perf) ;;
*) echo "scenario-tree.sh: --scenario wants tracing, printk or perf, not '$scenario'" >&2; exit 2 ;;
esac
if [ "$given_commits" = 1 ]; then
	# given empty, it would make the whole seed instead
	case "$commits" in
	[3-9] | 1[0-9] | 2[0-4]) ;;
	*) echo "scenario-tree.sh: --commits wants a number from 3 to 24, not '$commits'" >&2; exit 2 ;;
	esac
	[ -n "$scenario" ] ||
		{ echo "scenario-tree.sh: --commits shortens a --scenario: give one" >&2; exit 2; }
fi
if [ -n "$scenario" ] && [ -n "$range" ]; then
	echo "scenario-tree.sh: --scenario and --range make different branches: give one" >&2
	exit 2
fi
[ -n "$repo" ] || repo=$(sh "$here/kernel-repo.sh")

g() { git -C "$repo" "$@"; }

base=$(g rev-parse -q --verify 'master^{commit}') ||
	{ echo "scenario-tree.sh: '$repo' has no master" >&2; exit 1; }

edits=""
culprit_patch=""
if [ -n "$scenario" ]; then
	branch=seed-$scenario
	edits=$patches/$branch/edits
	length=24
	case $scenario in
	tracing)
		culprit_at=17
		culprit_patch=$patches/seed-tracing/eval-maps-all-systems.patch
		initcall=init_kprobe_trace
		metric=initcall.init_kprobe_trace ;;
	printk)
		culprit_at=9
		culprit_patch=$patches/seed-printk/8250-console-at-probe.patch
		initcall=serial8250_init
		metric=probe.serial8250 ;;
	perf)
		culprit_at=14
		culprit_patch=$patches/seed-perf/culprit.patch
		initcall=-
		metric=perf.trace_startup ;;
	esac
	[ "$(grep -vc '^#' "$edits")" = $((length - 1)) ] ||
		{ echo "scenario-tree.sh: '$edits' wants $((length - 1)) commits" >&2; exit 1; }
	if [ -n "$commits" ] && [ "$commits" != 24 ]; then
		branch=seed-$scenario-$commits
		length=$commits
		# where it is in the seed, in proportion: the bisection walks the same way
		culprit_at=$(((culprit_at * commits + 12) / 24))
	fi
elif [ -z "$range" ]; then
	branch=scenario-tracing
	set -- "$patches"/tracing/*.patch
	length=$#
	culprit_at=7
	initcall=init_blk_tracer
	metric=initcall.init_blk_tracer
else
	branch=scenario-range-$range
	length=$range
	culprit_at=$((range * 83 / 128))
	[ "$culprit_at" -ge 1 ] || culprit_at=1
	initcall=init_uprobe_trace
	metric=initcall.init_uprobe_trace
fi

report() {
	echo "branch $branch"
	echo "base $base"
	echo "tip $1"
	echo "culprit $2"
	echo "position $culprit_at"
	echo "commits $length"
	echo "metric $metric"
	echo "initcall $initcall"
}

# A branch this script made from this master, with these patches, is recorded with a
# key of its inputs: a rerun checks the key instead of making every commit again.
key=$( { echo "$base $branch"; cat "$here/scenario-tree.sh" "$patches"/*/*.patch "$patches"/*/edits; } |
	sha256sum | cut -c1-64)
old=$(g rev-parse -q --verify "refs/heads/$branch" || true)
if [ -n "$old" ] && [ "$(g config --get "scenario-tree.$branch.key" || true)" = "$key" ] &&
	[ "$(g config --get "scenario-tree.$branch.tip" || true)" = "$old" ]; then
	report "$old" "$(g rev-parse "$old~$((length - culprit_at))")"
	exit 0
fi

echo "scenario-tree.sh: making $branch, $length commits on master ${base%"${base#????????????}"}" >&2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/scenario-tree.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# the files the commits change, as of the last commit made (git apply runs here, in no
# repository: git must not look above it for one)
work=$tmp/work
mkdir "$work"
export GIT_CEILING_DIRECTORIES="$tmp"
stream=$tmp/stream
: >"$stream"
ncommits=0
# the commits go to a ref of this run's own, then to the branch if it is new
tmpref=refs/scenario-tree/tmp-$$

maintainer="Elena Marsh <elena.marsh@example.org>"

# have PATH: makes sure $work holds PATH, taken from master the first time
have() {
	if [ ! -f "$work/$1" ]; then
		mkdir -p "$work/$(dirname "$1")"
		g cat-file blob "$base:$1" >"$work/$1" ||
			{ echo "scenario-tree.sh: master has no '$1'" >&2; exit 1; }
	fi
}

# data FILE: FILE's bytes as a fast-import data block
data() {
	printf 'data %s\n' "$(wc -c <"$1")" >>"$stream"
	cat "$1" >>"$stream"
	printf '\n' >>"$stream"
}

# commit "AUTHOR <EMAIL>" AUTHOR_EPOCH AUTHOR_TZ COMMITTER_EPOCH MSGFILE PATH...: one
# commit of the stream, on the one before it (on master for the first), with PATH... as
# they are now in $work
commit() {
	ncommits=$((ncommits + 1))
	{
		echo "commit $tmpref"
		echo "mark :$ncommits"
		echo "author $1 $2 $3"
		echo "committer $maintainer $4 +0000"
	} >>"$stream"
	data "$5"
	if [ "$ncommits" = 1 ]; then
		echo "from $base" >>"$stream"
	else
		echo "from :$((ncommits - 1))" >>"$stream"
	fi
	shift 5
	for p in "$@"; do
		echo "M 100644 inline $p" >>"$stream"
		data "$work/$p"
	done
}

# commit_patch FILE COMMITTER_EPOCH: applies a patch in the form git format-patch writes
commit_patch() {
	git mailinfo "$tmp/msg" "$tmp/patch" <"$1" >"$tmp/info"
	author=$(sed -n 's/^Author: //p' "$tmp/info")
	email=$(sed -n 's/^Email: //p' "$tmp/info")
	subject=$(sed -n 's/^Subject: //p' "$tmp/info")
	date=$(sed -n 's/^Date: //p' "$tmp/info")
	epoch=$(date -d "$date" +%s)
	tz=$(printf '%s\n' "$date" | sed -n 's/.* \([-+][0-9][0-9][0-9][0-9]\)$/\1/p')
	paths=$(sed -n 's|^+++ b/||p' "$tmp/patch")
	for p in $paths; do
		have "$p"
	done
	(cd "$work" && git apply "$tmp/patch") ||
		{ echo "scenario-tree.sh: '$1' does not apply to master" >&2; exit 1; }
	{ printf '%s\n\n' "$subject"; cat "$tmp/msg"; } >"$tmp/message"
	# shellcheck disable=SC2086
	commit "$author <$email>" "$epoch" "${tz:-+0000}" "$2" "$tmp/message" $paths
}

# remap FILE TABLE N: sets one key code of the table whose first line matches TABLE to a
# new value, chosen from N; prints "index old new"
remap() {
	awk -v table="$2" -v n="$3" -v note="$tmp/remap" '
		# the entries of the table: numbers, or names such as "unk" that are left alone
		function entries(line, f, i, k) {
			k = split(line, f, ",")
			for (i = 1; i <= k; i++)
				if (f[i] ~ /[^ \t]/)
					count++
		}
		NR == FNR {
			if (!intable && index($0, table) == 1) {
				intable = 1
				next
			}
			if (intable && $0 ~ /^};/)
				intable = 0
			if (intable)
				entries($0)
			next
		}
		FNR == 1 {
			if (count == 0)
				exit 1
			want = (n * 37) % count
			intable = 0
			idx = 0
			done = 0
		}
		{
			if (!intable && index($0, table) == 1) {
				intable = 1
				print
				next
			}
			if (intable && $0 ~ /^};/)
				intable = 0
			if (!intable || done) {
				print
				next
			}
			k = split($0, f, ",")
			for (i = 1; i <= k; i++) {
				if (f[i] !~ /[^ \t]/)
					continue
				# an entry that is not a number passes the turn to the next one
				if (idx >= want && !done && match(f[i], /[ ]*[0-9]+/)) {
					old = substr(f[i], RSTART, RLENGTH) + 0
					new = (old + 1 + (n * 29) % 200) % 240
					if (new == 0 || new == old)
						new = old % 239 + 1
					f[i] = substr(f[i], 1, RSTART - 1) sprintf("%" RLENGTH "d", new) \
						substr(f[i], RSTART + RLENGTH)
					printf "%d %d %d\n", idx, old, new >note
					done = 1
				}
				idx++
			}
			line = f[1]
			for (i = 2; i <= k; i++)
				line = line "," f[i]
			print line
		}
		END {
			if (!done)
				exit 1
		}' "$work/$1" "$work/$1" >"$tmp/remapped" ||
		{ echo "scenario-tree.sh: no table '$2' in '$1'" >&2; exit 1; }
	mv "$tmp/remapped" "$work/$1"
	cat "$tmp/remap"
}

# author N: the author of the generated commits numbered N, from 0 to 5
author() {
	case $1 in
	0) echo "Mira Okafor <mira.okafor@example.org>" ;;
	1) echo "Tomasz Lindqvist <tomasz.lindqvist@example.org>" ;;
	2) echo "Priya Raman <priya.raman@example.org>" ;;
	3) echo "Jonas Weber <jonas.weber@example.org>" ;;
	4) echo "Aiko Tanaka <aiko.tanaka@example.org>" ;;
	*) echo "Samuel Osei <samuel.osei@example.org>" ;;
	esac
}

# range_commit I: the I-th commit of the range, a key code remapped
range_commit() {
	i=$1
	case $((i % 16)) in
	10)
		f=drivers/input/keyboard/sunkbd.c
		table="static unsigned char sunkbd_keycode[128] = {"
		what="Input: sunkbd - Map scancode" ;;
	*)
		if [ $((i % 2)) = 1 ]; then
			f=drivers/hid/hid-input.c
			table="static const unsigned char hid_keyboard[256] = {"
			what="HID: input: Map keyboard usage"
		else
			f=drivers/input/keyboard/atkbd.c
			table="static const unsigned short atkbd_set3_keycode[ATKBD_KEYMAP_SIZE] = {"
			what="Input: atkbd - Map set 3 scancode"
		fi ;;
	esac
	have "$f"
	# shellcheck disable=SC2046
	set -- $(remap "$f" "$table" "$i")
	[ $# = 3 ] || exit 1
	who=$(author $((i % 4)))
	{
		printf '%s 0x%02x to key code %d\n\n' "$what" "$1" "$3"
		printf 'It reported key code %d, which the keyboards that send it do not\n' "$2"
		printf 'have printed on that key.\n\n'
		printf 'Signed-off-by: %s\n' "$who"
		printf 'Signed-off-by: %s\n' "$maintainer"
	} >"$tmp/message"
	# one commit every two hours from 2 Feb 2026, applied a day later
	t=$((1769990400 + i * 7200))
	commit "$who" "$t" +0000 $((t + 86400)) "$tmp/message" "$f"
}

# edit_commit I FILE OLD NEW AUTHOR SUBJECT WHY: the I-th commit of a seed branch,
# OLD's first occurrence in FILE replaced by NEW (taken as they are: no escapes)
edit_commit() {
	have "$2"
	OLD=$3 NEW=$4 awk '
		BEGIN { old = ENVIRON["OLD"]; new = ENVIRON["NEW"] }
		!done && (k = index($0, old)) {
			$0 = substr($0, 1, k - 1) new substr($0, k + length(old))
			done = 1
		}
		{ print }
		END { if (!done) exit 1 }' "$work/$2" >"$tmp/edited" ||
		{ echo "scenario-tree.sh: '$edits': commit $1: no '$3' in '$2'" >&2; exit 1; }
	mv "$tmp/edited" "$work/$2"
	who=$(author $(($5 - 1)))
	{
		printf '%s\n\n' "$6"
		printf '%s\n' "$7" | fold -s -w 72 | sed 's/ *$//'
		printf '\nSigned-off-by: %s\n' "$who"
		printf 'Signed-off-by: %s\n' "$maintainer"
	} >"$tmp/message"
	# one commit every three hours from 2 Feb 2026, applied a day later
	t=$((1769990400 + $1 * 10800))
	commit "$who" "$t" +0000 $((t + 86400)) "$tmp/message" "$2"
}

if [ -n "$scenario" ]; then
	i=0
	tab=$(printf '\t')
	grep -v '^#' "$edits" | head -n $((length - 1)) >"$tmp/edits"
	while IFS=$tab read -r e_file e_old e_new e_who e_subject e_why; do
		i=$((i + 1))
		if [ "$i" = "$culprit_at" ]; then
			commit_patch "$culprit_patch" $((1769990400 + i * 10800 + 86400))
			i=$((i + 1))
		fi
		edit_commit "$i" "$e_file" "$e_old" "$e_new" "$e_who" "$e_subject" "$e_why"
	done <"$tmp/edits"
elif [ -z "$range" ]; then
	n=0
	for p in "$patches"/tracing/*.patch; do
		n=$((n + 1))
		# applied as a series on 9 Feb 2026 at 10:00, a second apart
		commit_patch "$p" $((1770631200 + n))
	done
else
	i=0
	while [ "$i" -lt "$range" ]; do
		i=$((i + 1))
		if [ "$i" = "$culprit_at" ]; then
			commit_patch "$patches"/range/uprobe-settle.patch $((1769990400 + i * 7200 + 86400))
		else
			range_commit "$i"
		fi
	done
fi
printf 'done\n' >>"$stream"

g fast-import --quiet --force --done --export-marks="$tmp/marks" <"$stream" ||
	{ g update-ref -d "$tmpref" 2>/dev/null; echo "scenario-tree.sh: git fast-import failed" >&2; exit 1; }
g update-ref -d "$tmpref"
tip=$(sed -n "s/^:$ncommits //p" "$tmp/marks")
culprit=$(sed -n "s/^:$culprit_at //p" "$tmp/marks")

if [ "$ncommits" != "$length" ] || [ -z "$tip" ] || [ -z "$culprit" ]; then
	echo "scenario-tree.sh: $ncommits commits made, not $length" >&2
	exit 1
fi
old=$(g rev-parse -q --verify "refs/heads/$branch" || true)
if [ "$old" != "$tip" ]; then
	if [ -n "$old" ] && [ "$force" != 1 ]; then
		echo "scenario-tree.sh: branch '$branch' is at $old, not at the expected $tip (--force replaces it)" >&2
		exit 1
	fi
	# the old value guards against another run that made the branch meanwhile
	if ! g update-ref -m "scenario-tree.sh" "refs/heads/$branch" "$tip" "$old" 2>/dev/null; then
		[ "$(g rev-parse -q --verify "refs/heads/$branch")" = "$tip" ] ||
			{ echo "scenario-tree.sh: branch '$branch' changed meanwhile" >&2; exit 1; }
	fi
fi
g config "scenario-tree.$branch.key" "$key"
g config "scenario-tree.$branch.tip" "$tip"
report "$tip" "$culprit"
