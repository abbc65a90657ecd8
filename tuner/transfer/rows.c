/* rows.c - result rows in files: the format of a file, to its writer and reader (see
 * rows.h). */
#include "rows.h"

#include <string.h>

void mmt_rows_begin(FILE *f, mmt_rows_format fmt)
{
    if (fmt == MMT_ROWS_JSON) mmt_rows_json_begin(f);
    else mmt_rows_csv_begin(f);
}

void mmt_rows_put(FILE *f, mmt_rows_format fmt, const mmt_xfer_value *row, long index)
{
    if (fmt == MMT_ROWS_JSON) mmt_rows_json_put(f, row, index);
    else mmt_rows_csv_put(f, row);
}

void mmt_rows_end(FILE *f, mmt_rows_format fmt)
{
    if (fmt == MMT_ROWS_JSON) mmt_rows_json_end(f);
}

mmt_status mmt_rows_read(const char *text, size_t size, const char *file, mmt_rows_fn fn, void *user, mmt_err *err)
{
    size_t i = 0;
    while (i < size && strchr(" \t\r\n", text[i])) i++;
    if (i < size && text[i] == '{') return mmt_rows_json_read(text, size, file, fn, user, err);
    return mmt_rows_csv_read(text, size, file, fn, user, err);
}
