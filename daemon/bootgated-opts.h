/* bootgated's command line: its options and its help, held against each other by a test. */
#ifndef BG_BOOTGATED_OPTS_H
#define BG_BOOTGATED_OPTS_H

#include <getopt.h>
#include <stdio.h>

extern const struct option bootgated_opts[];
extern const char bootgated_shortopts[];
/* The help, which bootgated --help prints and bootgated.8 is rendered from. */
void bootgated_usage(FILE *f);

#endif
