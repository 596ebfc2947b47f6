/* Helpers the CLI commands share: the run options, numbers, time formatting, warnings. */
#include "cmd.h"
#include "conf/board.h"
#include "net/git.h"
#include "conf/tree.h"
#include "util/error.h"
#include "util/log.h"
#include "util/fs.h"
#include "util/num.h"
#include "util/path.h"
#include "util/xmalloc.h"

unsigned long cmd_parse_count(const char *cmd, const char *opt, const char *arg,
			      unsigned long min, unsigned long max)
{
	unsigned long v;

	if (bg_num_parse_ulong(arg, min, max, &v) < 0)
		exit(cmd_usage_error(cmd, "%s: %s", opt, bg_error_last()));
	return v;
}

enum bg_console cmd_parse_console(const char *cmd, const char *arg)
{
	enum bg_console c;

	if (bg_console_parse(arg, &c) < 0)
		exit(cmd_usage_error(cmd, "--console: %s", bg_error_last()));
	return c;
}

double cmd_parse_real(const char *cmd, const char *opt, const char *arg, double lo, double hi)
{
	double v;

	if (bg_num_parse_double(arg, lo, hi, &v) < 0)
		exit(cmd_usage_error(cmd, "%s: %s", opt, bg_error_last()));
	return v;
}

int cmd_option_error(const char *cmd, char **argv)
{
	/* getopt leaves the word it stopped at just before optind */
	const char *word = optind > 0 ? argv[optind - 1] : "?";

	if (optopt && strchr(word, '=') == NULL && word[0] == '-' && word[1] == '-' &&
	    strlen(word) > 2)
		return cmd_usage_error(cmd, "'%s' needs a value, or is no option", word);
	return cmd_usage_error(cmd, "unknown option, or one without its value: '%s'", word);
}

void cmd_bootlog_warning(const char *where, const char *msg, void *data)
{
	(void)data;
	log_warnx("%s: %s", where, msg);
}

bool cmd_arches_comparable(const char *a_name, const char *a_arch, const char *a_where,
			   const char *b_name, const char *b_arch, const char *b_where)
{
	if (!a_arch || !b_arch || !strcmp(a_arch, b_arch))
		return true;
	log_errorx("%s is %s (%s) and %s %s (%s): boots of different arches are not compared",
		   a_name, a_arch, a_where, b_name, b_arch, b_where);
	return false;
}

const char *cmd_fmt_ms(char *buf, size_t size, int64_t us)
{
	if (us < 0)
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, "%" PRId64 ".%03" PRId64, us / 1000, us % 1000);
	return buf;
}

int cmd_check_inputs(const char *cmd, const char *tree, const char *const *revs, size_t n,
		     const char *board, bool deterministic, const char *lab,
		     const struct bg_build_config *config)
{
	struct bg_board b;
	struct bg_tree t;
	char id[BG_OID_HEX];
	int ret = 0;

	if (config && bg_build_config_check(config->base, config->fragments, config->nfragments,
					    NULL) < 0)
		return cmd_usage_error(cmd, "%s", bg_error_last());
	if (bg_board_load(lab ? lab : bg_lab_dir(), board, &b) < 0)
		return cmd_usage_error(cmd, "%s", bg_error_last());
	if (bg_board_check_mode(&b, deterministic) < 0 ||
	    (config && config->perf_runs && bg_board_check_perf(&b) < 0)) {
		bg_board_release(&b);
		return cmd_usage_error(cmd, "%s", bg_error_last());
	}
	bg_board_release(&b);
	if (bg_tree_open(tree, &t) < 0)
		return cmd_usage_error(cmd, "%s", bg_error_last());
	for (size_t i = 0; i < n && !ret; i++)
		if (revs[i] && bg_git_resolve(t.real, revs[i], id) < 0)
			ret = cmd_usage_error(cmd, "%s", bg_error_last());
	bg_tree_release(&t);
	return ret;
}

int cmd_open_store_existing(const char *path, const char *where, bool ro,
			    struct bg_store **s)
{
	if (access(path, F_OK) != 0) {
		log_errorx("no store at '%s' (--db FILE, or %s)", path, where);
		return -1;
	}
	if ((ro ? bg_store_open_ro(path, s) : bg_store_open(path, s)) < 0) {
		log_errorx("%s", bg_error_last());
		return -1;
	}
	return 0;
}

int cmd_open_store(const char *db, struct bg_store **s)
{
	char *path = db ? xstrdup(db) : bg_store_default_path();
	int ret = cmd_open_store_existing(path, "BOOTGATE_STATE", true, s);

	free(path);
	return ret;
}

int cmd_open_store_rw(const char *db, struct bg_store **s)
{
	char *path = db ? xstrdup(db) : bg_store_default_path(), *dir = NULL;
	int ret = -1;

	if (!db && bg_mkdirs((dir = bg_path_parent(path))) < 0)
		log_errorx("%s", bg_error_last());
	else if (bg_store_open(path, s) < 0)
		log_errorx("%s", bg_error_last());
	else
		ret = 0;
	free(dir);
	free(path);
	return ret;
}

int cmd_run_one_board(const char *cmd, const struct cmd_run_opts *r)
{
	if (r->boards.n <= 1)
		return 0;
	return cmd_usage_error(cmd, "one --arch or --board: %s runs on one board", cmd);
}

