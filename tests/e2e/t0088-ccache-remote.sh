#!/bin/sh
# beside: t0085-build-sandbox.sh
# Build hosts that share ccache's remote storage (bootgate-build --ccache-remote, the
# service's ccache-remote): a real redis-server on a Unix socket (no TCP port), and hosts
# that are each a BOOTGATE_CACHE of their own (their own worktrees, build directories and
# local ccache) on this machine. A second host's first build of a commit takes every
# compile from what the first host stored, and its image is the first's to the byte; a
# posted patch's build has none of it, its socket hidden (it could write to the server
# itself); with the server gone, a build compiles locally and passes. A trusted build's
# sandbox sees the socket, bound in where it hides the rest, and still has no network. Trees with a Makefile of their own, compiled by $(CC) (ccache gcc),
# stand in for kernels.
#
# The scratch directory is not under /tmp: the sandbox puts an empty /tmp in place.
SCRATCH_BASE=/var/tmp
. "$(dirname "$0")/lib.sh"

BUILD=$ROOT/bin/bootgate-build
SOCK=$SCRATCH/redis/redis.sock
tiny_lab

. "$ROOT/scripts/lib-net.sh"

# a port that listens on this machine's loopback: the build must not reach it
PROBE_PORT=$(free_port)
python3 -c '
import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(8); time.sleep(600)' "$PROBE_PORT" >/dev/null 2>&1 &
echo $! >>"$SCRATCH/.servers"

# a tree of six sources compiled one by one into the image (e.c after E_SLEEP s), and
# probes from inside the build of the network and of the socket: their answers in o/net
# and o/sock (a build step's environment is the build's own: the port and path are
# written in)
mkdir -p tree &&
cat >tree/Makefile <<EOF &&
O ?= .
SRCS = a.c b.c c.c d.c e.c f.c
E_SLEEP = 0
tinyconfig:
	@mkdir -p \$(O) && echo "# tiny" >\$(O)/.config
olddefconfig:
	@test -f \$(O)/.config
\$(O)/%.o: %.c
	@[ \$< != e.c ] || sleep \$(E_SLEEP)
	\$(CC) -O2 -c \$< -o \$@
image: \$(SRCS:%.c=\$(O)/%.o)
	@ln -sfn \$(CURDIR) \$(O)/source && cat \$^ >\$(O)/image.bin
	@python3 -c 'import socket; socket.create_connection(("127.0.0.1", $PROBE_PORT), 2)' \
		2>/dev/null && echo reached >\$(O)/net || echo none >\$(O)/net
	@python3 -c 'import socket; socket.socket(socket.AF_UNIX).connect("$SOCK")' \
		2>/dev/null && echo reached >\$(O)/sock || echo none >\$(O)/sock
.PHONY: image
EOF
kconfig_stub tree &&
for f in a b c d e f; do
	printf 'int %s_value(int x) { return x * %d + 1; }\n' "$f" "$(printf %d "'$f")" >"tree/$f.c" ||
		exit 1
done &&
git_ -C tree init -q && git_ -C tree add -A && git_ -C tree commit -q -m base || exit 1

# add SRC: a commit of the tree that adds source SRC to the image
add() {
	echo "int ${1%.c}_value(int x) { return x + ${#1}; }" >"tree/$1" &&
	sed -i "s/^SRCS = .*/& $1/" tree/Makefile &&
	git_ -C tree add -A && git_ -C tree commit -q -m "$1"
}

redis_start() {
	mkdir -p "$SCRATCH/redis" &&
	redis-server --port 0 --unixsocket "$SOCK" --unixsocketperm 700 --save "" \
		--appendonly no --dir "$SCRATCH/redis" --daemonize yes \
		--pidfile "$SCRATCH/redis/redis.pid" --logfile "$SCRATCH/redis/log" &&
	i=0 &&
	while ! redis-cli -s "$SOCK" ping >/dev/null 2>&1 && [ $i -lt 50 ]; do
		sleep 0.1; i=$((i + 1))
	done &&
	redis-cli -s "$SOCK" ping >/dev/null
}
redis_stop() {
	[ -s "$SCRATCH/redis/redis.pid" ] || return 0
	pid=$(cat "$SCRATCH/redis/redis.pid")
	kill "$pid" 2>/dev/null
	while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
	rm -f "$SCRATCH/redis/redis.pid"
}
trap 'redis_stop; [ ! -s "$SCRATCH/daemon.pid" ] || kill "$(cat "$SCRATCH/daemon.pid")" 2>/dev/null
	for pid in $(cat "$SCRATCH/.servers" 2>/dev/null); do kill "$pid" 2>/dev/null; done
	rm -rf "$SCRATCH"' EXIT
