/*
 * bootgate show BISECTION|COMMIT: what the store knows, without a daemon: a bisection's
 * steps, values, posterior and confirmation; or a commit's builds, boots and verdicts.
 */
#include <getopt.h>
#include <math.h>

#include "cmd.h"
#include "decide/bisect.h"
#include "ci/bisection.h"
#include "util/json-read.h"
#include "util/error.h"
#include "util/log.h"
#include "util/num.h"
#include "util/strbuf.h"
#include "util/text.h"
#include "util/xmalloc.h"

static int print_report(const struct bg_store_row *r, void *data)
{
	FILE *out = data;

	bg_text_printf(out, "  %4" PRId64 "  %.12s  %-11s %s\n", bg_row_int(r, 0),
		       bg_row_text(r, 1), bg_row_text(r, 2), bg_row_text(r, 3));
	return 0;
}

static void print_steps(FILE *out, const struct bg_json_doc *d)
{
	size_t n = bg_json_doc_len(d, "steps");

	fprintf(out, "steps (commit, verdict, values in µs):\n");
	for (size_t i = 0; i < n; i++) {
		struct bg_strbuf path = BG_STRBUF_INIT;
		size_t nv;

		bg_strbuf_addf(&path, "steps.%zu.", i);
		{
			char *base = xstrdup(path.buf);
			char *k = xasprintf("%scommit", base), *v = xasprintf("%sverdict", base);
			char *vals = xasprintf("%svalues", base), *idx = xasprintf("%sindex", base);

			bg_text_printf(out, "  %4.0f  %.12s  %-8s", bg_json_doc_num(d, idx),
				       bg_json_doc_str(d, k) ? bg_json_doc_str(d, k) : "?",
				       bg_json_doc_str(d, v) ? bg_json_doc_str(d, v) : "?");
			nv = bg_json_doc_len(d, vals);
			for (size_t j = 0; j < nv; j++) {
				char *p = xasprintf("%s.%zu", vals, j);

				fprintf(out, " %.0f", bg_json_doc_num(d, p));
				free(p);
			}
			fputc('\n', out);
			free(base);
			free(k);
			free(v);
			free(vals);
			free(idx);
		}
		bg_strbuf_release(&path);
	}
}

static void print_confirmation(FILE *out, const struct bg_json_doc *d)
{
	const char *v = bg_json_doc_str(d, "confirmation.verdict");
	int applies = bg_json_doc_bool(d, "confirmation.revert.applies");

	if (v)
		bg_text_printf(out, "confirmed in %s mode (%.0f boots each): %s, %+.0f µs "
			       "(%.0f -> %.0f), p=%.2g; boot.init %+.0f µs (%s)\n",
			       bg_json_doc_str(d, "confirmation.mode"),
			       bg_json_doc_num(d, "confirmation.boots"), v,
			       bg_json_doc_num(d, "confirmation.delta_us"),
			       bg_json_doc_num(d, "confirmation.base_us"),
			       bg_json_doc_num(d, "confirmation.cand_us"),
			       bg_json_doc_num(d, "confirmation.p"),
			       bg_json_doc_num(d, "confirmation.boot_init_delta_us"),
			       bg_json_doc_str(d, "confirmation.boot_init_verdict") ?
			       bg_json_doc_str(d, "confirmation.boot_init_verdict") : "-");
	if (applies == 0)
		fprintf(out, "a revert of the culprit does not apply to the bad tip\n");
	else if (applies == 1)
		bg_text_printf(out, "reverting it on the bad tip restores %.0f µs of %.0f (%s)\n",
			       -bg_json_doc_num(d, "confirmation.revert.delta_us"),
			       bg_json_doc_num(d, "confirmation.revert.regression_us"),
			       bg_json_doc_str(d, "confirmation.revert.verdict") ?
			       bg_json_doc_str(d, "confirmation.revert.verdict") : "-");
}

struct row_text {
	char *v[12];
};

static int take_row(const struct bg_store_row *r, void *data)
{
	struct row_text *t = data;

	for (int i = 0; i < bg_row_columns(r) && i < 12; i++)
		t->v[i] = bg_row_null(r, i) ? NULL : xstrdup(bg_row_text(r, i));
	return 1;
}

