/*
 * Reads the store and writes its results as KCIDB v5.3 and as boot-data files
 * (export.h). Everything comes from the store: trees, series, builds, boots, samples.
 */
#include "publish/export.h"

#include <math.h>
#include <sys/stat.h>
#include <time.h>

#include "decide/stats.h"
#include "conf/board.h"
#include "parse/bootlog.h"
#include "report/bootdata.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/path.h"
#include "util/strmap.h"
#include "util/xmalloc.h"

/* A console larger than this is no boot's: it is refused, not read into memory. */
#define CONSOLE_MAX ((size_t)256 << 20)

bool bg_kcidb_origin_ok(const char *s)
{
	if (!s || !*s)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_'))
			return false;
	return true;
}

static void add_path_name(struct bg_strbuf *sb, const char *s, size_t len)
{
	if (!len)
		bg_strbuf_addch(sb, '_');
	for (size_t i = 0; i < len; i++) {
		char c = s[i];

		bg_strbuf_addch(sb, ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
				     (c >= '0' && c <= '9') || c == '_' || c == '-') ? c : '_');
	}
}

void bg_kcidb_path(struct bg_strbuf *sb, const char *metric)
{
	const char *dot = strchr(metric, '.');

	bg_strbuf_addstr(sb, "boot");
	if (!dot) {
		bg_strbuf_addch(sb, '.');
		add_path_name(sb, metric, strlen(metric));
		return;
	}
	/* boot.init is a figure of the boot itself: no "boot.boot.init" */
	if ((size_t)(dot - metric) != 4 || memcmp(metric, "boot", 4) != 0) {
		bg_strbuf_addch(sb, '.');
		add_path_name(sb, metric, (size_t)(dot - metric));
	}
	bg_strbuf_addch(sb, '.');
	add_path_name(sb, dot + 1, strlen(dot + 1));
}

bool bg_kcidb_time(char buf[40], double t)
{
	struct tm tm;
	time_t sec;
	long usec;

	buf[0] = '\0';
	/* a time before 1970 or after 9999 is no time the store wrote */
	if (!(t >= 0 && t < 253402300800.0))
		return false;
	sec = (time_t)t;
	usec = lround((t - (double)sec) * 1e6);
	if (usec >= 1000000) {
		sec++;
		usec -= 1000000;
	}
	if (!gmtime_r(&sec, &tm) || !strftime(buf, 40, "%Y-%m-%dT%H:%M:%S", &tm))
		return false;
	snprintf(buf + strlen(buf), 40 - strlen(buf), ".%06ld+00:00", usec);
	return true;
}

static bool is_hex(const char *s, size_t len)
{
	return s && strlen(s) == len && strspn(s, "0123456789abcdef") == len;
}

/* ---- KCIDB ---- */

enum checkout_kind { CO_SERIES, CO_TREE, CO_COMMIT };

struct checkout {
	char *id;
	enum checkout_kind kind;
	int64_t ref;                  /* the series or tree */
	char *sha;
	char *tree, *url, *branch;    /* CO_TREE */
	double start;
};

struct build {
	int64_t id;
	char *commit, *board, *status, *config_hash, *image_sha256, *log;
	double seconds, created;
	bool reused;
	size_t checkout;
	int64_t patch;                /* its place in a series, or -1 */
	bool tests;                   /* carries the boots of its image */
};

struct kcidb {
	struct bg_store *s;
	const char *origin, *lab;
	struct bg_json *j;
	struct checkout *co;
	size_t nco, aco;
	struct build *b;
	size_t nb, ab;
	struct bg_strmap ids;         /* checkout id -> index */
	struct bg_strmap images;      /* "commit board image" -> the build with its tests */
	char **keys;
	size_t nkeys, akeys;
	struct bg_kcidb_counts n;
	bool began;
};

static char *col(const struct bg_store_row *r, int c)
{
	return bg_row_null(r, c) ? NULL : xstrdup(bg_row_text(r, c));
}

