/*
 * Patch series from the lists: a public-inbox v2 mirror followed commit by commit (lore's
 * layout, DIR/git/N.git, one commit a message in the file `m`; or one epoch repository),
 * and a drop directory of mbox files. Complete series become `series` rows with their
 * patches and a queued `series` job; a newer version supersedes an older one.
 */
#ifndef BG_INBOX_H
#define BG_INBOX_H

#include "util/compat.h"
#include "util/strvec.h"

struct bg_store;

/* Commits read per transaction: a kill loses at most one batch's work, never reads twice. */
#define BG_INBOX_BATCH 500

/* A series this run made. */
struct bg_inbox_series {
	int64_t id;
	char *message_id;     /* the cover's, else patch 1's */
	char *subject;
	char *source;         /* inbox:NAME or drop:FILE */
	unsigned version, total;
	int64_t superseded_by;  /* a newer version already there: this one lost at once */
	unsigned superseded;    /* older versions it superseded */
};

struct bg_inbox_result {
	size_t messages;      /* messages read (inbox commits with an `m`, drop messages) */
	size_t deleted;       /* inbox commits without `m` (a message taken out) */
	size_t patches;       /* patch mails stored */
	size_t replies;       /* Re: and other answers, not stored */
	size_t ignored;       /* neither patch nor reply (announcements, pull requests) */
	size_t malformed;     /* mails that could not be read: each one in errors */
	size_t superseded;    /* older series marked superseded */
	size_t dropped, drop_failed;   /* drop files taken, and refused */
	struct bg_inbox_series *series;
	size_t nseries, alloc;
	struct bg_strvec errors;       /* "name:line: why", one per malformed mail or file */
};

void bg_inbox_result_release(struct bg_inbox_result *r);

/*
 * Reads what is new in the inbox at path since the cursors stored for name, stores its
 * patch mails, and makes every series that became complete (for the tree tree_id). A
 * mail that cannot be read is counted and named in res->errors, and the others are read;
 * -1 only when the inbox itself cannot be read or the store fails.
 */
int bg_inbox_follow(struct bg_store *s, const char *name, const char *path, int64_t tree_id,
		    struct bg_inbox_result *res);

/*
 * Every *.mbox and *.eml file in dir, each one series: recorded (source drop:FILE) and
 * moved to dir/done/, or moved to dir/failed/ beside FILE.error ("file:line: why").
 * -1 only when dir cannot be read or the store fails.
 */
int bg_inbox_drop(struct bg_store *s, const char *dir, int64_t tree_id,
		  struct bg_inbox_result *res);

#endif
