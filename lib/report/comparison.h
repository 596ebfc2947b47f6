/*
 * A comparison (decide/verdict.h) for people and for programs: an aligned table, and the
 * JSON object "bootgate compare --json" prints and "measure" nests.
 */
#ifndef BG_COMPARISON_H
#define BG_COMPARISON_H

#include "util/compat.h"
#include "util/json.h"
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

#endif
