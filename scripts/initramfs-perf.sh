#!/bin/sh
# The test initramfs with perf: the board's test initramfs (scripts/initramfs.sh) and,
# appended, a second newc archive holding /bin/perf and /bin/true (a link to the test
# init, which does nothing by that name); the kernel unpacks concatenated archives in
# turn. Kept in the cache under the hash of both, so each perf binary is packed once.
# Prints its path.
#   scripts/initramfs-perf.sh BASE.cpio PERF
set -eu
[ $# = 2 ] || { echo "usage: initramfs-perf.sh BASE.cpio PERF" >&2; exit 2; }
base=$1
perf=$2
cache=${BOOTGATE_CACHE:-/var/cache/bootgate}
[ -f "$base" ] || { echo "initramfs-perf.sh: no initramfs '$base'" >&2; exit 2; }
[ -f "$perf" ] && [ -s "$perf" ] || { echo "initramfs-perf.sh: no perf '$perf' (or it is empty)" >&2; exit 2; }
key=$( (sha256sum <"$base"; sha256sum <"$perf") | sha256sum | cut -c1-16)
out=$cache/initramfs/perf-$key.cpio
if [ ! -f "$out" ]; then
	mkdir -p "$cache/initramfs"
	stage=$(mktemp -d "$cache/initramfs/stage.XXXXXX")
	trap 'rm -rf "$stage"' EXIT
	mkdir -p "$stage/bin"
	cp -- "$perf" "$stage/bin/perf"
	chmod 0755 "$stage/bin/perf"
	ln -s ../init "$stage/bin/true"
	cat "$base" >"$stage/all.cpio"
	(cd "$stage" && find bin | LC_ALL=C sort | cpio --quiet -o -H newc -R 0:0) \
		>>"$stage/all.cpio"
	mv "$stage/all.cpio" "$out"
fi
echo "$out"
