/*
 * What the exports read (publish/export.h): for KCIDB the series, the builds, the
 * checkout each build belongs to, the boots of each image and their samples; for the
 * boot-data files every boot with the commit of its image. Typed rows, read in one
 * snapshot of the store.
 */
#ifndef BG_STORE_EXPORT_H
#define BG_STORE_EXPORT_H

#include "util/compat.h"
#include "store/store.h"

/* ---- KCIDB ---- */

/* A series with its tree and how its patches applied. */
struct bg_export_series {
	int64_t id;
	char *message_id, *subject, *state, *source;
	char *base, *patchset_hash;   /* NULL when not known */
	char *tree, *url, *branch;    /* its tree's, NULL when none */
	int64_t version, total;
	int64_t failed, applied;      /* its patches that did not apply, that did */
	double created;
};

struct bg_export_series_list {
	struct bg_export_series *v;
	size_t n, alloc;
};

/* Every series, in order. */
int bg_store_export_series(struct bg_store *s, struct bg_export_series_list *out);
void bg_export_series_list_release(struct bg_export_series_list *l);

struct bg_export_build {
	int64_t id;
	char *commit, *board, *status;
	char *config_hash, *image_sha256, *log;   /* NULL when none */
	char *image, *compiler;       /* the image's name and the compiler's line, or NULL */
	double seconds;               /* NAN when not known */
	double created;
	bool reused;
};

struct bg_export_builds {
	struct bg_export_build *v;
	size_t n, alloc;
};

/* Every build, in order. */
int bg_store_export_builds(struct bg_store *s, struct bg_export_builds *out);
void bg_export_builds_release(struct bg_export_builds *l);

/*
 * The series a patch of which made commit (the newest series, its first such patch): its
 * id, the patch's idx and the series' message id (owned by the caller). 1 found, 0 none,
 * -1 with why.
 */
int bg_store_export_patch_of(struct bg_store *s, const char *commit, int64_t *series,
			     int64_t *idx, char **message_id);

/* A tree as a checkout names it; the strings owned by the caller. */
struct bg_export_tree {
	int64_t id;
	char *name;
	char *url, *branch;           /* NULL when none */
};

/*
 * The first tree that knows commit: one of its jobs ran it, one of its comparisons or
 * bisections measured it, or it is the tree's last good commit or last tip. 1 found, 0
 * none, -1 with why.
 */
int bg_store_export_tree_of(struct bg_store *s, const char *commit, struct bg_export_tree *out);

/* The boots of one image on one board in one mode. */
struct bg_export_boot_set {
	char *mode;
	int64_t boots, complete;
	int64_t failed;               /* panicked, hung or stopped short */
	double start;                 /* the first one's creation */
	double seconds;               /* the wall seconds of them all, NAN when none known */
	/* of the boot that tells the outcome (the first failed, else complete): or NULL */
	char *console, *job_url;
};

struct bg_export_boot_sets {
	struct bg_export_boot_set *v;
	size_t n, alloc;
};

/* The boots of an image on a board, a set per mode, by mode. */
int bg_store_export_boot_sets(struct bg_store *s, const char *image_sha256, const char *board,
			      struct bg_export_boot_sets *out);
void bg_export_boot_sets_release(struct bg_export_boot_sets *l);

/* Samples as parallel arrays, metric[i] and value[i] (µs). */
struct bg_export_samples {
	char **metric;
	double *value;
	size_t n, alloc, alloc_value;
};

/*
 * The samples of the complete boots of an image on a board in a mode, ordered by metric
 * and, within one, by value.
 */
int bg_store_export_samples(struct bg_store *s, const char *image_sha256, const char *board,
			    const char *mode, struct bg_export_samples *out);
void bg_export_samples_release(struct bg_export_samples *l);

/* A culprit whose mail was sent, with the bisection that found it. */
struct bg_export_culprit {
	char *commit, *metric, *board, *mode;
	int64_t bisection;
	double confidence, regression_us;   /* NAN when not known */
	char *subject, *message_id;   /* the mail's, as sent */
	double sent;
	char *tree;                   /* NULL when its tree is gone */
};

struct bg_export_culprits {
	struct bg_export_culprit *v;
	size_t n, alloc;
};

/* The culprits mailed, one per mail, in the order they were written. */
int bg_store_export_culprits(struct bg_store *s, struct bg_export_culprits *out);
void bg_export_culprits_release(struct bg_export_culprits *l);

/* ---- boot-data files ---- */

struct bg_export_boot {
	int64_t id;
	char *board, *mode, *outcome, *image_sha256;
	char *console;                /* its path, NULL when none was stored */
	char *commit;                 /* the first one built into its image, or NULL */
	double created;
	char *kernel, *cmdline;       /* as the boot said them when it was read, or NULL */
};

struct bg_export_boots {
	struct bg_export_boot *v;
	size_t n, alloc;
};

/* Every boot, in order. */
int bg_store_export_boots(struct bg_store *s, struct bg_export_boots *out);
void bg_export_boots_release(struct bg_export_boots *l);

#endif
