#!/bin/sh
# beside: t0110-service.sh
# bootgate export: a real store (SQLite, the project's migrations, rows inserted as the
# service writes them, the shipped consoles) as KCIDB v5.3, checked by Debian's
# python3-jsonschema against tests/fixtures/kcidb/v05_03-subset.schema.json (and against
# kcidb-io's own, ../shared/fixtures/real/kcidb/v05_03.schema.json, when that is there), and
# as boot-data files of the boot-time wizard that bootgate parse reads back.
. "$(dirname "$0")/lib.sh"

SCHEMA=$FIXTURES/kcidb/v05_03-subset.schema.json
REAL_SCHEMA=$ROOT/../shared/fixtures/real/kcidb/v05_03.schema.json
BASE=1111111111111111111111111111111111111111
TIP=2222222222222222222222222222222222222222
PATCH=3333333333333333333333333333333333333333
PSET=903638c087335b10293663c682b9aa0076f9f7be478a8e7828bc22e12d301b42

# Debian's python3 with Debian's jsonschema (a python3 earlier on PATH may have none)
PYTHON=/usr/bin/python3

# kcidb_validate DOC [SCHEMA]: every error as "where: why" on stdout, exit 1 when there is
# one. Debian 12's jsonschema has no checker of "date-time" (it takes any string): RFC 3339
# is checked here, by its form and by Python's own reading of it.
kcidb_validate() {
	"$PYTHON" -c '
import datetime, json, re, sys
import jsonschema
schema = json.load(open(sys.argv[1]))
doc = json.load(open(sys.argv[2]))
formats = jsonschema.FormatChecker()
RFC3339 = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})", re.I)
@formats.checks("date-time", raises=ValueError)
def date_time(s):
    if not isinstance(s, str):
        return True
    return bool(RFC3339.fullmatch(s)) and datetime.datetime.fromisoformat(s).tzinfo is not None
jsonschema.Draft202012Validator.check_schema(schema)
v = jsonschema.Draft202012Validator(schema, format_checker=formats)
errors = sorted(v.iter_errors(doc), key=lambda e: list(map(str, e.absolute_path)))
for e in errors:
    print("/".join(map(str, e.absolute_path)) + ": " + e.message)
sys.exit(1 if errors else 0)
' "${2:-$SCHEMA}" "$1"
}

# kcidb_errors DOC [SCHEMA]: the errors alone, for counting them (exit 0)
kcidb_errors() {
	kcidb_validate "$@" || :
}

sql() {
	sqlite3 -batch -noheader db "$1"
}

