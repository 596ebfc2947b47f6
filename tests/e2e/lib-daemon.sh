# Sourced by tests that run bootgated in the background: its output goes to
# $SCRATCH/daemon.log and its pid to $SCRATCH/daemon.pid (each test starts it its own way).

# q SQL: the answer of the daemon's store ($DB, which the test sets)
q() {
	# a reader waits for a writer that holds the store (a migration, a checkpoint)
	# rather than failing with "database is locked"
	sqlite3 -batch -noheader -cmd ".timeout 30000" "$DB" "$1"
}

# wait_for SECONDS SHELL-CONDITION: polls every second; fails with the daemon's log and,
# when the store is there, what show_store shows. A test sets WAIT_ABORT to a condition
# that means "never now" (a_job_failed): the wait then fails at once instead of at its
# end. Waits that are not for jobs (the daemon's own end) run without it.
wait_for() {
	waited=0
	while ! eval "$2"; do
		if [ -n "${WAIT_ABORT:-}" ] && eval "$WAIT_ABORT"; then
			echo "given up after $waited s: $WAIT_ABORT (waiting for: $2)" >&2
			show_store
			return 1
		fi
		if [ "$waited" -ge "$1" ]; then
			echo "not true after $1 s: $2" >&2
			show_store
			return 1
		fi
		sleep 1
		waited=$((waited + 1))
	done
}

# a_job_failed: whether a job of the store failed for good (the daemon will not try it
# again); for WAIT_ABORT in tests where no job may fail
a_job_failed() {
	[ -s "${DB:-}" ] &&
		[ -n "$(q "SELECT 1 FROM jobs WHERE state = 'failed' LIMIT 1" 2>/dev/null)" ]
}

# show_store: to stderr, the end of the daemon's log; then, when the store ($DB) is there,
# its jobs, its last events and the end of the newest job's log (the daemon writes them
# to jobs/ beside the store)
show_store() {
	tail -40 "$SCRATCH/daemon.log" >&2
	[ -s "${DB:-}" ] || return 0
	echo "jobs (id|kind|rev|state|attempts):" >&2
	q "SELECT id, kind, substr(rev, 1, 12), state, attempts FROM jobs ORDER BY id" >&2
	echo "last events:" >&2
	q "SELECT message FROM (SELECT id, message FROM events ORDER BY id DESC LIMIT 8) ORDER BY id" >&2
	newest=$(ls -t "$(dirname "$DB")"/jobs/*.log 2>/dev/null | head -1)
	[ -z "$newest" ] || { echo "the end of $newest:" >&2; tail -8 "$newest" >&2; }
}

# stop_daemon: SIGTERM, then waits (60 s at most) for it to be gone; the pid file goes.
# A daemon that already exited is not an error: this runs at exit too, and waits whatever
# WAIT_ABORT says, so that nothing is removed under a daemon still running.
stop_daemon() {
	[ -s "$SCRATCH/daemon.pid" ] || return 0
	kill -TERM "$(cat "$SCRATCH/daemon.pid")" 2>/dev/null || true
	(WAIT_ABORT= && wait_for 60 '! kill -0 "$(cat "$SCRATCH/daemon.pid")" 2>/dev/null')
	rm -f "$SCRATCH/daemon.pid"
}

# new_commit PARENT: a commit of the kernel repository ($TREE) on PARENT adding a comment
# with a nonce to a compiled file, so that its source was never built before (made in a
# scratch repository, $SCRATCH/scratch.git); prints it
new_commit() {
	r=$SCRATCH/scratch.git
	[ -d "$r" ] || git clone -q --bare --shared "$TREE" "$r" || return 1
	f=kernel/printk/printk.c
	GIT_INDEX_FILE=$SCRATCH/.index git -C "$r" read-tree "$1" &&
	blob=$({ git -C "$r" cat-file -p "$1:$f" &&
		 echo "/* bootgate test $(od -An -N8 -tx8 /dev/urandom | tr -d " ") */"; } |
	       git -C "$r" hash-object -w --stdin) &&
	GIT_INDEX_FILE=$SCRATCH/.index git -C "$r" update-index --cacheinfo "100644,$blob,$f" &&
	t=$(GIT_INDEX_FILE=$SCRATCH/.index git -C "$r" write-tree) &&
	echo "printk: a comment" | git -C "$r" -c user.name=t -c user.email=t@localhost \
		commit-tree "$t" -p "$1"
}

# tracing_conf: a bootgated configuration for $STATE, the webhook on $HOOK_PORT (secret
# in $SCRATCH/secret), mail through the sink on $SMTP_PORT, and one tree, tracing, fetched
# from the git daemon's tracing.git, branch for-next, reports mailed to its list
tracing_conf() {
	cat <<EOF
state: $STATE
limits:
  builds: 1
poll: 3600
webhook:
  listen: 127.0.0.1:$HOOK_PORT
  secret-file: $SCRATCH/secret
report:
  from: "bootgate <bootgate@ci.example.org>"
  smtp: smtp://127.0.0.1:$SMTP_PORT
trees:
  - name: tracing
    url: $(gitd_url)/tracing.git
    branch: for-next
    reference: $TREE
    arches: [x86_64]
    mode: deterministic
    metrics: ["initcall.*", "boot.*"]
    mail:
      to: ["linux-trace-kernel@vger.example.org"]
      send: list
EOF
}

# daemon_paths: the daemon's program, and its state, store and socket in $SCRATCH, with a
# cache of the test's own
daemon_paths() {
	BOOTGATED=$ROOT/bin/bootgated STATE=$SCRATCH/state
	DB=$STATE/bootgate.db SOCK=$STATE/bootgate.sock
	export BOOTGATE_STATE="$STATE" BOOTGATE_CACHE="$SCRATCH/cache"
}
