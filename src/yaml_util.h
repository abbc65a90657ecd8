/* yaml_util.h - the few libyaml helpers the YAML readers share (space.c, shapes.c):
 * reading a file, loading one document with a clear "file:line:column: message" on a
 * syntax error, and reading scalars as text, integers and booleans. Lines and columns in
 * messages are 1-based (libyaml's marks are 0-based). */
#ifndef MMT_YAML_UTIL_H
#define MMT_YAML_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <yaml.h>

#include "err.h"

typedef struct mmt_yaml_doc {
    const char *file; /* for messages; not owned */
    yaml_document_t doc;
    int loaded;
} mmt_yaml_doc;

/* The largest YAML file read: a shapes file or a space is kilobytes. */
#define MMT_YAML_MAX_BYTES (64 << 20)

/* The deepest nesting of [ ] and { } a YAML text may have (mmt_yaml_load). */
#define MMT_YAML_MAX_DEPTH 64

/* Reads a whole file into a malloc'd NUL-terminated buffer. A missing file is
 * MMT_NOT_FOUND, one larger than MMT_YAML_MAX_BYTES (or endless, as /dev/zero)
 * MMT_INVALID_ARGUMENT, any other failure MMT_IO; the message names the path. */
mmt_status mmt_yaml_read_file(const char *path, char **text, size_t *size, mmt_err *err);

/* Parses the first document of text. Syntax errors are MMT_PARSE "file:line:col: problem",
 * with a hint where an unquoted expression is the likely cause. An empty text is an error.
 * On success free d with mmt_yaml_free (also safe after a failure). */
mmt_status mmt_yaml_load(mmt_yaml_doc *d, const char *file, const char *text, size_t size, mmt_err *err);
void mmt_yaml_free(mmt_yaml_doc *d);

/* The root node, or a node by index (NULL if out of range). */
yaml_node_t *mmt_yaml_root(mmt_yaml_doc *d);
yaml_node_t *mmt_yaml_node(mmt_yaml_doc *d, int index);

/* 1-based position of a node's start. */
int mmt_yaml_line(const yaml_node_t *n);
int mmt_yaml_col(const yaml_node_t *n);

/* Sets err to MMT_PARSE "file:line:col: message" at node n; returns MMT_PARSE. */
mmt_status mmt_yaml_error(mmt_err *err, const char *file, const yaml_node_t *n, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
mmt_status mmt_yaml_error_at(mmt_err *err, const char *file, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* "a mapping", "a list", "a scalar". */
const char *mmt_yaml_kind(const yaml_node_t *n);

/* The text of a scalar node: an error (naming what, e.g. "key 'template'") if n is not
 * a scalar or carries an explicit tag such as !VEC (an unquoted expression starting with '!'). */
mmt_status mmt_yaml_scalar(const char *file, const yaml_node_t *n, const char *what, const char **text,
                           mmt_err *err);

/* Parses a whole decimal (or 0x hex) integer with optional sign; 0 on success, -1 if not. */
int mmt_yaml_parse_int(const char *s, int64_t *v);
/* true/false (also True/TRUE/False/FALSE); 0 on success, -1 if not. */
int mmt_yaml_parse_bool(const char *s, int *v);

/* Iteration over mapping pairs and sequence items. */
#define MMT_YAML_PAIRS(n) ((n)->data.mapping.pairs.start)
#define MMT_YAML_NPAIRS(n) ((int)((n)->data.mapping.pairs.top - (n)->data.mapping.pairs.start))
#define MMT_YAML_NITEMS(n) ((int)((n)->data.sequence.items.top - (n)->data.sequence.items.start))
#define MMT_YAML_ITEM(d, n, i) mmt_yaml_node((d), (n)->data.sequence.items.start[(i)])

#endif
