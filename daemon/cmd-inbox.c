/*
 * bootgate inbox: reads what is new in every configured public-inbox and the drop
 * directory once, stores the patch mails, makes the complete series and queues them.
 * The daemon runs it as a process on each inbox's poll, so that a large inbox never holds
 * the service's loop.
 */
#include <getopt.h>

#include "cmd.h"
#include "store/service.h"
#include "conf/board.h"
#include "ci/inbox.h"
#include "conf/service-conf.h"
#include "conf/tree.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/log.h"
#include "util/path.h"
#include "util/text.h"
#include "util/xmalloc.h"

struct read {
	const char *name;     /* the inbox, or NULL for the drop directory */
	int ok;
	struct bg_inbox_result r;
};

/* The tree's row, made as the daemon makes it when the daemon has not run yet. */
static int tree_id_of(struct bg_store *s, const struct bg_service_conf *c, const char *name,
		      int64_t *id)
{
	const struct bg_service_tree *t = bg_service_conf_tree(c, name);
	char *mirror = xasprintf("%s/mirrors/%s.git", bg_cache_dir(), name);
	int ret = bg_store_tree_ensure(s, name, mirror, t->url, t->branch, id);

	free(mirror);
	return ret;
}

static void print_counts(const struct read *rd)
{
	const struct bg_inbox_result *r = &rd->r;

	if (rd->name)
		bg_text_printf(stdout, "inbox %s: %zu messages, %zu patches, %zu replies, %zu "
			       "ignored, %zu deleted, %zu malformed%s\n", rd->name, r->messages,
			       r->patches, r->replies, r->ignored, r->deleted, r->malformed,
			       rd->ok < 0 ? " (stopped: see above)" : "");
	else
		bg_text_printf(stdout, "drop: %zu files taken, %zu refused, %zu messages\n",
			       r->dropped, r->drop_failed, r->messages);
	for (size_t i = 0; i < r->nseries; i++) {
		const struct bg_inbox_series *x = &r->series[i];

		bg_text_printf(stdout, "  series %" PRId64 ": v%u, %u patch%s, %s%s\n", x->id,
			       x->version, x->total, x->total == 1 ? "" : "es", x->subject,
			       x->superseded_by ? " (superseded at once: a newer version is there)"
						: "");
		if (x->superseded)
			bg_text_printf(stdout, "    supersedes %u older version%s\n", x->superseded,
				       x->superseded == 1 ? "" : "s");
	}
}

static void json_read(struct bg_json *j, const struct read *rd)
{
	const struct bg_inbox_result *r = &rd->r;

	bg_json_object_begin(j);
	bg_json_key(j, "name");
	bg_json_str(j, rd->name);
	bg_json_key(j, "ok");
	bg_json_bool(j, rd->ok == 0);
	{
		const struct { const char *key; size_t n; } counts[] = {
			{ "messages", r->messages }, { "patches", r->patches },
			{ "replies", r->replies }, { "ignored", r->ignored },
			{ "deleted", r->deleted }, { "malformed", r->malformed },
			{ "dropped", r->dropped }, { "drop_failed", r->drop_failed },
			{ "superseded", r->superseded },
		};

		for (size_t i = 0; i < ARRAY_SIZE(counts); i++) {
			bg_json_key(j, counts[i].key);
			bg_json_int(j, (int64_t)counts[i].n);
		}
	}
	bg_json_key(j, "errors");
	bg_json_array_begin(j);
	for (size_t i = 0; i < r->errors.n; i++)
		bg_json_str(j, r->errors.v[i]);
	bg_json_array_end(j);
	bg_json_key(j, "series");
	bg_json_array_begin(j);
	for (size_t i = 0; i < r->nseries; i++) {
		const struct bg_inbox_series *x = &r->series[i];

		bg_json_object_begin(j);
		bg_json_key(j, "id");
		bg_json_int(j, x->id);
		bg_json_key(j, "source");
		bg_json_str(j, x->source);
		bg_json_key(j, "message_id");
		bg_json_str(j, x->message_id);
		bg_json_key(j, "subject");
		bg_json_str(j, x->subject);
		bg_json_key(j, "version");
		bg_json_int(j, x->version);
		bg_json_key(j, "total");
		bg_json_int(j, x->total);
		bg_json_key(j, "superseded_by");
		if (x->superseded_by)
			bg_json_int(j, x->superseded_by);
		else
			bg_json_null(j);
		bg_json_key(j, "supersedes");
		bg_json_int(j, x->superseded);
		bg_json_object_end(j);
	}
	bg_json_array_end(j);
	bg_json_object_end(j);
}

static void inbox_help(FILE *out)
{
	fprintf(out, "\n"
	       "  --config FILE   the service's configuration (lab-configs/bootgate.yaml):\n"
	       "                  its 'inboxes' and 'drop' are read\n"
	       "  --db FILE       the store (STATE/bootgate.db of the configuration)\n"
	       "  --inbox NAME    that inbox (without --drop: not the drop directory)\n"
	       "  --drop          the drop directory (without --inbox: no inbox)\n"
	       "  --json          the counts, the mails refused and the series made\n"
	       "\nEach inbox (a public-inbox v2 directory, or one epoch repository such as\n"
	       "'git clone --mirror' of lore keeps) is read from where the last run stopped.\n"
	       "A series is made when all its patches are there, and queued for its tree;\n"
	       "a newer version supersedes an older one. A mail that cannot be read is\n"
	       "named as file:line: why and the others are read. Drop files go to done/ or\n"
	       "failed/ (with FILE.error).\n"
	       "\nexit: 0 read (refused mails included), 1 an inbox or the store could not\n"
	       "be read, 2 usage or a bad configuration\n");
}

