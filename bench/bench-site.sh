#!/bin/sh
# bootgate site on a store of 10 000 boots (2 000 commits of one tree gated in timing mode,
# 5 boots each, every comparison keeping its verdicts and its boots as the gate does),
# side by side with reading the same rows from SQLite alone: the queries the site runs
# for each page, through the sqlite3 shell. Then a second run, which finds every file
# unchanged. Prints figures and the ratio (the aim: at most 2x the reading); never fails
# on them. BOOTGATE_BIN chooses the programs (default bin/).
set -eu
bin=${BOOTGATE_BIN:-$(dirname "$0")/../bin}
bin=$(cd "$bin" && pwd)
cd "$(dirname "$0")/.."
root=$(pwd)
bg=$bin/bootgate
logs=$root/tests/fixtures/bootlogs
work=$(mktemp -d "${TMPDIR:-/tmp}/bootgate-bench-site.XXXXXX")
if [ -n "${BENCH_SITE_KEEP:-}" ]; then
	echo "keeping $work" >&2
else
	trap 'rm -rf "$work"' EXIT
fi
commits=${BENCH_SITE_COMMITS:-2000}
per=${BENCH_SITE_BOOTS:-5}
db=$work/bench.db

# The template boots: the six tiny x86_64 logs (three of a base, three of a regressed
# kernel), their samples named as parse/metrics.c names them, with when each ran and the
# line that gave it, as the boot worker stores them (lab/record.c).
"$bg" parse --json "$logs"/x86_64-tiny-baseline-run[123].log \
	"$logs"/x86_64-tiny-regressed-run[123].log >"$work/boots.json"
jq -r '
	def q: if . == null then "NULL" else "\u0027" + gsub("\u0027"; "\u0027\u0027") +
		"\u0027" end;
	def n: if . == null then "NULL" else tostring end;
	def named(p; f): reduce .[] as $x ({seen: {}, out: []};
		.seen[$x | f] += 1 |
		.out += [{m: (p + ($x | f) + (if .seen[$x | f] > 1 then "#\(.seen[$x | f])"
			else "" end)), v: $x.usecs, s: $x.start_us, e: $x.end_us, l: $x.line}]) |
		.out;
	.logs | to_entries[] | .key as $t | .value as $b |
	"INSERT INTO tboot VALUES (\($t), \($b.file | q), \(if $b.kernel == null then null
		elif ($b.banner // "" | index(" #")) then $b.kernel + " " +
		($b.banner | .[index(" #") + 1:]) else $b.kernel end | q), \($b.cmdline | q));",
	((($b.initcalls | named("initcall."; .name)) + ($b.probes | named("probe."; .device)) +
	  [{m: "boot.init", v: $b.milestones.init_us, l: $b.milestones.init_line}] +
	  (if $b.milestones.userspace_us then [{m: "boot.userspace",
		v: $b.milestones.userspace_us}] else [] end)) | to_entries[] |
	 "INSERT INTO tmpl VALUES (\($t), \(.key), \(.value.m | q), \(.value.v), " +
	 "\(.value.s | n), \(.value.e | n), \(.value.l | n));")
' "$work/boots.json" >"$work/tmpl.sql"

# What a timing gate keeps of each commit against the one before: the comparison of
# $per boots a side (the three logs of a side over and over), every metric's verdict in
# its order, the attribution, and the gate's word as lib/ci/gate.c picks it.
b='' c='' k=0
while [ $k -lt "$per" ]; do
	r=$((k % 3 + 1))
	b="$b $logs/x86_64-tiny-baseline-run$r.log"
	c="$c $logs/x86_64-tiny-regressed-run$r.log"
	k=$((k + 1))
