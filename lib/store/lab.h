/*
 * What the lab did, as rows: trees and commits it read, builds and boots it made, each
 * boot's samples, the service's events. lab/record.c turns the workers' results into
 * these rows; the reuse of builds and boots reads them back.
 */
#ifndef BG_STORE_LAB_H
#define BG_STORE_LAB_H

#include "util/compat.h"
#include "store/store.h"

/* The tree of this name, made or its path updated; *id its row. */
int bg_store_tree_record(struct bg_store *s, const char *name, const char *path, int64_t *id);
/* Whether the store has noted this commit. */
int bg_store_commit_known(struct bg_store *s, const char *sha, bool *known);
int bg_store_commit_add(struct bg_store *s, const char *sha, const char *parent,
			const char *subject, const char *author);

struct bg_build_row {
	const char *commit, *board;
	const char *status;           /* built, failed, usage, infra, exec */
	const char *config_hash, *image, *image_sha256, *log, *error;
	const char *compiler;         /* its version line, or NULL */
	bool reused;
	long ccache_hits, ccache_misses;
	double seconds;
};
int bg_store_build_add(struct bg_store *s, const struct bg_build_row *b, int64_t *id);

/* A build that settles a commit on a board, newest first: id, status, image, image_sha256. */
int bg_store_build_rows(struct bg_store *s, const char *commit, const char *board,
			bg_store_row_fn fn, void *data);

struct bg_boot_row {
	const char *image_sha256, *board, *mode, *console_mode, *outcome;
	const char *console, *job_url, *kernel, *cmdline;
	double wall_s;
};

struct bg_sample_row {
	const char *metric;
	double value;
	double start_us, end_us;      /* NAN when unknown */
	uint64_t line;                /* 0 when unknown */
};

/* A boot and its samples, in one transaction; *id its row. */
int bg_store_boot_add(struct bg_store *s, const struct bg_boot_row *b,
		      const struct bg_sample_row *samples, size_t n, int64_t *id);
/* Its outcome (owned by the caller), NULL when there is no such boot. */
int bg_store_boot_outcome(struct bg_store *s, int64_t id, char **outcome);
/* Its samples in boot order: metric, value. */
int bg_store_boot_values(struct bg_store *s, int64_t id, bg_store_row_fn fn, void *data);
/* The value of one metric in a boot (def when the boot did not print it). */
int bg_store_boot_value(struct bg_store *s, int64_t id, const char *metric, double def,
			double *value);

/* Boots of an image on a board, in one mode and console mode. */
struct bg_boot_key {
	const char *image_sha256, *board, *mode, *console_mode;
};
/* How many of them completed. */
int bg_store_boots_complete(struct bg_store *s, const struct bg_boot_key *k, int64_t *n);
/* The first complete one after boot after (0: the first): its id, 0 when none. */
int bg_store_boot_next_complete(struct bg_store *s, const struct bg_boot_key *k, int64_t after,
				int64_t *id);

/* An event of the service's log; tree and job 0 for none. */
int bg_store_event_add(struct bg_store *s, const char *level, int64_t tree, int64_t job,
		       const char *message);

#endif
