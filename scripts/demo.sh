#!/bin/sh
# The main job as far as it exists today: read the shipped real boot logs and show what
# a maintainer would look at. Later issues replace this with build, boot and bisect.
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