static size_t add_checkout(struct kcidb *k, char *id, enum checkout_kind kind, int64_t ref,
			   const char *sha, double start)
{
	ssize_t at = bg_strmap_get(&k->ids, id);
	struct checkout *c;

	if (at >= 0) {
		free(id);
		c = &k->co[at];
		if (start < c->start)
			c->start = start;
		return (size_t)at;
	}
	ALLOC_GROW(k->co, k->nco + 1, k->aco);
	c = &k->co[k->nco];
	memset(c, 0, sizeof(*c));
	c->id = id;
	c->kind = kind;
	c->ref = ref;
	c->sha = sha ? xstrdup(sha) : NULL;
	c->start = start;
	bg_strmap_put(&k->ids, c->id, k->nco);
	return k->nco++;
}

static int series_row(const struct bg_store_row *r, void *data)
{
	struct kcidb *k = data;

	add_checkout(k, xasprintf("%s:series:%s", k->origin, bg_row_text(r, 1)), CO_SERIES,
		     bg_row_int(r, 0), NULL, bg_row_double(r, 2));
	return 0;
}

static int build_row(const struct bg_store_row *r, void *data)
{
	struct kcidb *k = data;
	struct build *b;

	ALLOC_GROW(k->b, k->nb + 1, k->ab);
	b = &k->b[k->nb++];
	memset(b, 0, sizeof(*b));
	b->id = bg_row_int(r, 0);
	b->commit = xstrdup(bg_row_text(r, 1));
	b->board = xstrdup(bg_row_text(r, 2));
	b->status = xstrdup(bg_row_text(r, 3));
	b->config_hash = col(r, 4);
	b->image_sha256 = col(r, 5);
	b->seconds = bg_row_null(r, 6) ? NAN : bg_row_double(r, 6);
	b->created = bg_row_double(r, 7);
	b->log = col(r, 8);
	b->reused = bg_row_int(r, 9) != 0;
	b->patch = -1;
	return 0;
}

struct found {
	int64_t id, idx;
	char *name, *url, *branch, *message_id;
	bool any;
};

static int found_series(const struct bg_store_row *r, void *data)
{
	struct found *f = data;

	f->any = true;
	f->id = bg_row_int(r, 0);
	f->idx = bg_row_int(r, 1);
	f->message_id = xstrdup(bg_row_text(r, 2));
	return 1;
}

static int found_tree(const struct bg_store_row *r, void *data)
{
	struct found *f = data;

	f->any = true;
	f->id = bg_row_int(r, 0);
	f->name = xstrdup(bg_row_text(r, 1));
	f->url = col(r, 2);
	f->branch = col(r, 3);
	return 1;
}

/* Which checkout a build is of: a patch of a series, a commit of a tree, or its own. */
static int place_build(struct kcidb *k, struct build *b)
{
	struct found f = { 0 };
	size_t at;

	if (bg_store_query(k->s, found_series, &f, "SELECT p.series_id, p.idx, s.message_id "
			   "FROM series_patches p JOIN series s ON s.id = p.series_id "
			   "WHERE p.commit_sha = ? ORDER BY p.series_id DESC, p.idx LIMIT 1", "s",
			   b->commit) < 0)
		return -1;
	if (f.any) {
		b->checkout = add_checkout(k, xasprintf("%s:series:%s", k->origin, f.message_id),
					   CO_SERIES, f.id, NULL, b->created);
		b->patch = f.idx;
		free(f.message_id);
		return 0;
	}
	if (bg_store_query(k->s, found_tree, &f, "SELECT t.id, t.name, t.url, t.branch FROM trees t "
			   "WHERE t.id IN (SELECT tree_id FROM jobs WHERE rev = ?1 OR base = ?1 "
			   "UNION SELECT tree_id FROM comparisons WHERE cand = ?1 OR base = ?1 "
			   "UNION SELECT b.tree_id FROM bisection_commits c JOIN bisections b "
			   "ON b.id = c.bisection_id WHERE c.sha = ?1) "
			   "OR t.last_good = ?1 OR t.last_tip = ?1 ORDER BY t.id LIMIT 1", "s",
			   b->commit) < 0)
		return -1;
	if (f.any) {
		at = add_checkout(k, xasprintf("%s:%s:%s", k->origin, f.name, b->commit), CO_TREE,
				  f.id, b->commit, b->created);
		if (!k->co[at].tree) {
			k->co[at].tree = f.name;
			k->co[at].url = f.url;
			k->co[at].branch = f.branch;
		} else {
			free(f.name);
			free(f.url);
			free(f.branch);
		}
	} else {
		at = add_checkout(k, xasprintf("%s:commit:%s", k->origin, b->commit), CO_COMMIT, 0,
				  b->commit, b->created);
	}
	b->checkout = at;
	return 0;
}

