#!/bin/sh
# beside: t0100-kernel.sh
# bootgate compare: verdicts per metric from real logs and from simulated boots.
. "$(dirname "$0")/lib.sh"

cp "$FIXTURES"/bootlogs/x86_64-tiny-*.log "$FIXTURES"/bootlogs/x86_64-debian-6.1.0-57-noinitrd-panic.log .

test_expect_success 'three boots against three: unknown, with the boots that would settle it' '
	bootgate compare --json --base x86_64-tiny-baseline-run*.log \
		--cand x86_64-tiny-regressed-run*.log >out &&
	test_jq ".boots == {\"base\": 3, \"cand\": 3, \"base_excluded\": 0, \"cand_excluded\": 0}" out &&
	test_jq ".verdicts[] | select(.metric == \"initcall.init_kprobe_trace\") |
		.verdict == \"unknown\" and .more_boots == 2 and .n_base == 3 and
		.base_median == 94 and .cand_median == 50036 and .delta > 49000 and .unit == \"us\"" out &&
	test_jq "[.verdicts[] | select(.verdict == \"different\")] | length == 0" out &&
	test_jq "[.verdicts[] | has(\"metric\", \"unit\", \"verdict\", \"base_median\",
		\"cand_median\", \"delta\", \"delta_pct\", \"ci\", \"p\", \"n_base\", \"n_cand\",
		\"more_boots\")] | all" out &&
	test_jq ".attribution == []" out
'

test_expect_success 'a boot that panicked is left out and counted' '
	bootgate compare --json --base x86_64-tiny-baseline-run1.log \
		x86_64-debian-6.1.0-57-noinitrd-panic.log --cand x86_64-tiny-regressed-run1.log >out &&
	test_jq ".boots.base == 1 and .boots.base_excluded == 1" out
'

# Ten boots per side, made from a real log: every initcall line jittered by up to
# +-10% (and the candidate gets 50 ms more in init_kprobe_trace and in boot.init).
jitter() {
	awk -v seed="$1" -v extra="$2" '
	BEGIN { srand(seed) }
	/initcall .* returned .* after [0-9]+ usecs/ {
		for (i = 1; i <= NF; i++) if ($i == "after") {
			v = int($(i + 1) * (0.9 + 0.2 * rand()))
			if ($0 ~ /init_kprobe_trace\+/) v += extra
			$(i + 1) = v
		}
	}
	/Run \/init as init process/ {
		t = substr($0, index($0, "[") + 1) + 0 + extra / 1e6 + 0.05 * rand()
		$0 = sprintf("[%12.6f] Run /init as init process", t)
	}
	{ print }' x86_64-tiny-baseline-run2.log
}

# make_boots: base1..10.log and cand1..10.log, the same every time (fixed seeds)
make_boots() {
	for i in 1 2 3 4 5 6 7 8 9 10; do
		jitter $i 0 >base$i.log &&
		jitter $((i + 100)) 50000 >cand$i.log || return 1
	done
}

test_expect_success 'ten boots against ten: the 50 ms is different, and explains boot.init' '
	make_boots &&
	bootgate compare --json --base base*.log --cand cand*.log >out &&
	test_jq ".verdicts[0] | .metric == \"initcall.init_kprobe_trace\" and
		.verdict == \"different\" and .delta > 45000 and .delta < 55000 and .q <= 0.05 / 7" out &&
	test_jq "[.verdicts[] | select(.verdict == \"different\")] | map(.metric) - [\"initcall.init_kprobe_trace\", \"boot.init\"] == []" out &&
	test_jq ".verdicts[] | select(.metric == \"boot.init\") | .verdict == \"different\"" out &&
	test_jq ".attribution[0] | .metric == \"initcall.init_kprobe_trace\" and
		.delta > 45000 and .share > 0.6 and .share < 1.4" out &&
	bootgate compare --base base*.log --cand cand*.log >table &&
	test_grep "^initcall.init_kprobe_trace  *different" table &&
	test_grep "^boot.init moved; what explains it:" table &&
	test_grep "^  initcall.init_kprobe_trace .* of the shift" table
'

test_expect_success 'thresholds: a large enough floor turns different into not different' '
	make_boots &&
	bootgate compare --json --threshold "initcall.init_kprobe_trace=0%:100000" \
		--base base*.log --cand cand*.log >out &&
	test_jq ".verdicts[] | select(.metric == \"initcall.init_kprobe_trace\") | .verdict != \"different\"" out
'