# A store made by the project's own migrations, as bootgated makes it.
make_store() {
	rm -f db &&
	for f in "$ROOT"/schemas/[0-9][0-9][0-9]-*.sql; do cat "$f"; done | sqlite3 db &&
	sql "PRAGMA user_version = $(ls "$ROOT"/schemas/[0-9][0-9][0-9]-*.sql | wc -l)" &&
	mkdir -p consoles &&
	cp "$FIXTURES"/bootlogs/x86_64-tiny-baseline-run1.log \
		"$FIXTURES"/bootlogs/x86_64-tiny-baseline-run2.log \
		"$FIXTURES"/bootlogs/x86_64-tiny-regressed-run1.log \
		"$FIXTURES"/bootlogs/x86_64-tiny-regressed-run3.log \
		"$FIXTURES"/bootlogs/arm64-tiny-baseline-run1.log consoles/ &&
	C=$SCRATCH/consoles &&
	sql "
INSERT INTO trees (id, name, path, url, branch, last_good, last_tip) VALUES
 (1, 'tracing', '/srv/tracing', 'https://git.kernel.org/pub/scm/linux/kernel/git/trace/linux-trace.git',
  'for-next', '$BASE', '$TIP');
INSERT INTO commits (sha, parent, subject, author) VALUES
 ('$BASE', NULL, 'tracing: the base', 'A <a@example.org>'),
 ('$TIP', '$BASE', 'tracing: mdelay(50) in init_kprobe_trace', 'B <b@example.org>');
INSERT INTO jobs (kind, tree_id, rev, base, state, created) VALUES
 ('gate', 1, '$TIP', '$BASE', 'done', 1764590000);
INSERT INTO series (id, tree_id, message_id, version, total, subject, author, source, base,
                    patchset_hash, board, mode, state, created) VALUES
 (1, 1, '20261201120000.1-0-cover@example.org', 2, 1, '[PATCH v2 0/1] tracing: faster kprobes',
  'C <c@example.org>', 'inbox:linux-trace', '$BASE', '$PSET', 'qemu-x86_64', 'timing', 'done',
  1764591000);
INSERT INTO series_patches (series_id, idx, message_id, subject, mbox, commit_sha, status) VALUES
 (1, 0, '20261201120000.1-0-cover@example.org', '[PATCH v2 0/1] tracing: faster kprobes', 'm', NULL, NULL),
 (1, 1, '20261201120000.1-1-p@example.org', '[PATCH v2 1/1] tracing: faster', 'm', '$PATCH', 'applied');
INSERT INTO builds (id, commit_sha, board, status, config_hash, image, image_sha256, reused,
                    seconds, log, created) VALUES
 (1, '$BASE', 'qemu-x86_64', 'built', 'cfg-x86', 'bzImage', 'img-base', 0, 187.2, '/var/log/b1', 1764590300),
 (2, '$TIP', 'qemu-x86_64', 'built', 'cfg-x86', 'bzImage', 'img-tip', 0, 5.8, NULL, 1764590400),
 (3, '$TIP', 'qemu-arm64', 'failed', 'cfg-arm', NULL, NULL, 0, 12, NULL, 1764590450),
 (4, '$PATCH', 'qemu-x86_64', 'built', 'cfg-x86', 'bzImage', 'img-patch', 0, 6.1, NULL, 1764591100),
 (5, '$BASE', 'qemu-arm64', 'built', 'cfg-arm', 'Image', 'img-arm', 0, 215, NULL, 1764590500);
INSERT INTO boots (id, image_sha256, board, mode, outcome, wall_s, console, created) VALUES
 (1, 'img-base', 'qemu-x86_64', 'timing', 'complete', 2.3, '$C/x86_64-tiny-baseline-run1.log', 1764590600),
 (2, 'img-base', 'qemu-x86_64', 'timing', 'complete', 2.4, '$C/x86_64-tiny-baseline-run2.log', 1764590610),
 (3, 'img-tip', 'qemu-x86_64', 'timing', 'complete', 2.3, '$C/x86_64-tiny-regressed-run1.log', 1764590620),
 (4, 'img-tip', 'qemu-x86_64', 'timing', 'complete', 2.3, '$C/x86_64-tiny-regressed-run3.log', 1764590630),
 (5, 'img-arm', 'qemu-arm64', 'timing', 'complete', 0.9, '$C/arm64-tiny-baseline-run1.log', 1764590640),
 (6, 'img-patch', 'qemu-x86_64', 'timing', 'hang', 120, NULL, 1764591200);
UPDATE boots SET job_url = 'https://lava.example.org/scheduler/job/17' WHERE id = 5;
UPDATE builds SET compiler = 'gcc (Debian 12.2.0-14) 12.2.0' WHERE id IN (1, 2, 4);
INSERT INTO bisections (id, tree_id, good, bad, board, mode, metric, state, outcome, culprit,
                        confidence, created, finished) VALUES
 (1, 1, '$BASE', '$TIP', 'qemu-x86_64', 'timing', 'initcall.init_kprobe_trace', 'done', 'found',
  '$TIP', 0.99, 1764590700, 1764590800),
 (2, 1, '$BASE', '$TIP', 'qemu-x86_64', 'timing', 'boot.init', 'done', 'found', '$TIP', 0.95,
  1764590700, 1764590800);
INSERT INTO outbox (id, kind, ref, body, created, done) VALUES
 (1, 'bisection', 1, '{}', 1764590800, 1764590801), (2, 'bisection', 2, '{}', 1764590800, NULL);
INSERT INTO mails (id, outbox_id, about, message_id, subject, mail_from, rcpt, message, sent) VALUES
 (1, 1, 'culprit $TIP initcall.init_kprobe_trace', 'bootgate-bisection-1-222222222222@example.org',
  '[tracing:for-next] 222222222222 tracing: mdelay(50) in init_kprobe_trace', 'bot@example.org',
  'b@example.org', 'm', 1764590900),
 (2, 2, 'culprit $TIP boot.init', 'bootgate-bisection-2-222222222222@example.org',
  '[tracing:for-next] 222222222222 boot.init', 'bot@example.org', 'b@example.org', 'm', NULL);
" &&
	: the kernel and its command line as the lab stores them when it reads a boot, read &&
	: here with sed: the release, then the banner from its " #" &&
	for b in 1 2 3 4 5; do
		console=$(sql "SELECT console FROM boots WHERE id = $b") &&
		banner=$(grep -a -m1 -o "Linux version .*" "$console" | tr -d "\r") &&
		release=$(echo "$banner" | cut -d" " -f3) &&
		build=$(echo "$banner" | sed "s/.* #/#/") &&
		cmdline=$(grep -a -m1 -o "Kernel command line: .*\|Command line: .*" "$console" |
			tr -d "\r" | sed "s/^[A-Za-z ]*line: //") &&
		sql "UPDATE boots SET kernel = '$release $build', cmdline = '$cmdline'
			WHERE id = $b" || return 1
	done &&
	# the samples, as the service records them: the parsed console of each boot
	for b in 1 2 3 4 5; do
		console=$(sql "SELECT console FROM boots WHERE id = $b") &&
		bootgate parse --json "$console" |
		jq -r --arg b "$b" '.logs[0] | ([.initcalls[] | ["initcall." + .name, .usecs]] +
			[.probes[] | ["probe." + .device, .usecs]] +
			[["boot.init", .milestones.init_us]]) | to_entries[] |
			"INSERT INTO samples (boot_id, seq, metric, value) VALUES (\($b), \(.key), \u0027\(.value[0])\u0027, \(.value[1]));"' |
		sqlite3 db || return 1
	done
}

