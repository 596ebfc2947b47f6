#!/bin/sh
# beside: t0085-build-sandbox.sh
# A tree's first build of a board starts from another tree's build of it (bootgate-build's
# seed_work): what the two trees' sources share is not built again, what differs is, and
# the image is the tree's own (an untrusted build's too, in its copy). Nothing else is
# seeded: a worktree with a build beside it (its sources made to look old would fool that
# build), a worktree made again beside an old build directory, a tree whose build was
# interrupted, a build without the sandbox. Trees with a Makefile of their own stand in
# for kernels; each one's build directory lists what it compiled.
#
# The scratch directory is not under /tmp: the sandbox puts an empty /tmp in place.
SCRATCH_BASE=/var/tmp
. "$(dirname "$0")/lib.sh"

BUILD=$ROOT/bin/bootgate-build
export BOOTGATE_CACHE=$SCRATCH/cache

# two boards of one arch: tiny, and tiny2 with a fragment of its own (its images are
# never tiny's)
tiny_lab
echo "CONFIG_TINY2=y" >lab/kconfig/tiny2.config
sed -e "s/^name: .*/name: tiny2/" -e "s/^fragments: .*/fragments: [tiny.config, tiny2.config]/" \
	lab/boards/tiny.yaml >lab/boards/tiny2.yaml

# new_tree NAME PAYLOAD: a tree whose image is common.c's bytes and then payload.c's,
# each copied in as its "object" and listed in o/compiled when it is; o/source is the
# link to the sources that kbuild makes. Its file "name" (not built) makes each tree's
# source its own: no image of another tree is ever kept for it.
new_tree() {
	mkdir -p "$1" &&
	cat >"$1/Makefile" <<'EOF' &&
O ?= .
tinyconfig:
	@mkdir -p $(O) && echo "# tiny" >$(O)/.config
olddefconfig:
	@test -f $(O)/.config
$(O)/%.o: %.c
	@cp $< $@ && echo $< >>$(O)/compiled
image: $(O)/common.o $(O)/payload.o
	@ln -sfn $(CURDIR) $(O)/source && cat $^ >$(O)/image.bin
.PHONY: image
EOF
	kconfig_stub "$1" &&
	echo "shared code" >"$1/common.c" &&
	echo "$2" >"$1/payload.c" &&
	echo "$1" >"$1/name" &&
	git_ -C "$1" init -q &&
	git_ -C "$1" add -A &&
	git_ -C "$1" commit -q -m "$1"
}

# payload TREE TEXT: a commit of TREE whose payload.c holds TEXT
payload() {
	echo "$2" >"$1/payload.c" &&
	git_ -C "$1" commit -q -a -m "$2"
}

# build TREE BOARD [OPTION...]: builds TREE's master, its result in TREE-BOARD.json and
# what it said in TREE-BOARD.err; the slot's directory (for tiny and tiny2) in $slot
build() {
	t=$1 b=$2 &&
	shift 2 &&
	"$BUILD" --lab lab --board "$b" --tree "$t" --commit master "$@" >"$t-$b.json" \
		2>"$t-$b.err" &&
	test_jq '.status == "built"' "$t-$b.json" &&
	slot=$(echo "$BOOTGATE_CACHE"/work/"$t"-*/tiny/boards/"$b")
}

# compiled: what the build directory in $slot lists as compiled, sorted (two jobs at once)
compiled() {
	sort "$slot/o/compiled"
}

# image TREE BOARD: the image's bytes
image() {
	cat "$(jq -r .image "$1-$2.json")"
}

new_tree a payload-a
new_tree b payload-b

test_expect_success 'the first tree is built whole: both of its files compiled' '
	build a tiny &&
	! grep "started from" a-tiny.err &&
	printf "shared code\npayload-a\n" >expect &&
	image a tiny >actual &&
	test_cmp expect actual &&
	printf "common.c\npayload.c\n" >expect &&
	compiled >actual &&
	test_cmp expect actual
'

test_expect_success 'a second tree starts from it: only the file that differs compiled' '
	build b tiny &&
	test_grep "started from the build in .$BOOTGATE_CACHE/work/a-[0-9a-f]*/tiny.*: 3 source files the same, 2 not" b-tiny.err &&
	printf "shared code\npayload-b\n" >expect &&
	image b tiny >actual &&
	test_cmp expect actual &&
	: the list copied from the first tree, and its own compile &&
	printf "common.c\npayload.c\npayload.c\n" >expect &&
	compiled >actual &&
	test_cmp expect actual &&
	: and its next build is an incremental one &&
	payload b payload-b2 &&
	build b tiny &&
	printf "shared code\npayload-b2\n" >expect &&
	image b tiny >actual &&
	test_cmp expect actual &&
	test "$(grep -c . "$slot/o/compiled")" = 4
