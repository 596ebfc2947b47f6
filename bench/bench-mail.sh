#!/bin/sh
# Mail composition: N outbox rows of found bisections (each its own culprit, a real git
# commit), stored as a deterministic bisection stores them: its chain and reports, its
# step (the culprit against its parent) and its timing confirmation as comparisons with
# every metric's verdict, their boots real consoles from tests/fixtures with their
# samples. Composed by `bootgate mail --dry-run`, beside the time to read the rows the
# mailer reads from SQLite alone (sqlite3). Prints figures; never fails on them.
# BOOTGATE_BIN chooses the programs (default bin/).
set -eu
bin=${BOOTGATE_BIN:-$(dirname "$0")/../bin}
bin=$(cd "$bin" && pwd)
cd "$(dirname "$0")/.."
root=$(pwd)
bg=$bin/bootgate
logs=$root/tests/fixtures/bootlogs
metric=initcall.init_kprobe_trace
n=${BENCH_MAIL_N:-500}
work=$(mktemp -d "${TMPDIR:-/tmp}/bootgate-bench-mail.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"
git init -q tree
git -C tree -c user.name=B -c user.email=b@example.org commit -q --allow-empty -m base
i=0
while [ $i -lt "$n" ]; do
	i=$((i + 1))
	git -C tree -c user.name=B -c user.email=b@example.org commit -q --allow-empty \
		-m "tracing: change $i" -m "Signed-off-by: B <b@example.org>"
done
cat >bootgate.yaml <<EOF
state: $work/state
report:
  from: "bootgate <bot@example.org>"
trees:
  - name: tracing
    url: git://127.0.0.1:1/none
    branch: for-next
    arches: [x86_64]
    mail:
      maintainers: ["M <m@example.org>"]
EOF
mkdir -p state
"$bg" mail --config bootgate.yaml >/dev/null

# The boots: the three base and the three regressed consoles, their samples as the boot
# worker stores them (named as parse/metrics.c names them, with when each ran and the
# console line that gave it, which the mail quotes).
"$bg" parse --json "$logs"/x86_64-tiny-baseline-run[123].log \
	"$logs"/x86_64-tiny-regressed-run[123].log >boots.json
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
	"INSERT INTO tboot VALUES (\($t), \($b.file | q), \($b.kernel | q), \($b.cmdline | q));",
	((($b.initcalls | named("initcall."; .name)) + ($b.probes | named("probe."; .device)) +
	  [{m: "boot.init", v: $b.milestones.init_us, l: $b.milestones.init_line}]) |
	 to_entries[] | "INSERT INTO tmpl VALUES (\($t), \(.key), \(.value.m | q), " +
	 "\(.value.v), \(.value.s | n), \(.value.e | n), \(.value.l | n));")
' boots.json >tmpl.sql
# every metric's verdict, base against regressed: the step's and the confirmation's
"$bg" compare --json --base "$logs"/x86_64-tiny-baseline-run[123].log \
	--cand "$logs"/x86_64-tiny-regressed-run[123].log >cmp.json || true
jq -r '
	def q: if . == null then "NULL" else "\u0027" + gsub("\u0027"; "\u0027\u0027") +
		"\u0027" end;
	def n: if . == null then "NULL" else tostring end;
	.verdicts | to_entries[] | .key as $k | .value |
	"INSERT INTO tverdict VALUES (\($k), \(.metric | q), \(.verdict | q), " +
	"\(.base_median | n), \(.cand_median | n), \(.mad_base | n), \(.mad_cand | n), " +
	"\(.delta | n), \(.delta_pct | n), \(.ci[0] | n), \(.ci[1] | n), \(.p | n), \(.q | n), " +
	"\(.n_base), \(.n_cand), \(.more_boots), \(if .exact then 1 else 0 end));"
' cmp.json >verdicts.sql

{
	echo "CREATE TEMP TABLE tboot (t INTEGER, console TEXT, kernel TEXT, cmdline TEXT);"
	echo "CREATE TEMP TABLE tmpl (t INTEGER, seq INTEGER, metric TEXT, value REAL,
		start_us REAL, end_us REAL, line INTEGER);"
	echo "CREATE TEMP TABLE tverdict (rank INTEGER, metric TEXT, verdict TEXT,
		base_median REAL, cand_median REAL, mad_base REAL, mad_cand REAL, delta REAL,
		delta_pct REAL, ci_lo REAL, ci_hi REAL, p REAL, q REAL, n_base INTEGER,
		n_cand INTEGER, more_boots INTEGER, exact INTEGER);"
	# bisection k: its good commit and its bad one, the culprit
	echo "CREATE TEMP TABLE pairs (k INTEGER PRIMARY KEY, bad TEXT, good TEXT, subject TEXT);"
	echo "BEGIN;"
	cat tmpl.sql verdicts.sql
	git -C tree log --format='%H %P %s' | head -n "$n" | awk '{
		s = substr($0, length($1) + length($2) + 3); gsub("\047", "\047\047", s)
		printf "INSERT INTO pairs VALUES (%d, \047%s\047, \047%s\047, \047%s\047);\n",
			NR, $1, $2, s }'
	echo "INSERT INTO trees (id, name, path, branch) VALUES (1, 'tracing', '$work/tree', 'for-next');"
	echo "INSERT OR IGNORE INTO commits SELECT bad, good, subject, 'B <b@example.org>' FROM pairs;"
	echo "INSERT INTO builds (commit_sha, board, status, image_sha256, created)
		SELECT good, 'qemu-x86_64', 'built', 'img-baseline', 0 FROM pairs UNION ALL
		SELECT bad, 'qemu-x86_64', 'built', 'img-regressed', 0 FROM pairs;"
	# 1-3 the base's and 4-6 the culprit's in deterministic mode, 7-12 the same in timing
	echo "WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < 12)
		INSERT INTO boots (id, image_sha256, board, mode, outcome, wall_s, console, created,
			kernel, cmdline)
		SELECT i, CASE WHEN (i - 1) % 6 < 3 THEN 'img-baseline' ELSE 'img-regressed' END,
			'qemu-x86_64', CASE WHEN i <= 6 THEN 'deterministic' ELSE 'timing' END,
			'complete', 2, t.console, 0, t.kernel, t.cmdline FROM k
		JOIN tboot t ON t.t = (i - 1) % 6;"
	echo "INSERT INTO samples (boot_id, seq, metric, value, start_us, end_us, line)
		SELECT b.id, t.seq, t.metric, t.value, t.start_us, t.end_us, t.line FROM boots b
		JOIN tmpl t ON t.t = (b.id - 1) % 6;"
	echo "INSERT INTO bisections (id, tree_id, good, bad, board, mode, metric, state, outcome,
			culprit, confidence, created, finished, range_first, range_last, builds, boots,
			wall_s, exact)
		SELECT k, 1, good, bad, 'qemu-x86_64', 'deterministic', '$metric', 'done', 'found', bad,
			0.99, 0, 60, 1, 1, 2, 6, 60, 0 FROM pairs;"
	echo "INSERT INTO bisection_commits SELECT k, 0, good FROM pairs UNION ALL
		SELECT k, 1, bad FROM pairs;"
	# what its engine was told: each end built, then the value of each of its boots
	echo "WITH RECURSIVE s(seq) AS (SELECT 0 UNION ALL SELECT seq + 1 FROM s WHERE seq < 7)
		INSERT INTO bisection_reports (bisection_id, seq, idx, kind, build_id, boot_id, value)
		SELECT k, seq, seq / 4, CASE seq % 4 WHEN 0 THEN 'built' ELSE 'value' END,
			CASE seq % 4 WHEN 0 THEN (SELECT max(id) FROM builds WHERE commit_sha =
				CASE seq / 4 WHEN 0 THEN good ELSE bad END) END,
			CASE WHEN seq % 4 > 0 THEN 3 * (seq / 4) + seq % 4 END,
			(SELECT value FROM samples WHERE boot_id = 3 * (seq / 4) + seq % 4 AND
				metric = '$metric' AND seq % 4 > 0)
		FROM pairs, s;"
	# comparison 2k - 1 its step, 2k its timing confirmation
	echo "INSERT INTO comparisons (id, tree_id, base, cand, board, mode, verdict, metric,
			delta, created, role, bisection_id, console_mode, boots_base, boots_cand)
		SELECT 2 * k - 1, 1, good, bad, 'qemu-x86_64', 'deterministic', v.verdict, v.metric,
			v.delta, 60, 'step', k, 'verbose', v.n_base, v.n_cand
		FROM pairs, tverdict v WHERE v.metric = '$metric' UNION ALL
		SELECT 2 * k, 1, good, bad, 'qemu-x86_64', 'timing', v.verdict, v.metric, v.delta, 60,
			'timing', k, 'verbose', v.n_base, v.n_cand
		FROM pairs, tverdict v WHERE v.metric = '$metric';"
	echo "INSERT INTO verdicts SELECT c.id, v.* FROM comparisons c, tverdict v;"
	echo "WITH RECURSIVE s(seq) AS (SELECT 0 UNION ALL SELECT seq + 1 FROM s WHERE seq < 5)
		INSERT INTO comparison_boots SELECT c.id, seq, CASE WHEN seq < 3 THEN 'base'
			ELSE 'cand' END, seq + 1 + CASE c.role WHEN 'timing' THEN 6 ELSE 0 END
		FROM comparisons c, s;"
	echo "INSERT INTO outbox (kind, ref, body, created) SELECT 'bisection', k,
		'{\"kind\": \"bisection\", \"id\": ' || k || '}', 0 FROM pairs;"
	echo "COMMIT;"
} | sqlite3 state/bootgate.db