test_expect_success 'KCIDB export: valid v5.3 by python3-jsonschema' '
	make_store &&
	bootgate export --kcidb --db db >kcidb.json &&
	kcidb_validate kcidb.json &&
	test_jq ".version == {\"major\": 5, \"minor\": 3}" kcidb.json &&
	test_jq "[.checkouts, .builds] | map(length) == [3, 5]" kcidb.json &&
	test_note "$(jq -r "\"\(.tests | length) tests from \([.tests[] | select(.status == \"DONE\")] | length) metrics\"" kcidb.json)"
'

test_expect_success 'KCIDB export: the checkouts of a tree and of a series' '
	test_jq ".checkouts[0] | .id == \"bootgate:series:20261201120000.1-0-cover@example.org\"
		and .patchset_hash == \"$PSET\" and .git_commit_hash == \"$BASE\"
		and .message_id == \"20261201120000.1-0-cover@example.org\" and .valid == true
		and .tree_name == \"tracing\" and .git_repository_branch == \"for-next\"" kcidb.json &&
	test_jq "[.checkouts[1:][] | .git_commit_hash] == [\"$BASE\", \"$TIP\"]" kcidb.json &&
	test_jq ".checkouts[2].comment == \"tracing: mdelay(50) in init_kprobe_trace\"" kcidb.json &&
	test_jq "[.builds[] | .status] == [\"PASS\", \"PASS\", \"FAIL\", \"PASS\", \"PASS\"]" kcidb.json &&
	test_jq "[.builds[] | .architecture] == [\"x86_64\", \"x86_64\", \"arm64\", \"x86_64\", \"arm64\"]" kcidb.json &&
	test_jq ".builds[3] | .checkout_id == .checkout_id and .misc.patch == 1
		and .checkout_id == \"bootgate:series:20261201120000.1-0-cover@example.org\"" kcidb.json
