/*
 * The metric names every part of bootgate uses for what a boot measured:
 * "initcall.NAME" ("initcall.NAME#2" for a second initcall of that name), "probe.DEV",
 * "boot.init", "boot.userspace", and "perf.trace_startup" once for each perf run of the
 * boot (a name that repeats: samples.seq keeps them apart); values in µs.
 */
#ifndef BG_METRICS_H
#define BG_METRICS_H

#include "util/compat.h"
#include "parse/bootlog.h"

/*
 * Calls fn for each metric of a boot, in boot order; line is the kernel's own, or NULL.
 * metric and line are borrowed for the call.
 */
void bg_boot_metrics(const struct bg_boot *b,
		     void (*fn)(const char *metric, int64_t usecs, const char *line, void *data),
		     void *data);

#endif
