/* Boots into sample sets (samples.h). */
#include "lab/samples.h"
#include "parse/metrics.h"
#include "util/error.h"
#include "util/xmalloc.h"

struct add_ctx {
	struct bg_sample_set *set;
	char *why;                /* the first refused value's reason */
};

static void add_metric(const struct bg_metric *m, void *data)
{
	struct add_ctx *c = data;

	if (bg_sample_set_boot_add(c->set, m->name, (double)m->usecs) < 0 && !c->why)
		c->why = xstrdup(bg_error_last());
}

int bg_sample_set_add_boot(struct bg_sample_set *set, const struct bg_boot *b)
{
	struct add_ctx c = { set, NULL };
	int ret;

	if (b->outcome != BG_OUTCOME_COMPLETE) {
		bg_sample_set_exclude(set);
		return 0;
	}
	bg_sample_set_boot_begin(set);
	bg_boot_metrics(b, add_metric, &c);
	ret = bg_sample_set_boot_end(set);
	if (ret < 0)
		bg_error("boot left out: %s", c.why ? c.why : bg_error_last());
	free(c.why);
	return ret;
}
