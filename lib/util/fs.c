/* Files and directories (fs.h). */
#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <sys/file.h>
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

/* Reads what fd gives, up to max bytes; name is for the messages. */
static char *read_fd(int fd, const char *name, size_t max, size_t *len)
{
	struct bg_strbuf sb = BG_STRBUF_INIT;
	char buf[65536];
	ssize_t n;

	sb.max = max;
	while (!sb.truncated && (n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			bg_error_errno("cannot read '%s'", name);
			bg_strbuf_release(&sb);
			return NULL;
		}
		bg_strbuf_add(&sb, buf, (size_t)n);
	}
	if (sb.truncated) {
		bg_error("'%s' is larger than %zu bytes", name, max);
		bg_strbuf_release(&sb);
		return NULL;
	}
	return bg_strbuf_detach(&sb, len);
}

/* -1 with why unless fd is a regular file. */
static int check_regular(int fd, const char *name)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return bg_error_errno("cannot read '%s'", name);
	if (!S_ISREG(st.st_mode))
		return bg_error("'%s' is not a regular file", name);
	return 0;
}

/* path open for reading, blocking, if it is a regular file: its fd, or -1 with why */
static int open_regular_path(const char *path)
{
	/* O_NONBLOCK: opening a FIFO must not wait for a writer before it is refused */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		return bg_error_errno("cannot open '%s'", path);
	if (check_regular(fd, path) < 0) {
		close(fd);
		return -1;
	}
	if (fcntl(fd, F_SETFL, 0) < 0) {
		bg_error_errno("cannot read '%s' blocking", path);
		close(fd);
		return -1;
	}
	return fd;
}

char *bg_read_file(const char *path, size_t max, size_t *len)
{
	int fd = open_regular_path(path);
	char *text;

	if (fd < 0)
		return NULL;
	text = read_fd(fd, path, max, len);
	close(fd);
	return text;
}

FILE *bg_fopen_regular(const char *path)
{
	int fd = open_regular_path(path);
	FILE *f;

	if (fd < 0)
		return NULL;
	if (!(f = fdopen(fd, "r"))) {
		bg_error_errno("cannot read '%s'", path);
		close(fd);
	}
	return f;
}

bool bg_same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

int bg_write_file(const char *path, const void *data, size_t len)
{
	char *tmp = xasprintf("%s.tmp", path);
	struct stat st;
	int ret = 0, fd;

	if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		free(tmp);
		return bg_error("'%s' is not a regular file: not replaced", path);
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0) {
		ret = bg_error_errno("cannot write '%s'", tmp);
		free(tmp);
		return ret;
	}
	for (size_t off = 0; off < len && !ret;) {
		ssize_t n = write(fd, (const char *)data + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			ret = bg_error_errno("cannot write '%s'", tmp);
		else
			off += (size_t)n;
	}
	if (close(fd) < 0 && !ret)
		ret = bg_error_errno("cannot write '%s'", tmp);
	if (!ret && rename(tmp, path) < 0)
		ret = bg_error_errno("cannot rename '%s'", tmp);
	if (ret)
		unlink(tmp);
	free(tmp);
	return ret;
}

int bg_copy_fd(int fd, const char *name, const char *to)
{
	size_t len;
	char *data = read_fd(fd, name, (size_t)1 << 32, &len);
	int ret;

	if (!data)
		return -1;
	ret = bg_write_file(to, data, len);
	free(data);
	return ret;
}

int bg_copy_file(const char *from, const char *to)
{
	int fd = open(from, O_RDONLY | O_CLOEXEC | O_NONBLOCK), ret;

	if (fd < 0)
		return bg_error_errno("cannot open '%s'", from);
	ret = check_regular(fd, from) < 0 || fcntl(fd, F_SETFL, 0) < 0 ? -1 :
	      bg_copy_fd(fd, from, to);
	close(fd);
	return ret;
}

