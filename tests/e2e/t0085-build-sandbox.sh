#!/bin/sh
# Hostile patches: build steps that reach for the daemon's webhook and socket, other
# loopback ports and every secret the service configuration names (one under /etc), that
# write outside the build, fork without end, fill the disk, run forever, or poison the
# shared ccache and the board's build directory. Each is stopped and the build fails for
# its reason (exit 1: never retried); the daemon still answers and the next trusted build
# is built, from clean objects; `bootgate series` builds what a list posts untrusted. A
# tree with a Makefile of its own stands in for a kernel.
#
# The scratch directory is not under /tmp: the sandbox puts an empty /tmp in place, which
# would hide the secrets below for the wrong reason.
SCRATCH_BASE=/var/tmp
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/lib-gitd.sh"
. "$ROOT/tests/e2e/lib-daemon.sh"

BUILD=$ROOT/bin/bootgate-build
STATE=$SCRATCH/state
DB=$STATE/bootgate.db
SOCK=$SCRATCH/run/bootgate.sock
ETC=$(mktemp -d /etc/bootgate-t0085.XXXXXX)
export BOOTGATE_STATE=$STATE BOOTGATE_CACHE=$SCRATCH/cache BOOTGATE_JOB_BACKOFF=1
# this shell's pids cgroup (v1), where each worker makes its build's
export PIDS_HOME=/sys/fs/cgroup/pids$(sed -n "s/^[0-9]*:pids://p" /proc/self/cgroup)
# each hostile process carries this in its command line: none may be left behind
MARK=hostile-$$-$(od -An -N4 -tx4 /dev/urandom | tr -d " ")
mkdir -p "$BOOTGATE_CACHE" "$SCRATCH/run" secrets

# busy_cgroup_gone: the cgroup same-pid.sh --busy left (and the one below it) removed, the
# case passed or not: a cgroup that holds another is never swept, and would be taken for a
# worker's left behind by every later run
busy_cgroup_gone() {
	[ -s "$SCRATCH/same-pid.dir" ] || return 0
	c=$(cat "$SCRATCH/same-pid.dir")
	rm -f "$SCRATCH/same-pid.dir"
	rmdir "$c/below" 2>/dev/null
	rmdir "$c" 2>/dev/null
	[ ! -e "$c" ]
}
trap 'busy_cgroup_gone; stop_daemon; stop_git_daemon; rm -rf "$SCRATCH" "$ETC"' EXIT

# the lab: the tiny board, and a LAVA board whose token is under /etc
tiny_lab
sed -e "s|^lava_token_file: .*|lava_token_file: $ETC/lava-token|" \
	-e "s|^name: .*|name: lava-tiny|" -e "s|^fragments: .*|fragments: [tiny.config]|" \
	"$ROOT/lab-configs/boards/lava-qemu-x86_64.yaml" >lab/boards/lava-tiny.yaml
mkdir -p lab/lava
cp "$ROOT/lab-configs/lava/qemu-x86_64.yaml" lab/lava/
echo "lava-token-$MARK" >"$ETC/lava-token"
echo "webhook-secret-$MARK" >secrets/webhook.secret
echo "smtp-password-$MARK" >secrets/smtp.password

# the tree: code.c compiled through ccache ($(CC) is "ccache gcc") into the image; each
# hostile branch adds a rule to hostile:: (run before the compile) in hostile.mk, whose
# rules override the Makefile's
mkdir -p tree
cat >tree/Makefile <<'EOF'
O ?= .
tinyconfig:
	@mkdir -p $(O) && echo "# tiny" >$(O)/.config
olddefconfig:
	@test -f $(O)/.config
$(O)/code.o: code.c | hostile
	@$(CC) -c code.c -o $@
image: $(O)/code.o
	@rm -f $(O)/image.bin && cp $(O)/code.o $(O)/image.bin
hostile::
.PHONY: image hostile
-include hostile.mk
EOF
kconfig_stub tree
echo "int main(void) { return 0; }" >tree/code.c
git_ -C tree init -q
git_ -C tree add -A
git_ -C tree commit -q -m "the tree"
# the object a clean compile of code.c gives
(cd tree && gcc -c code.c -o "$SCRATCH/clean.o")