static const struct option inbox_opts[] = {
	{ "config", required_argument, NULL, 'c' },
	{ "db", required_argument, NULL, 'd' },
	{ "inbox", required_argument, NULL, 'i' },
	{ "drop", no_argument, NULL, 'D' },
	{ "json", no_argument, NULL, 'j' },
	{ NULL, 0, NULL, 0 },
};

static int cmd_inbox(int argc, char **argv)
{
	const char *conf_path = NULL, *only = NULL;
	struct bg_service_conf c;
	struct bg_store *s = NULL;
	struct read *reads = NULL;
	size_t nreads = 0;
	bool json = false, loaded = false, drop_only = false;
	char *db = NULL;
	int opt, ret = 1;

	while ((opt = getopt_long(argc, argv, "c:d:i:j", inbox_opts, NULL)) != -1) {
		switch (opt) {
		case 'D': drop_only = true; break;
		case 'c': conf_path = optarg; break;
		case 'd': free(db); db = xstrdup(optarg); break;
		case 'i': only = optarg; break;
		case 'j': json = true; break;
		default:
			ret = cmd_option_error("inbox", argv);
			goto out;
		}
	}
	if (optind < argc) {
		ret = cmd_usage_error("inbox", "unexpected argument '%s'", argv[optind]);
		goto out;
	}
	if (!conf_path)
		conf_path = bg_project_file("lab-configs/bootgate.yaml");
	if (!conf_path || bg_service_conf_load(conf_path, &c) < 0) {
		log_errorx("%s", conf_path ? bg_error_last() : "no configuration: give --config FILE");
		ret = 2;
		goto out;
	}
	loaded = true;
	if (only && !bg_service_conf_inbox(&c, only)) {
		ret = cmd_usage_error("inbox", "no inbox '%s' in %s", only, conf_path);
		goto out;
	}
	/* the configuration's state directory is made, as bootgated makes it; a --db's never */
	if (!db && bg_mkdirs(c.state) < 0) {
		log_errorx("%s", bg_error_last());
		goto out;
	}
	if (!db)
		db = bg_path_join(c.state, "bootgate.db");
	if (bg_store_open(db, &s) < 0) {
		log_errorx("%s", bg_error_last());
		goto out;
	}
	reads = xcalloc(c.ninboxes + 1, sizeof(*reads));
	ret = 0;
	for (size_t i = 0; i < c.ninboxes; i++) {
		const struct bg_service_inbox *b = &c.inboxes[i];
		struct read *rd;
		int64_t tree_id = 0;

		if ((only && strcmp(b->name, only)) || (drop_only && !only))
			continue;
		rd = &reads[nreads++];
		rd->name = b->name;
		if (tree_id_of(s, &c, b->tree, &tree_id) < 0 ||
		    bg_inbox_follow(s, b->name, b->path, tree_id, &rd->r) < 0) {
			log_errorx("%s", bg_error_last());
			rd->ok = -1;
			ret = 1;
		}
	}
	if (c.drop_dir && (!only || drop_only)) {
		struct read *rd = &reads[nreads++];
		int64_t tree_id = 0;

		if (tree_id_of(s, &c, c.drop_tree, &tree_id) < 0 ||
		    bg_inbox_drop(s, c.drop_dir, tree_id, &rd->r) < 0) {
			log_errorx("%s", bg_error_last());
			rd->ok = -1;
			ret = 1;
		}
	}
	/* a mail the world got wrong is said, and is no failure of ours */
	for (size_t i = 0; i < nreads; i++)
		for (size_t k = 0; k < reads[i].r.errors.n; k++)
			log_warnx("%s", reads[i].r.errors.v[k]);
	if (json) {
		struct bg_json j;

		bg_json_init(&j, STDOUT_FILENO, 2);
		bg_json_object_begin(&j);
		bg_json_key(&j, "inboxes");
		bg_json_array_begin(&j);
		for (size_t i = 0; i < nreads; i++)
			if (reads[i].name)
				json_read(&j, &reads[i]);
		bg_json_array_end(&j);
		bg_json_key(&j, "drop");
		if (nreads && !reads[nreads - 1].name)
			json_read(&j, &reads[nreads - 1]);
		else
			bg_json_null(&j);
		bg_json_object_end(&j);
		bg_strbuf_addch(&j.out, '\n');
		if (bg_json_finish(&j) < 0) {
			log_errorx("%s", bg_error_last());
			ret = 1;
		}
	} else {
		if (!nreads)
			bg_text_println(stdout, "no inbox and no drop directory in %s: nothing to read",
					conf_path);
		for (size_t i = 0; i < nreads; i++)
			print_counts(&reads[i]);
	}
out:
	for (size_t i = 0; i < nreads; i++)
		bg_inbox_result_release(&reads[i].r);
	free(reads);
	bg_store_close(s);
	if (loaded)
		bg_service_conf_release(&c);
	free(db);
	return ret;
}

const struct bg_cmd cmd_inbox_entry = {
	"inbox", cmd_inbox,
	"[--config FILE] [--db FILE] [--inbox NAME] [--drop] [--json]",
	"read new mail of the configured public-inboxes and drop directory into patch series",
	inbox_help, inbox_opts,
};
