/*
 * Reads a LAVA job log (a YAML list of {dt, lvl, msg}) and hands its console lines,
 * those of level "target" and "feedback", to the console parser.
 */
#include "parse/bootlog.h"
#include "util/error.h"
#include "util/strbuf.h"
#include "parse/yaml-event.h"

static bool is_console_level(const struct bg_strbuf *lvl)
{
	return !strcmp(lvl->buf, "target") || !strcmp(lvl->buf, "feedback");
}

/* LAVA writes the console's quotes as \" inside the message: undo that. */
static void unescape_quotes(struct bg_strbuf *msg)
{
	char *w = msg->buf;

	for (size_t i = 0; i < msg->len; i++) {
		if (msg->buf[i] == '\\' && i + 1 < msg->len && msg->buf[i + 1] == '"')
			continue;
		*w++ = msg->buf[i];
	}
	bg_strbuf_setlen(msg, (size_t)(w - msg->buf));
}

/* Sends a message, which may hold several lines, to the console parser. */
static int feed_message(struct bg_bootlog *p, const struct bg_strbuf *msg)
{
	const char *s = msg->buf, *end = msg->buf + msg->len;
	int ret = 0;

	while (s <= end && !ret) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *stop = nl ? nl : end;

		ret = bg_bootlog_console_line(p, s, (size_t)(stop - s));
		if (!nl)
			break;
		s = nl + 1;
	}
	return ret;
}

/*
 * LAVA writes one entry per line, at most 10^6 characters (longer ones it replaces), and
 * nests two or three levels deep. libyaml's scanner slows down quadratically with the
 * nesting ("- " and then 200 000 '[' took minutes), so the bytes pass through a guard on
 * their way to it: a line longer than LAVA_MAX_LINE or flow nesting deeper than
 * LAVA_MAX_DEPTH ends the input there, as a cut log does, and is reported.
 */
#define LAVA_MAX_LINE (1u << 20)
#define LAVA_MAX_DEPTH 16

struct guard {
	ssize_t (*read_fn)(void *, char *, size_t);
	void *data;
	uint64_t line;              /* 1-based line of the next byte */
	size_t col;                 /* bytes so far in the current line */
	int depth;                  /* flow nesting outside quoted scalars */
	char quote;                 /* '"' or '\'' inside a quoted scalar, else 0 */
	bool escaped;               /* the byte before was a backslash in a "" scalar */
	char prev;                  /* the last byte outside a quoted scalar */
	const char *why;            /* set once the input was cut */
};

/* Whether a quote after prev starts a quoted scalar (and is not inside a plain one). */
static bool scalar_start(char prev)
{
	return prev == '\0' || strchr(" \t\n\r[{,:-?", prev);
}

static ssize_t guarded_read(void *data, char *buf, size_t size)
{
	struct guard *g = data;
	ssize_t n;

	if (g->why)
		return 0;
	n = g->read_fn(g->data, buf, size);
	for (ssize_t i = 0; i < n; i++) {
		char c = buf[i];

		if (c == '\n') {
			g->line++;
			g->col = 0;
		} else if (++g->col > LAVA_MAX_LINE) {
			g->why = "a line longer than 1 MiB";
		}
		if (g->quote == '"') {
			if (g->escaped)
				g->escaped = false;
			else if (c == '\\')
				g->escaped = true;
			else if (c == '"')
				g->quote = 0;
		} else if (g->quote) {
			if (c == '\'')
				g->quote = 0;   /* '' inside reopens at once: same depth either way */
		} else {
			if ((c == '"' || c == '\'') && scalar_start(g->prev))
				g->quote = c;
			else if ((c == '[' || c == '{') && ++g->depth > LAVA_MAX_DEPTH)
				g->why = "nesting deeper than 16 levels";
			else if ((c == ']' || c == '}') && g->depth > 0)
				g->depth--;
			g->prev = c;
		}
		if (g->why)
			return i;       /* what came before the problem is still read */
	}
	return n;
}

