/* test_rows.c - result rows in CSV and JSON files (tuner/rows*.c): every value comes back
 * exactly (text with commas, quotes, newlines, blanks, controls and non-ASCII; empty text
 * apart from null; doubles to the last bit), a record is reported at the line it starts
 * on, files written before partial, session_outcome and paired_* existed read with those
 * columns null, and malformed files are refused with their line: unknown or repeated
 * columns, a field too many, a bad number, an unclosed quote, a JSON value of the wrong
 * type, another format or version. */
#include <stdlib.h>

#include "check.h"
#include "fsutil.h"
#include "rows.h"

enum { MAX_ROWS = 32 };

/* What the readers hand over, copied. */
typedef struct seen {
    int n;
    long line[MAX_ROWS];
    int null[MAX_ROWS][MMT_XFER_NCOLS];
    char *text[MAX_ROWS][MMT_XFER_NCOLS];
    int64_t i[MAX_ROWS][MMT_XFER_NCOLS];
    double r[MAX_ROWS][MMT_XFER_NCOLS];
} seen;

static mmt_status keep(void *user, long line, const mmt_xfer_value *row, mmt_err *err)
{
    seen *s = user;
    if (s->n == MAX_ROWS) return mmt_err_set(err, MMT_INVALID_ARGUMENT, "too many rows");
    s->line[s->n] = line;
    for (int c = 0; c < MMT_XFER_NCOLS; c++) {
        s->null[s->n][c] = row[c].null;
        s->text[s->n][c] = row[c].text ? strdup(row[c].text) : NULL;
        s->i[s->n][c] = row[c].i;
        s->r[s->n][c] = row[c].r;
    }
    s->n++;
    return row[0].text && strcmp(row[0].text, "refuse") == 0 ? mmt_err_set(err, MMT_INVALID_ARGUMENT, "refused")
                                                              : MMT_OK;
}

static void forget(seen *s)
{
    for (int r = 0; r < s->n; r++)
        for (int c = 0; c < MMT_XFER_NCOLS; c++) free(s->text[r][c]);
    memset(s, 0, sizeof *s);
}

static const char *const texts[] = {
    "plain", "a, comma", "a \"quote\"", "two\nlines\r\nand CRLF", " leading and trailing ", "", "tab\there",
    "caf\xc3\xa9 \xe2\x80\x98quoted\xe2\x80\x99 \xf0\x9f\x98\x80", "bell\a del\x7f c1\xc2\x85 fffe\xef\xbf\xbe",
};
static const double reals[] = {0.1, 1e-300, 123456789.123456789, 2.0 / 3.0, 5e-324, 1.7976931348623157e308};

/* Rows that exercise every kind of value, one per text. */
static int make_rows(mmt_xfer_value rows[][MMT_XFER_NCOLS])
{
    const int n = (int)(sizeof texts / sizeof *texts);
    for (int r = 0; r < n; r++)
        for (int c = 0; c < MMT_XFER_NCOLS; c++) {
            mmt_xfer_value *v = &rows[r][c];
            *v = (mmt_xfer_value){.null = (r + c) % 5 == 0};
            if (c == 0) *v = (mmt_xfer_value){.text = "trial"};
            else if (mmt_xfer_cols[c].type == MMT_XFER_TEXT) v->text = texts[(r + c) % n];
            else if (mmt_xfer_cols[c].type == MMT_XFER_INT) v->i = (int64_t)r * 1000003 - c;
            else v->r = reals[(r + c) % (sizeof reals / sizeof *reals)] * (c % 2 ? -1 : 1);
        }
    return n;
}

