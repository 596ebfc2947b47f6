# Sourced by tests that talk to a real LAVA: scripts/lava-lab.sh's lab on 127.0.0.1
# (lava-server, two workers lava-w1 and lava-w2 with a QEMU device each, qemu-w1 and
# qemu-w2). lava_start starts it, or finds it running; lava_stop stops it only if this
# test started it, and not under BOOTGATE_LAVA_KEEP=1 (make check-e2e: one lab for all
# the tests, stopped at the end of the tier). A test sourcing this file calls lava_stop
# at exit.

LAVA_LAB=$ROOT/scripts/lava-lab.sh
LAVA_URL=
LAVA_TOKEN_FILE=
lava_started=0

# lava_start: the lab runs, LAVA_URL and LAVA_TOKEN_FILE are exported; on failure the
# script's own words are on stderr and the return is 1
lava_start() {
	sh "$LAVA_LAB" status >/dev/null 2>&1 || lava_started=1
	if ! sh "$LAVA_LAB" start >"$SCRATCH/lava-start.out" 2>"$SCRATCH/lava-start.err"; then
		echo "the LAVA lab did not start (scripts/lava-lab.sh start):" >&2
		tail -20 "$SCRATCH/lava-start.err" >&2
		return 1
	fi
	LAVA_URL=$(sed -n 's/^LAVA_URL=//p' "$SCRATCH/lava-start.out")
	LAVA_TOKEN_FILE=$(sed -n 's/^LAVA_TOKEN_FILE=//p' "$SCRATCH/lava-start.out")
	export LAVA_URL LAVA_TOKEN_FILE
	[ -n "$LAVA_URL" ] && [ -s "$LAVA_TOKEN_FILE" ] &&
	lava_cancel_all
}

# lava_cancel_all: every job not finished is cancelled, so that a job left by a test that
# stopped half-way (a download from a server that is gone waits for many minutes) holds
# no device of the next
lava_cancel_all() {
	for lava_job in $(lava_api "jobs/?state__in=Submitted,Scheduling,Scheduled,Running&limit=200" |
			  jq -r ".results[].id"); do
		lava_api "jobs/$lava_job/cancel/" >/dev/null || return 1
	done
}

# lava_submit JOB-FILE: submits the job, prints its id; lava_stop cancels it at exit if
# it still runs then (with every other job not finished)
lava_submit() {
	lava_api jobs/ --data-urlencode "definition@$1" >"$1.submitted" &&
	sed -n 's/.*"job_ids":\[\([0-9]*\)\].*/\1/p' "$1.submitted"
}

lava_stop() {
	[ -n "$LAVA_URL" ] && lava_cancel_all 2>/dev/null
	[ "$lava_started" = 1 ] && [ "${BOOTGATE_LAVA_KEEP:-}" != 1 ] || return 0
	sh "$LAVA_LAB" stop 2>>"$SCRATCH/lava-start.err"
	lava_started=0
}

# lava_api PATH [CURL-ARGS...]: the body of PATH under /api/v0.2/, with the lab's token
# (given to curl on stdin, never on a command line)
lava_api() {
	api_path=$1
	shift
	printf 'header = "Authorization: Token %s"\n' "$(cat "$LAVA_TOKEN_FILE")" |
		curl -sS -m 20 -K - "$@" "$LAVA_URL/api/v0.2/$api_path"
}

# lava_field JSON KEY: the string value of KEY in LAVA's flat JSON
lava_field() {
	printf '%s' "$1" | sed -n "s/.*\"$2\": *\"\\([^\"]*\\)\".*/\\1/p"
}

# lava_until SECONDS WHAT SHELL-CONDITION: polls every second; says WHAT is not so
lava_until() {
	waited=0
	while ! eval "$3"; do
		if [ "$waited" -ge "$1" ]; then
			echo "$2 after $1 s" >&2
			return 1
		fi
		sleep 1
		waited=$((waited + 1))
	done
}

# lava_workers_online SECONDS: both workers Online within SECONDS, else says which not
lava_workers_online() {
	for lava_worker in lava-w1 lava-w2; do
		lava_until "$1" "LAVA worker $lava_worker is not Online" \
			'[ "$(lava_field "$(lava_api "workers/$lava_worker/")" state)" = Online ]' ||
			return 1
	done
}

# lava_wait_job ID SECONDS: waits for the job to be Finished; prints its health
lava_wait_job() {
	lava_job=$1
	lava_until "$2" "LAVA job $1 is not Finished" \
		'lava_json=$(lava_api "jobs/$lava_job/") &&
		 [ "$(lava_field "$lava_json" state)" = Finished ]' &&
	lava_field "$lava_json" health
}

trap 'lava_stop; rm -rf "$SCRATCH"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
