/*
 * bootgate's reading of mail nobody here wrote (../shared/fixtures/real/mbox, when that
 * folder exists) beside git's: git mailinfo's author and subject of every mail, git's own
 * t5100 expectations, and, where b4 is installed, the series b4 am takes from each file.
 */
#include "unit.h"
#include "parse/mbox.h"
#include "util/error.h"
#include "util/proc.h"
#include "util/strbuf.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>

#define REAL FIXTURES "/../../../shared/fixtures/real/mbox"
#define MAIL_MAX (64u << 20)

/* A disagreement that is understood: "dir/file#N" (a mail) or "dir/file" (a file). */
struct known {
	const char *what;
	const char *why;
};

/* Where bootgate reads a mail otherwise than git mailinfo, on purpose. */
static const struct known mailinfo_known[] = {
	{ NULL, NULL },
};

/* Where bootgate takes another series from a file than b4 am does, and why. */
static const struct known b4_known[] = {
	{ "patchwork/series-base-different-versions.mbox",
	  "b4 0.12 stops on the folded Subject: it rewrites; bootgate takes the v3 cover's "
	  "unversioned patches as its series, as patchwork does" },
	{ "patchwork/series-bugs-multiple-references.mbox",
	  "b4 0.12 stops on the folded Subject: it rewrites" },
	{ "patchwork/series-mercurial-cover-letter.mbox",
	  "b4 reads no \"1 of 2\" (and stops on a folded Subject:); patchwork does" },
	{ "patchwork/series-mercurial-no-cover-letter.mbox",
	  "b4 reads no \"1 of 2\" (and stops on a folded Subject:); patchwork does" },
	{ "patchwork/series-base-extra-patches.mbox",
	  "b4 keeps a [PATCH 3/2]; bootgate applies the 2 patches the series announces" },
	{ "patchwork/series-base-incomplete.mbox",
	  "b4 writes what it has of an incomplete series; bootgate measures whole series only" },
	{ "patchwork/series-bugs-mixed-versions.mbox", "incomplete, as above" },
	{ "patchwork/series-bugs-spamming.mbox", "incomplete, as above" },
	{ "patchwork/series-bugs-unnumbered.mbox", "incomplete, as above" },
	{ "patchwork/series-base-no-references.mbox",
	  "b4 splits a tag at spaces only, so [net,v2,1/2] is 1/1 to it and it keeps one "
	  "patch; bootgate reads it as patchwork does, and groups mails without References "
	  "by sender, version and total" },
	{ "patchwork/series-revision-unlabeled-noreferences.mbox",
	  "[net,v2,1/2] again; of the same series sent twice bootgate takes the later" },
	{ "patchwork/series-revision-unlabeled.mbox",
	  "the same series sent twice, unlabeled: b4 takes the first, bootgate the later "
	  "(patchwork counts it as the next revision)" },
	{ "b4/trailers-followup-partial-reroll.mbox",
	  "a v3 that resends patch 2 alone: b4 fills patch 1 in from v2, bootgate takes "
	  "the newest whole version, v2" },
	{ NULL, NULL },
};

struct tally {
	unsigned compared, agreed, known;
	unsigned unexpected;       /* disagreements not listed */
	bool *seen;                /* the listed ones that did happen */
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in dir ending with suffix and starting with prefix, sorted; NULL-terminated. */
static char **list_dir(const char *dir, const char *prefix, const char *suffix)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **v = NULL;
	size_t n = 0, alloc = 0;

	assert_non_null(d);
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name), sl = strlen(suffix);

		if (len <= sl || strcmp(e->d_name + len - sl, suffix) ||
		    strncmp(e->d_name, prefix, strlen(prefix)))
			continue;
		ALLOC_GROW(v, n + 2, alloc);
		v[n++] = xstrdup(e->d_name);
	}
	closedir(d);
	if (!v)
		v = xcalloc(1, sizeof(*v));
	qsort(v, n, sizeof(*v), cmp_str);
	v[n] = NULL;
	return v;
}

static void list_free(char **v)
{
	for (size_t i = 0; v[i]; i++)
		free(v[i]);
	free(v);
}

/* One comparison: counted, and said when it disagrees. */
static void judge(struct tally *t, const struct known *known, const char *what,
		  const char *ours, const char *theirs)
{
	t->compared++;
	if (!strcmp(ours, theirs)) {
		t->agreed++;
		return;
	}
	for (size_t k = 0; known[k].what; k++)
		if (!strcmp(known[k].what, what)) {
			t->known++;
			t->seen[k] = true;
			return;
		}
	t->unexpected++;
	printf("  %s:\n    bootgate: %s\n    other:    %s\n", what, ours, theirs);
}

