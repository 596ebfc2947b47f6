/* A patch applied by git apply into an index of its own, as git am --3way applies it. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "net/git-apply.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/proc.h"
#include "util/strbuf.h"
#include "util/strvec.h"
#include "util/xmalloc.h"

/* git's answers are a few lines; more is a patch naming thousands of files */
#define GIT_SAYS_MAX (64 * 1024)
#define GIT_TIMEOUT_S 600

extern char **environ;

struct git_run {
	const char *gitdir, *index;
	struct bg_strvec env;
};

/* Runs git with the repository and index given, its output and errors in *out. */
static int run_git(struct git_run *g, char **out, struct bg_proc_result *res, ...)
{
	struct bg_strvec argv = BG_STRVEC_INIT;
	struct bg_proc_opts o = { .in_fd = -1, .out_fd = BG_PROC_PIPE, .err_fd = BG_PROC_SAME };
	const char *a;
	va_list ap;
	int ret;

	bg_strvec_push(&argv, "git");
	va_start(ap, res);
	while ((a = va_arg(ap, const char *)))
		bg_strvec_push(&argv, a);
	va_end(ap);
	if (!g->env.n) {
		bg_strvec_pushf(&g->env, "GIT_DIR=%s", g->gitdir);
		bg_strvec_pushf(&g->env, "GIT_INDEX_FILE=%s", g->index);
		/* the same patch applies alike for every user of the machine */
		bg_strvec_push(&g->env, "GIT_CONFIG_NOSYSTEM=1");
		bg_strvec_push(&g->env, "GIT_CONFIG_GLOBAL=/dev/null");
		/* git's words are read below: untranslated */
		bg_strvec_push(&g->env, "LC_ALL=C");
		/* no inherited GIT_WORK_TREE, GIT_OBJECT_DIRECTORY or LANGUAGE in their way */
		for (char **e = environ; *e; e++)
			if (strncmp(*e, "GIT_", 4) && strncmp(*e, "LC_", 3) &&
			    strncmp(*e, "LANG", 4))
				bg_strvec_push(&g->env, *e);
	}
	o.argv = bg_strvec_argv(&argv);
	o.envp = bg_strvec_argv(&g->env);
	ret = bg_proc_capture(&o, GIT_TIMEOUT_S, GIT_SAYS_MAX, out, res);
	if (ret == 0 && res->exec_failed)
		ret = bg_error("cannot run git: is it installed?");
	else if (ret == 0 && res->timed_out)
		ret = bg_error("git %s took over %d s", o.argv[1], GIT_TIMEOUT_S);
	bg_strvec_release(&argv);
	return ret;
}

/* The rest of line after prefix, up to its end, or NULL. */
static const char *after(const char *line, size_t len, const char *prefix, size_t *rest)
{
	size_t n = strlen(prefix);

	if (len < n || memcmp(line, prefix, n))
		return NULL;
	*rest = len - n;
	return line + n;
}

/*
 * Why git apply refused, naming the file: the first line of its answer that says which
 * hunk or which file, else its first error.
 */
static void refusal(const char *said, struct bg_strbuf *why)
{
	const char *first = NULL, *s, *line;
	size_t first_len = 0, len, n;

	for (line = said; *line; line += len + (line[len] == '\n')) {
		len = strcspn(line, "\n");
		if ((s = after(line, len, "error: patch failed: ", &n))) {
			const char *colon = memrchr(s, ':', n);

			if (colon) {
				bg_strbuf_addf(why, "%.*s: the hunk at line %.*s fits nowhere near it",
					       (int)(colon - s), s, (int)(n - (size_t)(colon - s) - 1),
					       colon + 1);
				return;
			}
		}
		if ((s = after(line, len, "Applied patch to '", &n)) && n > 17 &&
		    !memcmp(s + n - 17, "' with conflicts.", 17)) {
			bg_strbuf_addf(why, "%.*s: the three-way merge left conflicts", (int)(n - 17), s);
			return;
		}
		if ((s = after(line, len, "error: invalid path '", &n)) && n && s[n - 1] == '\'') {
			bg_strbuf_addf(why, "%.*s: not a path inside the tree", (int)(n - 1), s);
			return;
		}
		/* said before falling back to the patch's context: not why it failed */
		if (after(line, len, "error: repository lacks the necessary blob", &n))
			continue;
		if (!first && ((s = after(line, len, "error: ", &n)) ||
			       (s = after(line, len, "fatal: ", &n)))) {
			first = s;
			first_len = n;
		}
	}
	if (first)
		bg_strbuf_add(why, first, first_len);
	else
		bg_strbuf_addstr(why, "git apply refused it and said nothing");
}

/*
 * libgit2's apply looks for a hunk at its line number only, and real series are seldom
 * made on the base they are tested on: git apply finds a hunk at an offset, and merges
 * three-way when the patch's index lines name blobs the repository has.
 */
int bg_git_apply_tree(const char *gitdir, const char *base_tree, const char *label,
		      const char *diff, size_t diff_len, char tree[BG_OID_HEX])
{
	struct bg_strbuf why = BG_STRBUF_INIT;
	struct git_run g = { gitdir, NULL, BG_STRVEC_INIT };
	struct bg_proc_result res;
	const char *tmp = getenv("TMPDIR");
	char *dir = xasprintf("%s/bootgate-apply-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	char *index = NULL, *patch = NULL, *out = NULL;
	int ret = -1;

	if (!mkdtemp(dir)) {
		bg_error_errno("cannot make '%s'", dir);
		free(dir);
		return -1;
	}
	index = xasprintf("%s/index", dir);
	patch = xasprintf("%s/patch", dir);
	g.index = index;
	if (bg_write_file(patch, diff, diff_len) < 0)
		goto out;
	if (run_git(&g, &out, &res, "read-tree", base_tree, NULL) < 0)
		goto out;
	if (res.exit_code) {
		bg_error("git read-tree %s: %s", base_tree, out);
		goto out;
	}
	free(out);
	out = NULL;
	/* --3way falls back to applying by context when the blobs are not here */
	if (run_git(&g, &out, &res, "apply", "--cached", "--3way", "--whitespace=nowarn", patch,
		    NULL) < 0)
		goto out;
	if (res.exit_code) {
		refusal(out, &why);
		bg_error("%s does not apply: %s", label, why.buf);
		ret = 1;
		goto out;
	}
	free(out);
	out = NULL;
	if (run_git(&g, &out, &res, "write-tree", NULL) < 0)
		goto out;
	if (res.exit_code || strspn(out, "0123456789abcdef") != BG_OID_HEX - 1) {
		bg_error("git write-tree after %s: %s", label, out);
		goto out;
	}
	memcpy(tree, out, BG_OID_HEX - 1);
	tree[BG_OID_HEX - 1] = '\0';
	ret = 0;
out:
	/* a directory left in TMPDIR costs less than a patch reported as broken */
	(void)bg_remove_tree(dir);
	bg_strbuf_release(&why);
	bg_strvec_release(&g.env);
	free(out);
	free(patch);
	free(index);
	free(dir);
	return ret;
}
