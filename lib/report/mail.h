/*
 * The report mails as text: RFC 5322 headers (RFC 2047 encoded words for what is not
 * ASCII, folded at 78 columns, nothing from a subject, a name or a log able to start a
 * header), plain bodies wrapped at 72 columns, recipients from trailers, and the rules
 * that say when no mail is due. Pure: no store, no network; lib/publish/mailer.c feeds it.
 */
#ifndef BG_MAIL_H
#define BG_MAIL_H

#include "util/compat.h"
#include "util/strbuf.h"
#include "decide/verdict.h"

#define BG_MAIL_BODY_COLUMNS 72
#define BG_MAIL_HEADER_COLUMNS 78

/* ---- addresses ---- */

struct bg_mail_addr {
	char *name;             /* the display name, or NULL */
	char *addr;             /* local@domain */
};

struct bg_mail_addrs {
	struct bg_mail_addr *v;
	size_t n, alloc;
};

/* Whether s is an address bootgate will put on an envelope: local@domain, printable
 * ASCII without space, quote, angle bracket, comma or control character, at most 254. */
bool bg_mail_addr_ok(const char *s);
/*
 * "Name <local@domain>", "\"Name\" <local@domain>" or "local@domain" into out (owned by
 * the caller, released with bg_mail_addr_release). -1 with why when it is none.
 */
int bg_mail_addr_parse(const char *s, struct bg_mail_addr *out);
void bg_mail_addr_release(struct bg_mail_addr *a);
/* Adds a copy unless the address is there already (compared without case); false then. */
bool bg_mail_addrs_add(struct bg_mail_addrs *l, const char *name, const char *addr);
bool bg_mail_addrs_has(const struct bg_mail_addrs *l, const char *addr);
void bg_mail_addrs_release(struct bg_mail_addrs *l);
/* The most people the trailers of one message add: a reply copies its patch's people. */
#define BG_MAIL_TRAILERS_MAX 32
/*
 * The people of a commit message (a patch mail's: its body up to "---"): every
 * Signed-off-by: and Cc: of its trailer block, the last paragraph, that holds an address
 * (a "# comment" after it dropped), added to out in order, BG_MAIL_TRAILERS_MAX at the
 * most. Nothing from the text above it or from a diff.
 */
void bg_mail_trailers(const char *message, struct bg_mail_addrs *out);

/* ---- headers ---- */

/* Whether id (without <>) can be a Message-ID: dot-atom-text "@" dot-atom-text, ≤ 250. */
bool bg_mail_msgid_ok(const char *id);
/*
 * "NAME: value\r\n", value an unstructured text: control characters become spaces,
 * bytes that are not UTF-8 become U+FFFD, words with other than printable ASCII (or
 * longer than a line) become encoded words (UTF-8, Q, ≤ 75 characters each), and lines
 * are folded at spaces to at most 78 columns.
 */
void bg_mail_header_text(struct bg_strbuf *sb, const char *name, const char *value);
/* "NAME: a, b, ...\r\n" of mailboxes, display names encoded or quoted, folded. */
void bg_mail_header_addrs(struct bg_strbuf *sb, const char *name, const struct bg_mail_addrs *l);
/* RFC 5322 date of t in UTC: "Tue, 02 Jan 2024 03:04:05 +0000". */
void bg_mail_date(char *buf, size_t size, time_t t);

/* ---- bodies ---- */

/* One line of untrusted text made safe for a body: controls to spaces, bad UTF-8 to U+FFFD. */
void bg_mail_clean(struct bg_strbuf *sb, const char *s);
/*
 * Appends text (cleaned as above, one paragraph) wrapped at 72 columns: the first line
 * starts with first, the others with rest. A word longer than a line stands alone.
 */
void bg_mail_wrap(struct bg_strbuf *sb, const char *first, const char *rest, const char *text);
/* A shell command wrapped at 72 columns with " \" at each break, indented by four. */
void bg_mail_command(struct bg_strbuf *sb, const char *indent, const char *cmd);
/*
 * Appends s as one POSIX shell word: as it is when it holds only letters, digits and
 * @%+=:,./_-, else in single quotes ('\'' for a quote). The commands of a mail are pasted
 * into shells, and a Message-ID or a name from the lists may hold $, ` or ;.
 */
void bg_mail_shell_word(struct bg_strbuf *sb, const char *s);

/* ---- the reports ---- */

struct bg_mail_step {
	const char *commit, *subject; /* subject may be NULL */
	const char *values;           /* "230080 230080" */
	const char *verdict;          /* good, bad, culprit, skip, unknown */
};

struct bg_mail_repro {
	const char *config;           /* "tinyconfig + common.config x86_64.config" */
	const char *command;          /* bootgate bisect ... / bootgate rerun ... */
	const char *rerun;            /* bootgate rerun ..., or NULL */
	const char *make;             /* the raw make line(s), or NULL */
	const char *qemu;             /* the raw QEMU line, or NULL */
};

