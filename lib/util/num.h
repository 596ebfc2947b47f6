/*
 * Numbers from text that a person or a file gave: all of the text must be the number,
 * within the range asked for. No sign, space, hex or suffix slips through ("-1", " 4",
 * "0x10", "4x", "4294967297" for a 32-bit count).
 */
#ifndef BG_NUM_H
#define BG_NUM_H

#include "util/compat.h"

/* 0, or -1 with bg_error_last() = "'S' is not a whole number from MIN to MAX". */
int bg_num_parse_ulong(const char *s, unsigned long min, unsigned long max, unsigned long *out);
/* The same for a signed whole number (a '-' is the only sign taken). */
int bg_num_parse_long(const char *s, long min, long max, long *out);
/* The same for a decimal number in [lo, hi]: digits, one '.', an optional leading '-'. */
int bg_num_parse_double(const char *s, double lo, double hi, double *out);
/* The length of the decimal number at the start of s ("12.5%" gives 4), or 0. */
size_t bg_num_decimal_len(const char *s);
/*
 * A time as the store keeps it (Unix seconds) in UTC, as strftime's fmt makes it: false,
 * buf "", for what is no time the store wrote (NaN, before 1970, after 9999), which no
 * reader may pass to gmtime (a year past 2^31 has no struct tm).
 */
bool bg_num_time_utc(double t, const char *fmt, char *buf, size_t size);

#endif
