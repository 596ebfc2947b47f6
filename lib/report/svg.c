/* The site's drawings (svg.h). */
#include <math.h>

#include "report/html.h"
#include "report/svg.h"
#include "util/xmalloc.h"

double bg_svg_map(const struct bg_svg_axis *a, double v)
{
	if (a->hi == a->lo)
		return a->from;
	return a->from + (v - a->lo) * (a->to - a->from) / (a->hi - a->lo);
}

double bg_svg_step(double span, int max_ticks)
{
	static const double mult[] = { 1, 2, 5 };
	double p;

	if (!(span > 0) || !isfinite(span) || max_ticks < 1)
		return 1;
	p = pow(10, floor(log10(span / max_ticks)));
	for (;;) {
		for (size_t i = 0; i < ARRAY_SIZE(mult); i++)
			if (span / (mult[i] * p) <= max_ticks)
				return mult[i] * p;
		p *= 10;
	}
}

static int by_end(const void *a, const void *b, void *data)
{
	const struct bg_svg_bar *bars = data;
	const struct bg_svg_bar *x = &bars[*(const size_t *)a], *y = &bars[*(const size_t *)b];

	/* equal ends: the longer bar last, so that it is the one taken */
	if (x->end_us != y->end_us)
		return x->end_us < y->end_us ? -1 : 1;
	return (x->start_us < y->start_us) - (x->start_us > y->start_us);
}

size_t bg_svg_critical_path(struct bg_svg_lane *lane)
{
	size_t *order, j, marked = 0;
	int64_t t = lane->init_us;

	if (!lane->n)
		return 0;
	order = xmalloc(lane->n * sizeof(*order));
	for (size_t i = 0; i < lane->n; i++) {
		order[i] = i;
		lane->bars[i].critical = false;
		if (lane->init_us < 0 && lane->bars[i].end_us > t)
			t = lane->bars[i].end_us;
	}
	qsort_r(order, lane->n, sizeof(*order), by_end, lane->bars);
	for (j = lane->n; j > 0;) {
		struct bg_svg_bar *b = &lane->bars[order[--j]];

		if (b->end_us > t || b->start_us >= t)
			continue;
		b->critical = true;
		marked++;
		t = b->start_us;
	}
	free(order);
	return marked;
}

static void num(struct bg_strbuf *sb, const char *attr, double v)
{
	bg_strbuf_addf(sb, " %s=\"%.1f\"", attr, v);
}

struct bg_svg_axis bg_svg_timeline_axis(const struct bg_svg_lane *lanes, size_t nlanes)
{
	struct bg_svg_axis x = { 0, 1, BG_SVG_LEFT, BG_SVG_WIDTH - BG_SVG_RIGHT };

	for (size_t l = 0; l < nlanes; l++) {
		if ((double)lanes[l].init_us > x.hi)
			x.hi = (double)lanes[l].init_us;
		for (size_t i = 0; i < lanes[l].n; i++)
			if ((double)lanes[l].bars[i].end_us > x.hi)
				x.hi = (double)lanes[l].bars[i].end_us;
	}
	return x;
}

/* Ticks in ms along the x axis at y, with grid lines up to top. */
static void time_axis(struct bg_strbuf *sb, const struct bg_svg_axis *x, double top, double y)
{
	double step = bg_svg_step(x->hi - x->lo, 10);

	bg_strbuf_addf(sb, "<g class=\"axis\"><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
		       "y2=\"%.1f\"/>", x->from, y, x->to, y);
	for (long k = 0; (double)k * step <= x->hi + step / 1e6; k++) {
		double t = (double)k * step, px = bg_svg_map(x, t);

		bg_strbuf_addf(sb, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
			       "y2=\"%.1f\"/><text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">"
			       "%g</text>", px, top, px, y + 4, px, y + 16, t / 1000);
	}
	bg_strbuf_addf(sb, "<text class=\"title\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">"
		       "time since the kernel started (ms)</text></g>",
		       (x->from + x->to) / 2, y + 32);
}

#define LANE_TOP 20
#define LANE_H 90
#define BAR_H 36

