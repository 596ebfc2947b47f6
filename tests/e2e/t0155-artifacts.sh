#!/bin/sh
# beside: t0150-lava-templates.sh
# The artifact server: `bootgate serve-artifacts` over a scratch cache holding a fake
# image, asked with curl on 127.0.0.1 (the bytes, HEAD, hostile targets, links out of the
# cache, 100 clients at once, a client that leaves mid-download), then bootgated serving
# the same when its configuration has `artifacts:`.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/lib-daemon.sh"
. "$ROOT/scripts/lib-net.sh"

BOOTGATED=$ROOT/bin/bootgated
CACHE=$SCRATCH/cache
mkdir -p "$CACHE/artifacts" "$SCRATCH/state" "$SCRATCH/elsewhere"
# 3 MiB and a few bytes: more than one socket buffer, not a round number
head -c 3145739 /dev/urandom >"$SCRATCH/fake.img"
SHA=$(sha256sum "$SCRATCH/fake.img" | cut -c1-64)
SIZE=$(wc -c <"$SCRATCH/fake.img")
mkdir "$CACHE/artifacts/$SHA"
cp "$SCRATCH/fake.img" "$CACHE/artifacts/$SHA/image"
# what must never be served: a file outside, reached by a link in the cache
echo "not an artifact" >"$SCRATCH/elsewhere/image"
LINKED=1111111111111111111111111111111111111111111111111111111111111111
DIRLINK=2222222222222222222222222222222222222222222222222222222222222222
MISSING=3333333333333333333333333333333333333333333333333333333333333333
mkdir "$CACHE/artifacts/$LINKED"
ln -s "$SCRATCH/elsewhere/image" "$CACHE/artifacts/$LINKED/image"
ln -s "$SCRATCH/elsewhere" "$CACHE/artifacts/$DIRLINK"
UPPER=$(echo "$SHA" | tr a-f A-F)
touch "$SCRATCH/setup-done"

stop_server() {
	[ -s "$SCRATCH/server.pid" ] || return 0
	kill -TERM "$(cat "$SCRATCH/server.pid")" 2>/dev/null || true
	rm -f "$SCRATCH/server.pid"
}
start_daemon() {
	BOOTGATE_CACHE=$CACHE setsid "$BOOTGATED" -f "$SCRATCH/bootgate.yaml" \
		--db "$SCRATCH/state/bootgate.db" >>"$SCRATCH/daemon.log" 2>&1 &
	echo $! >"$SCRATCH/daemon.pid"
}
trap 'stop_server; stop_daemon; rm -rf "$SCRATCH"' EXIT

# code TARGET [CURL-ARGS...]: the HTTP status of a request for TARGET, sent as written
code() {
	target=$1
	shift
	curl -s --path-as-is -o /dev/null -w '%{http_code}' "$@" "$URL$target"
}

# raw REQUEST-LINE: the status line of the answer to a request sent byte for byte, with
# the escapes \r, \n and \xNN of REQUEST-LINE made bytes; "closed" when none came
raw() {
	python3 - "$PORT" "$1" <<'EOF'
import socket, sys
line = sys.argv[2].encode("latin-1").decode("unicode_escape").encode("latin-1")
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10)
s.sendall(line + b"\r\nHost: x\r\nConnection: close\r\n\r\n")
print(s.makefile("rb").readline().decode("latin-1").strip() or "closed")
EOF
}

# the server in the background, on a port of its choosing; URL and PORT from what it says
# (its parent, a subshell, keeps its exit code: a test case runs in a subshell of its own)
(
	"$BOOTGATE" serve-artifacts --listen 127.0.0.1:0 --cache "$CACHE" \
		>"$SCRATCH/server.out" 2>"$SCRATCH/server.log" &
	echo $! >"$SCRATCH/server.pid"
	wait $!
	echo $? >"$SCRATCH/server.rc"
) &
for i in $(seq 50); do
	grep -q '^serving ' "$SCRATCH/server.out" && break
	sleep 0.1
