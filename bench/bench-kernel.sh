#!/bin/sh
# Build and boot figures on this machine: bootgate measure against the same make and
# QEMU commands run by hand, boots per minute with 1 and 2 boots at a time, and the
# noise (CV) of boot.init over 5 boots in timing and in deterministic mode. x86_64.
# Prints figures; never fails on them.
set -eu
cd "$(dirname "$0")/.."
root=$(pwd)
cache=${BOOTGATE_CACHE:-/var/cache/bootgate}
tree=$(sh scripts/kernel-repo.sh)
work=$(mktemp -d "${TMPDIR:-/tmp}/bootgate-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

# make sure the image exists, then time the whole job both ways from the same state
bin/bootgate-build --tree "$tree" --commit master --board x86_64 >"$work/build.json" 2>/dev/null
image=$(jq -r .image "$work/build.json")
initrd=$(sh scripts/initramfs.sh x86_64 gcc)
src=$cache/work/linux/x86_64/src
out=$cache/work/linux/x86_64/o
khz=$(awk -F: '/^cpu MHz/ { printf "%d", $2 * 1000; exit }' /proc/cpuinfo)

t0=$(now)
bin/bootgate measure --tree "$tree" --commit master --arch x86_64 --boots 3 --parallel 1 \
	>/dev/null 2>&1
t1=$(now)
(
	cd "$src" && git checkout -q --detach master
	KBUILD_BUILD_TIMESTAMP=2026-01-01 KBUILD_BUILD_USER=bootgate KBUILD_BUILD_HOST=bootgate \
	KBUILD_BUILD_VERSION=1 CCACHE_DIR=$cache/ccache \
		make -s -C "$src" O="$out" ARCH=x86 CC="ccache gcc" LOCALVERSION= -j"$(nproc)" bzImage
	for i in 1 2 3; do
		timeout 120 qemu-system-x86_64 -accel tcg -M pc -m 512 -nographic -no-reboot -nic none \
			-kernel "$image" -initrd "$initrd" -append "console=ttyS0 initcall_debug \
loglevel=8 printk.time=1 panic=-1 log_buf_len=1M tsc_early_khz=$khz bootgate.reboot=1" \
			>"$work/hand-$i.log" 2>&1
	done
) >/dev/null 2>&1
t2=$(now)
m=$(secs "$t0" "$t1")
h=$(secs "$t1" "$t2")
echo
echo "build (no change) and 3 boots, x86_64, one boot at a time"
printf '  %-44s %6s s\n' "bootgate measure" "$m"
printf '  %-44s %6s s\n' "the same make and qemu commands by hand" "$h"
printf '  ratio: %s (target <= 1.2)\n' "$(awk -v a="$m" -v b="$h" 'BEGIN { printf "%.2f", a / b }')"

echo
echo "boots per minute (x86_64 tiny, TCG)"
for p in 1 2; do
	t0=$(now)
	bin/bootgate-boot --image "$image" --board x86_64 --boots 6 --parallel $p \
		--out "$work/p$p" >/dev/null 2>&1 || true
	t1=$(now)
	printf '  %d at a time: %s boots/min\n' $p "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", 6 * 60 / (b - a) }')"
done

echo
echo "noise of boot.init over 5 boots (x86_64 tiny)"
for mode in timing deterministic; do
	bin/bootgate-boot --image "$image" --board x86_64 --boots 5 --mode $mode \
		--out "$work/$mode" >/dev/null 2>&1 || true
	jq -s '[.[] | .milestones.init_us | select(. != null)]' "$work/$mode"/*.log.json |
		jq -r --arg m "$mode" '(add / length) as $mean |
			((map(. - $mean | . * .) | add) / (length - 1) | sqrt) as $sd |
			"  \($m): mean \($mean / 1000 | . * 10 | round / 10) ms, sd \($sd / 1000 | . * 100 | round / 100) ms, CV \(100 * $sd / $mean | . * 10 | round / 10)% (n = \(length))"'
done
