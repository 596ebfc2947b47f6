#!/bin/sh
# beside: t0150-lava-templates.sh
# bootgate-boot against a LAVA server that answers badly (tests/e2e/fake-lava.py on
# 127.0.0.1): a log holding a NUL byte, a server that is down or failing before any
# job, a log that cannot be read, a command line that would bend QEMU's. Each ends with
# the exit code the scheduler acts on, and the token appears in no output.
. "$(dirname "$0")/lib.sh"

BOOT=$ROOT/bin/bootgate-boot
TOKEN=t0156-secret-$(od -An -N4 -tx4 /dev/urandom | tr -d ' ')
cp -r "$ROOT/lab-configs" lab
printf '%s\n' "$TOKEN" >token
head -c 1000 /dev/urandom >img
head -c 500 /dev/urandom >rd
mkdir cache

stop_fake() {
	[ -s "$SCRATCH/fake.pid" ] || return 0
	kill "$(cat "$SCRATCH/fake.pid")" 2>/dev/null || true
	rm -f "$SCRATCH/fake.pid"
}
trap 'stop_fake; rm -rf "$SCRATCH"' EXIT

# board URL: a board "fake" of the lab copy whose server is URL
board() {
	sed -e "s|^lava_url:.*|lava_url: $1|" -e "s|^lava_token_file:.*|lava_token_file: $SCRATCH/token|" \
		-e "s|^lava_retries:.*|lava_retries: 0|" \
		"$ROOT/lab-configs/boards/lava-qemu-x86_64.yaml" >lab/boards/fake.yaml
}

# fake MODE: the fake server in MODE, the board pointing at it
fake() {
	stop_fake
	rm -f port port.requests
	python3 "$ROOT/tests/e2e/fake-lava.py" "$SCRATCH/port" "$1" &
	echo $! >"$SCRATCH/fake.pid"
	for i in $(seq 100); do
		[ ! -s port ] || break
		sleep 0.1
	done
	[ -s port ] && board "http://127.0.0.1:$(cat port)"
}

# boot WANT: one boot on the board "fake", its exit code WANT
boot() {
	rm -rf out && mkdir out &&
	BOOTGATE_LAB=$SCRATCH/lab BOOTGATE_CACHE=$SCRATCH/cache test_exit_code "$1" \
		"$BOOT" --board fake --image img --initrd rd --boots 1 --out out \
		>result.json 2>err.txt &&
	! grep -r -l -e "$TOKEN" result.json err.txt out
}

test_expect_success 'a log line holding a NUL byte: read, no crash' '
	fake lognul &&
	boot 0 &&
	test_jq ".boots[0].outcome == \"complete\"" result.json
'

test_expect_success 'a server down before any job: the lab failed (111), not the configuration' '
	stop_fake &&
	board "http://127.0.0.1:$(cat port)" &&
	boot 111 &&
	test_jq ".boots | length == 1 and .[0].outcome == \"infra\" and .[0].job_url == null" \
		result.json &&
	test_grep "Couldn.t connect" err.txt
'

test_expect_success 'a server failing (500) before any job: 111, and no job sent' '
	fake whoami500 &&
	boot 111 &&
	test_jq ".boots[0].outcome == \"infra\"" result.json &&
	test_grep "HTTP 500: database down" err.txt &&
	! grep -q "^POST" port.requests
'

test_expect_success 'a log that cannot be read: infra, and the log URL and why are said' '
	fake logs500 &&
	boot 111 &&
	test_jq ".boots[0].outcome == \"infra\"" result.json &&
	test_grep "jobs/7/logs/?start=0&end=5000: the server failed (HTTP 500: log storage failed)" \
		err.txt
'

test_expect_success 'a quote in the command line: refused, no job (it would end -append)' '
	fake lognul &&
	BOOTGATE_LAB=$SCRATCH/lab BOOTGATE_CACHE=$SCRATCH/cache test_exit_code 2 \
		"$BOOT" --board fake --image img --initrd rd --print-job \
		--append "x\" -device virtio-rng-pci \"" >job.yaml 2>err.txt &&
	test_grep "may not hold a quote" err.txt &&
	! test -s job.yaml &&
	rm -rf out && mkdir out &&
	BOOTGATE_LAB=$SCRATCH/lab BOOTGATE_CACHE=$SCRATCH/cache test_exit_code 2 \
		"$BOOT" --board fake --image img --initrd rd --boots 1 --out out \
		--append "x\" -device virtio-rng-pci \"" >result.json 2>err.txt &&
	test_grep "may not hold a quote" err.txt &&
	! grep -q "^POST" port.requests
'

test_expect_success 'a finished log whose last line has no newline: that line counts' '
	fake lognonl &&
	boot 0 &&
	test_jq "[.boots[].outcome] == [\"complete\"]" result.json
'

test_expect_success 'the token went in a header to the server, and nowhere else' '
	fake lognul &&
	boot 0 &&
	test_grep "^GET /api/v0.2/system/whoami/ Token $TOKEN\$" port.requests
'

test_done
