/*
 * What the lab did, into the store (store/store.h): trees, commits, builds, boots with
 * their samples, events. Each call is one transaction, so a kill between two loses
 * neither.
 */
#ifndef BG_RECORD_H
#define BG_RECORD_H

#include "util/compat.h"
#include "parse/bootlog.h"
#include "decide/verdict.h"
#include "conf/board.h"
#include "lab/result.h"
#include "store/store.h"

/* The tree of this name, made or its path updated. */
int bg_record_tree(struct bg_store *s, const char *name, const char *path, int64_t *id);
/* The commit's parent, subject and author, once. */
int bg_record_commit(struct bg_store *s, const char *repo, const char *sha);

int bg_record_build(struct bg_store *s, const struct bg_build_result *b, int64_t *id);

struct bg_stored_build {
	int64_t id;
	enum bg_build_status status;
	char *image, *image_sha256;
};
/*
 * The last build of commit for board that settles it: built with its image still
 * there, or failed (the commit does not build). 1 when found, 0 when not, -1 on errors.
 */
int bg_record_find_build(struct bg_store *s, const char *commit, const char *board,
			 struct bg_stored_build *out);
void bg_stored_build_release(struct bg_stored_build *b);

/* A boot of an image and, when it was read, its metrics. */
int bg_record_boot(struct bg_store *s, const char *image_sha256, const char *board,
		   const char *mode, enum bg_console console, const struct bg_boot_record *rec,
		   const struct bg_boot *parsed, int64_t *id);
/*
 * Adds a stored boot to a sample set as bg_sample_set_add_boot does: a boot that did
 * not complete is only counted.
 */
int bg_record_load_boot(struct bg_store *s, int64_t boot, struct bg_sample_set *set);

/*
 * An event of the service's log (bootgate log); tree and job 0 for none. The message is
 * returned (owned by the caller) for a program that also prints it.
 */
char *bg_record_eventv(struct bg_store *s, const char *level, int64_t tree, int64_t job,
		       const char *fmt, va_list ap);
void bg_record_event(struct bg_store *s, const char *level, int64_t tree, int64_t job,
		     const char *fmt, ...) BG_PRINTF(5, 6);

#endif
