/* LAVA jobs: written from templates, sent and followed over REST v0.2 (lava.h). */
#include <ctype.h>
#include <math.h>

#include "net/http-client.h"
#include "util/json-read.h"
#include "lab/lava.h"
#include "parse/yaml-event.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/secret.h"
#include "util/text.h"
#include "util/xmalloc.h"

#define TOKEN_MAX 512
#define TEMPLATE_MAX ((size_t)1 << 20)
#define LOG_CHUNK_MAX ((size_t)64 << 20)
#define JSON_MAX ((size_t)1 << 20)

int bg_lava_open(const struct bg_lava_board *l, struct bg_lava *srv)
{
	char *file = NULL;
	const char *tok, *from;
	size_t n;
	int ret = -1;
	bool bad = false;

	memset(srv, 0, sizeof(*srv));
	srv->url = l->url;
	if (*l->token_env) {
		from = l->token_env;
		if (!(tok = getenv(l->token_env)))
			return bg_error("the LAVA token's variable %s is not set", l->token_env);
		/* the first line, as a file's */
		n = bg_secret_line(tok, strlen(tok));
		if (!n)
			return bg_error("the LAVA token in %s is empty", from);
	} else {
		from = l->token_file;
		if (!(file = bg_secret_read(l->token_file, TOKEN_MAX, &n)))
			return bg_error("the LAVA token: %s", bg_error_last());
		tok = file;
	}
	/* the token goes into a header line: nothing in it may end or bend that line */
	for (size_t i = 0; i < n && !bad; i++)
		bad = !isgraph((unsigned char)tok[i]);
	if (bad) {
		bg_error("the LAVA token in %s holds a space or a control character", from);
		goto out;
	}
	srv->auth = xasprintf("Authorization: Token %.*s", (int)n, tok);
	ret = 0;
out:
	bg_secret_free(file);
	return ret;
}

void bg_lava_close(struct bg_lava *srv)
{
	if (srv->auth) {
		explicit_bzero(srv->auth, strlen(srv->auth));
		free(srv->auth);
	}
	srv->auth = NULL;
}

/* The REST API's URL of path; free() it. */
static char *api_url(const struct bg_lava *srv, const char *path)
{
	return xasprintf("%s/api/v0.2/%s", srv->url, path);
}

/* One call: the kind of answer, with the server's words for anything but success. */
static enum bg_lava_rc call(struct bg_lava *srv, const char *method, const char *path,
			    const char *body, size_t body_len, size_t max, long ok_status,
			    struct bg_http_client_response *a)
{
	char *url = api_url(srv, path);
	struct bg_http_client_request rq = { method, url, srv->auth, "application/json", body,
					     body_len, max, 0, srv->timeout };
	enum bg_lava_rc rc = BG_LAVA_OK;
	const char *what = NULL;

	if (bg_http_client_send(&rq, a) < 0) {
		free(url);
		return BG_LAVA_UNREACHABLE;
	}
	if (a->status == ok_status) {
		free(url);
		return BG_LAVA_OK;
	}
	if (a->status >= 500) {
		rc = BG_LAVA_UNREACHABLE;
		what = "the server failed";
	} else if (a->status == 401 || a->status == 403) {
		rc = BG_LAVA_REFUSED;
		what = "the token is refused";
	} else if (a->status == 400) {
		rc = BG_LAVA_INVALID;
		what = "the job is refused";
	} else {
		rc = BG_LAVA_ANSWER;
		what = "unexpected answer";
	}
	/* the server's own words, escaped onto one line, bounded */
	{
		struct bg_strbuf words = BG_STRBUF_INIT;

		bg_text_escape_line(&words, a->body.buf, a->body.len < 300 ? a->body.len : 300);
		bg_error("%s: %s (HTTP %ld: %s)", url, what, a->status,
			 words.len ? words.buf : "no body");
		bg_strbuf_release(&words);
	}
	free(url);
	return rc;
}

/* An answer read as JSON: NULL with "url:line:col: why" (url the request's). */
static struct bg_json_doc *answer_json(const char *url, const char *body, size_t len)
{
	struct bg_json_doc *d;
	const char *nul = memchr(body, '\0', len);
	char *text;

	/* the JSON reader stops at a NUL: what follows one would go unread */
	if (nul) {
		bg_error("%s: byte %zu of the answer is a NUL", url, (size_t)(nul - body));
		return NULL;
	}
	text = xstrndup(body, len);
	d = bg_json_doc_parse(url, text);
	free(text);
	return d;
}

static enum bg_lava_rc call_json(struct bg_lava *srv, const char *method, const char *path,
				 const char *body, size_t body_len, long ok_status,
				 struct bg_json_doc **doc)
{
	struct bg_http_client_response a;
	enum bg_lava_rc rc = call(srv, method, path, body, body_len, JSON_MAX, ok_status, &a);
	char *url = api_url(srv, path);

