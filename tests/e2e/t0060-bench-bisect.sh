#!/bin/sh
# beside: t0100-kernel.sh
# bootgate bench-bisect: its corpora, and its figures beside plain git bisect.
. "$(dirname "$0")/lib.sh"

CORPORA=$ROOT/tests/corpora

test_expect_success 'the generator writes the shipped corpus again, byte for byte' '
	bootgate bench-bisect --generate --N 128 --d 0.20 --cv 0.05 --histories 200 --seed 7 >gen.bb &&
	cmp gen.bb "$CORPORA/N128_d20_cv5_h200.bb"
'

test_expect_success 'd = 20%, CV = 5%: bootgate near 100%, git bisect far below' '
	bootgate bench-bisect --json "$CORPORA/N128_d20_cv5_h200.bb" >out &&
	test_jq ".corpora[0].histories == 200" out &&
	test_jq ".corpora[0].algorithms[0] | .name == \"bootgate\" and .accuracy >= 0.98
		and .unknown <= 0.01 and .mean_builds <= 10.5" out &&
	test_jq ".corpora[0].algorithms[1] | .name == \"git-bisect\" and .accuracy < 0.9" out
'

test_expect_success 'd = 5%, CV = 5%: bootgate >= 97% where git bisect is near 5%' '
	bootgate bench-bisect --json "$CORPORA/N128_d5_cv5_h200.bb" >out &&
	test_jq ".corpora[0].algorithms[0].accuracy >= 0.97" out &&
	test_jq ".corpora[0].algorithms[1].accuracy < 0.2" out &&
	test_jq ".corpora[0].algorithms[0].accuracy_ci | .[0] <= .[1]" out
'

test_expect_success 'four workers: fewer rounds' '
	bootgate bench-bisect --json "$CORPORA/N128_d20_cv5_h200.bb" >out &&
	bootgate bench-bisect --json --k 4 "$CORPORA/N128_d20_cv5_h200.bb" >k4 &&
	test_jq ".corpora[0].algorithms[0] | .k == 4 and .accuracy >= 0.98" k4 &&
	r1=$(jq ".corpora[0].algorithms[0].mean_rounds" out) &&
	r4=$(jq ".corpora[0].algorithms[0].mean_rounds" k4) &&
	echo "rounds: $r1 with one worker, $r4 with four" &&
	[ "$(echo "$r1 > 2 * $r4" | bc -l)" = 1 ]
'

test_expect_success 'three steps: each one found' '
	bootgate bench-bisect --json --all-steps "$CORPORA/N128_d20_cv2_3steps_h100.bb" >out &&
	test_jq ".corpora[0].algorithms[0] | .accuracy >= 0.95 and .steps_found >= 0.98
		and .false_culprits <= 0.05" out
'

test_expect_success 'the table names both algorithms' '
	bootgate bench-bisect "$CORPORA/N128_d20_cv5_h200.bb" >out 2>err &&
	test_grep "^  bootgate k=1 " out &&
	test_grep "^  git-bisect " out &&
	test_grep "200 histories" err
'

test_expect_success 'a malformed corpus: file:line and why, exit 1' '
	printf "bbench 1\nhistory a commits 9 seed 3\nlevel 0 8 -1\n" >bad.bb &&
	test_exit_code 1 bootgate bench-bisect bad.bb 2>err &&
	test_grep "bad.bb:3: level median must be a positive number, not .-1." err
'

test_expect_success 'usage: --k out of range, --generate with a corpus' '
	test_exit_code 2 bootgate bench-bisect --k 0 x.bb 2>err &&
	test_exit_code 2 bootgate bench-bisect --generate x.bb 2>err &&
	test_exit_code 2 bootgate bench-bisect --generate --d many 2>err &&
	test_grep "\-\-d: .many. is not a number" err
'

test_expect_success 'what the generator writes, its reader reads: 100 000 commits' '
	bootgate bench-bisect --generate --N 100000 --histories 2 >big.bb &&
	test "$(grep -c "^build_fail" big.bb)" -gt 2 &&
	bootgate bench-bisect --json big.bb >out 2>err &&
	test_jq ".corpora[0].histories == 2" out
'

test_expect_success 'generator options that describe no regression: exit 2' '
	test_exit_code 2 bootgate bench-bisect --generate --d 0 >/dev/null 2>err &&
	test_grep "\-\-d: .0. is not a number from 0.0001" err &&
	test_exit_code 2 bootgate bench-bisect --generate --steps 0.5,0.5,0.5 >/dev/null 2>err &&
	test_grep "add up to 1, not 1.5" err &&
	test_exit_code 2 bootgate bench-bisect --generate --N 4x >/dev/null 2>err &&
	test_exit_code 2 bootgate bench-bisect --generate --N " 4" >/dev/null 2>err &&
	test_exit_code 2 bootgate bench-bisect --generate --histories -1 >/dev/null 2>err &&
	bootgate bench-bisect --generate --steps 0.25,0.75 --histories 1 >ok.bb &&
	test_grep "^truth [0-9]* [0-9]*$" ok.bb
'

# a corpus of one valid history, and the same with one defect each
corpus() {
	printf "bbench 1\nhistory a commits 9 seed 3\ntruth 4\n"
	printf "level 0 3 100\nlevel 4 8 110\nnoise lognorm 0.05\nhang 0.01\n"
	printf "build_fail 2\n"
	if [ -n "$1" ]; then printf "%s\n" "$1"; fi
	printf "end\n"
}

test_expect_success 'a corpus with overlapping levels or a directive given twice: exit 1' '
	corpus "" >good.bb &&
	bootgate bench-bisect good.bb >/dev/null 2>&1 &&
	corpus "level 3 5 105" >overlap.bb &&
	test_exit_code 1 bootgate bench-bisect overlap.bb 2>err &&
	test_grep "overlap.bb:9: level 3..5 overlaps level 0..3" err &&
	corpus "noise lognorm 0.1" >noise2.bb &&
	test_exit_code 1 bootgate bench-bisect noise2.bb 2>err &&
	test_grep "noise2.bb:9: history .a. has a second .noise. line" err &&
	corpus "hang 0.5" >hang2.bb &&
	test_exit_code 1 bootgate bench-bisect hang2.bb 2>err &&
	test_grep "second .hang. line" err &&
	corpus "truth 5" >truth2.bb &&
	test_exit_code 1 bootgate bench-bisect truth2.bb 2>err &&
	test_grep "second .truth. line" err &&
	corpus "build_fail 2" >bf2.bb &&
	test_exit_code 1 bootgate bench-bisect bf2.bb 2>err &&
	test_grep "bf2.bb:9: build_fail names commit 2 twice" err
'

test_done