done
URL=$(sed -n 's|^serving .* on \(http://.*\)$|\1|p' "$SCRATCH/server.out")
PORT=${URL##*:}

test_expect_success 'serve-artifacts says where it serves, once ready' '
	echo "serving $CACHE on http://127.0.0.1:$PORT" >expect &&
	test_cmp expect "$SCRATCH/server.out" &&
	test "$PORT" -gt 0
'

test_expect_success 'GET: the image comes back byte for byte, as octet-stream' '
	curl -sf -D headers -o got "$URL/artifacts/$SHA/image" &&
	cmp got "$SCRATCH/fake.img" &&
	test "$(sha256sum <got | cut -c1-64)" = "$SHA" &&
	test_grep "^HTTP/1.1 200" headers &&
	test_grep "^Content-Length: $SIZE" headers &&
	test_grep "^Content-Type: application/octet-stream" headers
'

test_expect_success 'HEAD: the length, and no body' '
	curl -sf -I -o headers "$URL/artifacts/$SHA/image" &&
	test_grep "^HTTP/1.1 200" headers &&
	test_grep "^Content-Length: $SIZE" headers &&
	test "$(curl -s -I -o /dev/null -w "%{size_download}" "$URL/artifacts/$SHA/image")" = 0
'

test_expect_success 'hostile targets: 404, and each refusal logged once' '
	for t in / /artifacts /artifacts/ "/artifacts/$SHA" "/artifacts/$SHA/" \
		"/artifacts/$SHA/config" "/artifacts/$SHA/image/" "/artifacts/$SHA/image?x=1" \
		"/artifacts/$SHA/image?" "/artifacts/../artifacts/$SHA/image" \
		"/artifacts/$SHA/../$SHA/image" "/artifacts/%2e%2e/%2e%2e/etc/passwd" \
		"/artifacts/$SHA/%2e%2e" "/artifacts/%2e%2e/$SHA/image" "//artifacts/$SHA/image" \
		"/artifacts//$SHA/image" "/artifacts/$SHA//image" "/artifacts/$UPPER/image" \
		"/artifacts/$SHA/image%0d%0aX-Injected:%20y" "/artifacts/$SHA/image%00" \
		"/artifacts/$MISSING/image" "/../../etc/passwd" "/artifacts/$SHA/%69mage"
	do
		got=$(code "$t") &&
		if [ "$got" != 404 ]; then echo "$t: $got, want 404"; return 1; fi &&
		n=$(grep -cF "GET '\''$(printf %.100s "$t")'\'': 404" "$SCRATCH/server.log") &&
		if [ "$n" != 1 ]; then echo "$t: logged $n times"; return 1; fi
	done
'

test_expect_success 'the log says why a missing artifact is missing; the client is not told where' '
	curl -s "$URL/artifacts/$MISSING/image" >body &&
	echo "no such artifact" >expect &&
	test_cmp expect body &&
	test_grep "GET '\''/artifacts/$MISSING/image'\'': 404 no such artifact: cannot open .*$CACHE/artifacts/$MISSING/image" \
		"$SCRATCH/server.log"
'

test_expect_success 'raw CR and LF in the request line, a long target: refused, no crash' '
	got=$(raw "GET /artifacts/$SHA/image\rX HTTP/1.1") &&
	case "$got" in "HTTP/1.1 4"*) ;; *) echo "CR: $got"; exit 1 ;; esac &&
	got=$(raw "GET /artifacts/$SHA/image HTTP/1.1\nX-Evil: 1") &&
	case "$got" in "HTTP/1.1 "*) ;; *) echo "LF: $got"; exit 1 ;; esac &&
	got=$(raw "GET /$(head -c 5000 /dev/zero | tr "\\0" a) HTTP/1.1") &&
	case "$got" in "HTTP/1.1 4"*) ;; *) echo "long: $got"; exit 1 ;; esac &&
	test_note "a 5000-byte target: $got" &&
	got=$(raw "GET /artifacts/\xff\xfe/image HTTP/1.1") &&
	case "$got" in "HTTP/1.1 4"*) ;; *) echo "non-UTF-8: $got"; exit 1 ;; esac &&
	test "$(code "/artifacts/$SHA/image")" = 200
'

test_expect_success 'other methods on an artifact: 405 with Allow; elsewhere 404' '
	for m in POST PUT DELETE OPTIONS PATCH; do
		test "$(code "/artifacts/$SHA/image" -X "$m")" = 405 || return 1
	done &&
	curl -s -D headers -o /dev/null -X PUT --data x "$URL/artifacts/$SHA/image" &&
	test_grep "^Allow: GET, HEAD" headers &&
	test "$(code /hook/tracing -X POST)" = 404 &&
	test "$(code /artifacts/ -X DELETE)" = 404 &&
	cmp "$CACHE/artifacts/$SHA/image" "$SCRATCH/fake.img"
