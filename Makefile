# bootgate: one GNU Makefile for the library, the programs, the tests and the benchmarks.
#
#   make              build bin/bootgate
#   make demo         install what is missing, then run the main job on the shipped logs
#   make check        install what is missing, then every test (unit, sanitizers,
#                     end-to-end, fuzzing); it ends with each tier's seconds
#   make check-unit   the unit tests only (fast)
#   make soak         the 10-minute soak of continuous gating (make check runs a short one)
#   make bench        benchmarks, side by side with reference tools
#   make analyze      cppcheck and clang-tidy
#   make SANITIZE=address,undefined check-unit   the unit tests under sanitizers
#   make install PREFIX=/usr/local DESTDIR= SYSCONFDIR=/etc
#                     the programs, the man pages, bootgated.service and its user, and
#                     the lab configuration as an example in /etc/bootgate (kept if there)
#   make uninstall    what install wrote, but /etc/bootgate

PREFIX ?= /usr/local
BINDIR_INSTALL = $(DESTDIR)$(PREFIX)/bin
# Slow things kept between runs (kernel trees, built images, bench inputs, the objects'
# ccache).
BOOTGATE_CACHE ?= /var/cache/bootgate
export BOOTGATE_CACHE

CC ?= cc
CFLAGS ?= -O3 -g
FUZZ_SECONDS ?= 30
FUZZ_BB_SECONDS ?= 10
FUZZ_MBOX_SECONDS ?= 10
FUZZ_CONF_SECONDS ?= 10
FUZZ_LAVA_SECONDS ?= 10
FUZZ_WEBHOOK_SECONDS ?= 10
# make fuzz-long: executions per target
FUZZ_RUNS ?= 10000000
# make soak: seconds of continuous gating (make check's own soak is short)
SOAK_SECONDS ?= 600
# the cores: the compiles and the fuzzers run this many at once, unless make was given -j
# (its jobserver then shares the jobs: a -j of ours would reset it)
NPROC := $(shell nproc 2>/dev/null || echo 1)
JOBS = $(if $(filter -j% --jobserver%,$(MAKEFLAGS)),,-j$(NPROC))

# git's config.mak.dev warning set, with -Werror
DEVELOPER_CFLAGS = -Wall -Wextra -Werror -Wdeclaration-after-statement -Wformat-security \
	-Wold-style-definition -Woverflow -Wpointer-arith -Wstrict-prototypes -Wunused \
	-Wvla -Wshadow -fno-common -Wno-sign-compare -Wno-unused-parameter \
	-Wno-missing-field-initializers

ifdef SANITIZE
BUILD = build/sanitize
BIN = $(BUILD)/bin
SAN_CFLAGS = -fsanitize=$(SANITIZE) -fno-sanitize-recover=all -fno-omit-frame-pointer
else
BUILD = build/default
BIN = bin
SAN_CFLAGS =
endif

ifndef V
QUIET_CC = @echo '   ' CC $@;
QUIET_LINK = @echo '   ' LINK $@;
QUIET_AR = @echo '   ' AR $@;
endif

ALL_CFLAGS = -std=gnu11 -D_GNU_SOURCE $(CFLAGS) $(DEVELOPER_CFLAGS) $(SAN_CFLAGS) -Ilib -MMD -MP \
	$(PREFIX_MAP)

# The objects compile through ccache when it is installed and the cache directory is
# this user's: a clean clone's make check then compiles only what changed. Its own
# directory of the cache (never the kernels'), made by ccache; no depend mode or
# sloppiness from a ccache.conf (a system header changed must miss); the checkout's path
# mapped out of the debug information, so that clones in other directories share it.
CCACHE := $(shell test -d '$(BOOTGATE_CACHE)' && test -O '$(BOOTGATE_CACHE)' && command -v ccache)
COMPILE = $(if $(CCACHE),CCACHE_DIR='$(BOOTGATE_CACHE)/ccache-make' CCACHE_BASEDIR='$(CURDIR)' \
	CCACHE_NODEPEND=1 CCACHE_SLOPPINESS= $(CCACHE) )
