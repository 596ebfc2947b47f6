/* The store (store.h): SQLite, WAL, migrations applied at open. */
#include <glob.h>
#include <limits.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <time.h>

#include "store/store.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/path.h"
#include "util/strbuf.h"
#include "util/strmap.h"
#include "util/xmalloc.h"

extern const char *const bg_store_migrations[];
extern const size_t bg_store_nmigrations;

/* Writers wait for each other this long before an SQL error. */
#define BUSY_MS 30000

struct bg_store {
	sqlite3 *db;
	char *path;
	/* prepared statements by their SQL text */
	struct bg_strmap index;
	sqlite3_stmt **stmts;
	char **sqls;
	size_t n, alloc;
};

struct bg_store_row {
	sqlite3_stmt *st;
};

static int db_error(struct bg_store *s, const char *what)
{
	return bg_error("%s: %s: %s", s->path, what, sqlite3_errmsg(s->db));
}

double bg_store_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

char *bg_store_default_path(void)
{
	const char *dir = getenv("BOOTGATE_STATE");

	return bg_path_join(dir && *dir ? dir : "/var/lib/bootgate", "bootgate.db");
}

static int exec_plain(struct bg_store *s, const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(s->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		bg_error("%s: %s", s->path, msg ? msg : sqlite3_errmsg(s->db));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

int bg_store_version(struct bg_store *s)
{
	int64_t v;

	if (bg_store_int(s, 0, &v, "PRAGMA user_version", "") < 0)
		return -1;
	/* no migration makes these: another program's file, or one tampered with */
	if (v < 0 || v > INT_MAX)
		return bg_error("%s: schema version %" PRId64 " is none of bootgate's", s->path,
				v);
	return (int)v;
}

/* Each migration and its version number in one transaction: all of it or none. */
static int migrate(struct bg_store *s)
{
	int version;

	if (bg_store_begin(s) < 0)
		return -1;
	if ((version = bg_store_version(s)) < 0)
		goto fail;
	if ((size_t)version > bg_store_nmigrations) {
		bg_error("%s: schema version %d is newer than this program's %zu", s->path,
			 version, bg_store_nmigrations);
		goto fail;
	}
	for (size_t i = version; i < bg_store_nmigrations; i++) {
		char pragma[64];

		if (exec_plain(s, bg_store_migrations[i]) < 0) {
			bg_error("migration %zu: %s", i + 1, bg_error_last());
			goto fail;
		}
		snprintf(pragma, sizeof(pragma), "PRAGMA user_version = %zu", i + 1);
		if (exec_plain(s, pragma) < 0)
			goto fail;
	}
	return bg_store_commit(s);
fail:
	bg_store_rollback(s);
	return -1;
}

/*
 * A store is a regular file, or nothing yet: never a FIFO, a device or a directory. An
 * empty file is no new store either: SQLite would take it for one and migrate it, and a
 * store cut to nothing would start again silently, its results gone without a word.
 */
static int regular_or_none(const char *path, bool none_ok)
{
	struct stat st;

	if (lstat(path, &st) < 0) {
		if (errno == ENOENT && none_ok)
			return 0;
		return bg_error_errno("%s", path);
	}
	if (!S_ISREG(st.st_mode))
		return bg_error("%s: not a regular file, so not a store", path);
	if (st.st_size == 0)
		return bg_error("%s: an empty file, not a store (remove it to start a new one)",
				path);
	return 0;
}

static int quick_check_row(const struct bg_store_row *r, void *data)
{
	struct bg_strbuf *sb = data;

	if (!strcmp(bg_row_text(r, 0), "ok"))
		return 0;
	if (sb->len)
		bg_strbuf_addstr(sb, "; ");
	bg_strbuf_addstr(sb, bg_row_text(r, 0));
	return sb->len > 200;    /* the first problems say enough */
}

/*
 * A damaged file is said so before anything is written into it: the daemon and its jobs
 * refuse it whole, rather than meet its bad pages one query at a time (or never, for a
 * table they do not read) and add rows to what is left. It reads every page: about 3 s
 * for 240 MB here.
 */
static int check_pages(struct bg_store *s)
{
	struct bg_strbuf sb = BG_STRBUF_INIT;
	int ret = bg_store_query(s, quick_check_row, &sb, "PRAGMA quick_check(10)", "");

	if (ret >= 0 && sb.len)
		ret = bg_error("%s: damaged, not read further (sqlite3 '.recover' may save its "
			       "rows): %s", s->path, sb.buf);
	bg_strbuf_release(&sb);
	return ret < 0 ? -1 : 0;
}

/* What a process killed while it made a store left: PATH.new-PID of a PID gone. */
static void sweep_unfinished(const char *path)
{
	static const char *const ext[] = { "", "-wal", "-shm", "-journal" };
	char *pattern = xasprintf("%s.new-[0-9]*", path);
	glob_t g;

	if (glob(pattern, GLOB_NOSORT, NULL, &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc; i++) {
			const char *p = g.gl_pathv[i] + strlen(path) + strlen(".new-");
			char *end;
			long pid = strtol(p, &end, 10);

			if (*end || pid <= 0 || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
				continue;
			for (size_t k = 0; k < ARRAY_SIZE(ext); k++) {
				char *f = xasprintf("%s%s", g.gl_pathv[i], ext[k]);

				unlink(f);
				free(f);
			}
		}
		globfree(&g);
	}
	free(pattern);
}

/*
 * A new store is made whole under a name of its own (PATH.new-PID), then linked into
 * place: a process killed while it writes the schema leaves no empty or half-made file
 * at path, which every later open would refuse; a second process that made it meanwhile
 * keeps its own.
 */
static int create_new(const char *path)
{
	struct bg_store *s = xcalloc(1, sizeof(*s));
	char *tmp = xasprintf("%s.new-%ld", path, (long)getpid());
	int ret = -1;

	sweep_unfinished(path);
	s->path = xstrdup(tmp);
	if (sqlite3_open_v2(tmp, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
			    SQLITE_OPEN_NOFOLLOW, NULL) != SQLITE_OK) {
		bg_error("%s: cannot make: %s", tmp, s->db ? sqlite3_errmsg(s->db) : "out of memory");
		goto out;
	}
	if (exec_plain(s, "PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON") < 0 ||
	    migrate(s) < 0)
		goto out;
	/* closed (the last connection), its log is written into it: the file is the store */
	bg_store_close(s);
	s = NULL;
	if (link(tmp, path) < 0 && errno != EEXIST) {
		bg_error_errno("%s", path);
		goto out;
	}
	ret = 0;
out:
	bg_store_close(s);
	unlink(tmp);
	free(tmp);
	return ret;
}

/* A new store goes into a directory that is there: a missing one is a typo, never made. */
static int check_dir(const char *path)
{
	char *dir = bg_path_parent(path);
	struct stat st;
	int ret = 0;

	if (stat(dir, &st) < 0)
		ret = bg_error_errno("no directory '%s' for the store '%s'", dir, path);
	else if (!S_ISDIR(st.st_mode))
		ret = bg_error("'%s' is not a directory, for the store '%s'", dir, path);
	free(dir);
	return ret;
}

int bg_store_open(const char *path, struct bg_store **out)
{
	struct bg_store *s;
	struct stat st;

	*out = NULL;
	if (regular_or_none(path, true) < 0)
		return -1;
	if (lstat(path, &st) < 0) {
		if (errno != ENOENT)
			return bg_error_errno("%s", path);
		if (check_dir(path) < 0 || create_new(path) < 0)
			return -1;
	}
	s = xcalloc(1, sizeof(*s));
	s->path = xstrdup(path);
	if (sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW, NULL) !=
	    SQLITE_OK) {
		bg_error("%s: cannot open: %s", path,
			 s->db ? sqlite3_errmsg(s->db) : "out of memory");
		bg_store_close(s);
		return -1;
	}
	sqlite3_busy_timeout(s->db, BUSY_MS);
	sqlite3_extended_result_codes(s->db, 1);
	/* WAL: readers (the CLI) never wait for the writer (the daemon) */
	if (check_pages(s) < 0 ||
	    exec_plain(s, "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; "
		       "PRAGMA foreign_keys = ON") < 0 || migrate(s) < 0) {
		bg_store_close(s);
		return -1;
	}
	*out = s;
	return 0;
}

int bg_store_open_ro(const char *path, struct bg_store **out)
{
	struct bg_store *s;
	int version;

	*out = NULL;
	if (regular_or_none(path, false) < 0)
		return -1;
	s = xcalloc(1, sizeof(*s));
	s->path = xstrdup(path);
	if (sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOFOLLOW, NULL) !=
	    SQLITE_OK) {
		bg_error("%s: cannot open: %s", path,
			 s->db ? sqlite3_errmsg(s->db) : "out of memory");
		bg_store_close(s);
		return -1;
	}
	sqlite3_busy_timeout(s->db, BUSY_MS);
	/* no page check here: a reader of a large store would read all of it for one line */
	if ((version = bg_store_version(s)) < 0) {
		bg_store_close(s);
		return -1;
	}
	if ((size_t)version != bg_store_nmigrations) {
		bg_error("%s: schema version %d, this program reads %zu", path, version,
			 bg_store_nmigrations);
		bg_store_close(s);
		return -1;
	}
	*out = s;
	return 0;
}

void bg_store_close(struct bg_store *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++) {
		sqlite3_finalize(s->stmts[i]);
		free(s->sqls[i]);
	}
	free(s->stmts);
	free(s->sqls);
	bg_strmap_release(&s->index);
	sqlite3_close(s->db);
	free(s->path);
	free(s);
}

