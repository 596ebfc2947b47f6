#!/bin/sh
# beside: t0170-kills.sh
# Boots through a real LAVA lab on 127.0.0.1 (scripts/lava-lab.sh: lava-server, its
# scheduler and two lava-workers, each with a QEMU device): the x86_64 kernel built here
# boots as LAVA jobs and reads the same as under bootgate-boot's own QEMU; a measure and
# a bisection by the daemon run through LAVA on both workers, while lava-server is
# stopped mid-job; a kernel URL that does not exist is the lab's failure, retried and
# never a regression; a wrong token is an error at once. The kernels come from the
# shared cache (scripts/kernel-repo.sh, scripts/scenario-tree.sh): the tracing seed in 8
# commits, whose images the demo's test (t0165, run before) made. Its culprit moves
# init_kprobe_trace by 724 ms in deterministic mode and by some 44 ms in timing mode
# through LAVA, which the bisection's timing-mode confirmation decided at its second look
# (10 boots a side, the first look's 5 kept): alone and warm, 33 LAVA jobs, every one a
# boot stored, 159 s for the case. When each look booted anew, the first look's 10 jobs
# were not kept (33 boots stored, 184 s). Its daemon's tree is lava-tracing,
# whose mirror in the cache no other test uses (its branch, seed-tracing-8, t0165 makes
# too, before), and no check of it is a timing-mode figure: it runs beside t0170
# (tests/run.sh), whose boots take one core, as LAVA's take another. (With t0170 beside
# t0151 instead, the pair took 317 s, against 242 this way round.)
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/lib-lava.sh"
. "$ROOT/tests/e2e/lib-gitd.sh"
. "$ROOT/tests/e2e/lib-daemon.sh"
. "$ROOT/tests/e2e/lib-smtp.sh"

BOOTGATED=$ROOT/bin/bootgated
TREE=$(sh "$ROOT/scripts/kernel-repo.sh")
scenario_tree --scenario tracing --commits 8
STATE=$SCRATCH/state
DB=$STATE/bootgate.db
SOCK=$STATE/bootgate.sock
LAB=$SCRATCH/lab
CACHE=${BOOTGATE_CACHE:-/var/cache/bootgate}
ART_PORT=$(free_port 33100 1000)
export BOOTGATE_STATE=$STATE BOOTGATE_JOB_BACKOFF=2

# lava_job ID: the job's REST detail
lava_job() {
	lava_api "jobs/$1/"
}

# lava_health ID: the job's health (Unknown until it ends)
lava_health() {
	lava_job "$1" | jq -r .health
}

# lava_running: a job of this LAVA is running now
lava_running() {
	lava_api "jobs/?state=Running&limit=1" | jq -e ".count > 0" >/dev/null
}

# lava_stop_server: lava-server's HTTP side (gunicorn) stops, as a server that goes down
lava_stop_server() {
	pid=$(cat "$CACHE/lava/run/gunicorn.pid") &&
	kill -TERM "-$pid" &&
	wait_for 30 "! kill -0 $pid 2>/dev/null" &&
	! curl -s -m 5 "$LAVA_URL/api/v0.2/system/version/" >/dev/null
}

# the devices a boot result's jobs ran on, one a line
devices_of() {
	for id in $(jq -r '.boots[].job_url | sub(".*/"; "")' "$1"); do
		lava_job "$id" | jq -r .actual_device || return 1
	done | sort -u
}

start_artifacts() {
	setsid "$ROOT/bin/bootgate" serve-artifacts --listen "127.0.0.1:$ART_PORT" \
		>"$SCRATCH/artifacts.log" 2>&1 &
	echo $! >"$SCRATCH/artifacts.pid"
	wait_for 30 'grep -q "^serving" "$SCRATCH/artifacts.log"'
}

stop_artifacts() {
	[ -s "$SCRATCH/artifacts.pid" ] || return 0
	kill -TERM "$(cat "$SCRATCH/artifacts.pid")" 2>/dev/null || true
	rm -f "$SCRATCH/artifacts.pid"
}

# test_expect_code_in "CODES" CMD...: CMD exits with one of CODES
test_expect_code_in() {
	codes=$1
	shift
	code=0
	"$@" || code=$?
	case " $codes " in
	*" $code "*) return 0 ;;
	esac
	echo "exit $code, not one of: $codes" >&2
	return 1
}

start_daemon() {
	setsid "$BOOTGATED" -f "$SCRATCH/bootgate.yaml" >>"$SCRATCH/daemon.log" 2>&1 &
	echo $! >"$SCRATCH/daemon.pid"
	wait_for 30 '"$ROOT/bin/bootgate" trigger --socket "$SOCK" lava-tracing >/dev/null 2>&1'
}

