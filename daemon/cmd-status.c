/*
 * bootgate status and bootgate log: what the service is doing and did, read from the
 * store itself, so that both answer whether a daemon runs or not.
 */
#include <getopt.h>
#include <time.h>

#include "cmd.h"
#include "store/service.h"
#include "store/views.h"
#include "net/git.h"
#include "util/error.h"
#include "util/num.h"
#include "util/json.h"
#include "util/log.h"
#include "util/path.h"
#include "util/text.h"
#include "util/xmalloc.h"

struct rows {
	struct bg_json *j;        /* JSON, or text to out */
	FILE *out;
	size_t n;
};

/* Unix seconds as UTC "2026-12-01 14:36:52", for columns named at/created/started... */
static bool is_time(const char *name)
{
	static const char *const names[] = { "at", "created", "started", "finished",
					     "fetched_at", "not_before" };

	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcmp(name, names[i]))
			return true;
	return false;
}

static int row(const struct bg_store_row *r, void *data)
{
	struct rows *rs = data;
	int n = bg_row_columns(r);

	rs->n++;
	if (rs->j) {
		bg_json_object_begin(rs->j);
		for (int c = 0; c < n; c++) {
			bg_json_key(rs->j, bg_row_name(r, c));
			if (bg_row_null(r, c))
				bg_json_null(rs->j);
			else if (bg_row_number(r, c))
				bg_json_double(rs->j, bg_row_double(r, c));
			else
				bg_json_str(rs->j, bg_row_text(r, c));
		}
		bg_json_object_end(rs->j);
		return 0;
	}
	fputs("  ", rs->out);
	for (int c = 0; c < n; c++) {
		const char *name = bg_row_name(r, c), *v = bg_row_text(r, c);

		/* nothing to say: no value, or a time never set */
		if (bg_row_null(r, c) || (is_time(name) && bg_row_double(r, c) <= 0))
			continue;
		if (is_time(name) && bg_row_number(r, c)) {
			char buf[32];

			/* a time no writer made (past year 9999) shows as what it is */
			if (!bg_num_time_utc(bg_row_double(r, c), "%Y-%m-%d %H:%M:%S", buf,
					     sizeof(buf)))
				snprintf(buf, sizeof(buf), "%.0f?", bg_row_double(r, c));
			bg_text_printf(rs->out, "%s%s=%s", c ? " " : "", name, buf);
		} else if (strlen(v) == (BG_OID_HEX - 1) && strspn(v, "0123456789abcdef") == (BG_OID_HEX - 1)) {
			bg_text_printf(rs->out, "%s%s=%.12s", c ? " " : "", name, v);
		} else {
			struct bg_strbuf safe = BG_STRBUF_INIT;

			/* one row, one line: a newline in a message cannot forge another */
			bg_text_escape_line(&safe, v, strlen(v));
			fprintf(rs->out, "%s%s=%s", c ? " " : "", name, safe.buf);
			bg_strbuf_release(&safe);
		}
	}
	fputc('\n', rs->out);
	return 0;
}

/* One section: a JSON key and an array, or a heading and a line per row. */
static int section(struct bg_store *s, struct rows *rs, enum bg_status_section sec)
{
	const char *title = bg_status_section_names[sec];
	int ret;

	rs->n = 0;
	if (rs->j) {
		bg_json_key(rs->j, title);
		bg_json_array_begin(rs->j);
	} else {
		fprintf(rs->out, "%s:\n", title);
	}
	ret = bg_store_status_rows(s, sec, row, rs);
	if (rs->j)
		bg_json_array_end(rs->j);
	else if (!rs->n)
		fprintf(rs->out, "  (none)\n");
	return ret;
}

static int finish_json(struct bg_json *j, int ret)
{
	if (!j)
		return ret;
	bg_json_object_end(j);
	bg_strbuf_addch(&j->out, '\n');
	if (bg_json_finish(j) < 0) {
		log_errorx("%s", bg_error_last());
		return 1;
	}
	return ret;
}

static void status_help(FILE *out)
{
	fprintf(out, "\n"
	       "  --db FILE   the store ($BOOTGATE_STATE/bootgate.db), opened read-only:\n"
	       "              answers whether a daemon runs or not\n"
	       "  --json      the same as JSON\n"
	       "\nexit: 0, 1 no store, 2 usage\n");
}

static const struct option status_opts[] = {
	{ "db", required_argument, NULL, 'd' },
	{ "json", no_argument, NULL, 'j' },
	{ NULL, 0, NULL, 0 },
};

