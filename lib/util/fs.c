/* Files and directories (fs.h). */
#include <ftw.h>
#include <sys/stat.h>

#include "util/fs.h"
#include "util/error.h"
#include "util/strbuf.h"
#include "util/xmalloc.h"

int bg_mkdirs(const char *path)
{
	char *buf = xstrdup(path);
	int ret = 0;

	for (char *p = buf + 1; *p && !ret; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) < 0 && errno != EEXIST)
			ret = bg_error_errno("cannot create '%s'", buf);
		*p = '/';
	}
	if (!ret && mkdir(buf, 0755) < 0 && errno != EEXIST)
		ret = bg_error_errno("cannot create '%s'", buf);
	free(buf);
	return ret;
}

char *bg_read_file(const char *path, size_t max, size_t *len)
{
	struct bg_strbuf sb = BG_STRBUF_INIT;
	char buf[65536];
	size_t n;
	FILE *f = fopen(path, "rb");

	if (!f) {
		bg_error_errno("cannot open '%s'", path);
		return NULL;
	}
	sb.max = max;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0 && !sb.truncated)
		bg_strbuf_add(&sb, buf, n);
	if (ferror(f)) {
		bg_error_errno("cannot read '%s'", path);
		fclose(f);
		bg_strbuf_release(&sb);
		return NULL;
	}
	fclose(f);
	if (sb.truncated) {
		bg_error("'%s' is larger than %zu bytes", path, max);
		bg_strbuf_release(&sb);
		return NULL;
	}
	return bg_strbuf_detach(&sb, len);
}

int bg_write_file(const char *path, const void *data, size_t len)
{
	char *tmp = xasprintf("%s.tmp", path);
	FILE *f = fopen(tmp, "wb");
	int ret = 0;

	if (f) {
		bool written = fwrite(data, 1, len, f) == len;

		if (fclose(f) != 0)
			written = false;
		if (written && rename(tmp, path) < 0)
			ret = bg_error_errno("cannot rename '%s'", tmp);
		else if (!written)
			f = NULL;
	}
	if (!f)
		ret = bg_error_errno("cannot write '%s'", tmp);
	if (ret)
		unlink(tmp);
	free(tmp);
	return ret;
}

int bg_copy_file(const char *from, const char *to)
{
	size_t len;
	char *data = bg_read_file(from, (size_t)1 << 32, &len);
	int ret;

	if (!data)
		return -1;
	ret = bg_write_file(to, data, len);
	free(data);
	return ret;
}

static int remove_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if ((type == FTW_DP ? rmdir(path) : unlink(path)) < 0 && errno != ENOENT)
		return bg_error_errno("cannot remove '%s'", path);
	return 0;
}

int bg_remove_tree(const char *path)
{
	if (nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS) < 0 && errno != ENOENT)
		return bg_error_errno("cannot remove '%s'", path);
	return 0;
}
