#!/bin/sh
# make install into a DESTDIR: the programs, the man pages (each rendered without a
# warning, each showing every word of its program's --help), bootgated.service
# (systemd-analyze verify), the example configuration under /etc/bootgate (an edited
# file kept by a second install), the installed bootgated -n on it, as the unit
# starts it, a DESTDIR with blanks, and a PREFIX the unit cannot name refused.
. "$(dirname "$0")/lib.sh"

D=$SCRATCH/dest
P=$D/usr/local
UNIT=$P/lib/systemd/system/bootgated.service
install_() {
	make -s --no-print-directory -C "$ROOT" install DESTDIR="$D" PREFIX=/usr/local \
		SYSCONFDIR=/etc >"$SCRATCH/install.log" 2>&1 ||
		{ cat "$SCRATCH/install.log" >&2; return 1; }
}
# words: each word of standard input, without the punctuation at its ends, once
words() {
	tr -s " \t" "\n\n" | sed "s/^[^[:alnum:]-]*//; s/[^[:alnum:]]*$//" | sed "/^$/d" |
		sort -u
}
# the unit's ExecStart with its absolute paths taken into the DESTDIR
exec_start() {
	sed -n 's/^ExecStart=//p' "$UNIT" | sed "s| /| $D/|g; s|^/|$D/|"
}

test_expect_success 'make install DESTDIR= installs every file' '
	install_ &&
	for f in bin/bootgate bin/bootgated bin/bootgate-build bin/bootgate-boot; do
		test -x "$P/$f" || { echo "no $P/$f" >&2; exit 1; }
	done &&
	test -f "$P/share/man/man1/bootgate.1" &&
	test -f "$P/share/man/man8/bootgated.8" &&
	test -f "$P/share/man/man5/bootgate.yaml.5" &&
	test -f "$P/lib/sysusers.d/bootgate.conf" &&
	test -f "$P/lib/tmpfiles.d/bootgate.conf" &&
	test -f "$UNIT" &&
	# the webhook secret: random, for root alone until tmpfiles.d gives it to the group
	test "$(stat -c %a "$D/etc/bootgate/webhook.secret")" = 600 &&
	grep -qxE "[0-9a-f]{64}" "$D/etc/bootgate/webhook.secret" &&
	for f in bootgate.yaml boards/qemu-x86_64.yaml kconfig/common.config \
		lava/qemu-x86_64.yaml; do
		cmp "$ROOT/lab-configs/$f" "$D/etc/bootgate/$f"
	done &&
	"$P/bin/bootgate" help | sed -n "s/^  \([a-z][a-z-]*\)  .*/\1/p" >cmds &&
	test "$(wc -l <cmds)" -ge 20 &&
	while read -r c; do
		test -f "$P/share/man/man1/bootgate-$c.1" || { echo "no page of $c" >&2; exit 1; }
	done <cmds
'

test_expect_success 'the unit and its user pass systemd-analyze verify and systemd-sysusers' '
	grep -qx "ExecStart=/usr/local/bin/bootgated -f /etc/bootgate/bootgate.yaml --lab /etc/bootgate" "$UNIT" &&
	sed "s|^ExecStart=/usr/local/|ExecStart=$P/|" "$UNIT" >bootgated.service &&
	{ MANPATH=$P/share/man systemd-analyze verify bootgated.service 2>&1; echo "exit $?"; } \
		>verify.out &&
	echo "exit 0" >want &&
	test_cmp want verify.out &&
	systemd-sysusers --root="$D" --dry-run "$P/lib/sysusers.d/bootgate.conf" >users 2>&1 &&
	test_grep "Creating user .bootgate." users &&
	test ! -e "$D/etc/passwd"
'

