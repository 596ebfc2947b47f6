/*
 * Reads the store and writes its results as KCIDB v5.3 and as boot-data files
 * (export.h). Everything comes from the store: trees, series, builds, boots, samples.
 */
#include "publish/export.h"

#include <fcntl.h>
#include <math.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "decide/stats.h"
#include "conf/board.h"
#include "parse/bootlog.h"
#include "net/artifacts.h"
#include "report/bootdata.h"
#include "store/export.h"
#include "store/views.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/path.h"
#include "util/strmap.h"
#include "util/xmalloc.h"

/* A console larger than this is no boot's: it is refused, not read into memory. */
#define CONSOLE_MAX ((size_t)256 << 20)
/* KCIDB's maxLength of a log_excerpt, in characters: a byte is at most one */
#define EXCERPT_MAX 16384
/* The one version of an issue bootgate writes: a culprit, once mailed, is not revised. */
#define ISSUE_VERSION 1

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

	/* not "boot": KernelCI's dashboard counts every test under it as one boot */
	bg_strbuf_addstr(sb, "boottime");
	if (!dot) {
		bg_strbuf_addch(sb, '.');
		add_path_name(sb, metric, strlen(metric));
		return;
	}
	/* boot.init is a figure of the boot itself: "boottime.init" */
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

/* A build as the store has it, and where the export puts it. */
struct build {
	const struct bg_export_build *row;
	size_t checkout;
	int64_t patch;                /* its place in a series, or -1 */
	bool tests;                   /* carries the boots of its image */
};

/* What the export tells of a board, from its file in the lab: read once per board. */
struct board_info {
	char *name, *arch;            /* arch NULL when not known */
	char **compatible;
	size_t ncompatible;
	char *artifact_url;           /* a LAVA board's, where its images are served; or NULL */
};

/* A build or a test a mailed culprit is seen in. */
struct incident {
	size_t culprit;
	char *build_id, *test_id;     /* one of them */
};

struct kcidb {
	struct bg_store *s;
	const char *origin, *lab;
	struct bg_json *j;
	struct bg_export_series_list series;
	struct bg_export_builds rows;
	struct bg_export_culprits culprits;
	struct board_info *boards;
	size_t nboards, aboards;
	struct bg_strmap board_at;    /* name -> boards[] */
	struct incident *inc;
	size_t ninc, ainc;
	struct checkout *co;
	size_t nco, aco;
	struct build *b;              /* one per rows.v[i] */
	size_t nb;
	struct bg_strmap ids;         /* checkout id -> index */
	struct bg_strmap images;      /* "commit board image" -> the build with its tests */
	char **keys;
	size_t nkeys, akeys;
	struct bg_kcidb_counts n;
	bool began;
};

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