struct bg_mail_bisection {
	int64_t id;
	const char *tree, *branch, *url;   /* url may be NULL */
	const char *culprit, *subject, *author, *date;
	const char *metric, *mode, *board;
	const char *console;               /* "quiet" is said; NULL or "verbose" is not */
	const char *good, *bad;
	/* the gates of bad on the tree's other boards (bg_store_other_boards); NULL: none */
	const char *other_boards;
	double confidence;
	/*
	 * The metric's verdicts (decide/verdict.h), each as its stored comparison gives it:
	 * step, the culprit against its parent in the bisection's mode; timing, the same in
	 * timing mode after a deterministic bisection, with boot.init (timing_init) and the
	 * boots a side; revert, the bad tip with the culprit reverted (its base) against the
	 * bad tip, when it applied (revert_applies 1; 0 it did not, -1 not tried), judged
	 * against regression_us. Any may be NULL.
	 */
	const struct bg_verdict *step, *timing, *timing_init, *revert;
	unsigned timing_boots;
	int revert_applies;
	double regression_us;
	const char *line_before, *line_after;  /* the kernel's own, or NULL */
	const struct bg_mail_step *steps;
	size_t nsteps;
	const char *const *job_urls;       /* the LAVA jobs of its boots, in order */
	size_t njob_urls;
	struct bg_mail_repro repro;
	const char *closes;                /* SITE/bisection/ID.html */
	const char *reporter;              /* "bootgate <from@addr>" */
	bool regzbot;                      /* tells regzbot the culprit */
};

struct bg_mail_patch {
	int idx;                           /* 0: the cover letter */
	const char *subject, *message_id, *author;
	const char *status;                /* applied, failed, skipped */
	const char *error;
	const char *commit;
	const char *verdict;               /* regression, improvement, same, unknown */
	const char *metric;
	double delta;
	const struct bg_verdict *v;        /* of metric in its comparison, or NULL */
	const char *line_before, *line_after;
};

struct bg_mail_series {
	int64_t id;
	const char *tree, *branch, *base, *mode, *board;
	const char *console;               /* as the bisection's */
	const struct bg_mail_patch *p;     /* cover (idx 0) when there is one, then 1..N */
	size_t n;
	size_t reply;                      /* the patch the mail answers, an index into p */
	bool regression;                   /* reply names a patch that made a metric slower */
	const struct bg_mail_patch *improved;  /* without one, the patch that made a
						  metric the most faster, or NULL */
	const char *const *job_urls;       /* the LAVA jobs of its boots, in order */
	size_t njob_urls;
	struct bg_mail_repro repro;
	const char *closes, *reporter;
};

/*
 * NULL when a bisection's outcome is worth a mail, else why not: only a found culprit
 * whose confidence reaches the floor is; an infrastructure failure, "unknown",
 * "unconfirmed" (its revert took nothing back), a range without one commit, a bisection
 * that failed or runs still are not.
 */
const char *bg_mail_bisection_skip(const char *state, const char *outcome, const char *culprit,
				   double confidence, double floor);
/*
 * NULL when a series is worth a mail, with *reply the patch to answer (the regression
 * with the largest delta, else the cover letter, else patch 1) and *regression; else
 * why not: it is not done, a patch did not apply, or nothing but unknown was measured.
 */
const char *bg_mail_series_skip(const char *state, const struct bg_mail_patch *p, size_t n,
				size_t *reply, bool *regression);

/*
 * "[TREE:BRANCH] SHA12 SUBJECT: METRIC +N µs (+P%) boot-time regression": the figure a
 * boot pays (bg_headline_pick), without one when the bisection has none.
 */
void bg_mail_bisection_subject(struct bg_strbuf *sb, const struct bg_mail_bisection *b);
/* "Re: SUBJECT" of the patch answered (no second "Re:"). */
void bg_mail_series_subject(struct bg_strbuf *sb, const struct bg_mail_series *s);
/* The bodies, LF line ends, every line at most 72 columns but lone long tokens. */
void bg_mail_bisection_body(struct bg_strbuf *sb, const struct bg_mail_bisection *b);
void bg_mail_series_body(struct bg_strbuf *sb, const struct bg_mail_series *s);

/*
 * The whole message: headers, then the body with CRLF line ends, a line longer than 998
 * octets broken before a character. A commit subject or a metric over 200 bytes is cut
 * in the Subject: (with "...").
 */
struct bg_mail_head {
	struct bg_mail_addr from;
	const struct bg_mail_addrs *to, *cc;
	const char *subject;
	const char *message_id;            /* without <> */
	const char *in_reply_to;           /* without <>, or NULL */
	time_t date;
	const char *tree, *branch, *kind;  /* X-Bootgate-Tree, -Branch, -Kind */
};
void bg_mail_message(struct bg_strbuf *out, const struct bg_mail_head *h, const char *body);

#endif