static void round_trip(mmt_rows_format fmt)
{
    mmt_xfer_value rows[16][MMT_XFER_NCOLS];
    int n = make_rows(rows);
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    mmt_rows_begin(f, fmt);
    for (int r = 0; r < n; r++) mmt_rows_put(f, fmt, rows[r], r);
    mmt_rows_end(f, fmt);
    fclose(f);
    seen s = {0};
    mmt_err err;
    CHECK_OK(mmt_rows_read(text, size, "rows", keep, &s, &err), &err);
    CHECK_EQ_INT(s.n, n);
    for (int r = 0; r < s.n && r < n; r++)
        for (int c = 0; c < MMT_XFER_NCOLS; c++) {
            const mmt_xfer_value *v = &rows[r][c];
            CHECK_EQ_INT(s.null[r][c], v->null);
            if (v->null) continue;
            if (mmt_xfer_cols[c].type == MMT_XFER_TEXT) CHECK_EQ_STR(s.text[r][c], v->text);
            else if (mmt_xfer_cols[c].type == MMT_XFER_INT) CHECK_EQ_INT(s.i[r][c], v->i);
            else CHECK(s.r[r][c] == v->r);
        }
    /* CSV: the header is line 1, and a record starts after the previous one's newlines */
    long want = fmt == MMT_ROWS_CSV ? 2 : 2;
    for (int r = 0; r < s.n; r++) {
        CHECK_EQ_INT(s.line[r], want);
        if (fmt == MMT_ROWS_JSON) {
            want++;
            continue;
        }
        want++;
        for (int c = 0; c < MMT_XFER_NCOLS; c++)
            if (!rows[r][c].null && rows[r][c].text && c && mmt_xfer_cols[c].type == MMT_XFER_TEXT)
                for (const char *p = rows[r][c].text; *p; p++) want += *p == '\n';
    }
    forget(&s);
    free(text);
}

/* JSON: a byte that is not UTF-8 becomes U+FFFD, the rest of the text stays. */
static void test_json_bad_utf8(void)
{
    mmt_xfer_value rows[16][MMT_XFER_NCOLS];
    make_rows(rows);
    rows[0][mmt_xfer_col_find("message")] = (mmt_xfer_value){.text = "a\xff" "b\xc3"};
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    mmt_rows_begin(f, MMT_ROWS_JSON);
    mmt_rows_put(f, MMT_ROWS_JSON, rows[0], 0);
    mmt_rows_end(f, MMT_ROWS_JSON);
    fclose(f);
    seen s = {0};
    mmt_err err;
    CHECK_OK(mmt_rows_read(text, size, "rows", keep, &s, &err), &err);
    CHECK_EQ_STR(s.text[0][mmt_xfer_col_find("message")], "a\xef\xbf\xbd" "b\xef\xbf\xbd");
    forget(&s);
    free(text);
}

/* text is refused with a message that contains want. */
static void refused(const char *text, const char *want)
{
    seen s = {0};
    mmt_err err;
    mmt_status st = mmt_rows_read(text, strlen(text), "f", keep, &s, &err);
    CHECK(st != MMT_OK);
    if (st != MMT_OK && !strstr(err.msg, want)) {
        fprintf(stderr, "  refused %s\n  with %s, wanted %s\n", text, err.msg, want);
        CHECK(0);
    }
    forget(&s);
}