# The rows the mailer reads for each outbox row, in a few statements: the bisection
# with its tree and culprit, its comparisons and their verdicts, its steps with their
# subjects, the console line of the metric in the step's boots, the boots' lab jobs.
t0=$(date +%s.%N)
sqlite3 state/bootgate.db "
	SELECT o.id, b.*, cm.subject, cm.author, t.path, t.url, t.branch FROM outbox o
		JOIN bisections b ON b.id = o.ref LEFT JOIN commits cm ON cm.sha = b.culprit
		LEFT JOIN trees t ON t.id = b.tree_id WHERE o.done IS NULL ORDER BY o.id;
	SELECT o.id, c.* FROM outbox o JOIN comparisons c ON c.bisection_id = o.ref
		WHERE o.done IS NULL ORDER BY o.id, c.id;
	SELECT o.id, v.* FROM outbox o JOIN comparisons c ON c.bisection_id = o.ref
		JOIN verdicts v ON v.comparison_id = c.id WHERE o.done IS NULL
		ORDER BY o.id, c.id, v.rank;
	SELECT o.id, r.idx, k.sha, r.kind, r.value, cm.subject FROM outbox o
		JOIN bisection_reports r ON r.bisection_id = o.ref
		JOIN bisection_commits k ON k.bisection_id = r.bisection_id AND k.idx = r.idx
		LEFT JOIN commits cm ON cm.sha = k.sha WHERE o.done IS NULL
		ORDER BY o.id, r.idx, r.seq;
	SELECT o.id, cb.side, x.console, s.line FROM outbox o
		JOIN comparisons c ON c.bisection_id = o.ref AND c.role = 'step'
		JOIN comparison_boots cb ON cb.comparison_id = c.id JOIN boots x ON x.id = cb.boot_id
		JOIN samples s ON s.boot_id = x.id AND s.metric = c.metric WHERE o.done IS NULL
		ORDER BY o.id, cb.seq;
	SELECT o.id, x.job_url FROM outbox o JOIN bisection_reports r ON r.bisection_id = o.ref
		JOIN boots x ON x.id = r.boot_id WHERE o.done IS NULL ORDER BY o.id, r.seq;
" >/dev/null
t1=$(date +%s.%N)
"$bg" mail --config bootgate.yaml --dry-run >out
t2=$(date +%s.%N)
made=$(grep -c '^-- outbox' out || true)
echo "bench-mail: $n outbox rows, $made mails composed (dry run)"
echo "$t0 $t1 $t2 $n" | awk '{
	printf "  read rows and samples (sqlite3)  %8.3f s\n", $2 - $1
	printf "  compose every mail              %8.3f s  (%.2f ms a mail, %.2fx the read)\n",
		$3 - $2, 1000 * ($3 - $2) / $4, ($3 - $2) / ($2 - $1) }'
