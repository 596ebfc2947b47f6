#!/bin/sh
# Bisection quality on the 18 standard cells (N in 16, 128, 1024; d in 5%, 20%; CV in 2%,
# 5%, 10%; 5% build failures, 1% hangs; 1000 histories each): bootgate's engine beside
# plain git bisect on the same samples, and the reference figures of the method's notes.
# Prints figures; never fails on them.
set -eu
cd "$(dirname "$0")/.."
cache=${BOOTGATE_CACHE:-/var/cache/bootgate}
bg=$(pwd)/bin/bootgate
dir=$cache/bench/bisect
histories=${BENCH_HISTORIES:-1000}
mkdir -p "$dir"

# mean boots and rounds of the reference method (k = 1), from the notes' main table
reference() {
	case "$1" in
	16-0.05-0.02) echo "21.2 20.4" ;;   16-0.05-0.05) echo "103.7 41.2" ;;
	16-0.05-0.10) echo "391.5 66.6" ;;  16-0.20-0.02) echo "13.8 11.1" ;;
	16-0.20-0.05) echo "14.9 14.0" ;;   16-0.20-0.10) echo "33.0 27.6" ;;
	128-0.05-0.02) echo "27.0 26.3" ;;  128-0.05-0.05) echo "138.0 55.0" ;;
	128-0.05-0.10) echo "518.7 87.4" ;; 128-0.20-0.02) echo "17.1 14.3" ;;
	128-0.20-0.05) echo "18.9 17.9" ;;  128-0.20-0.10) echo "42.0 36.7" ;;
	1024-0.05-0.02) echo "33.0 32.4" ;; 1024-0.05-0.05) echo "166.8 67.5" ;;
	1024-0.05-0.10) echo "644.5 104.9" ;; 1024-0.20-0.02) echo "20.1 17.4" ;;
	1024-0.20-0.05) echo "22.7 21.7" ;; 1024-0.20-0.10) echo "52.3 45.8" ;;
	esac
}

printf '\nbisection on the standard cells (%s histories each; boots include hung ones)\n' "$histories"
printf '%-5s %-4s %-4s %22s %9s %17s %6s %14s %20s %7s\n' N d CV "bootgate accuracy" \
	"git bis." "boots (ref)" p95 "builds (max)" "rounds k=1 -> k=4" unknown
worst_acc=1; below_git=0; worst_boots=0; builds_over=0; worst_cut=100; worst_unknown=0
for N in 16 128 1024; do
	for d in 0.05 0.20; do
		for cv in 0.02 0.05 0.10; do
			f=$dir/N${N}_d${d}_cv${cv}_h${histories}.bb
			[ -f "$f" ] || { "$bg" bench-bisect --generate --N "$N" --d "$d" --cv "$cv" \
				--histories "$histories" --seed 7 >"$f.tmp" && mv "$f.tmp" "$f"; }
			k1=$("$bg" bench-bisect --json --k 1 "$f" 2>/dev/null)
			k4=$("$bg" bench-bisect --json --k 4 "$f" 2>/dev/null)
			set -- $(reference "$N-$d-$cv")
			ref_boots=$1
			lg=$(awk -v n="$N" 'BEGIN { print log(n) / log(2) }')
			line=$(printf '%s\n%s\n' "$k1" "$k4" | jq -rs --arg rb "$ref_boots" --arg lg "$lg" '
				(.[0].corpora[0].algorithms[0]) as $b | (.[0].corpora[0].algorithms[1]) as $g |
				(.[1].corpora[0].algorithms[0]) as $b4 |
				[$b.accuracy, $b.accuracy_ci[0], $b.accuracy_ci[1], $g.accuracy,
				 $b.mean_boots, ($rb | tonumber), $b.p95_boots, $b.mean_builds,
				 (1.5 * ($lg | tonumber)), $b.mean_rounds, $b4.mean_rounds, $b.unknown]
				| map(tostring) | join(" ")')
			set -- $line
			printf '%-5s %-4s %-4s %6.1f%% [%5.1f, %5.1f] %8.1f%% %7.1f (%6.1f) %6s %6.1f (%5.1f) %8.1f -> %5.1f %6.1f%%\n' \
				"$N" "$d" "$cv" "$(echo "$1 * 100" | bc -l)" "$(echo "$2 * 100" | bc -l)" \
				"$(echo "$3 * 100" | bc -l)" "$(echo "$4 * 100" | bc -l)" "$5" "$6" "$7" \
				"$8" "$9" "${10}" "${11}" "$(echo "${12} * 100" | bc -l)"
			worst_acc=$(echo "if ($1 < $worst_acc) $1 else $worst_acc" | bc -l)
			below_git=$((below_git + $(echo "$1 < $4" | bc -l)))
			worst_boots=$(echo "r = $5 / $6; if (r > $worst_boots) r else $worst_boots" | bc -l)
			builds_over=$((builds_over + $(echo "$8 > $9" | bc -l)))
			worst_cut=$(echo "c = ${10} / ${11}; if (c < $worst_cut) c else $worst_cut" | bc -l)
			worst_unknown=$(echo "if (${12} > $worst_unknown) ${12} else $worst_unknown" | bc -l)
		done
	done
done
echo
printf 'lowest accuracy:                     %.1f%% (target >= 99%%)\n' "$(echo "$worst_acc * 100" | bc -l)"
printf 'cells below git bisect:              %d (target 0)\n' "$below_git"
printf 'highest boots against the reference: %.2fx (target <= 1.25x)\n' "$worst_boots"
printf 'cells over 1.5 log2 N builds:        %d (target 0)\n' "$builds_over"
printf 'smallest cut in rounds with k = 4:   %.2fx (target >= 2.5x)\n' "$worst_cut"
printf 'highest unknown rate:                %.1f%% (target <= 1%%)\n' "$(echo "$worst_unknown * 100" | bc -l)"

# Noise that is not lognormal: a share of boots in a slow mode (as init_kprobe_trace on two
# CPUs, where most boots wait), and heavy tails. N = 128, d = 20%, CV 5%, 1000 histories.
# The engine beside itself without its robust part (the model alone, bisect.h), with the
# noise from history and from the boots alone (as the service bisects), and the reference
# method's figures on the same corpora (accuracy, boots, builds; tools/bisect-bench of the
# method's notes, bench.py run --algos bayes: it reads 'noise mix', and takes 'noise t' for
# lognormal, so it has none for heavy tails; it names no posterior).
noise_reference() {
	case "$1" in
	lognormal) echo "100.0 19.0 7.4" ;;
	slow30) echo "34.7 31.3 10.4" ;;
	wait85) echo "89.1 87.3 9.3" ;;
	*) echo "- - -" ;;
	esac
}

