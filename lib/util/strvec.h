/* A growable, NULL-terminated array of strings for argv and envp (git's strvec). */
#ifndef BG_STRVEC_H
#define BG_STRVEC_H

#include "util/compat.h"

struct bg_strvec {
	char **v;         /* always NULL-terminated once anything was pushed; owns its strings */
	size_t n, alloc;
};

#define BG_STRVEC_INIT { NULL, 0, 0 }

void bg_strvec_init(struct bg_strvec *sv);
/* Copies s. */
void bg_strvec_push(struct bg_strvec *sv, const char *s);
void bg_strvec_pushf(struct bg_strvec *sv, const char *fmt, ...) BG_PRINTF(2, 3);
/* Copies every string of a NULL-terminated list. */
void bg_strvec_pushv(struct bg_strvec *sv, char *const *v);
/* The array for exec: never NULL, NULL-terminated; borrowed from sv. */
char **bg_strvec_argv(struct bg_strvec *sv);
void bg_strvec_release(struct bg_strvec *sv);

#endif
