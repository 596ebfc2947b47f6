/* Writes JSON incrementally, escaping every string and repairing invalid UTF-8. */
#include "util/json.h"
#include "util/error.h"
#include "util/text.h"

#define FLUSH_AT 65536

void bg_json_init(struct bg_json *j, int fd, int pretty_depth)
{
	bg_strbuf_init(&j->out, 0);
	j->fd = fd;
	j->depth = 0;
	j->pretty_depth = pretty_depth;
	j->first[0] = true;
	j->after_key = false;
	j->err = 0;
}

int bg_json_flush(struct bg_json *j)
{
	size_t off = 0;

	if (j->fd < 0)
		return 0;
	while (off < j->out.len && !j->err) {
		ssize_t n = write(j->fd, j->out.buf + off, j->out.len - off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			j->err = errno;
			break;
		}
		off += (size_t)n;
	}
	bg_strbuf_reset(&j->out);
	if (j->err) {
		errno = j->err;
		return bg_error_errno("cannot write JSON output");
	}
	return 0;
}

int bg_json_finish(struct bg_json *j)
{
	int ret = 0;

	if (j->fd >= 0) {
		bg_strbuf_addch(&j->out, '\n');
		ret = bg_json_flush(j);
		bg_strbuf_release(&j->out);
	}
	return ret;
}

static void maybe_flush(struct bg_json *j)
{
	if (j->fd >= 0 && j->out.len >= FLUSH_AT)
		bg_json_flush(j);
}

static void newline(struct bg_json *j, int depth)
{
	bg_strbuf_grow(&j->out, 1 + 2 * (size_t)depth);
	j->out.buf[j->out.len++] = '\n';
	for (int i = 0; i < depth; i++) {
		j->out.buf[j->out.len++] = ' ';
		j->out.buf[j->out.len++] = ' ';
	}
	j->out.buf[j->out.len] = '\0';
}

/* Separator before a value or a key at the current depth. */
static void before_item(struct bg_json *j)
{
	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (!j->first[j->depth])
		bg_strbuf_addch(&j->out, ',');
	j->first[j->depth] = false;
	if (j->depth > 0 && j->depth <= j->pretty_depth)
		newline(j, j->depth);
}

static void container_open(struct bg_json *j, char c)
{
	before_item(j);
	bg_strbuf_addch(&j->out, c);
	if (j->depth + 1 < BG_JSON_MAX_DEPTH)
		j->depth++;
	j->first[j->depth] = true;
}

static void container_close(struct bg_json *j, char c)
{
	bool empty = j->first[j->depth];

	if (j->depth > 0)
		j->depth--;
	if (!empty && j->depth + 1 <= j->pretty_depth)
		newline(j, j->depth);
	bg_strbuf_addch(&j->out, c);
	maybe_flush(j);
}

void bg_json_raw_begin(struct bg_json *j, size_t room)
{
	before_item(j);
	bg_strbuf_grow(&j->out, room);
}

void bg_json_raw_end(struct bg_json *j)
{
	j->out.buf[j->out.len] = '\0';
	maybe_flush(j);
}

void bg_json_object_begin(struct bg_json *j)
{
	container_open(j, '{');
}

void bg_json_object_end(struct bg_json *j)
{
	container_close(j, '}');
}

void bg_json_array_begin(struct bg_json *j)
{
	container_open(j, '[');
}

void bg_json_array_end(struct bg_json *j)
{
	container_close(j, ']');
}

void bg_json_key(struct bg_json *j, const char *key)
{
	before_item(j);
	bg_strbuf_addch(&j->out, '"');
	bg_json_escape(&j->out, key, strlen(key));
	bg_strbuf_add(&j->out, "\": ", j->depth <= j->pretty_depth ? 3 : 2);
	j->after_key = true;
}

/* \u followed by cp as four hex digits, at o: the position after it. */
static char *add_u(char *o, uint32_t cp)
{
	static const char hex[] = "0123456789abcdef";

	o[0] = '\\';
	o[1] = 'u';
	o[2] = hex[cp >> 12 & 15];
	o[3] = hex[cp >> 8 & 15];
	o[4] = hex[cp >> 4 & 15];
	o[5] = hex[cp & 15];
	return o + 6;
}

