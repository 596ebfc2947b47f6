/* bootgated's options and help, apart from its main so that a unit test can hold them. */
#include "bootgated-opts.h"

const struct option bootgated_opts[] = {
	{ "db", required_argument, NULL, 'd' },
	{ "lab", required_argument, NULL, 'l' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};
const char bootgated_shortopts[] = "f:nvh";

void bootgated_usage(FILE *f)
{
	fprintf(f,
		"usage: bootgated [-f FILE] [-n] [--db FILE] [--lab DIR] [-v]\n"
		"\n"
		"the bootgate service: fetches the configured trees, gates each new tip and\n"
		"bisects what regressed\n"
		"\n"
		"  -f FILE     the configuration (lab-configs/bootgate.yaml of the project)\n"
		"  -n          check the configuration, print what is wrong, and exit\n"
		"  --db FILE   the store (STATE/bootgate.db of the configuration)\n"
		"  --lab DIR   the lab-configs directory of the boards\n"
		"  -v          debug messages\n"
		"  -h, --help  this help\n"
		"\nBOOTGATE_JOB_BACKOFF=S: a failed job's first retry after S seconds (30).\n"
		"\nSignals: HUP reloads the configuration (a bad file keeps the old one),\n"
		"TERM stops: running jobs go back to the queue and continue at the next start.\n"
		"\nexit: 0 stopped, 1 error, 2 usage or a bad configuration\n");
}
