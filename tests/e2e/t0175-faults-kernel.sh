#!/bin/sh
# beside: t0165-demo.sh
# Faults on the lab's side, on the cached x86_64 kernel (master, built by t0100 or here):
# QEMU killed while the kernel speaks, and the cache's disk full (a 16 MiB tmpfs mounted
# for the test). Each is the lab failing (infra, exit 111: tried again), never a kernel
# that does not build (skipped by a bisection) nor a boot time (a regression).
. "$(dirname "$0")/lib.sh"

BUILD=$ROOT/bin/bootgate-build
BOOT=$ROOT/bin/bootgate-boot
TREE=$(sh "$ROOT/scripts/kernel-repo.sh")
SMALL=$SCRATCH/small

trap '! mountpoint -q "$SMALL" || umount "$SMALL"; rm -rf "$SCRATCH"' EXIT

# master's image, built once (a second run finds it in the cache at once)
master_image() {
	[ -s "$SCRATCH/master.json" ] ||
		"$BUILD" --tree "$TREE" --commit master --board x86_64 >"$SCRATCH/master.json" ||
		return 1
	jq -r .image "$SCRATCH/master.json"
}

# small_fs: a fresh 16 MiB tmpfs at $SMALL (the one before unmounted)
small_fs() {
	! mountpoint -q "$SMALL" || umount "$SMALL" || return 1
	mkdir -p "$SMALL" &&
	mount -t tmpfs -o size=16m bootgate-t0175 "$SMALL"
}

# boot_slowly: one boot of killed-image at icount shift 0 (about 17 s), in the
# background; its exit code lands in rc
boot_slowly() {
	{ "$BOOT" --image "$SCRATCH/killed-image" --lab lab --board qemu-x86_64-slow \
		--mode deterministic --boots 1 --out killed >killed.json 2>err && echo 0 >rc ||
		echo $? >rc; } &
}

# until_true SECONDS CONDITION: polls every 0.2 s
until_true() {
	n=0
	while ! eval "$2"; do
		[ "$n" -lt $(($1 * 5)) ] || { echo "not true after $1 s: $2" >&2; return 1; }
		sleep 0.2
		n=$((n + 1))
	done
}

test_expect_success 'QEMU killed mid-boot: infra (111), no figure, never a regression' '
	img=$(master_image) &&
	mkdir -p lab/boards &&
	cp -r "$ROOT/lab-configs/kconfig" lab/ &&
	sed -e "s/^name: .*/name: qemu-x86_64-slow/" -e "s/^icount_shift: .*/icount_shift: 0/" \
		"$ROOT/lab-configs/boards/qemu-x86_64.yaml" >lab/boards/qemu-x86_64-slow.yaml &&
	cp "$img" "$SCRATCH/killed-image" &&
	boot_slowly &&
	until_true 60 "grep -q \"calling \" killed/boot-000-A.log 2>/dev/null" &&
	qemu=$(pgrep -f "^qemu-system-x86_64 .*$SCRATCH/killed-image") &&
	kill -KILL $qemu &&
	until_true 60 "test -s rc" &&
	cat err &&
	test "$(cat rc)" = 111 &&
	test_jq ".boots[0].outcome == \"infra\"" killed.json &&
	test_grep "initcall" killed/boot-000-A.log &&
	test_exit_code 1 bootgate compare --base "$FIXTURES/bootlogs/x86_64-tiny-baseline-run1.log" \
		--cand killed/boot-000-A.log >out 2>err &&
	test_grep "no boot.*reached init\|reached init" err
'

test_expect_success 'the cache'"'"'s disk full: the build is infra (111), not a kernel that does not build' '
	small_fs &&
	test_exit_code 111 env BOOTGATE_CACHE="$SMALL" "$BUILD" --tree "$TREE" --commit master \
		--board x86_64 >full.json 2>err &&
	test_jq ".status == \"infra\" and (.error | test(\"No space left on device\"))" full.json &&
	df -P "$SMALL" | awk "NR == 2 { exit \$4 > 64 }"
'

test_expect_success 'a console on the full disk: infra (111), never complete' '
	img=$(master_image) &&
	small_fs &&
	test_exit_code 1 dd if=/dev/zero of="$SMALL/fill" bs=1M 2>/dev/null &&
	test_exit_code 111 "$BOOT" --image "$img" --board x86_64 --boots 1 --out "$SMALL/boots" \
		>boot.json 2>err &&
	test_jq ".boots[0].outcome == \"infra\"" boot.json
'

test_expect_success 'a gate on the full cache: exit 1 (a retry for the daemon), no verdict, no comparison' '
	small_fs &&
	start=$(date +%s) &&
	test_exit_code 1 env BOOTGATE_CACHE="$SMALL" "$ROOT/bin/bootgate" gate --tree "$TREE" --name t \
		--rev master --arch x86_64 --db gate.db >out 2>err &&
	test_grep "No space left on device" err &&
	test ! -s out &&
	test "$(sqlite3 gate.db "SELECT count(*) FROM comparisons")" = 0 &&
	test "$(sqlite3 gate.db "SELECT count(*) FROM builds WHERE status = '"'failed'"'")" = 0 &&
	test_note "the gate gave up in $(($(date +%s) - start)) s" &&
	umount "$SMALL"
'

test_done
