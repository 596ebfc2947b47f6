#!/bin/sh
# LAVA against a direct boot: the same x86_64 image booted 4 times (2 at a time,
# deterministic) by bootgate-boot under its own QEMU, by bootgate-boot as LAVA jobs on the
# loopback lab of scripts/lava-lab.sh, and by a bare curl client sending the very job
# bootgate wrote and polling it every second (what LAVA itself costs), with the lab's
# set-up time. Prints figures; never fails on them.
set -eu
cd "$(dirname "$0")/.."
root=$(pwd)
. scripts/lib-net.sh
tree=$(sh scripts/kernel-repo.sh)
work=$(mktemp -d "${TMPDIR:-/tmp}/bootgate-bench-lava.XXXXXX")
port=$(free_port 34100 1000)
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
cleanup() {
	[ -s "$work/art.pid" ] && kill "$(cat "$work/art.pid")" 2>/dev/null
	sh scripts/lava-lab.sh stop >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT

bin/bootgate-build --tree "$tree" --commit master --board qemu-x86_64 >"$work/build.json" 2>/dev/null
image=$(jq -r .image "$work/build.json")

t0=$(now)
sh scripts/lava-lab.sh start >"$work/lab.env" 2>"$work/lab.err"
t1=$(now)
. "$work/lab.env"
setsid bin/bootgate serve-artifacts --listen "127.0.0.1:$port" >"$work/art.log" 2>&1 &
echo $! >"$work/art.pid"
until grep -q "^serving" "$work/art.log"; do sleep 0.2; done
cp -R lab-configs "$work/lab"
sed -i -e "s|^lava_url: .*|lava_url: $LAVA_URL|" \
	-e "s|^lava_token_file: .*|lava_token_file: $LAVA_TOKEN_FILE|" \
	-e "s|^artifact_url: .*|artifact_url: http://127.0.0.1:$port|" \
	"$work/lab/boards/lava-qemu-x86_64.yaml"
export BOOTGATE_LAB=$work/lab

t2=$(now)
bin/bootgate-boot --board qemu-x86_64 --image "$image" --boots 4 --parallel 2 \
	--mode deterministic --out "$work/qemu" >/dev/null 2>&1
t3=$(now)
bin/bootgate-boot --board lava-qemu-x86_64 --image "$image" --boots 4 --parallel 2 \
	--mode deterministic --out "$work/lava" >"$work/lava.json" 2>/dev/null
t4=$(now)

# the reference: the same job sent by curl, two at a time, polled every second
bin/bootgate-boot --board lava-qemu-x86_64 --image "$image" --mode deterministic \
	--print-job >"$work/job.yaml"
auth() { printf 'header = "Authorization: Token %s"\n' "$(cat "$LAVA_TOKEN_FILE")"; }
submit() {
	{ auth; echo 'header = "Content-Type: application/json"'; } >"$work/curl.cfg"
	jq -Rs '{definition: .}' "$work/job.yaml" |
		curl -sS -K "$work/curl.cfg" --data-binary @- "$LAVA_URL/api/v0.2/jobs/" |
		jq -r '.job_ids[0]'
}
wait_job() {
	while ! auth | curl -sS -K - "$LAVA_URL/api/v0.2/jobs/$1/" | jq -e '.state == "Finished"' \
		>/dev/null; do
		sleep 1
	done
	auth | curl -sS -K - "$LAVA_URL/api/v0.2/jobs/$1/logs/" >"$work/ref-$1.log"
}
t5=$(now)
for pair in 1 2; do
	a=$(submit)
	b=$(submit)
	wait_job "$a"
	wait_job "$b"
done
t6=$(now)

echo
echo "LAVA on loopback: x86_64 tiny kernel, 4 boots, 2 at a time, deterministic"
printf '  %-52s %6s s\n' "lab set-up (scripts/lava-lab.sh start)" "$(secs "$t0" "$t1")"
printf '  %-52s %6s s\n' "bootgate-boot, its own QEMU" "$(secs "$t2" "$t3")"
printf '  %-52s %6s s\n' "bootgate-boot, LAVA jobs" "$(secs "$t3" "$t4")"
printf '  %-52s %6s s\n' "reference: curl sends the same job, polls each second" "$(secs "$t5" "$t6")"
printf '  LAVA job running time: %s s each\n' \
	"$(jq -r '[.boots[].wall_seconds | . * 10 | floor / 10] | join(", ")' "$work/lava.json")"
printf '  outcomes: %s\n' "$(jq -r '[.boots[].outcome] | join(" ")' "$work/lava.json")"
