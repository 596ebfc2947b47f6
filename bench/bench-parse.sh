#!/bin/sh
# Parser throughput, side by side in one run with the kernel's own boot-graph scripts and
# with grep as the I/O floor, on a 210 MB log made of the shipped real logs. Prints
# figures and ratios; never fails on them.
set -eu
cd "$(dirname "$0")/.."
root=$(pwd)
cache=${BOOTGATE_CACHE:-/var/cache/bootgate}
bg=$root/bin/bootgate
ref=$cache/ref/linux-6.1
work=$cache/bench
mkdir -p "$work" "$ref"

# The reference scripts, from Debian's linux-source-6.1, extracted once.
if [ ! -f "$ref/scripts/bootgraph.pl" ] || [ ! -f "$ref/tools/power/pm-graph/bootgraph.py" ]; then
	echo "extracting bootgraph.pl and bootgraph.py from /usr/src/linux-source-6.1.tar.xz" >&2
	tar -xJf /usr/src/linux-source-6.1.tar.xz -C "$ref" --strip-components=1 \
		--wildcards '*/scripts/bootgraph.pl' '*/tools/power/pm-graph/*'
fi

# The input: every shipped console log, again and again, to at least 210 MB.
big=$work/parse-210M.log
stamp=$(cat tests/fixtures/bootlogs/*.log | cksum | cut -d' ' -f1)
if [ ! -f "$big" ] || [ "$(cat "$big.stamp" 2>/dev/null)" != "$stamp" ]; then
	echo "writing $big" >&2
	: >"$big"
	while [ "$(wc -c <"$big")" -lt 210000000 ]; do
		cat tests/fixtures/bootlogs/*.log >>"$big"
	done
	echo "$stamp" >"$big.stamp"
fi
small=$work/parse-1M.log
head -c 1000000 "$big" >"$small"
cat "$big" >/dev/null   # from the page cache from now on: CPU, not disk

now() { date +%s%N; }

# best of N runs of a command, in seconds
best() {
	runs=$1
	shift
	b=""
	i=0
	while [ $i -lt "$runs" ]; do
		t0=$(now)
		"$@"
		t1=$(now)
		t=$((t1 - t0))
		if [ -z "$b" ] || [ $t -lt "$b" ]; then b=$t; fi
		i=$((i + 1))
	done
	echo "$b" | awk '{ printf "%.3f", $1 / 1e9 }'
}

size_big=$(wc -c <"$big")
size_small=$(wc -c <"$small")
mb() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1e6 }'; }
rate() { awk -v b="$1" -v s="$2" 'BEGIN { printf "%.1f", b / 1e6 / s }'; }

# (GNU grep stops at the first match when its output is /dev/null: give it a file)
t_grep=$(best 3 sh -c "grep -c initcall '$big' >'$work/grep.out'")
t_json=$(best 3 sh -c "'$bg' parse --json '$big' >/dev/null")
t_sum=$(best 3 sh -c "'$bg' parse --summary '$big' >/dev/null")
t_stdin=$(best 3 sh -c "cat '$big' | '$bg' parse --json - >/dev/null")
t_pl=$(best 1 sh -c "perl '$ref/scripts/bootgraph.pl' <'$big' >/dev/null")
# bootgraph.py slows down with every boot it has read (0.38 s for 0.5 MB, 2.3 s for
# 2 MB, 583 s for 21 MB here): it gets 1 MB, the fairest figure it can give.
pydir=$(mktemp -d)
t_py=$(best 1 sh -c "cd '$pydir' && python3 '$ref/tools/power/pm-graph/bootgraph.py' -dmesg '$small' -o '$pydir/out' >/dev/null 2>&1")
rm -rf "$pydir"
t_json_small=$(best 3 sh -c "'$bg' parse --json '$small' >/dev/null")

r_grep=$(rate "$size_big" "$t_grep")
r_json=$(rate "$size_big" "$t_json")
r_sum=$(rate "$size_big" "$t_sum")
r_stdin=$(rate "$size_big" "$t_stdin")
r_pl=$(rate "$size_big" "$t_pl")
r_py=$(rate "$size_small" "$t_py")
r_json_small=$(rate "$size_small" "$t_json_small")

echo
echo "parser throughput ($(nproc) cores, $(date -u +%Y-%m-%d))"
printf '%-44s %9s %9s %9s\n' "tool" "input MB" "seconds" "MB/s"
row() { printf '%-44s %9s %9s %9s\n' "$1" "$2" "$3" "$4"; }
row "grep -c initcall (I/O floor)" "$(mb "$size_big")" "$t_grep" "$r_grep"
row "bootgate parse --json" "$(mb "$size_big")" "$t_json" "$r_json"
row "bootgate parse --json - (through a pipe)" "$(mb "$size_big")" "$t_stdin" "$r_stdin"
row "bootgate parse --summary" "$(mb "$size_big")" "$t_sum" "$r_sum"
row "scripts/bootgraph.pl" "$(mb "$size_big")" "$t_pl" "$r_pl"
row "bootgate parse --json" "$(mb "$size_small")" "$t_json_small" "$r_json_small"
row "tools/power/pm-graph/bootgraph.py" "$(mb "$size_small")" "$t_py" "$r_py"
echo
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a / b }'; }
echo "bootgate --json against bootgraph.pl: $(ratio "$r_json" "$r_pl")x faster (target >= 10x)"
echo "bootgate --json against bootgraph.py: $(ratio "$r_json" "$r_py")x faster (target >= 50x)"
echo "bootgate --json against grep -c:      $(ratio "$t_json" "$t_grep")x grep's time (target <= 4x)"
