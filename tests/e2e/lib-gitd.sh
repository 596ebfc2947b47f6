# Sourced by end-to-end tests after lib.sh: a git daemon on loopback serving bare
# repositories that borrow the cached kernel repository's objects, so that a test can
# serve a kernel tree over git:// without copying it.
#
#   start_git_daemon DIR   serves every repository under DIR on a free port of
#                          127.0.0.1; sets GITD_PORT, GITD_URL (git://127.0.0.1:PORT)
#                          and GITD_DIR, and fails if it never answers
#   stop_git_daemon        stops it and the transfers it is serving; the test's exit
#                          runs it too
#   gitd_url               prints git://127.0.0.1:PORT (for a case other than the one
#                          that started the daemon: cases run in subshells)
#   make_served_repo NAME  makes the bare repository DIR/NAME (DIR: the daemon's, else
#                          $SCRATCH/served) with the cached repository's master alone,
#                          its objects borrowed through alternates; prints its path
#
#   scenario_tree [ARG...] makes scripts/scenario-tree.sh's tracing branch, or the one
#                          its ARGs name (cached after the first run), and sets BASE,
#                          TIP, CULPRIT and INITCALL from it
#
# GITD_SOURCE names the repository to borrow from (default: scripts/kernel-repo.sh's).
# One daemon at a time; its pid, port and directory are kept in $SCRATCH/.gitd.

gitd_state=$SCRATCH/.gitd

trap 'stop_git_daemon; rm -rf "$SCRATCH"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

. "$ROOT/scripts/lib-net.sh"

# gitd_answers PORT: whether a git daemon answers on PORT (a remote error is an answer:
# the base directory itself is no repository)
gitd_answers() {
	git ls-remote "git://127.0.0.1:$1/" >"$gitd_state/probe" 2>&1 ||
		grep -q "remote error" "$gitd_state/probe"
}

gitd_url() {
	echo "git://127.0.0.1:$(cat "$gitd_state/port")"
}

start_git_daemon() {
	if [ $# != 1 ]; then
		echo "usage: start_git_daemon DIR" >&2
		return 2
	fi
	if [ -s "$gitd_state/pid" ]; then
		echo "start_git_daemon: one runs already, on port $(cat "$gitd_state/port")" >&2
		return 1
	fi
	mkdir -p "$1" "$gitd_state" || return 1
	gitd_dir=$(cd "$1" && pwd) || return 1
	tries=0
	while [ "$tries" -lt 20 ]; do
		tries=$((tries + 1))
		# a port below the ephemeral range, not listened on now; another program may
		# take it before the daemon does, which then exits and the next one is tried
		port=$(free_port)
		# made here: the loop below reads it before a slow child may have opened it
		: >"$gitd_state/log"
		# its own session: stop_git_daemon ends the daemon and its children together
		setsid git daemon --reuseaddr --export-all --base-path="$gitd_dir" \
			--listen=127.0.0.1 --port="$port" --verbose >"$gitd_state/log" 2>&1 &
		pid=$!
		waited=0
		while kill -0 "$pid" 2>/dev/null && [ "$waited" -lt 100 ]; do
			# "Ready to rumble": this daemon, not another one, holds the port
			if grep -q "Ready to rumble" "$gitd_state/log" && gitd_answers "$port"; then
				echo "$pid" >"$gitd_state/pid"
				echo "$port" >"$gitd_state/port"
				echo "$gitd_dir" >"$gitd_state/dir"
				GITD_PORT=$port
				GITD_URL=git://127.0.0.1:$port
				GITD_DIR=$gitd_dir
				return 0
			fi
			sleep 0.1
			waited=$((waited + 1))
		done
		kill -- "-$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
	echo "start_git_daemon: no daemon answered after $tries ports; its last log:" >&2
	cat "$gitd_state/log" >&2
	return 1
}

stop_git_daemon() {
	[ -s "$gitd_state/pid" ] || return 0
	pid=$(cat "$gitd_state/pid")
	kill -- "-$pid" 2>/dev/null
	waited=0
	while kill -0 "$pid" 2>/dev/null && [ "$waited" -lt 50 ]; do
		sleep 0.1
		waited=$((waited + 1))
	done
	kill -KILL -- "-$pid" 2>/dev/null
	rm -f "$gitd_state/pid"
	return 0
}

make_served_repo() {
	if [ $# != 1 ]; then
		echo "usage: make_served_repo NAME" >&2
		return 2
	fi
	dir=${GITD_DIR:-}
	[ -n "$dir" ] || dir=$(cat "$gitd_state/dir" 2>/dev/null) || dir=$SCRATCH/served
	src=${GITD_SOURCE:-}
	[ -n "$src" ] || src=$(sh "$ROOT/scripts/kernel-repo.sh") || return 1
	mkdir -p "$dir" &&
	git clone -q --bare --shared --single-branch --branch master "$src" "$dir/$1" &&
	echo "$dir/$1"
}

scenario_tree() {
	sh "$ROOT/scripts/scenario-tree.sh" "$@" >"$SCRATCH/scenario" || return 1
	BASE=$(awk '$1 == "base" { print $2 }' "$SCRATCH/scenario")
	TIP=$(awk '$1 == "tip" { print $2 }' "$SCRATCH/scenario")
	CULPRIT=$(awk '$1 == "culprit" { print $2 }' "$SCRATCH/scenario")
	INITCALL=$(awk '$1 == "initcall" { print $2 }' "$SCRATCH/scenario")
}
