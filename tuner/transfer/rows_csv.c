/* rows_csv.c - result rows as CSV (see rows.h): written by hand (quoting where a field
 * needs it), read with libcsv in strict mode. */
#include <csv.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "rows.h"
#include "rows_value.h"

void mmt_rows_csv_begin(FILE *f)
{
    for (int c = 0; c < MMT_XFER_NCOLS; c++) fprintf(f, "%s%s", c ? "," : "", mmt_xfer_cols[c].name);
    fputc('\n', f);
}

/* Quotes where a reader would otherwise see another field, a null or trimmed blanks. */
static int needs_quotes(const char *t)
{
    size_t n = strlen(t);
    return n == 0 || strpbrk(t, ",\"\r\n") || strchr(" \t", t[0]) || strchr(" \t", t[n - 1]);
}

static void put_text(FILE *f, const char *text)
{
    if (needs_quotes(text)) csv_fwrite(f, text, strlen(text));
    else fputs(text, f);
}

void mmt_rows_csv_put(FILE *f, const mmt_xfer_value *row)
{
    for (int c = 0; c < MMT_XFER_NCOLS; c++) {
        if (c) fputc(',', f);
        if (!row[c].null) mmt_rows_put_value(f, c, &row[c], put_text);
    }
    fputc('\n', f);
}

/* The reader's state between libcsv's callbacks. */
typedef struct csv_reader {
    const char *file;
    mmt_rows_fn fn;
    void *user;
    mmt_err *err;
    mmt_status status;
    long line, record_line; /* the line being read; the line the current record starts on */
    int in_record;
    int header;                       /* the header line is read */
    int ncols;                        /* its fields */
    int col_of[MMT_XFER_NCOLS];       /* the column of each field */
    int nfields;                      /* of the record being read */
    char *field[MMT_XFER_NCOLS];      /* its fields (NULL: null) */
} csv_reader;

__attribute__((format(printf, 2, 3))) static void fail(csv_reader *r, const char *fmt, ...)
{
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    r->status = mmt_err_set(r->err, MMT_PARSE, "%s:%ld: %s", r->file, r->record_line, what);
}

static void on_field(void *s, size_t len, void *data)
{
    csv_reader *r = data;
    if (r->status != MMT_OK) return;
    if (!r->header) {
        const char *name = s ? s : "";
        if (r->nfields == 0 && strncmp(name, "\xEF\xBB\xBF", 3) == 0) name += 3; /* a spreadsheet's BOM */
        int col = mmt_xfer_col_find(name);
        if (col < 0) return fail(r, "unknown column '%.100s' (mmtune export writes the columns it reads)", name);
        for (int i = 0; i < r->nfields; i++)
            if (r->col_of[i] == col) return fail(r, "column '%s' twice in the header", name);
        r->col_of[r->nfields++] = col;
        return;
    }
    if (r->nfields == r->ncols) return fail(r, "more fields than the header's %d", r->ncols);
    char *copy = NULL;
    if (s && !(copy = malloc(len + 1))) {
        r->status = mmt_err_set(r->err, MMT_OUT_OF_MEMORY, "out of memory");
        return;
    }
    if (copy) memcpy(copy, s, len), copy[len] = '\0';
    r->field[r->nfields++] = copy;
}

static void drop_fields(csv_reader *r)
{
    for (int i = 0; i < r->nfields; i++) free(r->field[i]);
    r->nfields = 0;
}

static void on_record(int c, void *data)
{
    (void)c;
    csv_reader *r = data;
    r->in_record = 0;
    if (r->status != MMT_OK) return;
    if (!r->header) {
        r->header = 1;
        r->ncols = r->nfields;
        r->nfields = 0;
        return;
    }
    if (r->nfields != r->ncols) {
        fail(r, "%d field%s, where the header has %d", r->nfields, r->nfields == 1 ? "" : "s", r->ncols);
        return drop_fields(r);
    }
    mmt_xfer_value row[MMT_XFER_NCOLS];
    for (int c = 0; c < MMT_XFER_NCOLS; c++) row[c] = (mmt_xfer_value){.null = 1};
    for (int i = 0; i < r->nfields && r->status == MMT_OK; i++) {
        int col = r->col_of[i];
        if (!r->field[i]) continue;
        const char *why = mmt_xfer_value_parse(col, r->field[i], &row[col]);
        if (why) fail(r, "%s: %s ('%.40s')", mmt_xfer_cols[col].name, why, r->field[i]);
    }
    if (r->status == MMT_OK && (r->status = r->fn(r->user, r->record_line, row, r->err)) != MMT_OK)
        mmt_rows_error_at(r->err, r->file, r->record_line);
    drop_fields(r);
}

mmt_status mmt_rows_csv_read(const char *text, size_t size, const char *file, mmt_rows_fn fn, void *user,
                             mmt_err *err)
{
    struct csv_parser p;
    if (csv_init(&p, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL | CSV_EMPTY_IS_NULL) != 0)
        return mmt_err_set(err, MMT_OUT_OF_MEMORY, "out of memory");
    csv_reader r = {.file = file, .fn = fn, .user = user, .err = err};
    /* line by line, to know where each record starts (a quoted field may hold newlines) */
    for (size_t at = 0; at < size && r.status == MMT_OK;) {
        const char *nl = memchr(text + at, '\n', size - at);
        size_t len = nl ? (size_t)(nl - (text + at)) + 1 : size - at;
        r.line++;
        if (!r.in_record && strspn(text + at, "\r\n") < len) r.record_line = r.line, r.in_record = 1;
        if (csv_parse(&p, text + at, len, on_field, on_record, &r) != len && r.status == MMT_OK)
            fail(&r, "%s", csv_strerror(csv_error(&p)));
        at += len;
    }
    if (r.status == MMT_OK && csv_fini(&p, on_field, on_record, &r) != 0 && r.status == MMT_OK)
        fail(&r, "a quoted field is not closed");
    if (r.status == MMT_OK && !r.header)
        r.status = mmt_err_set(err, MMT_PARSE, "%s: empty: no header line (mmtune export writes one)", file);
    drop_fields(&r);
    csv_free(&p);
    return r.status;
}
