#!/bin/sh
# A real LAVA lab on 127.0.0.1 for the end-to-end tests: lava-server (PostgreSQL,
# gunicorn, publisher, scheduler) and two lava-workers, lava-w1 and lava-w2, each with one
# QEMU device (qemu-w1, qemu-w2) that boots the machine of lab-configs/boards/qemu-*.yaml.
# Debian 12's packages run here without systemd: every daemon is started by hand, in a
# session of its own, its pid in $BOOTGATE_CACHE/lava/run.
#
# usage: scripts/lava-lab.sh start|stop|status        (as root)
#   LAVA_PORT   the HTTP port (default 8000); the publisher's websocket takes PORT+1 and
#               its event socket PORT+2
#   LAVA_TOKEN  the API token to give the admin user (else a random one, kept)
# start prints LAVA_URL=... and LAVA_TOKEN_FILE=... on stdout, never the token; the time
# of each phase goes to stderr.
set -eu

# Debian's python3: one from a venv earlier in PATH has no django
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
export DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8

ROOT=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${BOOTGATE_CACHE:-/var/cache/bootgate}
STATE=$CACHE/lava
RUN=$STATE/run
PORT=${LAVA_PORT:-8000}
case "$PORT" in
'' | *[!0-9]* | 0*) PORT=0 ;;
esac
if [ ${#PORT} -gt 5 ] || [ "$PORT" -lt 1 ] || [ "$PORT" -gt 65533 ]; then
	echo "lava-lab: LAVA_PORT is a port number, 1 to 65533, not '$LAVA_PORT'" >&2
	exit 2
fi
WS_PORT=$((PORT + 1))
EVENT_PORT=$((PORT + 2))
# the token goes into a curl config line and a manage argument: a plain word
case "${LAVA_TOKEN:-}" in
*[!A-Za-z0-9._-]*)
	echo "lava-lab: LAVA_TOKEN takes letters, digits and '._-' only" >&2
	exit 2 ;;
esac
URL=http://127.0.0.1:$PORT
API=$URL/api/v0.2
WORKERS="lava-w1 lava-w2"
SETTINGS=/etc/lava-server/settings.d/50-bootgate-lab.yaml
DEVICES=/etc/lava-server/dispatcher-config/devices

say() { echo "lava-lab: $*" >&2; }
die() { say "$*"; exit 1; }
manage() { /usr/bin/lava-server manage "$@"; }
now() { date +%s.%N; }
phase_t0=$(now)
# phase NAME: how long the work since the last phase took
phase() {
	t=$(now)
	say "$(awk -v a="$phase_t0" -v b="$t" -v n="$1" 'BEGIN { printf "%-10s %6.1f s", n, b - a }')"
	phase_t0=$t
}

# alive NAME TAG: the pid in RUN/NAME.pid runs and its command line holds TAG (a pid
# reused by another program is not ours)
alive() {
	[ -s "$RUN/$1.pid" ] || return 1
	pid=$(cat "$RUN/$1.pid")
	[ -r "/proc/$pid/cmdline" ] || return 1
	case "$(tr '\0' ' ' <"/proc/$pid/cmdline")" in
	*"$2"*) return 0 ;;
	esac
	return 1
}

# daemon NAME TAG CMD...: starts CMD as the leader of a new session, unless it runs
daemon() {
	name=$1 tag=$2
	shift 2
	alive "$name" "$tag" && return 0
	setsid "$@" >>"$STATE/log/$name.out" 2>&1 </dev/null &
	echo $! >"$RUN/$name.pid"
	say "started $name (pid $!)"
}

# halt NAME:TAG...: SIGTERM to each daemon's process group at once, SIGKILL to those
# still there after 20 s
halt() {
	pids=""
	for n in "$@"; do
		if alive "${n%%:*}" "${n#*:}"; then
			pid=$(cat "$RUN/${n%%:*}.pid")
			kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
			pids="$pids $pid"
		fi
		rm -f "$RUN/${n%%:*}.pid"
	done
	i=0
	for pid in $pids; do
		while kill -0 "$pid" 2>/dev/null && [ $i -lt 200 ]; do
			sleep 0.1
			i=$((i + 1))
		done
		kill -KILL -- "-$pid" 2>/dev/null || true
	done
	[ -z "$pids" ] || say "stopped$pids after $((i / 10)).$((i % 10)) s"
}

