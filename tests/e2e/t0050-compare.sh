#!/bin/sh
# bootgate compare: verdicts per metric from real logs and from simulated boots.
. "$(dirname "$0")/lib.sh"

cp "$FIXTURES"/bootlogs/x86_64-tiny-*.log "$FIXTURES"/bootlogs/x86_64-debian-6.1.0-57-noinitrd-panic.log .

test_expect_success 'three boots against three: unknown, with the boots that would settle it' '
	bootgate compare --json --base x86_64-tiny-baseline-run*.log \
		--cand x86_64-tiny-regressed-run*.log >out &&
	jq -e ".boots == {\"base\": 3, \"cand\": 3, \"base_excluded\": 0, \"cand_excluded\": 0}" out &&
	jq -e ".verdicts[] | select(.metric == \"initcall.init_kprobe_trace\") |
		.verdict == \"unknown\" and .more_boots == 2 and .n_base == 3 and
		.base_median == 94 and .cand_median == 50036 and .delta > 49000 and .unit == \"us\"" out &&
	jq -e "[.verdicts[] | select(.verdict == \"different\")] | length == 0" out &&
	jq -e "[.verdicts[] | has(\"metric\", \"unit\", \"verdict\", \"base_median\",
		\"cand_median\", \"delta\", \"delta_pct\", \"ci\", \"p\", \"n_base\", \"n_cand\",
		\"more_boots\")] | all" out &&
	jq -e ".attribution == []" out
'

test_expect_success 'a boot that panicked is left out and counted' '
	bootgate compare --json --base x86_64-tiny-baseline-run1.log \
		x86_64-debian-6.1.0-57-noinitrd-panic.log --cand x86_64-tiny-regressed-run1.log >out &&
	jq -e ".boots.base == 1 and .boots.base_excluded == 1" out
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

test_expect_success 'ten boots against ten: the 50 ms is different, and explains boot.init' '
	for i in 1 2 3 4 5 6 7 8 9 10; do
		jitter $i 0 >base$i.log
		jitter $((i + 100)) 50000 >cand$i.log
	done &&
	bootgate compare --json --base base*.log --cand cand*.log >out &&
	jq -e ".verdicts[0] | .metric == \"initcall.init_kprobe_trace\" and
		.verdict == \"different\" and .delta > 45000 and .delta < 55000 and .q <= 0.05 / 7" out &&
	jq -e "[.verdicts[] | select(.verdict == \"different\")] | map(.metric) - [\"initcall.init_kprobe_trace\", \"boot.init\"] == []" out &&
	bootgate compare --base base*.log --cand cand*.log >table &&
	test_grep "^initcall.init_kprobe_trace  *different" table
'

test_expect_success 'thresholds: a large enough floor turns different into not different' '
	bootgate compare --json --threshold "initcall.init_kprobe_trace=0%:100000" \
		--base base*.log --cand cand*.log >out &&
	jq -e ".verdicts[] | select(.metric == \"initcall.init_kprobe_trace\") | .verdict != \"different\"" out
'

test_expect_success 'usage errors: exit 2' '
	test_exit_code 2 bootgate compare --base a.log 2>err &&
	test_grep "needs logs after --base and after --cand" err &&
	test_exit_code 2 bootgate compare a.log --cand b.log 2>err &&
	test_grep "say whether it is --base or --cand" err &&
	test_exit_code 2 bootgate compare --threshold "x=ten" --base a.log --cand b.log 2>err &&
	test_grep "the percentage must read like 5%" err
'

test_expect_success 'a missing log: exit 1, named' '
	test_exit_code 1 bootgate compare --base nope.log --cand base1.log 2>err &&
	test_grep "cannot open .nope.log." err
'

test_done
