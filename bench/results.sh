#!/bin/sh
# Runs the benchmarks bench/bench-NAME.sh one after another, as make bench does, and
# writes what they print into their section of a results file (bench/RESULTS.md), with
# the date and the commit, so that no figure there is older than the run that made it.
#   sh bench/results.sh FILE NAME...
# Each benchmark's output goes to the terminal as it comes; the section between the
# "make bench: begin" and "make bench: end" marks is replaced (added at the end the first
# time), the rest of FILE kept. A benchmark that fails is said in the section and on
# stderr, the others still run, and the exit is 1.
set -u
[ $# -ge 2 ] || { echo "usage: sh bench/results.sh FILE NAME..." >&2; exit 2; }
file=$1
shift
dir=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench-results.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP

fail=0
: >"$tmp/out"
for name in "$@"; do
	# stdout is the figures, kept; stderr (progress) only shown
	{ sh "$dir/bench-$name.sh" 2>&3; echo $? >"$tmp/rc"; } 3>&2 | tee -a "$tmp/out"
	rc=$(cat "$tmp/rc")
	if [ "$rc" != 0 ]; then
		echo "bench/bench-$name.sh failed (exit $rc)" | tee -a "$tmp/out" >&2
		fail=1
	fi
done

at=$(cd "$dir" && git describe --always --dirty 2>/dev/null || echo "no commit")
{
	echo "<!-- make bench: begin -->"
	echo "## The last \`make bench\`"
	echo
	echo "Run of $(date -u '+%Y-%m-%d %H:%M') UTC, at \`$at\`, on $(nproc) cores;" \
		"written by \`make bench\` (\`bench/results.sh\`), which replaces this section" \
		"at each run. Benchmarks run: $*."
	echo
	echo '```'
	cat "$tmp/out"
	echo '```'
	echo "<!-- make bench: end -->"
} >"$tmp/section"

# the file with its old section (if any) replaced by the new one
[ -f "$file" ] || : >"$file"
awk -v new="$tmp/section" '
	function put() { while ((getline l < new) > 0) print l; done = 1 }
	/^<!-- make bench: begin -->$/ { skip = 1; put(); next }
	/^<!-- make bench: end -->$/ { skip = 0; next }
	!skip { print }
	END { if (!done) { print ""; put() } }' "$file" >"$tmp/file" &&
	cat "$tmp/file" >"$file" || exit 1
echo "bench: figures written to $file" >&2
exit "$fail"
