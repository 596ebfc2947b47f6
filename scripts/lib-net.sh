# Sourced by the scripts and tests that start servers on 127.0.0.1: which ports are taken.

# listening PORT: whether a TCP socket listens on PORT (any address, IPv4 or IPv6)
listening() {
	awk -v port="$(printf ':%04X' "$1")" '$4 == "0A" && substr($2, length($2) - 4) == port \
		{ found = 1 } END { exit !found }' /proc/net/tcp /proc/net/tcp6 2>/dev/null
}

# free_port [LOW [SPAN]]: a port in LOW..LOW+SPAN-1 (default 20000..31999, below the
# ephemeral range) that nothing listens on now. Another program may still take it before
# the caller does: a server that fails to bind should be started again on another one.
# Under tests/run.sh, BOOTGATE_TEST_LANE (0, or 1 and 2 for the two sub-lanes of the
# scripts that run beside another) keeps each lane to its own third of the span (a span
# of 3 at least): two tests that run at once never pick the same port.
free_port() {
	fp_low=${1:-20000}
	fp_span=${2:-12000}
	case "${BOOTGATE_TEST_LANE:-}" in
	0 | 1 | 2)
		if [ "$fp_span" -ge 3 ]; then
			fp_span=$((fp_span / 3))
			fp_low=$((fp_low + BOOTGATE_TEST_LANE * fp_span))
		fi ;;
	esac
	while :; do
		fp=$((fp_low + $(od -An -N2 -tu2 /dev/urandom) % fp_span))
		listening "$fp" || break
	done
	echo "$fp"
}