static int cmd_status(int argc, char **argv)
{
	struct bg_store *s = NULL;
	struct bg_json j;
	struct rows rs = { NULL, stdout, 0 };
	char *db = NULL;
	int opt, ret = 1;

	while ((opt = getopt_long(argc, argv, "d:j", status_opts, NULL)) != -1) {
		switch (opt) {
		case 'd': free(db); db = xstrdup(optarg); break;
		case 'j': rs.j = &j; break;
		default:
			free(db);
			return cmd_option_error("status", argv);
		}
	}
	if (optind < argc) {
		free(db);
		return cmd_usage_error("status", "unexpected argument '%s'", argv[optind]);
	}
	if (cmd_open_store(db, &s) < 0)
		goto out;
	if (rs.j) {
		fflush(stdout);
		bg_json_init(&j, STDOUT_FILENO, 1);
		bg_json_object_begin(&j);
	}
	ret = 0;
	for (int sec = 0; sec < BG_STATUS_SECTIONS && !ret; sec++)
		ret = section(s, &rs, (enum bg_status_section)sec) < 0;
	if (ret)
		log_errorx("%s", bg_error_last());
	ret = finish_json(rs.j, ret);
out:
	bg_store_close(s);
	free(db);
	return ret;
}

static void log_help(FILE *out)
{
	fprintf(out, "\n"
	       "  --db FILE   the store ($BOOTGATE_STATE/bootgate.db), opened read-only:\n"
	       "              answers whether a daemon runs or not\n"
	       "  --tree NAME\n"
	       "              only the events of that tree\n"
	       "  --lines N   the last N events (50)\n"
	       "  --json      the same as JSON\n"
	       "\nexit: 0, 1 no store or no such tree, 2 usage\n");
}

static const struct option log_opts[] = {
	{ "db", required_argument, NULL, 'd' },
	{ "json", no_argument, NULL, 'j' },
	{ "tree", required_argument, NULL, 't' },
	{ "lines", required_argument, NULL, 'n' },
	{ NULL, 0, NULL, 0 },
};

static int cmd_log(int argc, char **argv)
{
	struct bg_store *s = NULL;
	struct bg_json j;
	struct rows rs = { NULL, stdout, 0 };
	const char *tree = NULL;
	unsigned long lines = 50;
	int64_t tree_id = 0;
	char *db = NULL;
	int opt, ret = 1;

	while ((opt = getopt_long(argc, argv, "d:jt:n:", log_opts, NULL)) != -1) {
		switch (opt) {
		case 'd': free(db); db = xstrdup(optarg); break;
		case 'j': rs.j = &j; break;
		case 't': tree = optarg; break;
		case 'n': lines = cmd_parse_count("log", "--lines", optarg, 1, 1000000); break;
		default:
			free(db);
			return cmd_option_error("log", argv);
		}
	}
	if (optind < argc) {
		free(db);
		return cmd_usage_error("log", "unexpected argument '%s'", argv[optind]);
	}
	if (cmd_open_store(db, &s) < 0)
		goto out;
	/* a mistyped name would show no event, as if nothing had happened to the tree */
	if (tree && bg_store_tree_id(s, tree, &tree_id) < 0) {
		log_errorx("%s", bg_error_last());
		goto out;
	}
	if (tree && !tree_id) {
		log_errorx("no tree '%s' in the store", tree);
		goto out;
	}
	if (rs.j) {
		fflush(stdout);
		bg_json_init(&j, STDOUT_FILENO, 1);
		bg_json_object_begin(&j);
		bg_json_key(&j, "events");
		bg_json_array_begin(&j);
	}
	ret = bg_store_event_rows(s, tree, (int64_t)lines, row, &rs) < 0;
	if (ret)
		log_errorx("%s", bg_error_last());
	if (rs.j)
		bg_json_array_end(&j);
	ret = finish_json(rs.j, ret);
out:
	bg_store_close(s);
	free(db);
	return ret;
}

const struct bg_cmd cmd_status_entry = {
	"status", cmd_status,
	"[--db FILE] [--json]",
	"the trees, the queue, running jobs, the last verdicts and bisections (the store)",
	status_help, status_opts,
};

const struct bg_cmd cmd_log_entry = {
	"log", cmd_log,
	"[--db FILE] [--json] [--tree NAME] [--lines N]",
	"the service's events: fetches, gates, bisections, failures",
	log_help, log_opts,
};
