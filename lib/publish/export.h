/*
 * The store's results as data, in the formats the field already shares: KernelCI's KCIDB
 * I/O schema v5.3 (kernelci/kcidb-io, kcidb_io/schema/v05_03.py) and the boot-time
 * wizard's boot-data files (report/bootdata.h), one per stored boot.
 */
#ifndef BG_PUBLISH_EXPORT_H
#define BG_PUBLISH_EXPORT_H

#include "store/store.h"
#include "util/json.h"
#include "util/strbuf.h"

#define BG_KCIDB_ORIGIN "bootgate"
#define BG_KCIDB_MAJOR 5
#define BG_KCIDB_MINOR 3

/* Whether s can be a KCIDB origin: the schema's [a-z0-9_]+. */
bool bg_kcidb_origin_ok(const char *s);
/*
 * Appends the KCIDB test path of a metric, dot-separated names of [a-zA-Z0-9_-], under
 * "boottime" (KernelCI counts every test under "boot" as a boot):
 * "initcall.init_kprobe_trace" is "boottime.initcall.init_kprobe_trace", "boot.init" is
 * "boottime.init",
 * and inside a name every other byte ('.', ':' and '#' of "probe.0000:00:1f.2" or
 * "initcall.blake2s_mod_init#2") is '_'; misc.metric keeps the metric's own name.
 */
void bg_kcidb_path(struct bg_strbuf *sb, const char *metric);
/* Unix seconds as RFC 3339 ("2026-12-01T14:36:52.250000+00:00"); false for no time. */
bool bg_kcidb_time(char buf[40], double t);

struct bg_kcidb_counts {
	size_t checkouts, builds, tests, issues, incidents;
};

/*
 * Writes the store as one KCIDB document to j: checkouts (one per tested commit of a
 * tree, patchset_hash ""; one per series from a list, with its patchset_hash and
 * message_id; a commit built outside any tree gets one of its own), builds (one per
 * builds row; its compiler; the board's arch from lab, when its board file is there, and
 * a LAVA board's image as served to the lab in output_files), tests: for each build of
 * an image, per board and mode, the boots as one test "boot" (PASS, FAIL when a boot
 * panicked, hung or stopped short, MISS when the lab alone failed; the boots' seconds,
 * the LAVA job's plain log, the end of the console of the boot that tells the outcome)
 * and one test per metric, status DONE, the median of the boots that completed in number
 * {value in s, unit "s", prefix "metric"}, each with the board as misc.platform and its
 * compatible; issues: one per culprit mailed; incidents: the culprit's builds on its
 * board and its metric's test in them. -1 with why on a store error.
 */
int bg_export_kcidb(struct bg_store *s, const char *origin, const char *lab, struct bg_json *j,
		    struct bg_kcidb_counts *counts);

struct bg_bootdata_file {
	int64_t boot;
	const char *board, *commit;   /* the commit: the first build of the boot's image */
	const char *path;
};

/*
 * One boot-data file per stored boot with a console, in dir (made if it is not there, in a
 * directory that is), named by bg_bootdata_file_name. on_file hears of each file written; on_problem of each boot
 * left out (error false: nothing to export, no console stored; true: its console could
 * not be read or the file not written). Returns 0, 1 when a boot failed, -1 on a store
 * error or a dir that cannot be made (its parent missing: never made).
 */
int bg_export_boot_data(struct bg_store *s, const char *dir,
			void (*on_file)(const struct bg_bootdata_file *f, void *data),
			void (*on_problem)(int64_t boot, const char *why, bool error, void *data),
			void *data);

#endif