# api PATH: GET with the token (read from its file: never on a command line)
api() {
	printf 'header = "Authorization: Token %s"\n' "$(cat "$STATE/token")" |
		curl -sS -m 10 -K - "$API/$1"
}

# field JSON KEY: the string value of KEY in a flat JSON object
field() {
	printf '%s' "$1" | sed -n "s/.*\"$2\": *\"\\([^\"]*\\)\".*/\\1/p"
}

pg_cluster() {
	pg_lsclusters -h 2>/dev/null | awk 'NR == 1 { print $1, $2 }'
}

start_postgres() {
	# a cluster whose data directory is gone (its configuration left behind) cannot
	# start: it is made anew, and with it LAVA's database (make_database)
	set -- $(pg_lsclusters -h 2>/dev/null | awk 'NR == 1 { print $1, $2, $6 }')
	if [ $# = 3 ] && [ ! -d "$3" ]; then
		pg_dropcluster "$1" "$2" >/dev/null 2>&1 || rm -rf "/etc/postgresql/$1/$2"
		say "the PostgreSQL cluster $1/$2 had no data directory ('$3'): made anew"
	fi
	if [ -z "$(pg_cluster)" ]; then
		pg_createcluster "$(ls /usr/lib/postgresql | sort -V | tail -1)" main >/dev/null
		say "created a PostgreSQL cluster"
	fi
	pg_isready -q && return 0
	# shellcheck disable=SC2046
	pg_ctlcluster $(pg_cluster) start
	touch "$RUN/postgres.ours"
	i=0
	until pg_isready -q; do
		[ $i -lt 100 ] || die "PostgreSQL did not start (/var/log/postgresql)"
		sleep 0.2
		i=$((i + 1))
	done
}

# the package's postinst skips the database while PostgreSQL is down, which it always
# is without systemd: postinst.py makes the role, the database and the settings
make_database() {
	db=$(runuser -u postgres -- psql -tAc \
		"SELECT 1 FROM pg_database WHERE datname = 'lavaserver'" 2>/dev/null || true)
	[ "$db" = 1 ] && [ -s /etc/lava-server/settings.d/00-database.yaml ] && return 0
	/usr/bin/python3 /usr/share/lava-server/postinst.py >"$STATE/log/postinst.log" 2>&1 ||
		{ tail -20 "$STATE/log/postinst.log" >&2; die "postinst.py failed"; }
}

# without events the scheduler polls every 20 s: the publisher wakes it
write_settings() {
	want=$(printf '%s\n' "# scripts/lava-lab.sh: events on loopback wake the scheduler" \
		"EVENT_NOTIFICATION: true" "EVENT_SOCKET: \"tcp://127.0.0.1:$EVENT_PORT\"")
	[ "$(cat "$SETTINGS" 2>/dev/null || true)" = "$want" ] && return 0
	printf '%s\n' "$want" >"$SETTINGS"
	chown lavaserver:lavaserver "$SETTINGS"
	chmod 640 "$SETTINGS"
}

start_server() {
	mkdir -p /var/log/lava-server
	daemon publisher "lava-publisher" /usr/bin/lava-server manage lava-publisher \
		--level INFO --log-file "$STATE/log/publisher.log" --host 127.0.0.1 --port "$WS_PORT"
	daemon gunicorn "lava_server.wsgi" /usr/bin/gunicorn3 lava_server.wsgi --log-level INFO \
		--log-file "$STATE/log/gunicorn.log" -u lavaserver -g lavaserver \
		--worker-class eventlet --workers 2 --bind "127.0.0.1:$PORT"
	daemon scheduler "lava-scheduler" /usr/bin/lava-server manage lava-scheduler \
		--level INFO --log-file "$STATE/log/scheduler.log" \
		--event-url "tcp://127.0.0.1:$EVENT_PORT"
	i=0
	until [ "$(curl -s -m 5 -o /dev/null -w '%{http_code}' "$API/system/version/")" = 200 ]; do
		alive gunicorn "lava_server.wsgi" ||
			{ tail -20 "$STATE/log/gunicorn.out" >&2; die "gunicorn stopped"; }
		[ $i -lt 600 ] || die "no answer from $API/system/version/ after 60 s"
		sleep 0.1
		i=$((i + 1))
	done
}

# the admin user and its API token: LAVA_TOKEN, else the one kept, else a new one
provision_token() {
	token=${LAVA_TOKEN:-}
	if [ -z "$token" ] && [ -s "$STATE/token" ]; then
		token=$(cat "$STATE/token")
	fi
	[ -n "$token" ] || token=$(head -c 30 /dev/urandom | base64 | tr -dc A-Za-z0-9)
	# each "manage" call costs 1.5 s: the server is asked first
	if [ -s "$STATE/token" ] && [ "$token" = "$(cat "$STATE/token")" ] &&
		[ "$(field "$(api system/whoami/)" user)" = admin ]; then
		return 0
	fi
	# captured first: "manage ... | grep -q" dies of EPIPE
	users=$(manage users list)
	case "$users" in
	*"* admin"*) ;;
	*) manage users add --superuser --staff --email admin@localhost \
		--passwd "$(head -c 18 /dev/urandom | base64 | tr -dc A-Za-z0-9)" admin >/dev/null ;;
	esac
	known=$(manage tokens list --user admin --csv)
	case "$known" in
	*"$token"*) ;;
	*) manage tokens add --user admin --description bootgate --secret "$token" >/dev/null ;;
	esac
	(umask 077 && printf '%s\n' "$token" >"$STATE/token.new" && mv "$STATE/token.new" "$STATE/token")
}

