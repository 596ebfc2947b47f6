#!/bin/sh
# The soak of continuous gating at its full length (tests/e2e/t0186-soak.sh with
# BOOTGATE_SOAK_SECONDS, 600 by default: make check runs it for 60 s): a push and a
# trigger every second to one of bootgated's three trees, its memory and descriptors
# sampled. Prints the pushes, the gates and the figures of the first quarter of the run
# beside those of the last: the reference is the run's own start. It fails only when the
# soak's own checks do (memory grown past its bound, descriptors not back to idle), never
# on a time.
set -eu
cd "$(dirname "$0")/.."
secs=${BOOTGATE_SOAK_SECONDS:-600}
out=$(mktemp "${TMPDIR:-/tmp}/bootgate-bench-soak.XXXXXX")
trap 'rm -f "$out"' EXIT
rc=0
BOOTGATE_SOAK_SECONDS=$secs sh tests/run.sh e2e tests/e2e/t0186-soak.sh >"$out" 2>&1 || rc=$?
[ "$rc" = 0 ] || { tail -30 "$out"; exit "$rc"; }
echo "soak: $secs s of continuous gating (tests/e2e/t0186-soak.sh)"
grep -E '^(ok|not ok) |^#   ' "$out" | sed 's/^/soak: /'
