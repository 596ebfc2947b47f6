# Sourced by tests that follow a mailing list: a real public-inbox v2 inbox made with
# Debian's public-inbox tools, and mail posted into it the way a list server delivers it.
#
# public-inbox-init -V2 makes the inbox (DIR/git/0.git, one commit a message, the message
# in the file m: lore's layout); public-inbox-mda delivers one message from stdin to the
# inbox its ORIGINAL_RECIPIENT names, as the list's MTA would, with no daemon. Its spam
# check (spamc) is switched off in the inbox's own config; --no-precheck lets through the
# odd mail a test posts on purpose. PI_CONFIG and HOME stay in the scratch directory.

PI_HOME=$SCRATCH/pi-home
export PI_CONFIG="$PI_HOME/config"

# make_inbox NAME DIR: an empty public-inbox v2 inbox NAME at DIR (address NAME@lists.test)
make_inbox() {
	mkdir -p "$PI_HOME" &&
	HOME=$PI_HOME public-inbox-init -V2 "$1" "$2" "http://127.0.0.1/$1" "$1@lists.test" &&
	git config -f "$PI_CONFIG" publicinboxmda.spamcheck none
}

# post_mail NAME FILE: delivers FILE into the inbox NAME
post_mail() {
	HOME=$PI_HOME ORIGINAL_RECIPIENT="$1@lists.test" public-inbox-mda --no-precheck <"$2"
}

# inbox_epoch DIR N: the repository of epoch N of the inbox at DIR
inbox_epoch() {
	echo "$1/git/$2.git"
}

# patch_mail FILE MESSAGE-ID IN-REPLY-TO|- SUBJECT [FROM]: a patch mail in git
# send-email's shape, with a Signed-off-by and a one-file diff named after the id
patch_mail() {
	{
		echo "From: ${5:-Steven Rostedt <rostedt@goodmis.org>}"
		echo "To: lkml@lists.test"
		echo "Subject: $4"
		echo "Date: Tue, 14 Mar 2023 10:20:30 -0400"
		echo "Message-ID: <$2>"
		[ "$3" = - ] || echo "In-Reply-To: <$3>"
		[ "$3" = - ] || echo "References: <$3>"
		echo
		echo "The tracing selftest runs at boot; $2 moves it."
		echo
		echo "Signed-off-by: Steven Rostedt <rostedt@goodmis.org>"
		echo "---"
		echo " kernel/trace/$2.c | 2 +-"
		echo
		echo "diff --git a/kernel/trace/$2.c b/kernel/trace/$2.c"
		echo "--- a/kernel/trace/$2.c"
		echo "+++ b/kernel/trace/$2.c"
		echo "@@ -1 +1 @@"
		echo "-fs_initcall(x);"
		echo "+late_initcall(x);"
		echo "-- "
		echo "2.39.2"
	} >"$1"
}

# cover_mail FILE MESSAGE-ID IN-REPLY-TO|- SUBJECT: a cover letter as the seeds write them
cover_mail() {
	{
		echo "From: Steven Rostedt <rostedt@goodmis.org>"
		echo "To: lkml@lists.test"
		echo "Subject: $4"
		echo "Date: Tue, 14 Mar 2023 10:20:00 -0400"
		echo "Message-ID: <$2>"
		[ "$3" = - ] || echo "In-Reply-To: <$3>"
		echo
		echo "The kprobe event selftest takes 230 ms of boot:"
		echo
		echo "  initcall init_kprobe_trace+0x0/0xe0 returned 0 after 230080 usecs"
		echo
		echo "This series moves it out of the boot path."
		echo
		echo "Steven Rostedt (Google) (3):"
		echo "  tracing: one"
		echo
		echo "base-commit: 830b3c68c1fb1e9176028d02ef86f3cf76aa2476"
	} >"$1"
}

# reply_mail FILE MESSAGE-ID IN-REPLY-TO SUBJECT: a reviewer's answer
reply_mail() {
	printf 'From: Masami Hiramatsu <mhiramat@kernel.org>\nTo: lkml@lists.test\nSubject: %s\nDate: Tue, 14 Mar 2023 11:00:00 +0900\nMessage-ID: <%s>\nIn-Reply-To: <%s>\n\nAcked-by: Masami Hiramatsu (Google) <mhiramat@kernel.org>\n' \
		"$4" "$2" "$3" >"$1"
}
