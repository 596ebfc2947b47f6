/*
 * The metric names every part of bootgate uses for what a boot measured:
 * "initcall.NAME" ("initcall.NAME#2" for a second initcall of that name, and
 * "initcall.NAME[MODULE]" for a module's, as the kernel prints it but for the space),
 * "probe.DEV", "boot.init", "boot.userspace", and "perf.trace_startup" once for each
 * perf run of the boot (a name that repeats: samples.seq keeps them apart); values in µs.
 */
#ifndef BG_METRICS_H
#define BG_METRICS_H

#include "util/compat.h"
#include "parse/bootlog.h"

/* One metric of a boot, as bg_boot_metrics gives it: borrowed for the call. */
struct bg_metric {
	const char *name;        /* "initcall.NAME#2" */
	int64_t usecs;
	int64_t start_us, end_us;   /* when it ran, printk time; -1 when unknown */
	uint64_t lineno;         /* the kernel's line that gave it (1-based), or 0 */
	const char *line;        /* that line's message, when the parser kept it, or NULL */
};

/* Calls fn for each metric of a boot, in boot order. */
void bg_boot_metrics(const struct bg_boot *b,
		     void (*fn)(const struct bg_metric *m, void *data), void *data);

#endif
