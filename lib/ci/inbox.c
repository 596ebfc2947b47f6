/* Series from a public-inbox mirror and from a drop directory, into the store (inbox.h). */
#include <dirent.h>
#include <sys/stat.h>

#include "ci/inbox.h"
#include "net/git.h"
#include "util/sha.h"
#include "parse/mbox.h"
#include "store/series.h"
#include "store/service.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/path.h"
#include "util/strbuf.h"
#include "util/xmalloc.h"

#define EPOCHS_MAX 10000
#define DROP_FILE_MAX (256u << 20)

void bg_inbox_result_release(struct bg_inbox_result *r)
{
	for (size_t i = 0; i < r->nseries; i++) {
		free(r->series[i].message_id);
		free(r->series[i].subject);
		free(r->series[i].source);
	}
	free(r->series);
	bg_strvec_release(&r->errors);
	memset(r, 0, sizeof(*r));
}

/* ---- one complete series into the store ---- */

/* The messages of a series with the text each came as. */
struct raw_series {
	const struct bg_series_msgs *s;
	const struct bg_msg *base;     /* the array the series points into */
	const char *const *raw;        /* raw[i]: the text of base[i] */
	const size_t *raw_len;
};

static const char *raw_of(const struct raw_series *rs, const struct bg_msg *m, size_t *len)
{
	size_t i = (size_t)(m - rs->base);

	*len = rs->raw_len[i];
	return rs->raw[i];
}

/* KCIDB's: sha256 over the newline-terminated sha256 of each patch, in order. */
static void patchset_hash(const struct raw_series *rs, char out[BG_SHA256_HEX])
{
	struct bg_strbuf sb = BG_STRBUF_INIT;

	for (unsigned i = 0; i < rs->s->total; i++) {
		char hex[BG_SHA256_HEX];
		size_t len;
		const char *raw = raw_of(rs, rs->s->patches[i], &len);

		bg_sha256_mem(raw, len, hex);
		bg_strbuf_addf(&sb, "%s\n", hex);
	}
	bg_sha256_mem(sb.buf, sb.len, out);
	bg_strbuf_release(&sb);
}

static const char *series_base(const struct bg_series_msgs *s)
{
	if (s->cover && s->cover->base_commit)
		return s->cover->base_commit;
	/* format-patch --base without a cover puts it under the last patch */
	for (unsigned i = s->total; i-- > 0;)
		if (s->patches[i]->base_commit)
			return s->patches[i]->base_commit;
	return NULL;
}

static int add_patch_row(struct bg_store *st, int64_t id, unsigned idx, const struct bg_msg *m,
			 const struct raw_series *rs)
{
	size_t len;
	const char *raw = raw_of(rs, m, &len);
	char *text = xstrndup(raw, len);
	int ret = bg_store_series_patch_add(st, id, idx, m->message_id, m->subject, m->from,
					    text);

	free(text);
	return ret;
}

/*
 * The series into series, series_patches and, unless a newer version is there already,
 * a queued job; older versions superseded. Inside the caller's transaction.
 */
