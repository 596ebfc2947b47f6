#!/bin/sh
# bootgate site on a store of 10 000 boots (2 000 commits of one tree gated in timing mode,
# 5 boots each, every comparison keeping its parsed boots as the gate does), side by side
# with reading the same rows from SQLite alone: the same queries the site runs, through the
# sqlite3 shell. Then a second run, which finds every file unchanged. Prints figures and
# the ratio (the aim: at most 2x the reading); never fails on them.
set -eu
cd "$(dirname "$0")/.."
root=$(pwd)
bg=$root/bin/bootgate
logs=$root/tests/fixtures/bootlogs
work=$(mktemp -d "${TMPDIR:-/tmp}/bootgate-bench-site.XXXXXX")
[ -n "${BENCH_SITE_KEEP:-}" ] && echo "keeping $work" >&2 || trap 'rm -rf "$work"' EXIT
commits=${BENCH_SITE_COMMITS:-2000}
per=${BENCH_SITE_BOOTS:-5}
db=$work/bench.db

# The template boots: the six tiny x86_64 logs, their samples named as parse/metrics.c does.
"$bg" parse --json "$logs"/x86_64-tiny-baseline-run[123].log \
	"$logs"/x86_64-tiny-regressed-run[123].log >"$work/boots.json"
jq -r '
	def q: "\u0027" + gsub("\u0027"; "\u0027\u0027") + "\u0027";
	def named(p; f): reduce .[] as $x ({seen: {}, out: []};
		.seen[$x | f] += 1 |
		.out += [{m: (p + ($x | f) + (if .seen[$x | f] > 1 then "#\(.seen[$x | f])"
			else "" end)), v: $x.usecs}]) | .out;
	.logs | to_entries[] | .key as $t | .value as $b |
	(($b.initcalls | named("initcall."; .name)) + ($b.probes | named("probe."; .device)) +
	 [{m: "boot.init", v: $b.milestones.init_us}]) | to_entries[] |
	"INSERT INTO tmpl VALUES (\($t), \(.key), \(.value.m | q), \(.value.v));"
' "$work/boots.json" >"$work/tmpl.sql"
# the result a timing gate keeps: 5 parsed boots a side and the comparison
b="$logs/x86_64-tiny-baseline-run1.log $logs/x86_64-tiny-baseline-run2.log"
b="$b $logs/x86_64-tiny-baseline-run3.log"
c="$logs/x86_64-tiny-regressed-run1.log $logs/x86_64-tiny-regressed-run2.log"
c="$c $logs/x86_64-tiny-regressed-run3.log"
# shellcheck disable=SC2086
"$bg" compare --json --base $b $b --cand $c $c >"$work/cmp.json" || true
jq -c --slurpfile cmp "$work/cmp.json" '
	{mode: "timing", board: "qemu-x86_64", commit: {status: "built"}, against: {status: "built"},
	 boots: ([.logs[0:3][], .logs[0:2][] | {side: "against", outcome: "complete",
		wall_seconds: 2, parsed: .}] + [.logs[3:6][], .logs[3:5][] | {side: "commit",
		outcome: "complete", wall_seconds: 2, parsed: .}]),
	 comparison: $cmp[0]}' "$work/boots.json" >"$work/result.json"

