/*
 * LAVA, the lab scheduler: a board's job written from its template, and the REST v0.2
 * calls that send it, follow it and read its log back (http-client.h underneath).
 *
 * Every call says what kind of answer came, because the boot worker acts on that alone:
 * an unreachable server or a 5xx is worth waiting for, a refused token or a refused job
 * is the configuration's mistake and ends the run at once. Each failure leaves
 * bg_error_last() = "URL: why", the token never in it.
 */
#ifndef BG_LAVA_H
#define BG_LAVA_H

#include "util/compat.h"
#include "util/strbuf.h"
#include "conf/board.h"

enum bg_lava_rc {
	BG_LAVA_OK = 0,
	BG_LAVA_UNREACHABLE = -1,   /* no answer, or a 5xx: try again later */
	BG_LAVA_REFUSED = -2,       /* 401/403: the token is wrong */
	BG_LAVA_INVALID = -3,       /* 400: the server refused the job as written */
	BG_LAVA_ANSWER = -4,        /* an answer of another shape: 404 for a job, bad JSON */
};

struct bg_lava {
	const char *url;            /* the server, without /api */
	char *auth;                 /* "Authorization: Token ...": never logged */
	long timeout;               /* s per request; 0: http-client.h's */
};

/*
 * Reads the board's token (the first line of lava_token_file, as util/secret.h reads it,
 * or of the environment variable lava_token_env) into srv. -1 with why, naming the file
 * or the variable, never the token.
 */
int bg_lava_open(const struct bg_lava_board *l, struct bg_lava *srv);
/* Wipes the token. */
void bg_lava_close(struct bg_lava *srv);

/* Who the token belongs to (GET /system/whoami/): a wrong token is known before a job. */
enum bg_lava_rc bg_lava_whoami(struct bg_lava *srv);
enum bg_lava_rc bg_lava_submit(struct bg_lava *srv, const char *job, long *id);

struct bg_lava_job {
	char state[16];             /* Submitted Scheduling Scheduled Running Canceling Finished */
	char health[16];            /* Unknown, then Complete Incomplete Canceled */
	char device[64];            /* the device it ran on, once scheduled */
};

enum bg_lava_rc bg_lava_status(struct bg_lava *srv, long id, struct bg_lava_job *job);
/*
 * Appends the job's log lines from line start on (0-based), BG_LAVA_LOG_LINES at most, to
 * out and counts them in *lines; none while the job has not written one yet (LAVA's 404).
 * A line without its newline is kept for the next call, unless the job has finished.
 * An answer longer than 64 MiB is BG_LAVA_ANSWER.
 */
#define BG_LAVA_LOG_LINES 5000
enum bg_lava_rc bg_lava_log(struct bg_lava *srv, long id, size_t start, bool finished,
			    struct bg_strbuf *out, size_t *lines);
enum bg_lava_rc bg_lava_cancel(struct bg_lava *srv, long id);
/*
 * What submit, status and log make of an answer of the expected status: body is len
 * bytes as the server sent them, url the request's, named in errors ("url:line:col: why"
 * for JSON that does not read). A JSON answer holding a NUL byte is BG_LAVA_ANSWER, and
 * so is a submit answer naming other than one whole job id. bg_lava_parse_log appends to out as bg_lava_log does
 * and returns the lines it appended.
 */
enum bg_lava_rc bg_lava_parse_submit(const char *url, const char *body, size_t len, long *id);
enum bg_lava_rc bg_lava_parse_status(const char *url, long id, const char *body, size_t len,
				     struct bg_lava_job *job);
size_t bg_lava_parse_log(const char *body, size_t len, bool finished, struct bg_strbuf *out);
/* SERVER/scheduler/job/ID: where a person reads the job. */
char *bg_lava_job_url(const struct bg_lava *srv, long id);

/* @NAME@ values for a template. */
struct bg_lava_var {
	const char *name, *value;
};

/*
 * Writes the board's job: its template (lab-configs/lava/TEMPLATE) read as YAML, each
 * @NAME@ inside a value replaced from vars or the board's lava_vars, the board's tags
 * added as the job's tags, all written again by the YAML writer. A scalar that was one
 * placeholder and became a number is written as a number. -1 with "file:line:col: why"
 * for an unknown placeholder, an alias, a template that is not a mapping or that names
 * its own tags.
 */
int bg_lava_render(const struct bg_board *b, const struct bg_lava_var *vars, size_t nvars,
		   struct bg_strbuf *out);

#endif