static int store_series(struct bg_store *st, const struct raw_series *rs, const char *source,
			int64_t tree_id, struct bg_inbox_result *res, int64_t *id_out)
{
	const struct bg_series_msgs *s = rs->s;
	const struct bg_msg *head = s->cover ? s->cover : s->patches[0];
	struct bg_series_version *o = NULL;
	struct bg_series_new n;
	char hash[BG_SHA256_HEX];
	char *mid;
	int64_t id, exists = 0, newer = 0;
	size_t no = 0;
	struct bg_inbox_series *out;
	int ret = -1;

	patchset_hash(rs, hash);
	/* a message id is the row's key; a series without one is named by its content */
	mid = head->message_id ? xstrdup(head->message_id) : xasprintf("patchset-%s", hash);
	if (bg_store_series_find(st, mid, &exists) < 0)
		goto out;
	if (exists) {
		*id_out = exists;
		ret = 0;    /* recorded already (the same mails read again, or dropped too) */
		goto out;
	}
	if (bg_store_series_versions(st, head->title, head->from_addr, &o, &no) < 0)
		goto out;
	if (no && o[0].version > (int64_t)s->version)
		newer = o[0].id;
	n = (struct bg_series_new){
		.tree_id = tree_id, .message_id = mid, .version = s->version, .total = s->total,
		.subject = head->subject, .author = head->from, .title = head->title,
		.addr = head->from_addr, .source = source, .base = series_base(s),
		.patchset_hash = hash, .superseded_by = newer,
		.error = "a newer version was there already",
	};
	if (bg_store_series_insert(st, &n, &id) < 0)
		goto out;
	*id_out = id;
	if (s->cover && add_patch_row(st, id, 0, s->cover, rs) < 0)
		goto out;
	for (unsigned i = 0; i < s->total; i++)
		if (add_patch_row(st, id, i + 1, s->patches[i], rs) < 0)
			goto out;
	ALLOC_GROW(res->series, res->nseries + 1, res->alloc);
	out = &res->series[res->nseries++];
	memset(out, 0, sizeof(*out));
	out->id = id;
	out->message_id = xstrdup(mid);
	out->subject = xstrdup(head->subject);
	out->source = xstrdup(source);
	out->version = s->version;
	out->total = s->total;
	out->superseded_by = newer;
	if (!newer) {
		char *why = xasprintf("superseded by v%u", s->version);

		if (bg_store_job_series(st, tree_id, series_base(s), id) < 0) {
			free(why);
			goto out;
		}
		/*
		 * every older version of the sender's gives way, unless it has ended: its result
		 * stands, and a From: line is easily forged, so a mail must not undo a series
		 * it did not start
		 */
		for (size_t k = 0; k < no; k++) {
			if (o[k].ended || o[k].version >= (int64_t)s->version)
				continue;
			if (bg_store_series_supersede(st, o[k].id, id, why) < 0) {
				free(why);
				goto out;
			}
			out->superseded++;
			res->superseded++;
		}
		free(why);
	}
	ret = 0;
out:
	free(o);
	free(mid);
	return ret;
}

/* ---- a public-inbox ---- */

struct inbox {
	struct bg_store *s;
	const char *name;
	char *source;         /* inbox:NAME */
	int64_t tree_id;
	struct bg_inbox_result *res;
};

/* The thread a patch hangs from: as bg_series_assemble's, through what is stored. */
static int thread_of(struct inbox *in, const struct bg_msg *m, char **thread)
{
	const char *parent = m->in_reply_to;
	int64_t same = 0;
	char *t = NULL;

	if (!parent && m->nreferences)
		parent = m->references[m->nreferences - 1];
	*thread = NULL;
	if (m->idx == 0 || !parent) {
		*thread = xstrdup(m->message_id);
		return 0;
	}
	if (bg_store_inbox_message_count(in->s, parent, in->name, m->version, m->total,
					 &same) < 0)
		return -1;
	if (same) {
		if (bg_store_inbox_thread(in->s, parent, &t) < 0)
			return -1;
		*thread = t;
		return 0;
	}
	if (bg_store_inbox_message_count(in->s, parent, NULL, 0, 0, &same) < 0)
		return -1;
	/* a patch of another series, or of another version: this one starts its own */
	*thread = xstrdup(same ? m->message_id : parent);
	return 0;
}

struct group {
	char *thread;
	unsigned version, total;
};

struct groups {
	struct group *v;
	size_t n, alloc;
};

static void groups_add(struct groups *g, const char *thread, unsigned version, unsigned total)
{
	for (size_t i = 0; i < g->n; i++)
		if (!strcmp(g->v[i].thread, thread) && g->v[i].version == version &&
		    g->v[i].total == total)
			return;
	ALLOC_GROW(g->v, g->n + 1, g->alloc);
	g->v[g->n].thread = xstrdup(thread);
	g->v[g->n].version = version;
	g->v[g->n++].total = total;
}

static void groups_release(struct groups *g)
{
	for (size_t i = 0; i < g->n; i++)
		free(g->v[i].thread);
	free(g->v);
	memset(g, 0, sizeof(*g));
}

