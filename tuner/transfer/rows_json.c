/* rows_json.c - result rows as JSON (see rows.h): written by hand, a row per line; read
 * with libyaml's event parser, a row at a time, so a file of any size reads in little
 * memory and every error names its line and column. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "json_out.h"
#include "rows.h"
#include "rows_value.h"

static const char format_name[] = "mmtune-results";
/* 2 added partial, session_outcome and paired_*, 3 cpu_wait; an older file reads as one of
 * 3 without them (see xfer_row.h), and an older mmtune refuses a newer file by its number */
enum { FORMAT_VERSION = 3 };

void mmt_rows_json_begin(FILE *f)
{
    fprintf(f, "{\"format\": \"%s\", \"version\": %d, \"rows\": [", format_name, FORMAT_VERSION);
}

void mmt_rows_json_end(FILE *f)
{
    fputs("\n]}\n", f);
}

void mmt_rows_json_put(FILE *f, const mmt_xfer_value *row, long index)
{
    fputs(index ? ",\n{" : "\n{", f);
    const char *sep = "";
    for (int c = 0; c < MMT_XFER_NCOLS; c++) {
        if (row[c].null) continue;
        fprintf(f, "%s\"%s\": ", sep, mmt_xfer_cols[c].name);
        mmt_rows_put_value(f, c, &row[c], mmt_json_string);
        sep = ", ";
    }
    fputc('}', f);
}

/* The reader: libyaml's events, one at a time. */
typedef struct json_reader {
    yaml_parser_t parser;
    yaml_event_t event;
    int has_event;
    const char *file;
    mmt_err *err;
} json_reader;

__attribute__((format(printf, 3, 4))) static mmt_status fail(json_reader *r, const yaml_mark_t *at, const char *fmt,
                                                             ...)
{
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return mmt_err_set(r->err, MMT_PARSE, "%s:%zu:%zu: %s", r->file, at->line + 1, at->column + 1, what);
}

static mmt_status next(json_reader *r)
{
    if (r->has_event) yaml_event_delete(&r->event);
    r->has_event = 0;
    if (!yaml_parser_parse(&r->parser, &r->event))
        return fail(r, &r->parser.problem_mark, "%s%s%s", r->parser.problem ? r->parser.problem : "not JSON",
                    r->parser.context ? " " : "", r->parser.context ? r->parser.context : "");
    r->has_event = 1;
    if (r->event.type == YAML_ALIAS_EVENT) return fail(r, &r->event.start_mark, "an alias is not JSON");
    return MMT_OK;
}

static mmt_status expect(json_reader *r, yaml_event_type_t type, const char *what)
{
    FORWARD_IF_ERROR(next(r));
    return r->event.type == type ? MMT_OK : fail(r, &r->event.start_mark, "%s expected here", what);
}

static const char *scalar(const json_reader *r)
{
    return (const char *)r->event.data.scalar.value;
}

static int is_null(const json_reader *r)
{
    return r->event.data.scalar.style == YAML_PLAIN_SCALAR_STYLE && strcmp(scalar(r), "null") == 0;
}

/* One row: an object of columns, values numbers, strings or null; then fn. */
static mmt_status read_row(json_reader *r, mmt_rows_fn fn, void *user)
{
    const long line = (long)r->event.start_mark.line + 1;
    mmt_xfer_value row[MMT_XFER_NCOLS];
    char *text[MMT_XFER_NCOLS] = {0}; /* the strings the row holds */
    int seen[MMT_XFER_NCOLS] = {0};
    for (int c = 0; c < MMT_XFER_NCOLS; c++) row[c] = (mmt_xfer_value){.null = 1};
    mmt_status s;
    while ((s = next(r)) == MMT_OK && r->event.type != YAML_MAPPING_END_EVENT) {
        if (r->event.type != YAML_SCALAR_EVENT) {
            s = fail(r, &r->event.start_mark, "a column name expected here");
            break;
        }
        int col = mmt_xfer_col_find(scalar(r));
        if (col < 0 || seen[col]) {
            s = fail(r, &r->event.start_mark, col < 0 ? "unknown column '%.100s'" : "column '%s' twice in a row",
                     scalar(r));
            break;
        }
        seen[col] = 1;
        if ((s = next(r)) != MMT_OK) break;
        const int plain = r->event.type == YAML_SCALAR_EVENT && r->event.data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
        const char *why = r->event.type != YAML_SCALAR_EVENT ? "a number, a string or null"
                          : is_null(r)                        ? NULL
                          : mmt_xfer_cols[col].type == MMT_XFER_TEXT ? (plain ? "a string" : NULL)
                          : !plain                                   ? "a number"
                                   : mmt_xfer_value_parse(col, scalar(r), &row[col]);
        if (why) {
            s = fail(r, &r->event.start_mark, "%s: %s", mmt_xfer_cols[col].name, why);
            break;
        }
        if (is_null(r) || mmt_xfer_cols[col].type != MMT_XFER_TEXT) continue;
        if (!(text[col] = strdup(scalar(r)))) {
            s = mmt_err_set(r->err, MMT_OUT_OF_MEMORY, "out of memory");
            break;
        }
        row[col] = (mmt_xfer_value){.text = text[col]};
    }
    if (s == MMT_OK && (s = fn(user, line, row, r->err)) != MMT_OK) mmt_rows_error_at(r->err, r->file, line);
    for (int c = 0; c < MMT_XFER_NCOLS; c++) free(text[c]);
    return s;
}