keys() {
	redis-cli -s "$SOCK" dbsize
}

# on HOST [OPTION...]: builds the tree's master on build host HOST (a cache of its own)
# with the remote storage, its result in HOST.json and what it said in HOST.err. The
# socket's directory is where the sandbox hides everything (it is BOOTGATE_STATE, as a
# socket under /run would be): the build sees the socket only as bound in.
on() {
	h=$1 &&
	shift &&
	BOOTGATE_STATE=${STATE_DIR:-$SCRATCH/redis} BOOTGATE_CACHE=$SCRATCH/$h "$BUILD" --lab lab --board tiny \
		--tree tree --commit master --ccache-remote "redis+unix:$SOCK" "$@" \
		>"$h.json" 2>"$h.err"
}


test_expect_success 'a bad --ccache-remote is a usage error, before any work' '
	for url in "http://127.0.0.1:1/" "redis://127.0.0.1" "redis+unix:relative.sock" \
		"redis+unix://host/x" "file:/d|read-only=true" "file:/a b" "$(printf "file:/a\\nb")" "" \
		"file:/" "redis+unix:/x?db=1" "file:/a/../b" "file:/a%20b" "file:/srv/." \
		"redis+unix:/$(printf "%0120d" 0).sock"; do
		test_exit_code 2 env BOOTGATE_CACHE="$SCRATCH/bad" "$BUILD" --lab lab --board tiny \
			--tree tree --commit master --ccache-remote "$url" >out 2>err &&
		test_grep "ccache-remote" err &&
		test ! -e "$SCRATCH/bad/work" || { echo "taken: $url"; return 1; }
	done
'

test_expect_success 'the first host compiles and stores; a second host'"'"'s first build takes it all' '
	redis_start &&
	on host-a &&
	test_jq ".status == \"built\" and .ccache_hits == 0 and .ccache_misses == 6 and
		.ccache_remote_hits == 0 and .ccache_remote_errors == 0" host-a.json &&
	test "$(keys)" -gt 0 &&
	stored=$(keys) &&
	on host-b &&
	cat host-b.err &&
	test_jq ".status == \"built\" and .ccache_hits == 6 and .ccache_misses == 0 and
		.ccache_remote_hits == 6" host-b.json &&
	test_grep "ccache.s remote storage: 6 hits" host-b.err &&
	test "$(keys)" = "$stored" &&
	test "$(jq -r .image_sha256 host-a.json)" = "$(jq -r .image_sha256 host-b.json)" &&
	cmp "$(jq -r .image host-a.json)" "$(jq -r .image host-b.json)" &&
	test_note "host b: $(jq -r "\"\(.ccache_hits) hits, \(.ccache_remote_hits) from the remote storage, \(.ccache_misses) misses\"" host-b.json); $stored keys in redis"
'

test_expect_success 'a path that would show the sandbox what it hides, or of another kind: refused' '
	mkdir -p "$SCRATCH/redis/dir" &&
	for url in "file:/var" "file:$SCRATCH" "redis+unix:$SCRATCH/redis/dir" "file:$SOCK"; do
		test_exit_code 2 env BOOTGATE_STATE="$SCRATCH/redis" BOOTGATE_CACHE="$SCRATCH/bad" \
			"$BUILD" --lab lab --board tiny --tree tree --commit master \
			--ccache-remote "$url" >out 2>err &&
		test_grep "ccache-remote: .* \(holds .* which a build may not see\|is not a \(socket\|directory\)\)" err ||
			{ cat err; echo "taken: $url"; return 1; }
	done &&
	test_exit_code 2 env BOOTGATE_CCACHE_REMOTE=http://x BOOTGATE_CACHE="$SCRATCH/bad" \
		"$BUILD" --lab lab --board tiny --tree tree --commit master 2>err &&
	test_grep "BOOTGATE_CCACHE_REMOTE: .http://x.: the build.s sandbox has no network" err
'

test_expect_success 'the sandbox sees the socket and still has no network' '
	slot=$(echo "$SCRATCH"/host-b/work/tree-*/tiny/boards/tiny) &&
	test "$(cat "$slot/o/net")" = none &&
	{ test "$(cat "$slot/o/sock")" = reached || { cat "$slot/o/sock" "$slot/build.log"; false; }; } &&
	: without the sandbox the same probe reaches the port &&
	BOOTGATE_CACHE=$SCRATCH/host-n "$BUILD" --lab lab --board tiny --tree tree \
		--commit master --no-sandbox >host-n.json 2>host-n.err &&
	slot=$(echo "$SCRATCH"/host-n/work/tree-*/tiny/boards/tiny) &&
	test "$(cat "$slot/o/net")" = reached
'