static void put_str(struct bg_json *j, const char *key, const char *v)
{
	if (!v || !*v)
		return;
	bg_json_key(j, key);
	bg_json_str(j, v);
}

static void put_time(struct bg_json *j, const char *key, double t)
{
	char buf[40];

	if (bg_kcidb_time(buf, t))
		put_str(j, key, buf);
}

static void put_common(struct kcidb *k, const char *id)
{
	bg_json_key(k->j, "id");
	bg_json_str(k->j, id);
	bg_json_key(k->j, "origin");
	bg_json_str(k->j, k->origin);
}

/* KCIDB v5 takes https:// repository URLs only: a git:// or local one is left out. */
static void put_repo(struct bg_json *j, const char *url, const char *branch)
{
	if (url && !strncmp(url, "https://", 8))
		put_str(j, "git_repository_url", url);
	put_str(j, "git_repository_branch", branch);
}

static int series_checkout(const struct bg_store_row *r, void *data)
{
	struct kcidb *k = data;
	const char *state = bg_row_text(r, 6), *hash = bg_row_text(r, 4);
	char *id = xasprintf("%s:series:%s", k->origin, bg_row_text(r, 1));

	bg_json_object_begin(k->j);
	put_common(k, id);
	free(id);
	put_str(k->j, "tree_name", bg_row_text(r, 10));
	put_repo(k->j, bg_row_null(r, 11) ? NULL : bg_row_text(r, 11), bg_row_text(r, 12));
	if (is_hex(bg_row_text(r, 3), 40))
		put_str(k->j, "git_commit_hash", bg_row_text(r, 3));
	if (is_hex(hash, 64))
		put_str(k->j, "patchset_hash", hash);
	put_str(k->j, "message_id", bg_row_text(r, 1));
	put_str(k->j, "comment", bg_row_text(r, 2));
	put_time(k->j, "start_time", bg_row_double(r, 5));
	/* valid: the patches could be combined with the base; unknown until tried */
	if (bg_row_int(r, 13) > 0 || !strcmp(state, "failed")) {
		bg_json_key(k->j, "valid");
		bg_json_bool(k->j, false);
	} else if (bg_row_int(r, 14) > 0) {
		bg_json_key(k->j, "valid");
		bg_json_bool(k->j, true);
	}
	bg_json_key(k->j, "misc");
	bg_json_object_begin(k->j);
	bg_json_key(k->j, "series");
	bg_json_int(k->j, bg_row_int(r, 0));
	bg_json_key(k->j, "version");
	bg_json_int(k->j, bg_row_int(r, 7));
	bg_json_key(k->j, "total");
	bg_json_int(k->j, bg_row_int(r, 8));
	put_str(k->j, "source", bg_row_text(r, 9));
	put_str(k->j, "state", state);
	bg_json_object_end(k->j);
	bg_json_object_end(k->j);
	k->n.checkouts++;
	return 0;
}

static int subject_row(const struct bg_store_row *r, void *data)
{
	char **subject = data;

	*subject = xstrdup(bg_row_text(r, 0));
	return 1;
}

