/* Unit tests of the YAML event reader. */
#include "unit.h"
#include "util/error.h"
#include "parse/yaml-event.h"

struct mem {
	const char *s;
	size_t len, off, chunk;
};

static ssize_t mem_read(void *data, char *buf, size_t size)
{
	struct mem *m = data;
	size_t n = m->len - m->off;

	if (n > size)
		n = size;
	if (n > m->chunk)
		n = m->chunk;
	memcpy(buf, m->s + m->off, n);
	m->off += n;
	return (ssize_t)n;
}

static void test_events(void **state)
{
	const char *doc = "- {a: \"x\\ey\", b: ! \"12\"}\n- [1, 2]\n";
	struct mem m = { doc, strlen(doc), 0, 3 };   /* tiny reads: the reader must cope */
	struct bg_yaml_reader *r = bg_yaml_reader_new(mem_read, &m);
	struct bg_yaml_event ev;
	static const enum bg_yaml_type want[] = {
		BG_YAML_SEQ_BEGIN, BG_YAML_MAP_BEGIN, BG_YAML_SCALAR, BG_YAML_SCALAR,
		BG_YAML_SCALAR, BG_YAML_SCALAR, BG_YAML_MAP_END, BG_YAML_SEQ_BEGIN,
		BG_YAML_SCALAR, BG_YAML_SCALAR, BG_YAML_SEQ_END, BG_YAML_SEQ_END, BG_YAML_END,
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		assert_int_equal(bg_yaml_next(r, &ev), 0);
		assert_int_equal(ev.type, want[i]);
		if (i == 3) {
			assert_int_equal(ev.len, 3);
			assert_memory_equal(ev.value, "x\x1by", 3);
		}
		if (i == 5)
			assert_string_equal(ev.value, "12");
		if (i == 7)
			assert_int_equal(ev.line, 2);
	}
	bg_yaml_reader_free(r);
}

static void test_error_position(void **state)
{
	const char *doc = "- {a: 1}\n- {b: \"unterminated\n";
	struct mem m = { doc, strlen(doc), 0, 4096 };
	struct bg_yaml_reader *r = bg_yaml_reader_new(mem_read, &m);
	struct bg_yaml_event ev;
	int ret;

	(void)state;
	while ((ret = bg_yaml_next(r, &ev)) == 0 && ev.type != BG_YAML_END)
		;
	assert_int_equal(ret, -1);
	assert_string_equal(bg_error_last(), "3:1: found unexpected end of stream while scanning "
			    "a quoted scalar");
	bg_yaml_reader_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_events),
		cmocka_unit_test(test_error_position),
	};

	return cmocka_run_group_tests_name("yaml", tests, NULL, NULL);
}