test_expect_success 'an untrusted build has none of it: the socket hidden, nothing written' '
	stored=$(keys) &&
	add g.c &&
	: the socket where nothing else hides it &&
	mkdir -p elsewhere &&
	STATE_DIR=$SCRATCH/elsewhere on host-c --untrusted &&
	test_jq ".status == \"built\" and .ccache_remote_hits == 0 and .ccache_remote_errors == 0 and
		.ccache_misses == 7" host-c.json &&
	test "$(cat "$SCRATCH"/host-c/work/tree-*/tiny/untrusted/tiny/o/sock)" = none &&
	test "$(keys)" = "$stored"
'

test_expect_success 'the server gone: the compiles stay local, the build passes' '
	redis_stop &&
	add h.c &&
	on host-d &&
	test_jq ".status == \"built\" and .ccache_remote_hits == 0 and .ccache_misses == 8" host-d.json &&
	: and one that stops mid-build, after d.c: e.c and after compile locally &&
	redis_start &&
	add i.c &&
	sed -i "s/^E_SLEEP = .*/E_SLEEP = 3/" tree/Makefile &&
	git_ -C tree commit -q -a -m "e.c compiles late" &&
	{ on host-e --jobs 1 & } &&
	i=0 &&
	while [ -z "$(ls "$SCRATCH"/host-e/work/tree-*/tiny/boards/tiny/o/d.o 2>/dev/null)" ] &&
		[ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done &&
	redis_stop &&
	wait &&
	cat host-e.err &&
	test_jq ".status == \"built\" and .ccache_misses == 9 and .ccache_remote_errors > 0" host-e.json &&
	test_grep "it failed: those compiles stayed local" host-e.err
'

# the daemon beside a fake bootgate (its children): a gate notes the remote storage its
# environment names, and records a result
mkdir -p "$SCRATCH/bin"
cp "$ROOT/bin/bootgated" "$SCRATCH/bin/bootgated"
cat >"$SCRATCH/bin/bootgate" <<'EOF'
#!/bin/sh
case "$1" in
fetch)	echo 1111111111111111111111111111111111111111 ;;
gate)
	echo "${BOOTGATE_CCACHE_REMOTE-none}" >>"$NOTE"
	db=
	while [ $# -gt 0 ]; do
		case "$1" in --db) db=$2 ;; esac
		shift
	done
	sqlite3 "$db" "INSERT INTO comparisons (base, cand, board, mode, verdict, created)
		VALUES ('b', 'c', 'qemu-x86_64', 'deterministic', 'same', strftime('%s', 'now'))" ;;
*)	exit 0 ;;
esac
EOF
chmod +x "$SCRATCH/bin/bootgate"

# daemon_gates CONF: the daemon on CONF, with another storage in its own environment,
# until it has gated once; what that gate was given in $NOTE
daemon_gates() {
	rm -rf "$SCRATCH/state" && : >"$NOTE" || return 1
	BOOTGATE_CCACHE_REMOTE=file:/from/the/daemon/environment setsid "$SCRATCH/bin/bootgated" \
		--lab "$ROOT/lab-configs" -f "$1" >>"$SCRATCH/daemon.log" 2>&1 &
	echo $! >"$SCRATCH/daemon.pid" &&
	i=0 &&
	while [ ! -s "$NOTE" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done &&
	kill "$(cat "$SCRATCH/daemon.pid")" &&
	while kill -0 "$(cat "$SCRATCH/daemon.pid")" 2>/dev/null; do sleep 0.1; done
}
export NOTE=$SCRATCH/gate-env

test_expect_success 'bootgated: ccache-remote is checked, and every job gets its own, no other' '
	cat >svc.yaml <<-EOF &&
	state: $SCRATCH/state
	poll: 3600
	ccache-remote: redis+unix:$SOCK
	trees:
	  - name: t
	    url: git://127.0.0.1:9/t.git
	    branch: master
	    arches: [x86_64]
	EOF
	"$ROOT/bin/bootgated" --lab "$ROOT/lab-configs" -n -f svc.yaml >out 2>err &&
	sed -e "s|^ccache-remote: .*|ccache-remote: http://127.0.0.1:6379|" svc.yaml >bad.yaml &&
	test_exit_code 2 "$ROOT/bin/bootgated" --lab "$ROOT/lab-configs" -n -f bad.yaml 2>err &&
	test_grep "bad.yaml:3:[0-9]*: .ccache-remote.: .http://127.0.0.1:6379.: the build.s sandbox has no network" err &&
	daemon_gates svc.yaml &&
	test "$(cat "$NOTE")" = "redis+unix:$SOCK" &&
	grep -v "^ccache-remote:" svc.yaml >none.yaml &&
	daemon_gates none.yaml &&
	test "$(cat "$NOTE")" = none
'

test_done
