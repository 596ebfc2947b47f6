/* Unit tests of the comparison's table: a hostile metric name keeps the columns. */
#include "unit.h"
#include "report/comparison.h"

#define SPACES10 "          "
#define SPACES(n) SPACES_##n
#define SPACES_33 SPACES10 SPACES10 SPACES10 "   "
#define SPACES_38 SPACES10 SPACES10 SPACES10 "        "

/* A metric name with an escape and a é: the attribution line is as wide as a plain one. */
static void test_attribution_width(void **state)
{
	struct bg_attribution a[2] = { { "initcall.\033[2Jx", 5, 0.5 },
				       { "initcall.\xc3\xa9t\xc3\xa9", 5, 0.5 } };
	struct bg_comparison c = { NULL, 0, a, 2 };
	struct bg_sample_set set;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	memset(&set, 0, sizeof(set));
	f = open_memstream(&text, &len);
	assert_non_null(f);
	bg_comparison_print(f, &c, &set, &set, 10, false);
	fclose(f);
	/* 17 and 12 columns, padded to 40, then " %+11.0f": 33 and 38 spaces before "+5" */
	assert_non_null(strstr(text, "\n  initcall.\\x1b[2Jx" SPACES(33) "+5 us   50.0% of the shift\n"));
	assert_non_null(strstr(text, "\n  initcall.\xc3\xa9t\xc3\xa9" SPACES(38)
				     "+5 us   50.0% of the shift\n"));
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_attribution_width),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