int cmd_run_board_error(const struct cmd_run_opts *r, const char *board)
{
	if (r->boards.n > 1)
		log_errorx("%s: %s", board, bg_error_last());
	else
		log_errorx("%s", bg_error_last());
	return 1;
}

void cmd_run_opts_init(struct cmd_run_opts *r)
{
	memset(r, 0, sizeof(*r));
	bg_strvec_init(&r->boards);
	bg_strvec_init(&r->fragments);
	bg_compare_config_init(&r->compare);
}

void cmd_run_opts_release(struct cmd_run_opts *r)
{
	bg_strvec_release(&r->boards);
	bg_strvec_release(&r->fragments);
	bg_compare_config_release(&r->compare);
	free(r->db);
}

/* Takes opt, arg its value, when it is a run option: 1, or 0 when it is none. */
static int run_option(const char *cmd, int opt, const char *arg, struct cmd_run_opts *r)
{
	switch (opt) {
	case 't': r->tree = arg; break;
	case 'a':
	case 'b':
		bg_strvec_push(&r->boards, arg);
		r->board = r->boards.v[0];
		break;
	case 'm':
		if (strcmp(arg, "deterministic") != 0 && strcmp(arg, "timing") != 0)
			exit(cmd_usage_error(cmd, "--mode is deterministic or timing, not '%s'", arg));
		r->mode = arg;
		break;
	case 'C': r->console = cmd_parse_console(cmd, arg); break;
	case 'l': r->lab = arg; break;
	case 'K': r->config.base = arg; break;
	case 'F':
		bg_strvec_push(&r->fragments, arg);
		r->config.fragments = r->fragments.v;
		r->config.nfragments = r->fragments.n;
		break;
	case 'R':
		r->config.perf_runs = (unsigned)cmd_parse_count(cmd, "--perf-runs", arg, 0, 100);
		break;
	case 'N':
		if (!bg_path_name_ok(arg))
			exit(cmd_usage_error(cmd, "--name '%s' is not a name", arg));
		r->name = arg;
		break;
	case 'n': r->boots = (unsigned)cmd_parse_count(cmd, "--boots", arg, 1, 1000); break;
	case 'T':
		if (bg_compare_config_add_threshold(&r->compare, arg) < 0)
			exit(cmd_usage_error(cmd, "--threshold: %s", bg_error_last()));
		break;
	case 'd':
		free(r->db);
		r->db = xstrdup(arg);
		break;
	case 'j': r->json = true; break;
	case 'P': r->parallel = (unsigned)cmd_parse_count(cmd, "--parallel", arg, 1, 64); break;
	default: return 0;
	}
	return 1;
}

int cmd_run_getopt(const char *cmd, int argc, char **argv, const char *shortopts,
		   const struct option *opts, struct cmd_run_opts *r)
{
	int opt;

	while ((opt = getopt_long(argc, argv, shortopts, opts, NULL)) != -1 &&
	       run_option(cmd, opt, optarg, r))
		;
	return opt;
}

/*
 * The help of the run options by letter, in the order shown. What differs between the
 * commands (the default mode and boots, what --json holds, what runs in parallel) each
 * command says in its own help.
 */
static const struct {
	char letter;
	const char *text;
} run_help[] = {
	{ 't', "  -t, --tree DIR        a kernel git tree\n" },
	{ 'a', "  -a, --arch ARCH       x86_64, arm64, ppc64le: the board qemu-ARCH\n" },
	{ 'b', "  -b, --board NAME      a board of the lab's boards/ instead\n" },
	{ 'N', "  -N, --name TREE       the tree's name in the store (else its path's identity)\n" },
	{ 'm', "  -m, --mode M          deterministic (-icount: repeatable guest time, exact\n"
	       "                        values) or timing (wall clock, statistics)\n" },
	{ 'C', "  -C, --console C       verbose (initcall_debug at loglevel=8, the default) or\n"
	       "                        quiet (a user's console; initcalls read from the ring\n"
	       "                        buffer)\n" },
	{ 'n', "  -n, --boots N         boots of each commit\n" },
	{ 'T', "  -T, --threshold P=PCT%[:US]\n"
	       "                        the smallest regression that counts for the metrics\n"
	       "                        matching P (a name or a prefix ending in *), as\n"
	       "                        compare's; again for more patterns\n" },
	{ 'K', "  -K, --config BASE     tinyconfig (the default), a defconfig target such as\n"
	       "                        x86_64_defconfig, or a .config file; the board's\n"
	       "                        fragments and each --fragment are merged on top\n" },
	{ 'F', "  -F, --fragment FILE   a config fragment (again for more)\n" },
	{ 'R', "  -R, --perf-runs R     build the tree's perf too (static) and time\n"
	       "                        `perf trace -C 0 -- true` R times in each boot:\n"
	       "                        perf.trace_startup\n" },
	{ 'l', "  -l, --lab DIR         the lab-configs directory (boards, config fragments)\n" },
	{ 'd', "  -d, --db FILE         the store ($BOOTGATE_STATE/bootgate.db)\n" },
};

void cmd_print_run_help(FILE *out, const char *shortopts)
{
	for (size_t i = 0; i < ARRAY_SIZE(run_help); i++)
		if (strchr(shortopts, run_help[i].letter))
			fputs(run_help[i].text, out);
}
