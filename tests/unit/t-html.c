/* Unit tests of the site's HTML escaping and SVG drawing (report/html.c, report/svg.c). */
#include <math.h>

#include "unit.h"
#include "report/html.h"
#include "report/svg.h"

static void test_txt(void **state)
{
	struct bg_strbuf sb = BG_STRBUF_INIT;

	(void)state;
	bg_html_txt(&sb, "<script>document.title='pwned'</script> & \"q\"");
	assert_string_equal(sb.buf, "&lt;script&gt;document.title=&#39;pwned&#39;&lt;/script&gt; "
			    "&amp; &quot;q&quot;");
	bg_strbuf_reset(&sb);
	/* newline and tab stay in text; CR and other controls, DEL, C1 become U+FFFD */
	bg_html_txt(&sb, "a\r\nBcc: x\t\x01\x7f\xc2\x85z");
	assert_string_equal(sb.buf, "a\xef\xbf\xbd\nBcc: x\t\xef\xbf\xbd\xef\xbf\xbd"
			    "\xef\xbf\xbd\xef\xbf\xbdz");
	bg_strbuf_reset(&sb);
	/* valid UTF-8 passes; each invalid byte is one U+FFFD; an already escaped & is not
	   trusted */
	bg_html_txt(&sb, "\xc3\xa8ve \xff\xfe \xe2\x86\x92 \xed\xa0\x80 &amp;");
	assert_string_equal(sb.buf, "\xc3\xa8ve \xef\xbf\xbd\xef\xbf\xbd \xe2\x86\x92 "
			    "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd &amp;amp;");
	bg_strbuf_reset(&sb);
	/* a bidirectional control stays (its block ends it), in an attribute too */
	bg_html_txt(&sb, "a\xe2\x80\xae<b>\xe2\x81\xa9");
	assert_string_equal(sb.buf, "a\xe2\x80\xae&lt;b&gt;\xe2\x81\xa9");
	bg_strbuf_reset(&sb);
	bg_html_attr(&sb, "\xe2\x80\xae\"\xc2\x9b");
	assert_string_equal(sb.buf, "\xe2\x80\xae&quot;\xef\xbf\xbd\xef\xbf\xbd");
	bg_strbuf_reset(&sb);
	bg_html_txt(&sb, NULL);
	assert_string_equal(sb.buf, "");
	bg_strbuf_release(&sb);
}

static void test_attr(void **state)
{
	struct bg_strbuf sb = BG_STRBUF_INIT;

	(void)state;
	bg_html_attr(&sb, "x\" onload=\"alert(1)\n\t'\r>");
	assert_string_equal(sb.buf, "x&quot; onload=&quot;alert(1)&#10;&#9;&#39;\xef\xbf\xbd&gt;");
	bg_strbuf_reset(&sb);
	bg_html_link(&sb, "../tree/a\"b.html", "<a>");
	assert_string_equal(sb.buf, "<a href=\"../tree/a&quot;b.html\">&lt;a&gt;</a>");
	bg_strbuf_reset(&sb);
	bg_html_txtf(&sb, "%s=%d", "<b>", 5);
	assert_string_equal(sb.buf, "&lt;b&gt;=5");
	bg_strbuf_release(&sb);
}