/*
 * JSON's policy: every string keeps its code points, but what a terminal acts on (C0, DEL,
 * C1, a bidirectional formatting character) is written as \uXXXX, \n \t \r for those, so
 * that a document printed raw moves nothing; each byte that is not UTF-8 is U+FFFD.
 */
void bg_json_escape(struct bg_strbuf *sb, const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;
	char *o;

	/* worst case: every byte becomes \u00XX or U+FFFD (6 bytes) */
	bg_strbuf_grow(sb, len * 6);
	o = sb->buf + sb->len;
	while (i < len) {
		unsigned char c = s[i];
		struct bg_text_unit u;

		if (likely(c >= 0x20 && c < 0x7f && c != '"' && c != '\\')) {
			*o++ = (char)c;
			i++;
			continue;
		}
		u = bg_text_next(str + i, len - i);
		switch (u.kind) {
		case BG_TEXT_CHAR:
			if (c == '"' || c == '\\')
				*o++ = '\\';
			memcpy(o, s + i, u.len);
			o += u.len;
			break;
		case BG_TEXT_C0:
			if (c == '\n' || c == '\t' || c == '\r') {
				*o++ = '\\';
				*o++ = c == '\n' ? 'n' : c == '\t' ? 't' : 'r';
			} else {
				o = add_u(o, c);
			}
			break;
		case BG_TEXT_C1:
		case BG_TEXT_BIDI:
			/* at most 6 bytes for the 2 or 3 of the sequence: within the worst case */
			o = add_u(o, u.cp);
			break;
		case BG_TEXT_INVALID:
			memcpy(o, "\xef\xbf\xbd", 3);
			o += 3;
			break;
		}
		i += u.len;
	}
	sb->len = (size_t)(o - sb->buf);
	sb->buf[sb->len] = '\0';
}

void bg_strbuf_addint(struct bg_strbuf *sb, int64_t v)
{
	char tmp[24];
	char *p = tmp + sizeof(tmp);
	uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;
	size_t n;

	static const char pairs[] =
		"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
		"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
		"8081828384858687888990919293949596979899";

	/* two digits per division: integers are most of the bytes of a large JSON output */
	while (u >= 100) {
		unsigned d = (unsigned)(u % 100) * 2;

		u /= 100;
		*--p = pairs[d + 1];
		*--p = pairs[d];
	}
	if (u >= 10) {
		*--p = pairs[u * 2 + 1];
		*--p = pairs[u * 2];
	} else {
		*--p = (char)('0' + u);
	}
	if (v < 0)
		*--p = '-';
	n = (size_t)(tmp + sizeof(tmp) - p);
	if (sb->len + n + 1 > sb->alloc || sb->max)
		bg_strbuf_add(sb, p, n);
	else {
		memcpy(sb->buf + sb->len, p, n);
		sb->len += n;
		sb->buf[sb->len] = '\0';
	}
}

void bg_json_strn(struct bg_json *j, const char *s, size_t len)
{
	before_item(j);
	if (!s) {
		bg_strbuf_add(&j->out, "null", 4);
		return;
	}
	bg_strbuf_addch(&j->out, '"');
	bg_json_escape(&j->out, s, len);
	bg_strbuf_addch(&j->out, '"');
	maybe_flush(j);
}

void bg_json_str(struct bg_json *j, const char *s)
{
	bg_json_strn(j, s, s ? strlen(s) : 0);
}

void bg_json_int(struct bg_json *j, int64_t v)
{
	before_item(j);
	bg_strbuf_addint(&j->out, v);
}

void bg_json_double(struct bg_json *j, double v)
{
	before_item(j);
	if (v != v || v > 1e308 || v < -1e308) {
		bg_strbuf_add(&j->out, "null", 4);
		return;
	}
	bg_strbuf_addf(&j->out, "%.15g", v);
}

void bg_json_bool(struct bg_json *j, bool v)
{
	before_item(j);
	bg_strbuf_addstr(&j->out, v ? "true" : "false");
}

void bg_json_null(struct bg_json *j)
{
	before_item(j);
	bg_strbuf_add(&j->out, "null", 4);
}
