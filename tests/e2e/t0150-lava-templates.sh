#!/bin/sh
# The LAVA lab and the job templates, against a real LAVA server on 127.0.0.1
# (scripts/lava-lab.sh): every LAVA board's job, as bootgate-boot renders it, passes the
# server's own strict validation, and a broken one does not; the QEMU devices boot
# bootgate's own QEMU machine; a wrong token is refused; the lab's start is idempotent
# and sets a device left Unknown back to Good. No kernel is built: the images are small
# files, and a QEMU job is read for its command line, not for a boot.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/lib-lava.sh"

BOOT=$ROOT/bin/bootgate-boot
printf 'not a kernel\n' >k.img
printf 'not an initramfs\n' >rd.cpio

lava_start

# the boards of type lava in a lab directory
lava_boards() {
	for f in "$1"/boards/*.yaml; do
		grep -q '^type: lava$' "$f" && basename "$f" .yaml
	done
	return 0
}

# validate JOB-FILE: the server's answer to a strict validation of the job
validate() {
	curl -sS -m 20 --data-urlencode "definition@$1" -d strict=1 \
		"$LAVA_URL/api/v0.2/jobs/validate/"
}

test_expect_success 'the lab runs on loopback: both workers Online, both devices Good' '
	test -n "$LAVA_URL" &&
	lava_workers_online 60 &&
	sh "$LAVA_LAB" status >status.out &&
	grep -x "lava-w1 Online qemu-w1 Good" status.out &&
	grep -x "lava-w2 Online qemu-w2 Good" status.out &&
	test "$(lava_api system/version/)" = "{\"version\":\"2023.01\"}"
'

test_expect_success 'start again: a no-op naming the URL and the token file, never the token' '
	start=$(date +%s.%N) &&
	sh "$LAVA_LAB" start >again.out 2>again.err &&
	test_note "warm start: $(awk -v a=$start -v b=$(date +%s.%N) "BEGIN { printf \"%.1f s\", b - a }")" &&
	printf "LAVA_URL=%s\nLAVA_TOKEN_FILE=%s\n" "$LAVA_URL" "$LAVA_TOKEN_FILE" >expect &&
	test_cmp expect again.out &&
	! grep -F "$(cat "$LAVA_TOKEN_FILE")" again.out again.err "$SCRATCH/lava-start.out" \
		"$SCRATCH/lava-start.err" &&
	! grep started again.err &&
	test "$(stat -c %a "$LAVA_TOKEN_FILE")" = 600
'

test_expect_success 'every LAVA board renders a job that the server finds valid' '
	lava_boards "$ROOT/lab-configs" >boards &&
	test "$(wc -l <boards)" -ge 7 &&
	for b in $(cat boards); do
		"$BOOT" --board "$b" --image k.img --initrd rd.cpio --print-job >"$b.job" &&
		"$BOOT" --board "$b" --image k.img --initrd rd.cpio --mode deterministic \
			--print-job >"$b.det.job" &&
		echo "$b $(validate "$b.job") $(validate "$b.det.job")" >>answers || return 1
	done &&
	sed "s/\$/ {\"message\":\"Job valid.\"} {\"message\":\"Job valid.\"}/" boards >expect &&
	test_cmp expect answers
'

test_expect_success 'a template with a broken key is refused by the server' '
	cp -R "$ROOT/lab-configs" lab &&
	sed -i "s/^    commands: ramdisk/    command: ramdisk/" lab/lava/uboot-booti.yaml &&
	sed -i "s/^    media: tmpfs/    medium: tmpfs/" lab/lava/qemu-arm64.yaml &&
	sed -i "s/^    to: tftp/    to: tftpboot/" lab/lava/x86-ipxe.yaml &&
	for b in lava-rpi4 lava-qemu-arm64 lava-x86-pc lava-qemu-x86_64; do
		"$BOOT" --lab lab --board "$b" --image k.img --initrd rd.cpio --print-job \
			>"broken-$b.job" &&
		echo "$b $(validate "broken-$b.job")" >>broken || return 1
	done &&
	cat >expect <<-\EOF &&
	lava-rpi4 {"message":"Job invalid: extra keys not allowed"}
	lava-qemu-arm64 {"message":"Job invalid: extra keys not allowed"}
	lava-x86-pc {"message":"Job invalid: unknown action type"}
	lava-qemu-x86_64 {"message":"Job valid."}
	EOF
	test_cmp expect broken
'

# LAVA lets anyone read public jobs: a token is needed to submit, and a wrong one is
# refused whatever the request
test_expect_success 'a wrong token is refused with 403, reading or submitting; none cannot submit' '
	"$BOOT" --board lava-qemu-x86_64 --image k.img --initrd rd.cpio --print-job >job &&
	code=$(curl -sS -o wrong.body -w "%{http_code}" -H "Authorization: Token wrong-token" \
		"$LAVA_URL/api/v0.2/jobs/") &&
	test "$code" = 403 &&
	test "$(cat wrong.body)" = "{\"detail\":\"Invalid token.\"}" &&
	code=$(curl -sS -o wrong-post.body -w "%{http_code}" -H "Authorization: Token wrong-token" \
		--data-urlencode definition@job "$LAVA_URL/api/v0.2/jobs/") &&
	test "$code" = 403 &&
	test "$(cat wrong-post.body)" = "{\"detail\":\"Invalid token.\"}" &&
	code=$(curl -sS -o none.body -w "%{http_code}" --data-urlencode \
		definition@job "$LAVA_URL/api/v0.2/jobs/") &&
	test "$code" = 403 &&
	test "$(cat none.body)" = "{\"detail\":\"Authentication credentials were not provided.\"}" &&
	code=$(lava_api "jobs/?limit=1" -o right.body -w "%{http_code}") &&
	test "$code" = 200 &&
	test "$(lava_field "$(lava_api system/whoami/)" user)" = admin
'

# submit JOB-FILE: the id of the job the server took, the artifact URLs made file://
# paths of this directory (the workers run on this host)
submit() {
	sed "s|http://127.0.0.1:8788/artifacts/$(sha256sum k.img | cut -c1-64)/image|file://$SCRATCH/k.img|
	     s|http://127.0.0.1:8788/artifacts/$(sha256sum rd.cpio | cut -c1-64)/image|file://$SCRATCH/rd.cpio|" \
		"$1" >"$1.local" &&
	lava_submit "$1.local"
}

# boot_command ID: the QEMU command line the dispatcher ran (its job directory as DIR,
# blanks folded), as soon as the log has it; the job is then cancelled, since these
# images boot nothing (QEMU stops at once on some arches: the job is then Incomplete)
boot_command() {
	lava_job=$1
	lava_until 240 "no Boot command in the log of job $1" \
		'lava_api "jobs/$lava_job/logs/" >"log.$lava_job" 2>/dev/null &&
		 grep -q "Boot command: " "log.$lava_job"' &&
	lava_api "jobs/$1/cancel/" >/dev/null &&
	sed -n "s/.*\"msg\": \"Boot command: \(.*\)\"}\$/\1/p" "log.$1" |
		sed "s|/var/lib/lava/dispatcher/tmp/[0-9]*/deployimages-[^/]*/|DIR/|g; s/\\\\\"/\"/g" |
		tr -s " "
}

