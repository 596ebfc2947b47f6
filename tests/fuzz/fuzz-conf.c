/*
 * libFuzzer target of the configuration readers: each input is read as a flat YAML file,
 * as a nested one, as a board file and as the service's file. Besides "no crash, no
 * leak", it checks that a file refused says where ("NAME:LINE:COL: why") and that one
 * accepted holds together: every required field set, every number in its range, every
 * name that becomes a path a plain one.
 */
#include <limits.h>
#include <sys/un.h>

#include "conf/board.h"
#include "conf/conf.h"
#include "conf/service-conf.h"
#include "util/error.h"
#include "util/path.h"

#define fuzz_assert(cond) do { if (!(cond)) __builtin_trap(); } while (0)

#define NAME "fuzz.yaml"

static char lab[PATH_MAX];

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	/* the shipped lab: the boards and templates a service file or a board names */
	if (!realpath(bg_lab_dir(), lab))
		__builtin_trap();
	return 0;
}

/* The last error reads "fuzz.yaml:LINE:COL: why", LINE and COL from 1, why not empty. */
static void assert_positioned(void)
{
	const char *msg = bg_error_last(), *p;
	size_t line = 0, col = 0;

	fuzz_assert(!strncmp(msg, NAME ":", strlen(NAME ":")));
	p = msg + strlen(NAME ":");
	for (; *p >= '0' && *p <= '9'; p++)
		line = line * 10 + (size_t)(*p - '0');
	fuzz_assert(*p++ == ':');
	for (; *p >= '0' && *p <= '9'; p++)
		col = col * 10 + (size_t)(*p - '0');
	fuzz_assert(line >= 1 && col >= 1 && p[0] == ':' && p[1] == ' ' && p[2]);
}

static bool has_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return true;
	return false;
}

/* Every entry of c well formed for its shape; mappings no deeper than the reader allows. */
static void check_conf(const struct bg_conf *c, int depth, int max_depth)
{
	fuzz_assert(depth <= max_depth && c->file && !strcmp(c->file, NAME));
	for (size_t i = 0; i < c->n; i++) {
		const struct bg_conf_entry *e = &c->e[i];

		fuzz_assert(e->key && e->line >= 1 && e->column >= 1);
		for (size_t k = 0; k < i; k++)
			fuzz_assert(strcmp(c->e[k].key, e->key) != 0);
		switch (e->shape) {
		case BG_CONF_VALUE:
			fuzz_assert(e->nvalues == 1 && !e->nmaps);
			break;
		case BG_CONF_LIST:
			fuzz_assert(!e->nmaps);
			break;
		case BG_CONF_MAP:
			fuzz_assert(max_depth && e->nmaps == 1 && !e->nvalues);
			break;
		case BG_CONF_MAP_LIST:
			fuzz_assert(max_depth && e->nmaps >= 1 && !e->nvalues);
			break;
		}
		for (size_t k = 0; k < e->nvalues; k++)
			fuzz_assert(e->values[k] && e->pos[k][0] >= 1);
		for (size_t k = 0; k < e->nmaps; k++)
			check_conf(&e->maps[k], depth + 1, max_depth);
	}
}

static void fuzz_flat(const char *text, size_t len, int max_depth)
{
	struct bg_conf c;
	int rc = max_depth ? bg_conf_load_nested_mem(NAME, text, len, &c)
			   : bg_conf_load_mem(NAME, text, len, &c);

	if (rc < 0) {
		assert_positioned();
		fuzz_assert(!c.n && !c.e && !c.file);
		return;
	}
	check_conf(&c, 0, max_depth);
	/* nothing was asked for: any key is unknown, and said so where it is */
	if (c.n) {
		fuzz_assert(bg_conf_check_unused(&c) < 0);
		assert_positioned();
	}
	bg_conf_release(&c);
}

