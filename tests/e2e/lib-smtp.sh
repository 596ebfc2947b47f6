# Sourced by tests that receive bootgate's mail: a real SMTP server on 127.0.0.1,
# postfix's smtp-sink, writing each message it takes to a file of its own under
# $SCRATCH/mails. SMTP_PORT is a free port; mails_with and headers_of read the capture.

SINK=/usr/sbin/smtp-sink
# smtp-sink runs as nobody: it must reach the directory it writes into
mkdir -p "$SCRATCH/mails" && chmod 711 "$SCRATCH" && chmod 777 "$SCRATCH/mails"

. "$ROOT/scripts/lib-net.sh"
SMTP_PORT=$(free_port)

# start_sink [OPTION...]: more smtp-sink options (-W .:8 holds the answer to each message's
# end for 8 s, the message already written)
start_sink() {
	setsid "$SINK" "$@" -d "$SCRATCH/mails/%Y%m%d%H%M%S." -u nobody "127.0.0.1:$SMTP_PORT" 10 \
		>>"$SCRATCH/sink.log" 2>&1 &
	echo $! >"$SCRATCH/sink.pid"
	for i in 1 2 3 4 5 6 7 8 9 10; do
		listening "$SMTP_PORT" && return 0
		sleep 0.2
	done
	return 1
}

stop_sink() {
	[ -s "$SCRATCH/sink.pid" ] || return 0
	kill -KILL "$(cat "$SCRATCH/sink.pid")" 2>/dev/null || true
	while kill -0 "$(cat "$SCRATCH/sink.pid")" 2>/dev/null; do sleep 0.1; done
	rm -f "$SCRATCH/sink.pid"
}

# mails_with PATTERN: how many captured messages hold PATTERN
mails_with() {
	grep -l -e "$1" "$SCRATCH"/mails/* 2>/dev/null | wc -l
}

# headers_of PATTERN: the header block of the one captured message holding PATTERN
headers_of() {
	sed '/^\r*$/q' "$(grep -l -e "$1" "$SCRATCH"/mails/* | head -1)" | tr -d '\r'
}

# body_of PATTERN: the body of the one captured message holding PATTERN, without CRs
body_of() {
	tr -d '\r' <"$(grep -l -e "$1" "$SCRATCH"/mails/* | head -1)" | sed '1,/^$/d'
}
