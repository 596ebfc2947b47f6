#!/bin/sh
# Series assembly from a 10 000-message inbox: `bootgate inbox` reading a public-inbox v2
# mirror in lore's layout (DIR/git/0.git, one commit a message, the message in the file m)
# into its store, beside git log over the same repository (walking the commits alone, and
# with every message's text). The inbox is written with git fast-import, not
# public-inbox-mda (which takes over a second a message here): 1 800 series of a cover
# letter and three patches threaded as git send-email threads them, every ninth a v2 of
# the one before, and 2 800 replies between them. Kept in $BOOTGATE_CACHE/bench.
# Prints figures; never fails on them.
set -eu
cd "$(dirname "$0")/.."
root=$(pwd)
cache=${BOOTGATE_CACHE:-/var/cache/bootgate}/bench
inbox=$cache/inbox-10000
work=$(mktemp -d "${TMPDIR:-/tmp}/bootgate-bench-inbox.XXXXXX")
trap 'rm -rf "$work"' EXIT
now() { date +%s.%N; }
ms() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.0f", (b - a) * 1000 }'; }

if [ ! -f "$inbox/.complete" ]; then
	rm -rf "$inbox"
	mkdir -p "$inbox/git"
	git init -q --bare "$inbox/git/0.git"
	git -C "$inbox/git/0.git" symbolic-ref HEAD refs/heads/master
	python3 - <<'PY' | git -C "$inbox/git/0.git" fast-import --quiet
import sys
out = sys.stdout.buffer
t = 1678800000
def commit(subject, msg):
    global t
    t += 7
    msg = msg.encode()
    subj = subject.encode()
    out.write(b"commit refs/heads/master\n")
    out.write(b"author A U Thor <a@example.org> %d +0000\n" % t)
    out.write(b"committer public-inbox <pi@example.org> %d +0000\n" % t)
    out.write(b"data %d\n%s\n" % (len(subj), subj))
    out.write(b"M 100644 inline m\ndata %d\n%s\n" % (len(msg), msg))
def mail(mid, subject, reply=None, body="x\n", who="Dev%d <dev%d@example.org>"):
    h = "From: %s\nSubject: %s\nMessage-ID: <%s>\nDate: Tue, 14 Mar 2023 10:20:30 +0000\n" % (
        who, subject, mid)
    if reply:
        h += "In-Reply-To: <%s>\nReferences: <%s>\n" % (reply, reply)
    commit(subject, h + "\n" + body)
n = 0
for s in range(1800):
    v = 2 if s % 9 == 8 else 1
    base = s - 1 if v == 2 else s
    who = "Dev%d <dev%d@example.org>" % (base % 50, base % 50)
    tag = "PATCH v2" if v == 2 else "PATCH"
    title = "subsys%d: change number %d" % (base % 40, base)
    cover = "c%d.v%d@example.org" % (base, v)
    mail(cover, "[%s 0/3] %s" % (tag, title), None, "cover\n\nbase-commit: %s\n" % ("a" * 40), who)
    n += 1
    for i in range(1, 4):
        diff = ("change\n\nSigned-off-by: %s\n---\ndiff --git a/f%d b/f%d\n--- a/f%d\n+++ b/f%d\n"
                "@@ -1 +1 @@\n-a\n+b\n" % (who, i, i, i, i))
        mail("p%d.%d.v%d@example.org" % (base, i, v), "[%s %d/3] subsys: part %d" % (tag, i, i),
             cover, diff, who)
        n += 1
        if n < 10000 and (s * 3 + i) % 27 < 14:
            mail("r%d.%d.v%d@example.org" % (base, i, v), "Re: [%s %d/3] subsys: part %d" % (tag, i, i),
                 "p%d.%d.v%d@example.org" % (base, i, v), "> change\n\nLooks fine.\n",
                 "Reviewer <rev@example.org>")
            n += 1
while n < 10000:
    mail("x%d@example.org" % n, "Re: a discussion", "c0.v1@example.org", "more\n",
         "Reviewer <rev@example.org>")
    n += 1
PY
	touch "$inbox/.complete"
fi
epoch=$inbox/git/0.git
msgs=$(git -C "$epoch" rev-list --count HEAD)
cat >"$work/conf.yaml" <<EOC
state: $work/state
trees:
  - name: bench
    url: git://127.0.0.1/none.git
    branch: master
    arches: [x86_64]
inboxes:
  - name: bench
    path: $inbox
    tree: bench
EOC
echo "inbox: $msgs messages in $inbox (git fast-import, lore's v2 layout)"

t0=$(now)
git -C "$epoch" log --format=%H >/dev/null
t1=$(now)
git -C "$epoch" log -p --format=%H >/dev/null
t2=$(now)
"$root/bin/bootgate" inbox --config "$work/conf.yaml" --db "$work/b.db" --json >"$work/out.json"
t3=$(now)
"$root/bin/bootgate" inbox --config "$work/conf.yaml" --db "$work/b.db" --json >"$work/again.json"
t4=$(now)
made=$(jq '.inboxes[0].series | length' "$work/out.json")
sup=$(jq '.inboxes[0].superseded' "$work/out.json")
pat=$(jq '.inboxes[0].patches' "$work/out.json")
rep=$(jq '.inboxes[0].replies' "$work/out.json")
printf '  %-46s %7s ms\n' "git log (walk the commits)" "$(ms "$t0" "$t1")"
printf '  %-46s %7s ms\n' "git log -p (every message's text)" "$(ms "$t1" "$t2")"
printf '  %-46s %7s ms   %s series, %s superseded, %s patches, %s replies\n' \
	"bootgate inbox (read, store, assemble, queue)" "$(ms "$t2" "$t3")" "$made" "$sup" "$pat" "$rep"
printf '  %-46s %7s ms   %s messages read again\n' "bootgate inbox again (nothing new)" \
	"$(ms "$t3" "$t4")" "$(jq '.inboxes[0].messages' "$work/again.json")"
awk -v a="$(ms "$t1" "$t2")" -v b="$(ms "$t2" "$t3")" \
	'BEGIN { if (a > 0) printf "  bootgate inbox / git log -p: %.1fx\n", b / a }'
