/* Argument and environment vectors (strvec.h). */
#include "util/strvec.h"
#include "util/xmalloc.h"

void bg_strvec_init(struct bg_strvec *sv)
{
	sv->v = NULL;
	sv->n = sv->alloc = 0;
}

static void push_owned(struct bg_strvec *sv, char *s)
{
	ALLOC_GROW(sv->v, sv->n + 2, sv->alloc);
	sv->v[sv->n++] = s;
	sv->v[sv->n] = NULL;
}

void bg_strvec_push(struct bg_strvec *sv, const char *s)
{
	push_owned(sv, xstrdup(s));
}

void bg_strvec_pushf(struct bg_strvec *sv, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	push_owned(sv, xvasprintf(fmt, ap));
	va_end(ap);
}

void bg_strvec_pushv(struct bg_strvec *sv, char *const *v)
{
	for (; *v; v++)
		bg_strvec_push(sv, *v);
}

char **bg_strvec_argv(struct bg_strvec *sv)
{
	if (!sv->v) {
		sv->v = xcalloc(1, sizeof(*sv->v));
		sv->alloc = 1;
	}
	return sv->v;
}

void bg_strvec_release(struct bg_strvec *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	bg_strvec_init(sv);
}
