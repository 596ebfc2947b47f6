/* Shared helpers of the unit tests: cmocka, and parsing a string or a fixture into boots. */
#ifndef BG_UNIT_H
#define BG_UNIT_H

#include "util/compat.h"

#include <setjmp.h>
#include <cmocka.h>

#include "parse/bootlog.h"
#include "util/fs.h"
#include "util/path.h"
#include "util/xmalloc.h"

#define MAX_BOOTS 64

/* UNDER_ASAN: built with AddressSanitizer, whose allocator makes memory figures moot */
#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

/* A scratch directory of the test program's own, /tmp/bootgate-NAME.XXXXXX; NULL if none. */
static inline char *unit_scratch_dir(const char *name)
{
	char *tmpl = xasprintf("/tmp/bootgate-%s.XXXXXX", name);

	if (!mkdtemp(tmpl)) {
		free(tmpl);
		return NULL;
	}
	return tmpl;
}

/* Writes dir/rel, making the directories it needs: 0 or -1. */
static inline int unit_write(const char *dir, const char *rel, const char *text)
{
	char *path = bg_path_join(dir, rel), *slash = strrchr(path, '/');
	int ret;

	*slash = '\0';
	ret = bg_mkdirs(path);
	*slash = '/';
	if (!ret)
		ret = bg_write_file(path, text, strlen(text));
	free(path);
	return ret;
}

/* Runs a shell command that must succeed (making repositories with git itself). */
static inline void unit_run(const char *fmt, ...) BG_PRINTF(1, 2);
static inline void unit_run(const char *fmt, ...)
{
	va_list ap;
	char *cmd;

	va_start(ap, fmt);
	cmd = xvasprintf(fmt, ap);
	va_end(ap);
	assert_int_equal(system(cmd), 0);
	free(cmd);
}

struct parsed {
	struct bg_boot *boots[MAX_BOOTS];
	unsigned n;
	unsigned warnings;
	char warning[1024];       /* the last one: "where: msg" */
	int ret;
};

static inline int unit_keep_boot(const struct bg_boot *b, void *data)
{
	struct parsed *p = data;

	if (p->n < MAX_BOOTS)
		p->boots[p->n++] = bg_boot_clone(b);
	return 0;
}

static inline void unit_keep_warning(const char *where, const char *msg, void *data)
{
	struct parsed *p = data;

	p->warnings++;
	snprintf(p->warning, sizeof(p->warning), "%s: %s", where, msg);
}

static inline struct parsed *parse_mem(const char *buf, size_t len)
{
	struct parsed *p = calloc(1, sizeof(*p));
	struct bg_bootlog *log = bg_bootlog_new("mem", unit_keep_boot, p);

	bg_bootlog_set_warning(log, unit_keep_warning);
	bg_bootlog_keep_lines(log, true);
	p->ret = bg_bootlog_parse_mem(log, buf, len);
	bg_bootlog_free(log);
	return p;
}

static inline struct parsed *parse_str(const char *s)
{
	return parse_mem(s, strlen(s));
}

static inline struct parsed *parse_path(const char *path)
{
	struct parsed *p = calloc(1, sizeof(*p));
	struct bg_bootlog *log = bg_bootlog_new(path, unit_keep_boot, p);

	bg_bootlog_set_warning(log, unit_keep_warning);
	bg_bootlog_keep_lines(log, true);
	p->ret = bg_bootlog_parse_path(log, path);
	bg_bootlog_free(log);
	return p;
}

static inline void parsed_free(struct parsed *p)
{
	for (unsigned i = 0; i < p->n; i++)
		bg_boot_free(p->boots[i]);
	free(p);
}

static inline int64_t initcall_sum(const struct bg_boot *b)
{
	int64_t sum = 0;

	for (size_t i = 0; i < b->nr_initcalls; i++)
		sum += b->initcalls[i].usecs;
	return sum;
}

static inline const struct bg_initcall *slowest_initcall(const struct bg_boot *b)
{
	const struct bg_initcall *best = NULL;

	for (size_t i = 0; i < b->nr_initcalls; i++)
		if (!best || b->initcalls[i].usecs > best->usecs)
			best = &b->initcalls[i];
	return best;
}

static inline const struct bg_initcall *find_initcall(const struct bg_boot *b, const char *name)
{
	for (size_t i = 0; i < b->nr_initcalls; i++)
		if (!strcmp(b->initcalls[i].name, name))
			return &b->initcalls[i];
	return NULL;
}

#endif
