/*
 * Builds and boots the store remembers, reused; what it lacks, made by the workers and
 * recorded. What a bisection and a series share: a commit measured once is measured for
 * both, and a kill loses no finished build or boot.
 */
#ifndef BG_REUSE_H
#define BG_REUSE_H

#include "util/compat.h"
#include "util/log.h"
#include "decide/verdict.h"
#include "lab/record.h"
#include "lab/workers.h"
#include "store/store.h"

struct bg_reuse {
	struct bg_store *s;
	const char *repo;         /* the tree's real path */
	const char *board;        /* the board's own name */
	const char *lab;          /* NULL: bg_lab_dir() */
	const struct bg_build_config *config;   /* NULL: the board's */
	bool deterministic;
	bg_progress_fn progress;
	void *progress_data;
	enum bg_console console;  /* boots are taken and made in this console mode only */
};

/* "deterministic" or "timing": the boots' mode in the store. */
const char *bg_reuse_mode(const struct bg_reuse *r);

/*
 * The commit's build, recorded: a commit the store saw fail to build is not tried again;
 * else the build worker, which keeps an image of the same source and configuration
 * without building it again (the store does not know the configuration a build was made
 * with), tried again when the machine failed. what names it in the progress ("3 of 12").
 * 0 with *out filled (status built or failed); -1 with why.
 */
int bg_reuse_build(const struct bg_reuse *r, const char *sha, const char *what,
		   struct bg_stored_build *out);
/* Boots an image n times and records every boot, complete or not. */
int bg_reuse_boot(const struct bg_reuse *r, const char *image, const char *image_sha256,
		  unsigned n);
/* Boots the image until the store has n complete boots of it (one round of boots). */
int bg_reuse_boots(const struct bg_reuse *r, const char *image, const char *image_sha256,
		   unsigned n);
/* The first max (at most 64) complete boots of an image into set: the same on every run. */
int bg_reuse_load(const struct bg_reuse *r, const char *image_sha256, unsigned max,
		  struct bg_sample_set *set);
/* The same, and the boots' ids into ids (room for max), their number into *n. */
int bg_reuse_load_ids(const struct bg_reuse *r, const char *image_sha256, unsigned max,
		      struct bg_sample_set *set, int64_t *ids, size_t *n);

#endif