PREFIX_MAP = $(if $(CCACHE),-fdebug-prefix-map=$(CURDIR)=.)
# xxhash is compiled inline (lib/util/hash.c): only its header is needed
LIBS = -lyaml -lgit2 -lcrypto -ljansson -lsqlite3 -lmicrohttpd -lcurl -lm
TEST_LIBS = -lcmocka

# lib/ by what it is about; the order is the direction of the includes (make check-layout)
LIB_GROUPS = util parse decide report store net conf lab ci publish
LIB_SRC = $(foreach g,$(LIB_GROUPS),$(wildcard lib/$(g)/*.c))
# the store's migrations, carried in the program (scripts/embed-sql.sh)
MIGRATIONS = $(sort $(wildcard schemas/[0-9][0-9][0-9]-*.sql))
# the site's style sheet, carried in the programs too (scripts/embed-text.sh)
SITE_CSS = web-static/style.css
LIB_OBJ = $(LIB_SRC:%.c=$(BUILD)/%.o) $(BUILD)/gen/migrations.o $(BUILD)/gen/site-css.o
LIB_A = $(BUILD)/libbootgate.a
# the bisection benchmark's simulator: linked into bench-bisect, never into the library
BENCH_SRC = bench/bisect-bench.c
BENCH_OBJ = $(BENCH_SRC:%.c=$(BUILD)/%.o)
CLI_SRC = daemon/bootgate.c $(wildcard daemon/cmd-*.c)
DAEMON_SRC = daemon/bootgated.c daemon/bootgated-opts.c
DAEMON_OBJ = $(DAEMON_SRC:%.c=$(BUILD)/%.o)
CLI_OBJ = $(CLI_SRC:%.c=$(BUILD)/%.o) $(BENCH_OBJ)
# the simulator's header, for the programs that link it: never for the library
$(CLI_OBJ): ALL_CFLAGS += -Ibench
# The workers: a program of one file, workers/bootgate-NAME.c, or of a folder,
# workers/NAME/*.c (its main.c holds main), each into $(BIN)/bootgate-NAME. workers/init/
# has no main.c: the test init, cross-built for each arch by scripts/initramfs.sh.
WORKER_FILE_SRC = $(wildcard workers/*.c)
WORKER_DIRS = $(patsubst workers/%/main.c,%,$(wildcard workers/*/main.c))
WORKER_SRC = $(WORKER_FILE_SRC) $(foreach d,$(WORKER_DIRS),$(wildcard workers/$(d)/*.c))
WORKERS = $(WORKER_FILE_SRC:workers/%.c=$(BIN)/%) $(WORKER_DIRS:%=$(BIN)/bootgate-%)
PROGRAMS = $(BIN)/bootgate $(BIN)/bootgated $(WORKERS)
UNIT_SRC = $(wildcard tests/unit/t-*.c)
# the programs that wait (a silent webhook client cut at 10 s, processes timed out) first,
# so that the others run beside them (tests/run.sh runs as many as there are cores)
UNIT_FIRST = t-webhook t-proc t-git t-verdict
UNIT_NAMES = $(UNIT_SRC:tests/unit/%.c=%)
UNIT_BIN = $(addprefix $(BUILD)/tests/unit/,$(filter $(UNIT_NAMES),$(UNIT_FIRST)) \
	$(filter-out $(UNIT_FIRST),$(UNIT_NAMES)))

.PHONY: all man demo tour check check-unit check-layout check-e2e check-sanitize check-fuzz fuzz-long \
	$(FUZZ_TARGETS:%=fuzz-run-%) soak bench \
	analyze install uninstall clean deps deps-unit deps-sanitize deps-e2e deps-bench deps-analyze

all: $(PROGRAMS) man

# The man pages, rendered from what the programs print for --help, so that a page says
# what the program says (git's Documentation/*.1 are built, not kept, for the same
# reason); `bootgate help`, COMMAND --help and man bootgate-COMMAND show the same text.
MAN_DIR = docs/man
man: $(MAN_DIR)/.rendered
$(MAN_DIR)/.rendered: $(BIN)/bootgate $(BIN)/bootgated scripts/help2man.sh scripts/man-pages.sh
	@sh scripts/man-pages.sh $(BIN) $(MAN_DIR)
	@touch $@

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(QUIET_CC)$(COMPILE)$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD)/gen/migrations.c: $(MIGRATIONS) scripts/embed-sql.sh
	@mkdir -p $(dir $@)
	@sh scripts/embed-sql.sh $(MIGRATIONS) >$@.tmp && mv $@.tmp $@

$(BUILD)/gen/migrations.o: $(BUILD)/gen/migrations.c
	$(QUIET_CC)$(COMPILE)$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD)/gen/site-css.c: $(SITE_CSS) scripts/embed-text.sh
	@mkdir -p $(dir $@)
	@sh scripts/embed-text.sh bg_site_css $(SITE_CSS) >$@.tmp && mv $@.tmp $@

$(BUILD)/gen/site-css.o: $(BUILD)/gen/site-css.c
	$(QUIET_CC)$(COMPILE)$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(LIB_A): $(LIB_OBJ)
	@rm -f $@
	$(QUIET_AR)ar rcs $@ $^

$(BIN)/bootgate: $(CLI_OBJ) $(LIB_A)
	@mkdir -p $(dir $@)
	$(QUIET_LINK)$(CC) $(ALL_CFLAGS) -o $@ $(CLI_OBJ) $(LIB_A) $(LIBS)

$(BIN)/bootgated: $(DAEMON_OBJ) $(LIB_A)
	@mkdir -p $(dir $@)
	$(QUIET_LINK)$(CC) $(ALL_CFLAGS) -o $@ $(DAEMON_OBJ) $(LIB_A) $(LIBS)

# a worker of one file
$(BIN)/bootgate-%: $(BUILD)/workers/bootgate-%.o $(LIB_A)
	@mkdir -p $(dir $@)
	$(QUIET_LINK)$(CC) $(ALL_CFLAGS) -o $@ $< $(LIB_A) $(LIBS)

# A worker of a folder: a rule for each, $(BIN)/bootgate-NAME from the objects of
# workers/NAME/*.c (their headers are in the .d files included below).
worker_obj = $(patsubst %.c,$(BUILD)/%.o,$(wildcard workers/$(1)/*.c))
define worker_dir_rule
$(BIN)/bootgate-$(1): $(call worker_obj,$(1)) $(LIB_A)
	@mkdir -p $$(dir $$@)
	$$(QUIET_LINK)$$(CC) $$(ALL_CFLAGS) -o $$@ $(call worker_obj,$(1)) $$(LIB_A) $$(LIBS)
endef
$(foreach d,$(WORKER_DIRS),$(eval $(call worker_dir_rule,$(d))))

# a unit program: its object (the fixtures' path compiled in), linked with the library
UNIT_OBJ = $(UNIT_SRC:%.c=$(BUILD)/%.o)
$(UNIT_OBJ): ALL_CFLAGS += -Ibench -Itests/unit -DFIXTURES='"$(CURDIR)/tests/fixtures"'
$(UNIT_BIN): $(BUILD)/tests/unit/%: $(BUILD)/tests/unit/%.o $(BENCH_OBJ) $(LIB_A)
	@mkdir -p $(dir $@)
	$(QUIET_LINK)$(CC) $(ALL_CFLAGS) -o $@ $(filter %.o,$^) $(LIB_A) $(LIBS) $(TEST_LIBS)
# t-cmd-help holds the commands' help against their option tables: it links them (no main)
$(BUILD)/tests/unit/t-cmd-help.o: ALL_CFLAGS += -Idaemon
$(BUILD)/tests/unit/t-cmd-help: $(filter-out $(BUILD)/daemon/bootgate.o,$(CLI_OBJ)) \
	$(BUILD)/daemon/bootgated-opts.o

# ---- dependencies: each entry point installs what it needs when it is missing

deps:
	@sh scripts/deps.sh build
deps-unit:
	@sh scripts/deps.sh build unit
deps-sanitize:
	@sh scripts/deps.sh build unit clang
deps-e2e:
	@sh scripts/deps.sh build e2e kernel lava
deps-bench:
	@sh scripts/deps.sh build bench kernel lava
deps-analyze:
	@sh scripts/deps.sh build analyze

# ---- the main job

demo:
	@sh scripts/deps.sh build kernel demo
	@$(MAKE) --no-print-directory -s all
	@sh scripts/demo.sh

# the quick tour of the parser, the verdict and the bisection engine on shipped logs
tour:
	@sh scripts/deps.sh build kernel
	@$(MAKE) --no-print-directory -s all
	@sh scripts/tour.sh

# ---- tests

# the unit tests need a compiler, cmocka, git and b4 (beside whom real mail is read): no
# QEMU, no kernel sources
check-unit: deps-unit
	@$(MAKE) --no-print-directory $(JOBS) $(UNIT_BIN)
	@$(if $(SANITIZE),LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp) \
		SUITE=$(if $(SANITIZE),unit-sanitize,unit) sh tests/run.sh unit $(UNIT_BIN)

# which group of lib/ may include which: the basics nothing, deciding no external library
check-layout:
	@sh tests/layout.sh

check-sanitize: deps-sanitize
	@$(MAKE) --no-print-directory SANITIZE=address,undefined CC=clang check-unit

# One LAVA lab for every test that uses it (started by the first, tests/e2e/lib-lava.sh),
# stopped at the end, or when the tier is stopped, unless it ran before. A lab that does
# not stop fails no test: the tests' verdicts stand, and the next start finds it.
check-e2e: deps-e2e all
	@lava=0; sh scripts/lava-lab.sh status >/dev/null 2>&1 && lava=1; \
	trap '[ $$lava = 1 ] || sh scripts/lava-lab.sh stop 2>build/lava-stop.log || \
		echo "check-e2e: the LAVA lab did not stop (build/lava-stop.log)" >&2' EXIT; \
	trap 'exit 130' INT; trap 'exit 143' TERM HUP; \
	BOOTGATE_LAVA_KEEP=1 sh tests/run.sh e2e tests/e2e/t*.sh

# the libFuzzer targets (tests/fuzz/fuzz-NAME.c) and the seeds of each
FUZZ_TARGETS = bootlog bb mbox conf lava webhook
FUZZ_SEEDS_bootlog = tests/fixtures/bootlogs/*.log tests/fixtures/lava/*.yaml \
	tests/fixtures/bootdata/*.txt
FUZZ_SEEDS_bb = tests/corpora/*.bb
FUZZ_SEEDS_mbox = tests/fixtures/mbox/*
FUZZ_SEEDS_conf = tests/fuzz/seeds/conf/*
FUZZ_SEEDS_lava = tests/fuzz/seeds/lava/*
FUZZ_SEEDS_webhook = tests/fuzz/seeds/webhook/*

# The targets run as many at once as there are cores (each fuzzer is one process), the
# longest first: 80 s of fuzzing in about 40 s of wall time on two cores.
FUZZ_SECONDS_bootlog = $(FUZZ_SECONDS)
FUZZ_SECONDS_bb = $(FUZZ_BB_SECONDS)
FUZZ_SECONDS_mbox = $(FUZZ_MBOX_SECONDS)
FUZZ_SECONDS_conf = $(FUZZ_CONF_SECONDS)
FUZZ_SECONDS_lava = $(FUZZ_LAVA_SECONDS)
FUZZ_SECONDS_webhook = $(FUZZ_WEBHOOK_SECONDS)

check-fuzz: deps-sanitize
	@$(MAKE) --no-print-directory $(JOBS) $(FUZZ_TARGETS:%=build/fuzz/fuzz-%)
	@$(MAKE) --no-print-directory -k $(JOBS) --output-sync=target $(FUZZ_TARGETS:%=fuzz-run-%)

$(FUZZ_TARGETS:%=fuzz-run-%): fuzz-run-%:
	@FUZZ_RUNS= sh tests/fuzz/run.sh build/fuzz/fuzz-$* $(FUZZ_SECONDS_$*) $(FUZZ_SEEDS_$*)

# every target to FUZZ_RUNS executions, however long it takes; an input over 1 s fails
# (FUZZ_TIMEOUT=N in the environment: N s, for a machine busy with other work)
fuzz-long: deps-sanitize
	@$(MAKE) --no-print-directory $(FUZZ_TARGETS:%=build/fuzz/fuzz-%)
	@fail=0; $(foreach t,$(FUZZ_TARGETS),FUZZ_RUNS=$(FUZZ_RUNS) sh tests/fuzz/run.sh \
		build/fuzz/fuzz-$(t) 0 $(FUZZ_SEEDS_$(t)) || fail=1;) exit $$fail

# the library is compiled once with the fuzzer's coverage (fuzzer-no-link), and each
# target links it
FUZZ_CFLAGS = -std=gnu11 -D_GNU_SOURCE -g -O1 -Ilib -Ibench -fno-sanitize-recover=all
FUZZ_OBJ = $(patsubst %.c,build/fuzz/obj/%.o,$(LIB_SRC) $(BENCH_SRC) \
	$(BUILD)/gen/migrations.c $(BUILD)/gen/site-css.c)
build/fuzz/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(QUIET_CC)$(COMPILE)clang $(FUZZ_CFLAGS) $(PREFIX_MAP) \
		-fsanitize=fuzzer-no-link,address,undefined -MMD -MP -c -o $@ $<
$(FUZZ_TARGETS:%=build/fuzz/fuzz-%): build/fuzz/fuzz-%: tests/fuzz/fuzz-%.c $(FUZZ_OBJ)
	@mkdir -p $(dir $@)
	$(QUIET_LINK)clang $(FUZZ_CFLAGS) -fsanitize=fuzzer,address,undefined -o $@ $< \
		$(FUZZ_OBJ) $(LIBS)
-include $(FUZZ_OBJ:.o=.d)

# The end-to-end tier's packages (most of a fresh machine's apt time: QEMU, the kernel
# source, the cross compilers, LAVA, Chromium) install in the background while the
# unit tiers and the fuzzers use the cores; the end-to-end tier waits for them. (The
# fuzzers in the background instead, at the least CPU weight, slowed the first e2e script
# from 25 to 53 s and saved nothing measurable: bench/check-times.md, 35758b9.) Each
# tier's wall seconds go to build/check-times, and the closing table shows them beside
# the budget (tests/run.sh total).
CHECK_TIMED = CHECK_SUMMARY=$(CURDIR)/build/check-summary sh tests/run.sh timed \
	$(CURDIR)/build/check-times
# the closing table; after a tier that failed too, then make check stops
CHECK_TOTAL = sh tests/run.sh total build/check-summary build/check-times build/check-start
CHECK_FAILED = { $(CHECK_TOTAL); exit 1; }
check:
	@rm -f build/check-summary build/check-times build/deps-e2e.rc
	@mkdir -p build
	@date +%s >build/check-start
	@: >build/check-summary
	@$(CHECK_TIMED) packages $(MAKE) --no-print-directory deps-sanitize || $(CHECK_FAILED)
	@(sh scripts/deps.sh build e2e kernel lava; echo $$? >build/deps-e2e.rc) \
		>build/deps-e2e.log 2>&1 &
	@$(CHECK_TIMED) build $(MAKE) --no-print-directory $(JOBS) all || $(CHECK_FAILED)
	@$(CHECK_TIMED) layout $(MAKE) --no-print-directory check-layout || $(CHECK_FAILED)
	@$(CHECK_TIMED) unit $(MAKE) --no-print-directory check-unit || $(CHECK_FAILED)
	@$(CHECK_TIMED) unit-sanitize $(MAKE) --no-print-directory check-sanitize || $(CHECK_FAILED)
	@$(CHECK_TIMED) fuzz $(MAKE) --no-print-directory check-fuzz || $(CHECK_FAILED)
	@$(CHECK_TIMED) packages-e2e sh -c 'while [ ! -s build/deps-e2e.rc ]; do sleep 2; done; \
		cat build/deps-e2e.log; [ "$$(cat build/deps-e2e.rc)" = 0 ] || \
		{ echo "check: the end-to-end packages did not install" >&2; exit 1; }' || $(CHECK_FAILED)
	@$(CHECK_TIMED) e2e $(MAKE) --no-print-directory check-e2e || $(CHECK_FAILED)
	@$(CHECK_TOTAL)

# the 10-minute soak of continuous gating alone (make check runs a short one, t0186); its
# daemon gates trees that build no kernel
soak: all
	@sh scripts/deps.sh build e2e
	@BOOTGATE_SOAK_SECONDS=$(SOAK_SECONDS) sh tests/run.sh e2e tests/e2e/t0186-soak.sh

# ---- benchmarks and analysis

# each bench/bench-NAME.sh in turn; what they print also replaces the figures of the last
# run in bench/RESULTS.md, dated, with the commit
bench: deps-bench all
	@BOOTGATE_SOAK_SECONDS=$(SOAK_SECONDS) sh bench/results.sh bench/RESULTS.md \
		parse compare bisect kernel mail service inbox site lava soak

analyze: deps-analyze
	cppcheck --quiet --error-exitcode=1 --enable=warning,performance,portability \
		--std=c11 --inline-suppr -Ilib -Ibench lib daemon workers bench
	clang-tidy --quiet $(LIB_SRC) $(BENCH_SRC) $(CLI_SRC) $(WORKER_SRC) -- -std=gnu11 \
		-D_GNU_SOURCE -Ilib -Ibench

# ---- install and clean

SHARE_INSTALL = $(DESTDIR)$(PREFIX)/share/bootgate
SYSCONFDIR ?= /etc
MAN_INSTALL = $(DESTDIR)$(PREFIX)/share/man
UNIT_INSTALL = $(DESTDIR)$(PREFIX)/lib/systemd/system
SYSUSERS_INSTALL = $(DESTDIR)$(PREFIX)/lib/sysusers.d
TMPFILES_INSTALL = $(DESTDIR)$(PREFIX)/lib/tmpfiles.d
# the lab configuration, an example under /etc/bootgate that bootgated.service reads
CONF_INSTALL = $(DESTDIR)$(SYSCONFDIR)/bootgate
CONF_FILES = $(patsubst lab-configs/%,%,$(filter-out %/README.md,\
	$(wildcard lab-configs/*.yaml lab-configs/*/*)))

