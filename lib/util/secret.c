/* Secrets read from files and wiped after use (secret.h). */
#include <fcntl.h>
#include <sys/stat.h>

#include "util/secret.h"
#include "util/error.h"
#include "util/xmalloc.h"

size_t bg_secret_line(const char *s, size_t len)
{
	const char *lf = memchr(s, '\n', len);
	size_t n = lf ? (size_t)(lf - s) : len;

	if (n && s[n - 1] == '\r')
		n--;
	return n;
}

/*
 * Reads the whole file into buf[0..max] (one byte more than max tells a larger file): the
 * bytes read, or -1 with why. Straight into buf, which the caller wipes: no copy of the
 * secret is left in a buffer of ours.
 */
static ssize_t read_all(int fd, const char *path, char *buf, size_t max)
{
	size_t got = 0;
	ssize_t n;

	while (got <= max && (n = read(fd, buf + got, max + 1 - got)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return bg_error_errno("cannot read '%s'", path);
		got += (size_t)n;
	}
	if (got > max)
		return bg_error("'%s' is larger than %zu bytes", path, max);
	return (ssize_t)got;
}

char *bg_secret_read(const char *path, size_t max, size_t *len)
{
	/* O_NONBLOCK: a FIFO is refused, not waited on for a writer */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	char *buf = NULL;
	struct stat st;
	ssize_t got = -1;
	size_t n = 0;

	if (fd < 0) {
		bg_error_errno("cannot open '%s'", path);
		return NULL;
	}
	if (fstat(fd, &st) < 0) {
		bg_error_errno("cannot read '%s'", path);
	} else if (!S_ISREG(st.st_mode)) {
		bg_error("'%s' is not a regular file", path);
	} else if (fcntl(fd, F_SETFL, 0) < 0) {
		bg_error_errno("cannot read '%s'", path);
	} else {
		buf = xmalloc(max + 1);
		got = read_all(fd, path, buf, max);
	}
	close(fd);
	if (got >= 0) {
		n = bg_secret_line(buf, (size_t)got);
		if (!n)
			got = bg_error("'%s' holds no secret", path);
		else if (memchr(buf, '\0', n))
			got = bg_error("'%s' holds a NUL byte in its secret", path);
	}
	if (got < 0) {
		if (buf)
			explicit_bzero(buf, max + 1);
		free(buf);
		return NULL;
	}
	/* the line end and whatever follows it (a token on a later line too) go at once */
	explicit_bzero(buf + n, max + 1 - n);
	if (len)
		*len = n;
	return buf;
}

void bg_secret_free(char *secret)
{
	if (!secret)
		return;
	explicit_bzero(secret, strlen(secret));
	free(secret);
}
