# Sourced by t0185-load and t0186-soak, after lib.sh: bootgated watching three small
# trees (load-a, load-b, load-c) served by a real git daemon on 127.0.0.1, whose gates end
# at once, "unbuildable" (no kernel is built), with a cache and a webhook of its own.
# Sourcing it serves the trees and writes the configuration; start_daemon starts it.
. "$ROOT/tests/e2e/lib-gitd.sh"
. "$ROOT/tests/e2e/lib-daemon.sh"

BOOTGATED=$ROOT/bin/bootgated
STATE=$SCRATCH/state
DB=$STATE/bootgate.db
SOCK=$STATE/bootgate.sock
TREES="load-a load-b load-c"
export BOOTGATE_STATE=$STATE BOOTGATE_CACHE=$SCRATCH/cache BOOTGATE
HOOK_PORT=$(free_port 32100 1000)
printf 'a shared secret\n' >"$SCRATCH/secret"

start_daemon() {
	setsid "$BOOTGATED" -f "$SCRATCH/bootgate.yaml" >>"$SCRATCH/daemon.log" 2>&1 &
	echo $! >"$SCRATCH/daemon.pid"
	wait_for 30 '"$BOOTGATE" trigger --socket "$SOCK" load-a >/dev/null 2>&1'
}

# sample FILE: every second until stopped (or every $2 seconds), "RSS-KiB FDS" of the
# daemon, a line each; runs in the background, its pid in FILE.pid
sample() {
	pid=$(cat "$SCRATCH/daemon.pid")
	(
		while kill -0 "$pid" 2>/dev/null; do
			rss=$(sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$pid/status")
			echo "$rss $(ls "/proc/$pid/fd" | wc -l)" >>"$1"
			sleep "${2:-1}"
		done
	) &
	echo $! >"$1.pid"
}
stop_sample() {
	kill "$(cat "$1.pid")" && wait "$(cat "$1.pid")" 2>/dev/null || true
}

# fds_idle: the daemon's descriptor count once no job is queued or running; a gate in
# flight holds a pipe or two, so only idle counts compare across a soak
fds_idle() {
	wait_for 120 '[ "$(q "SELECT count(*) FROM jobs WHERE state IN ('"'queued', 'running'"')")" = 0 ]' &&
	sleep 1 &&
	ls "/proc/$(cat "$SCRATCH/daemon.pid")/fd" | wc -l
}

# quarters FILE: "FIRST-QUARTER-MAX LAST-QUARTER-MAX" of the RSS column
quarters() {
	awk '{ v[NR] = $1 } END {
		q = int(NR / 4); if (q < 1) q = 1
		for (i = 1; i <= q; i++) if (v[i] > a) a = v[i]
		for (i = NR - q + 1; i <= NR; i++) if (v[i] > b) b = v[i]
		print a, b }' "$1"
}

trap 'stop_daemon; stop_git_daemon; rm -rf "$SCRATCH"' EXIT

start_git_daemon "$SCRATCH/served" >/dev/null
for t in $TREES; do
	git init -q --bare "$SCRATCH/served/$t.git" &&
	git init -q "$SCRATCH/work/$t" &&
	echo "$t" >"$SCRATCH/work/$t/README" &&
	git -C "$SCRATCH/work/$t" add README &&
	git -C "$SCRATCH/work/$t" -c user.name=t -c user.email=t@localhost commit -q -m "$t" &&
	git -C "$SCRATCH/work/$t" remote add origin "$SCRATCH/served/$t.git" &&
	git -C "$SCRATCH/work/$t" push -q origin HEAD:refs/heads/for-next || exit 1
done
{
	cat <<EOF
state: $STATE
limits:
  builds: 1
poll: 3600
webhook:
  listen: 127.0.0.1:$HOOK_PORT
  secret-file: $SCRATCH/secret
trees:
EOF
	for t in $TREES; do
		cat <<EOF
  - name: $t
    url: $(gitd_url)/$t.git
    branch: for-next
    arches: [x86_64]
    mode: deterministic
EOF
	done
} >"$SCRATCH/bootgate.yaml"
