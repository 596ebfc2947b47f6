/* The string buffer every text the programs build goes through. */
#include "util/strbuf.h"
#include "util/xmalloc.h"

char bg_strbuf_empty[1];

void bg_strbuf_init(struct bg_strbuf *sb, size_t max)
{
	sb->buf = bg_strbuf_empty;
	sb->len = 0;
	sb->alloc = 0;
	sb->max = max;
	sb->truncated = false;
}

void bg_strbuf_release(struct bg_strbuf *sb)
{
	if (sb->alloc)
		free(sb->buf);
	bg_strbuf_init(sb, sb->max);
}

char *bg_strbuf_detach(struct bg_strbuf *sb, size_t *len)
{
	char *p = sb->alloc ? sb->buf : xstrdup("");

	if (len)
		*len = sb->len;
	bg_strbuf_init(sb, sb->max);
	return p;
}

void bg_strbuf_reset(struct bg_strbuf *sb)
{
	bg_strbuf_setlen(sb, 0);
	sb->truncated = false;
}

void bg_strbuf_setlen(struct bg_strbuf *sb, size_t len)
{
	if (!sb->alloc)
		return;
	sb->len = len < sb->len ? len : sb->len;
	sb->buf[sb->len] = '\0';
}

void bg_strbuf_grow(struct bg_strbuf *sb, size_t extra)
{
	size_t need = sb->len + extra + 1;

	if (need < sb->len)
		abort();
	if (need <= sb->alloc)
		return;
	if (!sb->alloc) {
		sb->buf = NULL;
	}
	sb->alloc = sb->alloc * 3 / 2 > need ? sb->alloc * 3 / 2 : need;
	if (sb->alloc < 64)
		sb->alloc = 64;
	sb->buf = xrealloc(sb->buf, sb->alloc);
	if (sb->len == 0)
		sb->buf[0] = '\0';
}

int bg_strbuf_add(struct bg_strbuf *sb, const void *data, size_t len)
{
	int ret = 0;

	if (sb->max && sb->len + len > sb->max) {
		len = sb->max > sb->len ? sb->max - sb->len : 0;
		sb->truncated = true;
		ret = -1;
	}
	if (!len)
		return ret;
	bg_strbuf_grow(sb, len);
	memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
	return ret;
}

int bg_strbuf_addstr(struct bg_strbuf *sb, const char *s)
{
	return bg_strbuf_add(sb, s, strlen(s));
}

int bg_strbuf_addch(struct bg_strbuf *sb, int c)
{
	char ch = (char)c;

	return bg_strbuf_add(sb, &ch, 1);
}

int bg_strbuf_vaddf(struct bg_strbuf *sb, const char *fmt, va_list ap)
{
	char small[256];
	va_list cp;
	int n;

	va_copy(cp, ap);
	n = vsnprintf(small, sizeof(small), fmt, cp);
	va_end(cp);
	if (n < 0)
		return -1;
	if ((size_t)n < sizeof(small))
		return bg_strbuf_add(sb, small, n);
	{
		char *big = xmalloc((size_t)n + 1);
		int ret;

		vsnprintf(big, (size_t)n + 1, fmt, ap);
		ret = bg_strbuf_add(sb, big, n);
		free(big);
		return ret;
	}
}

int bg_strbuf_addf(struct bg_strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = bg_strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
	return ret;
}