/* One stored mail: kept when it is a patch. */
static int store_message(struct inbox *in, const char *where, unsigned epoch, const char *commit,
			 const char *raw, size_t len, struct groups *touched)
{
	struct bg_msg m;
	struct bg_inbox_message im;
	struct bg_inbox_group g;
	char hex[BG_SHA256_HEX];
	char *thread = NULL;
	bool added;
	int ret = -1;

	in->res->messages++;
	if (bg_msg_parse(where, raw, len, &m) < 0) {
		in->res->malformed++;
		bg_strvec_push(&in->res->errors, bg_error_last());
		return 0;
	}
	/* a stray [PATCH 3/2] belongs to no series */
	if (!m.patch || m.idx > m.total) {
		if (m.reply)
			in->res->replies++;
		else
			in->res->ignored++;
		ret = 0;
		goto out;
	}
	if (!m.message_id) {
		in->res->malformed++;
		bg_strvec_pushf(&in->res->errors, "%s:%zu: a patch without a Message-ID", where,
				m.line);
		ret = 0;
		goto out;
	}
	if (thread_of(in, &m, &thread) < 0)
		goto out;
	bg_sha256_mem(raw, len, hex);
	im = (struct bg_inbox_message){
		.message_id = m.message_id, .inbox = in->name, .in_reply_to = m.in_reply_to,
		.thread = thread, .version = m.version, .idx = m.idx, .total = m.total,
		.subject = m.subject, .author = m.from, .mbox = raw, .sha256 = hex,
		.epoch = epoch, .commit = commit,
	};
	if (bg_store_inbox_message_add(in->s, &im, &added) < 0)
		goto out;
	if (!added) {
		ret = 0;     /* the same Message-ID again (a cross-post, a resend): the first counts */
		goto out;
	}
	in->res->patches++;
	/* mails that came before this one and hung from it now hang where it does */
	g = (struct bg_inbox_group){ in->name, thread, m.version, m.total };
	if (strcmp(thread, m.message_id) && bg_store_inbox_rethread(in->s, &g, m.message_id) < 0)
		goto out;
	groups_add(touched, thread, m.version, m.total);
	ret = 0;
out:
	free(thread);
	bg_msg_release(&m);
	return ret;
}

struct loaded {
	struct bg_strvec ids, raw;
	size_t *len;
	size_t alloc;
};

static int take_raw(const struct bg_store_row *r, void *data)
{
	struct loaded *l = data;
	const char *text = bg_row_text(r, 1);

	bg_strvec_push(&l->ids, bg_row_text(r, 0));
	bg_strvec_push(&l->raw, text);
	ALLOC_GROW(l->len, l->raw.n, l->alloc);
	l->len[l->raw.n - 1] = strlen(text);
	return 0;
}

/* The group's series when every patch of it is there and not yet part of one. */
static int try_assemble(struct inbox *in, const struct group *g)
{
	struct loaded l = { BG_STRVEC_INIT, BG_STRVEC_INIT, NULL, 0 };
	struct bg_inbox_group sg = { in->name, g->thread, g->version, g->total };
	struct bg_msg *msgs = NULL;
	struct bg_series_msgs *s = NULL;
	size_t ns = 0, nm = 0;
	int64_t have = 0;
	int ret = -1;

	if (bg_store_inbox_group_patches(in->s, &sg, &have) < 0)
		return -1;
	if (have < g->total)
		return 0;
	if (bg_store_inbox_group_rows(in->s, &sg, take_raw, &l) < 0)
		goto out;
	msgs = xcalloc(l.raw.n, sizeof(*msgs));
	for (; nm < l.raw.n; nm++)
		if (bg_msg_parse(l.ids.v[nm], l.raw.v[nm], l.len[nm], &msgs[nm]) < 0)
			goto out;   /* it was read once: the store no longer holds what it read */
	if (bg_series_assemble(msgs, nm, &s, &ns) < 0)
		goto out;
	for (size_t k = 0; k < ns; k++) {
		struct raw_series rs = { &s[k], msgs, (const char *const *)l.raw.v, l.len };
		int64_t id;

		if (store_series(in->s, &rs, in->source, in->tree_id, in->res, &id) < 0 ||
		    bg_store_inbox_group_assign(in->s, &sg, id) < 0)
			goto out;
	}
	ret = 0;
out:
	bg_series_msgs_free(s, ns);
	bg_msgs_free(msgs, nm);
	bg_strvec_release(&l.ids);
	bg_strvec_release(&l.raw);
	free(l.len);
	return ret;
}

