#!/bin/sh
# make demo's own script, end to end: the three seed scenario trees served by a real git
# daemon, bootgated with SQLite, real kernels and
# perf built and booted under QEMU, mail through a real SMTP server, the site, and the
# tracing fix series posted to a real public-inbox list. Each planted culprit must be
# found, mailed once and published; the series' reply must show init_kprobe_trace's
# lines before and after. Each tree's history is 8 commits, not the 24 of make demo
# (demo.sh --commits 8): the same culprits and mechanisms, each where it is in its seed in
# proportion (6th, 3rd, 5th), in fewer steps: every bisection step costs a build and boots.
. "$(dirname "$0")/lib.sh"

OUT=$SCRATCH/demo
DB=$OUT/state/bootgate.db
TREE=$(sh "$ROOT/scripts/kernel-repo.sh")
COMMITS=8
. "$ROOT/tests/e2e/lib-daemon.sh"

# scen SCENARIO KEY: a line of scenario-tree.sh's own description, made here apart from
# the demo, so that the culprits below are not read from the demo's output
for s in tracing printk perf; do
	sh "$ROOT/scripts/scenario-tree.sh" --scenario "$s" --commits "$COMMITS" --force \
		>"$SCRATCH/$s.scenario" || exit 1
done
scen() { awk -v k="$2" '$1 == k { print $2 }' "$SCRATCH/$1.scenario"; }

test_expect_success 'demo.sh refuses bad arguments and a directory that is not its own' '
	test_exit_code 2 sh "$ROOT/scripts/demo.sh" --timeout 0 2>err &&
	test_grep "wants minutes" err &&
	test_exit_code 2 sh "$ROOT/scripts/demo.sh" --frobnicate 2>err &&
	test_grep "^usage:" err &&
	for n in 2 25 08 "" x; do
		test_exit_code 2 sh "$ROOT/scripts/demo.sh" --commits "$n" 2>err &&
		test_grep "commits wants a number from 3 to 24, not .$n." err || return 1
	done &&
	test_exit_code 2 sh "$ROOT/scripts/demo.sh" --commits 2>err &&
	test_grep "^usage:" err &&
	mkdir precious && echo keep >precious/file &&
	test_exit_code 2 sh "$ROOT/scripts/demo.sh" --out precious 2>err &&
	test_grep "holds no earlier demo" err &&
	test "$(cat precious/file)" = keep
'

# smtp-sink writes the mails as nobody, who must get through the scratch directory
chmod 711 "$SCRATCH"

test_expect_success 'the demo finds the three planted culprits' '
	if ! sh "$ROOT/scripts/demo.sh" --out "$OUT" --timeout 40 --commits "$COMMITS" \
		>demo.out 2>&1; then
		tail -60 demo.out
		return 1
	fi &&
	sed -n "/== Summary/,\$p" demo.out >summary &&
	cat summary &&
	mkdir -p "$ROOT/build/test-artifacts" &&
	cp demo.out "$ROOT/build/test-artifacts/t0165-demo.out" &&
	test_note "the demo as shown: build/test-artifacts/t0165-demo.out" &&
	test_grep "Pushing each tree.s $COMMITS commits" demo.out &&
	for s in tracing printk perf; do
		test "$(scen "$s" commits)" = "$COMMITS" &&
		grep "^$s " summary >line &&
		test "$(awk "{ print \$4 }" line)" = yes || return 1
	done
'

# bis SCENARIO COLUMN: the tree's bisection's column in the demo's store
bis() {
	q "SELECT $2 FROM bisections WHERE parent_id IS NULL AND
		tree_id = (SELECT id FROM trees WHERE name = '$1')"
}

test_expect_success 'each culprit is the planted one, on the figure it moves, confirmed' '
	for s in tracing printk perf; do
		test "$(bis "$s" culprit)" = "$(scen "$s" culprit)" &&
		test "$(bis "$s" state)" = done &&
		id=$(bis "$s" id) &&
		"$ROOT/bin/bootgate" show --db "$DB" --json "$id" >"$s.json" &&
		test_jq ".confidence >= 0.9" "$s.json" &&
		test_jq ".confirmation.verdict == \"different\"" "$s.json" || return 1
	done &&
	test "$(bis tracing metric)" = initcall.init_kprobe_trace &&
	case "$(bis printk metric)" in
	probe.serial8250* | boot.init) ;;
	*) echo "printk bisected on $(bis printk metric)"; false ;;
	esac &&
	test "$(bis perf metric)" = perf.trace_startup
'

test_expect_success 'each culprit is mailed once, to its list, and its page exists' '
	for s in tracing printk perf; do
		id=$(bis "$s" id) &&
		short=$(scen "$s" culprit | cut -c1-12) &&
		grep -l "bootgate-bisection-$id-" "$OUT"/mails/* >m &&
		test "$(wc -l <m)" = 1 &&
		tr -d "\r" <"$(cat m)" >mail &&
		test_grep "^Subject: \[$s:for-next\] $short " mail &&
		test_grep "^Fixes: $short (" mail &&
		test_grep "^Closes: file://$OUT/state/site/bisection/$id.html" mail &&
		test_grep "$(scen "$s" culprit)" "$OUT/state/site/bisection/$id.html" &&
		jq -e ".culprit == \"$(scen "$s" culprit)\"" "$OUT/state/site/bisection/$id.json" \
			>/dev/null || return 1
	done &&
	test -f "$OUT/state/site/index.html"
'

test_expect_success 'the fix series is measured and its reply shows init_kprobe_trace before and after' '
	test "$(q "SELECT state FROM series")" = done &&
	sid=$(q "SELECT id FROM series") &&
	test -f "$OUT/state/site/series/$sid.html" &&
	cover=$(q "SELECT message_id FROM series") &&
	grep -l "^In-Reply-To: <$cover>" "$OUT"/mails/* >r &&
	test "$(wc -l <r)" = 1 &&
	tr -d "\r" <"$(cat r)" >reply &&
	test_grep "^Subject: Re: \[PATCH v2 0/2\]" reply &&
	test "$(grep -c "initcall init_kprobe_trace+0x0/0x[0-9a-f]* returned 0 after" reply)" -ge 2 &&
	"$ROOT/bin/bootgate" series --db "$DB" --id "$sid" --json >series.json &&
	test_jq "[.patches[] | select(.verdict == \"regression\")] | length == 0" series.json &&
	cp "$(cat r)" "$ROOT/build/test-artifacts/t0165-series-reply.eml"
'

test_done