static void test_refused(void)
{
    refused("", "f: empty: no header line");
    refused("kind,sizes\ntrial,1\n", "f:1: unknown column 'sizes'");
    refused("kind,m,m\n", "f:1: column 'm' twice in the header");
    refused("kind,m\ntrial,1,2\n", "f:2: more fields than the header's 2");
    refused("kind,m\ntrial\n", "f:2: 1 field, where the header has 2");
    refused("kind,m\n\ntrial,\"1\n\n", "f:3: a quoted field is not closed");
    refused("kind,m\ntrial,1\ntrial,x1\n", "f:3: m: not a whole number ('x1')");
    refused("kind,gflops\ntrial,\"1\"x\n", "f:2: ");
    refused("kind,m\n\"a\nb\",1\nrefuse,2\n", "f:4: refused");
    refused("{\"format\": \"mmtune-results\", \"version\": 1, \"rows\": [\n{\"kind\": \"trial\", \"m\": \"1\"}]}",
            "f:2:24: m: a number");
    refused("{\"format\": \"mmtune-results\", \"version\": 1, \"rows\": [\n{\"kind\": trial}]}", "f:2:10: kind: a string");
    refused("{\"format\": \"mmtune-results\", \"version\": 1, \"rows\": [\n\n  {\"kind\": \"refuse\"}]}", "f:3: refused");
    refused("{\"format\": \"mmtune-results\", \"version\": 1, \"rows\": [{\"kind\": \"trial\", \"kind\": \"x\"}]}",
            "column 'kind' twice in a row");
    refused("{\"format\": \"mmtune-results\", \"version\": 1, \"rows\": [{\"size\": 1}]}", "unknown column 'size'");
    refused("{\"format\": \"mmtune-results\", \"version\": 1, \"rows\": [{\"m\": [1]}]}", "m: a number, a string or null");
    refused("{\"format\": \"other\", \"version\": 1, \"rows\": []}", "f:1:12: format \"other\"");
    refused("{\"format\": \"mmtune-results\", \"version\": 4, \"rows\": []}",
            "version 4: this mmtune reads versions 1 to 3");
    refused("{\"version\": 1, \"rows\": []}", "not an mmtune results file");
    refused("{\"format\": \"mmtune-results\", \"version\": 1, \"rows\": [], \"more\": 1}", "unknown key 'more'");
    refused("{\"format\": \"mmtune-results\",\n \"version\": 1, \"rows\": [}", "f:2:");
    refused("{\"format\": \"mmtune-results\", \"version\": 1, \"rows\": []}\n{}", "f:2:1: more after the end of the JSON object");
    /* null, a header only, a BOM from a spreadsheet: fine */
    seen s = {0};
    mmt_err err;
    const char json[] = "{\"rows\": [{\"kind\": \"trial\", \"m\": null}], \"version\": 1, \"format\": \"mmtune-results\"}";
    CHECK_OK(mmt_rows_read(json, strlen(json), "f", keep, &s, &err), &err);
    CHECK(s.n == 1 && s.null[0][mmt_xfer_col_find("m")]);
    forget(&s);
    const char bom[] = "\xEF\xBB\xBFkind,m\r\ntrial,7\r\n";
    CHECK_OK(mmt_rows_read(bom, strlen(bom), "f", keep, &s, &err), &err);
    CHECK(s.n == 1 && s.i[0][mmt_xfer_col_find("m")] == 7 && s.line[0] == 2);
    forget(&s);
}

/* Reads a file of tests/data into s. */
static void read_data(const char *name, seen *s)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", MMT_TEST_DATA, name);
    char *text = NULL;
    size_t size = 0;
    mmt_err err;
    CHECK_OK(mmt_file_read(path, (void **)&text, &size, &err), &err);
    if (text) CHECK_OK(mmt_rows_read(text, size, name, keep, s, &err), &err);
    free(text);
}

/* Files mmtune wrote before partial, session_outcome and paired_* existed (a tune of
 * shapes_tiny.yaml exported as CSV and as JSON version 1) read as they were: the same rows
 * in both, their sessions whole, the new columns null. */
static void test_old_files(void)
{
    static const char *const added[] = {"partial", "session_outcome", "paired_template", "paired_template_hash",
                                        "paired_params", "paired_created", "paired_time_ms_median"};
    seen csv = {0}, json = {0};
    read_data("export_v1.csv", &csv);
    read_data("export_v1.json", &json);
    CHECK_EQ_INT(csv.n, 16);
    CHECK_EQ_INT(json.n, csv.n);
    const int kind = mmt_xfer_col_find("kind"), ended = mmt_xfer_col_find("session_ended");
    for (int r = 0; r < csv.n && r < json.n; r++) {
        for (size_t a = 0; a < sizeof added / sizeof *added; a++) {
            int c = mmt_xfer_col_find(added[a]);
            CHECK(c >= 0 && csv.null[r][c] && json.null[r][c]);
        }
        for (int c = 0; c < MMT_XFER_NCOLS; c++) {
            CHECK_EQ_INT(csv.null[r][c], json.null[r][c]);
            if (csv.text[r][c] && json.text[r][c]) CHECK_EQ_STR(csv.text[r][c], json.text[r][c]);
            CHECK(csv.i[r][c] == json.i[r][c] && csv.r[r][c] == json.r[r][c]);
        }
        CHECK(strcmp(csv.text[r][kind], "baseline") == 0 || !csv.null[r][ended]);
    }
    forget(&csv);
    forget(&json);
}

int main(void)
{
    round_trip(MMT_ROWS_CSV);
    round_trip(MMT_ROWS_JSON);
    test_json_bad_utf8();
    test_refused();
    test_old_files();
    return check_result();
}
