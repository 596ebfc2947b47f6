/*
 * A comparison (decide/verdict.h) for people and for programs: an aligned table, and the
 * JSON object "bootgate compare --json" prints and "measure" nests.
 */
#ifndef BG_COMPARISON_H
#define BG_COMPARISON_H

#include "util/compat.h"
#include "util/json.h"
#include "util/strbuf.h"
#include "decide/verdict.h"

/* {"boots": {...}, "verdicts": [...], "attribution": [...]} */
void bg_comparison_write_json(struct bg_json *j, const struct bg_comparison *c,
			      const struct bg_sample_set *base, const struct bg_sample_set *cand);
/* The members of that object, into the object the caller has begun. */
void bg_comparison_write_boots(struct bg_json *j, unsigned base, unsigned base_excluded,
			       unsigned cand, unsigned cand_excluded);
void bg_comparison_write_members(struct bg_json *j, const struct bg_comparison *c);
/* One metric's verdict: {"metric", "unit", "verdict", "base_median", ...} */
void bg_comparison_write_verdict(struct bg_json *j, const struct bg_verdict *v);
/* The table: verdicts other than same (all with all), at most top rows, and what explains
 * a shift of boot.init. */
void bg_comparison_print(FILE *f, const struct bg_comparison *c, const struct bg_sample_set *base,
			 const struct bg_sample_set *cand, size_t top, bool all);
/*
 * What a revert of the culprit did, as the CLI, the mail and the site say it, in words
 * and figures computed once (bg_revert_judge): "reverting it on the bad tip restores X µs
 * of Y (S%): different", that it was not measured, or that it does not apply. applies:
 * -1 not tried (nothing is added), 0 did not apply, 1 applied; revert: its metric's
 * verdict, NULL when it was not measured. No capital, no final stop.
 */
void bg_revert_text(struct bg_strbuf *t, int applies, const struct bg_verdict *revert,
		    double regression_us);
/*
 * A change in percent of its base, "+5.6%", in buf (returned); of a base of 0 (a metric
 * new in the candidate, an initcall that took no time) no percentage is one: "from 0".
 * The mail and bootgate show print it alike.
 */
const char *bg_pct_text(char *buf, size_t n, double pct);

#endif
