/* The JSON form of a parsed boot: the contract "bootgate parse --json" and later stages share. */
#ifndef BG_BOOTLOG_JSON_H
#define BG_BOOTLOG_JSON_H

#include "parse/bootlog.h"
#include "util/json.h"

/* Writes one boot as an object; file names the log it came from. */
void bg_boot_write_json(struct bg_json *j, const struct bg_boot *b, const char *file);

#endif
