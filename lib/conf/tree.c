/* Trees and the cache (tree.h). */
#include <limits.h>
#include <sys/stat.h>

#include "conf/tree.h"
#include "net/git.h"
#include "util/sha.h"
#include "util/error.h"
#include "util/path.h"
#include "util/xmalloc.h"

const char *bg_cache_dir(void)
{
	static char *dir;
	const char *c = getenv("BOOTGATE_CACHE");
	char cwd[PATH_MAX];

	if (dir)
		return dir;
	if (!c || !*c)
		c = "/var/cache/bootgate";
	/* absolute, since builds run in a sandbox that binds it by path */
	if (*c != '/' && getcwd(cwd, sizeof(cwd)))
		dir = bg_path_join(cwd, c);
	else
		dir = xstrdup(c);
	return dir;
}

int bg_tree_open(const char *path, struct bg_tree *t)
{
	char real[PATH_MAX], hex[BG_SHA256_HEX];
	const char *base;
	struct stat st;
	size_t n;

	memset(t, 0, sizeof(*t));
	if (!realpath(path, real))
		return bg_error_errno("tree '%s'", path);
	if (stat(real, &st) < 0 || !S_ISDIR(st.st_mode))
		return bg_error("tree '%s' is not a directory", path);
	if (bg_git_is_repository(real) < 0)
		return -1;
	n = strlen(real);
	base = strrchr(real, '/');
	base = base && base[1] ? base + 1 : "root";
	bg_sha256_mem(real, n, hex);
	t->real = xstrdup(real);
	/* the name is for people; the hash keeps two trees called linux apart */
	t->id = xasprintf("%.40s-%.12s", bg_path_name_ok(base) ? base : "tree", hex);
	return 0;
}

void bg_tree_release(struct bg_tree *t)
{
	free(t->real);
	free(t->id);
	memset(t, 0, sizeof(*t));
}

char *bg_tree_workdir(const struct bg_tree *t, const char *arch)
{
	return xasprintf("%s/work/%s/%s", bg_cache_dir(), t->id, arch);
}