static void yaml_error(struct bg_bootlog *p, const struct guard *g, uint64_t entries)
{
	char where[4096];

	if (g->why)
		snprintf(where, sizeof(where), "%s:%" PRIu64, bg_bootlog_name(p), g->line);
	else
		snprintf(where, sizeof(where), "%s:%s", bg_bootlog_name(p), bg_error_last());
	if (g->why)
		bg_bootlog_warn(p, where, "LAVA log has %s here; kept the %" PRIu64
				" entries before", g->why, entries);
	else
		bg_bootlog_warn(p, where, "LAVA log is cut or malformed here; kept the %" PRIu64
				" entries before", entries);
}

int bg_bootlog_parse_lava(struct bg_bootlog *p,
			  ssize_t (*read_fn)(void *data, char *buf, size_t size), void *data)
{
	struct guard g = { read_fn, data, 1, 0, 0, 0, false, '\0', NULL };
	struct bg_yaml_reader *r = bg_yaml_reader_new(guarded_read, &g);
	struct bg_strbuf key = BG_STRBUF_INIT, lvl = BG_STRBUF_INIT, msg = BG_STRBUF_INIT;
	struct bg_yaml_event ev;
	uint64_t entries = 0;
	size_t entry_line = 0;
	bool have_msg = false, in_entry = false, want_value = false;
	int ret = 0, depth = 0;

	if (!r)
		return bg_error("'%s': cannot set up the YAML parser", bg_bootlog_name(p));
	msg.max = (size_t)BG_BOOTLOG_MAX_LINE * 4;
	for (;;) {
		if (bg_yaml_next(r, &ev) < 0) {
			yaml_error(p, &g, entries);
			break;
		}
		if (ev.type == BG_YAML_END) {
			if (g.why)
				yaml_error(p, &g, entries);
			break;
		}
		if (depth == 0) {
			if (ev.type != BG_YAML_SEQ_BEGIN) {
				char where[4096];

				snprintf(where, sizeof(where), "%s:%zu:%zu", bg_bootlog_name(p),
					 ev.line, ev.column);
				bg_bootlog_warn(p, where, "a LAVA log is a YAML list of entries");
				break;
			}
			depth = 1;
			continue;
		}
		if (!in_entry) {
			if (ev.type == BG_YAML_MAP_BEGIN) {
				in_entry = true;
				entry_line = ev.line;
				want_value = false;
				have_msg = false;
				bg_strbuf_reset(&lvl);
				bg_strbuf_reset(&msg);
			} else if (ev.type == BG_YAML_SEQ_BEGIN && bg_yaml_skip(r) < 0) {
				yaml_error(p, &g, entries);
				break;
			} else if (ev.type == BG_YAML_SEQ_END) {
				depth = 0;
			}
			continue;
		}
		/* inside one entry: key, value, key, value ... */
		if (ev.type == BG_YAML_MAP_END && !want_value) {
			in_entry = false;
			bg_bootlog_set_lineno(p, entry_line);
			entries++;
			if (have_msg && is_console_level(&lvl)) {
				unescape_quotes(&msg);
				if ((ret = feed_message(p, &msg)))
					break;
			}
			continue;
		}
		if (!want_value) {
			bg_strbuf_reset(&key);
			if (ev.type == BG_YAML_SCALAR)
				bg_strbuf_add(&key, ev.value, ev.len);
			else if ((ev.type == BG_YAML_MAP_BEGIN || ev.type == BG_YAML_SEQ_BEGIN) &&
				 bg_yaml_skip(r) < 0) {
				yaml_error(p, &g, entries);
				break;
			}
			want_value = true;
			continue;
		}
		want_value = false;
		if (ev.type == BG_YAML_SCALAR) {
			if (!strcmp(key.buf, "lvl")) {
				bg_strbuf_add(&lvl, ev.value, ev.len);
			} else if (!strcmp(key.buf, "msg")) {
				bg_strbuf_add(&msg, ev.value, ev.len);
				have_msg = true;
			}
		} else if (ev.type == BG_YAML_MAP_BEGIN || ev.type == BG_YAML_SEQ_BEGIN) {
			/* "results" entries carry a mapping as msg: not console output */
			if (bg_yaml_skip(r) < 0) {
				yaml_error(p, &g, entries);
				break;
			}
		}
	}
	bg_yaml_reader_free(r);
	bg_strbuf_release(&key);
	bg_strbuf_release(&lvl);
	bg_strbuf_release(&msg);
	return ret;
}