	*doc = NULL;
	if (rc == BG_LAVA_OK && !(*doc = answer_json(url, a.body.buf, a.body.len)))
		rc = BG_LAVA_ANSWER;
	free(url);
	bg_strbuf_release(&a.body);
	return rc;
}

enum bg_lava_rc bg_lava_whoami(struct bg_lava *srv)
{
	struct bg_json_doc *d;
	enum bg_lava_rc rc = call_json(srv, "GET", "system/whoami/", NULL, 0, 200, &d);

	bg_json_doc_free(d);
	return rc;
}

/* {"definition": job}, as the REST API takes a job. */
static char *definition(const char *job, size_t *len)
{
	struct bg_json j;

	bg_json_init(&j, -1, 0);
	bg_json_object_begin(&j);
	bg_json_key(&j, "definition");
	bg_json_str(&j, job);
	bg_json_object_end(&j);
	return bg_strbuf_detach(&j.out, len);
}

enum bg_lava_rc bg_lava_parse_submit(const char *url, const char *body, size_t len, long *id)
{
	struct bg_json_doc *d = answer_json(url, body, len);
	size_t n;
	double v;

	*id = 0;
	if (!d)
		return BG_LAVA_ANSWER;
	v = bg_json_num(bg_json_at(bg_json_get(bg_json_doc_root(d), "job_ids"), 0));
	n = bg_json_len(bg_json_get(bg_json_doc_root(d), "job_ids"));
	bg_json_doc_free(d);
	/* one job, one whole id: 7.9 or [7, 8] would follow a job that is not ours */
	if (n != 1 || !(v >= 1 && v < 1e15) || v != floor(v)) {
		bg_error("%s: the server took the job but named no single job id", url);
		return BG_LAVA_ANSWER;
	}
	*id = (long)v;
	return BG_LAVA_OK;
}

enum bg_lava_rc bg_lava_submit(struct bg_lava *srv, const char *job, long *id)
{
	size_t len;
	char *body = definition(job, &len);
	struct bg_http_client_response a;
	enum bg_lava_rc rc = call(srv, "POST", "jobs/", body, len, JSON_MAX, 201, &a);

	char *url = api_url(srv, "jobs/");

	free(body);
	*id = 0;
	if (rc == BG_LAVA_OK)
		rc = bg_lava_parse_submit(url, a.body.buf, a.body.len, id);
	free(url);
	bg_strbuf_release(&a.body);
	return rc;
}

static void copy_field(const struct bg_json_doc *d, const char *key, char *out, size_t size)
{
	const char *v = bg_json_text(bg_json_get(bg_json_doc_root(d), key));

	snprintf(out, size, "%s", v ? v : "");
	for (char *p = out; *p; p++)
		if (!isgraph((unsigned char)*p))
			*p = '?';    /* it reaches logs and the JSON result */
}

enum bg_lava_rc bg_lava_parse_status(const char *url, long id, const char *body, size_t len,
				     struct bg_lava_job *job)
{
	struct bg_json_doc *d = answer_json(url, body, len);

	memset(job, 0, sizeof(*job));
	if (!d)
		return BG_LAVA_ANSWER;
	copy_field(d, "state", job->state, sizeof(job->state));
	copy_field(d, "health", job->health, sizeof(job->health));
	copy_field(d, "actual_device", job->device, sizeof(job->device));
	bg_json_doc_free(d);
	if (!*job->state) {
		bg_error("%s: job %ld has no state", url, id);
		return BG_LAVA_ANSWER;
	}
	return BG_LAVA_OK;
}

enum bg_lava_rc bg_lava_status(struct bg_lava *srv, long id, struct bg_lava_job *job)
{
	char path[64];
	struct bg_http_client_response a;
	enum bg_lava_rc rc;

	memset(job, 0, sizeof(*job));
	snprintf(path, sizeof(path), "jobs/%ld/", id);
	rc = call(srv, "GET", path, NULL, 0, JSON_MAX, 200, &a);
	if (rc == BG_LAVA_OK) {
		char *url = api_url(srv, path);

		rc = bg_lava_parse_status(url, id, a.body.buf, a.body.len, job);
		free(url);
	}
	bg_strbuf_release(&a.body);
	return rc;
}

size_t bg_lava_parse_log(const char *body, size_t len, bool finished, struct bg_strbuf *out)
{
	size_t keep = len, lines = 0;

	/* whole lines only: a line still being written comes with the next call */
	while (keep && body[keep - 1] != '\n')
		keep--;
	for (size_t i = 0; i < keep; i++)
		lines += body[i] == '\n';
	bg_strbuf_add(out, body, keep);
	/* of a finished job the last line is whole, ended or not */
	if (finished && keep < len) {
		bg_strbuf_add(out, body + keep, len - keep);
		bg_strbuf_addch(out, '\n');
		lines++;
	}
	return lines;
}

