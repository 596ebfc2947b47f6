/*
 * bootgate show BISECTION|COMMIT: what the store knows, without a daemon: a bisection's
 * steps, values, posterior and confirmation; or a commit's builds, boots and verdicts.
 */
#include <getopt.h>
#include <math.h>

#include "cmd.h"
#include "decide/bisect.h"
#include "ci/bisection.h"
#include "publish/results.h"
#include "report/comparison.h"
#include "store/results.h"
#include "store/views.h"
#include "util/error.h"
#include "util/log.h"
#include "util/num.h"
#include "util/strbuf.h"
#include "util/text.h"
#include "util/xmalloc.h"

static int print_report(const struct bg_store_row *r, void *data)
{
	FILE *out = data;
	char value[32] = "";

	if (bg_row_number(r, 3))
		snprintf(value, sizeof(value), "%.0f", bg_row_double(r, 3));
	bg_text_printf(out, "  %4" PRId64 "  %.12s  %-11s %s\n", bg_row_int(r, 0),
		       bg_row_text(r, 1), bg_row_text(r, 2), value);
	return 0;
}

static void print_steps(FILE *out, const struct bg_bisection_steps *st)
{
	fprintf(out, "steps (commit, verdict, values in µs):\n");
	for (size_t i = 0; i < st->n; i++) {
		const struct bg_bisection_step *p = &st->v[i];

		bg_text_printf(out, "  %4d  %.12s  %-8s", p->idx, p->commit, p->verdict);
		for (size_t k = 0; k < p->nvalues; k++)
			fprintf(out, " %.0f", p->values[k]);
		fputc('\n', out);
	}
}

/* "+N µs (+P%), B -> C µs": a metric's change, as every output gives it */
static void print_change(FILE *out, const struct bg_verdict *v)
{
	char pct[32];

	fprintf(out, "%+.0f µs (%s), %.0f -> %.0f µs", v->delta,
		bg_pct_text(pct, sizeof(pct), v->delta_pct), v->base_median, v->cand_median);
}

static void print_figures(FILE *out, const struct bg_stored_bisection *b,
			  const struct bg_stored_comparison c[3])
{
	const struct bg_verdict *step = c[0].id ? bg_comparison_find(&c[0].cmp, b->metric) : NULL;
	const struct bg_verdict *timing = c[1].id ? bg_comparison_find(&c[1].cmp, b->metric) : NULL;
	const struct bg_verdict *revert = c[2].id ? bg_comparison_find(&c[2].cmp, b->metric) : NULL;
	struct bg_headline h;

	bg_headline_pick(step, b->mode && !strcmp(b->mode, "deterministic"), timing, &h);
	if (h.paid) {
		fprintf(out, "%s: ", h.exact ? "what a boot pays (timing mode)" : "the step");
		print_change(out, h.paid);
		fputc('\n', out);
	}
	if (h.exact) {
		fprintf(out, "the exact evidence (deterministic mode): ");
		print_change(out, h.exact);
		if (!isnan(h.ratio))
			fprintf(out, ", %.1fx the timing figure", h.ratio);
		fputc('\n', out);
	}
	if (timing) {
		const struct bg_verdict *init = bg_comparison_find(&c[1].cmp, "boot.init");

		fprintf(out, "confirmed in timing mode (%u boots each): %s, p=%.2g; boot.init ",
			c[1].boots[BG_CAND], bg_verdict_name(timing->verdict), timing->p);
		if (init)
			fprintf(out, "%+.0f µs (%s)\n", init->delta, bg_verdict_name(init->verdict));
		else
			fprintf(out, "-\n");
	}
	{
		struct bg_strbuf t = BG_STRBUF_INIT;

		bg_revert_text(&t, b->revert_applies, revert, b->regression_us);
		if (t.len)
			fprintf(out, "%s\n", t.buf);
		bg_strbuf_release(&t);
	}
}

