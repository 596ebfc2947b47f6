#!/bin/sh
# beside: t0100-kernel.sh
# bootgate parse beside the kernel's own reader of initcall_debug consoles,
# scripts/bootgraph.pl: on consoles nobody here wrote (../shared/fixtures/real/bootlogs,
# when the checkout has it beside) and on the shipped ones, the initcalls bootgraph.pl
# draws are those bootgate reads, each as long.
#
# bootgraph.pl draws an SVG: a box per initcall from its "calling" line's time to its
# "initcall" line's, x = (start - first) * M, width = (end - start) * M, in pixels, for
# a scale M of its own (1950 pixels over the boot) and only boxes of at least 1950/1200
# pixels. M and first are fixed by the widest box; every other box must then start and
# last as bootgate says, to the microsecond, and every initcall bootgate reads in the
# part of the console bootgraph.pl reads must be drawn when it is that wide.
# Not compared, by its design and not by bootgate's: a name that repeats (bootgraph.pl
# keys on the function, and draws its last call: that one is compared), a module's
# function (the module is no part of its key), a name its regex cannot read, what comes
# after its end marker ("Write protecting the", "Freeing unused kernel memory"), and a
# log of several boots (it reads one). The consoles of ../shared have no initcall_debug
# lines: there both must find none.
. "$(dirname "$0")/lib.sh"

REAL=$ROOT/../shared/fixtures/real
if [ ! -d "$REAL/bootlogs" ]; then
	test_skip "bootgate and bootgraph.pl on the real and the shipped consoles" \
		"$REAL/bootlogs is absent: nothing to compare"
	test_done
	exit
fi

# the kernel's script, unmodified: from the kernel tree the kernel tests import
# (scripts/kernel-repo.sh), else from Debian's tarball (about 15 s, once: kept in build/)
bootgraph=$ROOT/build/bootgraph.pl
tree=${BOOTGATE_CACHE:-/var/cache/bootgate}/trees/linux
tarball=/usr/src/linux-source-6.1.tar.xz
if [ ! -s "$bootgraph" ]; then
	mkdir -p "$ROOT/build" &&
	{ git -C "$tree" show master:scripts/bootgraph.pl 2>/dev/null ||
	  { [ -f "$tarball" ] && tar -xOf "$tarball" linux-source-6.1/scripts/bootgraph.pl; }; } \
		>"$bootgraph.tmp" && [ -s "$bootgraph.tmp" ] && mv "$bootgraph.tmp" "$bootgraph" ||
		rm -f "$bootgraph.tmp"
fi
if [ ! -s "$bootgraph" ]; then
	test_skip "bootgate and bootgraph.pl on the real and the shipped consoles" \
		"no scripts/bootgraph.pl ($tree, $tarball): nothing to compare with"
	test_done
	exit
fi

# compare.py BOOTGATE BOOTGRAPH LOG...: one line per log, the totals, and each disagreement
cat >compare.py <<\PY
import json, re, subprocess, sys

# Disagreements that are not bootgate's: (log, initcall) -> why. A disagreement not
# listed here fails the test.
KNOWN = {
}

TOL_US = 1.0
MIN_PX = 1950.0 / 1200.0        # bootgraph.pl's threshold, in its pixels
NAME = re.compile(r'^[a-zA-Z0-9_.]+$')

bootgate, bootgraph, logs = sys.argv[1], sys.argv[2], sys.argv[3:]
totals = dict(logs=0, na=0, calls=0, agreed=0, known=0)
unlisted = []

def disagree(log, name, why):
    key = (log.rsplit('/', 1)[-1], name)
    if key in KNOWN:
        totals['known'] += 1
        print('#   %s: %s: %s (listed: %s)' % (key[0], name, why, KNOWN[key]))
    else:
        unlisted.append('%s: %s: %s' % (key[0], name, why))