printf '\nbisection under noise that is not lognormal (N 128, d 20%%, CV 5%%, %s histories)\n' "$histories"
printf '%-10s %-8s %24s %30s %37s\n' noise sigma "reference acc/boots/builds" \
	"model alone acc/boots/wrong>0.9" "bootgate acc/boots/builds/wrong>0.9"
worst_wrong=0; worst_noise_acc=1
for spec in lognormal: slow30:--mix=0.3,1.5 wait85:--mix=0.85,300 tails3:--tails=3; do
	name=${spec%%:*}
	opt=$(echo "${spec#*:}" | tr = ' ')
	f=$dir/noise_${name}_h${histories}.bb
	# shellcheck disable=SC2086 # the option and its value, two words
	[ -f "$f" ] || { "$bg" bench-bisect --generate --N 128 --d 0.20 --cv 0.05 $opt \
		--histories "$histories" --seed 7 >"$f.tmp" && mv "$f.tmp" "$f"; }
	set -- $(noise_reference "$name")
	ref="$1% $2 $3"
	[ "$1" = - ] && ref="-"
	for h in history none; do
		flag=
		[ $h = none ] && flag=--no-history
		# shellcheck disable=SC2086 # no flag, or one
		line=$("$bg" bench-bisect --json $flag "$f" 2>/dev/null | jq -r '
			.corpora[0].algorithms as $a | ($a[] | select(.name == "bootgate")) as $b |
			($a[] | select(.name == "model-only")) as $m |
			[$m.accuracy, $m.mean_boots, $m.confident_wrong,
			 $b.accuracy, $b.mean_boots, $b.confident_wrong, $b.mean_builds]
			| map(tostring) | join(" ")')
		set -- $line
		printf '%-10s %-8s %24s %10.1f%% %7.1f %8.1f%% %10.1f%% %7.1f %6.1f %8.1f%%\n' "$name" \
			"$h" "$([ $h = history ] && echo "$ref" || echo "")" \
			"$(echo "$1 * 100" | bc -l)" "$2" "$(echo "$3 * 100" | bc -l)" \
			"$(echo "$4 * 100" | bc -l)" "$5" "$7" "$(echo "$6 * 100" | bc -l)"
		worst_wrong=$(echo "if ($6 > $worst_wrong) $6 else $worst_wrong" | bc -l)
		worst_noise_acc=$(echo "if ($4 < $worst_noise_acc) $4 else $worst_noise_acc" | bc -l)
	done
done
echo
printf 'highest rate of wrong culprits over 0.9: %.1f%% (target 0)\n' "$(echo "$worst_wrong * 100" | bc -l)"
printf 'lowest accuracy under such noise:        %.1f%% (target >= 95%%)\n' "$(echo "$worst_noise_acc * 100" | bc -l)"
