#!/bin/sh
# The direction of the includes in lib/ (make check-layout). Each group may include the
# headers of the groups listed after it below and nothing else of lib/; an external
# library's header is included by its one wrapper file alone; the decision code includes
# no external library, and the basics only those they wrap (util/sha.c OpenSSL,
# util/json-read.c jansson, util/hash.c xxhash compiled inline: nothing to link).
set -u
cd "$(dirname "$0")/.." || exit 1

rules='
util util
parse util parse
decide util decide
report util parse decide store report
store util decide store
net util net
conf util parse decide report net conf
lab util parse decide report store net conf lab
ci util parse decide report store net conf lab ci
publish util parse decide report store net conf lab publish
'
wrappers='
yaml.h lib/parse/yaml-event.c
xxhash.h lib/util/hash.c
git2.h lib/net/git.c
openssl/ lib/util/sha.c
jansson.h lib/util/json-read.c
sqlite3.h lib/store/store.c
microhttpd.h lib/net/http.c
curl/ lib/net/curl.c
'
out=${TMPDIR:-/tmp}/bootgate-layout.$$
trap 'rm -f "$out"' EXIT
: >"$out"
checked=0

# owner HEADER: the wrapper file that may include it, or nothing
owner() {
	printf '%s\n' "$wrappers" | while read -r hdr file; do
		[ -n "$hdr" ] || continue
		case "$1" in "$hdr"*) echo "$file" ;; esac
	done
}

for f in lib/*/*.[ch] daemon/*.[ch] workers/*.c workers/*/*.[ch] bench/*.[ch]; do
	checked=$((checked + 1))
	g=""
	case "$f" in lib/*) g=$(echo "$f" | cut -d/ -f2) ;; esac
	if [ -n "$g" ]; then
		allowed=$(printf '%s\n' "$rules" | awk -v g="$g" '$1 == g { $1 = ""; print }')
		[ -n "$allowed" ] || echo "$f: lib/$g is not a known group" >>"$out"
		grep -n '^#include "' "$f" | while IFS= read -r line; do
			inc=$(printf '%s\n' "$line" | sed 's/.*#include "\([^"]*\)".*/\1/')
			dir=${inc%%/*}
			if [ "$dir" = "$inc" ]; then
				echo "$f:${line%%:*}: name '$inc' by its group (\"group/name.h\")"
				continue
			fi
			case " $allowed " in
			*" $dir "*) ;;
			*) echo "$f:${line%%:*}: lib/$g may not include '$inc'" ;;
			esac
		done >>"$out"
	fi
	for h in $(grep -o '^#include <[^>]*>' "$f" | sed 's/#include <\(.*\)>/\1/'); do
		o=$(owner "$h")
		[ -z "$o" ] || [ "$o" = "$f" ] || echo "$f: includes <$h>, which only $o may" >>"$out"
	done
done
# The pure groups include the C library and POSIX alone, but for the wrappers in util/:
# an allowlist, so that a new library cannot slip in unlisted (sys/file.h: flock, for
# util/fs.c's lock files).
system='assert.h ctype.h dirent.h errno.h fcntl.h float.h ftw.h inttypes.h limits.h math.h poll.h
signal.h stdarg.h stdbool.h stddef.h stdint.h stdio.h stdlib.h string.h time.h unistd.h
sys/file.h sys/prctl.h sys/stat.h sys/syscall.h sys/time.h sys/types.h sys/wait.h'
for f in lib/util/*.[ch] lib/decide/*.[ch]; do
	for h in $(grep -o '^#include <[^>]*>' "$f" | sed 's/#include <\(.*\)>/\1/'); do
		[ "$(owner "$h")" = "$f" ] && continue
		case " $(echo $system) " in
		*" $h "*) ;;
		*) echo "$f: <$h> is not the C library or POSIX: lib/${f#lib/} may not include it" >>"$out" ;;
		esac
	done
done
cat "$out"
bad=$(wc -l <"$out")
echo "layout: $checked files checked, $bad problems"
if [ "$bad" = 0 ]; then p=1 f=0; else p=0 f=1; fi
[ -n "${CHECK_SUMMARY:-}" ] && echo "layout $p $f" >>"$CHECK_SUMMARY"
echo "$p passed, $f failed"
[ "$bad" = 0 ]
