/*
 * The stored results (store/results.h) as JSON: the objects of --json, of the site's
 * .json files and of the outbox, written from the typed structs, never from a stored
 * document. Pure: the caller reads the structs.
 */
#ifndef BG_RESULTS_JSON_H
#define BG_RESULTS_JSON_H

#include "util/compat.h"
#include "util/json.h"
#include "store/results.h"

/*
 * {"id", "role", "tree", "base", "cand", "board", "mode", "console", "verdict", "metric",
 * "delta", "created", "bisection", "boots": {...}, "boot_ids": {"base": [], "cand": []},
 * "verdicts": [...], "attribution": [...]}
 */
void bg_stored_comparison_write_json(struct bg_json *j, const struct bg_stored_comparison *c);

/*
 * What a bisection's report says of it, each figure from its comparisons: step (the
 * culprit against its parent), timing and revert (its confirmations); any may be NULL.
 * range: the commits it narrowed to, in order.
 */
struct bg_bisection_figures {
	const struct bg_stored_comparison *step, *timing, *revert;
	const char *const *range;
	size_t nrange;
};

/*
 * {"id", "tree", "state", "outcome", "culprit", "subject", "range", "confidence",
 * "metric", "mode", "console", "board", "good", "bad", "commits", "builds", "boots",
 * "exact", "wall_s", "error", "merge", "inner", "steps": [...], "step": {...}, "headline":
 * {...}, "confirmation": {..., "revert": {...}}}
 */
void bg_stored_bisection_write_json(struct bg_json *j, const struct bg_stored_bisection *b,
			     const struct bg_bisection_steps *st,
			     const struct bg_bisection_figures *f);

/*
 * {"series", "message_id", "subject", "author", "version", "total", "tree", "board",
 * "mode", "boots_per_commit", "state", "error", "base": {...}, "patches": [...], "whole"}
 * cmp[i]: the comparison patch p->v[i] names (or one with id 0); whole: the last patch
 * against the base, or NULL.
 */
void bg_stored_series_write_json(struct bg_json *j, const struct bg_stored_series *se,
			  const struct bg_stored_patches *ps,
			  const struct bg_stored_comparison *cmp,
			  const struct bg_stored_comparison *whole);

/* A patch's judgment: the metric it names, what moved (the first 8 different metrics). */
void bg_series_write_judged(struct bg_json *j, const char *verdict, const char *metric,
			    const struct bg_stored_comparison *c);

#endif