int bg_store_begin(struct bg_store *s)
{
	return exec_plain(s, "BEGIN IMMEDIATE");
}

int bg_store_begin_read(struct bg_store *s)
{
	return bg_store_exec(s, "BEGIN", "");
}

int bg_store_commit(struct bg_store *s)
{
	if (exec_plain(s, "COMMIT") < 0) {
		bg_store_rollback(s);
		return -1;
	}
	return 0;
}

void bg_store_rollback(struct bg_store *s)
{
	if (!sqlite3_get_autocommit(s->db))
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
}

static sqlite3_stmt *prepare(struct bg_store *s, const char *sql)
{
	ssize_t at = bg_strmap_get(&s->index, sql);
	sqlite3_stmt *st;

	if (at >= 0) {
		st = s->stmts[at];
		sqlite3_reset(st);
		sqlite3_clear_bindings(st);
		return st;
	}
	if (sqlite3_prepare_v3(s->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &st, NULL) != SQLITE_OK) {
		db_error(s, "cannot prepare a statement");
		return NULL;
	}
	ALLOC_GROW(s->stmts, s->n + 1, s->alloc);
	s->sqls = xrealloc(s->sqls, s->alloc * sizeof(*s->sqls));
	s->stmts[s->n] = st;
	s->sqls[s->n] = xstrdup(sql);
	bg_strmap_put(&s->index, s->sqls[s->n], s->n);
	s->n++;
	return st;
}

