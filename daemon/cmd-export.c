/*
 * bootgate export: the store's results as KCIDB v5.3 (KernelCI's common report
 * database), or as boot-data files of the boot-time wizard, one per stored boot.
 */
#include <getopt.h>
#include <sys/stat.h>

#include "cmd.h"
#include "conf/board.h"
#include "publish/export.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/log.h"
#include "util/path.h"
#include "util/text.h"
#include "util/xmalloc.h"

static int export_kcidb(struct bg_store *s, const char *origin, const char *lab,
			const char *out)
{
	struct bg_kcidb_counts n = { 0 };
	struct bg_json j;
	int ret;

	/* a file is written whole or not at all: built in memory, then renamed in place */
	fflush(stdout);
	bg_json_init(&j, out ? -1 : STDOUT_FILENO, 2);
	ret = bg_export_kcidb(s, origin, lab, &j, &n);
	if (ret < 0)
		log_errorx("%s", bg_error_last());
	if (out) {
		bg_strbuf_addch(&j.out, '\n');
		if (!ret && bg_write_file(out, j.out.buf, j.out.len) < 0) {
			log_errorx("%s", bg_error_last());
			ret = -1;
		}
		if (!ret)
			bg_text_println(stderr, "kcidb: %zu checkouts, %zu builds, %zu tests, "
				       "%zu issue%s, %zu incident%s in '%s'", n.checkouts, n.builds,
				       n.tests, n.issues, n.issues == 1 ? "" : "s", n.incidents,
				       n.incidents == 1 ? "" : "s", out);
		bg_strbuf_release(&j.out);
	} else if (bg_json_finish(&j) < 0) {
		log_errorx("%s", bg_error_last());
		ret = -1;
	}
	return ret < 0 ? 1 : 0;
}

struct files {
	struct bg_json *j;
	size_t written, errors;
};

static void on_file(const struct bg_bootdata_file *f, void *data)
{
	struct files *fs = data;

	fs->written++;
	if (!fs->j) {
		bg_text_println(stdout, "%s", f->path);
		return;
	}
	bg_json_object_begin(fs->j);
	bg_json_key(fs->j, "boot");
	bg_json_int(fs->j, f->boot);
	bg_json_key(fs->j, "board");
	bg_json_str(fs->j, f->board);
	bg_json_key(fs->j, "commit");
	bg_json_str(fs->j, f->commit);
	bg_json_key(fs->j, "path");
	bg_json_str(fs->j, f->path);
	bg_json_object_end(fs->j);
}

static void on_problem(int64_t boot, const char *why, bool error, void *data)
{
	struct files *fs = data;

	fs->errors += error;
	if (error)
		log_errorx("boot %" PRId64 ": %s", boot, why);
	else
		log_warnx("boot %" PRId64 ": %s (left out)", boot, why);
}

static int export_boot_data(struct bg_store *s, const char *dir, bool json)
{
	struct bg_json j;
	struct files fs = { json ? &j : NULL, 0, 0 };
	int ret;

	if (json) {
		fflush(stdout);
		bg_json_init(&j, STDOUT_FILENO, 2);
		bg_json_object_begin(&j);
		bg_json_key(&j, "files");
		bg_json_array_begin(&j);
	}
	ret = bg_export_boot_data(s, dir, on_file, on_problem, &fs);
	if (ret < 0)
		log_errorx("%s", bg_error_last());
	if (json) {
		bg_json_array_end(&j);
		bg_json_object_end(&j);
		if (bg_json_finish(&j) < 0) {
			log_errorx("%s", bg_error_last());
			return 1;
		}
	} else if (fflush(stdout) == EOF) {
		log_error("cannot write the output");
		return 1;
	}
	return ret ? 1 : 0;
}

/*
 * Whether out names a file that SQLite (the store's journals) or bootgated (its state
 * directory's lock, socket and logs) keeps beside the store: replaced by JSON, a second
 * daemon would start on the same state, or every reader of the store would fail.
 */
static bool owned_beside_store(const char *store, const char *out)
{
	static const char *const suffix[] = { "-wal", "-shm", "-journal", "-mail.lock" };
	static const char *const name[] = { "bootgated.lock", "bootgate.sock", "mail.log",
					    "site.log" };
	char *s = bg_path_resolve_parent(store), *o = bg_path_resolve_parent(out), *dir;
	bool owned = false;

	if (!s || !o)
		goto out;
	for (size_t i = 0; i < ARRAY_SIZE(suffix) && !owned; i++) {
		char *p = xasprintf("%s%s", s, suffix[i]);

		owned = !strcmp(o, p);
		free(p);
	}
	dir = bg_path_parent(s);
	for (size_t i = 0; i < ARRAY_SIZE(name) && !owned; i++) {
		char *p = bg_path_join(dir, name[i]);

		owned = !strcmp(o, p);
		free(p);
	}
	free(dir);
out:
	free(s);
	free(o);
	return owned;
}