done
# shellcheck disable=SC2086
"$bg" compare --json --base $b --cand $c >"$work/cmp.json" || true
jq -r '
	def q: if . == null then "NULL" else "\u0027" + gsub("\u0027"; "\u0027\u0027") +
		"\u0027" end;
	def n: if . == null then "NULL" else tostring end;
	(reduce (.verdicts[] | select(.verdict == "different" and .delta > 0)) as $v (null;
		if . == null or $v.delta_pct > .delta_pct then $v else . end)) as $worst |
	"INSERT INTO tgate VALUES (\(if $worst then "regression" elif
		any(.verdicts[]; .verdict == "unknown") then "unknown" else "pass" end | q), " +
	"\($worst.metric | q), \($worst.delta // 0), \(.boots.base), \(.boots.cand), " +
	"\(.boots.base_excluded), \(.boots.cand_excluded));",
	(.verdicts | to_entries[] | .key as $k | .value |
	 "INSERT INTO tverdict VALUES (\($k), \(.metric | q), \(.verdict | q), " +
	 "\(.base_median | n), \(.cand_median | n), \(.mad_base | n), \(.mad_cand | n), " +
	 "\(.delta | n), \(.delta_pct | n), \(.ci[0] | n), \(.ci[1] | n), \(.p | n), " +
	 "\(.q | n), \(.n_base), \(.n_cand), \(.more_boots), " +
	 "\(if .exact then 1 else 0 end));"),
	(.attribution | to_entries[] | "INSERT INTO tattr VALUES (\(.key), " +
	 "\(.value.metric | q), \(.value.delta | n), \(.value.share | n));")
' "$work/cmp.json" >"$work/gate.sql"

start=$(date +%s.%N)
n=$(ls "$root"/schemas/[0-9][0-9][0-9]-*.sql | wc -l)
{
	cat "$root"/schemas/[0-9][0-9][0-9]-*.sql
	echo "PRAGMA user_version = $n;"
	# as bg_store_open leaves the service's store: its readers never wait for its writer
	echo "PRAGMA journal_mode = WAL;"
	echo "CREATE TEMP TABLE tboot (t INTEGER, console TEXT, kernel TEXT, cmdline TEXT);"
	echo "CREATE TEMP TABLE tmpl (t INTEGER, seq INTEGER, metric TEXT, value REAL,
		start_us REAL, end_us REAL, line INTEGER);"
	echo "CREATE TEMP TABLE tgate (verdict TEXT, metric TEXT, delta REAL, boots_base INTEGER,
		boots_cand INTEGER, excluded_base INTEGER, excluded_cand INTEGER);"
	echo "CREATE TEMP TABLE tverdict (rank INTEGER, metric TEXT, verdict TEXT,
		base_median REAL, cand_median REAL, mad_base REAL, mad_cand REAL, delta REAL,
		delta_pct REAL, ci_lo REAL, ci_hi REAL, p REAL, q REAL, n_base INTEGER,
		n_cand INTEGER, more_boots INTEGER, exact INTEGER);"
	echo "CREATE TEMP TABLE tattr (rank INTEGER, metric TEXT, delta REAL, share REAL);"
	echo "BEGIN;"
	cat "$work/tmpl.sql" "$work/gate.sql"
	echo "INSERT INTO trees (id, name, path, branch, last_good, last_tip) VALUES (1, 'tracing',
		'/x', 'for-next', printf('%040x', $commits), printf('%040x', $commits));"
	echo "WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < $commits)
		INSERT INTO commits SELECT printf('%040x', i), printf('%040x', i - 1),
			printf('tracing: change number %d', i), 'A <a@x>' FROM k;"
	echo "INSERT INTO builds (commit_sha, board, status, image_sha256, created)
		SELECT sha, 'qemu-x86_64', 'built', 'img-' || sha, 0 FROM commits;"
	# boot k (from 1) is of commit (k - 1) / per + 1, its console one of the six
	echo "WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k
		WHERE i < $commits * $per - 1)
		INSERT INTO boots (id, image_sha256, board, mode, outcome, wall_s, console, created,
			kernel, cmdline)
		SELECT i + 1, printf('img-%040x', i / $per + 1), 'qemu-x86_64', 'timing',
			'complete', 2, t.console, 0, t.kernel, t.cmdline FROM k
		JOIN tboot t ON t.t = (i + 1) % 6;"
	echo "INSERT INTO samples (boot_id, seq, metric, value, start_us, end_us, line)
		SELECT b.id, t.seq, t.metric, t.value + b.id % 7, t.start_us, t.end_us + b.id % 7,
			t.line FROM boots b JOIN tmpl t ON t.t = b.id % 6;"
	# comparison i - 1: commit i against commit i - 1, the boots of both images
	echo "WITH RECURSIVE k(i) AS (SELECT 2 UNION ALL SELECT i + 1 FROM k WHERE i < $commits)
		INSERT INTO comparisons (id, tree_id, base, cand, board, mode, verdict, metric,
			delta, created, role, console_mode, boots_base, boots_cand, excluded_base,
			excluded_cand)
		SELECT i - 1, 1, printf('%040x', i - 1), printf('%040x', i), 'qemu-x86_64',
			'timing', g.verdict, g.metric, g.delta, i, 'gate', 'verbose', g.boots_base,
			g.boots_cand, g.excluded_base, g.excluded_cand FROM k, tgate g;"
	echo "INSERT INTO verdicts SELECT c.id, v.* FROM comparisons c, tverdict v;"
	echo "INSERT INTO attributions SELECT c.id, a.* FROM comparisons c, tattr a;"
	echo "WITH RECURSIVE k(j) AS (SELECT 0 UNION ALL SELECT j + 1 FROM k WHERE j < 2 * $per - 1)
		INSERT INTO comparison_boots SELECT c.id, k.j,
			CASE WHEN k.j < $per THEN 'base' ELSE 'cand' END, (c.id - 1) * $per + k.j + 1
		FROM comparisons c, k;"
	echo "COMMIT;"
} | sqlite3 "$db" >/dev/null
made=$(echo "$(date +%s.%N) - $start" | bc -l)
boots=$(sqlite3 "$db" "SELECT count(*) FROM boots")
samples=$(sqlite3 "$db" "SELECT count(*) FROM samples")
verdicts=$(sqlite3 "$db" "SELECT count(*) FROM verdicts")
mib=$(echo "$(stat -c %s "$db") / 1048576" | bc)

