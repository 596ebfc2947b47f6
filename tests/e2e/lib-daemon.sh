# Sourced by tests that run bootgated in the background: its output goes to
# $SCRATCH/daemon.log and its pid to $SCRATCH/daemon.pid (each test starts it its own way).

# q SQL: the answer of the daemon's store ($DB, which the test sets)
q() {
	sqlite3 -batch -noheader "$DB" "$1"
}

# wait_for SECONDS SHELL-CONDITION: polls every second; fails with the daemon's log and,
# when the store is there, its jobs, its last events and the newest job's log. A test sets
# WAIT_ABORT to a condition that means "never now" (a job failed): it fails at once then.
wait_for() {
	waited=0
	while ! eval "$2"; do
		if [ -n "${WAIT_ABORT:-}" ] && eval "$WAIT_ABORT"; then
			echo "given up after $waited s: $WAIT_ABORT (waiting for: $2)" >&2
			wait_failed
			return 1
		fi
		if [ "$waited" -ge "$1" ]; then
			echo "not true after $1 s: $2" >&2
			wait_failed
			return 1
		fi
		sleep 1
		waited=$((waited + 1))
	done
}

# a_job_failed: whether a job of the store failed for good (its tries spent); tests where
# none may fail set WAIT_ABORT=a_job_failed, so that their waits end at once then
a_job_failed() {
	[ -s "$DB" ] &&
		[ "$(q "SELECT count(*) FROM jobs WHERE state = 'failed'" 2>/dev/null)" -gt 0 ] 2>/dev/null
}

wait_failed() {
	tail -40 "$SCRATCH/daemon.log" >&2
	[ -n "${DB:-}" ] && [ -s "$DB" ] || return 0
	echo "jobs (id|kind|rev|state|attempts):" >&2
	q "SELECT id, kind, substr(rev, 1, 12), state, attempts FROM jobs ORDER BY id" >&2
	echo "last events:" >&2
	q "SELECT message FROM (SELECT id, message FROM events ORDER BY id DESC LIMIT 8) ORDER BY id" >&2
	log=$(ls -t "$(dirname "$DB")"/jobs/*.log 2>/dev/null | head -1)
	[ -z "$log" ] || { echo "the end of $log:" >&2; tail -8 "$log" >&2; }
}

# stop_daemon: SIGTERM, then waits (60 s at most) for it to be gone; the pid file goes.
# A daemon that already exited is not an error: this runs at exit too.
stop_daemon() {
	[ -s "$SCRATCH/daemon.pid" ] || return 0
	kill -TERM "$(cat "$SCRATCH/daemon.pid")" 2>/dev/null || true
	wait_for 60 '! kill -0 "$(cat "$SCRATCH/daemon.pid")" 2>/dev/null'
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
