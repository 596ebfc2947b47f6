#!/bin/sh
# Renders a program's --help text (stdin) as a man page (stdout), so that the page says
# what the program says: help2man.sh NAME SECTION VERSION [SEE-ALSO...]
#
# The help is read as bootgate prints it: "usage: PROGRAM ARGS", a blank line, a one-line
# summary, then options ("  -x, --long ARG   what it does", continued on lines indented
# further) and paragraphs, and last "exit: ..." (the page's EXIT STATUS).
set -eu
[ $# -ge 3 ] || { echo "usage: help2man.sh NAME SECTION VERSION [SEE-ALSO...]" >&2; exit 2; }
name=$1 section=$2 version=$3
shift 3

awk -v name="$name" -v section="$section" -v version="$version" -v see="$*" '
# roff text: backslashes kept, hyphens as minus signs, no line read as a request
function esc(s) {
	gsub(/\\/, "\\e", s)
	gsub(/-/, "\\-", s)
	if (s ~ /^[.\047]/)
		s = "\\&" s
	return s
}
# an option or argument: names bold, what they take italic
function term(s,    n, i, w, out, sep) {
	n = split(s, w, / /)
	out = ""
	for (i = 1; i <= n; i++) {
		if (w[i] == "")
			continue
		sep = ""
		if (w[i] ~ /,$/) {
			sep = ","
			sub(/,$/, "", w[i])
		}
		# a word after the name is what it takes: prose there lacks its two spaces
		if (i > 1 && w[i] ~ /^[a-z]/) {
			print "help2man.sh: " name ": \"" s "\": one space before the text" \
				> "/dev/stderr"
			bad = 1
			break
		}
		if (w[i] ~ /^-/ || w[i] ~ /^[a-z]/)
			out = out (out == "" ? "" : " ") "\\fB" esc(w[i]) "\\fR" sep
		else
			out = out (out == "" ? "" : " ") "\\fI" esc(w[i]) "\\fR" sep
	}
	return out
}
function line(s) { print s }
function header(    upper, prog, rest, cmdname) {
	upper = toupper(name)
	line(".TH " esc(upper) " " section " \"\" \"bootgate " version "\" \"bootgate manual\"")
	# option names and paths neither hyphenated nor stretched
	line(".nh")
	line(".ad l")
	line(".SH NAME")
	line(esc(name) " \\- " esc(summary))
	line(".SH SYNOPSIS")
	prog = usage; sub(/ .*/, "", prog)
	rest = usage; sub(/^[^ ]* ?/, "", rest)
	if (name ~ /^bootgate-/) {
		cmdname = substr(name, 10)
		sub(/^[^ ]* ?/, "", rest)
		prog = prog " " cmdname
	}
	line("\\fB" esc(prog) "\\fR " esc(rest))
}
NR == 1 {
	if ($0 !~ /^usage: /) {
		print "help2man.sh: " name ": the help does not start with usage:" > "/dev/stderr"
		bad = 1
		exit 1
	}
	usage = substr($0, 8)
	next
}
# the summary: the first paragraph, one line or more
state == 0 && !/^$/ { summary = summary (summary == "" ? "" : " ") $0; next }
state == 0 && summary == "" { next }
state == 0 { header(); state = 1; next }
/^$/ { para = 0; item = 0; next }
# "commands:" heads a section of its own
/^[a-z]+:$/ {
	line(".SH " toupper(substr($0, 1, length($0) - 1)))
	opts_seen = 1
	para = 1
	next
}
/^exit: / && !exit_seen {
	line(".SH EXIT STATUS")
	exit_seen = 1
	line(esc(substr($0, 7)))
	para = 1
	next
}
# an option or an argument: two spaces, then a term, then two spaces or more, or the end
item_like($0) {
	if (!opts_seen && !exit_seen) {
		line(".SH OPTIONS")
		opts_seen = 1
	}
	t = $0; sub(/^ +/, "", t)
	d = ""
	if (match(t, /   */)) {
		d = substr(t, RSTART + RLENGTH)
		t = substr(t, 1, RSTART - 1)
	}
	line(".TP")
	line(term(t))
	if (d != "")
		line(esc(d))
	item = 1
	para = 0
	next
}
# continued: the item, or the paragraph, goes on
/^ / && (item || para) {
	s = $0; sub(/^ +/, "", s)
	line(esc(s))
	next
}
{
	if (!opts_seen && !exit_seen) {
		line(".SH DESCRIPTION")
		opts_seen = 1
	}
	if (!para)
		line(".PP")
	s = $0; sub(/^ +/, "", s)
	line(esc(s))
	para = 1
	item = 0
}
function item_like(s) {
	# "  --x", "  -x, --y", "  LOG", "  FILE.bb", "  parse   what"
	return s ~ /^  (    )?-/ || s ~ /^  ([A-Z]|[a-z][a-z-]*(  |$))/
}
END {
	if (bad)
		exit 1
	if (state == 0 && summary == "") {
		print "help2man.sh: " name ": no summary after the usage line" > "/dev/stderr"
		exit 1
	}
	if (state == 0)
		header()
	n = split(see, refs, / /)
	if (n) {
		line(".SH SEE ALSO")
		out = ""
		for (i = 1; i <= n; i++) {
			r = refs[i]
			p = index(r, "(")
			out = out (i > 1 ? ",\n" : "") "\\fB" esc(substr(r, 1, p - 1)) "\\fR" substr(r, p)
		}
		line(out)
	}
}
'
