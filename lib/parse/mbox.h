/*
 * Mail as the kernel lists carry it: one message or an mbox, decoded (RFC 5322 headers,
 * RFC 2047 words, MIME parts and transfer encodings), the [PATCH vN M/N] tag read, a
 * patch split as git am splits it, and the messages grouped into complete series.
 */
#ifndef BG_MBOX_H
#define BG_MBOX_H

#include "util/compat.h"

/* Limits for hostile input; each refusal says "name:line: why". */
#define BG_MSG_MAX (16u << 20)          /* bytes of one message */
#define BG_MSG_HEADER_MAX (64u << 10)   /* bytes of one header line, unfolded */
#define BG_MSG_PARTS_MAX 1000           /* MIME parts of one message */
#define BG_MSG_TOTAL_MAX 999            /* N of "M/N" */

/* One message as a list carries it, decoded. Every string is owned by the message. */
struct bg_msg {
	char *message_id;     /* without <>; NULL when the message has none */
	char *in_reply_to;    /* without <>; NULL when none */
	char **references;    /* without <>, in order */
	size_t nreferences;
	char *from;           /* RFC 2047-decoded "Name <addr>" (UTF-8); "addr" without a
	                         name, "" without a From: header */
	char *from_name;      /* decoded name, "" when none */
	char *from_addr;      /* addr-spec, lowercase domain */
	char *date;           /* the Date: header as written, NULL when none */
	int64_t when;         /* Date: in Unix seconds (0 when unreadable) */
	int tz_minutes;       /* its offset, e.g. -420 for -0700 */
	char *subject;        /* decoded (RFC 2047) and unfolded */
	char *body;           /* the text/plain body (first text/plain part of a multipart),
	                         transfer-decoded (quoted-printable, base64, 7/8bit), CRLF -> LF;
	                         a text/x-patch attachment is appended when the text part has
	                         no diff */
	size_t body_len;
	bool patch;           /* the subject carries a [... PATCH ...] tag, or an RFC or M/N
	                         ("M of N") one and the body a diff, and no Re:/Aw:/Fwd: */
	bool reply;           /* Re:/Aw:, or a non-patch with In-Reply-To; whether a patch
	                         replying to another message is part of its series is decided
	                         by bg_series_assemble */
	unsigned version;     /* the vN of the tag, 1 without one */
	unsigned idx, total;  /* M/N of the tag; 1/1 without one; idx 0: a cover letter; an
	                         idx past the total (a stray 3/2) belongs to no series */
	char *title;          /* the subject after the tag (the commit subject) */
	char *base_commit;    /* a "base-commit: <40 hex>" line of the body, NULL when none */
	size_t line;          /* 1-based line of its first header in what was parsed */
	char *name;           /* the name given to the parser, for messages about it */
	bool rfc;             /* the tag says RFC */
	char *author_name;    /* the author git am commits, read as git mailinfo reads him: an
	                         in-body From: (a forwarded patch's) over the header's; the
	                         address stands for a name that is empty, over 60 bytes or
	                         holds '@', '<' or '>'; "" when there is no address */
	char *author_addr;    /* its address as written, "" when none */
	char *commit_subject; /* the commit subject git am takes: an in-body Subject: (or a
	                         first line "[PATCH] ...") over the header's, without its
	                         leading Re:, ':' and [...] tags, runs of spaces made one */
	size_t raw_off, raw_len;  /* the message as it came: its bytes in the buffer parsed,
	                             without an mbox's "From " line (>From still quoted) */
};

/* One message (headers and body) from buf; name for errors ("name:line: why"). 0 or -1. */
int bg_msg_parse(const char *name, const char *buf, size_t len, struct bg_msg *m);
/* An mbox ("From " separator lines, >From unquoted) or one bare message: every message,
 * in order; *msgs belongs to the caller (bg_msgs_free). A message that cannot be read
 * is an error naming its line. 0 or -1. */
int bg_mbox_parse(const char *name, const char *buf, size_t len, struct bg_msg **msgs,
		  size_t *n);
void bg_msg_release(struct bg_msg *m);
void bg_msgs_free(struct bg_msg *msgs, size_t n);

/* A patch mail split as git am splits it: the commit message (the body up to the
 * "---" line, trailers included, without the leading From:/Date:/Subject: pseudo-headers
 * of a forwarded patch, which are returned in *from and *date when present) and the diff (from
 * the first "diff --git " line up to a "-- " signature line or the end). Pointers borrow
 * from m->body except *from and *date (owned by the caller, may be NULL). 0, or -1 when
 * the body has no diff ("name: patch M/N has no diff"). */
int bg_msg_patch(const struct bg_msg *m, const char **msg, size_t *msg_len,
		 const char **diff, size_t *diff_len, char **from, char **date);

/* A whole series found among msgs: its cover letter (or NULL) and patches 1..total, all
 * pointers into msgs. */
struct bg_series_msgs {
	const struct bg_msg *cover;
	const struct bg_msg **patches;   /* [0] is patch 1; total entries, none NULL */
	unsigned version, total;
};
/* Groups msgs into series by thread (In-Reply-To/References to the cover or patch 1),
 * version and total; patches that answer nothing by sender, version and total, sent
 * within 12 hours of each other (with a cover of the same that answers nothing); only
 * complete series (every patch 1..total there) are returned; of several versions of one
 * series (same author address and same title of the cover or of patch 1) only the newest;
 * replies and non-patches are ignored. *out belongs to the caller (bg_series_msgs_free).
 * 0 or -1. */
int bg_series_assemble(const struct bg_msg *msgs, size_t n, struct bg_series_msgs **out,
		       size_t *nout);
void bg_series_msgs_free(struct bg_series_msgs *s, size_t n);
/* What assembling s from msgs (parsed from buf) passed over without a word, as
 * "name:line: why" lines added to notes for the caller to warn of: another mail for one
 * of its patches, a stray patch past its total (M/N with M > N), a base-commit line that
 * is no commit id. */
struct bg_strvec;
void bg_series_notes(const char *buf, size_t len, const struct bg_msg *msgs, size_t n,
		     const struct bg_series_msgs *s, struct bg_strvec *notes);

/* The key that tells versions of one series apart from other series: "addr\ntitle"
 * of the cover, else of patch 1. Owned by the caller. */
char *bg_series_key(const struct bg_series_msgs *s);

#endif
