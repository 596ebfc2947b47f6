#!/bin/sh
# beside: t0100-kernel.sh
# Every input of measure and of the workers is checked before any work, and a mistake
# is a usage error (exit 2: never retried), not the machine's (111: retried forever).
# No kernel is needed: nothing here gets as far as building or booting one.
. "$(dirname "$0")/lib.sh"

BUILD=$ROOT/bin/bootgate-build
BOOT=$ROOT/bin/bootgate-boot
export BOOTGATE_CACHE="$SCRATCH/cache"
mkdir -p tree notatree
git_ -C tree init -q && echo a >tree/a && git_ -C tree add a && git_ -C tree commit -q -m a

# nothing_started: no build was begun (no worktree, no build lock) in the cache
nothing_started() {
	test ! -e "$BOOTGATE_CACHE/work" && test ! -e "$BOOTGATE_CACHE/.build-lock"
}

test_expect_success 'measure: a tree that is not there, or not git: exit 2, nothing built' '
	test_exit_code 2 bootgate measure --tree nowhere --commit HEAD --arch x86_64 2>err &&
	test_grep "measure: tree .nowhere.: No such file or directory" err &&
	test_exit_code 2 bootgate measure --tree notatree --commit HEAD --arch x86_64 2>err &&
	test_grep "not a git repository" err &&
	nothing_started
'

test_expect_success 'measure: a commit or --against that does not resolve: exit 2 before any build' '
	test_exit_code 2 bootgate measure --tree tree --commit nope --arch x86_64 2>err &&
	test_grep "cannot resolve .nope." err &&
	test_exit_code 2 bootgate measure --tree tree --commit master --against nope2 \
		--arch x86_64 2>err &&
	test_grep "cannot resolve .nope2." err &&
	! grep -q "building" err &&
	nothing_started
'

test_expect_success 'measure: a board that is not one, or a path: exit 2' '
	test_exit_code 2 bootgate measure --tree tree --commit master --arch sparc 2>err &&
	test_grep "no board .sparc." err &&
	test_exit_code 2 bootgate measure --tree tree --commit master --board ../../x 2>err &&
	test_grep "a board or an arch is a plain name" err &&
	nothing_started
'

test_expect_success 'a board asked for a mode it does not boot in: exit 2 from every command' '
	echo "Subject: [PATCH] x" >one.mbox &&
	for c in "measure --commit master" "gate --name t --rev master" \
		"bisect --good master --bad master" "series one.mbox --db s.db"; do
		# shellcheck disable=SC2086
		test_exit_code 2 bootgate $c --tree tree --board qemu-x86_64-smp \
			--mode deterministic 2>err &&
		test_grep "board qemu-x86_64-smp does not boot in deterministic mode" err ||
			return 1
	done &&
	nothing_started
'

test_expect_success 'perf runs on a board of another arch: exit 2 from every command' '
	echo "Subject: [PATCH] x" >one.mbox &&
	for c in "measure --commit master" "gate --name t --rev master" \
		"bisect --good master --bad master" "series one.mbox --db s.db"; do
		# shellcheck disable=SC2086
		test_exit_code 2 bootgate $c --tree tree --arch ppc64le --perf-runs 3 2>err &&
		test_grep "perf is built for this host (.*), not for board qemu-ppc64le (ppc64le)" \
			err || return 1
	done &&
	nothing_started
'

test_expect_success 'a --fragment or --config file that is not there: exit 2 before any build' '
	tiny_lab &&
	echo "Subject: [PATCH] x" >one.mbox &&
	for c in "measure --commit master" "gate --name t --rev master" \
		"bisect --good master --bad master" "series one.mbox --db s.db"; do
		# shellcheck disable=SC2086
		test_exit_code 2 bootgate $c --tree tree --lab lab --board tiny \
			--fragment "$SCRATCH/nofrag.config" 2>err &&
		test_grep "fragment .*nofrag.config.: No such file or directory" err &&
		! grep -q "building" err &&
		# shellcheck disable=SC2086
		test_exit_code 2 bootgate $c --tree tree --lab lab --board tiny \
			--config nosuch/.config 2>err &&
		test_grep "config .nosuch/.config.: No such file or directory" err &&
		! grep -q "building" err || return 1
	done &&
	nothing_started
