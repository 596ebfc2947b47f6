#!/bin/sh
# bootgate compare on many boots: 1 000, 10 000 and 100 000 boots a side of 20 initcalls
# and boot.init, and 50 000 distinct initcalls on 5 boots a side. Side by side in the same
# run: reading the same logs alone (bootgate parse), and the Hodges-Lehmann shift formed
# from every pair as it used to be (bench/hl-pairs.c). Prints figures; never fails on them.
set -eu
cd "$(dirname "$0")/.."
root=$(pwd)
bg=$root/bin/bootgate
work=${BOOTGATE_CACHE:-/var/cache/bootgate}/bench/compare
mkdir -p "$work"
cc -O2 -o "$work/hl-pairs" bench/hl-pairs.c

# boots N SEED EXTRA: N boots of 20 initcalls (lognormal noise, CV about 10%) and
# boot.init, each ending as a real one does; f07 gets EXTRA us more. The values of f07
# also go to $work/f07-N-SEED.
boots() {
	awk -v n="$1" -v seed="$2" -v extra="$3" -v vals="$work/f07-$1-$2" '
	function normal() { return sqrt(-2 * log(1 - rand())) * cos(6.283185307 * rand()) }
	BEGIN {
		srand(seed)
		for (b = 0; b < n; b++) {
			printf "[    0.000000] Linux version 6.1.0 (bench) (x86_64-linux-gnu-gcc 12)\n"
			t = 100000
			for (i = 0; i < 20; i++) {
				v = int((1000 + 3000 * i) * exp(0.1 * normal()))
				if (i == 7) { v += extra; print v > vals }
				t += v
				printf "[%5d.%06d] initcall f%02d+0x0/0x10 returned 0 after %d usecs\n",
					int(t / 1e6), t % 1e6, i, v
			}
			t += 50000
			printf "[%5d.%06d] Run /init as init process\n", int(t / 1e6), t % 1e6
			printf "[%5d.%06d] reboot: Power down\n", int(t / 1e6), t % 1e6 + 1
		}
	}'
}

# measure LABEL CMD...: wall seconds and peak RSS (MiB) of one run
measure() {
	label=$1
	shift
	if ! /usr/bin/time -f "%e %M" -o "$work/time" "$@" >/dev/null 2>"$work/err"; then
		printf '%-52s %9s   (failed: %s)\n' "$label" "-" "$(tail -n 1 "$work/err")"
		return 0
	fi
	read -r secs kib <"$work/time"
	printf '%-52s %9s %9.1f\n' "$label" "$secs" "$(echo "$kib / 1024" | bc -l)"
}

echo
echo "compare on many boots ($(nproc) cores, $(date -u +%Y-%m-%d))"
printf '%-52s %9s %9s\n' "what" "seconds" "MiB"
for n in 1000 10000 100000; do
	[ -s "$work/base-$n.log" ] || boots $n 1 0 >"$work/base-$n.log"
	[ -s "$work/cand-$n.log" ] || boots $n 2 1500 >"$work/cand-$n.log"
	measure "bootgate parse, $n boots a side (reading alone)" \
		"$bg" parse --summary "$work/base-$n.log" "$work/cand-$n.log"
	measure "bootgate compare --json, $n boots a side" \
		"$bg" compare --json --base "$work/base-$n.log" --cand "$work/cand-$n.log"
	if [ $n -le 10000 ]; then
		measure "every pair formed: one metric, $n a side" \
			"$work/hl-pairs" "$work/f07-$n-1" "$work/f07-$n-2"
	else
		printf '%-52s %9s %9s\n' "every pair formed: one metric, $n a side" "-" \
			"$((n * n * 8 / 1048576))"
	fi
done
"$bg" compare --json --base "$work/base-10000.log" --cand "$work/cand-10000.log" |
	jq -r '.verdicts[] | select(.metric == "initcall.f07") |
		"check: initcall.f07 at 10 000 a side: \(.verdict), shift \(.delta) us (planted 1500)"'

# 50 000 distinct initcalls, 5 boots a side
if [ ! -s "$work/wide-base.log" ]; then
	for side in base cand; do
		awk -v seed="$side" 'BEGIN {
			srand(length(seed))
			for (b = 0; b < 5; b++) {
				printf "[    0.000000] Linux version 6.1.0 (bench)\n"
				for (i = 0; i < 50000; i++)
					printf "[    1.%06d] initcall w%05d+0x0/0x10 returned 0 after %d usecs\n",
						i % 1000000, i, int(100 + 1000 * rand())
				printf "[    2.000000] Run /init as init process\n"
				printf "[    2.000001] reboot: Power down\n"
			}
		}' >"$work/wide-$side.log"
	done
fi
measure "bootgate parse, 50 000 initcalls x 5 boots a side" \
	"$bg" parse --summary "$work/wide-base.log" "$work/wide-cand.log"
measure "bootgate compare --json, 50 000 initcalls x 5 boots" \
	"$bg" compare --json --base "$work/wide-base.log" --cand "$work/wide-cand.log"