start=$(date +%s.%N)
n=$(ls "$root"/schemas/[0-9][0-9][0-9]-*.sql | wc -l)
{
	cat "$root"/schemas/[0-9][0-9][0-9]-*.sql
	echo "PRAGMA user_version = $n;"
	echo "CREATE TEMP TABLE tmpl (t INTEGER, seq INTEGER, metric TEXT, value REAL);"
	echo "BEGIN;"
	cat "$work/tmpl.sql"
	echo "INSERT INTO trees (id, name, path, branch) VALUES (1, 'tracing', '/x', 'for-next');"
	echo "WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < $commits)
		INSERT INTO commits SELECT printf('%040x', i), printf('%040x', i - 1),
			printf('tracing: change number %d', i), 'A <a@x>' FROM k;"
	echo "INSERT INTO builds (commit_sha, board, status, image_sha256, created)
		SELECT sha, 'qemu-x86_64', 'built', 'img-' || sha, 0 FROM commits;"
	echo "WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k
		WHERE i < $commits * $per - 1)
		INSERT INTO boots (id, image_sha256, board, mode, outcome, created)
		SELECT i + 1, printf('img-%040x', i / $per + 1), 'qemu-x86_64', 'timing',
			'complete', 0 FROM k;"
	echo "INSERT INTO samples SELECT b.id, t.seq, t.metric, t.value + b.id % 7 FROM boots b
		JOIN tmpl t ON t.t = b.id % 6;"
	echo "WITH RECURSIVE k(i) AS (SELECT 2 UNION ALL SELECT i + 1 FROM k WHERE i < $commits)
		INSERT INTO comparisons (tree_id, base, cand, board, mode, verdict, metric, delta,
			result, created)
		SELECT 1, printf('%040x', i - 1), printf('%040x', i), 'qemu-x86_64', 'timing',
			'unknown', NULL, 0, CAST(readfile('$work/result.json') AS TEXT), i FROM k;"
	echo "COMMIT;"
} | sqlite3 "$db"
made=$(echo "$(date +%s.%N) - $start" | bc -l)
boots=$(sqlite3 "$db" "SELECT count(*) FROM boots")
samples=$(sqlite3 "$db" "SELECT count(*) FROM samples")
mib=$(echo "$(stat -c %s "$db") / 1048576" | bc)

# The reader: every query the site runs, one statement each, through the sqlite3 shell.
sqlite3 -batch -noheader "$db" "
	SELECT 'SELECT c.id, t.name, c.base, c.cand, c.board, c.mode, c.verdict, c.metric,
		c.delta, c.result, c.created, cb.subject, cc.subject, cc.author FROM comparisons c
		LEFT JOIN trees t ON t.id = c.tree_id LEFT JOIN commits cb ON cb.sha = c.base
		LEFT JOIN commits cc ON cc.sha = c.cand WHERE c.id = ' || id || ';'
	FROM comparisons;
	SELECT 'SELECT s.metric, s.value FROM boots o JOIN samples s ON s.boot_id = o.id
		WHERE o.image_sha256 IN (SELECT image_sha256 FROM builds WHERE commit_sha = '''
		|| sha || ''' AND board = ''qemu-x86_64'' AND status = ''built'') AND
		o.board = ''qemu-x86_64'' AND o.mode = ''timing'' AND o.outcome = ''complete''
		AND (s.metric = ''boot.init'' OR s.metric GLOB ''initcall.*'');'
	FROM commits;" >"$work/reader.sql"

# seconds CMD...: the wall time of one run
seconds() {
	s=$(date +%s.%N)
	"$@" >/dev/null
	echo "$(date +%s.%N) - $s" | bc -l
}

# warm the page cache for both, so that neither pays for the first read
cat "$db" >/dev/null
read_s=$(seconds sqlite3 -batch -noheader "$db" ".read $work/reader.sql")
site_s=$(seconds "$bg" site --db "$db" "$work/site")
again_s=$(seconds "$bg" site --db "$db" "$work/site")
read2_s=$(seconds sqlite3 -batch -noheader "$db" ".read $work/reader.sql")
pages=$(find "$work/site" -type f | wc -l)
unchanged=$("$bg" site --db "$db" --json "$work/site" | jq '.unchanged')

echo
echo "site on $boots boots ($(nproc) cores, $(date -u +%Y-%m-%d)): $commits commits of one tree,"
echo "$per boots each, $samples samples, a $mib MiB store (made in $(printf %.1f "$made") s)"
printf '%-58s %9s\n' "what" "seconds"
printf '%-58s %9.2f\n' "reading the same rows (sqlite3 shell, the site's queries)" "$read_s"
printf '%-58s %9.2f\n' "bootgate site, first run ($pages files written)" "$site_s"
printf '%-58s %9.2f\n' "bootgate site, again ($unchanged files unchanged)" "$again_s"
printf '%-58s %9.2f\n' "reading the same rows, again" "$read2_s"
printf 'ratio site / reading: %.2f first run, %.2f again (aim: at most 2)\n' \
	"$(echo "$site_s / $read_s" | bc -l)" "$(echo "$again_s / $read2_s" | bc -l)"
