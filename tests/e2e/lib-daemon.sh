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