int cmd_show_bisection(struct bg_store *s, int64_t id, FILE *out)
{
	struct bg_stored_bisection b;
	struct bg_stored_comparison c[3];
	struct bg_bisection_steps st = { NULL, 0, 0 };
	int ret = 1, found;

	bg_stored_bisection_init(&b);
	for (int i = 0; i < 3; i++)
		bg_stored_comparison_init(&c[i]);
	found = bg_store_bisection_get(s, id, &b);
	if (found < 0)
		goto out;
	if (!found) {
		log_errorx("no bisection %" PRId64 " in the store", id);
		ret = 1;
		goto done;
	}
	bg_text_printf(out, "bisection %" PRId64 ": %s, %s, %s mode, %s; %s\n", id, b.tree,
		       b.board, b.mode, b.metric ? b.metric : "(metric not chosen yet)", b.state);
	bg_text_printf(out, "good %.12s, bad %.12s\n", b.good, b.bad);
	{
		struct bg_strbuf others = BG_STRBUF_INIT;

		/* the mail's line: the same text from the same query */
		if (bg_store_other_boards(s, b.tree_id, b.bad, b.board, &others) < 0) {
			bg_strbuf_release(&others);
			goto out;
		}
		if (others.len)
			bg_text_printf(out, "other boards: %s\n", others.buf);
		bg_strbuf_release(&others);
	}
	if (b.state && !strcmp(b.state, "done")) {
		if (bg_store_bisection_steps(s, &b, &st) < 0 ||
		    bg_store_bisection_comparisons(s, &b, c) < 0)
			goto out;
		if (b.culprit)
			bg_text_printf(out, "%sculprit: %s %s (p=%.4g)\n", b.outcome &&
				       !strcmp(b.outcome, BG_BISECT_UNCONFIRMED) ?
				       "unconfirmed (its revert did not take the regression back) " :
				       "", b.culprit, b.culprit_subject ? b.culprit_subject : "",
				       b.confidence);
		else
			bg_text_printf(out, "no single culprit: %s\n", b.outcome ? b.outcome : "-");
		if (st.n)
			print_steps(out, &st);
		print_figures(out, &b, c);
		if (b.builds >= 0)
			fprintf(out, "%" PRId64 " builds, %" PRId64 " boots, %.0f s\n", b.builds,
				b.boots, b.wall_s);
	} else {
		fprintf(out, "reports so far (seq, commit, kind, value µs):\n");
		if (bg_store_bisection_reports(s, id, print_report, out) < 0)
			goto out;
	}
	ret = 0;
	goto done;
out:
	log_errorx("%s", bg_error_last());
done:
	bg_bisection_steps_release(&st);
	for (int i = 0; i < 3; i++)
		bg_stored_comparison_release(&c[i]);
	bg_stored_bisection_release(&b);
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
	if (bg_store_commit_find(s, rev, &n, &sha) < 0) {
		log_errorx("%s", bg_error_last());
		return 1;
	}
	if (n > 1) {
		free(sha);
		log_errorx("'%s' names %" PRId64 " commits: give more of it", rev, n);
		return 1;
	}
	if (!sha) {
		log_errorx("no build of %s in the store", rev);
		return 1;
	}
	bg_store_commit_subject(s, sha, &subject);
	bg_text_printf(out, "commit %s %s\n", sha, subject ? subject : "");
	if (bg_store_commit_builds(s, sha, print_build, out) < 0 ||
	    bg_store_commit_boots(s, sha, print_boots, out) < 0 ||
	    bg_store_commit_bisections(s, sha, print_bisection_ref, out) < 0) {
		log_errorx("%s", bg_error_last());
		free(sha);
		free(subject);
		return 1;
	}
	free(sha);
	free(subject);
	return 0;
}

static void show_help(FILE *out)
{
	fprintf(out, "\n"
	       "  --db FILE   the store ($BOOTGATE_STATE/bootgate.db), opened read-only:\n"
	       "              answers whether a daemon runs or not\n"
	       "  --json      the same as JSON\n"
	       "\nexit: 0, 1 no store or no such bisection or commit, 2 usage\n");
}

static const struct option show_opts[] = {
	{ "db", required_argument, NULL, 'd' },
	{ "json", no_argument, NULL, 'j' },
	{ NULL, 0, NULL, 0 },
};

static int cmd_show(int argc, char **argv)
{
	struct bg_store *s = NULL;
	char *db = NULL;
	bool json = false;
	unsigned long id;
	int opt, ret = 1;

	while ((opt = getopt_long(argc, argv, "d:j", show_opts, NULL)) != -1) {
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
			ret = bg_bisection_result_write(s, (int64_t)id, &j) < 0;
			bg_strbuf_addch(&j.out, '\n');
			if (bg_json_finish(&j) < 0 || ret) {
				log_errorx("%s", bg_error_last());
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

const struct bg_cmd cmd_show_entry = {
	"show", cmd_show,
	"[--db FILE] [--json] BISECTION|COMMIT",
	"a bisection's steps, values and confirmation, or a commit's builds and boots",
	show_help, show_opts,
};
