/* The system headers every file of bootgate needs, then the banned functions. */
#ifndef BG_COMPAT_H
#define BG_COMPAT_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#if defined(__GNUC__)
#define BG_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define BG_NORETURN __attribute__((noreturn))
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#else
#define BG_PRINTF(f, a)
#define BG_NORETURN
#define likely(x) (x)
#define unlikely(x) (x)
#endif

#include "util/banned.h"

#endif
