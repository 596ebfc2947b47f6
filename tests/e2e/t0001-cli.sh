#!/bin/sh
# beside: t0100-kernel.sh
# The command table, help and usage errors of the bootgate CLI.
. "$(dirname "$0")/lib.sh"

test_expect_success 'no command: usage on stderr, exit 2' '
	test_exit_code 2 bootgate 2>err &&
	test_grep "usage: bootgate COMMAND" err
'

test_expect_success 'help lists every command' '
	bootgate help >out &&
	for c in parse diff help version; do test_grep "^  $c " out; done
'

test_expect_success 'unknown command: exit 2, named' '
	test_exit_code 2 bootgate frobnicate 2>err &&
	test_grep "unknown command .frobnicate." err
'

test_expect_success 'parse --help prints the usage, exit 0' '
	bootgate parse --help >out &&
	test_grep "usage: bootgate parse \[--json | --summary\] \[--top N\] LOG|- ..." out
'

test_expect_success 'help COMMAND is the same as COMMAND --help' '
	bootgate help diff >a &&
	bootgate diff --help >b &&
	test_cmp a b
'

test_expect_success 'parse without a log: exit 2' '
	test_exit_code 2 bootgate parse 2>err &&
	test_grep "bootgate parse: no log given" err
'

test_expect_success 'unknown option: exit 2 with the usage' '
	test_exit_code 2 bootgate parse --frob x.log 2>err &&
	test_grep "usage: bootgate parse" err
'

test_expect_success '--top needs a number' '
	test_exit_code 2 bootgate parse --top many x.log 2>err &&
	test_grep "--top: .many. is not a whole number from 1 to 1000000" err
'

test_expect_success 'diff needs two logs' '
	test_exit_code 2 bootgate diff a.log 2>err &&
	test_grep "needs exactly two logs" err
'

test_expect_success 'gate, series, bisect, measure: the same letter for a run option' '
	for c in gate series bisect measure; do
		test_exit_code 2 bootgate $c -C loud 2>err &&
		test_grep "^bootgate $c: --console: the console is verbose or quiet, not .loud.$" err &&
		test_exit_code 2 bootgate $c --console=loud 2>err2 &&
		test_cmp err err2 &&
		test_exit_code 2 bootgate $c -m fast 2>err &&
		test_grep "^bootgate $c: --mode is deterministic or timing, not .fast.$" err &&
		test_exit_code 2 bootgate $c -R many 2>err &&
		test_grep "^bootgate $c: --perf-runs: .many. is not a whole number from 0 to 100$" err &&
		bootgate help $c >help &&
		test_grep "^  -C, --console C " help &&
		test_grep "^  -t, --tree DIR " help || return 1
	done &&
	for c in gate series bisect; do
		test_exit_code 2 bootgate $c -T bad 2>err &&
		test_grep "^bootgate $c: --threshold: " err &&
		test_exit_code 2 bootgate $c -N ../x 2>err &&
		test_grep "^bootgate $c: --name .\.\./x. is not a name$" err || return 1
	done &&
	for c in gate series measure; do
		test_exit_code 2 bootgate $c -n 0 2>err &&
		test_grep "^bootgate $c: --boots: .0. is not a whole number from 1 to 1000$" err ||
			return 1
	done &&
	for c in bisect measure; do
		test_exit_code 2 bootgate $c -P 0 2>err &&
		test_grep "^bootgate $c: --parallel: .0. is not a whole number from 1 to 64$" err ||
			return 1
	done
'

test_expect_success 'bisect --no-confirm and measure --top: long options alone' '
	test_exit_code 2 bootgate bisect --no-confirm 2>err &&
	test_grep "^bootgate bisect: --tree, --good, --bad and --arch (or --board) are needed$" err &&
	bootgate help bisect >help &&
	test_grep "^      --no-confirm " help &&
	test_exit_code 2 bootgate measure -T 5 2>err &&
	test_grep "unknown option, or one without its value: .-T." err &&
	test_exit_code 2 bootgate measure --top 0 2>err &&
	test_grep "^bootgate measure: --top: .0. is not a whole number from 1 to 1000000$" err
'

test_expect_success 'what fails a command is an error, not a warning' '
	test_exit_code 1 bootgate show --db nope.db 1 2>err &&
	test_grep "^bootgate: error: no store at .nope.db." err &&
	test_exit_code 1 bootgate parse nope.log 2>err &&
	test_grep "^bootgate: error: cannot open .nope.log." err &&
	test_exit_code 2 bootgate nosuch 2>err &&
	test_grep "^bootgate: error: unknown command .nosuch." err &&
	! grep -q "warning" err
'

test_expect_success 'mail --db of a store that is not there: exit 1, nothing made' '
	test_exit_code 1 bootgate mail --db typo/x.db 2>err &&
	test_grep "^bootgate: error: no store at .typo/x.db." err &&
	test ! -e typo
