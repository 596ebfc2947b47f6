#!/bin/sh
# Real kernels: Debian's linux-source-6.1 built for x86_64, arm64 and ppc64le and booted
# under QEMU. The kernel tree, the build directories, ccache and images stay in
# $BOOTGATE_CACHE, so a second run is fast; a first run builds three kernels cold.
# (The build sandbox is tested on a small tree in t0080; every build here runs in it.
# Timing mode, which a busy host disturbs, is t0101's, a script that runs alone.)
. "$(dirname "$0")/lib.sh"

BUILD=$ROOT/bin/bootgate-build
BOOT=$ROOT/bin/bootgate-boot
TREE=$(sh "$ROOT/scripts/kernel-repo.sh")

# built REV BOARD: the build worker's result for REV, in $SCRATCH/built-REV-BOARD.json.
# Any case may ask first: it builds (or finds the build up to date) on the first call.
built() {
	f="$SCRATCH/built-$1-$2.json"
	if [ ! -s "$f" ]; then
		"$BUILD" --tree "$TREE" --commit "$1" --board "$2" >"$f.tmp" 2>"$f.err" ||
			{ cat "$f.err" >&2; return 1; }
		mv "$f.tmp" "$f"
	fi
	echo "$f"
}

test_expect_success 'x86_64: master builds, into a content-addressed artifact' '
	"$BUILD" --tree "$TREE" --commit master --board x86_64 --result master.json >out 2>err &&
	cmp out master.json &&
	test_jq ".status == \"built\" and .arch == \"x86_64\" and (.image | test(\"/artifacts/[0-9a-f]{64}/image$\"))" master.json &&
	test -s "$(jq -r .image master.json)" &&
	test "$(sha256sum <"$(jq -r .image master.json)" | cut -c1-64)" = "$(jq -r .image_sha256 master.json)" &&
	test -s "$(jq -r .artifact master.json)/config" &&
	test_jq ".compiler | startswith(\"gcc\")" master.json &&
	test_jq ".tree_id | test(\"^linux-[0-9a-f]{12}$\")" master.json
'

test_expect_success 'x86_64: three boots reach userspace, initcalls and boot.init read' '
	r=$(built master x86_64) &&
	"$BOOT" --image "$(jq -r .image "$r")" --board x86_64 --boots 3 --out boots >sum.json 2>err &&
	test_jq "[.boots[].outcome] == [\"complete\", \"complete\", \"complete\"] and .accel == \"tcg\"" sum.json &&
	for f in boots/*.log.json; do
		test_jq "(.initcalls | length) > 150 and .milestones.init_us > 100000 and
			.milestones.userspace_us > .milestones.init_us and .outcome == \"complete\" and
			.arch == \"x86\"" "$f" || return 1
	done &&
	test -s boots/boot-000-A.log.times
'

test_expect_success 'a change to documentation alone: the image is its parent'"'"'s' '
	m=$(built master x86_64) &&
	"$BUILD" --tree "$TREE" --commit docs-only --board x86_64 >docs.json 2>err &&
	test_jq ".identical_to_parent == true" docs.json &&
	test "$(jq -r .image_sha256 docs.json)" = "$(jq -r .image_sha256 "$m")" &&
	test_grep "byte-identical to its parent" err
'

test_expect_success 'the planted mdelay(50): deterministic mode sees 50 ms with one boot each' '
	"$ROOT/bin/bootgate" measure --tree "$TREE" --commit regress-kprobe-mdelay --against master \
		--arch x86_64 --mode deterministic --boots 1 --json >det.json 2>err &&
	test_jq ".comparison.verdicts[] | select(.metric == \"initcall.init_kprobe_trace\") |
		.verdict == \"different\" and .exact and .delta > 48000 and .delta < 52000" det.json &&
	test_jq ".commit.status == \"built\" and .against.status == \"built\" and
		(.boots | length) == 2 and all(.boots[]; .outcome == \"complete\")" det.json &&
	jq -r ".comparison.verdicts[] | select(.metric == \"initcall.init_kprobe_trace\") | .delta" det.json
'

test_expect_success 'a commit that does not build: exit 1, and its log' '
	test_exit_code 1 "$BUILD" --tree "$TREE" --commit broken-build --board x86_64 >broken.json 2>err &&
	test_jq ".status == \"failed\"" broken.json &&
	test_grep "does not build" err &&
	test_grep "error" "$(jq -r .log broken.json)" &&
	test_exit_code 1 "$ROOT/bin/bootgate" measure --tree "$TREE" --commit broken-build \
		--arch x86_64 --boots 1 2>err &&
	test_grep "does not build" err
'

test_expect_success 'a kernel that never reaches init: hang after the timeout, no QEMU left' '
	r=$(built master x86_64) &&
	mkdir -p root/lab-configs/boards &&
	cp -r "$ROOT/lab-configs/kconfig" root/lab-configs/ &&
	sed -e "s/^name: .*/name: qemu-x86_64-stopped/" -e "s/^boot_timeout: .*/boot_timeout: 6/" \
		-e "s/^qemu_args: \[/qemu_args: [-S, /" \
		"$ROOT/lab-configs/boards/qemu-x86_64.yaml" >root/lab-configs/boards/qemu-x86_64-stopped.yaml &&
	cp "$(jq -r .image "$r")" stopped-image &&
	test_exit_code 1 "$BOOT" --image stopped-image --lab root/lab-configs \
		--board qemu-x86_64-stopped --boots 1 --out hang >hang.json 2>err &&
	test_jq ".boots[0].outcome == \"hang\" and .boots[0].wall_seconds >= 6" hang.json &&
	! pgrep -f stopped-image
'

test_expect_success 'a console that cannot be kept whole: infra (111), never complete' '
	r=$(built master x86_64) &&
	mkdir -p full &&
	ln -s /dev/full full/boot-000-A.log &&
	test_exit_code 111 "$BOOT" --image "$(jq -r .image "$r")" --board x86_64 --boots 1 \
		--out full >full.json 2>err &&
	test_jq ".boots[0].outcome == \"infra\"" full.json &&
	test_grep "cannot write its console" err
'

for arch in arm64 ppc64le; do
	test_expect_success "$arch: master builds and boots to userspace" '
		"$BUILD" --tree "$TREE" --commit master --board '$arch' >'$arch'.json 2>err &&
		"$BOOT" --image "$(jq -r .image '$arch'.json)" --board '$arch' --boots 1 \
			--out '$arch'-boots >'$arch'-sum.json 2>err &&
		test_jq ".boots[0].outcome == \"complete\"" '$arch'-sum.json &&
		test_jq "(.initcalls | length) > 150 and .milestones.init_us > 0 and
			.milestones.userspace_us > 0" '$arch'-boots/boot-000-A.log.json
	'
done

test_done
