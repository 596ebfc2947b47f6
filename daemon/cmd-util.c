/* Helpers the CLI commands share: numbers, time formatting, warnings. */
#include <getopt.h>

#include "cmd.h"
#include "conf/board.h"
#include "net/git.h"
#include "conf/tree.h"
#include "lab/workers.h"
#include "util/error.h"
#include "util/log.h"
#include "util/num.h"
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

int cmd_open_store(const char *db, struct bg_store **s)
{
	char *path = db ? xstrdup(db) : bg_store_default_path();
	int ret = 0;

	if (access(path, F_OK) != 0) {
		log_warnx("no store at '%s' (--db FILE, or BOOTGATE_STATE)", path);
		ret = -1;
	} else if (bg_store_open_ro(path, s) < 0) {
		log_warnx("%s", bg_error_last());
		ret = -1;
	}
	free(path);
	return ret;
}