# Each device is bootgate's QEMU machine for the job's arch (lab-configs/boards/qemu-*):
# qemu.jinja2 always adds "-net nic,... -net user", and a NIC changes which initcalls a
# tiny kernel runs, so the whole qemu_options block is replaced. Job context picks the
# arch and may give machine and cpu; memory and no_kvm are the dictionary's.
write_device() {
	f=$DEVICES/$1.jinja2
	cat >"$f.new" <<EOF
{% extends 'qemu.jinja2' %}
{# $1: written by bootgate's scripts/lava-lab.sh #}
{% set memory = 512 %}
{% set no_kvm = True %}
{% block qemu_options %}
{% if arch == 'arm64' or arch == 'aarch64' %}
          - -machine {{ machine|default('virt') }}
          - -cpu {{ cpu|default('cortex-a57') }}
{% elif arch == 'ppc64' %}
          - -machine {{ machine|default('pseries') }}
{% else %}
          - -machine {{ machine|default('pc') }}
{% endif %}
          - -m {{ memory }}
          - -nographic
          - -no-reboot
{% if arch == 'ppc64' %}
          - -nodefaults
          - -serial mon:stdio
{% else %}
          - -nic none
          - -monitor none
{% endif %}
          - -accel tcg
{% endblock qemu_options %}
EOF
	if cmp -s "$f.new" "$f"; then rm -f "$f.new"; else mv "$f.new" "$f"; fi
	chown lavaserver:lavaserver "$f"
}

provision_lab() {
	for w in $WORKERS; do
		write_device "qemu-${w#lava-}"
	done
	ready=1
	for w in $WORKERS; do
		[ -s "$STATE/$w/token" ] &&
			[ "$(field "$(api "devices/qemu-${w#lava-}/")" worker_host)" = "$w" ] || ready=0
	done
	[ $ready = 1 ] && return 0
	types=$(manage device-types list)
	case "$types" in
	*"qemu "*) ;;
	*) manage device-types add qemu >/dev/null ;;
	esac
	workers=$(manage workers list)
	devices=$(manage devices list --all)
	for w in $WORKERS; do
		d=qemu-${w#lava-}
		mkdir -p "$STATE/$w"
		case "$workers" in
		*"$w"*) ;;
		*) manage workers add --description "bootgate test worker" "$w" >/dev/null
		   rm -f "$STATE/$w/token" ;;   # a new database: a new worker token
		esac
		if [ ! -s "$STATE/$w/token" ]; then
			details=$(manage workers details "$w")
			(umask 077 && printf '%s\n' "$details" | awk '$1 == "token" { print $3 }' \
				>"$STATE/$w/token")
		fi
		case "$devices" in
		*"$d"*) ;;
		*) manage devices add --device-type qemu --worker "$w" \
			--description "bootgate QEMU, TCG" "$d" >/dev/null ;;
		esac
	done
}