/* The document: {"format": ..., "version": ..., "rows": [...]}, in any order of keys. */
static mmt_status read_document(json_reader *r, mmt_rows_fn fn, void *user)
{
    FORWARD_IF_ERROR(expect(r, YAML_STREAM_START_EVENT, "a JSON text"));
    FORWARD_IF_ERROR(expect(r, YAML_DOCUMENT_START_EVENT, "a JSON object"));
    FORWARD_IF_ERROR(expect(r, YAML_MAPPING_START_EVENT, "a JSON object"));
    int format = 0, version = 0;
    for (;;) {
        FORWARD_IF_ERROR(next(r));
        if (r->event.type == YAML_MAPPING_END_EVENT) break;
        if (r->event.type != YAML_SCALAR_EVENT) return fail(r, &r->event.start_mark, "a key expected here");
        const yaml_mark_t key = r->event.start_mark;
        if (strcmp(scalar(r), "format") == 0) {
            FORWARD_IF_ERROR(expect(r, YAML_SCALAR_EVENT, "\"mmtune-results\""));
            if (strcmp(scalar(r), format_name) != 0)
                return fail(r, &r->event.start_mark, "format \"%.100s\" is not \"%s\"", scalar(r), format_name);
            format = 1;
        } else if (strcmp(scalar(r), "version") == 0) {
            FORWARD_IF_ERROR(expect(r, YAML_SCALAR_EVENT, "a version number"));
            char *end;
            const long v = strtol(scalar(r), &end, 10);
            if (*end || end == scalar(r) || v < 1 || v > FORMAT_VERSION)
                return fail(r, &r->event.start_mark,
                            "version %.20s: this mmtune reads versions 1 to %d (a newer mmtune wrote it?)", scalar(r),
                            FORMAT_VERSION);
            version = 1;
        } else if (strcmp(scalar(r), "rows") == 0) {
            FORWARD_IF_ERROR(expect(r, YAML_SEQUENCE_START_EVENT, "a list of rows"));
            for (;;) {
                FORWARD_IF_ERROR(next(r));
                if (r->event.type == YAML_SEQUENCE_END_EVENT) break;
                if (r->event.type != YAML_MAPPING_START_EVENT)
                    return fail(r, &r->event.start_mark, "a row (an object) expected here");
                FORWARD_IF_ERROR(read_row(r, fn, user));
            }
        } else {
            return fail(r, &key, "unknown key '%.100s' (format, version, rows)", scalar(r));
        }
    }
    yaml_mark_t end = r->event.end_mark;
    if (!format || !version)
        return fail(r, &end, "not an mmtune results file: no \"format\": \"%s\", \"version\": %d", format_name,
                    FORMAT_VERSION);
    /* one object per file: YAML would read a second document, or complain in its words */
    if (next(r) != MMT_OK || r->event.type != YAML_DOCUMENT_END_EVENT || next(r) != MMT_OK ||
        r->event.type != YAML_STREAM_END_EVENT)
        return fail(r, r->has_event ? &r->event.start_mark : &r->parser.problem_mark,
                    "more after the end of the JSON object");
    return MMT_OK;
}

mmt_status mmt_rows_json_read(const char *text, size_t size, const char *file, mmt_rows_fn fn, void *user,
                              mmt_err *err)
{
    json_reader r = {.file = file, .err = err};
    if (!yaml_parser_initialize(&r.parser)) return mmt_err_set(err, MMT_OUT_OF_MEMORY, "out of memory");
    yaml_parser_set_input_string(&r.parser, (const unsigned char *)text, size);
    mmt_status s = read_document(&r, fn, user);
    if (r.has_event) yaml_event_delete(&r.event);
    yaml_parser_delete(&r.parser);
    return s;
}
