#!/bin/sh
# beside: t0085-build-sandbox.sh
# lib-gitd.sh on the cached kernel repository: a git daemon on a free port of loopback,
# a served repository that borrows the cache's objects, scripts/scenario-tree.sh's
# scenario-tracing pushed to it, seen and cloned over git:// without copying the tree.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/lib-gitd.sh"

TREE=$(sh "$ROOT/scripts/kernel-repo.sh")

# served: the daemon on $SCRATCH/srv and its repository linux.git, made by the first
# case that asks (so that each case runs alone as well)
served() {
	if [ ! -s "$SCRATCH/.gitd/pid" ]; then
		start_git_daemon "$SCRATCH/srv" || return 1
	fi
	if [ ! -d "$SCRATCH/srv/linux.git" ]; then
		make_served_repo linux.git >/dev/null || return 1
	fi
}

# scenario FIELD: a field of scenario-tree.sh's output (it runs once)
scenario() {
	if [ ! -s "$SCRATCH/scenario" ]; then
		sh "$ROOT/scripts/scenario-tree.sh" >"$SCRATCH/scenario.tmp" || return 1
		mv "$SCRATCH/scenario.tmp" "$SCRATCH/scenario"
	fi
	sed -n "s/^$1 //p" "$SCRATCH/scenario"
}

# fetch_into MIRROR: bootgate fetch of the served master into MIRROR; its tip on stdout,
# its messages in $SCRATCH/.fetch-err, shown when it fails
fetch_into() {
	"$ROOT/bin/bootgate" fetch --mirror "$1" --url "$(gitd_url)/linux.git" --branch master \
		--reference "$TREE" 2>"$SCRATCH/.fetch-err" ||
		{ cat "$SCRATCH/.fetch-err" >&2; return 1; }
}

test_expect_success 'the daemon answers on a port of 127.0.0.1 of its own' '
	served &&
	port=$(cat "$SCRATCH/.gitd/port") &&
	test "$port" -ge 20000 && test "$port" -lt 32000 &&
	listening "$port" &&
	test "$(gitd_url)" = "git://127.0.0.1:$port" &&
	test_exit_code 128 git ls-remote "$(gitd_url)/no-such.git" 2>err &&
	test_grep "remote error" err
'

test_expect_success 'a served repository: master alone, its objects borrowed, not copied' '
	served &&
	repo=$SCRATCH/srv/linux.git &&
	test "$(git -C "$repo" rev-parse --is-bare-repository)" = true &&
	git -C "$repo" for-each-ref --format="%(refname)" >refs &&
	echo refs/heads/master >want &&
	test_cmp want refs &&
	test_grep "^$TREE/.git/objects$" "$repo/objects/info/alternates" &&
	du -sk "$repo" | awk "{ exit !(\$1 < 1024) }" &&
	git ls-remote "$(gitd_url)/linux.git" >ls &&
	test_grep "^$(git -C "$TREE" rev-parse master)	refs/heads/master$" ls
'

test_expect_success 'scenario-tracing pushed to it shows over git:// at its tip' '
	served &&
	tip=$(scenario tip) &&
	test "$(scenario commits)" = 12 &&
	git -C "$TREE" push -q "$SCRATCH/srv/linux.git" "$tip:refs/heads/scenario-tracing" &&
	git ls-remote "$(gitd_url)/linux.git" >ls &&
	test_grep "^$tip	refs/heads/scenario-tracing$" ls &&
	test "$(git -C "$SCRATCH/srv/linux.git" rev-list --count master..scenario-tracing)" = 12
'

test_expect_success 'a clone with --reference of the cache: a pack of a few KB, not the tree' '
	served &&
	tip=$(scenario tip) &&
	git -C "$TREE" push -q "$SCRATCH/srv/linux.git" "$tip:refs/heads/scenario-tracing" &&
	note=$(git -C "$SCRATCH/srv/linux.git" commit-tree -p "$tip" -m "served alone" "$tip^{tree}") &&
	git -C "$SCRATCH/srv/linux.git" update-ref refs/heads/served-only "$note" &&
	git clone -q --bare --reference "$TREE" "$(gitd_url)/linux.git" clone.git &&
	test "$(git -C clone.git rev-parse scenario-tracing)" = "$tip" &&
	test "$(git -C clone.git rev-parse served-only)" = "$note" &&
	git -C clone.git count-objects -v >count &&
	cat count &&
	kb=$(awk "/^size(-pack)?:/ { kb += \$2 } END { print kb }" count) &&
	objects=$(awk "/^(count|in-pack):/ { n += \$2 } END { print n }" count) &&
	test "$objects" -ge 1 && test "$kb" -lt 5000
'

test_expect_success 'bootgate fetch: the locks a killed fetch left are removed, and it fetches' '
	served &&
	m=$SCRATCH/mirror.git &&
	s=$SCRATCH/srv/linux.git &&
	fetch_into "$m" >tip &&
	test "$(cat tip)" = "$(git -C "$s" rev-parse master)" &&
	next=$(git_ -C "$s" commit-tree -p master -m "one more" "master^{tree}") &&
	git -C "$s" update-ref refs/heads/master "$next" &&
	cp tip "$m/refs/heads/master.lock" &&
	echo "ref: refs/heads/master" >"$m/HEAD.lock" &&
	fetch_into "$m" >tip &&
	test "$(cat tip)" = "$next" &&
	test "$(git -C "$m" rev-parse master)" = "$next" &&
	err=$SCRATCH/.fetch-err &&
	test_grep "removed .$m/refs/heads/master.lock., left by a fetch that was killed" "$err" &&
	test_grep "removed .$m/HEAD.lock., left by a fetch that was killed" "$err" &&
	test ! -e "$m/refs/heads/master.lock" && test ! -e "$m/HEAD.lock" &&
	fetch_into "$m" >tip &&
	! grep -q "left by" "$err" &&
	: a fetch killed while it made its mirror: made all the same &&
	mkdir "$SCRATCH/half.git" &&
	: >"$SCRATCH/half.git/config.lock" &&
	fetch_into "$SCRATCH/half.git" >tip &&
	test "$(cat tip)" = "$next" &&
	test_grep "removed .$SCRATCH/half.git/config.lock., left by a fetch" "$err"
'

test_expect_success 'stop_git_daemon ends it and frees its port' '
	served &&
	port=$(cat "$SCRATCH/.gitd/port") &&
	pid=$(cat "$SCRATCH/.gitd/pid") &&
	stop_git_daemon &&
	! kill -0 "$pid" 2>/dev/null &&
	! listening "$port" &&
	test_exit_code 128 git ls-remote "git://127.0.0.1:$port/linux.git" 2>err &&
	test_grep "unable to connect" err
'

test_done
