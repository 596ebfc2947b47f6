#!/bin/sh
# beside: t0161-perf.sh
# A LAVA board without its lab: bootgate-boot's --print-job writes the job naming the
# image and the initramfs by hash, a server that does not answer is the lab's failure
# (exit 111, every boot infra, never the configuration's exit 2), and a token that is
# not there is the configuration's (exit 2, at once). No LAVA runs here: a closed port
# on 127.0.0.1 stands for a server that is down.
. "$(dirname "$0")/lib.sh"

export BOOTGATE_CACHE=$SCRATCH/cache
LAB=$SCRATCH/lab
mkdir -p "$BOOTGATE_CACHE"
cp -R "$ROOT/lab-configs" "$LAB"
head -c 4099 /dev/urandom >"$SCRATCH/fake.img"
head -c 517 /dev/urandom >"$SCRATCH/fake.cpio"
IMG_SHA=$(sha256sum "$SCRATCH/fake.img" | cut -c1-64)
CPIO_SHA=$(sha256sum "$SCRATCH/fake.cpio" | cut -c1-64)
# a port nothing listens on: taken, then let go
DOWN=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
sed -e "s/^name: .*/name: lava-down/" -e "s|^lava_url: .*|lava_url: http://127.0.0.1:$DOWN|" \
	-e "s|^lava_token_file: .*|lava_token_env: T0152_TOKEN|" \
	-e "s/^lava_retries: .*/lava_retries: 0/" \
	"$LAB/boards/lava-qemu-x86_64.yaml" >"$LAB/boards/lava-down.yaml"

boot() {
	"$ROOT/bin/bootgate-boot" --lab "$LAB" --board lava-down --image "$SCRATCH/fake.img" \
		--initrd "$SCRATCH/fake.cpio" --boots 2 "$@"
}

test_expect_success '--print-job: the job names the image and the initramfs by hash' '
	T0152_TOKEN=t0ken boot --print-job >job.yaml 2>print.err &&
	python3 -c "import sys, yaml; d = yaml.safe_load(open(\"job.yaml\")); \
		i = d[\"actions\"][0][\"deploy\"][\"images\"]; \
		print(i[\"kernel\"][\"url\"], i[\"kernel\"][\"sha256sum\"], i[\"ramdisk\"][\"url\"])" \
		>urls &&
	echo "http://127.0.0.1:8788/artifacts/$IMG_SHA/image $IMG_SHA http://127.0.0.1:8788/artifacts/$CPIO_SHA/image" >want &&
	test_cmp want urls &&
	cmp "$SCRATCH/fake.img" "$BOOTGATE_CACHE/artifacts/$IMG_SHA/image"
'

test_expect_success 'a server that does not answer: exit 111, each boot infra' '
	T0152_TOKEN=t0ken test_exit_code 111 boot --out down >down.json 2>down.err &&
	test_jq "[.boots[].outcome] == [\"infra\", \"infra\"] and .accel == \"lava\" and
		all(.boots[]; .job_url == null and .parsed == null)" down.json &&
	test_grep "127.0.0.1:$DOWN/api/v0.2/system/whoami/" down.err &&
	test_grep "every boot is the lab'"'"'s failure" down.err &&
	! grep -q t0ken down.err
'

test_expect_success 'no token: the configuration is wrong, exit 2, nothing booted' '
	test_exit_code 2 env -u T0152_TOKEN "$ROOT/bin/bootgate-boot" --lab "$LAB" \
		--board lava-down --image "$SCRATCH/fake.img" --initrd "$SCRATCH/fake.cpio" \
		--out notoken >notoken.json 2>notoken.err &&
	test_grep "the LAVA token'"'"'s variable T0152_TOKEN is not set" notoken.err &&
	test ! -s notoken.json
'

test_expect_success '--print-job on a QEMU board: a usage error' '
	test_exit_code 2 "$ROOT/bin/bootgate-boot" --lab "$LAB" --board qemu-x86_64 \
		--image "$SCRATCH/fake.img" --initrd "$SCRATCH/fake.cpio" --print-job \
		>qemu.out 2>qemu.err &&
	test_grep "board qemu-x86_64 is not a LAVA board" qemu.err &&
	test ! -s qemu.out
'

test_done
