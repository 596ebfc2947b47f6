#!/bin/sh
# Builds bootgate's test initramfs for an arch once: the static test init as /init, a
# /dev/console node, packed as newc cpio. Prints its path (in the cache, named by the
# hash of the init's source and the compiler, so a change rebuilds it).
#   scripts/initramfs.sh ARCH CC
set -eu
arch=$1
cc=$2
root=$(cd "$(dirname "$0")/.." && pwd)
src=$root/workers/init/bootgate-init.c
cache=${BOOTGATE_CACHE:-/var/cache/bootgate}
command -v "$cc" >/dev/null || { echo "initramfs.sh: compiler '$cc' missing" >&2; exit 111; }
key=$( (cat "$src"; "$cc" --version | head -n 1) | sha256sum | cut -c1-16)
out=$cache/initramfs/$arch-$key.cpio
if [ ! -f "$out" ]; then
	mkdir -p "$cache/initramfs"
	stage=$(mktemp -d "$cache/initramfs/stage.XXXXXX")
	trap 'rm -rf "$stage"' EXIT
	"$cc" -static -Os -s -o "$stage/init" "$src"
	mkdir -p "$stage/dev" "$stage/proc" "$stage/sys"
	mknod "$stage/dev/console" c 5 1
	(cd "$stage" && find . | LC_ALL=C sort | cpio --quiet -o -H newc -R 0:0) >"$out.tmp"
	mv "$out.tmp" "$out"
fi
echo "$out"