static int write_checkouts(struct kcidb *k)
{
	if (bg_store_query(k->s, series_checkout, k,
			   "SELECT s.id, s.message_id, s.subject, s.base, s.patchset_hash, "
			   "s.created, s.state, s.version, s.total, s.source, t.name, t.url, t.branch, "
			   "(SELECT COUNT(*) FROM series_patches p WHERE p.series_id = s.id "
			   "AND p.status = 'failed'), "
			   "(SELECT COUNT(*) FROM series_patches p WHERE p.series_id = s.id "
			   "AND p.status = 'applied') "
			   "FROM series s LEFT JOIN trees t ON t.id = s.tree_id ORDER BY s.id", "") < 0)
		return -1;
	for (size_t i = 0; i < k->nco; i++) {
		struct checkout *c = &k->co[i];
		char *subject = NULL;

		if (c->kind == CO_SERIES)
			continue;
		if (bg_store_query(k->s, subject_row, &subject,
				   "SELECT subject FROM commits WHERE sha = ?", "s", c->sha) < 0)
			return -1;
		bg_json_object_begin(k->j);
		put_common(k, c->id);
		put_str(k->j, "tree_name", c->tree);
		put_repo(k->j, c->url, c->branch);
		if (is_hex(c->sha, 40))
			put_str(k->j, "git_commit_hash", c->sha);
		put_str(k->j, "comment", subject);
		put_time(k->j, "start_time", c->start);
		bg_json_key(k->j, "valid");
		bg_json_bool(k->j, true);
		bg_json_object_end(k->j);
		free(subject);
		k->n.checkouts++;
	}
	return 0;
}

/* Build statuses as KCIDB says them: a failed build FAIL, a lab's failure MISS. */
static const char *build_status(const char *status)
{
	if (!strcmp(status, "built"))
		return "PASS";
	if (!strcmp(status, "failed"))
		return "FAIL";
	if (!strcmp(status, "infra"))
		return "MISS";
	return "ERROR";    /* usage, exec: the build could not be run as asked */
}

static const char *board_arch(struct kcidb *k, const char *board, struct bg_strmap *seen,
			      char ***arches, size_t *n, size_t *alloc)
{
	ssize_t at = bg_strmap_get(seen, board);
	struct bg_board b;
	char *arch = NULL;

	if (at >= 0)
		return (*arches)[2 * at + 1];
	if (k->lab && bg_board_load(k->lab, board, &b) == 0) {
		if (b.arch && *b.arch && strspn(b.arch, "abcdefghijklmnopqrstuvwxyz0123456789_") ==
		    strlen(b.arch))
			arch = xstrdup(b.arch);
		bg_board_release(&b);
	}
	ALLOC_GROW(*arches, 2 * (*n + 1), *alloc);
	(*arches)[2 * *n] = xstrdup(board);
	(*arches)[2 * *n + 1] = arch;
	bg_strmap_put(seen, (*arches)[2 * *n], *n);
	(*n)++;
	return arch;
}

static int write_builds(struct kcidb *k)
{
	struct bg_strmap seen = BG_STRMAP_INIT;
	char **arches = NULL;
	size_t n = 0, alloc = 0;

	for (size_t i = 0; i < k->nb; i++) {
		struct build *b = &k->b[i];
		const char *arch = board_arch(k, b->board, &seen, &arches, &n, &alloc);
		char *id = xasprintf("%s:build:%" PRId64, k->origin, b->id);
		bool timed = isfinite(b->seconds) && b->seconds >= 0 && b->seconds < 1e9;

		bg_json_object_begin(k->j);
		bg_json_key(k->j, "checkout_id");
		bg_json_str(k->j, k->co[b->checkout].id);
		put_common(k, id);
		put_time(k->j, "start_time", b->created - (timed ? b->seconds : 0));
		if (timed) {
			bg_json_key(k->j, "duration");
			bg_json_double(k->j, b->seconds);
		}
		put_str(k->j, "architecture", arch);
		put_str(k->j, "config_name", b->config_hash);
		if (b->log && (!strncmp(b->log, "https://", 8) || !strncmp(b->log, "http://", 7)))
			put_str(k->j, "log_url", b->log);
		bg_json_key(k->j, "status");
		bg_json_str(k->j, build_status(b->status));
		bg_json_key(k->j, "misc");
		bg_json_object_begin(k->j);
		put_str(k->j, "board", b->board);
		put_str(k->j, "commit", b->commit);
		put_str(k->j, "image_sha256", b->image_sha256);
		bg_json_key(k->j, "reused");
		bg_json_bool(k->j, b->reused);
		if (b->patch >= 0) {
			bg_json_key(k->j, "patch");
			bg_json_int(k->j, b->patch);
		}
		if (b->log && strncmp(b->log, "http", 4))
			put_str(k->j, "log", b->log);
		bg_json_object_end(k->j);
		bg_json_object_end(k->j);
		free(id);
		k->n.builds++;
	}
	for (size_t i = 0; i < 2 * n; i++)
		free(arches[i]);
	free(arches);
	bg_strmap_release(&seen);
	return 0;
}

