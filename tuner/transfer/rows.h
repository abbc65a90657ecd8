/* rows.h - result rows (src/store_transfer.h) in files, for mmtune export and import.
 *
 * CSV: a header line naming the columns, then a row per record (RFC 4180 quoting, by
 * libcsv when read); an empty unquoted field is null, "" an empty text. JSON:
 * {"format": "mmtune-results", "version": 2, "rows": [{"column": value, ...}, ...]}, a row
 * per line, columns without a value left out (read with libyaml: JSON is YAML's flow
 * style, and its marks give every value's line and column).
 *
 * Readers check every value against its column (a column a file leaves out is null) and
 * call back with each row and the line it starts on; the first error stops them and says
 * "file:line: what". */
#ifndef MMT_ROWS_H
#define MMT_ROWS_H

#include <stdio.h>

#include "store_transfer.h"

typedef enum mmt_rows_format { MMT_ROWS_CSV, MMT_ROWS_JSON } mmt_rows_format;

/* Writing: begin, a put per row (index: 0, 1, ...), end; ferror(f) says whether a write failed. */
void mmt_rows_begin(FILE *f, mmt_rows_format fmt);
void mmt_rows_put(FILE *f, mmt_rows_format fmt, const mmt_xfer_value *row, long index);
void mmt_rows_end(FILE *f, mmt_rows_format fmt);

/* Called with each row read; an error it returns stops the reader, which puts file:line
 * before its message. */
typedef mmt_status (*mmt_rows_fn)(void *user, long line, const mmt_xfer_value *row, mmt_err *err);

/* Reads the text of a file of either format: JSON where the first character that is not
 * blank is '{', else CSV. Malformed text is MMT_PARSE. */
mmt_status mmt_rows_read(const char *text, size_t size, const char *file, mmt_rows_fn fn, void *user,
                         mmt_err *err);

void mmt_rows_csv_begin(FILE *f);
void mmt_rows_csv_put(FILE *f, const mmt_xfer_value *row);
mmt_status mmt_rows_csv_read(const char *text, size_t size, const char *file, mmt_rows_fn fn, void *user,
                             mmt_err *err);

void mmt_rows_json_begin(FILE *f);
void mmt_rows_json_put(FILE *f, const mmt_xfer_value *row, long index);
void mmt_rows_json_end(FILE *f);
mmt_status mmt_rows_json_read(const char *text, size_t size, const char *file, mmt_rows_fn fn, void *user,
                              mmt_err *err);

#endif
