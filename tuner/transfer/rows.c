/* rows.c - result rows in files: the format of a file, and what CSV and JSON share (see
 * rows.h). */
#include "rows.h"

#include <stdlib.h>
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

/* Times are doubles measured to many digits: the shortest text that reads back as the same
 * double keeps them exact (an import compares them with the database's) and readable. */
void mmt_rows_real(double v, char *buf, size_t size)
{
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(buf, size, "%.*g", digits, v);
        if (strtod(buf, NULL) == v) return;
    }
}

void mmt_rows_put_value(FILE *f, int col, const mmt_xfer_value *v, void (*put_text)(FILE *f, const char *text))
{
    char num[32];
    switch (mmt_xfer_cols[col].type) {
    case MMT_XFER_INT: fprintf(f, "%lld", (long long)v->i); break;
    case MMT_XFER_REAL:
        mmt_rows_real(v->r, num, sizeof num);
        fputs(num, f);
        break;
    case MMT_XFER_TEXT: put_text(f, v->text); break;
    }
}

mmt_status mmt_rows_error_at(mmt_err *err, const char *file, long line)
{
    char msg[sizeof err->msg];
    snprintf(msg, sizeof msg, "%.500s:%ld: %.3500s", file, line, err->msg);
    return mmt_err_set(err, err->status, "%s", msg);
}
