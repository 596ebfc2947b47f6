#!/bin/sh
# bootgate bench-bisect: its corpora, and its figures beside plain git bisect.
. "$(dirname "$0")/lib.sh"

CORPORA=$ROOT/tests/corpora

test_expect_success 'the generator writes the shipped corpus again, byte for byte' '
	bootgate bench-bisect --generate --N 128 --d 0.20 --cv 0.05 --histories 200 --seed 7 >gen.bb &&
	cmp gen.bb "$CORPORA/N128_d20_cv5_h200.bb"
'

test_expect_success 'd = 20%, CV = 5%: bootgate near 100%, git bisect far below' '
	bootgate bench-bisect --json "$CORPORA/N128_d20_cv5_h200.bb" >out &&
	jq -e ".corpora[0].histories == 200" out &&
	jq -e ".corpora[0].algorithms[0] | .name == \"bootgate\" and .accuracy >= 0.98
		and .unknown <= 0.01 and .mean_builds <= 10.5" out &&
	jq -e ".corpora[0].algorithms[1] | .name == \"git-bisect\" and .accuracy < 0.9" out
'

test_expect_success 'd = 5%, CV = 5%: bootgate >= 97% where git bisect is near 5%' '
	bootgate bench-bisect --json "$CORPORA/N128_d5_cv5_h200.bb" >out &&
	jq -e ".corpora[0].algorithms[0].accuracy >= 0.97" out &&
	jq -e ".corpora[0].algorithms[1].accuracy < 0.2" out &&
	jq -e ".corpora[0].algorithms[0].accuracy_ci | .[0] <= .[1]" out
'

test_expect_success 'four workers: fewer rounds' '
	bootgate bench-bisect --json --k 4 "$CORPORA/N128_d20_cv5_h200.bb" >k4 &&
	jq -e ".corpora[0].algorithms[0] | .k == 4 and .accuracy >= 0.98" k4 &&
	r1=$(jq ".corpora[0].algorithms[0].mean_rounds" out) &&
	r4=$(jq ".corpora[0].algorithms[0].mean_rounds" k4) &&
	echo "rounds: $r1 with one worker, $r4 with four" &&
	[ "$(echo "$r1 > 2 * $r4" | bc -l)" = 1 ]
'

test_expect_success 'three steps: each one found' '
	bootgate bench-bisect --json --all-steps "$CORPORA/N128_d20_cv2_3steps_h100.bb" >out &&
	jq -e ".corpora[0].algorithms[0] | .accuracy >= 0.95 and .steps_found >= 0.98
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
	test_grep "\-\-d takes a number" err
'

test_done
