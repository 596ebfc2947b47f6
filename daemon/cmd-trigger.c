/*
 * bootgate trigger and bootgate rerun: ask the daemon to fetch a tree now (what a git
 * server's post-receive hook calls), or queue a job again. rerun writes the job into
 * the store itself and only wakes the daemon, so that nothing is lost if none runs.
 */
#include <getopt.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "cmd.h"
#include "store/service.h"
#include "net/git.h"
#include "util/error.h"
#include "util/log.h"
#include "util/num.h"
#include "util/path.h"
#include "util/json.h"
#include "util/text.h"
#include "util/xmalloc.h"

static char *default_socket(void)
{
	const char *dir = getenv("BOOTGATE_STATE");

	return bg_path_join(dir && *dir ? dir : "/var/lib/bootgate", "bootgate.sock");
}

/* One request line to the daemon, its one answer line into buf. -1 with why. */
static int ask(const char *path, const char *req, char *buf, size_t size)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct timeval tv = { 10, 0 };
	size_t len = 0;
	int fd, ret = -1;

	if (strlen(path) >= sizeof(sa.sun_path))
		return bg_error("%s: too long for a Unix socket", path);
	memcpy(sa.sun_path, path, strlen(path) + 1);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		return bg_error_errno("socket");
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		bg_error_errno("no daemon answers on '%s'", path);
		goto out;
	}
	if (write(fd, req, strlen(req)) != (ssize_t)strlen(req)) {
		bg_error_errno("cannot write to '%s'", path);
		goto out;
	}
	while (len + 1 < size) {
		ssize_t n = read(fd, buf + len, size - 1 - len);

		if (n <= 0)
			break;
		len += n;
	}
	buf[len] = '\0';
	if (!len || buf[len - 1] != '\n') {
		bg_error("the daemon on '%s' gave no whole answer", path);
		goto out;
	}
	buf[len - 1] = '\0';
	ret = 0;
out:
	close(fd);
	return ret;
}

static bool is_rev(const char *s)
{
	size_t n = strlen(s);

	return n >= 4 && n < BG_OID_HEX && strspn(s, "0123456789abcdef") == n;
}

/*
 * {"ok": bool, "answer": the daemon's line} or {"ok": true, "job": N, "already": bool,
 * "woken": bool}, already when the job was queued before
 */
static void print_json(bool ok, const char *answer, int64_t job, bool already, bool woken)
{
	struct bg_json j;

	fflush(stdout);
	bg_json_init(&j, STDOUT_FILENO, 0);
	bg_json_object_begin(&j);
	bg_json_key(&j, "ok");
	bg_json_bool(&j, ok);
	if (answer) {
		bg_json_key(&j, "answer");
		bg_json_str(&j, answer);
	} else {
		bg_json_key(&j, "job");
		bg_json_int(&j, job);
		bg_json_key(&j, "already");
		bg_json_bool(&j, already);
		bg_json_key(&j, "woken");
		bg_json_bool(&j, woken);
	}
	bg_json_object_end(&j);
	bg_strbuf_addch(&j.out, '\n');
	if (bg_json_finish(&j) < 0)
		log_errorx("%s", bg_error_last());
}

static void trigger_help(FILE *out)
{
	fprintf(out, "\n"
	       "  --socket PATH   the daemon's socket ($BOOTGATE_STATE/bootgate.sock)\n"
	       "  --json          the daemon's answer as JSON\n"
	       "\nAsks the daemon to fetch TREE now (COMMIT is noted).\n"
	       "\nexit: 0 taken, 1 the daemon refused or did not answer, 2 usage\n");
}

static const struct option trigger_opts[] = {
	{ "socket", required_argument, NULL, 's' },
	{ "json", no_argument, NULL, 'j' },
	{ NULL, 0, NULL, 0 },
};

static int cmd_trigger(int argc, char **argv)
{
	char *sock = NULL, *req, buf[1024];
	bool json = false;
	int opt, ret = 1;

	while ((opt = getopt_long(argc, argv, "s:j", trigger_opts, NULL)) != -1) {
		switch (opt) {
		case 's': free(sock); sock = xstrdup(optarg); break;
		case 'j': json = true; break;
		default:
			free(sock);
			return cmd_option_error("trigger", argv);
		}
	}
	if (optind == argc || argc - optind > 2) {
		free(sock);
		return cmd_usage_error("trigger", "a tree, and optionally a commit id, are needed");
	}
	/* nothing the daemon would read as two words or two lines */
	if (!bg_path_name_ok(argv[optind]) || (argc - optind == 2 && !is_rev(argv[optind + 1]))) {
		free(sock);
		return cmd_usage_error("trigger", "'%s' is not a tree name, or '%s' not a commit id",
				       argv[optind], argc - optind == 2 ? argv[optind + 1] : "");
	}
	if (!sock)
		sock = default_socket();
	req = xasprintf("trigger %s%s%s\n", argv[optind], argc - optind == 2 ? " " : "",
			argc - optind == 2 ? argv[optind + 1] : "");
	if (ask(sock, req, buf, sizeof(buf)) < 0) {
		log_errorx("%s", bg_error_last());
	} else {
		ret = strncmp(buf, "ok", 2) != 0;
		if (json)
			print_json(!ret, buf, -1, false, false);
		else
			bg_text_printf(stdout, "%s\n", buf);
	}
	free(req);
	free(sock);
	return ret;
}

