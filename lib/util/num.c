/* Strict numbers (num.h): strtoul, strtol and strtod, with everything they let pass checked. */
#include <math.h>
#include <time.h>

#include "util/num.h"
#include "util/error.h"

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

int bg_num_parse_ulong(const char *s, unsigned long min, unsigned long max, unsigned long *out)
{
	char *end;
	unsigned long v;

	/* strtoul skips spaces and takes a sign, wrapping "-1" around: neither is a count */
	if (!s || !is_digit(*s))
		goto bad;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v < min || v > max)
		goto bad;
	*out = v;
	return 0;
bad:
	return bg_error("'%s' is not a whole number from %lu to %lu", s ? s : "", min, max);
}

int bg_num_parse_long(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	if (!s || !(is_digit(*s) || (*s == '-' && is_digit(s[1]))))
		goto bad;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < min || v > max)
		goto bad;
	*out = v;
	return 0;
bad:
	return bg_error("'%s' is not a whole number from %ld to %ld", s ? s : "", min, max);
}

size_t bg_num_decimal_len(const char *s)
{
	size_t n = *s == '-' ? 1 : 0, digits = 0;
	bool dot = false;

	for (;; n++) {
		if (is_digit(s[n]))
			digits++;
		else if (s[n] == '.' && !dot)
			dot = true;
		else
			break;
	}
	return digits ? n : 0;
}

int bg_num_parse_double(const char *s, double lo, double hi, double *out)
{
	size_t n = s ? bg_num_decimal_len(s) : 0;
	double v;

	/* strtod also reads spaces, '+', hex, "inf" and "nan": the text is checked first */
	if (!n || s[n])
		goto bad;
	errno = 0;
	v = strtod(s, NULL);
	if (errno || !isfinite(v) || v < lo || v > hi)
		goto bad;
	*out = v;
	return 0;
bad:
	return bg_error("'%s' is not a number from %g to %g", s ? s : "", lo, hi);
}

bool bg_num_time_utc(double t, const char *fmt, char *buf, size_t size)
{
	struct tm tm;
	time_t sec;

	if (size)
		buf[0] = '\0';
	if (!(t >= 0 && t < 253402300800.0))
		return false;
	sec = (time_t)t;
	if (!gmtime_r(&sec, &tm) || !strftime(buf, size, fmt, &tm)) {
		if (size)
			buf[0] = '\0';
		return false;
	}
	return true;
}
