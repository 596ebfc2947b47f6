#!/bin/sh
# beside: t0165-demo.sh
# A soak of continuous gating on bootgated (lib-load.sh): for BOOTGATE_SOAK_SECONDS
# (default 60; make soak runs 600), a push and a trigger every second to one of its three
# trees, the daemon's memory (VmRSS) and descriptors sampled every second (every 5 s in
# soaks of 300 s or more): no growth. The growth allowed is in proportion to the length,
# 1 MiB in 600 s, 256 KiB at least: between its first and last quarters (some 40 of the
# 55 gates of make check's 60 s, 375 of the 500 of make soak's 600) a leak of about 6 KiB a
# gate fails the short soak, one of about 3 KiB the long one. It mostly waits, so tests/run.sh
# runs it beside t0165-demo, which mostly boots on one core (the "beside:" line).
# the length first: lib-load.sh starts a git daemon when it is read
SOAK=${BOOTGATE_SOAK_SECONDS-60}
case "$SOAK" in
[1-9][0-9] | [1-9][0-9][0-9] | [1-9][0-9][0-9][0-9] | [1-9][0-9][0-9][0-9][0-9]) ;;
*)	echo "t0186-soak: BOOTGATE_SOAK_SECONDS wants seconds from 10 to 99999, not '$SOAK'" >&2
	exit 2 ;;
esac
EVERY=$((SOAK >= 300 ? 5 : 1))
# KiB of VmRSS the last quarter may hold over the first
GROWTH=$((SOAK * 1024 / 600 > 256 ? SOAK * 1024 / 600 : 256))
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/lib-load.sh"

test_expect_success 'started: each tree fetched and its first tip gated' '
	start_daemon &&
	wait_for 60 "[ \"\$(q \"SELECT count(*) FROM jobs WHERE state = '"'done'"'\")\" = 3 ]"
'

test_expect_success "a soak of $SOAK s of continuous gating: RSS and descriptors flat" '
	idle0=$(fds_idle) &&
	done0=$(q "SELECT count(*) FROM jobs WHERE state = '"'done'"'") &&
	sample "$SCRATCH/rss3" "$EVERY" &&
	end=$(($(date +%s) + SOAK)) &&
	n=0 &&
	while [ "$(date +%s)" -lt "$end" ]; do
		n=$((n + 1)) &&
		t=load-$(echo a b c | cut -d" " -f$((n % 3 + 1))) &&
		git -C "$SCRATCH/work/$t" -c user.name=t -c user.email=t@localhost \
			commit -q --allow-empty -m "soak $n" &&
		git -C "$SCRATCH/work/$t" push -q origin HEAD:refs/heads/for-next &&
		"$BOOTGATE" trigger --socket "$SOCK" "$t" >/dev/null &&
		sleep 1 || return 1
	done &&
	sleep 10 &&
	stop_sample "$SCRATCH/rss3" &&
	idle1=$(fds_idle) &&
	gated=$(($(q "SELECT count(*) FROM jobs WHERE state = '"'done'"'") - done0)) &&
	set -- $(quarters "$SCRATCH/rss3") &&
	fds=$(awk "{ print \$2 }" "$SCRATCH/rss3" | sort -n | uniq -c | tr -s " \n" " ") &&
	most=$(awk "{ print \$2 }" "$SCRATCH/rss3" | sort -n | tail -1) &&
	test_note "$n pushes, $gated gates in $SOAK s; VmRSS KiB first-quarter max $1, last-quarter max $2 (allowed +$GROWTH); descriptors idle before $idle0, after $idle1; during (count value): $fds" &&
	test "$gated" -ge $((SOAK / 10)) &&
	test "$2" -le $(($1 + GROWTH)) &&
	test "$idle1" -le "$idle0" &&
	test "$most" -le $((idle0 + 8))
'

test_expect_success 'the store is sound after it all' '
	test "$(q "PRAGMA integrity_check")" = ok &&
	stop_daemon
'

test_done