enum bg_lava_rc bg_lava_log(struct bg_lava *srv, long id, size_t start, bool finished,
			    struct bg_strbuf *out, size_t *lines)
{
	char path[96];
	struct bg_http_client_response a;
	enum bg_lava_rc rc;

	*lines = 0;
	/* a bounded range: a log of any length comes in answers of bounded size */
	snprintf(path, sizeof(path), "jobs/%ld/logs/?start=%zu&end=%zu", id, start,
		 start + BG_LAVA_LOG_LINES);
	rc = call(srv, "GET", path, NULL, 0, LOG_CHUNK_MAX, 200, &a);
	if (rc == BG_LAVA_ANSWER && a.status == 404) {
		/* no line at or after start yet */
		bg_strbuf_release(&a.body);
		return BG_LAVA_OK;
	}
	if (rc == BG_LAVA_OK)
		*lines = bg_lava_parse_log(a.body.buf, a.body.len, finished, out);
	bg_strbuf_release(&a.body);
	return rc;
}

enum bg_lava_rc bg_lava_cancel(struct bg_lava *srv, long id)
{
	char path[64];
	struct bg_json_doc *d;
	enum bg_lava_rc rc;

	snprintf(path, sizeof(path), "jobs/%ld/cancel/", id);
	rc = call_json(srv, "GET", path, NULL, 0, 200, &d);
	bg_json_doc_free(d);
	return rc;
}

char *bg_lava_job_url(const struct bg_lava *srv, long id)
{
	return xasprintf("%s/scheduler/job/%ld", srv->url, id);
}

/* ---- templates ---- */

struct render {
	const char *file;
	const struct bg_lava_var *vars;
	size_t nvars;
	char *const *board_vars;
	size_t nboard_vars;
};

/* The value of NAME (len bytes), or NULL. */
static const char *lookup(const struct render *r, const char *name, size_t len)
{
	for (size_t i = 0; i < r->nvars; i++)
		if (strlen(r->vars[i].name) == len && !memcmp(r->vars[i].name, name, len))
			return r->vars[i].value;
	for (size_t i = 0; i < r->nboard_vars; i++)
		if (!strncmp(r->board_vars[i], name, len) && r->board_vars[i][len] == '=')
			return r->board_vars[i] + len + 1;
	return NULL;
}

/*
 * Replaces each @NAME@ of the scalar in ev; *whole says it was one placeholder alone.
 * An '@' that does not open a placeholder ([A-Z0-9_]+ then '@') stays as it is.
 */
static int substitute(const struct render *r, const struct bg_yaml_event *ev,
		      struct bg_strbuf *out, bool *whole)
{
	const char *s = ev->value, *end = ev->value + ev->len;
	unsigned n = 0;

	*whole = false;
	bg_strbuf_reset(out);
	while (s < end) {
		const char *at = memchr(s, '@', (size_t)(end - s)), *name, *close, *v;
		size_t len;

		if (!at) {
			bg_strbuf_add(out, s, (size_t)(end - s));
			break;
		}
		bg_strbuf_add(out, s, (size_t)(at - s));
		name = at + 1;
		len = 0;
		while (name + len < end && (isupper((unsigned char)name[len]) ||
					    isdigit((unsigned char)name[len]) || name[len] == '_'))
			len++;
		close = name + len;
		if (!len || close >= end || *close != '@') {
			bg_strbuf_addch(out, '@');
			s = at + 1;
			continue;
		}
		if (!(v = lookup(r, name, len)))
			return bg_error("%s:%zu:%zu: unknown placeholder @%.*s@", r->file, ev->line,
					ev->column, (int)len, name);
		bg_strbuf_addstr(out, v);
		n++;
		*whole = at == ev->value && close + 1 == end;
		s = close + 1;
	}
	*whole = *whole && n == 1;
	return 0;
}

static bool all_digits(const char *s)
{
	return *s && strspn(s, "0123456789") == strlen(s);
}

/* The job's tags, after its device_type. */
static int write_tags(struct bg_yaml_writer *w, const struct bg_lava_board *l)
{
	struct bg_yaml_event e = { .type = BG_YAML_SCALAR, .value = "tags", .len = 4 };

	if (bg_yaml_write(w, &e) < 0)
		return -1;
	e = (struct bg_yaml_event){ .type = BG_YAML_SEQ_BEGIN, .flow = true };
	if (bg_yaml_write(w, &e) < 0)
		return -1;
	for (size_t i = 0; i < l->ntags; i++) {
		e = (struct bg_yaml_event){ .type = BG_YAML_SCALAR, .value = l->tags[i],
					    .len = strlen(l->tags[i]), .quoted = true };
		if (bg_yaml_write(w, &e) < 0)
			return -1;
	}
	e = (struct bg_yaml_event){ .type = BG_YAML_SEQ_END };
	return bg_yaml_write(w, &e);
}