static sqlite3_stmt *bind(struct bg_store *s, const char *sql, const char *types, va_list ap)
{
	sqlite3_stmt *st = prepare(s, sql);
	int rc = SQLITE_OK;

	if (!st)
		return NULL;
	if ((int)strlen(types) != sqlite3_bind_parameter_count(st)) {
		bg_error("%s: %zu values for %d parameters in: %s", s->path, strlen(types),
			 sqlite3_bind_parameter_count(st), sql);
		return NULL;
	}
	for (int i = 0; types[i] && rc == SQLITE_OK; i++) {
		switch (types[i]) {
		case 'i':
			rc = sqlite3_bind_int64(st, i + 1, va_arg(ap, int64_t));
			break;
		case 'd':
			rc = sqlite3_bind_double(st, i + 1, va_arg(ap, double));
			break;
		case 's': {
			const char *v = va_arg(ap, const char *);

			rc = v ? sqlite3_bind_text(st, i + 1, v, -1, SQLITE_TRANSIENT) :
				 sqlite3_bind_null(st, i + 1);
			break;
		}
		case 'n':
			rc = sqlite3_bind_null(st, i + 1);
			break;
		default:
			bg_error("bad bind type '%c'", types[i]);
			return NULL;
		}
	}
	if (rc != SQLITE_OK) {
		db_error(s, "cannot bind");
		return NULL;
	}
	return st;
}

