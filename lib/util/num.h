/*
 * Numbers from text that a person or a file gave: all of the text must be the number,
 * within the range asked for. No sign, space or suffix slips through ("-1", " 4", "4x",
 * "4294967297" for a 32-bit count).
 */
#ifndef BG_NUM_H
#define BG_NUM_H

#include "util/compat.h"

/* 0, or -1 with bg_error_last() = "'S' is not a whole number from MIN to MAX". */
int bg_parse_ulong(const char *s, unsigned long min, unsigned long max, unsigned long *out);
/* The same for a finite decimal number in [lo, hi]. */
int bg_parse_double(const char *s, double lo, double hi, double *out);

#endif