int bg_lava_render(const struct bg_board *b, const struct bg_lava_var *vars, size_t nvars,
		   struct bg_strbuf *out)
{
	const struct bg_lava_board *l = &b->lava;
	char *path = xasprintf("%s/lava/%s", b->lab, l->job_template), *text;
	struct render r = { path, vars, nvars, l->vars, l->nvars };
	struct bg_yaml_reader *rd = NULL;
	struct bg_yaml_writer *w = NULL;
	struct bg_strbuf val = BG_STRBUF_INIT;
	/* per open collection: a map (expecting a key next) or a sequence */
	enum { SEQ, MAP_KEY, MAP_VALUE } stack[BG_CONF_MAX_DEPTH * 2];
	int depth = 0, ret = -1;
	bool top_key_device = false, tags_done = false;
	size_t len;

	if (!(text = bg_read_file(path, TEMPLATE_MAX, &len))) {
		free(path);
		return -1;
	}
	rd = bg_yaml_reader_new_mem(text, len);
	w = bg_yaml_writer_new(out);
	if (!rd || !w) {
		bg_error("%s: cannot start libyaml", path);
		goto out;
	}
	for (;;) {
		struct bg_yaml_event ev;
		bool was_key = false, whole;

		if (bg_yaml_next(rd, &ev) < 0) {
			bg_error("%s:%s", path, bg_error_last());
			goto out;
		}
		if (ev.type == BG_YAML_END)
			break;
		if (depth == 0 && ev.type != BG_YAML_MAP_BEGIN) {
			bg_error("%s:%zu:%zu: a LAVA job template is one YAML mapping", path, ev.line,
				 ev.column);
			goto out;
		}
		if (ev.type == BG_YAML_ALIAS) {
			bg_error("%s:%zu:%zu: no aliases in a job template", path, ev.line, ev.column);
			goto out;
		}
		if (depth > 0 && stack[depth - 1] == MAP_KEY && ev.type != BG_YAML_MAP_END) {
			was_key = true;
			if (ev.type != BG_YAML_SCALAR) {
				bg_error("%s:%zu:%zu: a key is a plain word", path, ev.line, ev.column);
				goto out;
			}
			if (depth == 1 && ev.len == 4 && !memcmp(ev.value, "tags", 4)) {
				bg_error("%s:%zu:%zu: the board's lava_tags are the job's tags: the "
					 "template names none", path, ev.line, ev.column);
				goto out;
			}
			top_key_device = depth == 1 && ev.len == 11 &&
					 !memcmp(ev.value, "device_type", 11);
		}
		if (ev.type == BG_YAML_SCALAR && !was_key) {
			if (substitute(&r, &ev, &val, &whole) < 0)
				goto out;
			ev.value = val.buf;
			ev.len = val.len;
			if (whole && all_digits(val.buf))
				ev.quoted = false;   /* "@JOB_MINUTES@" -> 20, a number */
		}
		if (bg_yaml_write(w, &ev) < 0) {
			bg_error("%s:%zu:%zu: %s", path, ev.line, ev.column, bg_error_last());
			goto out;
		}
		switch (ev.type) {
		case BG_YAML_MAP_BEGIN:
		case BG_YAML_SEQ_BEGIN:
			if (depth > 0 && stack[depth - 1] == MAP_VALUE)
				stack[depth - 1] = MAP_KEY;
			if (depth == (int)(sizeof(stack) / sizeof(*stack))) {
				bg_error("%s:%zu:%zu: nested too deep", path, ev.line, ev.column);
				goto out;
			}
			stack[depth++] = ev.type == BG_YAML_MAP_BEGIN ? MAP_KEY : SEQ;
			break;
		case BG_YAML_MAP_END:
		case BG_YAML_SEQ_END:
			depth--;
			break;
		default:
			if (depth > 0 && stack[depth - 1] != SEQ)
				stack[depth - 1] = was_key ? MAP_VALUE : MAP_KEY;
			/* the value of the top mapping's device_type was just written */
			if (!was_key && depth == 1 && top_key_device && !tags_done && l->ntags) {
				if (write_tags(w, l) < 0)
					goto out;
				tags_done = true;
			}
			break;
		}
	}
	if (bg_yaml_writer_finish(w) < 0) {
		bg_error("%s: %s", path, bg_error_last());
		goto out;
	}
	if (l->ntags && !tags_done) {
		bg_error("%s: the template has no device_type to put the board's tags beside",
			 path);
		goto out;
	}
	ret = 0;
out:
	bg_yaml_writer_free(w);
	bg_yaml_reader_free(rd);
	bg_strbuf_release(&val);
	free(text);
	free(path);
	return ret;
}
