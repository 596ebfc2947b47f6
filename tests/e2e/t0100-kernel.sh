#!/bin/sh
# Real kernels: Debian's linux-source-6.1 built for x86_64, arm64 and ppc64le and booted
# under QEMU. The kernel tree, the build directories, ccache and images stay in
# $BOOTGATE_CACHE, so a second run is fast; a first run builds three kernels cold.
. "$(dirname "$0")/lib.sh"

BUILD=$ROOT/bin/bootgate-build
BOOT=$ROOT/bin/bootgate-boot
TREE=$(sh "$ROOT/scripts/kernel-repo.sh")

build() {
	"$BUILD" --tree "$TREE" "$@"
}

test_expect_success 'x86_64: master builds, into a content-addressed artifact' '
	build --commit master --board x86_64 --result master.json >out 2>err &&
	jq -e ".status == \"built\" and .arch == \"x86_64\" and (.image | test(\"/artifacts/[0-9a-f]{64}/image$\"))" master.json &&
	test -s "$(jq -r .image master.json)" &&
	test "$(sha256sum <"$(jq -r .image master.json)" | cut -c1-64)" = "$(jq -r .image_sha256 master.json)" &&
	test -s "$(jq -r .artifact master.json)/config" &&
	jq -e ".compiler | startswith(\"gcc\")" master.json
'

test_expect_success 'x86_64: three boots reach userspace, initcalls and boot.init read' '
	"$BOOT" --image "$(jq -r .image master.json)" --board x86_64 --boots 3 --out boots >sum.json 2>err &&
	jq -e "[.boots[].outcome] == [\"complete\", \"complete\", \"complete\"] and .accel == \"tcg\"" sum.json &&
	for f in boots/*.log.json; do
		jq -e "(.initcalls | length) > 150 and .milestones.init_us > 100000 and
			.milestones.userspace_us > .milestones.init_us and .outcome == \"complete\"" "$f" ||
			return 1
	done &&
	test -s boots/boot-000-A.log.times
'

test_expect_success 'a change to documentation alone: the image is its parent'"'"'s' '
	build --commit docs-only --board x86_64 >docs.json 2>err &&
	jq -e ".identical_to_parent == true" docs.json &&
	test "$(jq -r .image_sha256 docs.json)" = "$(jq -r .image_sha256 master.json)" &&
	test_grep "byte-identical to its parent" err
'

test_expect_success 'the planted mdelay(50): deterministic mode sees 50 ms with one boot each' '
	"$ROOT/bin/bootgate" measure --tree "$TREE" --commit regress-kprobe-mdelay --against master \
		--arch x86_64 --mode deterministic --boots 1 --json >det.json 2>err &&
	jq -e ".comparison.verdicts[] | select(.metric == \"initcall.init_kprobe_trace\") |
		.verdict == \"different\" and .exact and .delta > 48000 and .delta < 52000" det.json &&
	jq -r ".comparison.verdicts[] | select(.metric == \"initcall.init_kprobe_trace\") | .delta" det.json
'

test_expect_success 'the planted mdelay(50): timing mode says different' '
	"$ROOT/bin/bootgate" measure --tree "$TREE" --commit regress-kprobe-mdelay --against master \
		--arch x86_64 --mode timing --boots 10 --json >timing.json 2>err &&
	jq -e ".comparison.verdicts[] | select(.metric == \"initcall.init_kprobe_trace\") |
		.verdict == \"different\" and .delta > 40000 and .delta < 60000" timing.json
'

test_expect_success 'a commit that does not build: exit 1, and its log' '
	test_exit_code 1 build --commit broken-build --board x86_64 >broken.json 2>err &&
	jq -e ".status == \"failed\"" broken.json &&
	test_grep "does not build" err &&
	test_grep "error" "$(jq -r .log broken.json)"
'

test_expect_success 'the build sandbox: no root files, no host network' '
	secret=secret-$$-$(date +%s)
	echo "$secret" >/root/.bootgate-sandbox-secret
	python3 -c "
import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((\"127.0.0.1\", 47999)); s.listen(1); s.settimeout(240)
try:
    c, _ = s.accept(); open(\"connected\", \"w\").write(\"yes\")
except socket.timeout:
    pass
" &
	listener=$!
	sleep 1
	build --commit sandbox-probe --board x86_64 >probe.json 2>err &&
	log=$(jq -r .log probe.json) &&
	test_grep "sandbox-probe-file: cat: /root/.bootgate-sandbox-secret: No such file" "$log" &&
	test_grep "sandbox-probe-net: .*Connection refused" "$log" &&
	! grep -q "$secret" "$log" &&
	! grep -q connected-to-the-host "$log" &&
	test ! -f connected &&
	kill $listener 2>/dev/null; rm -f /root/.bootgate-sandbox-secret; true
'

test_expect_success 'the same probe without the sandbox does reach them (the probe is real)' '
	secret=secret-$$-open &&
	echo "$secret" >/root/.bootgate-sandbox-secret &&
	build --commit sandbox-probe --board x86_64 --no-sandbox >open.json 2>err &&
	grep -q "sandbox-probe-file: $secret" "$(jq -r .log open.json)" &&
	rm -f /root/.bootgate-sandbox-secret &&
	build --commit master --board x86_64 >/dev/null 2>&1
'

test_expect_success 'a kernel that never reaches init: hang after the timeout, no QEMU left' '
	mkdir -p root/lab-configs/boards &&
	cp -r "$ROOT/lab-configs/kconfig" root/lab-configs/ &&
	ln -s "$ROOT/scripts" root/scripts &&
	sed -e "s/^name: .*/name: qemu-x86_64-stopped/" -e "s/^boot_timeout: .*/boot_timeout: 6/" \
		-e "s/^qemu_args: \[/qemu_args: [-S, /" \
		"$ROOT/lab-configs/boards/qemu-x86_64.yaml" >root/lab-configs/boards/qemu-x86_64-stopped.yaml &&
	cp "$(jq -r .image master.json)" stopped-image &&
	test_exit_code 1 "$BOOT" --image stopped-image --lab root/lab-configs \
		--board qemu-x86_64-stopped --boots 1 --out hang >hang.json 2>err &&
	jq -e ".boots[0].outcome == \"hang\" and .boots[0].wall_seconds >= 6" hang.json &&
	! pgrep -f stopped-image
'

for arch in arm64 ppc64le; do
	test_expect_success "$arch: master builds and boots to userspace" '
		build --commit master --board '$arch' >'$arch'.json 2>err &&
		"$BOOT" --image "$(jq -r .image '$arch'.json)" --board '$arch' --boots 1 \
			--out '$arch'-boots >'$arch'-sum.json 2>err &&
		jq -e ".boots[0].outcome == \"complete\"" '$arch'-sum.json &&
		jq -e "(.initcalls | length) > 150 and .milestones.init_us > 0 and
			.milestones.userspace_us > 0" '$arch'-boots/boot-000-A.log.json
	'
done

test_done