'

test_expect_success 'a link out of the cache is not followed: the image, or its directory' '
	test "$(code "/artifacts/$LINKED/image")" = 404 &&
	test "$(code "/artifacts/$DIRLINK/image")" = 404 &&
	curl -s "$URL/artifacts/$LINKED/image" >body &&
	! grep -q "not an artifact" body &&
	test_grep "/artifacts/$LINKED/image.*(a link is not followed)" "$SCRATCH/server.log"
'

test_expect_success 'a FIFO or a directory named image is refused, not waited on' '
	FIFO=4444444444444444444444444444444444444444444444444444444444444444 &&
	DIR=5555555555555555555555555555555555555555555555555555555555555555 &&
	mkdir -p "$CACHE/artifacts/$FIFO" "$CACHE/artifacts/$DIR/image" &&
	mkfifo "$CACHE/artifacts/$FIFO/image" &&
	test "$(code "/artifacts/$FIFO/image" --max-time 5)" = 404 &&
	test "$(code "/artifacts/$DIR/image" --max-time 5)" = 404
'

test_expect_success '100 clients at once are all served the whole image' '
	mkdir par &&
	seq 100 | xargs -P 100 -I{} curl -sf --max-time 60 -o par/{} "$URL/artifacts/$SHA/image" &&
	test "$(ls par | wc -l)" = 100 &&
	test "$(sha256sum par/* | cut -c1-64 | sort -u)" = "$SHA"
'

test_expect_success 'a client that stops mid-download does not stop the server' '
	python3 - "$PORT" "$SHA" >left <<-EOF &&
	import socket, struct, sys
	got = 0
	for i in range(20):
	    s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10)
	    if i % 2:   # the odd ones reset the connection rather than close it
	        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
	    s.sendall(b"GET /artifacts/%s/image HTTP/1.1\r\nHost: x\r\n\r\n" % sys.argv[2].encode())
	    got += len(s.recv(65536))
	    s.close()
	print("left after", got > 0)
	EOF
	echo "left after True" >expect &&
	test_cmp expect left &&
	kill -0 "$(cat "$SCRATCH/server.pid")" &&
	curl -sf -o again "$URL/artifacts/$SHA/image" &&
	cmp again "$SCRATCH/fake.img"
'

test_expect_success 'nothing was written in the cache' '
	find "$CACHE" -newer "$SCRATCH/setup-done" -type f >new &&
	test_cmp /dev/null new
'

test_expect_success 'SIGTERM stops it with exit 0' '
	kill -TERM "$(cat "$SCRATCH/server.pid")" &&
	rm -f "$SCRATCH/server.pid" &&
	for i in $(seq 50); do [ -s "$SCRATCH/server.rc" ] && break; sleep 0.1; done &&
	test "$(cat "$SCRATCH/server.rc")" = 0 &&
	test_grep "artifacts: stopped by signal 15" "$SCRATCH/server.log" &&
	! curl -s -o /dev/null "$URL/artifacts/$SHA/image"
'

test_expect_success 'serve-artifacts: usage and errors' '
	test_exit_code 2 bootgate serve-artifacts --listen localhost:80 2>err &&
	test_grep "listen address .localhost:80. is not IPV4:PORT" err &&
	test_exit_code 2 bootgate serve-artifacts --listen 127.0.0.1:65536 2>err &&
	test_exit_code 2 bootgate serve-artifacts extra 2>err &&
	test_exit_code 2 bootgate serve-artifacts --bogus 2>err &&
	test_exit_code 1 bootgate serve-artifacts --listen 127.0.0.1:0 --cache "$SCRATCH/none" 2>err &&
	test_grep "none. is not a directory" err
'

# the daemon, with the artifact server configured
APORT=$(free_port 33100 1000)
write_conf() {
	cat >"$SCRATCH/bootgate.yaml" <<EOF
state: $SCRATCH/state
socket: $SCRATCH/state/s.sock
artifacts:
  listen: 127.0.0.1:$1
trees:
  - name: tracing
    url: git://127.0.0.1:1/none
    branch: for-next
    arches: [x86_64]
    poll: 86400
EOF
}

