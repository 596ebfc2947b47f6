/* Strict numbers (num.h): strtoul and strtod, with everything they let pass checked. */
#include <math.h>

#include "util/num.h"
#include "util/error.h"

int bg_parse_ulong(const char *s, unsigned long min, unsigned long max, unsigned long *out)
{
	char *end;
	unsigned long v;

	/* strtoul skips spaces and accepts a sign, wrapping "-1" around: neither is a count */
	if (!s || !(*s >= '0' && *s <= '9'))
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

int bg_parse_double(const char *s, double lo, double hi, double *out)
{
	char *end;
	double v;

	if (!s || !((*s >= '0' && *s <= '9') || *s == '.' || *s == '-'))
		goto bad;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v < lo || v > hi)
		goto bad;
	*out = v;
	return 0;
bad:
	return bg_error("'%s' is not a number from %g to %g", s ? s : "", lo, hi);
}
