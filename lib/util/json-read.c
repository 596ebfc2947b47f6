/* The one file that includes jansson.h (json-read.h). */
#include <jansson.h>
#include <math.h>

#include "util/json-read.h"
#include "util/error.h"
#include "util/xmalloc.h"

struct bg_json_doc {
	json_t *root;
};

/* a value is jansson's own, seen through our opaque name */
#define J(v) ((const json_t *)(const void *)(v))
#define V(j) ((const struct bg_json_value *)(const void *)(j))

struct bg_json_doc *bg_json_doc_parse(const char *name, const char *text)
{
	json_error_t err;
	json_t *root = json_loads(text, 0, &err);
	struct bg_json_doc *d;

	if (!root) {
		bg_error("%s:%d:%d: %s", name, err.line, err.column, err.text);
		return NULL;
	}
	d = xmalloc(sizeof(*d));
	d->root = root;
	return d;
}

void bg_json_doc_free(struct bg_json_doc *d)
{
	if (!d)
		return;
	json_decref(d->root);
	free(d);
}

const struct bg_json_value *bg_json_doc_root(const struct bg_json_doc *d)
{
	return d ? V(d->root) : NULL;
}

const struct bg_json_value *bg_json_get(const struct bg_json_value *v, const char *key)
{
	return json_is_object(J(v)) ? V(json_object_get(J(v), key)) : NULL;
}

size_t bg_json_len(const struct bg_json_value *v)
{
	return json_is_array(J(v)) ? json_array_size(J(v)) : 0;
}

const struct bg_json_value *bg_json_at(const struct bg_json_value *v, size_t i)
{
	return json_is_array(J(v)) ? V(json_array_get(J(v), i)) : NULL;
}

const char *bg_json_text(const struct bg_json_value *v)
{
	return json_is_string(J(v)) ? json_string_value(J(v)) : NULL;
}

double bg_json_num(const struct bg_json_value *v)
{
	return json_is_number(J(v)) ? json_number_value(J(v)) : NAN;
}

int bg_json_truth(const struct bg_json_value *v)
{
	return json_is_true(J(v)) ? 1 : json_is_false(J(v)) ? 0 : -1;
}

bool bg_json_is_object(const struct bg_json_value *v)
{
	return json_is_object(J(v));
}

bool bg_json_is_null(const struct bg_json_value *v)
{
	return !v || json_is_null(J(v));
}

char *bg_json_text_dup(const struct bg_json_value *v)
{
	const char *s = bg_json_text(v);

	return s ? xstrdup(s) : NULL;
}