/* The boots of one image on one board in one mode. */
struct boot_set {
	char *mode;
	int64_t boots, complete, failed;
	double start;
};

struct boot_sets {
	struct boot_set *v;
	size_t n, alloc;
};

static int set_row(const struct bg_store_row *r, void *data)
{
	struct boot_sets *sets = data;

	ALLOC_GROW(sets->v, sets->n + 1, sets->alloc);
	sets->v[sets->n++] = (struct boot_set){ xstrdup(bg_row_text(r, 0)), bg_row_int(r, 1),
						bg_row_int(r, 3), bg_row_int(r, 4),
						bg_row_double(r, 2) };
	return 0;
}

struct sample_rows {
	char **metric;
	double *value;
	size_t n, alloc, alloc_v;
};

static int sample_row(const struct bg_store_row *r, void *data)
{
	struct sample_rows *s = data;

	ALLOC_GROW(s->metric, s->n + 1, s->alloc);
	ALLOC_GROW(s->value, s->n + 1, s->alloc_v);
	s->metric[s->n] = xstrdup(bg_row_text(r, 0));
	s->value[s->n++] = bg_row_double(r, 1);
	return 0;
}

/* A test's fields up to its own: the caller adds number and misc, and ends it. */
static void test_head(struct kcidb *k, const struct build *b, const struct boot_set *set,
		      const char *build_id, const char *id, const char *path, const char *status)
{
	bg_json_object_begin(k->j);
	bg_json_key(k->j, "build_id");
	bg_json_str(k->j, build_id);
	put_common(k, id);
	bg_json_key(k->j, "path");
	bg_json_str(k->j, path);
	bg_json_key(k->j, "status");
	bg_json_str(k->j, status);
	put_time(k->j, "start_time", set->start);
	bg_json_key(k->j, "environment");
	bg_json_object_begin(k->j);
	put_str(k->j, "comment", b->board);
	bg_json_key(k->j, "misc");
	bg_json_object_begin(k->j);
	put_str(k->j, "board", b->board);
	put_str(k->j, "mode", set->mode);
	bg_json_object_end(k->j);
	bg_json_object_end(k->j);
}

/* The mode in an id: a plain word, whatever the store holds. */
static char *id_word(const char *s)
{
	struct bg_strbuf sb = BG_STRBUF_INIT;

	add_path_name(&sb, s, strlen(s));
	return bg_strbuf_detach(&sb, NULL);
}