# Two workers on one host need a work directory each: a worker keeps its jobs in
# WORKDIR/db.sqlite3 and reports every finished job it finds there, with its own token.
start_workers() {
	mkdir -p /var/log/lava-dispatcher
	for w in $WORKERS; do
		daemon "$w" "--name $w" /usr/bin/lava-worker --level INFO --name "$w" \
			--url "$URL/" --ws-url "http://127.0.0.1:$WS_PORT/ws/" \
			--worker-dir "$STATE/$w" --token-file "$STATE/$w/token" --ping-interval 2 \
			--log-file "$STATE/log/$w.log"
	done
}

# workers Online, devices Good: a job whose marker never came leaves its device
# Unknown (LAVA has no health check here), so it is set back
check_health() {
	for w in $WORKERS; do
		d=qemu-${w#lava-}
		i=0
		until [ "$(field "$(api "workers/$w/")" state)" = Online ]; do
			alive "$w" "--name $w" || { tail -20 "$STATE/log/$w.out" >&2; die "$w stopped"; }
			[ $i -lt 300 ] || die "$w is not Online after 60 s ($STATE/log/$w.log)"
			sleep 0.2
			i=$((i + 1))
		done
		health=$(field "$(api "devices/$d/")" health)
		if [ "$health" != Good ]; then
			manage devices update --health GOOD "$d" >/dev/null
			say "$d was ${health:-unknown}: set to Good"
		fi
	done
}

do_start() {
	[ "$(id -u)" = 0 ] || die "start runs as root"
	mkdir -p "$RUN" "$STATE/log"
	# the server's daemons drop to lavaserver and write their logs themselves; the
	# rest stays root's (the token files are 0600)
	chmod 711 "$STATE"
	chmod 700 "$RUN"
	chown lavaserver:lavaserver "$STATE/log"
	sh "$ROOT/scripts/deps.sh" lava
	phase packages
	start_postgres
	phase postgresql
	make_database
	write_settings
	phase database
	start_server
	phase server
	provision_token
	provision_lab
	phase provision
	start_workers
	check_health
	phase workers
	echo "LAVA_URL=$URL"
	echo "LAVA_TOKEN_FILE=$STATE/token"
}

do_stop() {
	halt "lava-w1:--name lava-w1" "lava-w2:--name lava-w2" scheduler:lava-scheduler \
		gunicorn:lava_server.wsgi publisher:lava-publisher
	if [ -e "$RUN/postgres.ours" ]; then
		# shellcheck disable=SC2046
		pg_ctlcluster $(pg_cluster) stop || true
		rm -f "$RUN/postgres.ours"
		say "stopped postgresql"
	fi
	phase stop
}

do_status() {
	rc=0
	for n in publisher:lava-publisher "gunicorn:lava_server.wsgi" scheduler:lava-scheduler \
		"lava-w1:--name lava-w1" "lava-w2:--name lava-w2"; do
		if alive "${n%%:*}" "${n#*:}"; then
			echo "${n%%:*} running $(cat "$RUN/${n%%:*}.pid")"
		else
			echo "${n%%:*} stopped"
			rc=1
		fi
	done
	if [ $rc = 0 ]; then
		for w in $WORKERS; do
			d=qemu-${w#lava-}
			echo "$w $(field "$(api "workers/$w/")" state)" \
				"$d $(field "$(api "devices/$d/")" health)"
		done
	fi
	return $rc
}

case "${1:-}" in
start) do_start ;;
stop) do_stop ;;
status) do_status ;;
*) echo "usage: scripts/lava-lab.sh start|stop|status" >&2; exit 2 ;;
esac
