/*
 * bootgate fetch: a tree's branch into its mirror (made when missing), the tip on
 * stdout. The daemon runs it as a process, so that a git server that stops answering
 * holds a child, never the service's loop.
 */
#include <getopt.h>

#include "cmd.h"
#include "net/git.h"
#include "util/error.h"
#include "util/log.h"

static void fetch_help(FILE *out)
{
	fprintf(out, "\n"
	       "  --mirror DIR        the tree's bare mirror (made when missing)\n"
	       "  --url URL           what git fetches from\n"
	       "  --branch BRANCH     the branch; its tip is printed\n"
	       "  --reference REPO    a local repository whose objects the mirror borrows\n"
	       "\nexit: 0 fetched, 1 the fetch failed, 2 usage\n");
}

static const struct option fetch_opts[] = {
	{ "mirror", required_argument, NULL, 'm' },
	{ "url", required_argument, NULL, 'u' },
	{ "branch", required_argument, NULL, 'b' },
	{ "reference", required_argument, NULL, 'r' },
	{ NULL, 0, NULL, 0 },
};

static int cmd_fetch(int argc, char **argv)
{
	const char *mirror = NULL, *url = NULL, *branch = NULL, *reference = NULL;
	char tip[BG_OID_HEX];
	int opt;

	while ((opt = getopt_long(argc, argv, "m:u:b:r:", fetch_opts, NULL)) != -1) {
		switch (opt) {
		case 'm': mirror = optarg; break;
		case 'u': url = optarg; break;
		case 'b': branch = optarg; break;
		case 'r': reference = optarg; break;
		default: return cmd_option_error("fetch", argv);
		}
	}
	if (optind < argc)
		return cmd_usage_error("fetch", "unexpected argument '%s'", argv[optind]);
	if (!mirror || !url || !branch)
		return cmd_usage_error("fetch", "--mirror, --url and --branch are needed");
	if (!bg_git_branch_name_ok(branch))
		return cmd_usage_error("fetch", "'%s' is not a branch name", branch);
	if (bg_git_fetch(mirror, url, branch, reference, tip) < 0) {
		log_errorx("%s", bg_error_last());
		return 1;
	}
	printf("%s\n", tip);
	return 0;
}

const struct bg_cmd cmd_fetch_entry = {
	"fetch", cmd_fetch,
	"--mirror DIR --url URL --branch BRANCH [--reference REPO]",
	"fetch a tree's branch into its mirror and print the tip",
	fetch_help, fetch_opts,
};
