#!/bin/sh
# make tour: a quick tour of the parts that need no kernel build on shipped real boot logs
# (the parser, the verdict, the bisection engine), then one measure of a real kernel.
set -eu
cd "$(dirname "$0")/../tests/fixtures"
bg=../../bin/bootgate

echo "== Every shipped real boot log (QEMU x86_64/arm64/ppc64le, Debian's kernel, LAVA jobs)"
$bg parse --summary bootlogs/*.log lava/*.yaml
echo
echo "== The slowest initcalls of one boot"
$bg parse --top 5 bootlogs/x86_64-tiny-regressed-run1.log
echo "== A planted 50 ms delay in init_kprobe_trace(), baseline against regressed"
$bg diff --top 3 bootlogs/x86_64-tiny-baseline-run2.log bootlogs/x86_64-tiny-regressed-run3.log
echo
echo "== The verdict on three boots against three: too few to say, and how many more would"
$bg compare --top 4 --base bootlogs/x86_64-tiny-baseline-run*.log \
	--cand bootlogs/x86_64-tiny-regressed-run*.log
echo
echo "== Bisecting a 5% regression at 5% noise over 128 commits: bootgate and plain git bisect"
$bg bench-bisect ../corpora/N128_d5_cv5_h200.bb 2>/dev/null
echo
echo "== The main job on real kernels: Debian's Linux 6.1 with a planted mdelay(50) in"
echo "   init_kprobe_trace(), built and booted under QEMU against its parent"
echo "   (the first run builds the kernel: a few minutes; later runs reuse the cache)"
tree=$(sh ../../scripts/kernel-repo.sh)
$bg measure --tree "$tree" --commit regress-kprobe-mdelay --against master --arch x86_64 \
	--mode deterministic --boots 1 --top 5