trap 'stop_daemon; stop_artifacts; stop_git_daemon; stop_sink; lava_stop; rm -rf "$SCRATCH"' EXIT

lava_start
# the lab as shipped, pointed at this LAVA and this artifact server
cp -R "$ROOT/lab-configs" "$LAB"
board=$LAB/boards/lava-qemu-x86_64.yaml
sed -i -e "s|^lava_url: .*|lava_url: $LAVA_URL|" \
	-e "s|^lava_token_file: .*|lava_token_file: $LAVA_TOKEN_FILE|" \
	-e "s|^artifact_url: .*|artifact_url: http://127.0.0.1:$ART_PORT|" "$board"
export BOOTGATE_LAB=$LAB

test_expect_success 'the base kernel is built (or found in the cache)' '
	"$ROOT/bin/bootgate-build" --tree "$TREE" --commit "$BASE" --board qemu-x86_64 >build.json &&
	test_jq ".status == \"built\"" build.json &&
	jq -r .image build.json >image &&
	test -s "$(cat image)"
'

test_expect_success 'LAVA boots read exactly as bootgate-boot'"'"'s own QEMU (deterministic)' '
	start_artifacts &&
	start=$(date +%s) &&
	"$ROOT/bin/bootgate-boot" --board lava-qemu-x86_64 --image "$(cat image)" --boots 2 \
		--mode deterministic --out lava >lava.json 2>lava.err &&
	lava_s=$(($(date +%s) - start)) &&
	start=$(date +%s) &&
	"$ROOT/bin/bootgate-boot" --board qemu-x86_64 --image "$(cat image)" --boots 1 \
		--mode deterministic --out qemu >qemu.json 2>qemu.err &&
	qemu_s=$(($(date +%s) - start)) &&
	test_jq "[.boots[].outcome] == [\"complete\", \"complete\"] and .accel == \"lava\"" lava.json &&
	test_jq "all(.boots[]; .job_url | test(\"^$LAVA_URL/scheduler/job/[0-9]+$\"))" lava.json &&
	"$ROOT/bin/bootgate" diff --json --all qemu/boot-000-A.log lava/boot-000-A.log >diff.json &&
	"$ROOT/bin/bootgate" diff --json --all lava/boot-001-A.log lava/boot-000-A.log >diff2.json &&
	# every initcall and probe both consoles carry, and the time to init, are equal; the
	# LAVA dispatcher may drop a console line under load (its own notes), so a metric
	# missing on one side is counted; the marker written by the init itself
	# (boot.userspace) waits on the console, which LAVA reads at its own pace
	both=".rows | map(select(.a_usecs != null and .b_usecs != null and
		(.metric | test(\"^(initcall|probe)[.]|^boot[.]init$\"))))" &&
	test_jq "($both | length) > 150 and ($both | all(.a_usecs == .b_usecs))" diff.json &&
	test_jq "($both | length) > 150 and ($both | all(.a_usecs == .b_usecs))" diff2.json &&
	lost=$(jq "[.rows[] | select(.a_usecs == null or .b_usecs == null)] | length" diff.json) &&
	test "$lost" -le 4 &&
	test_jq "[.rows[] | select(.metric == \"initcall.$INITCALL\")] | length == 1" diff.json &&
	devices_of lava.json >devices &&
	test "$(cat devices | tr "\n" " ")" = "qemu-w1 qemu-w2 " &&
	test_note "2 LAVA boots in parallel $lava_s s (jobs $(jq -r "[.boots[].wall_seconds | floor] | join(\" s, \")" lava.json) s running); 1 direct QEMU boot $qemu_s s; $(jq "$both | length" diff.json) metrics equal, $lost on one side only; boot.userspace $(jq -r "[.rows[] | select(.metric == \"boot.userspace\") | .delta][0]" diff.json) us apart"
'

# a board whose command line holds ": " and " #", which would end a value pasted into YAML
sed -e "s/^name: .*/name: lava-quoted/" \
	-e "s/^cmdline: .*/cmdline: 'console=ttyS0 bootgate.note=x: y #z'/" \
	"$board" >"$LAB/boards/lava-quoted.yaml"

test_expect_success 'the job is written by libyaml: ": " and " #" in the command line stay in its value' '
	"$ROOT/bin/bootgate-boot" --board lava-quoted --image "$(cat image)" --print-job >job.yaml &&
	python3 -c "import sys, yaml; d = yaml.safe_load(open(\"job.yaml\")); \
		a = d[\"actions\"][0][\"deploy\"][\"images\"][\"kernel\"][\"image_arg\"]; \
		assert \"bootgate.note=x: y #z \" in a, a; \
		assert d[\"timeouts\"][\"job\"][\"minutes\"] > 5" &&
	curl -sS -m 20 --data-urlencode "definition@job.yaml" -d strict=1 \
		"$LAVA_URL/api/v0.2/jobs/validate/" >valid.json &&
	test_jq ".message == \"Job valid.\"" valid.json
'

test_expect_success 'a kernel URL that does not exist: the lab failed, retried, no verdict' '
	sed -e "s/^name: .*/name: lava-nourl/" -e "s/^lava_retries: .*/lava_retries: 1/" \
		-e "s|^artifact_url: .*|artifact_url: http://127.0.0.1:$ART_PORT/gone|" \
		"$board" >"$LAB/boards/lava-nourl.yaml" &&
	test_exit_code 111 "$ROOT/bin/bootgate-boot" --board lava-nourl --image "$(cat image)" \
		--boots 1 --out nourl >nourl.json 2>nourl.err &&
	cat nourl.err &&
	test_jq "[.boots[].outcome] == [\"infra\"] and .boots[0].parsed == null" nourl.json &&
	test -s nourl/boot-000-A.log.attempt-1 &&
	test_grep "the lab failed (no kernel spoke); again in" nourl.err &&
	id=$(jq -r ".boots[0].job_url | sub(\".*/\"; \"\")" nourl.json) &&
	lava_job "$id" | test_jq ".health == \"Incomplete\""
'

test_expect_success 'a job past the board'"'"'s timeout is cancelled on the server' '
	sed -e "s/^name: .*/name: lava-short/" -e "s/^lava_retries: .*/lava_retries: 0/" \
		-e "s/^boot_timeout: .*/boot_timeout: 5/" -e "s/^exit_timeout: .*/exit_timeout: 1/" \
		"$board" >"$LAB/boards/lava-short.yaml" &&
	# the kernel waits for a root disk there is none of: silent, where LAVA would wait
	# for the marker its own whole minute
	start=$(date +%s) &&
	test_exit_code 1 "$ROOT/bin/bootgate-boot" --board lava-short --image "$(cat image)" \
		--append "rdinit=/nonexistent root=/dev/vda rootwait" \
		--boots 1 --out short >short.json 2>short.err &&
	test $(($(date +%s) - start)) -lt 50 &&
	test_grep "ran past the board'"'"'s timeout: cancelling it" short.err &&
	test_jq "[.boots[].outcome] == [\"hang\"]" short.json &&
	test_grep "Waiting for root device" short/boot-000-A.log &&
	id=$(jq -r ".boots[0].job_url | sub(\".*/\"; \"\")" short.json) &&
	wait_for 60 "[ \"\$(lava_health $id)\" = Canceled ]"
'

test_expect_success 'a wrong token: a clear error at once, the token never printed' '
	printf "not-the-token-4242\n" >"$SCRATCH/wrong-token" &&
	sed -e "s/^name: .*/name: lava-wrong/" \
		-e "s|^lava_token_file: .*|lava_token_file: $SCRATCH/wrong-token|" \
		"$board" >"$LAB/boards/lava-wrong.yaml" &&
	start=$(date +%s) &&
	test_exit_code 2 "$ROOT/bin/bootgate-boot" --board lava-wrong --image "$(cat image)" \
		--boots 1 --out wrong >wrong.json 2>wrong.err &&
	test $(($(date +%s) - start)) -lt 20 &&
	test_grep "the token is refused (HTTP 403" wrong.err &&
	! grep -q "not-the-token-4242" wrong.err wrong.json &&
	rm "$SCRATCH/wrong-token" &&
	test_exit_code 2 "$ROOT/bin/bootgate-boot" --board lava-wrong --image "$(cat image)" \
		--boots 1 --out wrong >wrong.json 2>wrong.err &&
	test_grep "wrong-token" wrong.err
'

test_expect_success 'bootgate measure through LAVA: the culprit against its parent' '
	"$ROOT/bin/bootgate" measure --tree "$TREE" --commit "$CULPRIT" --against "$CULPRIT^" \
		--board lava-qemu-x86_64 --mode deterministic --boots 2 --json >measure.json 2>err &&
	test_jq "[.comparison.verdicts[] | select(.metric == \"initcall.$INITCALL\")][0] |
		.verdict == \"different\" and .delta > 5000 and .exact" measure.json &&
	test_jq "all(.boots[]; .job_url | test(\"/scheduler/job/\"))" measure.json
'

test_expect_success 'the daemon bisects through LAVA on both workers; lava-server stops mid-job' '
	stop_artifacts &&
	jobs_before=$(lava_api "jobs/?limit=1" | jq -e .count) &&
	start_git_daemon "$SCRATCH/served" >/dev/null &&
	make_served_repo tracing.git >/dev/null &&
	git -C "$TREE" push -q "$SCRATCH/served/tracing.git" "$BASE:refs/heads/for-next" &&
	cat >"$SCRATCH/bootgate.yaml" <<-EOF &&
	state: $STATE
	limits:
	  builds: 1
	poll: 3600
	artifacts:
	  listen: 127.0.0.1:$ART_PORT
	report:
	  from: "bootgate <bootgate@ci.example.org>"
	  smtp: smtp://127.0.0.1:$SMTP_PORT
	trees:
	  - name: lava-tracing
	    url: $(gitd_url)/tracing.git
	    branch: for-next
	    reference: $TREE
	    boards: [lava-qemu-x86_64]
	    mode: deterministic
	    metrics: ["initcall.*", "boot.*"]
	    mail:
	      to: ["linux-trace-kernel@vger.example.org"]
	      send: list
	EOF
	start_sink &&
	start_daemon &&
	wait_for 900 "[ \"\$(q \"SELECT last_good FROM trees WHERE name = '"'lava-tracing'"'\")\" = $BASE ]" &&
	git -C "$TREE" push -q "$SCRATCH/served/tracing.git" "$TIP:refs/heads/for-next" &&
	"$ROOT/bin/bootgate" trigger --socket "$SOCK" lava-tracing "$TIP" >/dev/null &&
	wait_for 900 "lava_running" &&
	lava_stop_server &&
	# the runner polls every second: five seconds down are several refused polls
	sleep 5 &&
	"$ROOT/bin/bootgate" status >status &&
	test_grep "name=lava-tracing" status &&
	lava_start >/dev/null &&
	wait_for 1800 "[ \"\$(q \"SELECT count(*) FROM bisections WHERE state = '"'done'"'\")\" = 1 ]" &&
	"$ROOT/bin/bootgate" show --json 1 >show.json &&
	test_jq ".culprit == \"$CULPRIT\" and .metric == \"initcall.$INITCALL\"" show.json &&
	test "$(q "SELECT count(*) FROM boots WHERE board = '"'lava-qemu-x86_64'"' AND job_url IS NULL AND outcome = '"'complete'"'")" = 0 &&
	test "$(q "SELECT count(*) FROM boots WHERE board != '"'lava-qemu-x86_64'"'")" = 0 &&
	n=$(q "SELECT count(*) FROM boots WHERE outcome = '"'complete'"'") &&
	devices=$(for id in $(q "SELECT substr(job_url, length('"'$LAVA_URL/scheduler/job/'"') + 1) FROM boots");
		do lava_job "$id" | jq -r .actual_device; done | sort -u | tr "\n" " ") &&
	test "$devices" = "qemu-w1 qemu-w2 " &&
	# every job the lab ran is a boot kept: a later look of the timing confirmation adds
	# boots to the earlier looks'"'"'
	jobs=$(($(lava_api "jobs/?limit=1" | jq -e .count) - jobs_before)) &&
	test "$(q "SELECT count(*) FROM boots WHERE job_url IS NOT NULL")" = "$jobs" &&
	timing=$(q "SELECT boots_base || \" \" || boots_cand FROM comparisons WHERE role = '"'timing'"'") &&
	waits=$(cat "$STATE"/jobs/* | grep -c "waiting for the server") &&
	test "$waits" -ge 1 &&
	test_note "$n LAVA boots stored of $jobs jobs, on $devices; the timing confirmation $timing boots a side; $waits waits for the stopped server"
'

test_expect_success 'the report names the LAVA jobs: in the mail and on the site' '
	wait_for 120 "[ \"\$(mails_with bootgate-bisection-1-)\" = 1 ]" &&
	body_of bootgate-bisection-1- >body &&
	test_grep "^Boots ran on lava-qemu-x86_64:" body &&
	test_grep "$LAVA_URL/scheduler/job/[0-9][0-9]*" body &&
	# by hand, the boot goes to the lab as bootgate sends it: no QEMU line for it
	test_grep "\$ bootgate-boot --board lava-qemu-x86_64" body &&
	! grep -q -- "-M -m 512" body &&
	wait_for 60 "grep -q \"$LAVA_URL/scheduler/job/\" \"$STATE/site/bisection/1.html\"" &&
	mkdir -p "$ROOT/build/test-artifacts" &&
	cp "$SCRATCH"/mails/* "$ROOT/build/test-artifacts/t0151-lava-bisection-report.eml" &&
	test_note "the report as sent: build/test-artifacts/t0151-lava-bisection-report.eml"
'

test_done
