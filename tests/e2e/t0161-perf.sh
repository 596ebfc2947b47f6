#!/bin/sh
# perf trace start-up as a metric: bootgate-build --perf builds the commit's tools/perf
# beside the kernel, bootgate-boot --perf puts it in the initramfs, the test init times
# `perf trace -C 0 -- true` in the guest, and perf.trace_startup gates like any metric.
# Real kernels and perf (the cache keeps them: a second run is fast). Run it under
# flock /work/kbuild.lock where other builds share the machine.
. "$(dirname "$0")/lib.sh"

BUILD=$ROOT/bin/bootgate-build
BOOT=$ROOT/bin/bootgate-boot
TREE=$(sh "$ROOT/scripts/kernel-repo.sh")
PATCH=$ROOT/scripts/scenario-tree/seed-perf/culprit.patch

# branch NAME MESSAGE: a commit on master made from the index in $SCRATCH/index (no
# checkout of the whole tree), as branch NAME of the cached repository
branch() {
	tree=$(GIT_INDEX_FILE=$SCRATCH/index git -C "$TREE" write-tree) &&
	c=$(git -C "$TREE" -c user.name=bootgate -c user.email=bootgate@localhost \
		commit-tree "$tree" -p master -m "$2") &&
	git -C "$TREE" update-ref "refs/heads/$1" "$c"
}

test_expect_success 'test commits: the culprit patch, and a perf that does not compile' '
	GIT_INDEX_FILE=$SCRATCH/index git -C "$TREE" read-tree master &&
	GIT_INDEX_FILE=$SCRATCH/index git -C "$TREE" apply --cached "$PATCH" &&
	branch perf-culprit "perf trace: Load the kernel symbols at start-up" &&
	GIT_INDEX_FILE=$SCRATCH/index git -C "$TREE" read-tree master &&
	blob=$( (git -C "$TREE" show master:tools/perf/builtin-trace.c &&
		echo "#error planted: this perf does not compile") |
		git -C "$TREE" hash-object -w --stdin) &&
	GIT_INDEX_FILE=$SCRATCH/index git -C "$TREE" update-index \
		--cacheinfo "100644,$blob,tools/perf/builtin-trace.c" &&
	branch perf-broken "perf: a planted compile error" &&
	test "$(git -C "$TREE" diff --name-only master perf-culprit)" = tools/perf/builtin-trace.c &&
	test "$(git -C "$TREE" diff --name-only master perf-broken)" = tools/perf/builtin-trace.c
'

test_expect_success 'master with --perf: the kernel, and a static perf beside it' '
	"$BUILD" --tree "$TREE" --commit master --board x86_64 --perf --result master.json \
		>out 2>err &&
	cmp out master.json &&
	test_jq ".status == \"built\" and (.perf | endswith(\"/perf\")) and
		(.artifact as \$a | (.perf | startswith(\$a)) and (.image | startswith(\$a)))" master.json &&
	perf=$(jq -r .perf master.json) &&
	test "$(sha256sum <"$perf" | cut -c1-64)" = "$(jq -r .perf_sha256 master.json)" &&
	test "$(sha256sum <"$(jq -r .image master.json)" | cut -c1-64)" = \
		"$(jq -r .kernel_sha256 master.json)" &&
	! readelf -l "$perf" | grep -q INTERP &&
	test_grep "make ARCH=x86" "$(jq -r .log master.json)" &&
	test_grep "tools/perf O=" "$(jq -r .log master.json)"
'

test_expect_success 'the identity covers perf: the same kernel without perf is another one' '
	"$BUILD" --tree "$TREE" --commit master --board x86_64 >plain.json 2>err &&
	test "$(jq -r .image_sha256 plain.json)" = "$(jq -r .kernel_sha256 master.json)" &&
	test "$(jq -r .image_sha256 plain.json)" != "$(jq -r .image_sha256 master.json)" &&
	test_jq ".perf == null" plain.json &&
	k=$(jq -r .kernel_sha256 master.json) &&
	p=$(jq -r .perf_sha256 master.json) &&
	test "$(printf "bootgate-perf-1 %s %s" "$k" "$p" | sha256sum | cut -c1-64)" = \
		"$(jq -r .image_sha256 master.json)"
