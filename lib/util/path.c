/* Path helpers (path.h). */
#include <limits.h>
#include <stdlib.h>

#include "util/path.h"
#include "util/xmalloc.h"

char *bg_path_join(const char *dir, const char *name)
{
	size_t n = strlen(dir);

	return xasprintf("%s%s%s", dir, n && dir[n - 1] == '/' ? "" : "/", name);
}

bool bg_path_name_ok(const char *s)
{
	size_t n = 0;

	if (!s || !*s || *s == '.' || *s == '-')
		return false;
	for (; s[n]; n++) {
		char c = s[n];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '.' || c == '_' || c == '-' || c == '+'))
			return false;
	}
	return n <= 64;
}

/* The length of path without its trailing slashes ("/" keeps its one). */
static size_t trimmed_len(const char *path)
{
	size_t n = strlen(path);

	while (n > 1 && path[n - 1] == '/')
		n--;
	return n;
}

char *bg_path_parent(const char *path)
{
	size_t n = trimmed_len(path);

	while (n && path[n - 1] != '/')
		n--;
	if (!n)
		return xstrdup(".");
	while (n > 1 && path[n - 1] == '/')
		n--;
	return xstrndup(path, n);
}

char *bg_path_resolve_parent(const char *path)
{
	char *parent = bg_path_parent(path), *real = realpath(parent, NULL), *ret = NULL;
	size_t n = trimmed_len(path), base = n;

	while (base && path[base - 1] != '/')
		base--;
	if (real) {
		char *name = xstrndup(path + base, n - base);

		ret = bg_path_join(real, name);
		free(name);
	}
	free(real);
	free(parent);
	return ret;
}