static void fuzz_board(const char *text, size_t len)
{
	struct bg_board b;
	char *cmd;

	if (bg_board_load_mem(lab, NAME, text, len, &b) < 0) {
		assert_positioned();
		return;
	}
	fuzz_assert(b.name && b.arch && b.kernel_arch && b.cross_compile && b.make_target &&
		    b.image && b.init_cc && b.qemu && b.machine && b.cpu && b.cmdline &&
		    b.timing_cmdline);
	fuzz_assert(bg_path_name_ok(b.name) && bg_path_name_ok(b.arch));
	fuzz_assert(b.memory >= 64 && b.memory <= 65536 && b.cpus >= 1 && b.cpus <= 64);
	fuzz_assert(b.boot_timeout >= 1 && b.exit_timeout >= 1 && b.icount_shift >= 0 &&
		    b.icount_shift <= 10);
	fuzz_assert(b.poweroff == BG_POWEROFF || b.poweroff == BG_REBOOT);
	for (size_t i = 0; i < b.nmodes; i++)
		fuzz_assert(!strcmp(b.modes[i], "timing") || !strcmp(b.modes[i], "deterministic"));
	for (size_t i = 0; i < b.nfragments; i++)
		fuzz_assert(bg_path_name_ok(b.fragments[i]));
	if (b.type == BG_BOARD_LAVA) {
		const struct bg_lava_board *l = &b.lava;

		fuzz_assert(l->url && l->device_type && l->job_template && l->artifact_url);
		fuzz_assert(!strncmp(l->url, "http", 4) && !strchr(l->url, '@') &&
			    !has_control(l->url) && !strchr(l->artifact_url, '@'));
		fuzz_assert(!*l->token_file != !*l->token_env);
		fuzz_assert(bg_path_name_ok(l->job_template));
		fuzz_assert(l->limit >= 1 && l->limit <= 64 && l->retries >= 0 && l->retries <= 10);
		for (size_t i = 0; i < l->nvars; i++)
			fuzz_assert(strchr(l->vars[i], '=') > l->vars[i]);
	}
	fuzz_assert(b.lab && b.lab[0] == '/');
	cmd = bg_board_cmdline(&b, false, BG_CONSOLE_QUIET, 1000, "x=1", 3);
	fuzz_assert(cmd && strstr(cmd, "bootgate.dump=1") && strstr(cmd, "bootgate.perf=3"));
	free(cmd);
	bg_board_release(&b);
}

static bool tree_name_ok(const char *s)
{
	size_t n = strlen(s);

	return n >= 1 && n <= 64 && !strchr(s, '/') && !strstr(s, "..") && !has_control(s) &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789._-") == n;
}

static void fuzz_service(const char *text, size_t len)
{
	struct bg_service_conf sc;

	if (bg_service_conf_load_mem(NAME, lab, text, len, &sc) < 0) {
		assert_positioned();
		return;
	}
	fuzz_assert(sc.ntrees >= 1 && sc.state && sc.state[0] == '/' && sc.site && sc.socket);
	fuzz_assert(strlen(sc.socket) < sizeof(((struct sockaddr_un *)0)->sun_path));
	fuzz_assert(sc.builds >= 1 && sc.builds <= 64 && sc.boots >= 1 && sc.boots <= 256);
	fuzz_assert(sc.poll >= 10 && sc.poll <= 86400);
	fuzz_assert(!sc.webhook_host || (sc.webhook_port >= 1 && sc.webhook_port <= 65535 &&
					 sc.webhook_secret_file && *sc.webhook_host));
	fuzz_assert(!sc.artifacts_host || (sc.artifacts_port >= 1 && sc.artifacts_port <= 65535));
	fuzz_assert(sc.report.min_confidence >= 0 && sc.report.min_confidence <= 1);
	fuzz_assert(!sc.report.enabled || sc.report.site_url);
	for (size_t i = 0; i < sc.ntrees; i++) {
		const struct bg_service_tree *t = &sc.trees[i];

		fuzz_assert(tree_name_ok(t->name));
		fuzz_assert(bg_service_conf_tree(&sc, t->name) == t);
		fuzz_assert(t->url && *t->url && *t->url != '-' && !has_control(t->url) &&
			    !strchr(t->url, ' '));
		fuzz_assert(t->branch && *t->branch && !has_control(t->branch));
		fuzz_assert(t->narches + t->nboards >= 1);
		for (size_t k = 0; k < t->narches; k++)
			fuzz_assert(bg_path_name_ok(t->arches[k]));
		for (size_t k = 0; k < t->nboards; k++)
			fuzz_assert(bg_path_name_ok(t->boards[k]));
		fuzz_assert(t->poll >= 10 && t->poll <= 86400 && t->perf_runs >= 0 &&
			    t->perf_runs <= 100 && t->config_name);
		fuzz_assert(t->compare.deterministic == t->deterministic);
		fuzz_assert(!t->mail.send_list || t->mail.nto);
	}
	for (size_t i = 0; i < sc.ninboxes; i++)
		fuzz_assert(tree_name_ok(sc.inboxes[i].name) &&
			    bg_service_conf_tree(&sc, sc.inboxes[i].tree));
	fuzz_assert(!sc.drop_dir || bg_service_conf_tree(&sc, sc.drop_tree));
	bg_service_conf_release(&sc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;

	fuzz_flat(text, size, 0);
	fuzz_flat(text, size, BG_CONF_MAX_DEPTH);
	fuzz_board(text, size);
	fuzz_service(text, size);
	return 0;
}