static void lane(struct bg_strbuf *sb, const struct bg_svg_lane *ln, const struct bg_svg_axis *x,
		 double y)
{
	struct bg_strbuf crit = BG_STRBUF_INIT;

	bg_strbuf_addstr(sb, "<g class=\"lane\"><text class=\"lane-label\" x=\"4\"");
	num(sb, "y", y + BAR_H / 2.0 + 4);
	bg_strbuf_addch(sb, '>');
	bg_html_txt(sb, ln->label);
	bg_strbuf_addstr(sb, "</text>");
	for (size_t i = 0; i < ln->n; i++) {
		const struct bg_svg_bar *b = &ln->bars[i];
		double x0 = bg_svg_map(x, (double)b->start_us), x1 = bg_svg_map(x, (double)b->end_us);

		bg_strbuf_addf(sb, "<rect class=\"ic%s%s\"", b->regressed ? " regressed" : "",
			       b->critical ? " crit" : "");
		num(sb, "x", x0);
		num(sb, "y", y);
		bg_strbuf_addf(sb, " width=\"%.2f\"", x1 - x0 < 0.5 ? 0.5 : x1 - x0);
		bg_strbuf_addf(sb, " height=\"%d\"><title>", BAR_H);
		bg_html_txt(sb, b->name);
		bg_strbuf_addf(sb, ": %.3f to %.3f ms (%" PRId64 " us)%s</title></rect>",
			       (double)b->start_us / 1000, (double)b->end_us / 1000, b->end_us - b->start_us,
			       b->critical ? ", on the path to init" : "");
		if (b->critical)
			bg_strbuf_addf(&crit, "M%.1f %.1fH%.1f", x0, y + BAR_H + 6, x1 < x0 + 0.5 ?
				       x0 + 0.5 : x1);
	}
	if (crit.len)
		bg_strbuf_addf(sb, "<path class=\"critpath\" d=\"%s\"><title>the critical path "
			       "to init</title></path>", crit.buf);
	for (size_t i = 0, k = 0; i < ln->n; i++) {
		if (!ln->bars[i].regressed)
			continue;
		/* staggered, so that neighbours' names do not print over each other */
		bg_strbuf_addstr(sb, "<text class=\"regressed-label\"");
		num(sb, "x", bg_svg_map(x, (double)ln->bars[i].start_us));
		num(sb, "y", y - 3 - 10 * (double)(k++ % 2));
		bg_strbuf_addch(sb, '>');
		bg_html_txt(sb, ln->bars[i].name);
		bg_strbuf_addstr(sb, "</text>");
	}
	if (ln->init_us >= 0) {
		double px = bg_svg_map(x, (double)ln->init_us);

		bg_strbuf_addf(sb, "<line class=\"init\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
			       "y2=\"%.1f\"/><text class=\"init-label\" x=\"%.1f\" y=\"%.1f\" "
			       "text-anchor=\"end\">Run /init %.1f ms</text>", px, y - 12, px,
			       y + BAR_H + 10, px - 3, y - 3, (double)ln->init_us / 1000);
	}
	bg_strbuf_addstr(sb, "</g>");
	bg_strbuf_release(&crit);
}

void bg_svg_timeline(struct bg_strbuf *sb, const struct bg_svg_lane *lanes, size_t nlanes)
{
	struct bg_svg_axis x = bg_svg_timeline_axis(lanes, nlanes);
	double h = LANE_TOP + nlanes * LANE_H + 40;

	bg_strbuf_addf(sb, "<svg class=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\" "
		       "viewBox=\"0 0 %d %.0f\" width=\"%d\" height=\"%.0f\" role=\"img\">"
		       "<title>boot timeline: initcalls on the time axis</title>", BG_SVG_WIDTH, h,
		       BG_SVG_WIDTH, h);
	time_axis(sb, &x, LANE_TOP - 10, LANE_TOP + nlanes * LANE_H);
	for (size_t l = 0; l < nlanes; l++)
		lane(sb, &lanes[l], &x, LANE_TOP + 14 + l * LANE_H);
	bg_strbuf_addstr(sb, "</svg>");
}

