/*
 * Reading JSON documents (wraps jansson): the workers' results, a parsed boot, a LAVA
 * server's answers, a push's body. A document is walked value by value, each typed as
 * the reader expects it: no path strings, and a value of another type reads as absent.
 */
#ifndef BG_JSON_READ_H
#define BG_JSON_READ_H

#include "util/compat.h"

struct bg_json_doc;
/* A value inside a document: borrowed, valid as long as the document is. */
struct bg_json_value;

/* NULL with bg_error_last() = "name:line:col: what" when text is not JSON. text is
 * NUL-terminated; a NUL byte inside it ends the document. */
struct bg_json_doc *bg_json_doc_parse(const char *name, const char *text);
void bg_json_doc_free(struct bg_json_doc *d);
const struct bg_json_value *bg_json_doc_root(const struct bg_json_doc *d);

/* An object's member key; NULL when v is no object (or NULL) or has no such member. */
const struct bg_json_value *bg_json_get(const struct bg_json_value *v, const char *key);
/* An array's length (0 for what is no array) and its element i (NULL past its end). */
size_t bg_json_len(const struct bg_json_value *v);
const struct bg_json_value *bg_json_at(const struct bg_json_value *v, size_t i);
/* v as a string, a number, a boolean; NULL, NAN, -1 when it is of another type or NULL. */
const char *bg_json_text(const struct bg_json_value *v);
double bg_json_num(const struct bg_json_value *v);
int bg_json_truth(const struct bg_json_value *v);
bool bg_json_is_object(const struct bg_json_value *v);
/* Whether v is null, or absent (NULL). */
bool bg_json_is_null(const struct bg_json_value *v);
/* A copy of v as a string (owned by the caller), or NULL. */
char *bg_json_text_dup(const struct bg_json_value *v);

#endif