static int write_set(struct kcidb *k, const struct build *b, const struct boot_set *set,
		     const char *build_id)
{
	struct sample_rows rows = { 0 };
	struct bg_strbuf path = BG_STRBUF_INIT;
	char *mode = id_word(set->mode), *id;
	const char *status;
	int ret = 0;

	status = set->failed ? "FAIL" : set->complete ? "PASS" : "MISS";
	id = xasprintf("%s:%s", build_id, mode);
	test_head(k, b, set, build_id, id, "boot", status);
	bg_json_key(k->j, "misc");
	bg_json_object_begin(k->j);
	bg_json_key(k->j, "boots");
	bg_json_int(k->j, set->boots);
	bg_json_key(k->j, "complete");
	bg_json_int(k->j, set->complete);
	bg_json_object_end(k->j);
	bg_json_object_end(k->j);
	k->n.tests++;
	free(id);

	if (bg_store_query(k->s, sample_row, &rows, "SELECT s.metric, s.value FROM samples s "
			   "JOIN boots o ON o.id = s.boot_id WHERE o.image_sha256 = ? AND o.board = ? "
			   "AND o.mode = ? AND o.outcome = 'complete' ORDER BY s.metric, s.value",
			   "sss", b->image_sha256, b->board, set->mode) < 0) {
		ret = -1;
		goto out;
	}
	for (size_t i = 0, end; i < rows.n; i = end) {
		double median;

		for (end = i + 1; end < rows.n && !strcmp(rows.metric[end], rows.metric[i]); end++)
			;
		median = bg_stats_median(rows.value + i, end - i);
		/* a value that is no number cannot be a KCIDB number (never null) */
		if (!isfinite(median) || fabs(median) > 1e300)
			continue;
		bg_strbuf_reset(&path);
		bg_kcidb_path(&path, rows.metric[i]);
		id = xasprintf("%s:%s:%s", build_id, mode, rows.metric[i]);
		test_head(k, b, set, build_id, id, path.buf, "DONE");
		free(id);
		bg_json_key(k->j, "number");
		bg_json_object_begin(k->j);
		bg_json_key(k->j, "value");
		bg_json_double(k->j, median * 1e-6);
		bg_json_key(k->j, "unit");
		bg_json_str(k->j, "s");
		bg_json_key(k->j, "prefix");
		bg_json_str(k->j, "metric");
		bg_json_object_end(k->j);
		bg_json_key(k->j, "misc");
		bg_json_object_begin(k->j);
		bg_json_key(k->j, "metric");
		bg_json_str(k->j, rows.metric[i]);
		bg_json_key(k->j, "boots");
		bg_json_int(k->j, (int64_t)(end - i));
		bg_json_key(k->j, "median_us");
		bg_json_double(k->j, median);
		bg_json_key(k->j, "min_us");
		bg_json_double(k->j, rows.value[i]);
		bg_json_key(k->j, "max_us");
		bg_json_double(k->j, rows.value[end - 1]);
		bg_json_object_end(k->j);
		bg_json_object_end(k->j);
		k->n.tests++;
	}
out:
	for (size_t i = 0; i < rows.n; i++)
		free(rows.metric[i]);
	free(rows.metric);
	free(rows.value);
	bg_strbuf_release(&path);
	free(mode);
	return ret;
}

static int write_tests(struct kcidb *k)
{
	for (size_t i = 0; i < k->nb; i++) {
		struct build *b = &k->b[i];
		struct boot_sets sets = { 0 };
		char *build_id;
		int ret = 0;

		if (!b->tests)
			continue;
		build_id = xasprintf("%s:build:%" PRId64, k->origin, b->id);
		if (bg_store_query(k->s, set_row, &sets, "SELECT mode, COUNT(*), MIN(created), "
				   "SUM(outcome = 'complete'), "
				   "SUM(outcome IN ('panic', 'hang', 'truncated')) FROM boots "
				   "WHERE image_sha256 = ? AND board = ? GROUP BY mode ORDER BY mode",
				   "ss", b->image_sha256, b->board) < 0)
			ret = -1;
		for (size_t n = 0; n < sets.n; n++) {
			if (!ret && write_set(k, b, &sets.v[n], build_id) < 0)
				ret = -1;
			free(sets.v[n].mode);
		}
		free(sets.v);
		free(build_id);
		if (ret < 0)
			return -1;
	}
	return 0;
}

