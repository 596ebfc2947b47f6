#!/bin/sh
# Turns Debian's linux-source-6.1 into a git repository once, in the cache, and makes
# sure the test commits the build and boot tests use exist, each on its own branch:
#   regress-kprobe-mdelay  mdelay(50) at the start of init_kprobe_trace()
#   broken-build           a syntax error in kernel/trace/trace_kprobe.c
#   docs-only              a change to documentation alone: the image cannot change
# Prints the repository's path. Reruns take a moment.
set -eu
cache=${BOOTGATE_CACHE:-/var/cache/bootgate}
repo=$cache/trees/linux
tarball=/usr/src/linux-source-6.1.tar.xz

g() { git -C "$repo" -c user.name=bootgate -c user.email=bootgate@localhost "$@"; }

if [ ! -f "$repo/.bootgate-imported" ]; then
	[ -f "$tarball" ] || { echo "kernel-repo.sh: $tarball missing (apt-get install linux-source-6.1)" >&2; exit 111; }
	rm -rf "$repo.tmp"
	mkdir -p "$repo.tmp"
	echo "kernel-repo.sh: unpacking $tarball (about 20 s)" >&2
	tar -xJf "$tarball" -C "$repo.tmp" --strip-components=1
	# Debian's .gitignore ends by ignoring everything at the top level: drop that block
	sed -i '/^# Debian packaging: ignore everything/,$d' "$repo.tmp/.gitignore"
	echo "kernel-repo.sh: committing the tree (about 40 s)" >&2
	git -C "$repo.tmp" init -q -b master
	git -C "$repo.tmp" add -A
	git -C "$repo.tmp" -c user.name=bootgate -c user.email=bootgate@localhost \
		commit -q -m "linux-source-6.1 (Debian)"
	rm -rf "$repo"
	mkdir -p "$(dirname "$repo")"
	mv "$repo.tmp" "$repo"
	echo "these files are not part of the tree" >"$repo/.git/info/exclude"
	echo .bootgate-imported >>"$repo/.git/info/exclude"
	touch "$repo/.bootgate-imported"
fi

# make_branch NAME: creates it from master by running the shell commands on stdin
make_branch() {
	if g rev-parse -q --verify "refs/heads/$1" >/dev/null; then
		cat >/dev/null
		return
	fi
	g checkout -q -b "$1" master
	(cd "$repo" && sh -eu)
	g commit -q -a -m "$2"
	g checkout -q master
}

f=kernel/trace/trace_kprobe.c
make_branch regress-kprobe-mdelay "tracing/kprobes: wait 50 ms in init_kprobe_trace() (a planted boot regression)" <<EOF
grep -q '^static __init int init_kprobe_trace(void)\$' $f
sed -i '0,/^#include <linux\/module.h>/s//#include <linux\/module.h>\n#include <linux\/delay.h>/' $f
sed -i '/^static __init int init_kprobe_trace(void)\$/,/^{\$/ s/^{\$/{\n\tmdelay(50);/' $f
grep -q 'mdelay(50);' $f
EOF
make_branch broken-build "tracing/kprobes: a commit that does not build" <<EOF
sed -i 's/^static __init int init_kprobe_trace(void)\$/static __init int init_kprobe_trace(void) this does not compile/' $f
EOF
make_branch docs-only "Documentation/trace: a change that cannot change the image" <<'EOF'
printf '\nbootgate: this line changes no code.\n' >>Documentation/trace/kprobetrace.rst
EOF
echo "$repo"
