# Sourced by tests that run bootgated in the background: its output goes to
# $SCRATCH/daemon.log and its pid to $SCRATCH/daemon.pid (each test starts it its own way).

# q SQL: the answer of the daemon's store ($DB, which the test sets)
q() {
	sqlite3 -batch -noheader "$DB" "$1"
}

# wait_for SECONDS SHELL-CONDITION: polls every second; fails with the daemon's log
wait_for() {
	waited=0
	while ! eval "$2"; do
		if [ "$waited" -ge "$1" ]; then
			echo "not true after $1 s: $2" >&2
			tail -40 "$SCRATCH/daemon.log" >&2
			return 1
		fi
		sleep 1
		waited=$((waited + 1))
	done
}

# stop_daemon: SIGTERM, then waits (60 s at most) for it to be gone; the pid file goes.
# A daemon that already exited is not an error: this runs at exit too.
stop_daemon() {
	[ -s "$SCRATCH/daemon.pid" ] || return 0
	kill -TERM "$(cat "$SCRATCH/daemon.pid")" 2>/dev/null || true
	wait_for 60 '! kill -0 "$(cat "$SCRATCH/daemon.pid")" 2>/dev/null'
	rm -f "$SCRATCH/daemon.pid"
}