/* The commits of a batch, oldest first, in one transaction with the cursor moved past them. */
static int read_batch(struct inbox *in, struct bg_git_repo *repo, const char *epoch_path,
		      unsigned epoch, char (*commits)[BG_OID_HEX], size_t n)
{
	struct groups touched = { 0 };
	int ret = -1;

	if (bg_store_begin(in->s) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		char *raw = NULL, *where;
		size_t len;
		int r = bg_git_repo_read(repo, commits[i], "m", BG_MSG_MAX, &raw, &len);

		where = xasprintf("%s@%.12s", epoch_path, commits[i]);
		if (r == 1) {
			in->res->deleted++;
		} else if (r < 0) {
			/* a message too large is the mail's fault, not the inbox's */
			in->res->messages++;
			in->res->malformed++;
			bg_strvec_pushf(&in->res->errors, "%s:1: %s", where, bg_error_last());
		} else if (store_message(in, where, epoch, commits[i], raw, len, &touched) < 0) {
			free(where);
			free(raw);
			goto out;
		}
		free(where);
		free(raw);
	}
	for (size_t k = 0; k < touched.n; k++)
		if (try_assemble(in, &touched.v[k]) < 0)
			goto out;
	if (bg_store_inbox_cursor_set(in->s, in->name, epoch, commits[n - 1]) < 0)
		goto out;
	ret = bg_store_commit(in->s);
out:
	if (ret < 0)
		bg_store_rollback(in->s);
	groups_release(&touched);
	return ret;
}

/*
 * A walk down an epoch's first parents whose memory is bounded by the batch, whatever
 * the epoch holds (lore's epochs hold 300 000 commits, all new on a first read). libgit2
 * keeps each object read in its repository's cache (up to 256 MB), and a revwalk keeps
 * every commit it passed: so one step at a time, and the repository opened anew after
 * WALK_REOPEN commits (each opening costs some ms: not each batch).
 */
#define WALK_REOPEN (16 * BG_INBOX_BATCH)

struct walk {
	const char *path;
	struct bg_git_repo *repo;
	size_t steps;         /* since the repository was opened */
};

static int walk_open(struct walk *w)
{
	if (w->steps >= WALK_REOPEN) {
		bg_git_repo_free(w->repo);
		w->repo = NULL;
	}
	if (!w->repo) {
		w->steps = 0;
		return bg_git_repo_open(w->path, &w->repo);
	}
	return 0;
}

/* The commit rev, in id, and its first parent, in parent ("" at a root). */
static int walk_at(struct walk *w, const char *rev, char id[BG_OID_HEX], char parent[BG_OID_HEX])
{
	int ret;

	if (walk_open(w) < 0)
		return -1;
	w->steps++;
	ret = bg_git_repo_parent(w->repo, rev, id, parent);
	/* libgit2's why (a lost object, a broken pack) is kept */
	if (ret < 0)
		return bg_error("%s: %s", w->path, bg_error_last());
	if (ret > 0)
		return bg_error("%s: no commit %s", w->path, rev);
	return 0;
}

/* id becomes its first parent; parent, that one's. */
static int walk_down(struct walk *w, char id[BG_OID_HEX], char parent[BG_OID_HEX])
{
	char rev[BG_OID_HEX];

	memcpy(rev, parent, BG_OID_HEX);
	return walk_at(w, rev, id, parent);
}

/*
 * The epoch's commits after the cursor, oldest first, a batch at a time: the first walk,
 * from the tip down to the cursor, keeps the newest commit of each batch; then each
 * batch is walked again from there, and read in order. Each commit is passed twice.
 */
static int read_epoch(struct inbox *in, const char *epoch_path, unsigned epoch)
{
	struct bg_strvec marks = BG_STRVEC_INIT;
	struct walk w = { epoch_path, NULL, 0 };
	char (*batch)[BG_OID_HEX] = xcalloc(BG_INBOX_BATCH, BG_OID_HEX);
	char id[BG_OID_HEX], parent[BG_OID_HEX], *cursor = NULL;
	size_t n = 0;
	int ret = -1, r;

	if (bg_store_inbox_cursor(in->s, in->name, epoch, &cursor) < 0 || walk_open(&w) < 0)
		goto out;
	r = bg_git_repo_parent(w.repo, "HEAD", id, parent);
	if (r != 0) {
		ret = r > 0 ? 0 : -1;    /* no commit yet: nothing to read */
		goto out;
	}
	while (!cursor || !*cursor || strcmp(id, cursor)) {
		if (n++ % BG_INBOX_BATCH == 0)
			bg_strvec_push(&marks, id);
		if (!*parent) {
			if (cursor && *cursor) {
				bg_error("%s: commit %s read last is not in the history of 'HEAD' "
					 "any more", epoch_path, cursor);
				goto out;
			}
			break;
		}
		if (walk_down(&w, id, parent) < 0)
			goto out;
	}
	for (size_t k = marks.n; k-- > 0;) {
		/* the oldest batch holds what is left over; every other one, a whole batch */
		size_t len = k == marks.n - 1 ? n - k * BG_INBOX_BATCH : BG_INBOX_BATCH;

		if (walk_at(&w, marks.v[k], id, parent) < 0)
			goto out;
		/* filled from its newest commit, at the end, down to its oldest */
		for (size_t i = len; i-- > 0;) {
			memcpy(batch[i], id, BG_OID_HEX);
			if (i && !*parent) {
				bg_error("%s: the history changed while it was read", epoch_path);
				goto out;
			}
			if (i && walk_down(&w, id, parent) < 0)
				goto out;
		}
		if (read_batch(in, w.repo, epoch_path, epoch, batch, len) < 0)
			goto out;
		w.steps += len;    /* their trees and blobs were read */
	}
	ret = 0;
out:
	free(cursor);
	bg_strvec_release(&marks);
	free(batch);
	bg_git_repo_free(w.repo);
	return ret;
}