# The reader: the rows of every page, each read once by the query the site reads it
# with (lib/store/results.c, lib/store/views.c), through the sqlite3 shell. Per
# comparison page: its row, verdicts, attributions, boots, the commits' words, each
# boot's row, and the initcalls of the boot of each side the timeline draws (the one
# with the median time to init). Then the tree's trend (its commits, and each one's
# samples), the index, and the lists of ids.
sqlite3 -batch -noheader "$db" "
	SELECT 'SELECT id FROM comparisons ORDER BY id;';
	WITH lane AS (
		SELECT cb.comparison_id c, cb.side, cb.boot_id b,
			row_number() OVER (PARTITION BY cb.comparison_id, cb.side
				ORDER BY s.value, cb.seq) AS r,
			count(*) OVER (PARTITION BY cb.comparison_id, cb.side) AS n
		FROM comparison_boots cb JOIN boots o ON o.id = cb.boot_id
		JOIN samples s ON s.boot_id = o.id AND s.metric = 'boot.init'
		WHERE o.outcome = 'complete'
	), q(c, k, sql) AS (
		SELECT id, 0, 'SELECT c.id, c.tree_id, c.bisection_id, c.job_id, c.role, t.name,
			c.base, c.cand, c.board, c.mode, c.console_mode, c.verdict, c.metric, c.delta,
			c.created, c.boots_base, c.boots_cand, c.excluded_base, c.excluded_cand FROM
			comparisons c LEFT JOIN trees t ON t.id = c.tree_id WHERE c.id = ' || id || ';
		SELECT metric, verdict, base_median, cand_median, mad_base, mad_cand, delta,
			delta_pct, ci_lo, ci_hi, p, q, n_base, n_cand, more_boots, exact FROM
			verdicts WHERE comparison_id = ' || id || ' ORDER BY rank;
		SELECT metric, delta, share FROM attributions WHERE comparison_id = ' || id ||
			' ORDER BY rank;
		SELECT side, boot_id FROM comparison_boots WHERE comparison_id = ' || id ||
			' ORDER BY seq;
		SELECT subject FROM commits WHERE sha = ' || quote(base) || ';
		SELECT subject FROM commits WHERE sha = ' || quote(cand) || ';
		SELECT author FROM commits WHERE sha = ' || quote(cand) || ';'
		FROM comparisons
		UNION ALL
		SELECT comparison_id, 1 + seq, 'SELECT o.id, o.image_sha256, o.board, o.mode,
			o.console_mode, o.outcome, o.console, o.job_url, o.kernel, o.cmdline, o.wall_s,
			o.created, (SELECT value FROM samples WHERE boot_id = o.id AND metric =
			''boot.init'') FROM boots o WHERE o.id = ' || boot_id || ';'
		FROM comparison_boots
		UNION ALL
		SELECT c, 1000 + (side = 'cand'), 'SELECT metric, value, start_us, end_us, line FROM
			samples WHERE boot_id = ' || b || ' AND substr(metric, 1, 9) = ''initcall.''
			ORDER BY seq;'
		FROM lane WHERE r = (n - 1) / 2 + 1
	)
	SELECT sql FROM q ORDER BY c, k;
	SELECT 'SELECT id FROM bisections ORDER BY id;';
	SELECT 'SELECT id FROM series ORDER BY id;';
	SELECT 'SELECT id, name FROM trees ORDER BY id;';
	SELECT 'SELECT x.sha, x.board, x.mode, max(x.cid), cm.subject FROM (SELECT base sha,
		board, mode, created - 1e-6 t, NULL cid FROM comparisons WHERE tree_id = ' || id ||
		' AND role IN (''gate'', ''series'') UNION ALL SELECT cand, board, mode, created, id
		FROM comparisons WHERE tree_id = ' || id || ' AND role IN (''gate'', ''series'')) x
		LEFT JOIN commits cm ON cm.sha = x.sha GROUP BY x.sha ORDER BY min(x.t), x.sha;'
	FROM trees;
	SELECT 'SELECT s.metric, s.value FROM boots o JOIN samples s ON s.boot_id = o.id
		WHERE o.image_sha256 IN (SELECT image_sha256 FROM builds WHERE commit_sha = '
		|| quote(sha) || ' AND board = ' || quote(board) || ' AND status = ''built'') AND
		o.board = ' || quote(board) || ' AND o.mode = ' || quote(mode) || ' AND
		o.outcome = ''complete'' AND (s.metric = ''boot.init'' OR
		s.metric GLOB ''initcall.*'');'
	FROM (SELECT base sha, board, mode, created - 1e-6 t FROM comparisons
		WHERE tree_id = 1 AND role IN ('gate', 'series') UNION ALL SELECT cand, board,
		mode, created FROM comparisons WHERE tree_id = 1 AND role IN ('gate', 'series'))
	GROUP BY sha ORDER BY min(t), sha;
	SELECT 'SELECT t.name, t.branch, t.last_good, t.last_tip, (SELECT count(*) FROM
		comparisons c WHERE c.tree_id = t.id AND c.role IN (''gate'', ''series'')),
		(SELECT count(*) FROM comparisons c WHERE c.tree_id = t.id AND c.role IN (''gate'',
		''series'') AND c.verdict = ''regression'') FROM trees t ORDER BY t.name;';
	SELECT 'SELECT c.id, t.name, c.cand, cm.subject, c.verdict, c.metric, c.delta,
		c.created FROM comparisons c LEFT JOIN trees t ON t.id = c.tree_id LEFT JOIN
		commits cm ON cm.sha = c.cand WHERE c.role IN (''gate'', ''series'') ORDER BY
		c.created DESC, c.id DESC LIMIT 100;';
	SELECT 'SELECT b.id, t.name, b.metric, CASE WHEN b.outcome = ''unconfirmed'' THEN
		b.outcome ELSE b.state END, b.culprit, cm.subject, b.confidence FROM bisections b
		LEFT JOIN trees t ON t.id = b.tree_id LEFT JOIN commits cm ON cm.sha = b.culprit
		ORDER BY b.id DESC LIMIT 50;';
	SELECT 'SELECT s.id, t.name, s.subject, s.version, s.total, s.state FROM series s
		LEFT JOIN trees t ON t.id = s.tree_id ORDER BY s.id DESC LIMIT 50;';
" >"$work/reader.sql"
statements=$(grep -c ';$' "$work/reader.sql" || true)

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
echo "$per boots each, $samples samples, $verdicts verdicts, a $mib MiB store (made in" \
	"$(printf %.1f "$made") s)"
printf '%-58s %9s\n' "what" "seconds"
printf '%-58s %9.2f\n' "reading the same rows ($statements queries, sqlite3 shell)" "$read_s"
printf '%-58s %9.2f\n' "bootgate site, first run ($pages files written)" "$site_s"
printf '%-58s %9.2f\n' "bootgate site, again ($unchanged files unchanged)" "$again_s"
printf '%-58s %9.2f\n' "reading the same rows, again" "$read2_s"
printf 'ratio site / reading: %.2f first run, %.2f again (aim: at most 2)\n' \
	"$(echo "$site_s / $read_s" | bc -l)" "$(echo "$again_s / $read2_s" | bc -l)"
