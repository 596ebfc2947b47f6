/* Helpers the CLI commands share: counts, time formatting, warnings. */
#include "cmd.h"
#include "log.h"

unsigned long cmd_parse_count(const char *cmd, const char *opt, const char *arg)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (errno || end == arg || *end || arg[0] == '-')
		exit(cmd_usage_error(cmd, "%s takes a whole number, not '%s'", opt, arg));
	return v;
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