# hostile NAME RECIPE-LINES: branch NAME, master with hostile.mk holding the lines
hostile() {
	git_ -C tree checkout -q -b "$1" master &&
	printf 'hostile::\n' >tree/hostile.mk &&
	shift &&
	printf '\t%s\n' "$@" >>tree/hostile.mk &&
	git_ -C tree add hostile.mk &&
	git_ -C tree commit -q -m hostile &&
	git_ -C tree checkout -q master
}

build() {
	"$BUILD" --lab lab --board tiny "$@"
}

untrusted() {
	build --untrusted --service "$SCRATCH/bootgate.yaml" "$@"
}

# trusted_builds: the trusted tree is built again from its build directory (no image kept)
trusted_builds() {
	if ! BOOTGATE_REUSE=0 build --tree tree --commit master >next.json 2>next.err; then
		echo "the trusted build failed:" >&2
		cat next.err >&2
		return 1
	fi
	test_jq '.status == "built"' next.json &&
	cmp "$(jq -r .image next.json)" clean.o
}

# no_dead_cgroup: every bootgate-build-PID cgroup left belongs to a worker still running
# (another test's build may be under way beside this one)
no_dead_cgroup() {
	for c in "$PIDS_HOME"/bootgate-build-*; do
		[ -e "$c" ] || continue
		# bootgate-build-PID, or bootgate-build-PID-XXXXXX
		pid=${c##*/bootgate-build-} && pid=${pid%%-*}
		kill -0 "$pid" 2>/dev/null || { echo "left behind: $c"; return 1; }
	done
}

# left_behind: none of the hostile processes is running; those that are, shown
left_behind() {
	pids=$(pgrep -d, -f "$MARK") || return 0
	echo "left behind:" >&2
	ps -o pid,ppid,stat,etimes,cgroup,args -p "$pids" >&2
	return 1
}

# the daemon, its webhook and its socket where the configuration puts them
git init -q -b master small &&
	echo one >small/README &&
	git -C small add . &&
	git -C small -c user.name=t -c user.email=t@localhost commit -q -m first
start_git_daemon "$SCRATCH/served" >/dev/null
GITD_SOURCE=$SCRATCH/small make_served_repo small.git >/dev/null
HOOK_PORT=$(free_port 34100 1000)
cat >bootgate.yaml <<EOF
state: $STATE
socket: $SOCK
poll: 3600
webhook:
  listen: 127.0.0.1:$HOOK_PORT
  secret-file: $SCRATCH/secrets/webhook.secret
report:
  from: "bootgate <bootgate@ci.example.org>"
  smtp: smtp://127.0.0.1:1
  smtp-user: bootgate
  smtp-password-file: $SCRATCH/secrets/smtp.password
trees:
  - name: small
    url: $(gitd_url)/small.git
    branch: master
    arches: [x86_64]
    mode: deterministic
EOF

# webhook_answers: the daemon's webhook answers an unsigned POST with 401
webhook_answers() {
	test "$(curl -s -o /dev/null -w "%{http_code}" -H "Content-Type: application/json" \
		--data-binary '{}' "http://127.0.0.1:$HOOK_PORT/hook/small")" = 401
}

start_daemon() {
	setsid "$ROOT/bin/bootgated" -f bootgate.yaml >>daemon.log 2>&1 &
	echo $! >daemon.pid
}

test_expect_success 'the daemon runs: its socket and its webhook answer' '
	start_daemon &&
	wait_for 30 "\"$ROOT/bin/bootgate\" trigger --socket \"$SOCK\" small >/dev/null 2>&1" &&
	webhook_answers
'

test_expect_success 'a trusted build compiles code.c through ccache: the clean object' '
	build --tree tree --commit master >t.json 2>err &&
	test_jq ".status == \"built\" and .ccache_misses == 1" t.json &&
	cmp "$(jq -r .image t.json)" clean.o
'

# The probe: a build step of a posted patch reaches for all it should not.
LOOP_PORT=$(free_port 35100 1000)
cat >probe.mk <<EOF
\$(info probe-webhook: \$(shell python3 -c "import socket; socket.create_connection(('127.0.0.1', $HOOK_PORT), 5); print('connected')" 2>&1 | tail -n 1))
\$(info probe-port: \$(shell python3 -c "import socket; socket.create_connection(('127.0.0.1', $LOOP_PORT), 5); print('connected')" 2>&1 | tail -n 1))
\$(info probe-socket: \$(shell python3 -c "import socket; s = socket.socket(socket.AF_UNIX); s.connect('$SOCK'); print('connected')" 2>&1 | tail -n 1))
\$(info probe-webhook-secret: \$(shell cat $SCRATCH/secrets/webhook.secret 2>&1))
\$(info probe-smtp-password: \$(shell cat $SCRATCH/secrets/smtp.password 2>&1))
\$(info probe-lava-token: \$(shell cat $ETC/lava-token 2>&1))
\$(info probe-conf: \$(shell grep -c secret-file $SCRATCH/bootgate.yaml 2>&1))
\$(info probe-store: \$(shell test -s $DB && echo found || echo none))
\$(info probe-write: \$(shell (echo escaped >$SCRATCH/escaped) 2>&1 && echo wrote))
\$(info probe-write-src: \$(shell (echo planted >/tmp/bootgate/src/planted) 2>&1 && echo wrote))
\$(info probe-write-ccache: \$(shell (echo planted >$BOOTGATE_CACHE/ccache/planted) 2>&1 && echo wrote))
\$(info probe-sysctl: \$(shell (cat /proc/sys/kernel/domainname >/proc/sys/kernel/domainname) 2>&1 && echo wrote))
\$(info probe-umount: \$(shell umount $ETC/lava-token 2>&1 && cat $ETC/lava-token 2>&1))
\$(info probe-remount: \$(shell mount -o remount,rw,bind / 2>&1 && echo remounted))
\$(info probe-shadow: \$(shell cut -d: -f1 /etc/shadow 2>&1 | grep -c "^root\$\$"))
\$(info probe-var-lib: \$(shell ls -A /var/lib | wc -l))
EOF
git_ -C tree checkout -q -b probe master
cp probe.mk tree/hostile.mk
git_ -C tree add hostile.mk
git_ -C tree commit -q -m "a build step that reaches out"
# the same probe in another source: an image of the same source would be kept, not built
git_ -C tree checkout -q -b probe-open probe
echo "# without the sandbox" >>tree/hostile.mk
git_ -C tree commit -q -a -m "the probe again"
git_ -C tree checkout -q master

# listen: accepts connections on 127.0.0.1:$LOOP_PORT, noting each in $SCRATCH/loop.conn
listen() {
	python3 -c "
import socket
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(('127.0.0.1', $LOOP_PORT)); s.listen(4); s.settimeout(60)
open('$SCRATCH/loop.ready', 'w').close()
try:
    while True:
        c, _ = s.accept(); open('$SCRATCH/loop.conn', 'a').write('connected\n')
except socket.timeout:
    pass
" &
	listener=$!
	while [ ! -e loop.ready ]; do sleep 0.1; done
}

stop_listener() {
	kill "$listener" 2>/dev/null
	wait "$listener" 2>/dev/null
	rm -f loop.ready
	return 0
}

test_expect_success 'untrusted: no webhook, socket, loopback port, secret, or write outside' '
	listen &&
	untrusted --tree tree --commit probe >s.json 2>err &&
	stop_listener &&
	log=$(jq -r .log s.json) &&
	cat "$log" &&
	test_grep "probe-webhook: .*\(Connection refused\|Network is unreachable\)" "$log" &&
	test_grep "probe-port: .*\(Connection refused\|Network is unreachable\)" "$log" &&
	test_grep "probe-socket: .*Connection refused" "$log" &&
	test_grep "probe-webhook-secret: cat: .*: Permission denied" "$log" &&
	test_grep "probe-smtp-password: cat: .*: Permission denied" "$log" &&
	test_grep "probe-lava-token: cat: .*: Permission denied" "$log" &&
	test_grep "probe-conf: grep: .*: Permission denied" "$log" &&
	test_grep "probe-store: none" "$log" &&
	test_grep "probe-write: .*Read-only file system" "$log" &&
	test_grep "probe-write-src: .*Read-only file system" "$log" &&
	test_grep "probe-write-ccache: .*\(Read-only file system\|No such file\)" "$log" &&
	test_grep "probe-sysctl: .*Read-only file system" "$log" &&
	test_grep "probe-umount: .*must be superuser" "$log" &&
	test_grep "probe-remount: .*permission denied" "$log" &&
	test_grep "probe-shadow: 0$" "$log" &&
	test_grep "probe-var-lib: 0$" "$log" &&
	! grep -q "$MARK" "$log" &&
	test ! -e loop.conn &&
	test ! -e escaped &&
	test ! -e tree/planted &&
	test ! -e "$BOOTGATE_CACHE/ccache/planted" &&
	"$ROOT/bin/bootgate" trigger --socket "$SOCK" small >/dev/null &&
	webhook_answers &&
	trusted_builds
'

test_expect_success 'the same step without the sandbox reaches all of them (the probe is real)' '
	listen &&
	build --tree tree --commit probe-open --no-sandbox >o.json 2>err &&
	stop_listener &&
	log=$(jq -r .log o.json) &&
	test_grep "probe-webhook: connected" "$log" &&
	test_grep "probe-port: connected" "$log" &&
	test_grep "probe-socket: connected" "$log" &&
	test_grep "probe-webhook-secret: webhook-secret-$MARK" "$log" &&
	test_grep "probe-smtp-password: smtp-password-$MARK" "$log" &&
	test_grep "probe-lava-token: lava-token-$MARK" "$log" &&
	test_grep "probe-conf: 1$" "$log" &&
	test_grep "probe-store: found" "$log" &&
	test_grep "probe-write: wrote" "$log" &&
	test_grep "probe-shadow: 1$" "$log" &&
	! grep -q "probe-var-lib: 0$" "$log" &&
	test_grep "connected" loop.conn &&
	test -f escaped &&
	rm -f escaped loop.conn
'

test_expect_success 'BOOTGATE_SERVICE names the configuration as --service does' '
	git_ -C tree checkout -q -b probe-env probe &&
	echo "# by the environment" >>tree/hostile.mk &&
	git_ -C tree commit -q -a -m "the probe by the environment" &&
	git_ -C tree checkout -q master &&
	BOOTGATE_SERVICE=$SCRATCH/bootgate.yaml build --untrusted --tree tree \
		--commit probe-env >e.json 2>err &&
	log=$(jq -r .log e.json) &&
	test_grep "probe-webhook-secret: cat: .*: Permission denied" "$log" &&
	test_grep "probe-smtp-password: cat: .*: Permission denied" "$log" &&
	! grep -q "$MARK" "$log" &&
	test_exit_code 2 build --untrusted --service /nonexistent --tree tree --commit master \
		>bad.json 2>err &&
	test_jq ".status == \"usage\" and (.error | test(\"--service: .*nonexistent\"))" bad.json
'

hostile bomb "@sh -c 'b() { b & b & wait; }; b' $MARK-bomb"
test_expect_success 'a fork bomb: stopped at the process limit, failed, nothing left' '
	: the empty cgroup of a worker gone, SIGKILLed before it removed it: swept &&
	dead=$(sh -c "echo \$\$") &&
	mkdir "$PIDS_HOME/bootgate-build-$dead" &&
	{ test_exit_code 1 untrusted --max-procs 64 --timeout 120 --tree tree --commit bomb \
		>b.json 2>err || { cat err b.json >&2; false; }; } &&
	test_jq ".status == \"failed\" and .error == \"the build reached its process limit\"" b.json &&
	test_grep "bootgate-build: the build reached its process limit" "$(jq -r .log b.json)" &&
	test_grep "the build reached its process limit" err &&
	left_behind &&
	no_dead_cgroup &&
	trusted_builds
'

# in-cgroup.sh MAX CMD...: runs CMD in a pids cgroup of its own whose pids.max is MAX,
# below the one the worker makes for its build; removes it after
cat >in-cgroup.sh <<'EOF'
c=$PIDS_HOME/bootgate-t0085-$$
mkdir "$c" && echo "$1" >"$c/pids.max" && echo $$ >"$c/cgroup.procs" ||
	{ echo "in-cgroup.sh: cannot make $c" >&2; exit 3; }
shift
"$@"
rc=$?
echo $$ >"$PIDS_HOME/cgroup.procs" && rmdir "$c"
exit $rc
EOF
test_expect_success 'a fork refused by an enclosing limit is infra (111), trusted or not; its own, failed' '
	: the build at its own limit: its doing, trusted too &&
	{ test_exit_code 1 build --max-procs 64 --timeout 120 --tree tree --commit bomb \
		>tb.json 2>err || { cat err tb.json >&2; false; }; } &&
	test_jq ".status == \"failed\" and .error == \"the build reached its process limit\"" \
		tb.json &&
	left_behind &&
	: the default limit, 4096, inside a cgroup of 64: the limit of the machine &&
	for u in "" --untrusted; do
		{ test_exit_code 111 sh in-cgroup.sh 64 "$BUILD" --lab lab --board tiny $u \
			--service "$SCRATCH/bootgate.yaml" --timeout 120 --tree tree --commit bomb \
			>tb.json 2>err || { cat err tb.json >&2; false; }; } &&
		test_jq ".status == \"infra\" and .error ==
			\"the pids.max of an enclosing cgroup refused a fork of the build\"" tb.json &&
		test_grep "bootgate-t0085-[0-9]*/pids.max. is 64, not above --max-procs 4096" err &&
		left_behind &&
		no_dead_cgroup || return 1
	done &&
	trusted_builds
'

# a hundred short sleeps at once, the refused fork ignored: with code.o already built (the
# untrusted build starts from a copy of the trusted one), the step is over in a fraction
# of a second, often before the worker's first look (200 ms), and exits 0
hostile burst "@sh -c 'for i in 0 1 2 3 4 5 6 7 8 9; do for j in 0 1 2 3 4 5 6 7 8 9; do sleep 0.05 & done; done' $MARK-burst 2>/dev/null || true"

# same-pid.sh [--busy] CMD...: runs CMD with the pid of a worker killed after its build
# had a fork refused, whose cgroup is still there with that count in its pids.events
# (named in same-pid.dir); --busy: with a cgroup below it, so that it cannot be removed
cat >same-pid.sh <<'EOF'
c=$PIDS_HOME/bootgate-build-$$
mkdir "$c" && echo 1 >"$c/pids.max" && echo "$c" >same-pid.dir ||
	{ echo "same-pid.sh: cannot make $c" >&2; exit 3; }
sh -c 'echo $$ >"$1/cgroup.procs" && /bin/true' - "$c" 2>/dev/null
grep -q "^max [1-9]" "$c/pids.events" ||
	{ echo "same-pid.sh: no refused fork counted in $c" >&2; exit 3; }
if [ "$1" = --busy ]; then
	mkdir "$c/below" || exit 3
	shift
fi
exec "$@"
EOF
test_expect_success 'the cgroup of a killed worker whose pid comes again: made anew, not its count' '
	{ BOOTGATE_REUSE=0 sh same-pid.sh "$BUILD" --lab lab --board tiny --tree tree \
		--commit master >r.json 2>err || { cat err r.json >&2; false; }; } &&
	test_jq ".status == \"built\"" r.json &&
	test_grep "made anew the cgroup .*: a killed worker of the same pid left it" err &&
	no_dead_cgroup &&
	: one that cannot be removed: another of its own, and its limit holds &&
	: the burst, not the bomb: without a limit it must not take the machine &&
	{ test_exit_code 1 sh same-pid.sh --busy "$BUILD" --lab lab --board tiny --untrusted \
		--service "$SCRATCH/bootgate.yaml" --max-procs 32 --timeout 120 --tree tree \
		--commit burst >r.json 2>err || { cat err r.json >&2; false; }; } &&
	busy_cgroup_gone &&
	test_jq ".status == \"failed\" and .error == \"the build reached its process limit\"" r.json &&
	test_grep "cannot make anew .*, left by a killed worker of the same pid" err &&
	left_behind &&
	no_dead_cgroup
'

test_expect_success 'a burst past the process limit, over before it is seen: failed all the same' '
	trusted_builds &&
	{ test_exit_code 1 untrusted --max-procs 32 --tree tree --commit burst >u.json 2>err ||
		{ cat err u.json >&2; false; }; } &&
	test_jq ".status == \"failed\" and .error == \"the build reached its process limit\"" u.json &&
	left_behind &&
	trusted_builds
'

hostile fill "@while :; do head -c 1048576 /dev/zero >>\$(O)/fill-$MARK; sleep 0.05; done"
hostile spam "@while :; do echo spam-$MARK; done"
hostile tmpfill "@head -c 300000000 /dev/zero >/tmp/fill-$MARK"
# six thousand empty files: inodes, not blocks
hostile inodes "@mkdir -p \$(O)/many-$MARK && cd \$(O)/many-$MARK && seq 6000 | xargs touch"
# 24 MiB at once, after the worker's first look at the disk (at 200 ms; the next one is a
# second later), and the step ends before its next
hostile gulp "@sleep 0.3; head -c $((24 << 20)) /dev/zero >\$(O)/gulp-$MARK"
test_expect_success 'filling the disk: stopped at the disk limit (files or log), failed' '
	test_exit_code 1 untrusted --max-disk 16 --tree tree --commit fill >f.json 2>err &&
	test_jq ".status == \"failed\" and .error == \"the build wrote past its disk limit\"" f.json &&
	left_behind &&
	test_exit_code 1 untrusted --max-disk 16 --tree tree --commit spam >f.json 2>err &&
	test_jq ".error == \"the build wrote past its disk limit\"" f.json &&
	test "$(stat -c %s "$(jq -r .log f.json)")" -lt $((64 << 20)) &&
	left_behind &&
	test_exit_code 1 untrusted --max-disk 16 --tree tree --commit gulp >f.json 2>err &&
	test_jq ".status == \"failed\" and .error == \"the build wrote past its disk limit\"" f.json &&
	test_exit_code 1 untrusted --max-disk 16 --tree tree --commit inodes >f.json 2>err &&
	test_jq ".status == \"failed\" and .error == \"the build wrote past its disk limit\"" f.json &&
	trusted_builds
'

test_expect_success 'filling /tmp: bounded; no space there is the build failing, not the machine' '
	test_exit_code 1 untrusted --tree tree --commit tmpfill >f.json 2>err &&
	test_jq ".status == \"failed\" and .error == null" f.json &&
	test_grep "No space left on device" "$(jq -r .log f.json)" &&
	trusted_builds
'

hostile forever "@sh -c 'sleep 100000' $MARK-sleep"
test_expect_success 'a build that runs forever: stopped at its time limit, failed, nothing left' '
	start=$(date +%s) &&
	test_exit_code 1 untrusted --timeout 3 --tree tree --commit forever >t.json 2>err &&
	test $(($(date +%s) - start)) -lt 30 &&
	test_jq ".status == \"failed\" and .error == \"the build ran past its time limit\"" t.json &&
	test_grep "the build ran past its time limit" "$(jq -r .log t.json)" &&
	left_behind &&
	: a trusted tree past its time: the machine is slow, tried again later &&
	test_exit_code 111 build --timeout 3 --tree tree --commit forever >tt.json 2>err &&
	test_jq ".status == \"infra\" and .error == \"the build ran past its time limit\"" tt.json &&
	left_behind &&
	trusted_builds
'

# Poisoning. With the shared ccache writable, a posted patch compiles code of its own and
# copies that result over every other one: the trusted tree's next compile of code.c
# would hit it. And a code.o dated in the future in the board's build directory would be
# taken as done by the trusted build's make.
git_ -C tree checkout -q -b poison master
cat >tree/hostile.mk <<'EOF'
hostile::
	@echo 'int main(void) { return 66; }' >/tmp/evil.c
	@$(CC) -c /tmp/evil.c -o /tmp/evil.o
	@new=$$(ls -t $$(find $$CCACHE_DIR -name '*R') | head -n 1); \
	for f in $$(find $$CCACHE_DIR -name '*R'); do [ $$f = $$new ] || cp $$new $$f || true; done
image:
	@cp /tmp/evil.o $(O)/code.o && touch -d 2099-01-01 $(O)/code.o
	@cp $(O)/code.o $(O)/image.bin
EOF
git_ -C tree add hostile.mk
git_ -C tree commit -q -m "a build that poisons what it can"
git_ -C tree checkout -q master

test_expect_success 'a poisoned ccache or build directory never reaches a trusted build' '
	untrusted --tree tree --commit poison >p.json 2>err &&
	test_jq ".status == \"built\"" p.json &&
	! cmp -s "$(jq -r .image p.json)" clean.o &&
	git_ -C tree commit -q --allow-empty -m "the next trusted commit" &&
	BOOTGATE_REUSE=0 build --tree tree --commit master >t.json 2>err &&
	test_jq ".status == \"built\"" t.json &&
	cmp "$(jq -r .image t.json)" clean.o &&
	rm -rf "$(dirname "$(jq -r .log t.json)")/o" &&
	BOOTGATE_REUSE=0 build --tree tree --commit master >fresh.json 2>err &&
	test_jq ".status == \"built\" and .ccache_hits == 1" fresh.json &&
	cmp "$(jq -r .image fresh.json)" clean.o
'

test_expect_success 'an untrusted build starts from a copy of the trusted one, not from one killed' '
	BOOTGATE_REUSE=0 build --tree tree --commit master >t.json 2>err &&
	slot=$(dirname "$(jq -r .log t.json)") &&
	BOOTGATE_REUSE=0 untrusted --tree tree --commit master >u.json 2>err &&
	test_grep "untrusted: starting from a copy of .$slot/o." err &&
	test_jq ".status == \"built\" and .ccache_hits == 0 and .ccache_misses == 0" u.json &&
	cmp "$(jq -r .image u.json)" clean.o &&
	: a trusted build killed midway leaves its marker: its directory is not copied &&
	touch "$slot/building" &&
	BOOTGATE_REUSE=0 untrusted --tree tree --commit master >k.json 2>err &&
	! grep -q "starting from a copy" err &&
	test_jq ".status == \"built\" and .ccache_hits == 1" k.json &&
	cmp "$(jq -r .image k.json)" clean.o &&
	trusted_builds
'

test_expect_success 'an untrusted image is never kept for a trusted commit of the same source' '
	git_ -C tree checkout -q -b same master &&
	echo "int main(void) { return 3; }" >tree/code.c &&
	git_ -C tree commit -q -a -m "a new source" &&
	git_ -C tree checkout -q master &&
	untrusted --tree tree --commit same >u.json 2>err &&
	test_jq ".status == \"built\" and .reused == false" u.json &&
	twin=$(git_ -C tree commit-tree -p master -m "the same source, trusted" same^{tree}) &&
	build --tree tree --commit "$twin" >t.json 2>err &&
	test_jq ".status == \"built\" and .reused == false" t.json &&
	third=$(git_ -C tree commit-tree -p master -m "once more, posted" same^{tree}) &&
	untrusted --tree tree --commit "$third" >u2.json 2>err &&
	test_jq ".reused == true and .artifact == \"$(jq -r .artifact t.json)\"" u2.json
'

hostile cfg "@echo '# planted-$MARK' >>\$(O)/.config; echo log-$MARK"
test_expect_success 'an untrusted build of the same bytes leaves the artifact'"'"'s files as they were' '
	BOOTGATE_REUSE=0 build --tree tree --commit master >t.json 2>err &&
	art=$(jq -r .artifact t.json) &&
	mkdir -p saved &&
	cp "$art/config" "$art/build.log" "$art/metadata.json" saved/ &&
	untrusted --tree tree --commit cfg >u.json 2>err &&
	test_jq ".status == \"built\" and .reused == false and
		.image_sha256 == \"$(jq -r .image_sha256 t.json)\"" u.json &&
	test_grep "log-$MARK" "$(jq -r .log u.json)" &&
	cmp saved/config "$art/config" &&
	cmp saved/build.log "$art/build.log" &&
	cmp saved/metadata.json "$art/metadata.json"
'

# cache_files: what the shared ccache holds, its counters aside
cache_files() {
	find "$BOOTGATE_CACHE/ccache" -type f ! -name stats ! -name CACHEDIR.TAG \
		! -path "$BOOTGATE_CACHE/ccache/tmp/*" | sort
}

test_expect_success 'bootgate series builds untrusted (its base, here): nothing new in ccache' '
	BOOTGATE_REUSE=0 build --tree tree --commit master >t.json 2>err &&
	test_jq ".status == \"built\"" t.json &&
	echo "int main(void) { return 7; }" >tree/code.c &&
	git_ -C tree commit -q -a -m "a source no cache holds" &&
	git_ -C tree checkout -q -b posted master &&
	echo "/* posted */" >>tree/code.c &&
	git_ -C tree commit -q -a -m "tiny: a posted patch" &&
	git_ -C tree format-patch -1 --stdout >posted.mbox &&
	git_ -C tree checkout -q master &&
	cache_files >ccache.before &&
	test_grep "R$" ccache.before &&
	: the base is built, then no boot of it can reach userspace: not a kernel, so the \
		patch is never built: both are built by the same flag &&
	test_exit_code 1 "$ROOT/bin/bootgate" series --tree tree --board tiny --lab lab \
		--db series.db --json posted.mbox >series.json 2>err &&
	test_jq ".state == \"failed\" and .base.image_sha256 != null" series.json &&
	test_grep "bootgate-build: commit $(git_ -C tree rev-parse --short=12 master), config [0-9a-f]*, sandboxed, untrusted$" err &&
	test_grep "ccache: 0 hits, 1 misses" err &&
	cache_files >ccache.after &&
	test_cmp ccache.before ccache.after
'

# An object that takes in a file its source does not #include: the kernel's piggy.S
# holds the compressed vmlinux with .incbin, and the dependency list the compiler writes
# (-Wp,-MMD, as kbuild asks) does not name that file. ccache must not answer such a
# compile from its cache (its depend mode would, and the image would keep the old kernel).
kconfig_stub incbin
cat >incbin/Makefile <<'EOF'
O ?= .
tinyconfig:
	@mkdir -p $(O) && echo "# tiny" >$(O)/.config
olddefconfig:
	@test -f $(O)/.config
$(O)/piggy.o: piggy.S payload.bin
	@$(CC) -Wp,-MMD,$(O)/.piggy.o.d -c piggy.S -o $@
image: $(O)/piggy.o
	@cp $(O)/piggy.o $(O)/image.bin
.PHONY: image
EOF
printf '\t.section .rodata\n\t.incbin "payload.bin"\n' >incbin/piggy.S
echo "payload-one" >incbin/payload.bin
git_ -C incbin init -q
git_ -C incbin add -A
git_ -C incbin commit -q -m "the first payload"

test_expect_success 'a file taken in with .incbin changes: the image has the new one' '
	build --tree incbin --commit master >i1.json 2>err &&
	test_jq ".status == \"built\"" i1.json &&
	grep -q payload-one "$(jq -r .image i1.json)" &&
	echo "payload-two" >incbin/payload.bin &&
	git_ -C incbin commit -q -a -m "the second payload" &&
	build --tree incbin --commit master >i2.json 2>err &&
	test_jq ".status == \"built\"" i2.json &&
	grep -q payload-two "$(jq -r .image i2.json)" &&
	! grep -q payload-one "$(jq -r .image i2.json)" &&
	: the same, with the shared ccache configured for its depend mode &&
	echo "depend_mode = true" >"$BOOTGATE_CACHE/ccache/ccache.conf" &&
	echo "payload-three" >incbin/payload.bin &&
	git_ -C incbin commit -q -a -m "the third payload" &&
	build --tree incbin --commit master >i3.json 2>err &&
	grep -q payload-three "$(jq -r .image i3.json)" &&
	echo "payload-four" >incbin/payload.bin &&
	git_ -C incbin commit -q -a -m "the fourth payload" &&
	build --tree incbin --commit master >i4.json 2>err &&
	rm "$BOOTGATE_CACHE/ccache/ccache.conf" &&
	grep -q payload-four "$(jq -r .image i4.json)"
'

test_expect_success 'the daemon was not affected: socket and webhook answer' '
	"$ROOT/bin/bootgate" trigger --socket "$SOCK" small >/dev/null &&
	webhook_answers &&
	kill -0 "$(cat daemon.pid)" &&
	test_exit_code 2 build --untrusted --no-sandbox --tree tree --commit master
'

test_done