/* N of "N.git", or -1. */
static long epoch_number(const char *name)
{
	char *end;
	long n;

	if (name[0] < '0' || name[0] > '9' || (name[0] == '0' && name[1] != '.'))
		return -1;
	n = strtol(name, &end, 10);
	if (strcmp(end, ".git") || n < 0 || n >= EPOCHS_MAX)
		return -1;
	return n;
}

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

int bg_inbox_follow(struct bg_store *s, const char *name, const char *path, int64_t tree_id,
		    struct bg_inbox_result *res)
{
	struct inbox in = { s, name, NULL, tree_id, res };
	char *git = bg_path_join(path, "git");
	long *epochs = NULL;
	size_t n = 0, alloc = 0;
	struct stat st;
	DIR *d;
	int ret = -1;

	in.source = xasprintf("inbox:%s", name);
	if (stat(git, &st) == 0 && S_ISDIR(st.st_mode)) {
		struct dirent *e;

		if (!(d = opendir(git))) {
			bg_error_errno("inbox '%s': cannot read '%s'", name, git);
			goto out;
		}
		while ((e = readdir(d))) {
			long k = epoch_number(e->d_name);

			if (k < 0)
				continue;
			ALLOC_GROW(epochs, n + 1, alloc);
			epochs[n++] = k;
		}
		closedir(d);
		if (!n) {
			bg_error("inbox '%s': '%s' holds no epoch (N.git)", name, git);
			goto out;
		}
		qsort(epochs, n, sizeof(*epochs), cmp_long);
		for (size_t i = 0; i < n; i++) {
			char *ep = xasprintf("%s/%ld.git", git, epochs[i]);
			int r = read_epoch(&in, ep, (unsigned)epochs[i]);

			free(ep);
			if (r < 0)
				goto out;
		}
	} else if (bg_git_is_repository(path) == 0) {
		/* one epoch by itself, as `git clone --mirror .../LIST/0` keeps it */
		if (read_epoch(&in, path, 0) < 0)
			goto out;
	} else {
		bg_error("inbox '%s': '%s' is neither a public-inbox v2 directory (git/N.git) nor "
			 "a git repository", name, path);
		goto out;
	}
	ret = 0;
out:
	free(epochs);
	free(git);
	free(in.source);
	return ret;
}

/* ---- the drop directory ---- */

static bool drop_name(const char *name)
{
	size_t n = strlen(name);

	return name[0] != '.' && ((n > 5 && !strcmp(name + n - 5, ".mbox")) ||
				  (n > 4 && !strcmp(name + n - 4, ".eml")));
}

/* dir/sub/name, sub made when missing; an older file of that name is replaced. */
static int move_to(const char *dir, const char *sub, const char *name)
{
	char *from = bg_path_join(dir, name), *to_dir = bg_path_join(dir, sub);
	char *to = bg_path_join(to_dir, name);
	int ret = bg_mkdirs(to_dir);

	if (!ret && rename(from, to) < 0)
		ret = bg_error_errno("cannot move '%s' to '%s'", from, to);
	free(from);
	free(to_dir);
	free(to);
	return ret;
}

static int drop_failed(const char *dir, const char *name, const char *why,
		       struct bg_inbox_result *res)
{
	char *failed = bg_path_join(dir, "failed"), *ename = xasprintf("%s.error", name);
	char *epath = bg_path_join(failed, ename), *line = xasprintf("%s\n", why);
	int ret = move_to(dir, "failed", name);

