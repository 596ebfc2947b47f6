/*
 * The help of each command against its getopt_long table: an option a command takes and
 * its help (so bootgate help, COMMAND --help and the man page) does not describe fails.
 */
#include "unit.h"

#include "cmd.h"
#include "bootgated-opts.h"

/* What print wrote, NUL-terminated; the caller frees it. */
static char *captured(void (*print)(FILE *out))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	print(f);
	assert_int_equal(fclose(f), 0);
	return buf;
}

/*
 * Whether help describes --name: a line that starts (after spaces, and "-x, " when the
 * option has a letter) with it, followed by a space, '=' or the line's end. A letter
 * shown must be the table's.
 */
static bool described(const char *help, const struct option *o, const char *cmd)
{
	size_t n = strlen(o->name);

	for (const char *l = help; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		const char *p = l + strspn(l, " ");
		char letter = 0;

		if (p[0] == '-' && p[1] && p[1] != '-' && p[2] == ',' && p[3] == ' ') {
			letter = p[1];
			p += 4;
		}
		if (strncmp(p, "--", 2) || strncmp(p + 2, o->name, n) ||
		    !strchr(" =\n", p[2 + n] ? p[2 + n] : '\n'))
			continue;
		if (letter && letter != o->val)
			fail_msg("%s: the help shows -%c for --%s", cmd, letter, o->name);
		return true;
	}
	return false;
}

/* Each missing option is named, then the test fails once. */
static int missing(const char *who, const char *help, const struct option *opts)
{
	int n = 0;

	for (const struct option *o = opts; o && o->name; o++)
		if (!described(help, o, who)) {
			print_error("%s: --%s is not in its help\n", who, o->name);
			n++;
		}
	return n;
}

static const struct bg_cmd *current;

static void print_current(FILE *out)
{
	current->help(out);
}

static void test_every_option_in_help(void **state)
{
	int n = 0;

	(void)state;
	for (size_t i = 0; i < cmd_table_len; i++) {
		char *help;

		current = cmd_table[i];
		if (!current->help) {
			/* a command without help must take no option */
			if (current->opts && current->opts[0].name)
				fail_msg("%s: options, and no help", current->name);
			continue;
		}
		help = captured(print_current);
		n += missing(current->name, help, current->opts);
		free(help);
	}
	assert_int_equal(n, 0);
}

/* The commands that read options have their table in the entry (else nothing is held). */
static void test_tables_exported(void **state)
{
	size_t with = 0;

	(void)state;
	for (size_t i = 0; i < cmd_table_len; i++)
		with += cmd_table[i]->opts != NULL;
	/* every command but help and version */
	assert_int_equal(with, cmd_table_len - 2);
}

static void test_bootgated_options_in_help(void **state)
{
	char *help = captured(bootgated_usage);

	(void)state;
	assert_int_equal(missing("bootgated", help, bootgated_opts), 0);
	/* the options that have only a letter, from its short options */
	for (const char *s = bootgated_shortopts; *s; s++) {
		char alone[5] = { ' ', '-', *s, ' ', 0 }, paired[5] = { ' ', '-', *s, ',', 0 };

		if (*s != ':' && !strstr(help, alone) && !strstr(help, paired))
			fail_msg("bootgated: -%c is not in its help", *s);
	}
	free(help);
}

/* The test fails on what it should: a help that lacks an option is caught. */
static void test_missing_caught(void **state)
{
	static const struct option opts[] = {
		{ "tree", required_argument, NULL, 't' },
		{ "tree-name", required_argument, NULL, 'N' },
		{ NULL, 0, NULL, 0 },
	};

	(void)state;
	assert_int_equal(missing("t", "  -t, --tree DIR   a tree\n", opts), 1);
	assert_int_equal(missing("t", "  --tree-name N\n  --tree\n", opts), 0);
	/* named in prose or in the usage line is not described */
	assert_int_equal(missing("t", "usage: x --tree DIR --tree-name N\n", opts), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_option_in_help),
		cmocka_unit_test(test_tables_exported),
		cmocka_unit_test(test_bootgated_options_in_help),
		cmocka_unit_test(test_missing_caught),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
