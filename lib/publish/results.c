/* The results of the store as the JSON documents of --json and the site (results.h). */
#include <math.h>

#include "publish/results.h"
#include "report/results-json.h"
#include "store/results.h"
#include "util/error.h"
#include "util/xmalloc.h"

int bg_bisection_result_write(struct bg_store *s, int64_t id, struct bg_json *j)
{
	struct bg_stored_bisection b;
	struct bg_stored_comparison c[3];
	struct bg_bisection_steps st = { NULL, 0, 0 };
	struct bg_bisection_figures f = { NULL, NULL, NULL, NULL, 0 };
	char **range = NULL;
	size_t nrange = 0;
	int ret = -1, found;

	bg_stored_bisection_init(&b);
	for (int i = 0; i < 3; i++)
		bg_stored_comparison_init(&c[i]);
	found = bg_store_bisection_get(s, id, &b);
	if (found <= 0) {
		if (!found)
			bg_error("no bisection %" PRId64 " in the store", id);
		goto out;
	}
	if (bg_store_bisection_steps(s, &b, &st) < 0 ||
	    bg_store_bisection_comparisons(s, &b, c) < 0 ||
	    bg_store_bisection_range(s, &b, &range, &nrange) < 0)
		goto out;
	f.step = c[0].id ? &c[0] : NULL;
	f.timing = c[1].id ? &c[1] : NULL;
	f.revert = c[2].id ? &c[2] : NULL;
	f.range = (const char *const *)range;
	f.nrange = nrange;
	bg_stored_bisection_write_json(j, &b, &st, &f);
	ret = 0;
out:
	for (size_t i = 0; i < nrange; i++)
		free(range[i]);
	free(range);
	bg_bisection_steps_release(&st);
	for (int i = 0; i < 3; i++)
		bg_stored_comparison_release(&c[i]);
	bg_stored_bisection_release(&b);
	return ret;
}

int bg_series_result_write(struct bg_store *s, int64_t id, struct bg_json *j)
{
	struct bg_stored_series se;
	struct bg_stored_patches ps = { NULL, 0, 0 };
	struct bg_stored_comparison *cmp = NULL, whole;
	int ret = -1, found;

	bg_stored_series_init(&se);
	bg_stored_comparison_init(&whole);
	found = bg_store_series_get(s, id, &se);
	if (found <= 0) {
		if (!found)
			bg_error("no series %" PRId64 " in the store", id);
		goto out;
	}
	if (bg_store_series_patches(s, id, false, &ps) < 0)
		goto out;
	cmp = xcalloc(ps.n ? ps.n : 1, sizeof(*cmp));
	for (size_t i = 0; i < ps.n; i++) {
		bg_stored_comparison_init(&cmp[i]);
		if (ps.v[i].comparison_id &&
		    bg_store_comparison_get(s, ps.v[i].comparison_id, &cmp[i]) < 0)
			goto out;
	}
	if (se.whole_comparison_id && bg_store_comparison_get(s, se.whole_comparison_id,
							       &whole) < 0)
		goto out;
	bg_stored_series_write_json(j, &se, &ps, cmp, whole.id ? &whole : NULL);
	ret = 0;
out:
	for (size_t i = 0; cmp && i < ps.n; i++)
		bg_stored_comparison_release(&cmp[i]);
	free(cmp);
	bg_stored_comparison_release(&whole);
	bg_stored_patches_release(&ps);
	bg_stored_series_release(&se);
	return ret;
}
