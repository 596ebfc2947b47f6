/* Parsed boots into sample sets: where parsing (parse/) meets deciding (decide/). */
#ifndef BG_SAMPLES_H
#define BG_SAMPLES_H

#include "util/compat.h"
#include "parse/bootlog.h"
#include "decide/verdict.h"

/*
 * Adds a boot's metrics (parse/metrics.h); a boot that never reached init is only
 * counted as excluded. -1 (bg_error_last says why) when one of its values was refused:
 * the boot is then left out whole and counted as excluded.
 */
int bg_sample_set_add_boot(struct bg_sample_set *set, const struct bg_boot *b);

#endif