# Every path is quoted, so that a DESTDIR may hold blanks; PREFIX and SYSCONFDIR are
# also written into bootgated.service, where sed reads "&" and "|", and systemd blanks,
# quotes, "\" and "%", as more than a path: those are refused before anything is written.
install: all
	$(if $(findstring ',$(DESTDIR)$(PREFIX)$(SYSCONFDIR)),\
		$(error DESTDIR, PREFIX and SYSCONFDIR may not hold a quote))
	@case '$(PREFIX)$(SYSCONFDIR)' in *[!A-Za-z0-9/._+@-]*) \
		echo "make install: PREFIX and SYSCONFDIR may hold only letters, digits and" \
			"/._+@-:" '$(PREFIX)' '$(SYSCONFDIR)' >&2; exit 2;; esac
	install -d '$(BINDIR_INSTALL)' '$(SHARE_INSTALL)/lab-configs/boards' \
		'$(SHARE_INSTALL)/lab-configs/kconfig' '$(SHARE_INSTALL)/scripts' \
		'$(SHARE_INSTALL)/workers/init'
	install -m 755 $(PROGRAMS) '$(BINDIR_INSTALL)'
	install -m 644 lab-configs/bootgate.yaml '$(SHARE_INSTALL)/lab-configs'
	install -m 644 lab-configs/boards/*.yaml '$(SHARE_INSTALL)/lab-configs/boards'
	install -m 644 lab-configs/kconfig/*.config '$(SHARE_INSTALL)/lab-configs/kconfig'
	install -m 755 scripts/initramfs.sh scripts/kernel-repo.sh scripts/webhook-sign.sh \
		scripts/post-receive '$(SHARE_INSTALL)/scripts'
	install -m 644 workers/init/bootgate-init.c '$(SHARE_INSTALL)/workers/init'
	install -d '$(MAN_INSTALL)/man1' '$(MAN_INSTALL)/man5' '$(MAN_INSTALL)/man8' \
		'$(UNIT_INSTALL)' '$(SYSUSERS_INSTALL)' '$(TMPFILES_INSTALL)'
	install -m 644 $(MAN_DIR)/*.1 '$(MAN_INSTALL)/man1'
	install -m 644 docs/bootgate.yaml.5 '$(MAN_INSTALL)/man5'
	install -m 644 $(MAN_DIR)/*.8 '$(MAN_INSTALL)/man8'
	sed -e 's|@BINDIR@|$(PREFIX)/bin|g' -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' \
		systemd/bootgated.service.in >'$(UNIT_INSTALL)/bootgated.service.tmp'
	chmod 644 '$(UNIT_INSTALL)/bootgated.service.tmp'
	mv '$(UNIT_INSTALL)/bootgated.service.tmp' '$(UNIT_INSTALL)/bootgated.service'
	install -m 644 systemd/bootgate.sysusers '$(SYSUSERS_INSTALL)/bootgate.conf'
	sed -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' systemd/bootgate.tmpfiles.in \
		>'$(TMPFILES_INSTALL)/bootgate.conf'
	@# a file that is there already is the administrator's: kept, never overwritten
	@for f in $(CONF_FILES); do \
		if [ -e '$(CONF_INSTALL)'/"$$f" ]; then echo "kept $(CONF_INSTALL)/$$f"; \
		else install -D -m 644 "lab-configs/$$f" '$(CONF_INSTALL)'/"$$f" || exit 1; fi; \
	done
	@# the example's webhook secret, random, readable by no one else (tmpfiles.d then
	@# gives it to the group bootgate); one that is there is kept
	@if [ -e '$(CONF_INSTALL)/webhook.secret' ]; then echo "kept $(CONF_INSTALL)/webhook.secret"; \
	else (umask 077 && { od -An -N32 -tx1 /dev/urandom | tr -d ' \n' && echo; } \
		>'$(CONF_INSTALL)/webhook.secret') || exit 1; fi

# what install wrote, but /etc/bootgate: the configuration is the administrator's (and
# the store, under the configuration's state:, is never the installer's)
uninstall:
	$(if $(findstring ',$(DESTDIR)$(PREFIX)),\
		$(error DESTDIR and PREFIX may not hold a quote))
	rm -f $(foreach p,$(notdir $(PROGRAMS)),'$(BINDIR_INSTALL)/$(p)')
	rm -rf '$(SHARE_INSTALL)'
	rm -f '$(MAN_INSTALL)'/man1/bootgate.1 '$(MAN_INSTALL)'/man1/bootgate-*.1 \
		'$(MAN_INSTALL)/man5/bootgate.yaml.5' '$(MAN_INSTALL)/man8/bootgated.8'
	rm -f '$(UNIT_INSTALL)/bootgated.service' '$(SYSUSERS_INSTALL)/bootgate.conf' \
		'$(TMPFILES_INSTALL)/bootgate.conf'

clean:
	rm -rf build bin $(MAN_DIR)/*.[18] $(MAN_DIR)/.rendered

-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(WORKER_SRC:%.c=$(BUILD)/%.d) $(UNIT_OBJ:.o=.d)
