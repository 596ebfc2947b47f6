#!/bin/sh
# beside: t0165-demo.sh
# Boards that boot as users do: an SMP board (cpus: 2) brings up its second CPU and its
# boots parse as any other's, and the quiet console shows no initcall_debug line live yet
# yields, from the ring buffer the init dumps, the metrics a verbose boot of the same image
# gives. Builds and boots real kernels (Debian's linux-source-6.1, as t0100; its SMP kernel
# is built here, the one x86_64 build t0100 does not make), under the machine's build lock.
# None of its checks is a timing-mode figure, so it runs beside the demo (tests/run.sh):
# its one build waits for the build lock as the demo's do, and takes a core while the demo
# boots.
. "$(dirname "$0")/lib.sh"

BUILD=$ROOT/bin/bootgate-build
BOOT=$ROOT/bin/bootgate-boot

# bad_lab KEY LINE: lab-KEY, a lab of one board, the shipped qemu-x86_64-smp with its line
# for KEY replaced by LINE
bad_lab() {
	mkdir -p "lab-$1/boards" "lab-$1/kconfig" &&
	cp "$ROOT"/lab-configs/kconfig/*.config "lab-$1/kconfig/" &&
	sed "s/^$1:.*/$2/" "$ROOT/lab-configs/boards/qemu-x86_64-smp.yaml" \
		>"lab-$1/boards/qemu-x86_64-smp.yaml"
}

test_expect_success 'a bad cpus key: file:line:col: why, exit 2, before any work' '
	echo image >img &&
	line=$(grep -n "^cpus:" "$ROOT/lab-configs/boards/qemu-x86_64-smp.yaml" | cut -d: -f1) &&
	bad_lab cpus "cpus: 0" &&
	test_exit_code 2 "$BOOT" --image img --board qemu-x86_64-smp --lab lab-cpus 2>err &&
	test_grep "lab-cpus/boards/qemu-x86_64-smp.yaml:$line:7: .cpus. must be a whole number from 1 to 64, not .0." err &&
	bad_lab cpus "cpus: 1000000000000000000000" &&
	test_exit_code 2 "$BOOT" --image img --board qemu-x86_64-smp --lab lab-cpus 2>err &&
	test_grep "$line:7: .cpus. must be a whole number from 1 to 64" err &&
	bad_lab cpus "cpus: [2]" &&
	test_exit_code 2 "$BOOT" --image img --board qemu-x86_64-smp --lab lab-cpus 2>err &&
	test_grep "$line:1: .cpus. takes one value, not a list" err &&
	test_exit_code 2 "$BOOT" --image img --board qemu-x86_64-smp --mode deterministic 2>err &&
	test_grep "does not boot in deterministic mode" err
'

test_expect_success 'a bad --console: exit 2 from the worker and each command' '
	echo image >img &&
	test_exit_code 2 "$BOOT" --image img --board x86_64 --console loud 2>err &&
	test_grep "console is verbose or quiet, not .loud." err &&
	for c in measure gate bisect series; do
		test_exit_code 2 bootgate $c --console "" 2>err &&
		test_grep "console is verbose or quiet, not" err || return 1
	done
'

TREE=$(sh "$ROOT/scripts/kernel-repo.sh")

# built BOARD: the build worker's result for master on BOARD, built on the first call
built() {
	f="$SCRATCH/built-$1.json"
	if [ ! -s "$f" ]; then
		"$BUILD" --tree "$TREE" --commit master --board "$1" >"$f.tmp" 2>"$f.err" ||
			{ cat "$f.err" >&2; return 1; }
		mv "$f.tmp" "$f"
	fi
	echo "$f"
}

test_expect_success 'qemu-x86_64-smp: two CPUs come up, and the boot parses' '
	r=$(built qemu-x86_64-smp) &&
	test_jq ".status == \"built\" and .board == \"qemu-x86_64-smp\"" "$r" &&
	"$BOOT" --image "$(jq -r .image "$r")" --board qemu-x86_64-smp --mode timing \
		--boots 1 --out smp >smp.json 2>err &&
	test_jq ".boots[0].outcome == \"complete\" and .console == \"verbose\"" smp.json &&
	test_grep "smp: Brought up 1 node, 2 CPUs" smp/boot-000-A.log &&
	test_jq "(.initcalls | length) > 150 and .milestones.init_us > 100000 and
		.milestones.userspace_us > .milestones.init_us and .outcome == \"complete\"" \
		smp/boot-000-A.log.json &&
	test_note "boot.init $(jq .milestones.init_us smp/boot-000-A.log.json) us on 2 CPUs (timing)"
'

test_expect_success 'quiet: nothing of initcall_debug on the live console, the same metrics' '
	r=$(built qemu-x86_64) &&
	img=$(jq -r .image "$r") &&
	"$BOOT" --image "$img" --board x86_64 --mode deterministic --boots 1 --out v >v.json 2>err &&
	"$BOOT" --image "$img" --board x86_64 --mode deterministic --boots 1 --console quiet \
		--out q >q.json 2>err &&
	test_jq ".console == \"quiet\" and .boots[0].outcome == \"complete\" and
		(.cmdline | test(\" quiet \") and test(\"bootgate.dump=1\") and
		 test(\"initcall_debug\") and (test(\"loglevel\") | not))" q.json &&
	test_jq ".console == \"verbose\" and (.cmdline | test(\"loglevel=8\"))" v.json &&
	sed -n "1,/^DMESG-BEGIN/p" q/boot-000-A.log >live &&
	test_grep "^DMESG-BEGIN" live &&
	test_grep "bootgate: userspace reached" live &&
	test "$(grep -c -e "calling  " -e "initcall " live)" = 0 &&
	test "$(grep -c "initcall " v/boot-000-A.log)" -gt 150 &&
	for b in v q; do
		jq -r ".initcalls[].name" $b/boot-000-A.log.json | sort >$b.names &&
		jq -r ".probes[].device" $b/boot-000-A.log.json | sort -u >$b.probes || return 1
	done &&
	test_cmp v.names q.names &&
	test "$(wc -l <q.names)" -gt 150 &&
	# a probe that ends after the dump (serio1 s second, async, after userspace) is not
	# in a quiet boot; every probe the quiet boot has, the verbose one has too
	test "$(comm -13 v.probes q.probes | wc -l)" = 0 &&
	test_grep serial8250 q.probes &&
	test_jq ".milestones.init_us > 100000 and .milestones.userspace_us > .milestones.init_us" \
		q/boot-000-A.log.json &&
	test_note "boot.init verbose $(jq .milestones.init_us v/boot-000-A.log.json) us," \
		"quiet $(jq .milestones.init_us q/boot-000-A.log.json) us (deterministic)"
'

test_done