static void test_prefix_and_huge(void **state)
{
	struct bg_strbuf sb = BG_STRBUF_INIT;
	size_t n = 65536;
	char *big = xmalloc(n + 1);

	(void)state;
	/* "sha12" never cuts a UTF-8 sequence: 11 ASCII bytes, then a whole é */
	bg_html_txt_prefix(&sb, "abcdefghijk\xc3\xa9xyz", 12);
	assert_string_equal(sb.buf, "abcdefghijk\xc3\xa9");
	bg_strbuf_reset(&sb);
	bg_html_txt_prefix(&sb, "<ab", 12);
	assert_string_equal(sb.buf, "&lt;ab");
	bg_strbuf_reset(&sb);
	/* a C1 control is not cut in two either; a byte that is not UTF-8 is one byte */
	bg_html_txt_prefix(&sb, "abcdefghijk\xc2\x9bxyz", 12);
	assert_string_equal(sb.buf, "abcdefghijk\xef\xbf\xbd\xef\xbf\xbd");
	bg_strbuf_reset(&sb);
	bg_html_txt_prefix(&sb, "abcdefghijk\xff\xffxyz", 12);
	assert_string_equal(sb.buf, "abcdefghijk\xef\xbf\xbd");
	bg_strbuf_reset(&sb);
	/* a 64 KiB name is escaped whole, each byte once */
	memset(big, '<', n);
	big[n] = '\0';
	bg_html_txt(&sb, big);
	assert_int_equal(sb.len, 4 * n);
	assert_memory_equal(sb.buf + sb.len - 8, "&lt;&lt;", 8);
	bg_strbuf_reset(&sb);
	memset(big, '\xff', n);
	bg_html_attr(&sb, big);
	assert_int_equal(sb.len, 3 * n);
	free(big);
	bg_strbuf_release(&sb);
}

static void test_axis(void **state)
{
	struct bg_svg_axis x = { 0, 1000, 150, 1070 };
	struct bg_svg_axis y = { 100, 200, 180, 28 };
	struct bg_svg_axis flat = { 5, 5, 10, 20 };

	(void)state;
	assert_float_equal(bg_svg_map(&x, 0), 150, 1e-9);
	assert_float_equal(bg_svg_map(&x, 500), 610, 1e-9);
	assert_float_equal(bg_svg_map(&x, 1000), 1070, 1e-9);
	/* a y axis grows upwards */
	assert_float_equal(bg_svg_map(&y, 150), 104, 1e-9);
	assert_float_equal(bg_svg_map(&flat, 7), 10, 1e-9);
	assert_float_equal(bg_svg_step(1115802, 10), 200000, 1e-6);
	assert_float_equal(bg_svg_step(100, 5), 20, 1e-9);
	assert_float_equal(bg_svg_step(7, 10), 1, 1e-9);
	assert_float_equal(bg_svg_step(0, 10), 1, 1e-9);
	assert_float_equal(bg_svg_step(NAN, 10), 1, 1e-9);
}