'

test_expect_success 'measure: numbers that are not counts: exit 2' '
	for n in 0 -1 4x 4294967297 " 3" 1001; do
		test_exit_code 2 bootgate measure --tree tree --commit master --arch x86_64 \
			--boots "$n" 2>err || return 1
	done &&
	test_grep "boots: .1001. is not a whole number from 1 to 1000" err &&
	test_exit_code 2 bootgate measure --tree tree --commit master --arch x86_64 \
		--parallel -1 2>err &&
	test_exit_code 2 bootgate measure --tree tree --commit master --arch x86_64 --mode fast 2>err &&
	test_grep "mode is deterministic or timing, not .fast." err &&
	nothing_started
'

test_expect_success 'bootgate-build: a bad commit is usage (2) with its reason, before the build lock' '
	test_exit_code 2 "$BUILD" --tree tree --commit nope --board x86_64 --result r.json >out 2>err &&
	test_jq ".status == \"usage\" and (.error | test(\"cannot resolve .nope.\"))" out &&
	cmp out r.json &&
	test_exit_code 2 "$BUILD" --tree nowhere --commit master --board x86_64 >out 2>err &&
	test_jq ".status == \"usage\"" out &&
	nothing_started
'

test_expect_success 'bootgate-build: --jobs that is not a count: exit 2' '
	for j in -1 0 4x 99999999999; do
		test_exit_code 2 "$BUILD" --tree tree --commit master --board x86_64 --jobs "$j" \
			2>err || return 1
	done &&
	test_grep "jobs: .99999999999. is not a whole number from 1 to 1024" err &&
	nothing_started
'

test_expect_success 'a board whose arch would leave the cache: refused with file:line:col' '
	mkdir -p lab/boards lab/kconfig &&
	cp "$ROOT"/lab-configs/kconfig/* lab/kconfig/ &&
	sed "s/^arch: .*/arch: ..\/..\/../" "$ROOT/lab-configs/boards/qemu-x86_64.yaml" \
		>lab/boards/evil.yaml &&
	line=$(grep -n "^arch:" lab/boards/evil.yaml | cut -d: -f1) &&
	test_exit_code 2 "$BUILD" --tree tree --commit master --lab lab --board evil >out 2>err &&
	test_grep "lab/boards/evil.yaml:$line:7: .arch. is a plain name" err &&
	test_exit_code 2 bootgate measure --tree tree --commit master --lab lab --board evil 2>err &&
	test_grep "evil.yaml:$line:7:" err &&
	nothing_started
'

test_expect_success 'bootgate-boot: counts that are not counts: exit 2' '
	echo image >image &&
	echo initrd >initrd &&
	test_exit_code 2 "$BOOT" --image image --initrd initrd --board x86_64 --boots 4294967297 2>err &&
	test_grep "boots: .4294967297. is not a whole number from 1 to 1000" err &&
	test_exit_code 2 "$BOOT" --image image --initrd initrd --board x86_64 --parallel 0 2>err &&
	test_exit_code 2 "$BOOT" --image nope --initrd initrd --board x86_64 2>err &&
	test_grep "image .nope." err
'

test_expect_success 'bootgate-boot --perf on a LAVA board: exit 2 before any initramfs is made' '
	echo image >image &&
	echo perf >perf &&
	test_exit_code 2 "$BOOT" --image image --board lava-x86-pc --perf perf 2>err &&
	test_grep "board lava-x86-pc is a LAVA board; perf runs on QEMU boards" err &&
	test ! -e "$BOOTGATE_CACHE/initramfs"
'

test_expect_success 'bootgate-boot: a console that cannot be written is infra (111), never complete' '
	echo image >image &&
	echo initrd >initrd &&
	mkdir -p runs/boot-000-A.log &&
	test_exit_code 111 "$BOOT" --image image --initrd initrd --board x86_64 --boots 1 \
		--out runs >sum.json 2>err &&
	test_jq ".boots | length == 1 and .[0].outcome == \"infra\"" sum.json &&
	test_grep "cannot write .*boot-000-A.log" err
'

test_done
