/* Reading JSON documents, such as the workers' results (wraps jansson). */
#ifndef BG_JSON_READ_H
#define BG_JSON_READ_H

#include "util/compat.h"

struct bg_json_doc;

/* NULL with bg_error_last() = "name:line:col: what" when text is not JSON. text is
 * NUL-terminated; a NUL byte inside it ends the document. */
struct bg_json_doc *bg_json_doc_parse(const char *name, const char *text);
void bg_json_doc_free(struct bg_json_doc *d);
/*
 * Values by path: keys and array indexes joined by dots ("boots.2.log"). NULL, NAN or 0
 * when the path is missing or of another type.
 */
const char *bg_json_doc_str(const struct bg_json_doc *d, const char *path);
double bg_json_doc_num(const struct bg_json_doc *d, const char *path);
size_t bg_json_doc_len(const struct bg_json_doc *d, const char *path);
/* 1 for true, 0 for false, -1 when missing, null or of another type. */
int bg_json_doc_bool(const struct bg_json_doc *d, const char *path);
/* Whether the path names an object (a missing one is not). */
bool bg_json_doc_is_object(const struct bg_json_doc *d, const char *path);
/* Whether the path names any value, null included (a missing field, not a mistyped one). */
bool bg_json_doc_has(const struct bg_json_doc *d, const char *path);

#endif