'

test_expect_success 'a worktree with a build beside it is not seeded: its other board stays right' '
	new_tree c payload-c &&
	build c tiny2 &&
	! grep "started from" c-tiny2.err &&
	: payload.c now has the bytes of the second tree, whose build of tiny could seed &&
	payload c payload-b2 &&
	build c tiny &&
	! grep "started from" c-tiny.err &&
	build c tiny2 &&
	printf "shared code\npayload-b2\n" >expect &&
	image c tiny2 >actual &&
	test_cmp expect actual
'

test_expect_success 'a worktree made again beside a build directory is not seeded either' '
	new_tree d payload-d &&
	build d tiny2 &&
	rm -rf "$BOOTGATE_CACHE"/work/d-*/tiny/src &&
	payload d payload-b2 &&
	build d tiny &&
	! grep "started from" d-tiny.err &&
	build d tiny2 &&
	printf "shared code\npayload-b2\n" >expect &&
	image d tiny2 >actual &&
	test_cmp expect actual
'

test_expect_success 'an untrusted build starts from it too, in a copy: the seed stays as it was' '
	before=$(sort "$BOOTGATE_CACHE"/work/b-*/tiny/boards/tiny/o/compiled) &&
	new_tree u payload-u &&
	build u tiny --untrusted &&
	test_grep "started from the build in" u-tiny.err &&
	printf "shared code\npayload-u\n" >expect &&
	image u tiny >actual &&
	test_cmp expect actual &&
	test "$(sort "$BOOTGATE_CACHE"/work/b-*/tiny/boards/tiny/o/compiled)" = "$before" &&
	grep -q payload-b2 "$BOOTGATE_CACHE"/work/b-*/tiny/boards/tiny/o/payload.o
'

test_expect_success 'a seed with an object dated later than the checkout is refused' '
	: every seed has an object an hour ahead: copied, it would look newer than the sources &&
	touch -d "+1 hour" "$BOOTGATE_CACHE"/work/*/tiny/boards/tiny/o/payload.o &&
	new_tree h payload-h &&
	build h tiny &&
	test_grep "is dated after this build began" h-tiny.err &&
	! grep "started from" h-tiny.err &&
	printf "shared code\npayload-h\n" >expect &&
	image h tiny >actual &&
	test_cmp expect actual &&
	touch "$BOOTGATE_CACHE"/work/*/tiny/boards/tiny/o/payload.o
'

test_expect_success 'a link that points elsewhere than the seed'"'"'s: no seed, the right image' '
	: payload.c a link to one of two files that both trees hold &&
	for t in l1 l2; do
		new_tree $t payload-$t &&
		echo "one" >$t/one.c &&
		echo "two" >$t/two.c &&
		rm $t/payload.c &&
		git_ -C $t add one.c two.c &&
		git_ -C $t rm -q --cached payload.c || return 1
	done &&
	ln -s one.c l1/payload.c &&
	ln -s two.c l2/payload.c &&
	git_ -C l1 add payload.c && git_ -C l1 commit -q -m link &&
	git_ -C l2 add payload.c && git_ -C l2 commit -q -m link &&
	build l1 tiny &&
	build l2 tiny &&
	test_grep "cannot start from the build in .*/l1-.*payload.c. is not the same link" l2-tiny.err &&
	printf "shared code\ntwo\n" >expect &&
	image l2 tiny >actual &&
	test_cmp expect actual
'

test_expect_success 'a tree with an interrupted build (of any board) seeds nothing' '
	for w in "$BOOTGATE_CACHE"/work/*/tiny; do
		mkdir -p "$w/boards/tiny2" && : >"$w/boards/tiny2/building" || return 1
	done &&
	new_tree e payload-e &&
	build e tiny &&
	! grep "started from" e-tiny.err &&
	printf "common.c\npayload.c\n" >expect &&
	compiled >actual &&
	test_cmp expect actual &&
	rm "$BOOTGATE_CACHE"/work/*/tiny/boards/tiny2/building
'

test_expect_success 'a build without the sandbox is not seeded, and seeds nothing' '
	new_tree f payload-f &&
	build f tiny --no-sandbox &&
	! grep "started from" f-tiny.err &&
	printf "common.c\npayload.c\n" >expect &&
	compiled >actual &&
	test_cmp expect actual &&
	: its sources were not where a sandboxed build sees them: never a seed &&
	new_tree g payload-g &&
	build g tiny &&
	test_grep "started from the build in" g-tiny.err &&
	! grep "started from the build in .$BOOTGATE_CACHE/work/f-" g-tiny.err
'

test_done
