#!/bin/sh
# The service's figures: a 128-commit range with one regression of a few milliseconds in
# one initcall (scripts/scenario-tree.sh --range 128), bisected end to end by
# bootgate bisect in deterministic mode, beside git bisect run driving
# bootgate measure --mode timing --boots 1 against the good end (what a person would
# script); then bootgated's idle RSS and the time from a push to its first build.
# Prints figures; never fails on them. Targets: the right culprit within 10 minutes on
# 2 cores (stretch 5), idle RSS within 20 MB, a push to its first build within 1 s.
set -eu
cd "$(dirname "$0")/.."
root=$(pwd)
. scripts/lib-net.sh
tree=$(sh scripts/kernel-repo.sh)
sh scripts/scenario-tree.sh --range 128 >/tmp/bootgate-bench-range.$$
good=$(awk '$1 == "base" { print $2 }' /tmp/bootgate-bench-range.$$)
bad=$(awk '$1 == "tip" { print $2 }' /tmp/bootgate-bench-range.$$)
culprit=$(awk '$1 == "culprit" { print $2 }' /tmp/bootgate-bench-range.$$)
initcall=$(awk '$1 == "initcall" { print $2 }' /tmp/bootgate-bench-range.$$)
rm -f /tmp/bootgate-bench-range.$$
work=$(mktemp -d "${TMPDIR:-/tmp}/bootgate-bench-service.XXXXXX")
cache=${BOOTGATE_CACHE:-/var/cache/bootgate}
# the clones' worktrees and build directories in the cache go with them
trap 'kill $(cat "$work/daemon.pid" 2>/dev/null) 2>/dev/null; rm -rf "$work" \
	"$cache"/work/bench-service-*.git-* "$cache"/mirrors/bench-service.git' EXIT
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.0f", b - a }'; }
echo "service: range of 128 commits, culprit ${culprit%"${culprit#????????????}"} (initcall $initcall)"

# each side starts from its own store (no boot of the other is reused) and builds every
# image it needs (BOOTGATE_REUSE=0: no image of the same source is kept), in a clean
# clone of the tree (its own worktree and build directory, ccache shared)
export BOOTGATE_REUSE=0
clone() {
	git clone -q --bare --shared "$tree" "$work/bench-service-$1.git"
}

clone bootgate
t0=$(now)
bin/bootgate bisect --tree "$work/bench-service-bootgate.git" --good "$good" --bad "$bad" --arch x86_64 \
	--mode deterministic --metric "initcall.$initcall" --no-confirm --db "$work/b.db" \
	--json >"$work/bisect.json" 2>"$work/bisect.err" || true
t1=$(now)
found=$(jq -r .culprit "$work/bisect.json" 2>/dev/null || echo none)
printf '  %-44s %6s s  builds %3s  boots %3s  %s\n' "bootgate bisect (deterministic)" \
	"$(secs "$t0" "$t1")" "$(jq -r .builds "$work/bisect.json" 2>/dev/null || echo -)" \
	"$(jq -r .boots "$work/bisect.json" 2>/dev/null || echo -)" \
	"$([ "$found" = "$culprit" ] && echo right || echo "WRONG ($found)")"

# git bisect run: the commit against the good end, one timing boot each, by the verdict
cat >"$work/step.sh" <<STEP
#!/bin/sh
n=\$(cat "$work/steps" 2>/dev/null || echo 0); echo \$((n + 1)) >"$work/steps"
"$root/bin/bootgate" measure --tree "$work/bench-service-git.git" --commit BISECT_HEAD --against "$good" \\
	--arch x86_64 --mode timing --boots 1 --json >"$work/m.json" 2>/dev/null || exit 125
jq -e '.comparison.verdicts[] | select(.metric == "initcall.$initcall") |
	.delta > 1000' "$work/m.json" >/dev/null && exit 1
exit 0
STEP
clone git
t0=$(now)
(cd "$work/bench-service-git.git" && git bisect start --no-checkout "$bad" "$good" >/dev/null &&
	git bisect run sh "$work/step.sh" >"$work/gitbisect.log" 2>&1) || true
t1=$(now)
found=$(grep -o '^[0-9a-f]\{40\} is the first bad commit' "$work/gitbisect.log" | cut -c1-40 || true)
printf '  %-44s %6s s  builds %3s  boots %3s  %s\n' "git bisect run + measure --boots 1 (timing)" \
	"$(secs "$t0" "$t1")" "$(cat "$work/steps" 2>/dev/null || echo -)" \
	"$(( $(cat "$work/steps" 2>/dev/null || echo 0) * 2 ))" \
	"$([ "$found" = "$culprit" ] && echo right || echo "WRONG (${found:-none})")"

# the daemon: idle RSS, and a push to its first build
unset BOOTGATE_REUSE
mkdir -p "$work/served" "$work/state"
git clone -q --bare --shared --single-branch --branch master "$tree" "$work/served/t.git"
git -C "$work/served/t.git" branch -q for-next master
port=$(free_port)
git daemon --reuseaddr --export-all --base-path="$work/served" --listen=127.0.0.1 \
	--port="$port" >/dev/null 2>&1 &
gitd=$!
cat >"$work/bootgate.yaml" <<CONF
state: $work/state
poll: 3600
trees:
  - name: bench-service
    url: git://127.0.0.1:$port/t.git
    branch: for-next
    reference: $tree
    arches: [x86_64]
    mode: deterministic
CONF
sleep 1
BOOTGATE_STATE=$work/state bin/bootgated -f "$work/bootgate.yaml" >"$work/daemon.log" 2>&1 &
echo $! >"$work/daemon.pid"
# idle: the first fetch and its gate are done (the tip is master, built long ago)
i=0
while [ "$i" -lt 600 ] && [ "$(sqlite3 "$work/state/bootgate.db" \
	"SELECT count(*) FROM jobs WHERE state = 'done'" 2>/dev/null || echo 0)" = 0 ]; do
	sleep 1; i=$((i + 1))
done
sleep 2
printf '  %-44s %6s kB (target 20 000)\n' "bootgated idle RSS" \
	"$(awk '/^VmRSS/ { print $2 }' "/proc/$(cat "$work/daemon.pid")/status")"
c=$(git -C "$work/served/t.git" rev-parse "$culprit")
git -C "$work/served/t.git" update-ref refs/heads/for-next "$c"
t0=$(now)
BOOTGATE_STATE=$work/state bin/bootgate trigger bench-service >/dev/null
while ! pgrep -f "bootgate-build --tree .*/mirrors/bench-service.git" >/dev/null; do
	sleep 0.01
done
t1=$(now)
printf '  %-44s %6s ms (target 1 000)\n' "a push to its first build" \
	"$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", (b - a) * 1000 }')"
kill "$(cat "$work/daemon.pid")" "$gitd" 2>/dev/null || true
