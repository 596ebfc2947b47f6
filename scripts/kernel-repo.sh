#!/bin/sh
# Turns Debian's linux-source-6.1 into a git repository once, in the cache, and adds the
# test commits the build and boot tests use (each on its own branch):
#   regress-kprobe-mdelay  mdelay(50) at the start of init_kprobe_trace()
#   broken-build           a syntax error in kernel/trace/trace_kprobe.c
# Prints the repository's path. Reruns are instant.
set -eu
cache=${BOOTGATE_CACHE:-/var/cache/bootgate}
repo=$cache/trees/linux
tarball=/usr/src/linux-source-6.1.tar.xz

if [ -f "$repo/.bootgate-ready" ]; then
	echo "$repo"
	exit 0
fi
[ -f "$tarball" ] || { echo "kernel-repo.sh: $tarball missing (apt-get install linux-source-6.1)" >&2; exit 111; }
rm -rf "$repo.tmp"
mkdir -p "$repo.tmp"
echo "kernel-repo.sh: unpacking $tarball (about 20 s)" >&2
tar -xJf "$tarball" -C "$repo.tmp" --strip-components=1
cd "$repo.tmp"
# Debian's .gitignore ends by ignoring everything at the top level: drop that block
sed -i '/^# Debian packaging: ignore everything/,$d' .gitignore
g() { git -c user.name=bootgate -c user.email=bootgate@localhost "$@"; }
g init -q -b master
echo "kernel-repo.sh: committing the tree (about 40 s)" >&2
g add -A
g commit -q -m "linux-source-6.1 (Debian)"

g checkout -q -b regress-kprobe-mdelay
f=kernel/trace/trace_kprobe.c
grep -q '^static __init int init_kprobe_trace(void)$' $f
sed -i '0,/^#include <linux\/module.h>/s//#include <linux\/module.h>\n#include <linux\/delay.h>/' $f
sed -i '/^static __init int init_kprobe_trace(void)$/,/^{$/ s/^{$/{\n\tmdelay(50);/' $f
grep -q 'mdelay(50);' $f
g commit -q -am "tracing/kprobes: wait 50 ms in init_kprobe_trace() (a planted boot regression)"

g checkout -q -b broken-build master
sed -i 's/^static __init int init_kprobe_trace(void)$/static __init int init_kprobe_trace(void) this does not compile/' $f
g commit -q -am "tracing/kprobes: a commit that does not build"
g checkout -q master
touch .bootgate-ready
cd /
rm -rf "$repo"
mkdir -p "$(dirname "$repo")"
mv "$repo.tmp" "$repo"
echo "$repo"
