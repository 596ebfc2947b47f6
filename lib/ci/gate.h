/*
 * The gate: a tree's new tip measured against its last good commit, the verdict kept,
 * and a regression handed to a bisection job. The builds and boots are kept first, then
 * the verdict, the tree's last good commit and the job in one transaction: a kill in
 * between leaves boots that the next gate of the tip reuses, never half a verdict.
 */
#ifndef BG_GATE_H
#define BG_GATE_H

#include "util/compat.h"
#include "util/log.h"
#include "decide/verdict.h"
#include "lab/workers.h"
#include "store/store.h"

struct bg_gate_opts {
	const char *tree;          /* the repository */
	const char *tree_name;     /* its row in the store (made when missing) */
	const char *rev;           /* the tip */
	const char *board, *lab;
	const struct bg_build_config *config;   /* NULL: the board's */
	bool deterministic;
	enum bg_console console;   /* zero: verbose */
	unsigned boots;            /* per commit; 0: 2 deterministic, 5 timing */
	const struct bg_compare_config *compare;
	char **metrics;            /* patterns the gate looks at; none: every metric */
	size_t nmetrics;
	bg_progress_fn progress;
	void *progress_data;
};

enum bg_gate_verdict {
	BG_GATE_BASELINE,          /* the tree's first commit: it becomes the last good */
	BG_GATE_PASS,              /* same: the tip is the new last good */
	BG_GATE_REGRESSION,        /* a bisection job was queued */
	BG_GATE_UNKNOWN,           /* undecided: the last good stays */
	BG_GATE_UNBUILDABLE,       /* the tip does not build */
	BG_GATE_INFRA,             /* the lab failed every boot: no verdict, tried again */
};
const char *bg_gate_verdict_name(enum bg_gate_verdict v);

/* 0 with the verdict; -1 with why when the machine failed (worth a retry). */
int bg_gate_run(struct bg_store *s, const struct bg_gate_opts *o, enum bg_gate_verdict *v);

#endif