#define TREND_H 220
#define TREND_TOP 28
#define TREND_BOTTOM 40

void bg_svg_trend(struct bg_strbuf *sb, const char *title, const struct bg_svg_point *p,
		  size_t n)
{
	struct bg_svg_axis x = { 0, n > 1 ? (double)(n - 1) : 0, 80, BG_SVG_WIDTH - BG_SVG_RIGHT };
	struct bg_svg_axis y = { INFINITY, -INFINITY, TREND_H - TREND_BOTTOM, TREND_TOP };
	struct bg_strbuf line = BG_STRBUF_INIT;
	size_t label_every = n > 10 ? (n + 9) / 10 : 1;
	double step, pad;

	if (n == 1)
		x.from = x.to = (x.from + x.to) / 2;
	for (size_t i = 0; i < n; i++)
		if (!isnan(p[i].v)) {
			y.lo = fmin(y.lo, p[i].v);
			y.hi = fmax(y.hi, p[i].v);
		}
	if (y.lo > y.hi)
		y.lo = y.hi = 0;
	/* a flat series still gets a scale: 1% or 1 µs either side */
	pad = y.hi > y.lo ? (y.hi - y.lo) / 10 : fmax(fabs(y.hi) / 100, 1);
	y.lo = fmax(0, y.lo - pad);
	y.hi += pad;
	step = bg_svg_step(y.hi - y.lo, 5);
	bg_strbuf_addf(sb, "<svg class=\"trend\" xmlns=\"http://www.w3.org/2000/svg\" "
		       "viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\"><title>",
		       BG_SVG_WIDTH, TREND_H, BG_SVG_WIDTH, TREND_H);
	bg_html_txt(sb, title);
	bg_strbuf_addstr(sb, " across commits</title><text class=\"title\" x=\"80\" y=\"16\">");
	bg_html_txt(sb, title);
	bg_strbuf_addstr(sb, " (ms; median per commit, oldest first)</text><g class=\"axis\">");
	for (long k = (long)ceil(y.lo / step); (double)k * step <= y.hi; k++) {
		double t = (double)k * step, py = bg_svg_map(&y, t);

		bg_strbuf_addf(sb, "<line class=\"grid\" x1=\"80\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>"
			       "<text x=\"74\" y=\"%.1f\" text-anchor=\"end\">%g</text>", py,
			       BG_SVG_WIDTH - BG_SVG_RIGHT, py, py + 4, t / 1000);
	}
	for (size_t i = 0; i < n; i += label_every) {
		bg_strbuf_addstr(sb, "<text class=\"commit\"");
		num(sb, "x", bg_svg_map(&x, (double)i));
		num(sb, "y", TREND_H - TREND_BOTTOM + 16);
		bg_strbuf_addstr(sb, " text-anchor=\"middle\">");
		bg_html_txt_prefix(sb, p[i].label, 7);
		bg_strbuf_addstr(sb, "</text>");
	}
	bg_strbuf_addstr(sb, "</g>");
	for (size_t i = 0; i < n; i++)
		if (!isnan(p[i].v))
			bg_strbuf_addf(&line, "%s%.1f,%.1f", line.len ? " " : "",
				       bg_svg_map(&x, (double)i), bg_svg_map(&y, p[i].v));
	if (line.len)
		bg_strbuf_addf(sb, "<polyline class=\"line\" points=\"%s\"/>", line.buf);
	for (size_t i = 0; i < n; i++) {
		if (isnan(p[i].v))
			continue;
		bg_strbuf_addstr(sb, "<circle class=\"pt\"");
		num(sb, "cx", bg_svg_map(&x, (double)i));
		num(sb, "cy", bg_svg_map(&y, p[i].v));
		bg_strbuf_addstr(sb, " r=\"3\"><title>");
		bg_html_txt_prefix(sb, p[i].label, 12);
		bg_strbuf_addf(sb, ": %.3f ms</title></circle>", p[i].v / 1000);
	}
	bg_strbuf_addstr(sb, "</svg>");
	bg_strbuf_release(&line);
}