test_expect_success 'bootgated serves the same artifacts when configured, and moves on reload' '
	write_conf "$APORT" &&
	start_daemon &&
	URL=http://127.0.0.1:$APORT &&
	wait_for 20 "grep -q \"artifacts of $CACHE on http://127.0.0.1:$APORT\" \"$SCRATCH/daemon.log\"" &&
	curl -sf -o got "$URL/artifacts/$SHA/image" &&
	cmp got "$SCRATCH/fake.img" &&
	test "$(code "/artifacts/$LINKED/image")" = 404 &&
	test "$(code "/artifacts/$SHA/image?x")" = 404 &&
	test "$(code "/artifacts/$SHA/image" -X POST)" = 405 &&
	test_grep "artifacts: 127.0.0.1: GET .*/image?x.: 404" "$SCRATCH/daemon.log" &&
	test_exit_code 1 bootgate serve-artifacts --listen "127.0.0.1:$APORT" --cache "$CACHE" \
		>out 2>err &&
	test_grep "artifacts: cannot listen on .127.0.0.1:$APORT" err &&
	test_cmp /dev/null out &&
	NPORT=$((APORT + 1)) &&
	write_conf "$NPORT" &&
	kill -HUP "$(cat "$SCRATCH/daemon.pid")" &&
	wait_for 20 "grep -q \"artifacts of $CACHE on http://127.0.0.1:$NPORT\" \"$SCRATCH/daemon.log\"" &&
	! curl -s -o /dev/null "$URL/artifacts/$SHA/image" &&
	URL=http://127.0.0.1:$NPORT &&
	test "$(code "/artifacts/$SHA/image")" = 200 &&
	stop_daemon
'

test_expect_success 'bootgated -n: a bad artifacts address is named with its line' '
	write_conf 8788 &&
	sed -i "s/127.0.0.1:8788/localhost/" "$SCRATCH/bootgate.yaml" &&
	test_exit_code 2 "$BOOTGATED" -n -f "$SCRATCH/bootgate.yaml" 2>err &&
	test_grep "bootgate.yaml:4:11: .listen. is HOST:PORT, not .localhost." err
'

test_expect_success 'status: each boot with its board, and its LAVA job when it has one' '
	C=cccccccccccccccccccccccccccccccccccccccc &&
	sqlite3 "$SCRATCH/state/bootgate.db" "INSERT INTO builds (commit_sha, board, status,
		image_sha256, created) VALUES ('\''$C'\'', '\''lava-qemu-x86_64'\'', '\''built'\'',
		'\''$SHA'\'', 1); INSERT INTO boots (image_sha256, board, mode, outcome, wall_s,
		job_url, created) VALUES ('\''$SHA'\'', '\''lava-qemu-x86_64'\'',
		'\''deterministic'\'', '\''complete'\'', 14.5,
		'\''http://127.0.0.1:8000/scheduler/job/17'\'', 1), ('\''$SHA'\'', '\''qemu-x86_64'\'',
		'\''deterministic'\'', '\''complete'\'', 2.5, NULL, 2)" &&
	bootgate status --db "$SCRATCH/state/bootgate.db" >out &&
	sed -n "/^boots:/,\$p" out >boots &&
	cat >expect <<-EOF &&
	boots:
	  id=2 commit=cccccccccccc board=qemu-x86_64 mode=deterministic outcome=complete wall_s=2.5 created=1970-01-01 00:00:02
	  id=1 commit=cccccccccccc board=lava-qemu-x86_64 mode=deterministic outcome=complete wall_s=14.5 job_url=http://127.0.0.1:8000/scheduler/job/17 created=1970-01-01 00:00:01
	EOF
	test_cmp expect boots &&
	bootgate status --json --db "$SCRATCH/state/bootgate.db" >out.json &&
	test_jq ".boots | length == 2 and .[0].job_url == null and .[0].board == \"qemu-x86_64\"
		and .[1].job_url == \"http://127.0.0.1:8000/scheduler/job/17\"
		and .[1].board == \"lava-qemu-x86_64\" and .[1].commit == \"$C\"" out.json
'

test_done