for log in logs:
    short = log.rsplit('/', 1)[-1]
    with open(log, 'rb') as f:
        text = f.read().split(b'\n')
    # bootgraph.pl reads dmesg: of a console that dumps its ring buffer (the shipped
    # ones, quiet until DMESG-BEGIN), the dump; of any other, the whole console
    lo, hi = 1, len(text) + 1
    for n, line in enumerate(text, 1):
        if line.startswith(b'DMESG-BEGIN') and lo == 1:
            lo = n + 1
        elif line.startswith(b'DMESG-END') and lo > 1:
            hi = n
            break
    with open('dmesg', 'wb') as f:
        f.write(b'\n'.join(text[lo - 1:hi - 1]))
    svg = subprocess.run(['perl', bootgraph, 'dmesg'], capture_output=True, text=True)
    parsed = json.loads(subprocess.run([bootgate, 'parse', '--json', log],
                                       capture_output=True, text=True, check=True).stdout)
    boots = [b for b in parsed['logs'] if b['initcalls']]
    # bootgraph.pl stops at its end marker: it sees the calls before it whole
    done = hi
    for n in range(lo, hi):
        if b'Write protecting the' in text[n - 1] or b'Freeing unused kernel memory' in text[n - 1]:
            done = n
            break
    boxes = []          # (name, x, width)
    lines = svg.stdout.splitlines()
    for i, line in enumerate(lines):
        m = re.match(r'<rect x="([^"]+)" width="([^"]+)" y="[^"]+" height="145"', line)
        if m and i + 1 < len(lines):
            t = re.search(r'>([^<]*)</text>$', lines[i + 1])
            boxes.append((t.group(1), float(m.group(1)), float(m.group(2))))
    totals['logs'] += 1
    if len(boots) > 1:
        totals['na'] += 1
        print('# %s: %d boots with initcalls: bootgraph.pl reads a log as one boot' %
              (short, len(boots)))
        continue
    calls = boots[0]['initcalls'] if boots else []
    # bootgraph.pl keys on the function: of a name that repeats it draws the last call
    last = {}
    for c in calls:
        if c['start_us'] is None or not lo <= c['line'] < done:
            continue
        if not NAME.match(c['name']):
            continue
        last[c['name']] = c
    if not boxes:
        ok = not last
        print('# %s: bootgraph.pl draws nothing (%s), bootgate reads %d initcalls: %s' %
              (short, (svg.stderr.strip().splitlines() or ['no box'])[0], len(last),
               'agreed' if ok else 'DISAGREED'))
        if not ok:
            disagree(log, '*', 'bootgraph.pl draws no initcall')
        continue
    name, x, w = max(boxes, key=lambda b: b[2])
    big = last.get(name)
    if not big:
        disagree(log, name, 'drawn by bootgraph.pl, not read by bootgate')
        continue
    scale = w / (big['end_us'] - big['start_us'])
    first = big['start_us'] - x / scale
    drawn = {}
    agreed = 0
    for name, x, w in boxes:
        drawn[name] = True
        c = last.get(name)
        if not c:
            disagree(log, name, 'drawn by bootgraph.pl, not read by bootgate')
            continue
        start, length = first + x / scale, w / scale
        if (abs(start - c['start_us']) > TOL_US or
                abs(length - (c['end_us'] - c['start_us'])) > TOL_US):
            disagree(log, name, 'bootgraph.pl %.1f us from %.1f, bootgate %d from %d' %
                     (length, start, c['end_us'] - c['start_us'], c['start_us']))
            continue
        agreed += 1
    for name, c in last.items():
        px = (c['end_us'] - c['start_us']) * scale
        if name not in drawn and px >= MIN_PX * (1 + 1e-9):
            disagree(log, name, 'read by bootgate (%d us), not drawn by bootgraph.pl' %
                     (c['end_us'] - c['start_us']))
    totals['calls'] += len(boxes)
    totals['agreed'] += agreed
    print('# %s: %d initcalls drawn, %d agreed (%d read in its part, %d too short to draw)'
          % (short, len(boxes), agreed, len(last), len(last) - len(boxes)))

print('compared %(logs)d logs (%(na)d not comparable), %(calls)d initcalls: %(agreed)d '
      'agreed, %(known)d listed' % totals)
for u in unlisted:
    print('DISAGREES: ' + u)
sys.exit(1 if unlisted else 0)
PY

test_expect_success 'the real consoles, without initcall_debug: neither finds an initcall' '
	python3 compare.py "$BOOTGATE" "$bootgraph" "$REAL"/bootlogs/* 2>&1 | tee out &&
	cat out >>"$SCRATCH/.case-notes" &&
	! grep -q "DISAGREES\|Traceback" out &&
	grep -q "^compared $(ls "$REAL"/bootlogs | wc -l) logs (0 not comparable), 0 initcalls:" out
'

test_expect_success 'the shipped consoles, with initcall_debug: the same' '
	python3 compare.py "$BOOTGATE" "$bootgraph" "$FIXTURES"/bootlogs/*.log 2>&1 | tee out &&
	cat out >>"$SCRATCH/.case-notes" &&
	! grep -q "DISAGREES\|Traceback" out &&
	grep -q "initcalls: [1-9][0-9]* agreed" out
'

test_done
