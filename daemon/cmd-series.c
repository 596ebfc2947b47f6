/*
 * bootgate series: a patch series as the lists carry it (an mbox, or stdin) applied to a
 * tree and measured patch by patch; with --id, a series the store already has (what the
 * daemon runs for a series job).
 */
#include <math.h>

#include "cmd.h"
#include "ci/series.h"
#include "lab/record.h"
#include "publish/results.h"
#include "store/results.h"
#include "store/service.h"
#include "conf/tree.h"
#include "parse/mbox.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/strbuf.h"
#include "util/strvec.h"
#include "util/text.h"
#include "util/xmalloc.h"

/* An mbox larger than this is not one series. */
#define MBOX_MAX (64u << 20)

static char *read_input(const char *path, size_t *len)
{
	struct bg_strbuf sb;
	char buf[65536];
	ssize_t n;

	if (strcmp(path, "-") != 0)
		return bg_read_file(path, MBOX_MAX, len);
	bg_strbuf_init(&sb, MBOX_MAX);
	while ((n = read(STDIN_FILENO, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || bg_strbuf_add(&sb, buf, (size_t)n) < 0) {
			if (n < 0)
				bg_error("stdin: %s", strerror(errno));
			else
				bg_error("stdin: more than %u bytes", MBOX_MAX);
			bg_strbuf_release(&sb);
			return NULL;
		}
	}
	return bg_strbuf_detach(&sb, len);
}

/* Why no whole series is there: the newest version's patches that are missing. */
static void say_missing(const char *name, const struct bg_msg *msgs, size_t n)
{
	const struct bg_msg *head = NULL;
	struct bg_strbuf miss = BG_STRBUF_INIT;

	for (size_t i = 0; i < n; i++)
		if (msgs[i].patch && !msgs[i].reply && (!head || msgs[i].version > head->version))
			head = &msgs[i];
	if (!head) {
		log_errorx("%s: no patch mail in it", name);
		return;
	}
	for (unsigned k = 1; k <= head->total && k <= 1000; k++) {
		bool have = false;

		for (size_t i = 0; i < n && !have; i++)
			have = msgs[i].patch && !msgs[i].reply && msgs[i].version == head->version &&
			       msgs[i].total == head->total && msgs[i].idx == k;
		if (!have)
			bg_strbuf_addf(&miss, "%s%u/%u", miss.len ? ", " : "", k, head->total);
	}
	log_errorx("%s: the series v%u of %u patches is not whole: patch %s missing", name,
		  head->version, head->total, miss.len ? miss.buf : "(none)");
	bg_strbuf_release(&miss);
}

static void print_row(const char *idx, const char *status, const char *verdict,
		      const char *metric, double delta, const char *subject)
{
	char d[32] = "-";

	if (!isnan(delta))
		snprintf(d, sizeof(d), "%+.0f", delta);
	bg_text_printf(stdout, "%-4s %-8s %-11s %-36s %10s  %s\n", idx, status ? status : "-",
		       verdict ? verdict : "-", metric ? metric : "-", d, subject ? subject : "");
}

/* The series' patches as a table, the series as a whole last. */
static int print_table(struct bg_store *s, int64_t id)
{
	struct bg_stored_series se;
	struct bg_stored_patches ps = { NULL, 0, 0 };
	struct bg_stored_comparison whole;
	int ret = -1;

	bg_stored_series_init(&se);
	bg_stored_comparison_init(&whole);
	if (bg_store_series_get(s, id, &se) <= 0 || bg_store_series_patches(s, id, false, &ps) < 0 ||
	    (se.whole_comparison_id &&
	     bg_store_comparison_get(s, se.whole_comparison_id, &whole) < 0))
		goto out;
	bg_text_printf(stdout, "series %" PRId64 ": %s\n", se.id, se.subject);
	bg_text_printf(stdout, "base %s (%s)\n", se.base ? se.base : "-",
		       se.base_from ? se.base_from : "-");
	printf("%-4s %-8s %-11s %-36s %10s  %s\n", "idx", "status", "verdict", "metric",
	       "delta_us", "subject");
	for (size_t i = 0; i < ps.n; i++) {
		const struct bg_stored_patch *p = &ps.v[i];
		char idx[16];

		if (p->idx < 1)
			continue;
		snprintf(idx, sizeof(idx), "%d", p->idx);
		print_row(idx, p->status, p->verdict, p->metric, p->delta, p->subject);
	}
	if (whole.id)
		print_row("all", "-", whole.verdict, whole.metric, whole.delta,
			  "(the series as a whole)");
	if (se.error)
		bg_text_printf(stdout, "error: %s\n", se.error);
	ret = 0;
out:
	bg_stored_comparison_release(&whole);
	bg_stored_patches_release(&ps);
	bg_stored_series_release(&se);
	return ret;
}

/* Takes the mbox in: the series' row, made or found. 0, or 1 after saying why. */
static int take_mbox(struct bg_store *s, const char *path, const struct bg_series_opts *o,
		     int64_t *id)
{
	struct bg_series_msgs *sm = NULL;
	struct bg_msg *msgs = NULL;
	size_t n = 0, nsm = 0, len;
	const char *name = strcmp(path, "-") ? path : "stdin";
	char *buf = read_input(path, &len);
	struct bg_strvec notes = BG_STRVEC_INIT;
	struct bg_tree t;
	int64_t tree_id = 0;
	int ret = 1, added;

	if (!buf) {
		log_errorx("%s", bg_error_last());
		return 1;
	}
	if (bg_mbox_parse(name, buf, len, &msgs, &n) < 0 ||
	    bg_series_assemble(msgs, n, &sm, &nsm) < 0) {
		log_errorx("%s", bg_error_last());
		goto out;
	}
	if (nsm != 1) {
		if (nsm)
			log_errorx("%s: %zu whole series in it: one at a time", name, nsm);
		else
			say_missing(name, msgs, n);
		goto out;
	}
	/* what the series leaves out of the file is said, the series goes on */
	bg_series_notes(buf, len, msgs, n, &sm[0], &notes);
	for (size_t i = 0; i < notes.n; i++)
		log_warnx("%s", notes.v[i]);
	if (bg_tree_open(o->tree, &t) < 0) {
		log_errorx("%s", bg_error_last());
		goto out;
	}
	if (bg_record_tree(s, o->tree_name ? o->tree_name : t.id, t.real, &tree_id) < 0) {
		bg_tree_release(&t);
		log_errorx("%s", bg_error_last());
		goto out;
	}
	bg_tree_release(&t);
	if ((added = bg_series_add(s, &sm[0], msgs, n, buf, len, "cli", tree_id, id)) < 0) {
		log_errorx("%s", bg_error_last());
		goto out;
	}
	bg_text_printf(stderr, "series: %s: series %" PRId64 "%s\n", name, *id,
		       added ? ", already in the store" : "");
	ret = 0;
out:
	bg_strvec_release(&notes);
	bg_series_msgs_free(sm, nsm);
	bg_msgs_free(msgs, n);
	free(buf);
	return ret;
}

/* The run options series takes, and its own: --base and --id. */
static const char shortopts[] = CMD_RUN_SHORTOPTS "N:n:T:d:j" "B:i:";

static void series_help(FILE *out)
{
	fprintf(out, "\n"
	       "  MBOX                  the series' mails (an mbox, or one message; - is stdin):\n"
	       "                        a cover letter and [PATCH vN M/N] patches, one whole\n"
	       "                        series\n"
	       "  -B, --base REV        the base when no mail has a base-commit: line (HEAD)\n"
	       "  -i, --id N            run series N of the store (its tree, board and mode\n"
	       "                        unless given); a series that ended prints its stored\n"
	       "                        result\n");
	cmd_print_run_help(out, shortopts);
	fprintf(out, "  -j, --json            the result: the base, every patch's status and verdict\n"
	       "\nDefaults: --mode deterministic; --boots 2 deterministic, 5 timing. Each patch\n"
	       "is committed as git am would, built and booted, and compared with the tree\n"
	       "before it; the last also with the base. Progress on stderr.\n"
	       "\nexit: 0 measured (regressions too), 1 an error or a patch that does not\n"
	       "apply, 2 usage\n");
}

static const struct option series_opts[] = {
	CMD_RUN_OPTIONS,
	CMD_OPT_NAME,
	CMD_OPT_BOOTS,
	CMD_OPT_THRESHOLD,
	CMD_OPT_DB,
	CMD_OPT_JSON,
	{ "base", required_argument, NULL, 'B' },
	{ "id", required_argument, NULL, 'i' },
	{ NULL, 0, NULL, 0 },
};

static int cmd_series(int argc, char **argv)
{
	struct bg_series_opts o = { 0 };
	struct cmd_run_opts r;
	struct bg_stored_series st;
	char *state = NULL;
	struct bg_store *s = NULL;
	const char *mode;
	struct bg_json j = { BG_STRBUF_INIT, -1, 0, 0, { false }, false, 0 };
	int64_t id = 0;
	int opt, ret = 1;

	bg_stored_series_init(&st);
	cmd_run_opts_init(&r);
	o.progress = bg_progress_stderr;
	o.progress_data = "series";
	while ((opt = cmd_run_getopt("series", argc, argv, shortopts, series_opts, &r)) != -1) {
		switch (opt) {
		case 'B': o.base = optarg; break;
		case 'i': id = (int64_t)cmd_parse_count("series", "--id", optarg, 1, INT64_MAX); break;
		default:
			ret = cmd_option_error("series", argv);
			goto out;
		}
	}
	if (id ? optind != argc : optind + 1 != argc) {
		ret = cmd_usage_error("series", id ? "--id takes no MBOX" :
				      "one MBOX (or - for stdin), or --id N");
		goto out;
	}
	/* a series' row holds one board, its state that board's: one board a run */
	if ((ret = cmd_run_one_board("series", &r)) != 0)
		goto out;
	ret = 1;
	cmd_run_give(&o, &r);
	o.tree_name = r.name;
	o.boots = r.boots;
	if (cmd_open_store_rw(r.db, &s) < 0)
		goto out;
	/* a stored series brings its tree, board and mode: the options only override */
	if (id) {
		int found = bg_store_series_get(s, id, &st);

		if (found < 0) {
			log_errorx("%s", bg_error_last());
			goto out;
		}
		if (!found && !o.tree) {
			log_errorx("series %" PRId64 " does not exist", id);
			goto out;
		}
	}
	if (!o.tree)
		o.tree = st.tree_path;
	if (!o.tree_name)
		o.tree_name = st.tree;
	if (!o.board)
		o.board = st.board;
	mode = r.mode ? r.mode : st.mode ? st.mode : "deterministic";
	if (!o.tree || !o.board) {
		ret = cmd_usage_error("series", "--tree and --arch (or --board) are needed");
		goto out;
	}
	if ((ret = cmd_check_inputs("series", o.tree, (const char *[]){ o.base }, 1, o.board,
				    !strcmp(mode, "deterministic"), o.lab, &r.config)) != 0)
		goto out;
	ret = 1;
	o.deterministic = !strcmp(mode, "deterministic");
	r.compare.deterministic = o.deterministic;
	o.compare = &r.compare;
	/* the patches come from anyone who can post to a list */
	r.config.untrusted = true;
	if (!id && take_mbox(s, argv[optind], &o, &id) != 0)
		goto out;
	bg_json_init(&j, -1, 0);
	if (bg_series_run(s, &o, id) < 0 || bg_series_result_write(s, id, &j) < 0 ||
	    bg_store_series_state(s, id, &state) < 0) {
		log_errorx("%s", bg_error_last());
		goto out;
	}
	if (r.json)
		printf("%s\n", j.out.buf);
	else if (print_table(s, id) < 0)
		log_warnx("%s", bg_error_last());
	if (fflush(stdout) != 0 || ferror(stdout)) {
		log_error("stdout");
		goto out;
	}
	/* measured, even with regressions; a series that does not apply is an error */
	ret = state && !strcmp(state, "done") ? 0 : 1;
out:
	bg_stored_series_release(&st);
	free(state);
	bg_strbuf_release(&j.out);
	bg_store_close(s);
	cmd_run_opts_release(&r);
	return ret;
}

const struct bg_cmd cmd_series_entry = {
	"series", cmd_series,
	"MBOX|- [--tree DIR] [--name TREE] [--base REV] --arch ARCH|--board NAME [--mode M] "
	"[--console C] [--boots N] [--threshold P=PCT%[:US]]... [--config BASE] "
	"[--fragment FILE]... [--perf-runs R] [--db FILE] [--lab DIR] [--json] | --id N [...]",
	"apply a patch series from its mails and measure it patch by patch",
	series_help, series_opts,
};
