/*
 * SVG drawn by bootgate for the results site, readable without JavaScript: a boot
 * timeline of two boots (initcalls as bars on one time axis, the regressed ones marked,
 * the critical path to "Run /init" drawn under them) and a trend chart of one metric
 * across a tree's commits. Every name goes through the HTML escaping (report/html.h).
 */
#ifndef BG_SVG_H
#define BG_SVG_H

#include "util/compat.h"
#include "util/strbuf.h"

/* Values lo..hi onto pixels from..to (to may be less than from: a y axis). */
struct bg_svg_axis {
	double lo, hi;
	double from, to;
};
/* The pixel of v; lo when the axis is empty (hi == lo). */
double bg_svg_map(const struct bg_svg_axis *a, double v);
/* A round step (1, 2 or 5 times a power of ten) giving at most max_ticks over span. */
double bg_svg_step(double span, int max_ticks);

struct bg_svg_bar {
	const char *name;
	int64_t start_us, end_us;     /* both >= 0: bars without times are not given */
	bool regressed;               /* marked, and named over the bar */
	bool critical;                /* on the path to init (bg_svg_critical_path) */
};

struct bg_svg_lane {
	const char *label;            /* "base 1a2b3c4d5e6f" */
	struct bg_svg_bar *bars;
	size_t n;
	int64_t init_us;              /* "Run /init", or -1 */
};

/*
 * Marks the chain of initcalls that ends last before init: from init backwards, each
 * time the bar that ended last before the point reached (and started before it), then
 * from its start. Between them the kernel was not in an initcall, so nothing ran in
 * parallel with the chain that init waited for. Returns how many bars it marked.
 */
size_t bg_svg_critical_path(struct bg_svg_lane *lane);

/* Geometry, for the tests: the drawing area of the timeline on the x axis. */
#define BG_SVG_WIDTH 1100
#define BG_SVG_LEFT 150
#define BG_SVG_RIGHT 30
/* The timeline's x axis for lanes: 0 to the latest end or init, onto the drawing area. */
struct bg_svg_axis bg_svg_timeline_axis(const struct bg_svg_lane *lanes, size_t nlanes);
/* <svg class="timeline">: one lane per boot, bars as <rect class="ic">, an axis in ms. */
void bg_svg_timeline(struct bg_strbuf *sb, const struct bg_svg_lane *lanes, size_t nlanes);

struct bg_svg_point {
	const char *label;            /* the commit */
	double v;                     /* µs; NAN: no value at this commit */
};
/* <svg class="trend">: the points in order as <circle class="pt">, a line, axes in ms. */
void bg_svg_trend(struct bg_strbuf *sb, const char *title, const struct bg_svg_point *p,
		  size_t n);

#endif