/* The figures under label; a listed disagreement that no longer happens is a list to
 * update: it fails too. */
static void check_known(struct tally *t, const struct known *known, size_t n, const char *label)
{
	size_t stale = 0;

	printf("mbox-real: %s: %u compared, %u agreed, %u known disagreements, %u unexpected\n",
	       label, t->compared, t->agreed, t->known, t->unexpected);

	for (size_t k = 0; k < n; k++)
		if (!t->seen[k]) {
			printf("  %s: listed as a disagreement (%s), but they agree\n",
			       known[k].what, known[k].why);
			stale++;
		}
	free(t->seen);
	assert_int_equal(t->unexpected, 0);
	assert_int_equal(stale, 0);
}

static bool have_real(void)
{
	struct stat st;

	if (stat(REAL, &st) == 0 && S_ISDIR(st.st_mode))
		return true;
	printf("mbox-real: %s absent: nothing compared\n", REAL);
	return false;
}

/* "Author: ..\nEmail: ..\nSubject: .." as git mailinfo prints it, from our reading. */
static char *our_info(const struct bg_msg *m)
{
	return xasprintf("Author: %s\nEmail: %s\nSubject: %s", m->author_name, m->author_addr,
			 m->commit_subject);
}

/* The same three lines of git mailinfo's output (or of an info file of t5100). */
static char *their_info(const char *out)
{
	static const char *const keys[] = { "Author:", "Email:", "Subject:" };
	struct bg_strbuf sb = BG_STRBUF_INIT;

	for (size_t k = 0; k < ARRAY_SIZE(keys); k++) {
		size_t kl = strlen(keys[k]);
		const char *p = out, *v = "";
		int vlen = 0;

		for (; *p; p = *strchrnul(p, '\n') ? strchrnul(p, '\n') + 1 : strchrnul(p, '\n'))
			if (!strncmp(p, keys[k], kl)) {
				v = p + kl + (p[kl] == ' ');
				vlen = (int)(strchrnul(v, '\n') - v);
				break;
			}
		bg_strbuf_addf(&sb, "%s%s %.*s", k ? "\n" : "", keys[k], vlen, v);
	}
	return bg_strbuf_detach(&sb, NULL);
}

