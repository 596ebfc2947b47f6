/*
 * bootgate serve-artifacts: the artifact store over HTTP without the daemon (lab/
 * artifacts.h), in the foreground until SIGTERM or SIGINT, for LAVA workers to fetch
 * images by URL.
 */
#include <getopt.h>
#include <signal.h>
#include <sys/stat.h>

#include "cmd.h"
#include "net/artifacts.h"
#include "net/http.h"
#include "conf/tree.h"
#include "util/error.h"
#include "util/log.h"
#include "util/text.h"
#include "util/xmalloc.h"

/* "ADDR:PORT" of listen with the port it got (port 0 takes any), owned by the caller. */
static char *served_at(const char *listen, unsigned port)
{
	size_t host = (size_t)(strrchr(listen, ':') - listen);

	return xasprintf("%.*s:%u", (int)host, listen, port);
}

static void serve_artifacts_help(FILE *out)
{
	fprintf(out, "\n"
	       "  --listen ADDR:PORT  where to listen (127.0.0.1:8788)\n"
	       "  --cache DIR         the cache whose artifacts are served ($BOOTGATE_CACHE)\n"
	       "\nRuns until stopped (TERM or INT).\n"
	       "\nexit: 0 stopped, 1 the server could not start, 2 usage\n");
}

static const struct option serve_artifacts_opts[] = {
	{ "listen", required_argument, NULL, 'l' },
	{ "cache", required_argument, NULL, 'c' },
	{ NULL, 0, NULL, 0 },
};

static int cmd_serve_artifacts(int argc, char **argv)
{
	const char *listen = BG_ARTIFACTS_LISTEN, *cache = NULL;
	struct bg_artifacts *a = NULL;
	char *at = NULL;
	struct stat st;
	sigset_t mask;
	int opt, sig;

	while ((opt = getopt_long(argc, argv, "l:c:", serve_artifacts_opts, NULL)) != -1) {
		switch (opt) {
		case 'l': listen = optarg; break;
		case 'c': cache = optarg; break;
		default: return cmd_option_error("serve-artifacts", argv);
		}
	}
	if (optind < argc)
		return cmd_usage_error("serve-artifacts", "unexpected argument '%s'", argv[optind]);
	if (bg_http_check_listen(listen) < 0)
		return cmd_usage_error("serve-artifacts", "--listen: %s", bg_error_last());
	if (!cache)
		cache = bg_cache_dir();
	if (!*cache)
		return cmd_usage_error("serve-artifacts", "--cache: an empty name");
	if (stat(cache, &st) < 0 || !S_ISDIR(st.st_mode)) {
		log_errorx("'%s' is not a directory", cache);
		return 1;
	}
	/* blocked before the server's thread starts, which inherits the mask */
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (bg_artifacts_start(listen, cache, &a) < 0) {
		log_errorx("%s", bg_error_last());
		return 1;
	}
	at = served_at(listen, bg_artifacts_port(a));
	bg_text_printf(stdout, "serving %s on http://%s\n", cache, at);
	if (fflush(stdout) == EOF)
		log_error("cannot write to stdout");
	while (sigwait(&mask, &sig) != 0)
		;
	log_info("artifacts: stopped by signal %d", sig);
	bg_artifacts_stop(a);
	free(at);
	return 0;
}

const struct bg_cmd cmd_serve_artifacts_entry = {
	"serve-artifacts", cmd_serve_artifacts,
	"[--listen ADDR:PORT] [--cache DIR]",
	"serve the artifact store read-only over HTTP for LAVA (GET /artifacts/SHA256/image)",
	serve_artifacts_help, serve_artifacts_opts,
};
