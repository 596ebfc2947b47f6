/* The table of bootgate's commands, and the help and usage lines printed from it. */
#include "cmd.h"
#include "util/strbuf.h"
#include "util/text.h"

#ifndef BOOTGATE_VERSION
#define BOOTGATE_VERSION "0.1"
#endif

static int cmd_help(int argc, char **argv);
static int cmd_version(int argc, char **argv);

static const struct bg_cmd cmd_help_entry = {
	"help", cmd_help,
	"[COMMAND]", "show the commands, or one command's help",
};
static const struct bg_cmd cmd_version_entry = {
	"version", cmd_version,
	"", "print the version",
};

const struct bg_cmd *const cmd_table[] = {
	&cmd_parse_entry, &cmd_diff_entry, &cmd_compare_entry, &cmd_measure_entry,
	&cmd_bisect_entry, &cmd_show_entry, &cmd_status_entry, &cmd_trigger_entry,
	&cmd_rerun_entry, &cmd_log_entry, &cmd_site_entry, &cmd_export_entry,
	&cmd_mail_entry, &cmd_serve_artifacts_entry, &cmd_gate_entry, &cmd_series_entry,
	&cmd_fetch_entry, &cmd_inbox_entry, &cmd_bench_bisect_entry, &cmd_help_entry,
	&cmd_version_entry,
};
const size_t cmd_table_len = ARRAY_SIZE(cmd_table);

const struct bg_cmd *cmd_find(const char *name)
{
	for (size_t i = 0; i < cmd_table_len; i++)
		if (!strcmp(cmd_table[i]->name, name))
			return cmd_table[i];
	return NULL;
}

void cmd_print_overview(FILE *out)
{
	fprintf(out, "usage: bootgate COMMAND [ARGS]\n\n"
		"gate and bisect the boot-time regressions of Linux kernels\n\ncommands:\n");
	for (size_t i = 0; i < cmd_table_len; i++)
		fprintf(out, "  %-15s  %s\n", cmd_table[i]->name, cmd_table[i]->summary);
	fprintf(out, "\n'bootgate help COMMAND' or 'bootgate COMMAND --help' shows one command.\n");
}

int cmd_print_help(FILE *out, const char *name)
{
	const struct bg_cmd *c = cmd_find(name);

	if (!c)
		return cmd_usage_error("help", "unknown command '%s'", name);
	fprintf(out, "usage: bootgate %s%s%s\n\n%s\n", c->name, c->usage[0] ? " " : "", c->usage,
		c->summary);
	if (c->help)
		c->help(out);
	return 0;
}

int cmd_usage_error(const char *name, const char *fmt, ...)
{
	const struct bg_cmd *c = cmd_find(name);
	struct bg_strbuf msg = BG_STRBUF_INIT, safe = BG_STRBUF_INIT;
	va_list ap;

	/* what the user typed is quoted back: one line, escaped like every message */
	va_start(ap, fmt);
	bg_strbuf_vaddf(&msg, fmt, ap);
	va_end(ap);
	bg_text_escape_line(&safe, msg.buf, msg.len);
	fprintf(stderr, "bootgate %s: %s\n", name, safe.buf);
	if (c)
		fprintf(stderr, "usage: bootgate %s%s%s\n", c->name, c->usage[0] ? " " : "",
			c->usage);
	bg_strbuf_release(&msg);
	bg_strbuf_release(&safe);
	return 2;
}

static int cmd_help(int argc, char **argv)
{
	if (argc > 2)
		return cmd_usage_error("help", "too many arguments");
	if (argc == 2)
		return cmd_print_help(stdout, argv[1]);
	cmd_print_overview(stdout);
	return 0;
}

static int cmd_version(int argc, char **argv)
{
	(void)argv;
	if (argc > 1)
		return cmd_usage_error("version", "takes no arguments");
	printf("bootgate %s\n", BOOTGATE_VERSION);
	return 0;
}
