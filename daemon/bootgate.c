/* The bootgate command: runs the command of cmd-table.c that its first argument names. */
#include <getopt.h>
#include <signal.h>

#include "cmd.h"
#include "util/log.h"

/*
 * Whatever a command printed must have reached its output: else it did not say it. A
 * command that failed has said why already (its output among it, once).
 */
static int output_written(int ret)
{
	if ((fflush(stdout) == EOF || ferror(stdout)) && !ret) {
		log_error("cannot write the output");
		return 1;
	}
	return ret;
}

int main(int argc, char **argv)
{
	const struct bg_cmd *c;

	log_init("bootgate", 0);
	/*
	 * A reader that has gone (bootgate ... | head -1) must not kill a command between two
	 * steps of its work (a mail sent and not yet marked so): a write then fails with
	 * EPIPE, and the command says it could not write its output (exit 1). Children get
	 * the default back (util/proc.c).
	 */
	signal(SIGPIPE, SIG_IGN);
	opterr = 0;     /* the commands name a bad option themselves, escaped, once */
	if (argc < 2) {
		cmd_print_overview(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		cmd_print_overview(stdout);
		return output_written(0);
	}
	if (!strcmp(argv[1], "--version"))
		return output_written(cmd_find("version")->fn(1, argv + 1));
	c = cmd_find(argv[1]);
	if (!c) {
		log_errorx("unknown command '%s'", argv[1]);
		cmd_print_overview(stderr);
		return 2;
	}
	for (int i = 2; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return output_written(cmd_print_help(stdout, c->name));
	return output_written(c->fn(argc - 1, argv + 1));
}