/* git mailinfo's reading of the mail in raw[0..len). */
static char *git_mailinfo(const char *scratch, const char *raw, size_t len)
{
	char *mail = bg_path_join(scratch, "mail"), *msg = bg_path_join(scratch, "msg");
	char *patch = bg_path_join(scratch, "patch"), *out = NULL, *info;
	char *argv[] = { "git", "mailinfo", "-u", msg, patch, NULL };
	struct bg_proc_result r;
	int fd;

	assert_int_equal(bg_write_file(mail, raw, len), 0);
	fd = open(mail, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(bg_proc_capture(&(struct bg_proc_opts){ .argv = argv, .in_fd = fd,
								   .err_fd = -1 },
					 60, 1 << 20, &out, &r), 0);
	close(fd);
	info = their_info(out);
	free(out);
	free(mail);
	free(msg);
	free(patch);
	return info;
}

/* Every mail of dir/name beside git mailinfo's reading of it. */
static void mailinfo_file(struct tally *t, const char *scratch, const char *dir,
			  const char *name)
{
	char *path = xasprintf("%s/%s/%s", REAL, dir, name);
	char *what = xasprintf("%s/%s", dir, name);
	struct bg_msg *m = NULL;
	size_t len, n = 0;
	char *buf = bg_read_file(path, MAIL_MAX, &len);

	assert_non_null(buf);
	if (bg_mbox_parse(what, buf, len, &m, &n) < 0) {
		char *why = xasprintf("refused: %s", bg_error_last());

		judge(t, mailinfo_known, what, why, "(read by git)");
		free(why);
	}
	for (size_t i = 0; i < n; i++) {
		char *one = xasprintf("%s#%zu", what, i + 1);
		char *ours = our_info(&m[i]);
		char *theirs = git_mailinfo(scratch, buf + m[i].raw_off, m[i].raw_len);

		judge(t, mailinfo_known, one, ours, theirs);
		free(one);
		free(ours);
		free(theirs);
	}
	bg_msgs_free(m, n);
	free(buf);
	free(what);
	free(path);
}

static void test_git_mailinfo(void **state)
{
	static const char *const dirs[] = { "patchwork", "b4", "git-t5100/split", "git-t5100" };
	struct tally t = { 0 };
	char *scratch;

	(void)state;
	if (!have_real())
		skip();
	scratch = unit_scratch_dir("mbox-real");
	assert_non_null(scratch);
	t.seen = xcalloc(ARRAY_SIZE(mailinfo_known), sizeof(*t.seen));
	for (size_t d = 0; d < ARRAY_SIZE(dirs); d++) {
		char *dir = xasprintf("%s/%s", REAL, dirs[d]);
		/* git-t5100's own mails beside the split sample: its RFC 2047 samples, a
		 * quoted CR, an mboxrd, and the whole sample (leading blank lines) */
		char **names = d == 3 ? list_dir(dir, "", "mbox") : list_dir(dir, "", ".mbox");

		for (size_t i = 0; names[i]; i++)
			mailinfo_file(&t, scratch, dirs[d], names[i]);
		list_free(names);
		free(dir);
	}
	check_known(&t, mailinfo_known, ARRAY_SIZE(mailinfo_known) - 1, "git mailinfo, mails");
	assert_int_equal(bg_remove_tree(scratch), 0);
	free(scratch);
}

/* git's t5100 expectations: split/00NN.mbox read as info00NN says. */
static void test_t5100_expectations(void **state)
{
	struct tally t = { 0 };
	char **names;

	(void)state;
	if (!have_real())
		skip();
	t.seen = xcalloc(ARRAY_SIZE(mailinfo_known), sizeof(*t.seen));
	names = list_dir(REAL "/git-t5100/split", "", ".mbox");
	for (size_t i = 0; names[i]; i++) {
		char *path = xasprintf("%s/git-t5100/split/%s", REAL, names[i]);
		char *info = xasprintf("%s/git-t5100/info%.4s", REAL, names[i]);
		char *what = xasprintf("git-t5100/info%.4s", names[i]);
		char *buf = bg_read_file(path, MAIL_MAX, NULL), *expect = bg_read_file(info, MAIL_MAX, NULL);
		struct bg_msg m;
		char *ours, *theirs;

		assert_non_null(buf);
		assert_non_null(expect);
		assert_int_equal(bg_msg_parse(what, buf, strlen(buf), &m), 0);
		ours = our_info(&m);
		theirs = their_info(expect);
		judge(&t, mailinfo_known, what, ours, theirs);
		bg_msg_release(&m);
		free(ours);
		free(theirs);
		free(buf);
		free(expect);
		free(what);
		free(info);
		free(path);
	}
	list_free(names);
	printf("mbox-real: git's t5100 info files: %u compared, %u agreed\n", t.compared,
	       t.agreed);
	assert_int_equal(t.unexpected, 0);
	free(t.seen);
}

/* The Message-Ids of a file's series as bootgate takes it: "(none)" or "(N series)". */
static char *our_series(const char *what, const char *buf, size_t len)
{
	struct bg_series_msgs *s = NULL;
	struct bg_msg *m = NULL;
	struct bg_strbuf sb = BG_STRBUF_INIT;
	size_t n = 0, ns = 0;

	if (bg_mbox_parse(what, buf, len, &m, &n) < 0)
		bg_strbuf_addf(&sb, "(refused: %s)", bg_error_last());
	else if (bg_series_assemble(m, n, &s, &ns) < 0)
		bg_strbuf_addf(&sb, "(error: %s)", bg_error_last());
	else if (ns != 1)
		bg_strbuf_addf(&sb, ns ? "(%zu series)" : "(none)", ns);
	else
		for (unsigned k = 0; k < s[0].total; k++)
			bg_strbuf_addf(&sb, "%s<%s>", k ? " " : "",
				       s[0].patches[k]->message_id ? s[0].patches[k]->message_id
								   : "");
	bg_series_msgs_free(s, ns);
	bg_msgs_free(m, n);
	return bg_strbuf_detach(&sb, NULL);
}

/* The Message-Ids of the mbox b4 am wrote, in order: "(none)" when it wrote nothing. */
static char *b4_series(const char *out)
{
	struct bg_strbuf sb = BG_STRBUF_INIT;
	struct bg_msg *m = NULL;
	size_t n = 0;

	if (*out && bg_mbox_parse("b4 am", out, strlen(out), &m, &n) == 0)
		for (size_t i = 0; i < n; i++)
			bg_strbuf_addf(&sb, "%s<%s>", i ? " " : "",
				       m[i].message_id ? m[i].message_id : "");
	if (!sb.len)
		bg_strbuf_addstr(&sb, "(none)");
	bg_msgs_free(m, n);
	return bg_strbuf_detach(&sb, NULL);
}

struct b4_job {
	char *what, *path, *out;
	struct bg_proc p;
	int fd;
};

/* b4 am of one file, its mbox to out (two at a time: b4 takes half a second to start). */
static void b4_start(struct b4_job *j, const char *scratch, size_t i)
{
	char *argv[] = { "b4", "--offline-mode", "-q", "am", "-m", j->path, "-o", "-", NULL };

	j->out = xasprintf("%s/b4-%zu", scratch, i);
	j->fd = open(j->out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	assert_true(j->fd >= 0);
	assert_int_equal(bg_proc_start(&j->p, &(struct bg_proc_opts){
				.argv = argv, .dir = scratch, .in_fd = -1, .out_fd = j->fd,
				.err_fd = -1 }), 0);
}

static void b4_finish(struct tally *t, struct b4_job *j)
{
	struct bg_proc_result r;
	size_t len;
	char *buf, *out, *ours, *theirs;

	assert_int_equal(bg_proc_wait(&j->p, -1, &r), 0);
	close(j->fd);
	buf = bg_read_file(j->path, MAIL_MAX, &len);
	out = bg_read_file(j->out, MAIL_MAX, NULL);
	assert_non_null(buf);
	assert_non_null(out);
	ours = our_series(j->what, buf, len);
	theirs = b4_series(r.exit_code == 0 ? out : "");
	judge(t, b4_known, j->what, ours, theirs);
	free(ours);
	free(theirs);
	free(out);
	free(buf);
	free(j->what);
	free(j->path);
	free(j->out);
}

static bool have_b4(void)
{
	char *argv[] = { "b4", "--version", NULL };
	struct bg_proc_result r;

	if (bg_proc_run(&(struct bg_proc_opts){ .argv = argv, .in_fd = -1, .out_fd = -1,
						.err_fd = -1 }, 60, &r) == 0 &&
	    r.exit_code == 0)
		return true;
	printf("mbox-real: b4 is not installed: no series compared\n");
	return false;
}

static void test_b4_series(void **state)
{
	static const struct { const char *dir, *prefix; } sets[] = {
		{ "patchwork", "series-" }, { "b4", "" },
	};
	struct tally t = { 0 };
	struct b4_job jobs[2];
	size_t running = 0, next = 0;
	char *scratch;

	(void)state;
#ifdef UNDER_ASAN
	/* b4 is Python: the sanitizers would watch only our reading of its output, 18 s */
	printf("mbox-real: b4's reading is compared in the unit tier, not under the sanitizers\n");
	skip();
#endif
	if (!have_real() || !have_b4())
		skip();
	scratch = unit_scratch_dir("mbox-b4");
	assert_non_null(scratch);
	t.seen = xcalloc(ARRAY_SIZE(b4_known), sizeof(*t.seen));
	for (size_t s = 0; s < ARRAY_SIZE(sets); s++) {
		char *dir = xasprintf("%s/%s", REAL, sets[s].dir);
		char **names = list_dir(dir, sets[s].prefix, ".mbox");

		for (size_t i = 0; names[i]; i++) {
			if (running == ARRAY_SIZE(jobs)) {
				b4_finish(&t, &jobs[0]);
				jobs[0] = jobs[1];
				running--;
			}
			jobs[running].what = xasprintf("%s/%s", sets[s].dir, names[i]);
			jobs[running].path = xasprintf("%s/%s", dir, names[i]);
			b4_start(&jobs[running++], scratch, next++);
		}
		list_free(names);
		free(dir);
	}
	for (size_t k = 0; k < running; k++)
		b4_finish(&t, &jobs[k]);
	check_known(&t, b4_known, ARRAY_SIZE(b4_known) - 1, "b4 am, files (the same series)");
	assert_int_equal(bg_remove_tree(scratch), 0);
	free(scratch);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_t5100_expectations),
		cmocka_unit_test(test_git_mailinfo),
		cmocka_unit_test(test_b4_series),
	};

	return cmocka_run_group_tests_name("mbox-real", tests, NULL, NULL);
}
