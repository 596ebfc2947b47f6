#!/bin/sh
# beside: t0085-build-sandbox.sh
# bootgate-build on trees with a Makefile of their own: what the worker asks of a kernel
# tree (make O=DIR ARCH=... TARGET, scripts/kconfig/merge_config.sh) in a few lines, so
# that its contract is tested in seconds: artifacts, exit codes, trees that share a name,
# and the sandbox a posted patch's build steps run in. Real kernels: t0100.
#
# The scratch directory is not under /tmp: the sandbox puts an empty /tmp in place, which
# would hide the secrets below for the wrong reason.
SCRATCH_BASE=/var/tmp
. "$(dirname "$0")/lib.sh"

BUILD=$ROOT/bin/bootgate-build
export BOOTGATE_CACHE="$SCRATCH/cache"
mkdir -p "$BOOTGATE_CACHE"

# the lab: one board building "image" from the tree
tiny_lab

# make_tree DIR: a git repository whose "kernel" image is its code.c
make_tree() {
	mkdir -p "$1" &&
	cat >"$1/Makefile" <<'EOF' &&
O ?= .
-include probe.mk
tinyconfig:
	@mkdir -p $(O) && echo "# tiny" >$(O)/.config
tiny_defconfig:
	@mkdir -p $(O) && echo "# tiny defconfig" >$(O)/.config
olddefconfig:
	@test -f $(O)/.config
image:
	@! grep -n BROKEN code.c || { echo "code.c: error: this does not compile"; exit 1; }
	@rm -f $(O)/image.bin && cp code.c $(O)/image.bin
EOF
	kconfig_stub "$1" &&
	echo "int main(void) { return 0; }" >"$1/code.c" &&
	echo "a tree" >"$1/README" &&
	git_ -C "$1" init -q &&
	git_ -C "$1" add -A &&
	git_ -C "$1" commit -q -m "the tree"
}

build() {
	"$BUILD" --lab lab --board tiny "$@"
}

# build_shown ARGS: the same, its messages shown when it fails
build_shown() {
	build "$@" 2>"$SCRATCH/.build-err" || { cat "$SCRATCH/.build-err" >&2; return 1; }
}

make_tree tree