'

# conf FILE [REFERENCE]: a service configuration of one tree, with that reference
conf() {
	{
		echo "state: $SCRATCH/state" &&
		echo "trees:" &&
		echo "  - name: t" &&
		echo "    url: git://127.0.0.1/t.git" &&
		echo "    branch: main" &&
		echo "    arches: [x86_64]" &&
		if [ -n "${2:-}" ]; then echo "    reference: $2"; fi
	} >"$1"
}

test_expect_success 'bootgated -n: a reference that is no git repository is named at its line' '
	conf c.yaml nolinux &&
	test_exit_code 2 "$ROOT/bin/bootgated" -n -f c.yaml >out 2>err &&
	test_grep "^c.yaml:7:16: .reference.: not a git repository .$SCRATCH/nolinux.: " err &&
	git init -q --bare linux.git &&
	conf c.yaml linux.git &&
	"$ROOT/bin/bootgated" -n -f c.yaml >out &&
	test_grep "^c.yaml: 1 trees, ok$" out
'

test_expect_success 'a second bootgated on the same state: an error, exit 1' '
	conf c.yaml &&
	mkdir -p state &&
	echo 4242 >state/bootgated.lock &&
	test_exit_code 1 flock state/bootgated.lock "$ROOT/bin/bootgated" -f c.yaml >out 2>err &&
	test_grep "^bootgated: error: another bootgated (pid 4242) runs on" err &&
	! test_grep "warning" err
'

test_expect_success 'bootgated -n: a NUL in the configuration is named at its line, no doubled backslash' '
	conf c.yaml &&
	printf "%s\n" "    tag: \"ma\\0in\"" >>c.yaml &&
	test_exit_code 2 "$ROOT/bin/bootgated" -n -f c.yaml 2>err &&
	test_grep "^c.yaml:7:10: a NUL character (an escaped zero) in a key or value is not taken$" err &&
	! test_grep "\\\\" err &&
	printf "state: x\ntrees:\n  - name: t\n    url: a\000b\n" >c2.yaml &&
	test_exit_code 2 "$ROOT/bin/bootgated" -n -f c2.yaml 2>err &&
	test_grep "^c2.yaml:4:11: binary data, not YAML$" err
'

test_expect_success 'a file name with U+202E or a newline reaches the terminal escaped' '
	rlo=$(printf "\342\200\256") &&
	conf "c${rlo}x.yaml" &&
	"$ROOT/bin/bootgated" -n -f "c${rlo}x.yaml" >out &&
	test_grep "^c\\\\xe2\\\\x80\\\\xaex.yaml: 1 trees, ok$" out &&
	! grep -q "$rlo" out &&
	conf "$(printf "c\nx.yaml")" &&
	bootgate inbox --config "$(printf "c\nx.yaml")" --db i.db >out &&
	test "$(wc -l <out)" = 1 &&
	test_grep "in c\\\\x0ax.yaml: nothing to read$" out
'

test_expect_success 'series and inbox make a new store, never a missing directory' '
	conf c.yaml &&
	test_exit_code 1 bootgate series --id 5 --db "$SCRATCH/typo/x.db" 2>err &&
	test_grep "no directory .*typo. for the store" err &&
	test_exit_code 1 bootgate inbox --config c.yaml --db typo/i.db >out 2>err &&
	test_grep "no directory .typo. for the store" err &&
	test ! -e typo &&
	bootgate inbox --config c.yaml --db fresh.db >out &&
	test -f fresh.db &&
	rm -rf state &&
	bootgate inbox --config c.yaml >out &&
	test -f state/bootgate.db
'

test_expect_success 'log --tree of a tree the store does not have: exit 1, named' '
	new_store s.db &&
	sqlite3 s.db "INSERT INTO trees (id, name, path) VALUES (1, '\''tracing'\'', '\''/x'\'')" &&
	bootgate log --db s.db --tree tracing >out &&
	test_exit_code 1 bootgate log --db s.db --tree nosuch >out 2>err &&
	test_grep "^bootgate: error: no tree .nosuch. in the store" err
'

test_expect_success 'a copy outside the checkout without a configuration: exit 2, named' '
	mkdir -p away/bin &&
	cp "$ROOT/bin/bootgate" "$ROOT/bin/bootgated" away/bin/ &&
	test_exit_code 2 away/bin/bootgated -n 2>err &&
	test_grep "no configuration: give -f FILE" err &&
	! test_grep "(null)" err &&
	for c in inbox mail; do
		test_exit_code 2 away/bin/bootgate $c --db i.db 2>err &&
		test_grep "^bootgate: error: no configuration: give --config FILE$" err || return 1
	done
'

test_expect_success 'version' '
	bootgate version >out &&
	test_grep "^bootgate [0-9]" out
'

test_done