static void row_release(struct row_text *t)
{
	for (int i = 0; i < 12; i++)
		free(t->v[i]);
}

int cmd_show_bisection(struct bg_store *s, int64_t id, FILE *out)
{
	struct row_text t = { { NULL } };
	struct bg_json_doc *d = NULL;
	int ret = 1;

	if (bg_store_query(s, take_row, &t, "SELECT b.state, t.name, b.board, b.mode, b.metric, "
			   "b.good, b.bad, b.outcome, b.culprit, b.confidence, b.result, c.subject "
			   "FROM bisections b JOIN trees t ON t.id = b.tree_id LEFT JOIN commits c "
			   "ON c.sha = b.culprit WHERE b.id = ?", "i", id) < 0) {
		log_warnx("%s", bg_error_last());
		return 1;
	}
	if (!t.v[0]) {
		log_warnx("no bisection %" PRId64 " in the store", id);
		return 1;
	}
	bg_text_printf(out, "bisection %" PRId64 ": %s, %s, %s mode, %s; %s\n", id, t.v[1],
		       t.v[2], t.v[3], t.v[4] ? t.v[4] : "(metric not chosen yet)", t.v[0]);
	bg_text_printf(out, "good %.12s, bad %.12s\n", t.v[5], t.v[6]);
	if (t.v[10] && (d = bg_json_doc_parse("result", t.v[10]))) {
		if (t.v[8])
			bg_text_printf(out, "%sculprit: %s %s (p=%s), a step of %+.1f%%\n",
				       t.v[7] && !strcmp(t.v[7], BG_BISECT_UNCONFIRMED) ?
				       "unconfirmed (its revert took nothing back) " : "", t.v[8],
				       t.v[11] ? t.v[11] : "", t.v[9] ? t.v[9] : "-",
				       bg_json_doc_num(d, "step_pct"));
		else
			bg_text_printf(out, "no single culprit: %s\n", t.v[7] ? t.v[7] : "-");
		if (bg_json_doc_len(d, "steps"))
			print_steps(out, d);
		print_confirmation(out, d);
		if (!isnan(bg_json_doc_num(d, "builds")))
			fprintf(out, "%.0f builds, %.0f boots, %.0f s\n", bg_json_doc_num(d, "builds"),
				bg_json_doc_num(d, "boots"), bg_json_doc_num(d, "wall_s"));
	} else {
		fprintf(out, "reports so far (seq, commit, kind, value µs):\n");
		if (bg_store_query(s, print_report, out, "SELECT r.seq, c.sha, r.kind, "
				   "coalesce(printf('%.0f', r.value), '') FROM bisection_reports r "
				   "JOIN bisection_commits c ON c.bisection_id = r.bisection_id AND "
				   "c.idx = r.idx WHERE r.bisection_id = ? ORDER BY r.seq", "i", id) < 0)
			goto out;
	}
	ret = 0;
out:
	if (ret)
		log_warnx("%s", bg_error_last());
	bg_json_doc_free(d);
	row_release(&t);
	return ret;
}

static int print_build(const struct bg_store_row *r, void *data)
{
	FILE *out = data;

	bg_text_printf(out, "  build %" PRId64 ": %s %s%s %.0f s %s\n", bg_row_int(r, 0),
		       bg_row_text(r, 1), bg_row_text(r, 2), bg_row_int(r, 3) ? " (reused)" : "",
		       bg_row_double(r, 4), bg_row_text(r, 5));
	return 0;
}

static int print_boots(const struct bg_store_row *r, void *data)
{
	FILE *out = data;

	bg_text_printf(out, "  boots of %.12s (%s): %" PRId64 " complete of %" PRId64 "\n",
		       bg_row_text(r, 0), bg_row_text(r, 1), bg_row_int(r, 2), bg_row_int(r, 3));
	return 0;
}

static int print_bisection_ref(const struct bg_store_row *r, void *data)
{
	FILE *out = data;

	bg_text_printf(out, "  bisection %" PRId64 ": %s %s\n", bg_row_int(r, 0), bg_row_text(r, 1),
		       bg_row_text(r, 2));
	return 0;
}