test_expect_success 'a commit builds into a content-addressed artifact' '
	build --tree tree --commit master >r.json 2>err &&
	test_jq ".status == \"built\" and .error == null and .board == \"tiny\" and
		(.tree_id | startswith(\"tree-\")) and (.image | endswith(\"/image\"))" r.json &&
	cmp "$(jq -r .image r.json)" tree/code.c &&
	test "$(sha256sum <tree/code.c | cut -c1-64)" = "$(jq -r .image_sha256 r.json)" &&
	test -f "$(jq -r .artifact r.json)/metadata.json"
'

test_expect_success 'a change to documentation alone: byte-identical to its parent' '
	git_ -C tree checkout -q -b docs master &&
	echo "more words" >>tree/README &&
	git_ -C tree commit -q -a -m docs &&
	build --tree tree --commit master >/dev/null 2>&1 &&
	build --tree tree --commit docs >d.json 2>err &&
	test_jq ".identical_to_parent == true" d.json &&
	test_grep "byte-identical to its parent" err
'

test_expect_success 'the same source again: the image is kept, nothing is built' '
	build_shown --tree tree --commit master >first.json &&
	build --tree tree --commit master >again.json 2>err &&
	test_jq ".status == \"built\" and .reused == true" again.json &&
	test "$(jq -r .image_sha256 again.json)" = "$(jq -r .image_sha256 first.json)" &&
	test_grep "image of the same source is kept" err
'

test_expect_success 'the kept image deleted behind its back: built again, the same bytes' '
	build --tree tree --commit master >kept.json 2>err &&
	test_jq ".reused == true" kept.json &&
	rm "$(jq -r .image kept.json)" &&
	build --tree tree --commit master >img.json 2>err &&
	test_jq ".status == \"built\" and .reused == false" img.json &&
	cmp "$(jq -r .image img.json)" tree/code.c &&
	rm -rf "$(jq -r .artifact img.json)" &&
	build --tree tree --commit master >art.json 2>err &&
	test_jq ".status == \"built\" and .reused == false" art.json &&
	test "$(jq -r .image_sha256 art.json)" = "$(jq -r .image_sha256 kept.json)" &&
	cmp "$(jq -r .image art.json)" tree/code.c &&
	build --tree tree --commit master >back.json 2>err &&
	test_jq ".reused == true" back.json
'

test_expect_success 'a worker killed mid-checkout: the locks it left are removed, and it builds' '
	build_shown --tree tree --commit master >/dev/null &&
	git_ -C tree checkout -q -b locked master &&
	echo "/* locked */" >>tree/code.c &&
	git_ -C tree commit -q -a -m locked &&
	find "$BOOTGATE_CACHE/work" -maxdepth 4 -name .git -type f >worktrees &&
	test "$(wc -l <worktrees)" = 1 &&
	wt=$(dirname "$(cat worktrees)") &&
	gd=$(git -C "$wt" rev-parse --absolute-git-dir) &&
	: >"$gd/index.lock" &&
	: >"$gd/HEAD.lock" &&
	build_shown --tree tree --commit locked >l.json &&
	test_jq ".status == \"built\" and .reused == false" l.json &&
	cmp "$(jq -r .image l.json)" tree/code.c &&
	test_grep "removed .$gd/index.lock., left by a build that was killed" "$SCRATCH/.build-err" &&
	test_grep "removed .$gd/HEAD.lock., left by a build that was killed" "$SCRATCH/.build-err" &&
	test ! -e "$gd/index.lock" && test ! -e "$gd/HEAD.lock" &&
	BOOTGATE_REUSE=0 build --tree tree --commit master >m.json 2>err &&
	test_jq ".status == \"built\" and .reused == false" m.json &&
	! grep -q "left by a build" err
'

test_expect_success '--config and --fragment: another configuration, built, not reused' '
	build_shown --tree tree --commit master >tiny.json &&
	echo "CONFIG_EXTRA=y" >extra.config &&
	build_shown --tree tree --commit master --config tiny_defconfig \
		--fragment extra.config >def.json &&
	test_jq ".status == \"built\" and .reused == false" def.json &&
	test "$(jq -r .config_hash def.json)" != "$(jq -r .config_hash tiny.json)" &&
	printf "# tiny defconfig\nCONFIG_TINY=y\nCONFIG_EXTRA=y\n" >want &&
	head -3 "$(jq -r .artifact def.json)/config" >got &&
	test_cmp want got &&
	printf "# whole\nCONFIG_WHOLE=y\n" >whole.config &&
	build_shown --tree tree --commit master --config "$SCRATCH/whole.config" >file.json &&
	head -2 "$(jq -r .artifact file.json)/config" >got &&
	printf "# whole\nCONFIG_WHOLE=y\n" >want &&
	test_cmp want got &&
	test_exit_code 2 build --tree tree --commit master --config /nonexistent >bad.json 2>err &&
	test_jq ".status == \"usage\" and (.error | test(\"--config .*/nonexistent\"))" bad.json &&
	test_exit_code 2 build --tree tree --commit master --config lab >bad.json 2>err &&
	test_jq ".error | test(\"not a file\")" bad.json &&
	test_exit_code 2 build --tree tree --commit master --fragment /nonexistent >bad.json 2>err &&
	test_jq ".error | test(\"--fragment\")" bad.json
'

test_expect_success 'a commit that does not build: exit 1, status failed, the error shown' '
	git_ -C tree checkout -q -b broken master &&
	echo "BROKEN" >>tree/code.c &&
	git_ -C tree commit -q -a -m broken &&
	test_exit_code 1 build --tree tree --commit broken >b.json 2>err &&
	test_jq ".status == \"failed\"" b.json &&
	test_grep "code.c: error: this does not compile" err &&
	test_grep "this does not compile" "$(jq -r .log b.json)"
'

test_expect_success 'two trees called linux: two worktrees, each commit built' '
	mkdir -p one two &&
	git clone -q -b master tree one/linux &&
	git clone -q -b master tree two/linux &&
	echo "int main(void) { return 2; }" >two/linux/code.c &&
	git_ -C two/linux commit -q -a -m "only in two" &&
	build --tree one/linux --commit master >one.json 2>err &&
	build --tree two/linux --commit master >two.json 2>err &&
	test_jq ".status == \"built\"" two.json &&
	test "$(jq -r .tree_id one.json)" != "$(jq -r .tree_id two.json)" &&
	cmp "$(jq -r .image two.json)" two/linux/code.c &&
	build --tree one/linux --commit master >again.json 2>err &&
	test "$(jq -r .image_sha256 again.json)" = "$(jq -r .image_sha256 one.json)"
'

# The sandbox. A build step of a posted patch reaches for the cache's, the lab's and
# the home directory's files, the host's loopback, and a file outside the build.
mkdir -p home
echo "cache-secret-$$" >"$BOOTGATE_CACHE/secret"
echo "lab-secret-$$" >lab/secret
echo "home-secret-$$" >home/secret
cat >probe.mk <<EOF
\$(info probe-cache: \$(shell cat $BOOTGATE_CACHE/secret 2>&1))
\$(info probe-lab: \$(shell cat $SCRATCH/lab/secret 2>&1))
\$(info probe-home: \$(shell cat $SCRATCH/home/secret 2>&1))
\$(info probe-net: \$(shell python3 -c "import socket; s = socket.create_connection(('127.0.0.1', int(open('$SCRATCH/port').read())), 5); print('connected')" 2>&1 | tail -n 1))
\$(info probe-write: \$(shell (echo escaped >$SCRATCH/escaped) 2>&1 && echo wrote))
\$(info probe-root: \$(shell ls -A /root | wc -l))
EOF
git_ -C tree checkout -q -b probe master
cp probe.mk tree/probe.mk
git_ -C tree add probe.mk
git_ -C tree commit -q -m "a build step that reaches out"
# the same probe in another source: an image of the same source would be kept, not built
git_ -C tree checkout -q -b probe-open probe
echo "# without the sandbox" >>tree/probe.mk
git_ -C tree commit -q -a -m "the probe again"

# listen FILE: accepts one connection on a free port of 127.0.0.1 (written to $SCRATCH/port)
# for a while, noting it in FILE
listen() {
	python3 -c "
import socket, sys
s = socket.socket()
s.bind(('127.0.0.1', 0)); s.listen(1); s.settimeout(60)
open('$SCRATCH/port', 'w').write(str(s.getsockname()[1]))
open('$1.ready', 'w').close()
try:
    c, _ = s.accept(); open('$1', 'w').write('connected')
except socket.timeout:
    pass
" &
	listener=$!
	while [ ! -e "$1.ready" ]; do sleep 0.1; done
}

# stop_listener: ends a listener that nobody reached
stop_listener() {
	kill "$listener" 2>/dev/null
	wait "$listener" 2>/dev/null
	return 0
}

test_expect_success 'sandboxed: no secret, no loopback, no write outside the build' '
	listen sandboxed.conn &&
	HOME=$SCRATCH/home build --tree tree --commit probe >s.json 2>err &&
	stop_listener &&
	log=$(jq -r .log s.json) &&
	cat "$log" &&
	test_grep "probe-cache: cat: .*: No such file or directory" "$log" &&
	test_grep "probe-lab: cat: .*: No such file or directory" "$log" &&
	test_grep "probe-home: cat: .*: No such file or directory" "$log" &&
	test_grep "probe-net: .*\(Connection refused\|Network is unreachable\)" "$log" &&
	test_grep "probe-write: .*Read-only file system" "$log" &&
	test_grep "probe-root: 0$" "$log" &&
	! grep -q "secret-$$" "$log" &&
	test ! -e sandboxed.conn &&
	test ! -e escaped
'

test_expect_success 'the same step without the sandbox reaches all of them (the probe is real)' '
	listen open.conn &&
	HOME=$SCRATCH/home build --tree tree --commit probe-open --no-sandbox >o.json 2>err &&
	test_jq ".reused == false" o.json &&
	wait $listener &&
	log=$(jq -r .log o.json) &&
	test_grep "probe-cache: cache-secret-$$" "$log" &&
	test_grep "probe-lab: lab-secret-$$" "$log" &&
	test_grep "probe-home: home-secret-$$" "$log" &&
	test_grep "probe-net: connected" "$log" &&
	test_grep "probe-write: wrote" "$log" &&
	test_grep "connected" open.conn &&
	test -f escaped &&
	rm -f escaped
'

test_expect_success 'a build cannot make the worker follow its links (to files it cannot read)' '
	echo "precious" >victim &&
	mkdir -p victimdir &&
	echo "original" >victimdir/f &&
	git_ -C tree checkout -q -b links master &&
	mkdir -p tree/sub &&
	echo one >tree/sub/f &&
	printf "%s\n" "links:" \
		"	@rm -f \$(O)/image.bin; ln -s $SCRATCH/lab/secret \$(O)/image.bin" \
		"	@ln -sf $SCRATCH/victim \$(O)/../build.log || true" \
		"	@cd \$(O)/../src && rm -rf sub && ln -s $SCRATCH/victimdir sub || true" \
		>>tree/Makefile &&
	sed -i "s/^make_target: image$/make_target: links/" lab/boards/tiny.yaml &&
	git_ -C tree add -A &&
	git_ -C tree commit -q -m "a build that plants links" &&
	test_exit_code 1 build --tree tree --commit links >l.json 2>err &&
	sed -i "s/^make_target: links$/make_target: image/" lab/boards/tiny.yaml &&
	test_jq ".status == \"failed\" and .image == null" l.json &&
	test_grep "a link is not followed" err &&
	! grep -q "lab-secret" "$BOOTGATE_CACHE"/artifacts/*/image &&
	test "$(cat victim)" = precious &&
	echo two >tree/sub/f &&
	git_ -C tree commit -q -a -m "the next commit" &&
	build_shown --tree tree --commit links >n.json &&
	test "$(cat victim)" = precious &&
	test "$(cat victimdir/f)" = original &&
	test "$(cat "$(jq -r .image n.json)")" = "$(cat tree/code.c)"
'

test_done