static void kcidb_release(struct kcidb *k)
{
	for (size_t i = 0; i < k->nco; i++) {
		free(k->co[i].id);
		free(k->co[i].sha);
		free(k->co[i].tree);
		free(k->co[i].url);
		free(k->co[i].branch);
	}
	free(k->co);
	for (size_t i = 0; i < k->nb; i++) {
		struct build *b = &k->b[i];

		free(b->commit);
		free(b->board);
		free(b->status);
		free(b->config_hash);
		free(b->image_sha256);
		free(b->log);
	}
	free(k->b);
	for (size_t i = 0; i < k->nkeys; i++)
		free(k->keys[i]);
	free(k->keys);
	bg_strmap_release(&k->ids);
	bg_strmap_release(&k->images);
}

int bg_export_kcidb(struct bg_store *s, const char *origin, const char *lab, struct bg_json *j,
		    struct bg_kcidb_counts *counts)
{
	struct kcidb k = { .s = s, .origin = origin, .lab = lab, .j = j,
			   .ids = BG_STRMAP_INIT, .images = BG_STRMAP_INIT };
	int ret = -1;

	if (!bg_kcidb_origin_ok(origin)) {
		bg_error("origin '%s': KCIDB wants [a-z0-9_]+", origin);
		goto out;
	}
	/* one read transaction: the daemon's writes meanwhile are in it entirely or not */
	if (bg_store_exec(s, "BEGIN", "") < 0)
		goto out;
	k.began = true;
	if (bg_store_query(s, series_row, &k, "SELECT id, message_id, created FROM series "
			   "ORDER BY id", "") < 0 ||
	    bg_store_query(s, build_row, &k, "SELECT id, commit_sha, board, status, config_hash, "
			   "image_sha256, seconds, created, log, reused FROM builds ORDER BY id",
			   "") < 0)
		goto out;
	for (size_t i = 0; i < k.nb; i++) {
		struct build *b = &k.b[i];
		char *key;

		if (place_build(&k, b) < 0)
			goto out;
		if (strcmp(b->status, "built") || !b->image_sha256)
			continue;
		/* a rebuild or a reuse of the same image shows its boots once, on the first */
		key = xasprintf("%s %s %s", b->commit, b->board, b->image_sha256);
		if (bg_strmap_get(&k.images, key) >= 0) {
			free(key);
			continue;
		}
		ALLOC_GROW(k.keys, k.nkeys + 1, k.akeys);
		k.keys[k.nkeys++] = key;
		bg_strmap_put(&k.images, key, i);
		b->tests = true;
	}

	bg_json_object_begin(j);
	bg_json_key(j, "version");
	bg_json_object_begin(j);
	bg_json_key(j, "major");
	bg_json_int(j, BG_KCIDB_MAJOR);
	bg_json_key(j, "minor");
	bg_json_int(j, BG_KCIDB_MINOR);
	bg_json_object_end(j);
	bg_json_key(j, "checkouts");
	bg_json_array_begin(j);
	if (write_checkouts(&k) < 0)
		goto out;
	bg_json_array_end(j);
	bg_json_key(j, "builds");
	bg_json_array_begin(j);
	if (write_builds(&k) < 0)
		goto out;
	bg_json_array_end(j);
	bg_json_key(j, "tests");
	bg_json_array_begin(j);
	if (write_tests(&k) < 0)
		goto out;
	bg_json_array_end(j);
	bg_json_object_end(j);
	if (counts)
		*counts = k.n;
	ret = 0;
out:
	if (k.began)
		bg_store_exec(s, ret ? "ROLLBACK" : "COMMIT", "");
	kcidb_release(&k);
	return ret;
}

/* ---- boot-data files ---- */

struct stored_boot {
	int64_t id;
	char *board, *mode, *outcome, *console, *image, *commit;
	double created;
	char *kernel, *cmdline;   /* as the boot said them when it was read */
};

struct stored_boots {
	struct stored_boot *v;
	size_t n, alloc;
};

