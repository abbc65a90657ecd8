/* rows_value.h - what the two formats of result rows (rows.h) share: values written and
 * errors placed in a file. */
#ifndef MMT_ROWS_VALUE_H
#define MMT_ROWS_VALUE_H

#include <stdio.h>

#include "store_transfer.h"

void mmt_rows_real(double v, char *buf, size_t size); /* the shortest text that reads back as v */
/* A value that is not null: numbers as the shortest text, text through put_text. */
void mmt_rows_put_value(FILE *f, int col, const mmt_xfer_value *v, void (*put_text)(FILE *f, const char *text));
mmt_status mmt_rows_error_at(mmt_err *err, const char *file, long line); /* "file:line: " before err's message */

#endif
