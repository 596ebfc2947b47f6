#!/bin/sh
# make demo: the whole service on the embedded defaults, with no network. It makes the
# three seed scenario trees (scripts/scenario-tree.sh --scenario tracing|printk|perf),
# serves them with git daemon on 127.0.0.1, starts bootgated (SQLite store, QEMU boards,
# a local SMTP server, the static site), pushes each tree's commits and shows, as the
# service works: each regression detected, bisected to its commit with its confidence,
# confirmed in timing mode, the mail as delivered and the site's page; then posts the
# tracing fix series to a public-inbox list and shows the reply. It ends with one screen:
# per scenario, the culprit found against the one planted, builds, boots and wall time.
#
#   scripts/demo.sh [--out DIR] [--timeout MINUTES] [--commits N]
#
# --out: where this run's state, mails, logs and summary go (default
# $BOOTGATE_CACHE/demo; emptied first). Kernels, images and the trees stay in the cache
# ($BOOTGATE_CACHE, default /var/cache/bootgate): a second run reuses every build.
# --commits: each tree's history, 24 by default as the seeds were made; fewer (3 to 23)
# keeps each culprit where it is in its seed, in proportion (scenario-tree.sh --commits):
# the same culprits in fewer steps, as the tests run it.
# Exit 0 when all three planted culprits were found, 1 when one was not, 2 usage.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
cache=${BOOTGATE_CACHE:-/var/cache/bootgate}
out=$cache/demo
timeout_min=90
commits=24
usage="usage: scripts/demo.sh [--out DIR] [--timeout MINUTES] [--commits N]"
while [ $# -gt 0 ]; do
	case "$1" in
	--out)
		[ $# -ge 2 ] && [ -n "$2" ] || { echo "$usage" >&2; exit 2; }
		out=$2
		shift 2 ;;
	--timeout)
		[ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }
		case "$2" in
		[1-9] | [1-9][0-9] | [1-9][0-9][0-9] | [1-9][0-9][0-9][0-9]) ;;
		*) echo "demo.sh: --timeout wants minutes (1..1440), not '$2'" >&2; exit 2 ;;
		esac
		[ "$2" -le 1440 ] || { echo "demo.sh: --timeout wants minutes (1..1440), not '$2'" >&2; exit 2; }
		timeout_min=$2
		shift 2 ;;
	--commits)
		[ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }
		case "$2" in
		[3-9] | 1[0-9] | 2[0-4]) ;;
		*) echo "demo.sh: --commits wants a number from 3 to 24, not '$2'" >&2; exit 2 ;;
		esac
		commits=$2
		shift 2 ;;
	-h | --help)
		echo "$usage"
		exit 0 ;;
	*)
		echo "$usage" >&2
		exit 2 ;;
	esac
done

bg=$root/bin/bootgate
bgd=$root/bin/bootgated
scenarios="tracing printk perf"
start=$(date +%s)

