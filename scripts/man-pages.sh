#!/bin/sh
# Renders every man page from the programs' own --help (scripts/help2man.sh) into OUTDIR:
# bootgate.1, bootgate-COMMAND.1 for each command bootgate help lists, bootgated.8.
# man-pages.sh BINDIR OUTDIR
set -eu
[ $# -eq 2 ] || { echo "usage: man-pages.sh BINDIR OUTDIR" >&2; exit 2; }
bin=$1 out=$2
here=$(dirname "$0")
version=$("$bin/bootgate" --version | cut -d' ' -f2)
cmds=$("$bin/bootgate" help | sed -n 's/^  \([a-z][a-z-]*\)  .*/\1/p')
[ -n "$cmds" ] || { echo "man-pages.sh: bootgate help lists no command" >&2; exit 1; }

# each page whole or not at all: a help that cannot be rendered leaves no page; the
# temporary name is this run's, so that two makes rendering at once never meet
render() {
	page=$1
	shift
	sh "$here/help2man.sh" "$@" >"$out/$page.tmp.$$"
	mv "$out/$page.tmp.$$" "$out/$page"
}

mkdir -p "$out"
see=
for c in $cmds; do
	see="$see bootgate-$c(1)"
	"$bin/bootgate" "$c" --help | render "bootgate-$c.1" "bootgate-$c" 1 "$version" 'bootgate(1)'
done
# shellcheck disable=SC2086 # one reference a word
"$bin/bootgate" help | render bootgate.1 bootgate 1 "$version" 'bootgated(8)' $see
"$bin/bootgated" --help | render bootgated.8 bootgated 8 "$version" 'bootgate(1)' \
	'bootgate-gate(1)' 'bootgate-bisect(1)'
# a page of a command that is no longer there goes (render runs in a pipe's subshell:
# the pages made are named again here)
pages=" bootgate.1 bootgated.8 "
for c in $cmds; do
	pages="$pages bootgate-$c.1 "
done
for f in "$out"/*.1 "$out"/*.8; do
	[ -e "$f" ] || continue
	case $pages in *" ${f##*/} "*) ;; *) rm -f "$f" ;; esac
done