/* Which checkout a build is of: a patch of a series, a commit of a tree, or its own. */
static int place_build(struct kcidb *k, struct build *b)
{
	const struct bg_export_build *r = b->row;
	struct bg_export_tree t;
	int64_t series, idx;
	char *message_id;
	size_t at;
	int found;

	found = bg_store_export_patch_of(k->s, r->commit, &series, &idx, &message_id);
	if (found < 0)
		return -1;
	if (found) {
		b->checkout = add_checkout(k, xasprintf("%s:series:%s", k->origin, message_id),
					   CO_SERIES, series, NULL, r->created);
		b->patch = idx;
		free(message_id);
		return 0;
	}
	found = bg_store_export_tree_of(k->s, r->commit, &t);
	if (found < 0)
		return -1;
	if (found) {
		at = add_checkout(k, xasprintf("%s:%s:%s", k->origin, t.name, r->commit), CO_TREE,
				  t.id, r->commit, r->created);
		if (!k->co[at].tree) {
			k->co[at].tree = t.name;
			k->co[at].url = t.url;
			k->co[at].branch = t.branch;
		} else {
			free(t.name);
			free(t.url);
			free(t.branch);
		}
	} else {
		at = add_checkout(k, xasprintf("%s:commit:%s", k->origin, r->commit), CO_COMMIT, 0,
				  r->commit, r->created);
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

/* Whether s is a URL a reader of the export can follow: a build log or a LAVA job. */
static bool web_url(const char *s)
{
	return s && (!strncmp(s, "https://", 8) || !strncmp(s, "http://", 7));
}

/* Whether a figure of seconds can be a KCIDB duration: measured, and not absurd. */
static bool seconds_ok(double s)
{
	return isfinite(s) && s >= 0 && s < 1e9;
}

static void put_duration(struct bg_json *j, double s)
{
	if (!seconds_ok(s))
		return;
	bg_json_key(j, "duration");
	bg_json_double(j, s);
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

static void series_checkout(struct kcidb *k, const struct bg_export_series *se)
{
	char *id = xasprintf("%s:series:%s", k->origin, se->message_id);

	bg_json_object_begin(k->j);
	put_common(k, id);
	free(id);
	put_str(k->j, "tree_name", se->tree);
	put_repo(k->j, se->url, se->branch);
	if (is_hex(se->base, 40))
		put_str(k->j, "git_commit_hash", se->base);
	if (is_hex(se->patchset_hash, 64))
		put_str(k->j, "patchset_hash", se->patchset_hash);
	put_str(k->j, "message_id", se->message_id);
	put_str(k->j, "comment", se->subject);
	put_time(k->j, "start_time", se->created);
	/* valid: the patches could be combined with the base; unknown until tried */
	if (se->failed > 0 || !strcmp(se->state, "failed")) {
		bg_json_key(k->j, "valid");
		bg_json_bool(k->j, false);
	} else if (se->applied > 0) {
		bg_json_key(k->j, "valid");
		bg_json_bool(k->j, true);
	}
	bg_json_key(k->j, "misc");
	bg_json_object_begin(k->j);
	bg_json_key(k->j, "series");
	bg_json_int(k->j, se->id);
	bg_json_key(k->j, "version");
	bg_json_int(k->j, se->version);
	bg_json_key(k->j, "total");
	bg_json_int(k->j, se->total);
	put_str(k->j, "source", se->source);
	put_str(k->j, "state", se->state);
	bg_json_object_end(k->j);
	bg_json_object_end(k->j);
	k->n.checkouts++;
}

static int write_checkouts(struct kcidb *k)
{
	for (size_t i = 0; i < k->series.n; i++)
		series_checkout(k, &k->series.v[i]);
	for (size_t i = 0; i < k->nco; i++) {
		struct checkout *c = &k->co[i];
		char *subject = NULL;

		if (c->kind == CO_SERIES)
			continue;
		if (bg_store_commit_subject(k->s, c->sha, &subject) < 0)
			return -1;
		bg_json_object_begin(k->j);
		put_common(k, c->id);
		put_str(k->j, "tree_name", c->tree);
		put_repo(k->j, c->url, c->branch);
		if (is_hex(c->sha, 40))
			put_str(k->j, "git_commit_hash", c->sha);
		/* the commit as the tree has it: no patch applied, which KCIDB says with "" */
		bg_json_key(k->j, "patchset_hash");
		bg_json_str(k->j, "");
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

static bool arch_ok(const char *s)
{
	return s && *s && strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_") == strlen(s);
}

static const struct board_info *board_info(struct kcidb *k, const char *board)
{
	ssize_t at = bg_strmap_get(&k->board_at, board);
	struct board_info *bi;
	struct bg_board b;

	if (at >= 0)
		return &k->boards[at];
	ALLOC_GROW(k->boards, k->nboards + 1, k->aboards);
	bi = &k->boards[k->nboards];
	memset(bi, 0, sizeof(*bi));
	bi->name = xstrdup(board);
	/* no lab, or no file for the board: nothing guessed */
	if (k->lab && bg_board_load(k->lab, board, &b) == 0) {
		if (arch_ok(b.arch))
			bi->arch = xstrdup(b.arch);
		bi->compatible = xcalloc(b.ncompatible ? b.ncompatible : 1, sizeof(char *));
		for (size_t i = 0; i < b.ncompatible; i++)
			bi->compatible[bi->ncompatible++] = xstrdup(b.compatible[i]);
		if (b.type == BG_BOARD_LAVA && b.lava.artifact_url)
			bi->artifact_url = xstrdup(b.lava.artifact_url);
		bg_board_release(&b);
	}
	bg_strmap_put(&k->board_at, bi->name, k->nboards);
	return &k->boards[k->nboards++];
}

static void board_info_release(struct board_info *bi)
{
	free(bi->name);
	free(bi->arch);
	for (size_t i = 0; i < bi->ncompatible; i++)
		free(bi->compatible[i]);
	free(bi->compatible);
	free(bi->artifact_url);
}

static void add_incident(struct kcidb *k, size_t culprit, char *build_id, char *test_id)
{
	ALLOC_GROW(k->inc, k->ninc + 1, k->ainc);
	k->inc[k->ninc++] = (struct incident){ culprit, build_id, test_id };
}

/*
 * The image, as the artifact server serves it to a LAVA board's workers: a KCIDB build's
 * output file. Other boards' images stay in the cache, where no URL reaches them.
 */
static void put_output_files(struct kcidb *k, const struct bg_export_build *b,
			     const struct board_info *bi)
{
	const char *name;
	char *url;

	if (!bi->artifact_url || strcmp(b->status, "built") || !is_hex(b->image_sha256, 64))
		return;
	name = b->image && *b->image ? b->image : "image";
	if (strrchr(name, '/'))
		name = strrchr(name, '/') + 1;
	url = bg_artifacts_url(bi->artifact_url, b->image_sha256);
	bg_json_key(k->j, "output_files");
	bg_json_array_begin(k->j);
	bg_json_object_begin(k->j);
	bg_json_key(k->j, "name");
	bg_json_str(k->j, *name ? name : "image");
	bg_json_key(k->j, "url");
	bg_json_str(k->j, url);
	bg_json_object_end(k->j);
	bg_json_array_end(k->j);
	free(url);
}

/*
 * Whether culprit c is seen in build b (the culprit's own commit, built on the board it
 * was bisected on) and, given a mode and a metric, in that test of it.
 */
static bool seen_in(const struct bg_export_culprit *c, const struct bg_export_build *b,
		    const char *mode, const char *metric)
{
	if (strcmp(c->commit, b->commit) || strcmp(c->board, b->board) ||
	    strcmp(b->status, "built"))
		return false;
	return !mode || (!strcmp(c->mode, mode) && !strcmp(c->metric, metric));
}

static int write_builds(struct kcidb *k)
{
	for (size_t i = 0; i < k->nb; i++) {
		const struct build *p = &k->b[i];
		const struct bg_export_build *b = p->row;
		const struct board_info *bi = board_info(k, b->board);
		char *id = xasprintf("%s:build:%" PRId64, k->origin, b->id);
		bool timed = seconds_ok(b->seconds);

		bg_json_object_begin(k->j);
		bg_json_key(k->j, "checkout_id");
		bg_json_str(k->j, k->co[p->checkout].id);
		put_common(k, id);
		put_time(k->j, "start_time", b->created - (timed ? b->seconds : 0));
		put_duration(k->j, b->seconds);
		put_str(k->j, "architecture", bi->arch);
		put_str(k->j, "compiler", b->compiler);
		put_str(k->j, "config_name", b->config_hash);
		if (web_url(b->log))
			put_str(k->j, "log_url", b->log);
		put_output_files(k, b, bi);
		bg_json_key(k->j, "status");
		bg_json_str(k->j, build_status(b->status));
		bg_json_key(k->j, "misc");
		bg_json_object_begin(k->j);
		put_str(k->j, "board", b->board);
		put_str(k->j, "commit", b->commit);
		put_str(k->j, "image_sha256", b->image_sha256);
		bg_json_key(k->j, "reused");
		bg_json_bool(k->j, b->reused);
		if (p->patch >= 0) {
			bg_json_key(k->j, "patch");
			bg_json_int(k->j, p->patch);
		}
		if (b->log && strncmp(b->log, "http", 4))
			put_str(k->j, "log", b->log);
		bg_json_object_end(k->j);
		bg_json_object_end(k->j);
		for (size_t c = 0; c < k->culprits.n; c++)
			if (seen_in(&k->culprits.v[c], b, NULL, NULL))
				add_incident(k, c, xstrdup(id), NULL);
		free(id);
		k->n.builds++;
	}
	return 0;
}

/* A test's fields up to its own: the caller adds number and misc, and ends it. */
static void test_head(struct kcidb *k, const struct bg_export_build *b,
		      const struct bg_export_boot_set *set, const char *build_id, const char *id,
		      const char *path, const char *status)
{
	const struct board_info *bi = board_info(k, b->board);

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
	if (bi->ncompatible) {
		bg_json_key(k->j, "compatible");
		bg_json_array_begin(k->j);
		for (size_t i = 0; i < bi->ncompatible; i++)
			bg_json_str(k->j, bi->compatible[i]);
		bg_json_array_end(k->j);
	}
	bg_json_key(k->j, "misc");
	bg_json_object_begin(k->j);
	/* what KernelCI's dashboard names the machine by */
	put_str(k->j, "platform", b->board);
	put_str(k->j, "board", b->board);
	put_str(k->j, "mode", set->mode);
	bg_json_object_end(k->j);
	bg_json_object_end(k->j);
}

/*
 * The end of a console, at most EXCERPT_MAX bytes from a line's start, without the
 * carriage returns and NULs a serial line carries; NULL when it cannot be read or is
 * empty. Only the end is read: a console may be large.
 */
static char *console_tail(const char *path)
{
	struct bg_strbuf sb = BG_STRBUF_INIT;
	char buf[EXCERPT_MAX];
	struct stat st;
	ssize_t got;
	off_t from;
	size_t i = 0;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return NULL;
	}
	from = st.st_size > EXCERPT_MAX ? st.st_size - EXCERPT_MAX : 0;
	got = pread(fd, buf, sizeof(buf), from);
	close(fd);
	if (got <= 0)
		return NULL;
	/* a cut line is no line: the excerpt starts at the next one */
	if (from > 0) {
		while (i < (size_t)got && buf[i] != '\n')
			i++;
		i++;
	}
	for (; i < (size_t)got; i++)
		if (buf[i] != '\r' && buf[i] != '\0')
			bg_strbuf_addch(&sb, buf[i]);
	if (!sb.len) {
		bg_strbuf_release(&sb);
		return NULL;
	}
	return bg_strbuf_detach(&sb, NULL);
}

/* What the boot test adds: its boots' seconds, the lab's log of one, its console's end. */
static void boot_fields(struct kcidb *k, const struct bg_export_boot_set *set)
{
	char *excerpt;

	put_duration(k->j, set->seconds);
	/* a LAVA job's console as plain text: lava-server's job/ID/log_file/plain */
	if (web_url(set->job_url)) {
		char *url = xasprintf("%s/log_file/plain", set->job_url);

		put_str(k->j, "log_url", url);
		free(url);
	}
	excerpt = set->console ? console_tail(set->console) : NULL;
	put_str(k->j, "log_excerpt", excerpt);
	free(excerpt);
}

/* The mode in an id: a plain word, whatever the store holds. */
static char *id_word(const char *s)
{
	struct bg_strbuf sb = BG_STRBUF_INIT;

	add_path_name(&sb, s, strlen(s));
	return bg_strbuf_detach(&sb, NULL);
}

static int write_set(struct kcidb *k, const struct bg_export_build *b,
		     const struct bg_export_boot_set *set, const char *build_id)
{
	struct bg_export_samples rows = { 0 };
	struct bg_strbuf path = BG_STRBUF_INIT;
	char *mode = id_word(set->mode), *id;
	const char *status;
	int ret = 0;

	status = set->failed ? "FAIL" : set->complete ? "PASS" : "MISS";
	id = xasprintf("%s:%s", build_id, mode);
	test_head(k, b, set, build_id, id, "boot", status);
	boot_fields(k, set);
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

	if (bg_store_export_samples(k->s, b->image_sha256, b->board, set->mode, &rows) < 0) {
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
		for (size_t c = 0; c < k->culprits.n; c++)
			if (seen_in(&k->culprits.v[c], b, set->mode, rows.metric[i]))
				add_incident(k, c, NULL, xstrdup(id));
		free(id);
		k->n.tests++;
	}
out:
	bg_export_samples_release(&rows);
	bg_strbuf_release(&path);
	free(mode);
	return ret;
}

static int write_tests(struct kcidb *k)
{
	for (size_t i = 0; i < k->nb; i++) {
		const struct bg_export_build *b = k->b[i].row;
		struct bg_export_boot_sets sets = { 0 };
		char *build_id;
		int ret = 0;

		if (!k->b[i].tests)
			continue;
		build_id = xasprintf("%s:build:%" PRId64, k->origin, b->id);
		if (bg_store_export_boot_sets(k->s, b->image_sha256, b->board, &sets) < 0)
			ret = -1;
		for (size_t n = 0; !ret && n < sets.n; n++)
			if (write_set(k, b, &sets.v[n], build_id) < 0)
				ret = -1;
		bg_export_boot_sets_release(&sets);
		free(build_id);
		if (ret < 0)
			return -1;
	}
	return 0;
}

/*
 * By bisection, not by commit and metric: the same culprit found on two boards or trees is
 * two bisections, two mails, so two issues, each with incidents of its own.
 */
static char *issue_id(struct kcidb *k, const struct bg_export_culprit *c)
{
	return xasprintf("%s:bisection:%" PRId64, k->origin, c->bisection);
}

/* A mailed culprit as KCIDB's issue: the code is at fault, the mail its report. */
static void write_issues(struct kcidb *k)
{
	for (size_t i = 0; i < k->culprits.n; i++) {
		const struct bg_export_culprit *c = &k->culprits.v[i];
		char *id = issue_id(k, c), *comment;

		comment = xasprintf("%.12s made %s slower on %s (%s mode)", c->commit, c->metric,
				    c->board, c->mode);
		bg_json_object_begin(k->j);
		put_common(k, id);
		bg_json_key(k->j, "version");
		bg_json_int(k->j, ISSUE_VERSION);
		put_str(k->j, "report_subject", c->subject);
		bg_json_key(k->j, "culprit");
		bg_json_object_begin(k->j);
		bg_json_key(k->j, "code");
		bg_json_bool(k->j, true);
		bg_json_object_end(k->j);
		put_str(k->j, "comment", comment);
		bg_json_key(k->j, "misc");
		bg_json_object_begin(k->j);
		put_str(k->j, "commit", c->commit);
		put_str(k->j, "metric", c->metric);
		put_str(k->j, "tree", c->tree);
		put_str(k->j, "board", c->board);
		put_str(k->j, "mode", c->mode);
		bg_json_key(k->j, "bisection");
		bg_json_int(k->j, c->bisection);
		if (isfinite(c->confidence)) {
			bg_json_key(k->j, "confidence");
			bg_json_double(k->j, c->confidence);
		}
		if (isfinite(c->regression_us)) {
			bg_json_key(k->j, "regression_us");
			bg_json_double(k->j, c->regression_us);
		}
		put_str(k->j, "message_id", c->message_id);
		put_time(k->j, "mailed", c->sent);
		bg_json_object_end(k->j);
		bg_json_object_end(k->j);
		free(comment);
		free(id);
		k->n.issues++;
	}
}

/* Each build and test a culprit is seen in, by culprit, in the order they were written. */
static void write_incidents(struct kcidb *k)
{
	size_t skip = strlen(k->origin) + 1;

	for (size_t c = 0; c < k->culprits.n; c++) {
		char *issue = issue_id(k, &k->culprits.v[c]);

		for (size_t i = 0; i < k->ninc; i++) {
			const struct incident *in = &k->inc[i];
			const char *of = in->build_id ? in->build_id : in->test_id;
			char *id;

			if (in->culprit != c)
				continue;
			/* the issue's id, then the object's without its origin */
			id = xasprintf("%s:%s", issue, of + skip);
			bg_json_object_begin(k->j);
			put_common(k, id);
			bg_json_key(k->j, "issue_id");
			bg_json_str(k->j, issue);
			bg_json_key(k->j, "issue_version");
			bg_json_int(k->j, ISSUE_VERSION);
			put_str(k->j, "build_id", in->build_id);
			put_str(k->j, "test_id", in->test_id);
			bg_json_key(k->j, "present");
			bg_json_bool(k->j, true);
			bg_json_object_end(k->j);
			free(id);
			k->n.incidents++;
		}
		free(issue);
	}
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
	free(k->b);
	for (size_t i = 0; i < k->nboards; i++)
		board_info_release(&k->boards[i]);
	free(k->boards);
	bg_strmap_release(&k->board_at);
	for (size_t i = 0; i < k->ninc; i++) {
		free(k->inc[i].build_id);
		free(k->inc[i].test_id);
	}
	free(k->inc);
	bg_export_culprits_release(&k->culprits);
	bg_export_builds_release(&k->rows);
	bg_export_series_list_release(&k->series);
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
			   .ids = BG_STRMAP_INIT, .images = BG_STRMAP_INIT,
			   .board_at = BG_STRMAP_INIT };
	int ret = -1;

	if (!bg_kcidb_origin_ok(origin)) {
		bg_error("origin '%s': KCIDB wants [a-z0-9_]+", origin);
		goto out;
	}
	/* one read transaction: the daemon's writes meanwhile are in it entirely or not */
	if (bg_store_begin_read(s) < 0)
		goto out;
	k.began = true;
	if (bg_store_export_series(s, &k.series) < 0 || bg_store_export_builds(s, &k.rows) < 0 ||
	    bg_store_export_culprits(s, &k.culprits) < 0)
		goto out;
	/* each series is a checkout; the builds of its patches join it (place_build) */
	for (size_t i = 0; i < k.series.n; i++) {
		const struct bg_export_series *se = &k.series.v[i];

		add_checkout(&k, xasprintf("%s:series:%s", origin, se->message_id), CO_SERIES,
			     se->id, NULL, se->created);
	}
	k.b = xcalloc(k.rows.n ? k.rows.n : 1, sizeof(*k.b));
	for (size_t i = 0; i < k.rows.n; i++)
		k.b[k.nb++] = (struct build){ .row = &k.rows.v[i], .patch = -1 };
	for (size_t i = 0; i < k.nb; i++) {
		struct build *p = &k.b[i];
		const struct bg_export_build *b = p->row;
		char *key;

		if (place_build(&k, p) < 0)
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
		p->tests = true;
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
	bg_json_key(j, "issues");
	bg_json_array_begin(j);
	write_issues(&k);
	bg_json_array_end(j);
	bg_json_key(j, "incidents");
	bg_json_array_begin(j);
	write_incidents(&k);
	bg_json_array_end(j);
	bg_json_object_end(j);
	if (counts)
		*counts = k.n;
	ret = 0;
out:
	if (k.began && ret)
		bg_store_rollback(s);
	else if (k.began)
		bg_store_commit(s);
	kcidb_release(&k);
	return ret;
}

/* ---- boot-data files ---- */

static int export_boot(const struct bg_export_boot *sb, const char *dir,
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
					"BOOTGATE_IMAGE_SHA256", sb->image_sha256, NULL };
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
	struct bg_export_boots boots = { 0 };
	struct stat st;
	int ret = 0, made;

	/* DIR itself may be new; a directory above it that is missing is a typo, not made */
	if ((made = mkdir(dir, 0777)) < 0 && errno == ENOENT) {
		char *parent = bg_path_parent(dir);

		bg_error("no directory '%s' to hold '%s'", parent, dir);
		free(parent);
		return -1;
	}
	if (made < 0 && errno != EEXIST)
		return bg_error_errno("cannot make '%s'", dir);
	if (stat(dir, &st) < 0)
		return bg_error_errno("cannot use '%s'", dir);
	if (!S_ISDIR(st.st_mode))
		return bg_error("'%s' is not a directory", dir);
	if (bg_store_export_boots(s, &boots) < 0)
		ret = -1;
	for (size_t i = 0; ret >= 0 && i < boots.n; i++) {
		const struct bg_export_boot *b = &boots.v[i];

		if (!b->console || !*b->console)
			on_problem(b->id, "no console stored", false, data);
		else if (export_boot(b, dir, on_file, on_problem, data))
			ret = 1;
	}
	bg_export_boots_release(&boots);
	return ret;
}