test_expect_success 'each page renders without a warning and shows every word of its help' '
	for page in "$P"/share/man/man1/*.1 "$P"/share/man/man5/*.5 "$P"/share/man/man8/*.8; do
		name=$(basename "$page" | sed "s/\.[158]$//")
		# each step ends the case itself: a loop goes on after a failed && chain
		{ MANWIDTH=80 man --warnings -l "$page" 2>warn >"$name.txt" &&
			test_cmp /dev/null warn; } || { echo "$page: warnings" >&2; exit 1; }
		case $name in
		bootgate.yaml) continue ;;
		bootgated) "$P/bin/bootgated" --help ;;
		bootgate) "$P/bin/bootgate" help ;;
		*) "$P/bin/bootgate" "${name#bootgate-}" --help ;;
		esac >help.txt || { echo "$name: --help failed" >&2; exit 1; }
		# every word of the help, options and prose, is on the page; "usage:" and
		# "exit:" are its SYNOPSIS and EXIT STATUS
		words <help.txt >help.words && words <"$name.txt" >page.words &&
		comm -23 help.words page.words | sed "/^usage$/d; /^exit$/d" >lost &&
		{ test ! -s lost ||
			{ sed "s/^/$name: in --help, not in the page: /" lost >&2; exit 1; }; }
	done &&
	# what the loop read: the pages as text, the words of the help
	grep -q -- "--no-confirm" bootgate-bisect.txt &&
	grep -q "lava_url" bootgate.yaml.txt &&
	grep -qx -- "-n" help.words &&
	grep -qx "reloads" help.words
'

test_expect_success 'the installed bootgated -n reads the installed example, as the unit runs it' '
	# the example names its secret under /etc/bootgate: here, the one in the DESTDIR
	sed "s|/etc/bootgate/|$D/etc/bootgate/|" "$D/etc/bootgate/bootgate.yaml" >example.yaml &&
	{ $(exec_start | sed "s|-f [^ ]*|-f example.yaml|") -n >out 2>err; echo $? >rc; } &&
	case $(cat rc) in
	0) test_grep "3 trees, ok" out ;;
	*) cat err >&2; false ;;
	esac
'

test_expect_success 'sysusers and tmpfiles, run into the DESTDIR, give the secret to the group' '
	systemd-sysusers --root="$D" "$P/lib/sysusers.d/bootgate.conf" &&
	systemd-tmpfiles --root="$D" --create "$P/lib/tmpfiles.d/bootgate.conf" &&
	gid=$(awk -F: "\$1 == \"bootgate\" { print \$3 }" "$D/etc/group") &&
	test -n "$gid" &&
	test "$(stat -c "%a %u %g" "$D/etc/bootgate/webhook.secret")" = "640 0 $gid" &&
	rm -f "$D"/etc/passwd* "$D"/etc/group* "$D"/etc/shadow* "$D"/etc/gshadow* \
		"$D"/etc/.pwd.lock
'

test_expect_success 'a second install keeps an edited configuration; -n then passes' '
	git init -q --bare linux.git &&
	printf "secret-%s\n" 0123456789abcdef0123456789abcdef >webhook.secret &&
	chmod 600 webhook.secret &&
	sed -i -e "s|/etc/bootgate/webhook.secret|$SCRATCH/webhook.secret|" \
		-e "s|/var/cache/bootgate/trees/linux|$SCRATCH/linux.git|" \
		"$D/etc/bootgate/bootgate.yaml" &&
	echo "# edited" >>"$D/etc/bootgate/boards/qemu-x86_64.yaml" &&
	cp "$D/etc/bootgate/bootgate.yaml" edited.yaml &&
	install_ &&
	test_cmp edited.yaml "$D/etc/bootgate/bootgate.yaml" &&
	tail -1 "$D/etc/bootgate/boards/qemu-x86_64.yaml" >last &&
	echo "# edited" >want && test_cmp want last &&
	test_grep "kept $D/etc/bootgate/bootgate.yaml" "$SCRATCH/install.log" &&
	$(exec_start) -n >out &&
	cat >want <<-EOF &&
	$D/etc/bootgate/bootgate.yaml: 3 trees, ok
	  tracing: gated on qemu-x86_64 qemu-arm64
	  printk: gated on qemu-x86_64
	  perf: gated on qemu-x86_64
	EOF
	test_cmp want out
'

test_expect_success 'a DESTDIR with spaces is installed into whole; an odd PREFIX is refused' '
	S="$SCRATCH/with space" &&
	make -s --no-print-directory -C "$ROOT" install DESTDIR="$S" PREFIX=/usr/local \
		SYSCONFDIR=/etc >log 2>&1 &&
	test -x "$S/usr/local/bin/bootgate" &&
	test -f "$S/usr/local/share/man/man1/bootgate-bisect.1" &&
	test -f "$S/usr/local/lib/systemd/system/bootgated.service" &&
	cmp "$ROOT/lab-configs/bootgate.yaml" "$S/etc/bootgate/bootgate.yaml" &&
	test ! -e "$ROOT/space" &&
	# the unit names PREFIX and SYSCONFDIR: sed reads "&" as its match, systemd splits
	# a path at a blank and reads "%" as a specifier
	for p in "/opt/a&b" "/opt/a b" "/opt/50%"; do
		test_exit_code 2 make -s --no-print-directory -C "$ROOT" install \
			DESTDIR="$SCRATCH/odd" PREFIX="$p" >log 2>&1 &&
		test_grep "PREFIX and SYSCONFDIR may hold only" log &&
		test ! -e "$SCRATCH/odd" || exit 1
	done
'

test_expect_success 'make uninstall leaves /etc/bootgate alone, and nothing else' '
	install_ &&
	test -x "$P/share/bootgate/scripts/post-receive" &&
	make -s --no-print-directory -C "$ROOT" uninstall DESTDIR="$D" PREFIX=/usr/local \
		>uninstall.log 2>&1 &&
	find "$D" -type f | sed -e "s|^$D||" -e "\|^/etc/bootgate/|d" >left &&
	test_cmp /dev/null left &&
	test -s "$D/etc/bootgate/bootgate.yaml" &&
	test -s "$D/etc/bootgate/webhook.secret"
'

test_done
