/*
 * bootgate site OUTDIR: the static results site made from the store (lab/site.h), every
 * file written atomically and only when its content changed, so that the daemon can run
 * it after each result.
 */
#include <getopt.h>

#include "cmd.h"
#include "publish/site.h"
#include "util/error.h"
#include "util/json.h"
#include "util/log.h"
#include "util/text.h"
#include "util/xmalloc.h"

struct files {
	struct bg_json *j;
};

static void on_file(const char *rel, bool written, void *data)
{
	struct files *f = data;

	if (f->j) {
		bg_json_object_begin(f->j);
		bg_json_key(f->j, "path");
		bg_json_str(f->j, rel);
		bg_json_key(f->j, "status");
		bg_json_str(f->j, written ? "written" : "unchanged");
		bg_json_object_end(f->j);
	} else if (written) {
		bg_text_printf(stdout, "written    %s\n", rel);
	}
}

static void site_help(FILE *out)
{
	fprintf(out, "\n"
	       "  OUTDIR      the site's directory, made when missing\n"
	       "  --db FILE   the store ($BOOTGATE_STATE/bootgate.db), read-only\n"
	       "  --url BASE  the site's public http:// or https:// address, for the feeds' links\n"
	       "  --json      the files, each written or unchanged, as JSON\n"
	       "\nexit: 0 written, 1 no store or a file could not be written, 2 usage\n");
}

static const struct option site_opts[] = {
	{ "db", required_argument, NULL, 'd' },
	{ "url", required_argument, NULL, 'u' },
	{ "json", no_argument, NULL, 'j' },
	{ NULL, 0, NULL, 0 },
};

static int cmd_site(int argc, char **argv)
{
	struct bg_site_opts so = { 0 };
	struct bg_site_stats st;
	struct bg_store *s = NULL;
	struct bg_json j;
	struct files f = { NULL };
	char *db = NULL, *url = NULL;
	int opt, ret = 1, gen;

	while ((opt = getopt_long(argc, argv, "d:u:j", site_opts, NULL)) != -1) {
		switch (opt) {
		case 'd': free(db); db = xstrdup(optarg); break;
		case 'u': free(url); url = xstrdup(optarg); break;
		case 'j': f.j = &j; break;
		default:
			ret = cmd_option_error("site", argv);
			goto out;
		}
	}
	if (optind + 1 != argc) {
		ret = optind < argc ? cmd_usage_error("site", "unexpected argument '%s'",
						      argv[optind + 1]) :
		      cmd_usage_error("site", "the output directory is missing");
		goto out;
	}
	if (!*argv[optind]) {
		ret = cmd_usage_error("site", "the output directory is an empty name");
		goto out;
	}
	if (url && !bg_site_url_ok(url)) {
		ret = cmd_usage_error("site", "--url: '%s' is not http:// or https:// without "
				      "spaces or quotes", url);
		goto out;
	}
	if (cmd_open_store(db, &s) < 0)
		goto out;
	so.outdir = argv[optind];
	so.url = url;
	so.on_file = on_file;
	so.data = &f;
	if (f.j) {
		fflush(stdout);
		bg_json_init(&j, STDOUT_FILENO, 1);
		bg_json_object_begin(&j);
		bg_json_key(&j, "outdir");
		bg_json_str(&j, so.outdir);
		bg_json_key(&j, "files");
		bg_json_array_begin(&j);
	}
	gen = bg_site_generate(s, &so, &st);
	if (gen < 0)
		log_errorx("site: %s", bg_error_last());
	if (f.j) {
		bg_json_array_end(&j);
		bg_json_key(&j, "written");
		bg_json_int(&j, (int64_t)st.written);
		bg_json_key(&j, "unchanged");
		bg_json_int(&j, (int64_t)st.unchanged);
		bg_json_key(&j, "ok");
		bg_json_bool(&j, gen == 0);
		bg_json_object_end(&j);
		bg_strbuf_addch(&j.out, '\n');
		if (bg_json_finish(&j) < 0) {
			log_errorx("%s", bg_error_last());
			gen = -1;
		}
	} else if (gen == 0) {
		bg_text_printf(stdout, "site: %zu files written, %zu unchanged in %s\n", st.written,
			       st.unchanged, so.outdir);
	}
	ret = gen < 0 ? 1 : 0;
out:
	bg_store_close(s);
	free(db);
	free(url);
	return ret;
}

const struct bg_cmd cmd_site_entry = {
	"site", cmd_site,
	"OUTDIR [--db FILE] [--url BASE] [--json]",
	"write the static results site (HTML, SVG, JSON) from the store; unchanged files stay",
	site_help, site_opts,
};
