/* rows_value.c - what the CSV and JSON rows share (see rows_value.h). */
#include "rows_value.h"

#include <stdlib.h>

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