/* 2 after the usage error when out is the store's own file, or one kept beside it; 0. */
static int refuse_store_as_output(const char *db, const char *out)
{
	char *path = db ? xstrdup(db) : bg_store_default_path();
	int ret = 0;

	if (bg_same_file(path, out))
		ret = cmd_usage_error("export", "-o '%s': the store itself (--db '%s')", out, path);
	else if (owned_beside_store(path, out))
		ret = cmd_usage_error("export", "-o '%s': a file SQLite or bootgated keeps beside "
				      "the store (--db '%s')", out, path);
	free(path);
	return ret;
}

static void export_help(FILE *out)
{
	fprintf(out, "\n"
	       "  --kcidb         one KCIDB I/O schema v5.3 document (kernelci/kcidb-io):\n"
	       "                  checkouts (tree commits; series with patchset_hash and\n"
	       "                  message_id), builds, and per build, board and mode a test\n"
	       "                  \"boot\" and one DONE test per metric (path\n"
	       "                  boottime.initcall.NAME, the boots' median in number, in\n"
	       "                  s); each mailed culprit as an issue, with its incidents\n"
	       "  --origin NAME   the CI system's name in every id ([a-z0-9_]+; bootgate)\n"
	       "  --lab DIR       boards, for each build's architecture (lab-configs)\n"
	       "  -o FILE         write FILE whole (else stdout)\n"
	       "  --boot-data DIR\n"
	       "                  one boot-data file per stored boot, named\n"
	       "                  boot-data-bootgate-BOARD-COMMIT12-BOOT-YYMMDD-HHMMSS.txt;\n"
	       "                  bootgate parse reads them back; prints the paths\n"
	       "  --db FILE       the store ($BOOTGATE_STATE/bootgate.db), read-only\n"
	       "  --json          with --boot-data: the paths written, as JSON\n"
	       "\nexit: 0, 1 no store, or a boot's console could not be read (the other\n"
	       "boots are written), 2 usage\n");
}

static const struct option export_opts[] = {
	{ "kcidb", no_argument, NULL, 'k' },
	{ "boot-data", required_argument, NULL, 'b' },
	{ "db", required_argument, NULL, 'd' },
	{ "origin", required_argument, NULL, 'O' },
	{ "lab", required_argument, NULL, 'l' },
	{ "json", no_argument, NULL, 'j' },
	{ NULL, 0, NULL, 0 },
};

static int cmd_export(int argc, char **argv)
{
	const char *db = NULL, *origin = BG_KCIDB_ORIGIN, *dir = NULL, *out = NULL, *lab = NULL;
	bool kcidb = false, json = false;
	struct bg_store *s = NULL;
	struct stat st;
	int opt, ret;

	while ((opt = getopt_long(argc, argv, "kb:d:O:l:jo:", export_opts, NULL)) != -1) {
		switch (opt) {
		case 'k': kcidb = true; break;
		case 'b': dir = optarg; break;
		case 'd': db = optarg; break;
		case 'O': origin = optarg; break;
		case 'l': lab = optarg; break;
		case 'j': json = true; break;
		case 'o': out = optarg; break;
		default:
			return cmd_option_error("export", argv);
		}
	}
	if (optind < argc)
		return cmd_usage_error("export", "unexpected argument '%s'", argv[optind]);
	if (kcidb == !!dir)
		return cmd_usage_error("export", "one of --kcidb and --boot-data DIR");
	if (!bg_kcidb_origin_ok(origin))
		return cmd_usage_error("export", "--origin '%s': KCIDB wants [a-z0-9_]+", origin);
	if (dir && (out || lab))
		return cmd_usage_error("export", "-o and --lab go with --kcidb");
	if (kcidb && json)
		return cmd_usage_error("export", "--json goes with --boot-data (KCIDB is JSON)");
	if ((dir && !*dir) || (out && !*out))
		return cmd_usage_error("export", "an empty path");
	/* without its boards each build would lose its architecture, and no one would know */
	if (lab && stat(lab, &st) < 0)
		return cmd_usage_error("export", "--lab '%s': %s", lab, strerror(errno));
	if (lab && !S_ISDIR(st.st_mode))
		return cmd_usage_error("export", "--lab '%s' is not a directory", lab);
	if (out && (ret = refuse_store_as_output(db, out)))
		return ret;
	if (cmd_open_store(db, &s) < 0)
		return 1;
	if (kcidb)
		ret = export_kcidb(s, origin, lab ? lab : bg_lab_dir(), out);
	else
		ret = export_boot_data(s, dir, json);
	bg_store_close(s);
	return ret;
}

const struct bg_cmd cmd_export_entry = {
	"export", cmd_export,
	"--kcidb [--db FILE] [--origin NAME] [--lab DIR] [-o FILE] | --boot-data DIR [--db FILE] [--json]",
	"the store's results as KCIDB v5.3, or as boot-time wizard boot-data files",
	export_help, export_opts,
};