	if (!ret)
		ret = bg_write_file(epath, line, strlen(line));
	res->drop_failed++;
	bg_strvec_push(&res->errors, why);
	free(failed);
	free(ename);
	free(epath);
	free(line);
	return ret;
}

/* One drop file: 0 taken, 1 refused (why in *why), -1 the store failed. */
static int drop_one(struct bg_store *s, const char *path, const char *name, int64_t tree_id,
		    struct bg_inbox_result *res, char **why)
{
	struct bg_msg *msgs = NULL;
	struct bg_series_msgs *ser = NULL;
	size_t n = 0, ns = 0, len = 0, before = res->nseries;
	const char **raw = NULL;
	size_t *raw_len = NULL;
	char *buf, *source = NULL;
	int ret = 1;

	*why = NULL;
	if (!(buf = bg_read_file(path, DROP_FILE_MAX, &len))) {
		*why = xasprintf("%s:1: %s", name, bg_error_last());
		return 1;
	}
	if (bg_mbox_parse(name, buf, len, &msgs, &n) < 0) {
		*why = xstrdup(bg_error_last());
		goto out;
	}
	res->messages += n;
	for (size_t i = 0; i < n; i++)
		if (msgs[i].patch)
			res->patches++;
		else if (msgs[i].reply)
			res->replies++;
		else
			res->ignored++;
	if (bg_series_assemble(msgs, n, &ser, &ns) < 0) {
		*why = xstrdup(bg_error_last());
		goto out;
	}
	if (ns != 1) {
		*why = ns ? xasprintf("%s:1: holds %zu series: a drop file is one", name, ns)
			  : xasprintf("%s:1: no complete series (every patch 1..N of one)", name);
		goto out;
	}
	raw = xcalloc(n, sizeof(*raw));
	raw_len = xcalloc(n, sizeof(*raw_len));
	for (size_t i = 0; i < n; i++) {
		raw[i] = buf + msgs[i].raw_off;
		raw_len[i] = msgs[i].raw_len;
	}
	source = xasprintf("drop:%s", name);
	{
		struct raw_series rs = { &ser[0], msgs, raw, raw_len };
		int64_t id;

		if (bg_store_begin(s) < 0) {
			ret = -1;
			goto out;
		}
		if (store_series(s, &rs, source, tree_id, res, &id) < 0 || bg_store_commit(s) < 0) {
			bg_store_rollback(s);
			/* drop what the rolled-back transaction reported */
			while (res->nseries > before) {
				struct bg_inbox_series *x = &res->series[--res->nseries];

				free(x->message_id);
				free(x->subject);
				free(x->source);
			}
			ret = -1;
			goto out;
		}
	}
	ret = 0;
out:
	free(source);
	free(raw);
	free(raw_len);
	bg_series_msgs_free(ser, ns);
	bg_msgs_free(msgs, n);
	free(buf);
	return ret;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int bg_inbox_drop(struct bg_store *s, const char *dir, int64_t tree_id,
		  struct bg_inbox_result *res)
{
	struct bg_strvec names = BG_STRVEC_INIT;
	struct dirent *e;
	DIR *d = opendir(dir);
	int ret = 0;

	if (!d)
		return bg_error_errno("cannot read the drop directory '%s'", dir);
	while ((e = readdir(d)))
		if (drop_name(e->d_name))
			bg_strvec_push(&names, e->d_name);
	closedir(d);
	if (names.n)
		qsort(names.v, names.n, sizeof(*names.v), cmp_str);
	for (size_t i = 0; i < names.n && !ret; i++) {
		char *path = bg_path_join(dir, names.v[i]), *why = NULL;
		struct stat st;
		int r;

		/* a link could point anywhere, a FIFO block: regular files only */
		if (lstat(path, &st) < 0 || !S_ISREG(st.st_mode)) {
			why = xasprintf("%s:1: not a regular file", names.v[i]);
			r = 1;
		} else {
			r = drop_one(s, path, names.v[i], tree_id, res, &why);
		}
		if (r < 0)
			ret = -1;
		else if (r > 0)
			ret = drop_failed(dir, names.v[i], why, res);
		else if (!(ret = move_to(dir, "done", names.v[i])))
			res->dropped++;
		free(why);
		free(path);
	}
	bg_strvec_release(&names);
	return ret;
}
