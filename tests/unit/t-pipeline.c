/* The measure pipeline's reading of its boots (lab/pipeline.h). */
#include "unit.h"
#include "lab/pipeline.h"

/*
 * A board whose lab failed every boot gives no verdict: the gate says infra and tries
 * again. One boot the kernel spoke in (a hang is the kernel's) is not the lab's alone,
 * and a measure that booted nothing was never tried.
 */
static void test_all_infra(void **state)
{
	struct bg_measure_boot boots[3] = {
		{ .outcome = BG_OUTCOME_INFRA },
		{ .side = BG_SIDE_AGAINST, .outcome = BG_OUTCOME_INFRA },
		{ .outcome = BG_OUTCOME_INFRA },
	};
	struct bg_measure m;

	(void)state;
	memset(&m, 0, sizeof(m));
	assert_false(bg_measure_all_infra(&m));
	m.boots = boots;
	m.nboots = 3;
	assert_true(bg_measure_all_infra(&m));
	boots[2].outcome = BG_OUTCOME_HANG;
	assert_false(bg_measure_all_infra(&m));
	boots[2].outcome = BG_OUTCOME_COMPLETE;
	assert_false(bg_measure_all_infra(&m));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_all_infra),
	};

	return cmocka_run_group_tests_name("pipeline", tests, NULL, NULL);
}
