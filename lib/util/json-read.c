/* The one file that includes jansson.h. */
#include <jansson.h>
#include <math.h>

#include "util/json-read.h"
#include "util/error.h"
#include "util/xmalloc.h"

struct bg_json_doc {
	json_t *root;
};

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

static json_t *walk(const struct bg_json_doc *d, const char *path)
{
	char *copy = xstrdup(path), *p = copy, *dot;
	json_t *v = d->root;

	while (v && *p) {
		if ((dot = strchr(p, '.')))
			*dot = '\0';
		if (json_is_array(v)) {
			char *end;
			unsigned long i = strtoul(p, &end, 10);

			v = *end ? NULL : json_array_get(v, i);
		} else {
			v = json_object_get(v, p);
		}
		if (!dot)
			break;
		p = dot + 1;
	}
	free(copy);
	return v;
}

const char *bg_json_doc_str(const struct bg_json_doc *d, const char *path)
{
	json_t *v = walk(d, path);

	return json_is_string(v) ? json_string_value(v) : NULL;
}

double bg_json_doc_num(const struct bg_json_doc *d, const char *path)
{
	json_t *v = walk(d, path);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

size_t bg_json_doc_len(const struct bg_json_doc *d, const char *path)
{
	json_t *v = walk(d, path);

	return json_is_array(v) ? json_array_size(v) : 0;
}

int bg_json_doc_bool(const struct bg_json_doc *d, const char *path)
{
	json_t *v = walk(d, path);

	return json_is_true(v) ? 1 : json_is_false(v) ? 0 : -1;
}

bool bg_json_doc_is_object(const struct bg_json_doc *d, const char *path)
{
	return json_is_object(walk(d, path));
}

bool bg_json_doc_has(const struct bg_json_doc *d, const char *path)
{
	return walk(d, path) != NULL;
}
