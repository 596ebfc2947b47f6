#!/bin/sh
# beside: t0150-lava-templates.sh
# bootgate series fed what a tired maintainer or an attacker would: mails without a
# Message-Id (as git format-patch writes them without --thread), a diff that names a path
# outside the tree, absurd numbers. A small repository stands in for the tree; none of
# these patches applies, so nothing is built.
. "$(dirname "$0")/lib.sh"

export BOOTGATE_STATE=$SCRATCH/state BOOTGATE_CACHE=$SCRATCH/cache

git init -q small &&
	echo one >small/a.c &&
	git -C small add a.c &&
	git -C small -c user.name=t -c user.email=t@localhost commit -q -m first

# patch SUBJECT PATH: one mail without a Message-Id adding PATH to the tree
patch() {
	cat <<EOF
From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001
From: Some One <some@example.org>
Date: Tue, 1 Dec 2026 18:31:49 +0000
Subject: [PATCH 1/1] $1

---
diff --git a/$2 b/$2
new file mode 100644
index 0000000..814f4a4
--- /dev/null
+++ b/$2
@@ -0,0 +1 @@
+text
-- 
2.39.5
EOF
}

test_expect_success 'two series without a Message-Id are two series, each with its own result' '
	patch "first series" ../escape.c >one.mbox &&
	patch "second series" .git/config >two.mbox &&
	test_exit_code 1 bootgate series --tree small --arch x86_64 --db s.db --json one.mbox \
		>one.json 2>err &&
	test_exit_code 1 bootgate series --tree small --arch x86_64 --db s.db --json two.mbox \
		>two.json 2>err &&
	test_jq ".subject == \"[PATCH 1/1] second series\" and
		(.patches[0].error | test(\"\\\\.git/config\"))" two.json &&
	test "$(sqlite3 s.db "SELECT count(*) FROM series")" = 2 &&
	# the same mails again are the same series, not a third
	test_exit_code 1 bootgate series --tree small --arch x86_64 --db s.db one.mbox 2>err &&
	test_grep "series 1, already in the store" err &&
	test "$(sqlite3 s.db "SELECT count(*) FROM series")" = 2
'

test_expect_success 'a diff naming a path outside the tree does not apply, and writes nothing' '
	test_jq ".state == \"failed\" and (.patches[0].error |
		test(\"patch 1/1 does not apply: ../escape.c\"))" one.json &&
	test ! -e escape.c && test ! -e small/escape.c &&
	test "$(sqlite3 s.db "SELECT count(*) FROM builds")" = 0
'

test_expect_success 'absurd numbering is named, with its line' '
	patch "x" a.c | sed "s|\[PATCH 1/1\]|[PATCH 0/0]|" >zero.mbox &&
	test_exit_code 1 bootgate series --tree small --arch x86_64 --db s.db zero.mbox 2>err &&
	test_grep "zero.mbox:4: patch 0/0: a series of 1 to 999 patches" err &&
	patch "x" a.c | sed "s|\[PATCH 1/1\]|[PATCH v99999999999 1/1]|" >v.mbox &&
	test_exit_code 1 bootgate series --tree small --arch x86_64 --db s.db v.mbox 2>err &&
	test_grep "v.mbox:4: version v99999999999 is not from 1 to 999" err
'

test_expect_success 'a series id the store does not hold: named, exit 1, nothing run' '
	test_exit_code 1 bootgate series --id 99 --tree small --arch x86_64 --db s.db 2>err &&
	test_grep "series 99 does not exist" err &&
	test_exit_code 2 bootgate series --id abc --tree small --arch x86_64 --db s.db 2>err &&
	test "$(sqlite3 s.db "SELECT count(*) FROM jobs")" = 0
'

test_expect_success 'a negative patch number is refused at its line' '
	patch "a" a.c | sed "s|\[PATCH 1/1\]|[PATCH -1/2]|" >neg.mbox &&
	test_exit_code 1 bootgate series --tree small --arch x86_64 --db s.db neg.mbox 2>err &&
	test_grep "^bootgate: error: neg.mbox:4: patch -1/2: a series of 1 to 999 patches$" err
'

test_expect_success 'what the series leaves out of the file is a warning at its line' '
	{
		patch "one" ../b.c | sed "s|1/1|1/2|" && echo &&
		patch "one again" ../c.c | sed "s|1/1|1/2|; s|^---$|base-commit: ../../etc/passwd\n---|" &&
		echo && patch "two" ../d.c | sed "s|1/1|2/2|" && echo &&
		patch "three" ../e.c | sed "s|1/1|3/2|"
	} >left.mbox &&
	test_exit_code 1 bootgate series --tree small --arch x86_64 --db s.db left.mbox >out 2>err &&
	test_grep "^bootgate: warning: left.mbox:2: another patch 1/2 (the one at line 18 is taken): left out$" err &&
	test_grep "^bootgate: warning: left.mbox:22: base-commit .../../etc/passwd. is no commit id" err &&
	test_grep "^bootgate: warning: left.mbox:51: patch 3/2 is past the series. end: left out$" err &&
	test "$(sqlite3 s.db "SELECT count(*) FROM builds")" = 0
'

test_expect_success 'an mbox that is not there: an error, not a warning' '
	test_exit_code 1 bootgate series --tree small --arch x86_64 --db s.db nonexist.mbox 2>err &&
	test_grep "^bootgate: error: .*nonexist.mbox" err &&
	! test_grep "warning" err
'

test_done