'

test_expect_success 'KCIDB export: the boots alone are under "boot", the metrics under "boottime"' '
	: KernelCI counts a test whose path is boot or starts with boot. as a boot &&
	test_note "$(jq -r "\"tests read as boots: \([.tests[] | select(.path == \"boot\" or
		(.path | startswith(\"boot.\")))] | length), boot sets: 4\"" kcidb.json)" &&
	test_jq "[.tests[] | select(.path == \"boot\" or (.path | startswith(\"boot.\")))] | length == 4" kcidb.json &&
	test_jq "[.tests[] | select(.status == \"DONE\") | .path | startswith(\"boottime.\")] | all" kcidb.json &&
	test_jq "[.tests[] | select(.build_id == \"bootgate:build:1\") | .path] | index(\"boottime.init\") != null" kcidb.json
'

test_expect_success 'KCIDB export: checkouts, environments, boots and builds as the dashboard reads them' '
	: a tree checkout applies no patch: patchset_hash is the empty string &&
	test_jq "[.checkouts[1:][] | .patchset_hash] == [\"\", \"\"]" kcidb.json &&
	test_jq "[.tests[] | .environment.misc.platform] | unique == [\"qemu-arm64\", \"qemu-x86_64\"]" kcidb.json &&
	test_jq "[.tests[] | select(.environment.misc.platform == \"qemu-arm64\") | .environment.compatible]
		| unique == [[\"linux,dummy-virt\"]]" kcidb.json &&
	test_jq "[.tests[] | select(.environment.misc.platform == \"qemu-x86_64\") | has(\"compatible\")]
		| any | not" kcidb.json &&
	: the boot test: the seconds of its boots, the log of a lab job, the end of its console &&
	test_jq ".tests[] | select(.id == \"bootgate:build:1:timing\") | (.duration - 4.7 | fabs) < 1e-9
		and (.log_excerpt | endswith(\"reboot: machine restart\n\"))
		and (.log_excerpt | length) <= 16384 and (.log_excerpt | length) > 8000
		and (.log_excerpt | test(\"\r\") | not) and (has(\"log_url\") | not)" kcidb.json &&
	test_jq ".tests[] | select(.id == \"bootgate:build:4:timing\") | .duration == 120 and .status == \"FAIL\"
		and (has(\"log_excerpt\") | not)" kcidb.json &&
	test_jq ".tests[] | select(.id == \"bootgate:build:5:timing\")
		| .log_url == \"https://lava.example.org/scheduler/job/17/log_file/plain\"" kcidb.json &&
	: the metric tests carry none of the boot test fields &&
	test_jq "[.tests[] | select(.status == \"DONE\") | has(\"log_excerpt\") or has(\"duration\")] | any | not" kcidb.json &&
	test_jq "[.builds[] | .compiler] == [\"gcc (Debian 12.2.0-14) 12.2.0\", \"gcc (Debian 12.2.0-14) 12.2.0\",
		null, \"gcc (Debian 12.2.0-14) 12.2.0\", null]" kcidb.json
'

test_expect_success 'KCIDB export: a mailed culprit is an issue, with an incident per build and test' '
	test_jq ".issues | length == 1" kcidb.json &&
	test_jq ".issues[0] | .id == \"bootgate:bisection:1\" and .version == 1
		and .origin == \"bootgate\" and .culprit == {\"code\": true}
		and .report_subject == \"[tracing:for-next] 222222222222 tracing: mdelay(50) in init_kprobe_trace\"
		and .misc.commit == \"$TIP\" and .misc.metric == \"initcall.init_kprobe_trace\"
		and .misc.bisection == 1 and .misc.confidence == 0.99
		and .misc.message_id == \"bootgate-bisection-1-222222222222@example.org\"" kcidb.json &&
	: the culprit was built on x86_64, booted there, and failed to build on arm64 &&
	test_jq "[.incidents[] | [.build_id, .test_id, .present, .issue_id, .issue_version]] ==
		[[\"bootgate:build:2\", null, true, \"bootgate:bisection:1\", 1],
		 [null, \"bootgate:build:2:timing:initcall.init_kprobe_trace\", true,
		  \"bootgate:bisection:1\", 1]]" kcidb.json &&
	test_jq "[.incidents[] | .test_id // empty] - [.tests[].id] == []" kcidb.json &&
	test_jq "[.incidents[] | .id] | unique | length == 2" kcidb.json
'

test_expect_success 'KCIDB export: one DONE test per metric, the median of the boots' '
	# 92066 and 49882 us in the two regressed boots
	test_jq "[.tests[] | select(.build_id == \"bootgate:build:2\"
		and .path == \"boottime.initcall.init_kprobe_trace\")] | length == 1
		and .[0].status == \"DONE\" and .[0].number == {\"value\": 0.070974, \"unit\": \"s\", \"prefix\": \"metric\"}
		and .[0].misc.boots == 2 and .[0].environment.comment == \"qemu-x86_64\"" kcidb.json &&
	test_jq "[.tests[] | select(.build_id == \"bootgate:build:1\" and .path == \"boottime.init\")][0].number.value
		== ((1115802 + 785188) / 2 / 1e6)" kcidb.json &&
	test_jq "[.tests[] | select(.path == \"boot\") | [.build_id, .status]] ==
		[[\"bootgate:build:1\", \"PASS\"], [\"bootgate:build:2\", \"PASS\"],
		 [\"bootgate:build:4\", \"FAIL\"], [\"bootgate:build:5\", \"PASS\"]]" kcidb.json &&
	n=$(sqlite3 db "SELECT count(DISTINCT s.metric) FROM samples s JOIN boots b ON b.id = s.boot_id WHERE b.image_sha256 = '"'"'img-tip'"'"'") &&
	test_jq "[.tests[] | select(.build_id == \"bootgate:build:2\" and .status == \"DONE\")] | length == $n" kcidb.json
'

test_expect_success 'the schema fails a broken status, id, origin, path or number' '
	for change in ".tests[1].status = \"GOOD\"" ".builds[0].id = \"Bootgate:build:1\"" \
		".checkouts[0].origin = \"boot-gate\"" ".tests[1].path = \"boot..init\"" \
		".tests[1].number = {\"value\": \"0.1\"}" ".tests[1].number.prefix = \"si\"" \
		".checkouts[1].git_repository_url = \"git://127.0.0.1/linux\"" \
		".checkouts[1].patchset_hash = \"abc\"" ".builds[0].status = null" \
		"del(.tests[1].build_id)" ".tests[1].extra = 1" \
		".tests[1].start_time = \"2025-12-01 11:53:20\"" ".tests[1].start_time = \"2025-13-01T00:00:00Z\"" \
		".tests[0].log_excerpt = (\"x\" * 16385)" ".tests[0].log_excerpt = \"a\\u0000b\"" \
		".checkouts[1].patchset_hash = null" ".tests[0].environment.compatible = [\"a b\"]" \
		".builds[0].output_files = [{\"name\": \"a/b\", \"url\": \"https://x.org/b\"}]" \
		".issues[0].version = -1" "del(.incidents[0].issue_version)" \
		".incidents[0].present = \"yes\"" ".issues[0].culprit.code = 1"; do
		jq "$change" kcidb.json >broken.json &&
		test_exit_code 1 kcidb_validate broken.json >why || return 1
		test -s why || return 1
	done &&
	jq ".tests[1].status = \"GOOD\"" kcidb.json >broken.json &&
	test_exit_code 1 kcidb_validate broken.json >why &&
	test_grep "tests/1/status: .GOOD. is not one of" why
'

if [ -f "$REAL_SCHEMA" ]; then
test_expect_success 'KCIDB export: valid by kcidb-io'"'"'s own v5.3 schema' '
	kcidb_errors kcidb.json "$REAL_SCHEMA" >real-errors &&
	test_note "$(wc -l <real-errors) errors against $REAL_SCHEMA" &&
	test_cmp /dev/null real-errors &&
	: the subset schema knows each field the export writes, as the real one does &&
	for kind in checkout build test issue incident; do
		jq -r --arg k $kind ".\"\$defs\"[\$k].properties | keys[]" "$SCHEMA" >sub-$kind &&
		jq -r --arg k $kind ".\"\$defs\"[\$k].properties | keys[]" "$REAL_SCHEMA" >real-$kind &&
		! grep -vxF -f real-$kind sub-$kind || return 1
	done &&
	for kind in checkout build test issue incident; do
		jq -r --arg k ${kind}s ".[\$k][] | keys[]" kcidb.json | sort -u >used-$kind &&
		! grep -vxF -f sub-$kind used-$kind || return 1
	done
'
else
	test_skip "KCIDB export: valid by kcidb-io's own v5.3 schema" "no $REAL_SCHEMA here"
fi

test_expect_success 'KCIDB export: -o writes the file whole, --origin names the CI' '
	bootgate export --kcidb --db db --origin my_lab -o out.json 2>err &&
	test_grep "kcidb: 3 checkouts, 5 builds, [0-9]* tests, 1 issue, 2 incidents in .out.json." err &&
	kcidb_validate out.json &&
	test_jq "[.checkouts[], .builds[], .tests[] | .origin] | unique == [\"my_lab\"]" out.json &&
	test_jq "[.builds[].id, .tests[].id, .tests[].build_id] | all(startswith(\"my_lab:\"))" out.json
'

test_expect_success 'boot-data files parse back to the stored consoles figures' '
	bootgate export --boot-data bd --db db --json >files.json 2>err &&
	test_grep "boot 6: no console stored (left out)" err &&
	test_jq ".files | length == 5" files.json &&
	test_jq ".files[2] | .boot == 3 and .commit == \"$TIP\"
		and .path == \"bd/boot-data-bootgate-qemu-x86_64-222222222222-3-251201-120340.txt\"" files.json &&
	for b in 1 2 3 4 5; do
		f=$(jq -r ".files[] | select(.boot == $b) | .path" files.json) &&
		console=$(sql "SELECT console FROM boots WHERE id = $b") &&
		: where each line stands differs between the two files, nothing else &&
		nolines="del(.logs[].file, .logs[].log_lines, .logs[].initcalls[].line,
			.logs[].probes[].line, .logs[].milestones.init_line)" &&
		bootgate parse --json "$f" | jq -S "$nolines" >from-file &&
		bootgate parse --json "$console" | jq -S "$nolines" >from-console &&
		test_cmp from-console from-file || return 1
	done &&
	bootgate parse --json "$(jq -r ".files[2].path" files.json)" >tip.json &&
	test_jq ".logs[0] | (.initcalls | length) == 185 and .milestones.init_us == 1074148" tip.json
'

test_expect_success 'a boot-data file in the wizard format: sections, header, kernel messages' '
	f=bd/boot-data-bootgate-qemu-x86_64-222222222222-3-251201-120340.txt &&
	sed -n 1p "$f" | grep -q "^=== Machine Info ===" &&
	grep -q "^GBD_LAB=\"bootgate\"$" "$f" &&
	grep -q "^GBD_MACHINE=\"qemu-x86_64\"$" "$f" &&
	grep -q "^GBD_TIMESTAMP=\"251201-120340\"$" "$f" &&
	grep -q "^KERNEL_VERSION=\"6.1.192+ #3 2026-01-01\"$" "$f" &&
	grep -q "^BOOTGATE_COMMIT=\"$TIP\"$" "$f" &&
	test "$(grep -c "^== KERNEL MESSAGES ==$" "$f")" = 1 &&
	! grep -q "$(printf "\r")" "$f"
'

test_expect_success 'the hand-written wizard fixture parses to its kernel log figures' '
	bootgate parse --json "$FIXTURES"/bootdata/boot-data-bootgate-qemu_x86_64-261201-120000.txt >wiz.json &&
	test_jq ".logs | length == 1" wiz.json &&
	test_jq ".logs[0] | .kernel == \"6.1.192+\" and .outcome == \"complete\"
		and (.initcalls | length) == 185 and .milestones.init_us == 1074148
		and ([.initcalls[].usecs] | add) == 302887 and .log_lines[0] == 62" wiz.json &&
	bootgate parse --json "$FIXTURES"/bootlogs/x86_64-tiny-regressed-run1.log >console.json &&
	test "$(jq -c "[.logs[0].initcalls[] | [.name, .usecs]]" wiz.json)" = \
		"$(jq -c "[.logs[0].initcalls[] | [.name, .usecs]]" console.json)"
'

test_expect_success 'a boot-data file without its kernel section: file:line, exit 1' '
	head -n 20 "$FIXTURES"/bootdata/boot-data-bootgate-qemu_x86_64-261201-120000.txt >cut.txt &&
	cp "$FIXTURES"/bootlogs/x86_64-tiny-baseline-run1.log good.log &&
	test_exit_code 1 bootgate parse --json cut.txt good.log >out 2>err &&
	test_jq ".logs | length == 1 and .[0].file == \"good.log\"" out &&
	test_grep "cut.txt:20: boot-data file without a .== KERNEL MESSAGES ==. section" err
'

test_expect_success 'hostile store: names stay in DIR, a lost console is named, exit 1' '
	make_store &&
	sql "UPDATE boots SET board = '"'"'../../evil'"'"' || char(10) || '"'"'x'"'"' WHERE id = 1;
	     UPDATE boots SET console = '"'"'/nonexistent/console.log'"'"' WHERE id = 2;
	     UPDATE builds SET commit_sha = '"'"'../../../etc'"'"' WHERE id = 2" &&
	test_exit_code 1 bootgate export --boot-data hostile --db db >list 2>err &&
	test_grep "boot 2: cannot open ./nonexistent/console.log." err &&
	test "$(wc -l <list)" = 4 &&
	test "$(ls hostile | wc -l)" = 4 &&
	! grep -v "^hostile/boot-data-bootgate-[A-Za-z0-9_+][A-Za-z0-9._+-]*-[0-9]*-[0-9]\{6\}-[0-9]\{6\}\.txt$" list &&
	ls hostile | grep -q "^boot-data-bootgate-_._.._evil_x-unknown-1-" &&
	grep -q "^BOOTGATE_BOARD=\"../../evil?x\"$" hostile/boot-data-bootgate-_._.._evil_x-unknown-1-*.txt &&
	ls hostile | grep -q "^boot-data-bootgate-qemu-x86_64-_._.._.._etc-3-" &&
	bootgate export --kcidb --db db >h.json &&
	kcidb_validate h.json &&
	test_jq "[.checkouts[] | select(.id == \"bootgate:tracing:../../../etc\")] | length == 0" h.json &&
	test_jq "[.checkouts[] | select(.id == \"bootgate:commit:../../../etc\")][0] | has(\"git_commit_hash\") | not" h.json
'

test_expect_success 'KCIDB export: -o onto the store itself is refused, the store kept' '
	make_store &&
	cp db db.before &&
	mkdir -p sub &&
	ln -s db db.link &&
	ln db db.hard &&
	for o in db ./sub/../db "$SCRATCH/db" db.hard; do
		test_exit_code 2 bootgate export --kcidb --db db -o "$o" 2>err &&
		test_grep "\-o .*: the store itself (--db .db.)" err || return 1
	done &&
	test_exit_code 2 bootgate export --kcidb --db db.link -o db 2>err &&
	test_grep "\-o .db.: the store itself (--db .db.link.)" err &&
	mkdir -p state &&
	ln db state/bootgate.db &&
	(BOOTGATE_STATE=$SCRATCH/state && export BOOTGATE_STATE &&
	 test_exit_code 2 bootgate export --kcidb -o sub/../db 2>err) &&
	test_grep "the store itself (--db .*state/bootgate.db.)" err &&
	cmp db db.before &&
	bootgate export --kcidb --db db -o k.json 2>err &&
	test_jq ".tests | length > 0" k.json
'

test_expect_success 'KCIDB export: -o onto a file SQLite or bootgated keeps beside the store is refused' '
	make_store &&
	mkdir -p st sub &&
	cp db st/bootgate.db &&
	ln -s st stlink &&
	echo 4242 >st/bootgated.lock &&
	sqlite3 st/bootgate.db "PRAGMA journal_mode = WAL" >/dev/null &&
	for o in st/bootgate.db-wal st/bootgate.db-shm st/bootgate.db-journal \
		st/bootgate.db-mail.lock st/bootgated.lock ./sub/../st/bootgated.lock \
		stlink/bootgate.sock "$SCRATCH/stlink/bootgate.db-wal"; do
		test_exit_code 2 bootgate export --kcidb --db st/bootgate.db -o "$o" 2>err &&
		test_grep "\-o .*: a file .* keeps beside the store (--db .st/bootgate.db.)" err ||
			return 1
	done &&
	test "$(cat st/bootgated.lock)" = 4242 &&
	test ! -e st/bootgate.db-journal &&
	test ! -e st/bootgate.sock &&
	bootgate status --db st/bootgate.db >/dev/null &&
	bootgate export --kcidb --db st/bootgate.db -o st/k.json 2>err &&
	test_jq ".tests | length > 0" st/k.json &&
	bootgate export --kcidb --db st/bootgate.db -o st/k.json 2>err
'

test_expect_success 'boot-data export: a DIR below a missing directory is not made' '
	make_store &&
	test_exit_code 1 bootgate export --boot-data "$SCRATCH/nonexist/x" --db db >out 2>err &&
	test_grep "no directory .*nonexist. to hold .*nonexist/x." err &&
	test ! -e nonexist &&
	test ! -s out &&
	bootgate export --boot-data fresh --db db >out &&
	test -d fresh
'

test_expect_success 'KCIDB export: a --lab that is not a directory is usage, not a lost arch' '
	make_store &&
	test_exit_code 2 bootgate export --kcidb --db db --lab "$SCRATCH/nolab" >out 2>err &&
	test_grep "\-\-lab .*nolab.: No such file or directory" err &&
	test ! -s out &&
	bootgate export --kcidb --db db --lab "$ROOT/lab-configs" >k.json &&
	test_jq "[.builds[].architecture] | all(. != null)" k.json
'

test_expect_success 'usage and store errors' '
	test_exit_code 2 bootgate export --db db 2>err &&
	test_grep "one of --kcidb and --boot-data DIR" err &&
	test_exit_code 2 bootgate export --kcidb --boot-data x --db db 2>err &&
	test_exit_code 2 bootgate export --kcidb --origin Bad-Name --db db 2>err &&
	test_grep "origin .Bad-Name.: KCIDB wants" err &&
	test_exit_code 2 bootgate export --kcidb --db db extra 2>err &&
	test_exit_code 2 bootgate export --boot-data "" --db db 2>err &&
	: >afile &&
	test_exit_code 1 bootgate export --boot-data afile --db db >out 2>err &&
	test_grep "^bootgate: error: .afile. is not a directory$" err &&
	test ! -s out &&
	test_exit_code 1 bootgate export --kcidb --db nope.db 2>err &&
	test_grep "no store at .nope.db." err &&
	test_exit_code 1 bootgate export --kcidb --db db >/dev/full 2>err &&
	ln -s /dev/null link.json &&
	test_exit_code 1 bootgate export --kcidb --db db -o link.json 2>err &&
	test -L link.json
'

test_done