static void rerun_help(FILE *out)
{
	fprintf(out, "\n"
	       "  --db FILE       the store ($BOOTGATE_STATE/bootgate.db)\n"
	       "  --socket PATH   the daemon's socket ($BOOTGATE_STATE/bootgate.sock)\n"
	       "  --tree NAME     the tree of COMMIT (needed when the store has several)\n"
	       "  --json          the job queued, as JSON\n"
	       "\nWrites a job into the store (a copy of JOB, or a gate of COMMIT) and wakes the\n"
	       "daemon, so that nothing is lost when none runs.\n"
	       "\nexit: 0 queued, 1 no store, no such job or tree, 2 usage\n");
}

static const struct option rerun_opts[] = {
	{ "db", required_argument, NULL, 'd' },
	{ "socket", required_argument, NULL, 's' },
	{ "tree", required_argument, NULL, 't' },
	{ "json", no_argument, NULL, 'j' },
	{ NULL, 0, NULL, 0 },
};

static int cmd_rerun(int argc, char **argv)
{
	struct bg_store *s = NULL;
	bool json = false, woken;
	char *db = NULL, *sock = NULL, buf[256];
	const char *tree = NULL, *what;
	unsigned long job = 0;
	int64_t id = 0, tree_id = 0;
	int already = 0;    /* 1: the job was queued before (bg_store_job_gate, _rerun) */
	int opt, ret = 1;

	while ((opt = getopt_long(argc, argv, "d:s:t:j", rerun_opts, NULL)) != -1) {
		switch (opt) {
		case 'j': json = true; break;
		case 'd': free(db); db = xstrdup(optarg); break;
		case 's': free(sock); sock = xstrdup(optarg); break;
		case 't': tree = optarg; break;
		default:
			ret = cmd_option_error("rerun", argv);
			goto out;
		}
	}
	if (optind + 1 != argc) {
		ret = cmd_usage_error("rerun", "one job number or commit id is needed");
		goto out;
	}
	what = argv[optind];
	if (!db)
		db = bg_store_default_path();
	/* a job is rerun in a store that has it: none is made here */
	if (cmd_open_store_existing(db, "BOOTGATE_STATE", false, &s) < 0)
		goto out;
	if (strlen(what) < 12 && bg_num_parse_ulong(what, 1, INT64_MAX, &job) == 0) {
		if ((already = bg_store_job_rerun(s, (int64_t)job, &id)) < 0)
			goto fail;
		if (!id) {
			log_errorx("no job %lu in the store", job);
			goto out;
		}
	} else {
		char full[BG_OID_HEX];

		if (!is_rev(what)) {
			ret = cmd_usage_error("rerun", "'%s' is neither a job number nor a commit id",
					      what);
			goto out;
		}
		/* without --tree: the one tree the daemon watches, if there is only one */
		if ((tree ? bg_store_tree_id(s, tree, &tree_id) : bg_store_tree_only(s, &tree_id)) < 0)
			goto fail;
		if (!tree_id) {
			log_errorx(tree ? "no tree '%s' in the store" :
				  "which tree? (--tree NAME)%s", tree ? tree : "");
			goto out;
		}
		{
			char *path = NULL;

			if (bg_store_tree_path(s, tree_id, &path) < 0 || !path ||
			    bg_git_resolve(path, what, full) < 0) {
				free(path);
				goto fail;
			}
			free(path);
		}
		if ((already = bg_store_job_gate(s, tree_id, full, &id)) < 0)
			goto fail;
	}
	if (!sock)
		sock = default_socket();
	woken = ask(sock, "wake\n", buf, sizeof(buf)) == 0;
	if (json) {
		print_json(true, NULL, id, already == 1, woken);
	} else {
		/* a job that has not run yet is not queued twice (bg_store_job_rerun, _gate) */
		printf("job %" PRId64 " %s\n", id, already == 1 ? "is queued already" : "queued");
		if (!woken)
			printf("no daemon answers: the job waits in the queue for one\n");
	}
	ret = 0;
	goto out;
fail:
	log_errorx("%s", bg_error_last());
out:
	bg_store_close(s);
	free(db);
	free(sock);
	return ret;
}

const struct bg_cmd cmd_trigger_entry = {
	"trigger", cmd_trigger,
	"[--socket PATH] [--json] TREE [COMMIT]",
	"ask the daemon to fetch a tree now (a git server's post-receive hook calls this)",
	trigger_help, trigger_opts,
};

const struct bg_cmd cmd_rerun_entry = {
	"rerun", cmd_rerun,
	"[--db FILE] [--socket PATH] [--tree NAME] [--json] JOB|COMMIT",
	"queue a job again, or a gate of a commit, and wake the daemon",
	rerun_help, rerun_opts,
};
