#!/bin/sh
# beside: t0161-perf.sh
# bootgate bisect on real kernels, without a daemon: a culprit that is a merge is followed
# into the branch it brought, images byte-identical to a neighbour's take its boots, and
# the same command run again prints the stored result. The commits are made here on the
# cached repository (fixed dates: the same ids every run), under refs/heads/bisect-merge.
. "$(dirname "$0")/lib.sh"

TREE=$(sh "$ROOT/scripts/kernel-repo.sh")
export BOOTGATE_STATE=$SCRATCH/state

# commit TREE-OF PARENT... MESSAGE: a commit of the tree of TREE-OF with those parents
commit() {
	t=$1
	shift
	msg=$(eval echo "\${$#}")
	parents=""
	while [ $# -gt 1 ]; do
		parents="$parents -p $1"
		shift
	done
	# shellcheck disable=SC2086
	echo "$msg" | GIT_AUTHOR_NAME=A GIT_AUTHOR_EMAIL=a@example.org \
		GIT_COMMITTER_NAME=A GIT_COMMITTER_EMAIL=a@example.org \
		GIT_AUTHOR_DATE="2026-02-01 00:00 +0000" GIT_COMMITTER_DATE="2026-02-01 00:00 +0000" \
		git -C "$TREE" commit-tree "$t" $parents
}

# a tree: master's with one file replaced by a blob of text
with_file() {
	idx=$SCRATCH/.index
	GIT_INDEX_FILE=$idx git -C "$TREE" read-tree "$1" &&
	blob=$(printf '%s\n' "$3" | git -C "$TREE" hash-object -w --stdin) &&
	GIT_INDEX_FILE=$idx git -C "$TREE" update-index --add --cacheinfo "100644,$blob,$2" &&
	GIT_INDEX_FILE=$idx git -C "$TREE" write-tree
}

# master -- a1 (documentation) -- M (merges regress-kprobe-mdelay) -- a2 (documentation)
doc=Documentation/trace/bootgate-bisect.rst
a1=$(commit "$(with_file master $doc "one")" master "Documentation: one")
merged=$(with_file regress-kprobe-mdelay $doc "one")
m=$(commit "$merged" "$a1" regress-kprobe-mdelay "Merge branch 'regress-kprobe-mdelay'")
a2=$(commit "$(with_file "$m" $doc "two")" "$m" "Documentation: two")
git -C "$TREE" update-ref refs/heads/bisect-merge "$a2"
culprit=$(git -C "$TREE" rev-parse regress-kprobe-mdelay)

test_expect_success 'a merge is the culprit: the branch it brought is bisected to its commit' '
	"$ROOT/bin/bootgate" bisect --tree "$TREE" --good master --bad bisect-merge --arch x86_64 \
		--mode deterministic --no-confirm --json >r.json 2>err &&
	cat err &&
	test_jq ".culprit == \"$culprit\" and .merge == \"$m\" and .metric ==
		\"initcall.init_kprobe_trace\" and .outcome == \"found\"" r.json &&
	test_grep "is a merge: bisecting the branch it brought" err &&
	test_note "$(grep -c "^bisect: step" err) steps, $(jq .builds r.json) builds, $(jq .boots r.json) boots"
'

test_expect_success 'images byte-identical to a neighbour'"'"'s take its boots' '
	{ test -s r.json ||
	  "$ROOT/bin/bootgate" bisect --tree "$TREE" --good master --bad bisect-merge \
		--arch x86_64 --mode deterministic --no-confirm --json >r.json 2>/dev/null; } &&
	# a1 is documentation on master, a2 on the merge: four commits, two images
	boots=$(sqlite3 "$BOOTGATE_STATE/bootgate.db" "SELECT count(DISTINCT image_sha256) FROM boots") &&
	test "$boots" = 2 &&
	test_jq "[.steps[] | select(.commit == \"$a1\" or .commit == \"$a2\")] | length >= 1" r.json
'

test_expect_success 'the same command again prints the stored result, building nothing' '
	{ test -s r.json ||
	  "$ROOT/bin/bootgate" bisect --tree "$TREE" --good master --bad bisect-merge \
		--arch x86_64 --mode deterministic --no-confirm --json >r.json 2>/dev/null; } &&
	before=$(sqlite3 "$BOOTGATE_STATE/bootgate.db" "SELECT count(*) FROM builds") &&
	"$ROOT/bin/bootgate" bisect --tree "$TREE" --good master --bad bisect-merge --arch x86_64 \
		--mode deterministic --no-confirm --json >again.json 2>err &&
	test_grep "is done" err &&
	test "$(jq -c . again.json)" = "$(jq -c . r.json)" &&
	test "$(sqlite3 "$BOOTGATE_STATE/bootgate.db" "SELECT count(*) FROM builds")" = "$before" &&
	"$ROOT/bin/bootgate" show 1 >show &&
	test_grep "culprit: $culprit" show
'

test_done
