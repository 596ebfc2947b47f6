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
# The pure groups include the C library and POSIX alone, but for the wrappers in util/:
# an allowlist, so that a new library cannot slip in unlisted (sys/file.h: flock, for
# util/fs.c's lock files).
system='assert.h ctype.h dirent.h errno.h fcntl.h float.h ftw.h inttypes.h limits.h math.h poll.h
signal.h stdarg.h stdbool.h stddef.h stdint.h stdio.h stdlib.h string.h time.h unistd.h
sys/file.h sys/prctl.h sys/stat.h sys/syscall.h sys/time.h sys/types.h sys/wait.h'

# check MODE FILE...: one awk over the files (a process per include took 12 s). MODE
# groups: each file's includes against its group's rules and the wrappers; MODE system:
# the pure groups' <headers> against the allowlist
check() {
	m=$1
	shift
	awk -v mode="$m" -v rules="$rules" -v wrappers="$wrappers" -v syslist="$system" '
	BEGIN {
		n = split(rules, l, "\n")
		for (i = 1; i <= n; i++)
			if (split(l[i], w, " ") > 0) {
				allowed[w[1]] = " "
				for (j = 2; j in w; j++)
					allowed[w[1]] = allowed[w[1]] w[j] " "
			}
		nw = 0
		n = split(wrappers, l, "\n")
		for (i = 1; i <= n; i++)
			if (split(l[i], w, " ") == 2) {
				nw++
				hdr[nw] = w[1]
				own[nw] = w[2]
			}
		n = split(syslist, w, /[ \n]+/)
		for (i = 1; i <= n; i++)
			sys[w[i]] = 1
	}
	# the wrapper file that may include header h, or ""
	function owner(h,   i) {
		for (i = 1; i <= nw; i++)
			if (substr(h, 1, length(hdr[i])) == hdr[i])
				return own[i]
		return ""
	}
	# a file begins: its group (g), named when it is not one of the rules
	function begin(f) {
		g = ""
		if (f ~ /^lib\//) {
			split(f, p, "/")
			g = p[2]
			if (mode == "groups" && !(g in allowed))
				print f ": lib/" g " is not a known group"
		}
	}
	# an empty file has no first line: it begins when the next one does, or at the end
	FNR == 1 {
		while (ARGV[++ai] != FILENAME)
			begin(ARGV[ai])
		begin(FILENAME)
	}
	END {
		while (++ai < ARGC)
			begin(ARGV[ai])
	}
	mode == "groups" && g != "" && /^#include "/ {
		inc = $0
		sub(/^#include "/, "", inc)
		sub(/".*/, "", inc)
		k = index(inc, "/")
		if (k == 0) {
			print FILENAME ":" FNR ": name '\''" inc "'\'' by its group (\"group/name.h\")"
			next
		}
		if (index(allowed[g], " " substr(inc, 1, k - 1) " ") == 0)
			print FILENAME ":" FNR ": lib/" g " may not include '\''" inc "'\''"
	}
	/^#include <[^>]*>/ {
		h = $0
		sub(/^#include </, "", h)
		sub(/>.*/, "", h)
		o = owner(h)
		at = FILENAME ":" FNR ": "
		if (mode == "groups" && o != "" && o != FILENAME)
			print at "includes <" h ">, which only " o " may"
		if (mode == "system" && o != FILENAME && !(h in sys))
			print at "<" h "> is not the C library or POSIX: " FILENAME " may not include it"
	}' "$@"
}

# files PATTERN...: the files the patterns name (a pattern that names none: nothing)
files() {
	for f in "$@"; do
		[ ! -f "$f" ] || printf '%s\n' "$f"
	done
}
all=$(files lib/*/*.[ch] daemon/*.[ch] workers/*.c workers/*/*.[ch] bench/*.[ch])
pure=$(files lib/util/*.[ch] lib/decide/*.[ch])
checked=$(printf '%s' "$all" | grep -c .)
# shellcheck disable=SC2086 # the paths have no spaces: they are split on purpose
{
	{ [ -z "$all" ] || check groups $all; } &&
	{ [ -z "$pure" ] || check system $pure; }
} >"$out" || { echo "layout: the check itself failed" >&2; exit 1; }
cat "$out"
bad=$(wc -l <"$out")
echo "layout: $checked files checked, $bad problems"
if [ "$bad" = 0 ]; then p=1 f=0; else p=0 f=1; fi
[ -n "${CHECK_SUMMARY:-}" ] && echo "layout $p $f" >>"$CHECK_SUMMARY"
echo "$p passed, $f failed"
[ "$bad" = 0 ]