# the run's own files: emptied, but never a directory that holds anything but a demo's
case "$out" in
/*) ;;
*) out=$(pwd)/$out ;;
esac
# the path goes into the daemon's YAML and into URLs: plain characters only
case "$out" in
*[!A-Za-z0-9._/+@-]*)
	echo "demo.sh: --out '$out': use a path of letters, digits and ._/+@- only" >&2
	exit 2 ;;
esac
if [ -e "$out" ] && [ ! -d "$out" ]; then
	echo "demo.sh: --out '$out' is not a directory" >&2
	exit 2
fi
if [ -e "$out" ] && [ ! -e "$out/.bootgate-demo" ] && [ -n "$(ls -A "$out" 2>/dev/null)" ]; then
	echo "demo.sh: '$out' is not empty and holds no earlier demo: give another --out" >&2
	exit 2
fi
rm -rf "$out"
mkdir -p "$out/mails" "$out/served"
touch "$out/.bootgate-demo"
state=$out/state
db=$state/bootgate.db
sock=$state/bootgate.sock
export BOOTGATE_STATE=$state

elapsed() {
	s=$(($(date +%s) - start))
	printf '%d:%02d' $((s / 60)) $((s % 60))
}
step() { printf '\n[%s] == %s\n' "$(elapsed)" "$*"; }
say() { printf '[%s]    %s\n' "$(elapsed)" "$*"; }
die() {
	printf 'demo.sh: %s\n' "$*" >&2
	[ ! -f "$out/daemon.log" ] || { echo "the daemon's last words ($out/daemon.log):" >&2; tail -15 "$out/daemon.log" >&2; }
	exit 1
}
q() { sqlite3 -batch -noheader "$db" "$1" 2>/dev/null || true; }

# ---- services on 127.0.0.1, stopped however the demo ends

cleanup() {
	for f in daemon git-daemon smtp-sink; do
		[ -s "$out/$f.pid" ] || continue
		kill -TERM -- "-$(cat "$out/$f.pid")" 2>/dev/null || kill -TERM "$(cat "$out/$f.pid")" 2>/dev/null || true
		rm -f "$out/$f.pid"
	done
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

. "$root/scripts/lib-net.sh"
# wait_until SECONDS CONDITION
wait_until() {
	n=0
	while ! eval "$2"; do
		[ "$n" -lt "$1" ] || return 1
		sleep 1
		n=$((n + 1))
	done
}

# ---- 1. the trees

step "The trees: Debian's linux-source-6.1 as git, and the three seed scenarios on it"
repo=$(sh "$root/scripts/kernel-repo.sh")
for s in $scenarios; do
	sh "$root/scripts/scenario-tree.sh" --scenario "$s" --commits "$commits" --repo "$repo" \
		--force >"$out/$s.scenario" ||
		die "scenario-tree.sh --scenario $s failed"
done
# field SCENARIO KEY: a line of the scenario's description
field() { awk -v k="$2" '$1 == k { print $2 }' "$out/$1.scenario"; }
for s in $scenarios; do
	c=$(field "$s" culprit)
	say "$(printf '%-8s %s commits on master, planted at %s: %.12s %s' "$s" \
		"$(field "$s" commits)" "$(field "$s" position)" "$c" \
		"$(git -C "$repo" log -1 --format=%s "$c")")"
	say "$(printf '%-8s the figure it moves: %s' '' "$(field "$s" metric)")"
done

# ---- 2. the services

step "The services on 127.0.0.1: git daemon, an SMTP server, a public-inbox list"
for s in $scenarios; do
	git clone -q --bare --shared --single-branch --branch master "$repo" "$out/served/$s.git"
	git -C "$out/served/$s.git" branch -q for-next master
done
gitd_port=$(free_port)
setsid git daemon --reuseaddr --export-all --base-path="$out/served" --listen=127.0.0.1 \
	--port="$gitd_port" >"$out/git-daemon.log" 2>&1 &
echo $! >"$out/git-daemon.pid"
wait_until 20 'git ls-remote "git://127.0.0.1:$gitd_port/tracing.git" >/dev/null 2>&1' ||
	die "git daemon did not answer on port $gitd_port"
say "git daemon: git://127.0.0.1:$gitd_port/{tracing,printk,perf}.git, for-next at master"

smtp_port=$(free_port)
# smtp-sink runs as nobody (-u): it must pass through $out and write into mails/
chmod 777 "$out/mails"
chmod 711 "$out"
setsid /usr/sbin/smtp-sink -d "$out/mails/%Y%m%d%H%M%S." -u nobody "127.0.0.1:$smtp_port" 10 \
	>"$out/smtp-sink.log" 2>&1 &
echo $! >"$out/smtp-sink.pid"
wait_until 10 'listening "$smtp_port"' || die "smtp-sink did not listen on port $smtp_port"
# it writes each mail as nobody: every directory above mails/ must let nobody through
runuser -u nobody -- test -w "$out/mails" ||
	die "user nobody cannot write into $out/mails, where smtp-sink keeps the mails: give an --out whose parents others may enter (chmod o+x)"
say "SMTP: postfix's smtp-sink on 127.0.0.1:$smtp_port, each mail a file in $out/mails"

inbox=$out/lore/linux-trace-kernel
export PI_CONFIG="$out/pi-home/config"
mkdir -p "$out/pi-home"
HOME=$out/pi-home public-inbox-init -V2 linux-trace-kernel "$inbox" \
	http://127.0.0.1/linux-trace-kernel linux-trace-kernel@lists.test >/dev/null
git config -f "$PI_CONFIG" publicinboxmda.spamcheck none
say "list: public-inbox v2 linux-trace-kernel at $inbox"

# ---- 3. the daemon

step "bootgated: SQLite store, QEMU boards, mail, the site"
gurl=git://127.0.0.1:$gitd_port
cat >"$out/bootgate.yaml" <<EOF
# written by scripts/demo.sh
state: $state
limits:
  builds: 1
  boots: 2
poll: 3600
report:
  from: "bootgate <bootgate@ci.example.org>"
  smtp: smtp://127.0.0.1:$smtp_port
trees:
  - name: tracing
    url: $gurl/tracing.git
    branch: for-next
    reference: $repo
    arches: [x86_64]
    mode: deterministic
    metrics: ["initcall.*", "boot.*"]
    mail: {to: ["linux-trace-kernel@lists.test"], send: list}
  - name: printk
    url: $gurl/printk.git
    branch: for-next
    reference: $repo
    arches: [x86_64]
    mode: deterministic
    metrics: ["probe.*", "boot.*"]
    mail: {to: ["linux-serial@lists.test"], send: list}
  - name: perf
    url: $gurl/perf.git
    branch: for-next
    reference: $repo
    arches: [x86_64]
    mode: deterministic
    perf-runs: 5
    metrics: ["perf.*"]
    mail: {to: ["linux-perf-users@lists.test"], send: list}
inboxes:
  - name: linux-trace-kernel
    path: $inbox
    tree: tracing
    poll: 3600
EOF
"$bgd" -n -f "$out/bootgate.yaml" >/dev/null || die "bootgated refused $out/bootgate.yaml"
setsid "$bgd" -f "$out/bootgate.yaml" >"$out/daemon.log" 2>&1 &
echo $! >"$out/daemon.pid"
wait_until 30 '"$bg" status >/dev/null 2>&1' || die "bootgated did not start"
say "config $out/bootgate.yaml, store $db, log $out/daemon.log"
say "the baselines: each tree's for-next (master) built and booted first"
for s in $scenarios; do
	base=$(field "$s" base)
	wait_until $((timeout_min * 60)) '[ "$(q "SELECT last_good FROM trees WHERE name = '"'$s'"'")" = "$base" ]' ||
		die "$s: the baseline was never set"
	say "$s: baseline $(printf '%.12s' "$base")"
done

# ---- 4. the pushes

step "Pushing each tree's $commits commits to its for-next, as a maintainer would"
for s in $scenarios; do
	tip=$(field "$s" tip)
	git -C "$repo" push -q "$out/served/$s.git" "$tip:refs/heads/for-next"
	"$bg" trigger --socket "$sock" "$s" "$tip" >/dev/null || die "bootgate trigger $s failed"
	say "$s: for-next at $(printf '%.12s' "$tip"), bootgate trigger $s"
done

# ---- 5. progress, from the store, until each tree's culprit is mailed

step "The service at work (every line read from the store)"
deadline=$(($(date +%s) + timeout_min * 60))
# tree_sql SCENARIO: the tree's id in the store
tree_sql() { echo "(SELECT id FROM trees WHERE name = '$1')"; }
while :; do
	all=1
	for s in $scenarios; do
		t=$(tree_sql "$s")
		line=$(q "SELECT 'gate: ' || c.verdict || coalesce(' on ' || c.metric, '') ||
			coalesce(printf(' (%+d us)', c.delta), '')
			FROM comparisons c JOIN jobs j ON j.id = c.job_id
			WHERE j.tree_id = $t AND j.kind = 'gate' AND j.rev = '$(field "$s" tip)'
			ORDER BY c.id DESC LIMIT 1")
		if [ -z "$line" ]; then
			js=$(q "SELECT state FROM jobs WHERE tree_id = $t AND kind = 'gate' AND
				rev = '$(field "$s" tip)' ORDER BY id DESC LIMIT 1")
			[ -z "$js" ] || line="gate of the new tip: $js"
		fi
		b=$(q "SELECT id || '|' || CASE WHEN outcome = 'unconfirmed' THEN outcome ELSE state
			END || '|' || coalesce(metric, '') || '|' ||
			coalesce(culprit, '') || '|' || coalesce(confidence, '') FROM bisections
			WHERE tree_id = $t AND parent_id IS NULL ORDER BY id LIMIT 1")
		if [ -n "$b" ]; then
			IFS='|' read -r bid bstate bmetric bculprit bconf <<EOF
$b
EOF
			steps=$(q "SELECT count(DISTINCT idx) FROM bisection_reports
				WHERE bisection_id = $bid AND kind = 'value'")
			case "$bstate" in
			running) line="bisecting ${bmetric:-(choosing the metric)}: $steps commits measured" ;;
			*) line="bisection $bstate: $(printf '%.12s' "$bculprit") (confidence $bconf)" ;;
			esac
			mailed=$(q "SELECT count(*) FROM mails m JOIN outbox o ON o.id = m.outbox_id
				WHERE o.kind = 'bisection' AND o.ref = $bid AND m.sent IS NOT NULL")
			[ "${mailed:-0}" = 0 ] || line="$line, mailed"
			# finished, and mailed (a failed bisection or a low confidence is not
			# mailed: given two minutes, it is not waited for)
			quiet=$(q "SELECT coalesce(finished, 0) < strftime('%s', 'now') - 120
				FROM bisections WHERE id = $bid")
			[ "$bstate" != running ] && { [ "${mailed:-0}" != 0 ] || [ "$quiet" = 1 ]; } ||
				all=0
		else
			all=0
		fi
		last=$(cat "$out/$s.last" 2>/dev/null || true)
		if [ -n "$line" ] && [ "$line" != "$last" ]; then
			say "$(printf '%-8s %s' "$s" "$line")"
			printf '%s\n' "$line" >"$out/$s.last"
		fi
	done
	[ "$all" = 0 ] || break
	[ "$(date +%s)" -lt "$deadline" ] || die "not done after $timeout_min minutes"
	kill -0 "$(cat "$out/daemon.pid")" 2>/dev/null || die "bootgated exited"
	sleep 5
done

# ---- 6. each scenario's result

found=0
for s in $scenarios; do
	t=$(tree_sql "$s")
	bid=$(q "SELECT id FROM bisections WHERE tree_id = $t AND parent_id IS NULL ORDER BY id LIMIT 1")
	step "$s: bisection $bid"
	"$bg" show "$bid" | sed -n '1,40p' | sed 's/^/      /'
	mail=$(grep -l "bootgate-bisection-$bid-" "$out"/mails/* 2>/dev/null | head -1 || true)
	if [ -n "$mail" ]; then
		say "the mail as delivered ($mail):"
		tr -d '\r' <"$mail" | sed -n '/^Subject:/p;/^To:/p' | sed 's/^/      /'
		tr -d '\r' <"$mail" | sed '1,/^$/d' | sed -n '1,25p' | sed 's/^/      /'
		say "      [...]"
	fi
	say "the site: $state/site/bisection/$bid.html"
done

# ---- 7. the fix series, posted to the list

step "The tracing fix series, posted to linux-trace-kernel as the seed was"
mbox=$root/scripts/scenario-tree/seed-tracing-fix/series.mbox
awk -v p="$out/fix." '/^From / { n++ } { print > (p n) }' "$mbox"
for m in "$out"/fix.*; do
	say "$(sed -n 's/^Subject: //p' "$m" | head -1)"
	HOME=$out/pi-home ORIGINAL_RECIPIENT=linux-trace-kernel@lists.test \
		public-inbox-mda --no-precheck <"$m" || die "public-inbox-mda refused $m"
done
"$bg" trigger --socket "$sock" linux-trace-kernel >/dev/null || die "bootgate trigger linux-trace-kernel failed"
wait_until $((timeout_min * 60)) '[ "$(q "SELECT count(*) FROM series WHERE state IN ('"'done'"', '"'failed'"')")" = 1 ]' ||
	die "the series was never measured"
sid=$(q "SELECT id FROM series ORDER BY id LIMIT 1")
say "series $sid: $(q "SELECT state FROM series WHERE id = $sid")"
"$bg" series --id "$sid" 2>/dev/null | sed -n '1,30p' | sed 's/^/      /' || true
wait_until 300 '[ "$(q "SELECT count(*) FROM mails WHERE about LIKE '"'series %'"' AND sent IS NOT NULL")" -ge 1 ]' ||
	die "the series reply was never sent"
reply=$(grep -l "^In-Reply-To:" "$out"/mails/* 2>/dev/null | xargs -r grep -l "Re: \[PATCH v2" | head -1 || true)
if [ -n "$reply" ]; then
	say "the reply as delivered ($reply):"
	tr -d '\r' <"$reply" | sed -n '/^Subject:/p;/^In-Reply-To:/p' | sed 's/^/      /'
	tr -d '\r' <"$reply" | sed '1,/^$/d' | grep -B2 -A3 "init_kprobe_trace" | sed -n '1,24p' | sed 's/^/      /'
fi
say "the site: $state/site/series/$sid.html"

# ---- 8. the summary

step "Summary"
printf '%-8s %-12s %-12s %-5s %-10s %6s %6s %6s %8s\n' scenario planted found right confidence \
	built reused boots wall | tee "$out/summary.txt"
for s in $scenarios; do
	t=$(tree_sql "$s")
	planted=$(field "$s" culprit)
	row=$(q "SELECT coalesce(culprit, '-') || '|' || coalesce(printf('%.4f', confidence), '-') ||
		'|' || coalesce(finished, created) || '|' || coalesce(outcome, '-') FROM bisections
		WHERE tree_id = $t AND parent_id IS NULL ORDER BY id LIMIT 1")
	IFS='|' read -r culprit conf fin outcome <<EOF
$row
EOF
	# the scenario's own commits (master, the baseline, is every tree's): their builds,
	# made or found already made, and the boots of their images, in this run's store
	# (and the culprit's revert on the tip, built to confirm it)
	revert=$(q "SELECT revert_commit FROM bisections WHERE tree_id = $t AND parent_id IS NULL
		ORDER BY id LIMIT 1")
	shas=$({ git -C "$repo" rev-list "$(field "$s" base)..$(field "$s" tip)"; echo "$revert"; } |
		sed "/^$/d; s/.*/'&'/" | paste -sd, -)
	built=$(q "SELECT count(*) FROM builds WHERE commit_sha IN ($shas) AND reused = 0 AND status = 'built'")
	reused=$(q "SELECT count(*) FROM builds WHERE commit_sha IN ($shas) AND reused = 1")
	# the boots kept in the store, the confirmations' timing boots among them
	boots=$(q "SELECT count(*) FROM boots WHERE image_sha256 IN (SELECT image_sha256
		FROM builds WHERE commit_sha IN ($shas))")
	# from the push (the tip's gate queued) to the culprit known
	pushed=$(q "SELECT min(created) FROM jobs WHERE tree_id = $t AND kind = 'gate' AND
		rev = '$(field "$s" tip)'")
	wall=$(awk -v a="$pushed" -v b="$fin" 'BEGIN { s = b - a; printf "%d:%02d", s / 60, s % 60 }')
	# right: the planted commit, and found (a culprit its revert contradicted is not)
	right=no
	[ "$outcome" = found ] || right=$outcome
	[ "$culprit" != "$planted" ] || [ "$outcome" != found ] || { right=yes; found=$((found + 1)); }
	printf '%-8s %-12.12s %-12.12s %-5s %-10s %6s %6s %6s %8s\n' "$s" "$planted" "$culprit" \
		"$right" "$conf" "$built" "$reused" "$boots" "$wall" | tee -a "$out/summary.txt"
done
echo "wall: from the push to the culprit known; one job at a time (limits.builds: 1), so" |
	tee -a "$out/summary.txt"
echo "a tree's gate may wait for another's bisection" | tee -a "$out/summary.txt"
echo "mails delivered: $(ls "$out"/mails | wc -l), in $out/mails" | tee -a "$out/summary.txt"
echo "site: $state/site/index.html" | tee -a "$out/summary.txt"
echo "demo wall time: $(elapsed) (min:s)" | tee -a "$out/summary.txt"
[ "$found" = 3 ] || { echo "demo.sh: $found of 3 planted culprits found" >&2; exit 1; }