test_expect_success 'the QEMU devices run the machine of the qemu-* boards: no NIC, -no-reboot, TCG' '
	"$BOOT" --board lava-qemu-x86_64 --image k.img --initrd rd.cpio --mode deterministic \
		--print-job >x86.job &&
	"$BOOT" --board lava-qemu-arm64 --image k.img --initrd rd.cpio --print-job >arm.job &&
	"$BOOT" --board lava-qemu-ppc64le --image k.img --initrd rd.cpio --print-job >ppc.job &&
	x86=$(submit x86.job) &&
	arm=$(submit arm.job) &&
	ppc=$(submit ppc.job) &&
	test -n "$x86" && test -n "$arm" && test -n "$ppc" &&
	boot_command "$x86" >got.x86 &&
	boot_command "$arm" >got.arm &&
	boot_command "$ppc" >got.ppc &&
	cmd="console=ttyS0 initcall_debug loglevel=8 printk.time=1 panic=-1 log_buf_len=1M" &&
	echo "/usr/bin/qemu-system-x86_64 -machine pc -m 512 -nographic -no-reboot -nic none -monitor none -accel tcg -kernel DIR/kernel/k.img -append \"$cmd bootgate.reboot=1\" -icount shift=3,sleep=off,align=off -rtc clock=vm -initrd DIR/ramdisk/rd.cpio" >expect.x86 &&
	test_cmp expect.x86 got.x86 &&
	cmd="console=ttyAMA0 initcall_debug loglevel=8 printk.time=1 panic=-1 log_buf_len=1M" &&
	echo "/usr/bin/qemu-system-aarch64 -machine virt -cpu cortex-a57 -m 512 -nographic -no-reboot -nic none -monitor none -accel tcg -kernel DIR/kernel/k.img -append \"$cmd\" -initrd DIR/ramdisk/rd.cpio" >expect.arm &&
	test_cmp expect.arm got.arm &&
	cmd="console=hvc0 initcall_debug loglevel=8 printk.time=1 panic=-1 log_buf_len=1M" &&
	echo "/usr/bin/qemu-system-ppc64 -machine pseries,x-vof=on,usb=off,cap-cfpc=broken,cap-sbbc=broken,cap-ibs=broken,cap-ccf-assist=off -m 512 -nographic -no-reboot -nodefaults -serial mon:stdio -accel tcg -kernel DIR/kernel/k.img -append \"$cmd\" -initrd DIR/ramdisk/rd.cpio" >expect.ppc &&
	test_cmp expect.ppc got.ppc &&
	for id in $x86 $arm $ppc; do
		health=$(lava_wait_job "$id" 60) &&
		case "$health" in Canceled | Incomplete) ;; *) return 1 ;; esac || return 1
	done
'

test_expect_success 'start sets a device left Unknown back to Good' '
	/usr/bin/lava-server manage devices update --health UNKNOWN qemu-w1 &&
	test "$(lava_field "$(lava_api devices/qemu-w1/)" health)" = Unknown &&
	sh "$LAVA_LAB" start >reset.out 2>reset.err &&
	grep "qemu-w1 was Unknown: set to Good" reset.err &&
	test "$(lava_field "$(lava_api devices/qemu-w1/)" health)" = Good &&
	test "$(lava_field "$(lava_api devices/qemu-w2/)" health)" = Good
'

test_expect_success 'lava-lab.sh refuses a bad port, a bad token and an unknown command' '
	LAVA_PORT=80x test_exit_code 2 sh "$LAVA_LAB" status 2>port.err &&
	grep -F "LAVA_PORT is a port number, 1 to 65533, not" port.err &&
	grep -F 80x port.err &&
	LAVA_PORT=70000 test_exit_code 2 sh "$LAVA_LAB" start 2>port2.err &&
	grep -F 70000 port2.err &&
	LAVA_TOKEN="a\"b" test_exit_code 2 sh "$LAVA_LAB" start 2>token.err &&
	grep -F "LAVA_TOKEN takes letters, digits" token.err &&
	test_exit_code 2 sh "$LAVA_LAB" restart 2>usage.err &&
	grep -F "usage: scripts/lava-lab.sh start|stop|status" usage.err
'

test_done
