/*
 * Reads a LAVA job log (a YAML list of {dt, lvl, msg}) and hands its console lines,
 * those of level "target" and "feedback", to the console parser.
 */
#include "bootlog.h"
#include "error.h"
#include "strbuf.h"
#include "yaml-event.h"

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

static void yaml_error(struct bg_bootlog *p, uint64_t entries)
{
	char where[4096];

	snprintf(where, sizeof(where), "%s:%s", bg_bootlog_name(p), bg_error_last());
	bg_bootlog_warn(p, where, "LAVA log is cut or malformed here; kept the %" PRIu64
			" entries before", entries);
}

int bg_bootlog_parse_lava(struct bg_bootlog *p,
			  ssize_t (*read_fn)(void *data, char *buf, size_t size), void *data)
{
	struct bg_yaml_reader *r = bg_yaml_reader_new(read_fn, data);
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
			yaml_error(p, entries);
			break;
		}
		if (ev.type == BG_YAML_END)
			break;
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
				yaml_error(p, entries);
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
				yaml_error(p, entries);
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
				yaml_error(p, entries);
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