'

test_expect_success 'three perf runs in one boot: three plausible perf.trace_startup samples' '
	"$BOOT" --image "$(jq -r .image master.json)" --perf "$(jq -r .perf master.json)" \
		--perf-runs 3 --board x86_64 --boots 1 --out boots >sum.json 2>err &&
	test_jq "[.boots[].outcome] == [\"complete\"] and (.cmdline | test(\" bootgate.perf=3\"))" sum.json &&
	test_jq ".perf.failed_runs == 0 and (.perf.trace_startup_us | length) == 3 and
		all(.perf.trace_startup_us[]; . > 10000 and . < 5000000)" boots/boot-000-A.log.json &&
	test "$(grep -c "bootgate: perf.trace_startup=[0-9]* run=[0-2] exit=0" boots/boot-000-A.log)" = 3 &&
	"$ROOT/bin/bootgate" parse --json boots/boot-000-A.log >parsed.json &&
	test_jq ".logs[0].perf.trace_startup_us | length == 3" parsed.json
'

test_expect_success 'bootgate-boot --perf: bad input is usage, said once' '
	test_exit_code 2 "$BOOT" --image "$(jq -r .image master.json)" --board x86_64 \
		--perf-runs 3 2>err &&
	test_grep "need --perf BIN" err &&
	test_exit_code 2 "$BOOT" --image "$(jq -r .image master.json)" --board x86_64 \
		--perf /nonexistent 2>err &&
	test_grep "perf ./nonexistent" err &&
	for n in 0 101 -1 1x ""; do
		test_exit_code 2 "$BOOT" --image "$(jq -r .image master.json)" --board x86_64 \
			--perf "$(jq -r .perf master.json)" --perf-runs "$n" 2>err || return 1
	done &&
	test_exit_code 2 "$BUILD" --tree "$TREE" --commit master --board arm64 --perf >arm.json 2>err &&
	test_grep "perf is built for this host" err
'

test_expect_success 'a perf that does not compile fails its commit: exit 1, and says perf' '
	test_exit_code 1 "$BUILD" --tree "$TREE" --commit perf-broken --board x86_64 --perf \
		>broken.json 2>err &&
	test_jq ".status == \"failed\" and (.error | test(\"perf\"))" broken.json &&
	test_grep "perf: tools/perf does not build" "$(jq -r .log broken.json)" &&
	test_grep "planted: this perf does not compile" "$(jq -r .log broken.json)"
'

test_expect_success 'a change to perf alone: the same kernel, another identity' '
	"$BUILD" --tree "$TREE" --commit perf-culprit --board x86_64 --perf >culprit.json 2>err &&
	test "$(jq -r .kernel_sha256 culprit.json)" = "$(jq -r .kernel_sha256 master.json)" &&
	test "$(jq -r .perf_sha256 culprit.json)" != "$(jq -r .perf_sha256 master.json)" &&
	test "$(jq -r .image_sha256 culprit.json)" != "$(jq -r .image_sha256 master.json)" &&
	test_jq ".identical_to_parent == false" culprit.json
'

test_expect_success 'the culprit against master, deterministic: perf.trace_startup different' '
	"$ROOT/bin/bootgate" measure --tree "$TREE" --commit perf-culprit --against master \
		--arch x86_64 --mode deterministic --boots 1 --perf-runs 3 --json >det.json 2>err &&
	test_jq "(.boots | length) == 2 and all(.boots[]; .outcome == \"complete\")" det.json &&
	test_jq ".commit.image_sha256 != .against.image_sha256" det.json &&
	test_jq ".comparison.verdicts[] | select(.metric == \"perf.trace_startup\") |
		.verdict == \"different\" and .delta > 1000" det.json &&
	jq -r ".comparison.verdicts[] | select(.metric == \"perf.trace_startup\") |
		\"perf.trace_startup \\(.base_median) -> \\(.cand_median) us\"" det.json >&2
'

test_done