static int run(struct bg_store *s, sqlite3_stmt *st, bg_store_row_fn fn, void *data)
{
	struct bg_store_row row = { st };
	int rc, ret = 0;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (fn && (ret = fn(&row, data)) != 0)
			break;
	}
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		ret = db_error(s, sqlite3_sql(st));
	sqlite3_reset(st);
	return ret;
}

int bg_store_exec(struct bg_store *s, const char *sql, const char *types, ...)
{
	sqlite3_stmt *st;
	va_list ap;

	va_start(ap, types);
	st = bind(s, sql, types, ap);
	va_end(ap);
	return st ? run(s, st, NULL, NULL) : -1;
}

int bg_store_query(struct bg_store *s, bg_store_row_fn fn, void *data, const char *sql,
		   const char *types, ...)
{
	sqlite3_stmt *st;
	va_list ap;

	va_start(ap, types);
	st = bind(s, sql, types, ap);
	va_end(ap);
	return st ? run(s, st, fn, data) : -1;
}

/* The first column of the first row: a number, or text (owned), or nothing. */
struct first {
	int64_t i;
	double d;
	char *text;
	bool found;
	bool want_text;
};

static int take_first(const struct bg_store_row *r, void *data)
{
	struct first *f = data;

	if (bg_row_null(r, 0))
		return 1;
	f->found = true;
	if (f->want_text) {
		f->text = xstrdup(bg_row_text(r, 0));
	} else {
		f->i = bg_row_int(r, 0);
		f->d = bg_row_double(r, 0);
	}
	return 1;
}

static int first(struct bg_store *s, struct first *f, const char *sql, const char *types,
		 va_list ap)
{
	sqlite3_stmt *st = bind(s, sql, types, ap);

	return !st || run(s, st, take_first, f) < 0 ? -1 : 0;
}

int bg_store_int(struct bg_store *s, int64_t def, int64_t *out, const char *sql,
		 const char *types, ...)
{
	struct first f = { 0 };
	va_list ap;
	int ret;

	va_start(ap, types);
	ret = first(s, &f, sql, types, ap);
	va_end(ap);
	if (!ret)
		*out = f.found ? f.i : def;
	return ret;
}

int bg_store_double(struct bg_store *s, double def, double *out, const char *sql,
		    const char *types, ...)
{
	struct first f = { 0 };
	va_list ap;
	int ret;

	va_start(ap, types);
	ret = first(s, &f, sql, types, ap);
	va_end(ap);
	if (!ret)
		*out = f.found ? f.d : def;
	return ret;
}

int bg_store_text(struct bg_store *s, char **out, const char *sql, const char *types, ...)
{
	struct first f = { .want_text = true };
	va_list ap;
	int ret;

	va_start(ap, types);
	ret = first(s, &f, sql, types, ap);
	va_end(ap);
	*out = ret ? NULL : f.text;
	if (ret)
		free(f.text);
	return ret;
}

int64_t bg_store_last_id(struct bg_store *s)
{
	return sqlite3_last_insert_rowid(s->db);
}

int64_t bg_store_changes(struct bg_store *s)
{
	return sqlite3_changes64(s->db);
}

int bg_row_columns(const struct bg_store_row *r)
{
	return sqlite3_column_count(r->st);
}

const char *bg_row_name(const struct bg_store_row *r, int col)
{
	return sqlite3_column_name(r->st, col);
}

bool bg_row_number(const struct bg_store_row *r, int col)
{
	int t = sqlite3_column_type(r->st, col);

	return t == SQLITE_INTEGER || t == SQLITE_FLOAT;
}

bool bg_row_null(const struct bg_store_row *r, int col)
{
	return sqlite3_column_type(r->st, col) == SQLITE_NULL;
}

int64_t bg_row_int(const struct bg_store_row *r, int col)
{
	return sqlite3_column_int64(r->st, col);
}

double bg_row_double(const struct bg_store_row *r, int col)
{
	return sqlite3_column_double(r->st, col);
}

const char *bg_row_text(const struct bg_store_row *r, int col)
{
	const unsigned char *t = sqlite3_column_text(r->st, col);

	return t ? (const char *)t : "";
}
