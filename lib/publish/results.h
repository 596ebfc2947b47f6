/*
 * A stored bisection or series as the JSON object of --json and of the site: read from
 * the store's typed rows (store/results.h), written by report/results-json.h.
 */
#ifndef BG_PUBLISH_RESULTS_H
#define BG_PUBLISH_RESULTS_H

#include "util/compat.h"
#include "util/json.h"
#include "store/store.h"

/* 0, or -1 with why (no such bisection, the store). */
int bg_bisection_result_write(struct bg_store *s, int64_t id, struct bg_json *j);
/* 0, or -1 with why (no such series); a series that runs still has no verdicts yet. */
int bg_series_result_write(struct bg_store *s, int64_t id, struct bg_json *j);

#endif