int bg_open_beneath(const char *dir, const char *rel)
{
	char *copy = xstrdup(rel), *p = copy, *slash;
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), next;

	if (fd < 0) {
		bg_error_errno("cannot open '%s'", dir);
		goto out;
	}
	/* a directory at a time, none of them a link; then the file, not a link either */
	while ((slash = strchr(p, '/'))) {
		*slash = '\0';
		if (!*p || !strcmp(p, "..")) {
			bg_error("'%s' leaves '%s'", rel, dir);
			close(fd);
			fd = -1;
			goto out;
		}
		next = openat(fd, p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(fd);
		if ((fd = next) < 0) {
			bg_error_errno("cannot open '%s/%s' (a link is not followed)", dir, rel);
			goto out;
		}
		p = slash + 1;
	}
	next = openat(fd, p, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	close(fd);
	fd = next;
	if (fd < 0) {
		bg_error_errno("cannot open '%s/%s' (a link is not followed)", dir, rel);
	} else if (check_regular(fd, rel) < 0 || fcntl(fd, F_SETFL, 0) < 0) {
		close(fd);
		fd = -1;
	}
out:
	free(copy);
	return fd;
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

int bg_lock_file(const char *path, bool wait, void (*waiting)(void *data), void *data,
		 int *fd)
{
	int ret;

	*fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (*fd < 0)
		return bg_error_errno("cannot open '%s'", path);
	if (flock(*fd, LOCK_EX | LOCK_NB) == 0)
		return 0;
	if (errno != EWOULDBLOCK) {
		ret = bg_error_errno("cannot lock '%s'", path);
	} else if (!wait) {
		bg_error("'%s' is held by another process", path);
		ret = BG_LOCK_BUSY;
	} else {
		if (waiting)
			waiting(data);
		/* a signal ends the wait (EINTR): a process told to stop does not wait on */
		if (flock(*fd, LOCK_EX) == 0)
			return 0;
		ret = bg_error_errno("cannot lock '%s'", path);
	}
	close(*fd);
	*fd = -1;
	return ret;
}

/* What the walk of bg_retime_same carries: two buffers to compare files in, the counts. */
struct retime_walk {
	char *x, *y;
	struct bg_retime *rt;
};
#define RETIME_CHUNK 65536

/* Opens name below dir for reading if it is a regular file (never a FIFO's wait). */
static int open_regular(int dir, const char *name)
{
	int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;

	if (fd >= 0 && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* Whether the regular files name below the directories a and b hold the same bytes. */
static bool same_bytes(struct retime_walk *w, int a, int b, const char *name)
{
	int fa = open_regular(a, name), fb = fa < 0 ? -1 : open_regular(b, name);
	bool same = fb >= 0;

	while (same) {
		ssize_t n = read(fa, w->x, RETIME_CHUNK), m;

		if (n <= 0) {
			/* the end of a, and then of b too; or an error: not known to be the same */
			same = n == 0 && read(fb, w->y, 1) == 0;
			break;
		}
		for (ssize_t got = 0; same && got < n; got += m) {
			m = read(fb, w->y + got, (size_t)(n - got));
			same = m > 0;
		}
		same = same && !memcmp(w->x, w->y, (size_t)n);
	}
	if (fa >= 0)
		close(fa);
	if (fb >= 0)
		close(fb);
	return same;
}

/* Whether the links name below a and b point at the same name (a link there at all). */
static bool same_link(int a, int b, const char *name)
{
	char x[PATH_MAX], y[PATH_MAX];
	ssize_t n = readlinkat(a, name, x, sizeof(x)), m = readlinkat(b, name, y, sizeof(y));

	return n >= 0 && n == m && !memcmp(x, y, (size_t)n);
}

/*
 * The walk of bg_retime_same below the directories dir and from, at rel ("" at the top,
 * else ending in '/'); closes both.
 */
static int retime_dir(struct retime_walk *w, int dir, int from, const char *rel)
{
	DIR *d = fdopendir(dir);
	struct dirent *e;
	int ret = 0;

	if (!d) {
		close(dir);
		close(from);
		return bg_error_errno("cannot read '%s'", *rel ? rel : ".");
	}
	while (!ret && (errno = 0, e = readdir(d))) {
		struct stat s, f;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
		    (!*rel && !strcmp(e->d_name, ".git")))
			continue;
		if (fstatat(dirfd(d), e->d_name, &s, AT_SYMLINK_NOFOLLOW) < 0) {
			ret = bg_error_errno("cannot stat '%s%s'", rel, e->d_name);
		} else if (S_ISDIR(s.st_mode)) {
			int sub = openat(dirfd(d), e->d_name,
					 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			int sub_from = openat(from, e->d_name,
					      O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			char *sub_rel = xasprintf("%s%s/", rel, e->d_name);

			if (sub < 0) {
				ret = bg_error_errno("cannot open '%s'", sub_rel);
				if (sub_from >= 0)
					close(sub_from);
			} else if (sub_from < 0) {
				close(sub);     /* none of it is there: all of it stays new */
			} else {
				ret = retime_dir(w, sub, sub_from, sub_rel);
			}
			free(sub_rel);
		} else if (S_ISLNK(s.st_mode)) {
			/* make goes by what a link points at: one that differs is not a file's time */
			if (!same_link(dirfd(d), from, e->d_name))
				ret = bg_error("'%s%s' is not the same link in '%s'", rel, e->d_name,
					       w->rt->from);
		} else if (S_ISREG(s.st_mode)) {
			if (fstatat(from, e->d_name, &f, AT_SYMLINK_NOFOLLOW) == 0 &&
			    S_ISREG(f.st_mode) && f.st_size == s.st_size &&
			    same_bytes(w, dirfd(d), from, e->d_name)) {
				struct timespec t[2] = { { .tv_nsec = UTIME_OMIT }, f.st_mtim };

				if (utimensat(dirfd(d), e->d_name, t, AT_SYMLINK_NOFOLLOW) < 0)
					ret = bg_error_errno("cannot set the time of '%s%s'", rel,
							     e->d_name);
				else
					w->rt->same++;
			} else {
				w->rt->other++;
			}
		}
	}
	if (!ret && errno)
		ret = bg_error_errno("cannot read '%s'", *rel ? rel : ".");
	closedir(d);
	close(from);
	return ret;
}

int bg_retime_same(const char *dir, const char *from, struct bg_retime *rt)
{
	struct retime_walk w = { NULL, NULL, rt };
	int d = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), f, ret;

	rt->same = rt->other = 0;
	rt->from = from;
	if (d < 0)
		return bg_error_errno("cannot open '%s'", dir);
	f = open(from, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (f < 0) {
		close(d);
		return bg_error_errno("cannot open '%s'", from);
	}
	w.x = xmalloc(RETIME_CHUNK);
	w.y = xmalloc(RETIME_CHUNK);
	ret = retime_dir(&w, d, f, "");
	free(w.x);
	free(w.y);
	return ret;
}