/* Counts occurrences of needle in s. */
static size_t count(const char *s, const char *needle)
{
	size_t n = 0;

	for (const char *p = s; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

static void test_critical_path(void **state)
{
	/* a and b in sequence, c in parallel with b but ending earlier, d after init */
	struct bg_svg_bar bars[] = {
		{ "a", 0, 100, false, false },
		{ "b", 100, 300, false, false },
		{ "c", 150, 250, false, false },
		{ "d", 400, 500, false, false },
		{ "e", 300, 300, false, false },
	};
	struct bg_svg_lane lane = { "base", bars, ARRAY_SIZE(bars), 350 };

	(void)state;
	assert_int_equal(bg_svg_critical_path(&lane), 2);
	assert_true(bars[0].critical);
	assert_true(bars[1].critical);
	assert_false(bars[2].critical);
	assert_false(bars[3].critical);
	/* of two bars that end together, the longer is the chain */
	assert_false(bars[4].critical);
	/* without init, the chain ends at the last bar */
	lane.init_us = -1;
	assert_int_equal(bg_svg_critical_path(&lane), 3);
	assert_true(bars[3].critical);
	assert_false(bars[2].critical);
}

static void test_timeline(void **state)
{
	struct bg_svg_bar base[] = { { "a_init", 0, 500000, false, false },
				     { "b<init>", 500000, 1000000, true, false } };
	struct bg_svg_bar cand[] = { { "a_init", 0, 250000, false, false } };
	struct bg_svg_lane lanes[] = { { "base x", base, 2, 1000000 },
				       { "cand y", cand, 1, -1 } };
	struct bg_strbuf sb = BG_STRBUF_INIT;
	struct bg_svg_axis x = bg_svg_timeline_axis(lanes, 2);

	(void)state;
	assert_float_equal(x.hi, 1000000, 1e-9);
	assert_float_equal(x.from, BG_SVG_LEFT, 1e-9);
	assert_float_equal(x.to, BG_SVG_WIDTH - BG_SVG_RIGHT, 1e-9);
	bg_svg_critical_path(&lanes[0]);
	bg_svg_timeline(&sb, lanes, 2);
	assert_int_equal(count(sb.buf, "<rect class=\"ic"), 3);
	assert_int_equal(count(sb.buf, "<rect class=\"ic regressed crit\""), 1);
	/* 0..1 s onto 150..1070: b starts at 610 and is 460 wide */
	assert_non_null(strstr(sb.buf, "<rect class=\"ic regressed crit\" x=\"610.0\" y=\"34.0\" "
			       "width=\"460.00\" height=\"36\"><title>b&lt;init&gt;: 500.000 to "
			       "1000.000 ms (500000 us), on the path to init</title></rect>"));
	assert_non_null(strstr(sb.buf, "<path class=\"critpath\" d=\"M150.0 76.0H610.0M610.0 "
			       "76.0H1070.0\">"));
	assert_non_null(strstr(sb.buf, ">Run /init 1000.0 ms</text>"));
	assert_int_equal(count(sb.buf, "Run /init"), 1);
	assert_non_null(strstr(sb.buf, "<text class=\"regressed-label\" x=\"610.0\" y=\"31.0\">"
			       "b&lt;init&gt;</text>"));
	assert_null(strstr(sb.buf, "<init>"));
	/* ticks every 100 ms, 0 to 1000 */
	assert_non_null(strstr(sb.buf, ">1000</text>"));
	assert_int_equal(count(sb.buf, "<line class=\"grid\""), 11);
	bg_strbuf_release(&sb);
}

static void test_trend(void **state)
{
	struct bg_svg_point p[] = { { "aaaaaaaaaaaa1", 1000 }, { "bbbbbbbbbbbb2", NAN },
				    { "cccccccccccc3", 2000 } };
	struct bg_strbuf sb = BG_STRBUF_INIT;

	(void)state;
	bg_svg_trend(&sb, "boot.init", p, 3);
	assert_int_equal(count(sb.buf, "<circle class=\"pt\""), 2);
	/* x: 0..2 onto 80..1070; y: 1000..2000 padded by 100 onto 180..28 */
	assert_non_null(strstr(sb.buf, "<polyline class=\"line\" points=\"80.0,167.3 "
			       "1070.0,40.7\"/>"));
	assert_non_null(strstr(sb.buf, "<title>cccccccccccc: 2.000 ms</title>"));
	assert_non_null(strstr(sb.buf, ">bbbbbbb</text>"));
	bg_strbuf_reset(&sb);
	/* one point, or none, still draws */
	bg_svg_trend(&sb, "<x>", p, 1);
	assert_int_equal(count(sb.buf, "<circle class=\"pt\" cx=\"575.0\""), 1);
	assert_non_null(strstr(sb.buf, "&lt;x&gt; across commits"));
	bg_strbuf_reset(&sb);
	bg_svg_trend(&sb, "none", NULL, 0);
	assert_int_equal(count(sb.buf, "<circle"), 0);
	assert_non_null(strstr(sb.buf, "</svg>"));
	bg_strbuf_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_txt),
		cmocka_unit_test(test_attr),
		cmocka_unit_test(test_prefix_and_huge),
		cmocka_unit_test(test_axis),
		cmocka_unit_test(test_critical_path),
		cmocka_unit_test(test_timeline),
		cmocka_unit_test(test_trend),
	};

	return cmocka_run_group_tests_name("html", tests, NULL, NULL);
}