static int boot_row(const struct bg_store_row *r, void *data)
{
	struct stored_boots *boots = data;

	ALLOC_GROW(boots->v, boots->n + 1, boots->alloc);
	boots->v[boots->n++] = (struct stored_boot){ bg_row_int(r, 0), xstrdup(bg_row_text(r, 1)),
						     xstrdup(bg_row_text(r, 2)),
						     xstrdup(bg_row_text(r, 3)), col(r, 4),
						     xstrdup(bg_row_text(r, 5)), col(r, 6),
						     bg_row_double(r, 7), col(r, 8), col(r, 9) };
	return 0;
}

static int export_boot(const struct stored_boot *sb, const char *dir,
		       void (*on_file)(const struct bg_bootdata_file *, void *),
		       void (*on_problem)(int64_t, const char *, bool, void *), void *data)
{
	struct bg_strbuf out = BG_STRBUF_INIT;
	char id[32], *console, *name, *path;
	size_t len;
	int ret = 0;

	console = bg_read_file(sb->console, CONSOLE_MAX, &len);
	if (!console) {
		on_problem(sb->id, bg_error_last(), true, data);
		return 1;
	}
	snprintf(id, sizeof(id), "%" PRId64, sb->id);
	{
		const char *extra[] = { "BOOTGATE_BOOT", id, "BOOTGATE_COMMIT",
					sb->commit ? sb->commit : "", "BOOTGATE_BOARD", sb->board,
					"BOOTGATE_MODE", sb->mode, "BOOTGATE_OUTCOME", sb->outcome,
					"BOOTGATE_IMAGE_SHA256", sb->image, NULL };
		/* the kernel's release and command line as the boot's one reading stored them */
		struct bg_bootdata_info info = { sb->board, sb->created, sb->kernel, sb->cmdline,
						 extra };

		bg_bootdata_write(&out, &info, console, len);
	}
	name = bg_bootdata_file_name(sb->board, sb->commit, sb->id, sb->created);
	path = bg_path_join(dir, name);
	if (bg_write_file(path, out.buf, out.len) < 0) {
		on_problem(sb->id, bg_error_last(), true, data);
		ret = 1;
	} else {
		struct bg_bootdata_file file = { sb->id, sb->board, sb->commit, path };

		on_file(&file, data);
	}
	free(path);
	free(name);
	bg_strbuf_release(&out);
	free(console);
	return ret;
}

int bg_export_boot_data(struct bg_store *s, const char *dir,
			void (*on_file)(const struct bg_bootdata_file *f, void *data),
			void (*on_problem)(int64_t boot, const char *why, bool error, void *data),
			void *data)
{
	struct stored_boots boots = { 0 };
	struct stat st;
	int ret = 0;

	if (bg_mkdirs(dir) < 0)
		return -1;
	if (stat(dir, &st) < 0)
		return bg_error_errno("cannot use '%s'", dir);
	if (!S_ISDIR(st.st_mode))
		return bg_error("'%s' is not a directory", dir);
	/* a boot belongs to its image: its commit is the first one built into that image */
	if (bg_store_query(s, boot_row, &boots, "SELECT o.id, o.board, o.mode, o.outcome, "
			   "o.console, o.image_sha256, (SELECT b.commit_sha FROM builds b "
			   "WHERE b.image_sha256 = o.image_sha256 AND b.board = o.board "
			   "ORDER BY b.id LIMIT 1), o.created, o.kernel, o.cmdline FROM boots o "
			   "ORDER BY o.id", "") < 0)
		ret = -1;
	for (size_t i = 0; i < boots.n; i++) {
		struct stored_boot *b = &boots.v[i];

		if (ret >= 0) {
			if (!b->console || !*b->console)
				on_problem(b->id, "no console stored", false, data);
			else if (export_boot(b, dir, on_file, on_problem, data))
				ret = 1;
		}
		free(b->board);
		free(b->mode);
		free(b->outcome);
		free(b->console);
		free(b->image);
		free(b->commit);
		free(b->kernel);
		free(b->cmdline);
	}
	free(boots.v);
	return ret;
}
