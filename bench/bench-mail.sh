#!/bin/sh
# Mail composition: N outbox rows of found bisections (each its own culprit, a real git
# commit, real consoles from tests/fixtures and their samples in SQLite) composed by
# `bootgate mail --dry-run`, beside the time to read the same rows and their samples
# from SQLite alone (sqlite3). Prints figures; never fails on them.
set -eu
cd "$(dirname "$0")/.."
root=$(pwd)
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
"$root/bin/bootgate" mail --config bootgate.yaml >/dev/null
{
	echo "BEGIN;"
	echo "INSERT INTO trees (id, name, path, branch) VALUES (1, 'tracing', '$work/tree', 'for-next');"
	b=0
	for side in baseline regressed; do
		for r in 1 2 3; do
			b=$((b + 1))
			log=$root/tests/fixtures/bootlogs/x86_64-tiny-$side-run$r.log
			echo "INSERT INTO boots VALUES ($b, 'img-$side', 'qemu-x86_64', 'deterministic', 'complete', 0, '$log', 0);"
			"$root/bin/bootgate" parse --json "$log" | jq -r --arg id $b '.logs[0].initcalls |
				to_entries[] | "INSERT INTO samples VALUES (\($id), \(.key), \u0027initcall.\(.value.name)\u0027, \(.value.usecs));"'
		done
	done
	git -C tree log --format='%H %P' | head -n "$n" | while read -r c p; do
		echo "INSERT INTO builds (commit_sha, board, status, image_sha256, created) VALUES ('$p', 'qemu-x86_64', 'built', 'img-baseline', 0), ('$c', 'qemu-x86_64', 'built', 'img-regressed', 0);"
		echo "INSERT INTO bisections (tree_id, good, bad, board, mode, metric, state, outcome, culprit, confidence, result, created) VALUES (1, '$p', '$c', 'qemu-x86_64', 'deterministic', 'initcall.init_kprobe_trace', 'done', 'found', '$c', 0.99, '{}', 0);"
		echo "INSERT INTO outbox (kind, ref, body, created) SELECT 'bisection', max(id), '{}', 0 FROM bisections;"
	done
	echo "COMMIT;"
} | sqlite3 state/bootgate.db
t0=$(date +%s.%N)
sqlite3 state/bootgate.db "SELECT o.id, b.result, s.value FROM outbox o JOIN bisections b ON b.id = o.ref JOIN builds d ON d.commit_sha IN (b.culprit, b.good) JOIN boots x ON x.image_sha256 = d.image_sha256 JOIN samples s ON s.boot_id = x.id" >/dev/null
t1=$(date +%s.%N)
"$root/bin/bootgate" mail --config bootgate.yaml --dry-run >out
t2=$(date +%s.%N)
made=$(grep -c '^-- outbox' out || true)
echo "bench-mail: $n outbox rows, $made mails composed (dry run)"
echo "$t0 $t1 $t2 $n" | awk '{ printf "  read rows and samples (sqlite3)  %8.3f s\n  compose every mail              %8.3f s  (%.2f ms a mail, %.0fx the read)\n", $2 - $1, $3 - $2, 1000 * ($3 - $2) / $4, ($3 - $2) / ($2 - $1) }'