static int show_commit(struct bg_store *s, const char *rev, FILE *out)
{
	char *sha = NULL, *subject = NULL;
	size_t len = strlen(rev);
	int64_t n;

	if (len < 4 || len > 40 || strspn(rev, "0123456789abcdef") != len)
		return cmd_usage_error("show", "'%s' is neither a bisection number nor a commit id",
				       rev);
	{
		char *like = xasprintf("%s%%", rev);

		if (bg_store_int(s, 0, &n, "SELECT count(DISTINCT commit_sha) FROM builds WHERE "
				 "commit_sha LIKE ?", "s", like) < 0 ||
		    bg_store_text(s, &sha, "SELECT commit_sha FROM builds WHERE commit_sha LIKE ? "
				  "LIMIT 1", "s", like) < 0) {
			free(like);
			log_warnx("%s", bg_error_last());
			return 1;
		}
		free(like);
	}
	if (n > 1) {
		free(sha);
		log_warnx("'%s' names %" PRId64 " commits: give more of it", rev, n);
		return 1;
	}
	if (!sha) {
		log_warnx("no build of %s in the store", rev);
		return 1;
	}
	bg_store_text(s, &subject, "SELECT subject FROM commits WHERE sha = ?", "s", sha);
	bg_text_printf(out, "commit %s %s\n", sha, subject ? subject : "");
	if (bg_store_query(s, print_build, out, "SELECT id, board, status, reused, seconds, "
			   "coalesce(image, log, '') FROM builds WHERE commit_sha = ? ORDER BY id",
			   "s", sha) < 0 ||
	    bg_store_query(s, print_boots, out, "SELECT b.image_sha256, b.mode, "
			   "sum(b.outcome = 'complete'), count(*) FROM boots b WHERE b.image_sha256 "
			   "IN (SELECT image_sha256 FROM builds WHERE commit_sha = ?) GROUP BY "
			   "b.image_sha256, b.mode", "s", sha) < 0 ||
	    bg_store_query(s, print_bisection_ref, out, "SELECT id, outcome, CASE WHEN culprit = ? "
			   "THEN 'the culprit' ELSE '' END FROM bisections WHERE culprit = ? OR "
			   "id IN (SELECT bisection_id FROM bisection_commits WHERE sha = ?)", "sss",
			   sha, sha, sha) < 0) {
		log_warnx("%s", bg_error_last());
		free(sha);
		free(subject);
		return 1;
	}
	free(sha);
	free(subject);
	return 0;
}

int cmd_show(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	struct bg_store *s = NULL;
	char *db = NULL;
	bool json = false;
	unsigned long id;
	int opt, ret = 1;

	while ((opt = getopt_long(argc, argv, "d:j", opts, NULL)) != -1) {
		switch (opt) {
		case 'd': free(db); db = xstrdup(optarg); break;
		case 'j': json = true; break;
		default:
			free(db);
			return cmd_option_error("show", argv);
		}
	}
	if (optind + 1 != argc) {
		free(db);
		return cmd_usage_error("show", "one bisection number or commit id is needed");
	}
	if (cmd_open_store(db, &s) < 0) {
		free(db);
		return 1;
	}
	if (bg_num_parse_ulong(argv[optind], 1, INT64_MAX, &id) == 0 &&
	    strlen(argv[optind]) < 12) {
		if (json) {
			struct bg_json j;

			fflush(stdout);
			bg_json_init(&j, STDOUT_FILENO, 0);
			ret = bg_bisection_write_json(s, (int64_t)id, &j) < 0;
			bg_strbuf_addch(&j.out, '\n');
			if (bg_json_finish(&j) < 0 || ret) {
				log_warnx("%s", bg_error_last());
				ret = 1;
			}
		} else {
			ret = cmd_show_bisection(s, (int64_t)id, stdout);
		}
	} else if (json) {
		ret = cmd_usage_error("show", "--json is for a bisection; a commit is shown as text");
	} else {
		ret = show_commit(s, argv[optind], stdout);
	}
	bg_store_close(s);
	free(db);
	return ret;
}