test_expect_success 'thresholds: the most specific pattern wins, whatever the order' '
	make_boots &&
	kprobe=".verdicts[] | select(.metric == \"initcall.init_kprobe_trace\") | .verdict" &&
	bootgate compare --json --threshold "initcall.*=0%:100000" \
		--threshold "initcall.init_kprobe_trace=5%:1000" \
		--base base*.log --cand cand*.log >out1 &&
	bootgate compare --json --threshold "initcall.init_kprobe_trace=5%:1000" \
		--threshold "initcall.*=0%:100000" \
		--base base*.log --cand cand*.log >out2 &&
	test "$(jq -r "$kprobe" out1)" = different &&
	test "$(jq -r "$kprobe" out2)" = different &&
	bootgate compare --json --threshold "initcall.*=0%:100000" \
		--threshold "initcall.init_*=5%:1000" \
		--base base*.log --cand cand*.log >out3 &&
	test "$(jq -r "$kprobe" out3)" = different &&
	bootgate compare --json --threshold "initcall.init_*=0%:100000" \
		--threshold "initcall.*=5%:1000" \
		--base base*.log --cand cand*.log >out4 &&
	test "$(jq -r "$kprobe" out4)" = same
'

test_expect_success 'a threshold that matches no metric is named' '
	make_boots &&
	bootgate compare --threshold "initcal.*=5%" --base base1.log base2.log \
		--cand cand1.log cand2.log >out 2>err &&
	test_grep "warning: threshold .initcal.\*. matches no metric of these boots" err
'

test_expect_success 'one unreadable log among several: the others compared, exit 1' '
	make_boots &&
	test_exit_code 1 bootgate compare --json --base base1.log nope.log base2.log base3.log \
		--cand cand*.log >out 2>err &&
	test_grep "cannot open .nope.log." err &&
	test_jq ".boots.base == 3 and .boots.cand == 10" out
'

test_expect_success 'no boot of a side reached init: an error, not "0 metrics"' '
	test_exit_code 1 bootgate compare --base x86_64-debian-6.1.0-57-noinitrd-panic.log \
		--cand x86_64-tiny-regressed-run1.log >out 2>err &&
	test_grep "no boot of the base reached init (1 left out)" err &&
	test ! -s out &&
	: >empty.log &&
	test_exit_code 1 bootgate compare --base x86_64-tiny-baseline-run1.log \
		--cand empty.log >out 2>err &&
	test_grep "no boot of the candidate reached init" err
'

test_expect_success 'boots of different arches: refused, on one side or across' '
	cp "$FIXTURES"/bootlogs/arm64-tiny-baseline-run1.log arm.log &&
	test_exit_code 1 bootgate compare --base x86_64-tiny-baseline-run1.log arm.log \
		--cand x86_64-tiny-regressed-run1.log >out 2>err &&
	test_grep "the base mixes arches: arm.log boot 0 is arm, but x86_64-tiny-baseline-run1.log is x86" err &&
	test_exit_code 1 bootgate compare --base x86_64-tiny-baseline-run1.log --cand arm.log >out 2>err &&
	test_grep "the base is x86 (x86_64-tiny-baseline-run1.log) and the candidate arm (arm.log)" err
'

test_expect_success 'a native ppc64 build (its banner names no arch) is no x86 boot' '
	cp "$FIXTURES"/bootlogs/ppc64-native-powernv.log ppc.log &&
	test_exit_code 1 bootgate compare --base x86_64-tiny-baseline-run1.log --cand ppc.log >out 2>err &&
	test_grep "the base is x86 (x86_64-tiny-baseline-run1.log) and the candidate powerpc (ppc.log)" err
'

test_expect_success 'usage errors: exit 2' '
	test_exit_code 2 bootgate compare --base a.log 2>err &&
	test_grep "needs logs after --base and after --cand" err &&
	test_exit_code 2 bootgate compare a.log --cand b.log 2>err &&
	test_grep "say whether it is --base or --cand" err &&
	test_exit_code 2 bootgate compare --threshold "x=ten" --base a.log --cand b.log 2>err &&
	test_grep "the percentage must read like 5%" err &&
	test_exit_code 2 bootgate compare --top 3 --all --base x86_64-tiny-baseline-run1.log \
		--cand x86_64-tiny-baseline-run2.log >out 2>err &&
	test_grep "\-\-top and \-\-all: one or the other" err &&
	test ! -s out
'

test_expect_success 'a missing log: exit 1, named' '
	test_exit_code 1 bootgate compare --base nope.log --cand x86_64-tiny-baseline-run1.log 2>err &&
	test_grep "cannot open .nope.log." err
'

test_done
