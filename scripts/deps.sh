#!/bin/sh
# Installs the Debian packages a make target needs, only those missing.
# usage: scripts/deps.sh build|unit|clang|e2e|kernel|demo|bench|analyze|lava ...
set -eu

pkgs=""
# installed without their Recommends, which for LAVA are apache2, an NFS and a TFTP
# server, lxc: 299 packages instead of 173
norec=""
for set in "$@"; do
	case "$set" in
	build)   pkgs="$pkgs git gcc make pkg-config libyaml-dev libxxhash-dev libgit2-dev libssl-dev libjansson-dev libsqlite3-dev
		 libmicrohttpd-dev libcurl4-openssl-dev" ;;
	unit)    pkgs="$pkgs libcmocka-dev git openssl b4" ;;
	clang)   pkgs="$pkgs clang libclang-rt-14-dev" ;;
	e2e)     pkgs="$pkgs jq time gzip bc python3 procps git sqlite3 curl openssl public-inbox chromium python3-jsonschema python3-yaml postfix iproute2 libfaketime
		 systemd man-db groff-base redis-server" ;;
	kernel)  pkgs="$pkgs linux-source-6.1 xz-utils git flex bison bc libssl-dev libelf-dev zlib1g-dev cpio
		     ccache bubblewrap qemu-system-x86 qemu-system-arm qemu-system-ppc
		     gcc-aarch64-linux-gnu gcc-powerpc64le-linux-gnu libc6-dev-arm64-cross
		     libc6-dev-ppc64el-cross python3 procps jq" ;;
	demo)    pkgs="$pkgs git postfix public-inbox sqlite3" ;;
	bench)   pkgs="$pkgs linux-source-6.1 xz-utils perl python3 jq bc git sqlite3" ;;
	analyze) pkgs="$pkgs cppcheck clang-tidy" ;;
	lava)    norec="$norec lava-server lava-dispatcher postgresql qemu-system-x86 curl" ;;
	*) echo "deps.sh: unknown set '$set'" >&2; exit 2 ;;
	esac
done

# not_installed PKG...: those of PKG that dpkg does not have installed
not_installed() {
	for p in "$@"; do
		st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
		case "$st" in
		*"install ok installed"*) ;;
		*) printf ' %s' "$p" ;;
		esac
	done
}
# shellcheck disable=SC2086
missing=$(not_installed $pkgs)
# shellcheck disable=SC2086
missing_norec=$(not_installed $norec)
[ -z "$missing$missing_norec" ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "deps.sh: missing packages:$missing$missing_norec (run as root to install them)" >&2
	exit 1
fi
echo "deps.sh: installing$missing$missing_norec" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
# shellcheck disable=SC2086
[ -z "$missing" ] || apt-get install -y -q $missing >/dev/null
# shellcheck disable=SC2086
[ -z "$missing_norec" ] || apt-get install -y -q --no-install-recommends $missing_norec >/dev/null
