/* fuzz_parsers.c - libFuzzer target for the parsers of user input: the first byte picks the
 * shapes-file loader, the search-space loader (then the space's configurations are
 * enumerated for a small problem and its defaults chosen, so its expressions are evaluated
 * too), the expression parser and evaluator, a problem's text (mmtune --problem, rows of an
 * import: parsed, then formatted and parsed back), or a file of result rows as `mmtune
 * import` reads it (CSV or JSON: every row read is written again in the same format, and
 * what is written reads back to the same text); the rest is the text. Anything may be
 * rejected with a status; a crash, a leak, undefined behaviour or a failed round trip is a
 * finding. scripts/fuzz.sh builds and runs it. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device.h"
#include "expr.h"
#include "rows.h"
#include "shapes.h"
#include "space.h"

/* Rows written again as they are read. */
typedef struct rewrite {
    FILE *f;
    mmt_rows_format fmt;
    long rows;
} rewrite;

static mmt_status put_row(void *user, long line, const mmt_xfer_value *row, mmt_err *err)
{
    (void)line, (void)err;
    rewrite *w = user;
    mmt_rows_put(w->f, w->fmt, row, w->rows++);
    return MMT_OK;
}

/* text read as rows and written in fmt; *out (malloc'd) is what was written, NULL where the
 * text was refused. */
static void rows_again(const char *text, size_t size, mmt_rows_format fmt, char **out, size_t *out_size, long *rows)
{
    rewrite w = {open_memstream(out, out_size), fmt, 0};
    if (!w.f) abort();
    mmt_rows_begin(w.f, fmt);
    mmt_err err;
    const mmt_status st = mmt_rows_read(text, size, "fuzz", put_row, &w, &err);
    mmt_rows_end(w.f, fmt);
    fclose(w.f);
    *rows = w.rows;
    if (st != MMT_OK) free(*out), *out = NULL;
}

static void fuzz_rows(const char *text, size_t size)
{
    const mmt_rows_format fmt = size && text[0] == '{' ? MMT_ROWS_JSON : MMT_ROWS_CSV; /* as the reader guesses */
    char *once, *twice;
    size_t once_size, twice_size;
    long rows, rows_again_read;
    rows_again(text, size, fmt, &once, &once_size, &rows);
    if (!once) return;
    rows_again(once, once_size, fmt, &twice, &twice_size, &rows_again_read);
    /* what import accepted, written out, is read back whole and writes the same text */
    if (!twice || rows != rows_again_read || once_size != twice_size || memcmp(once, twice, once_size) != 0) abort();
    free(once);
    free(twice);
}

static int lookup(void *user, const char *name, size_t len, int64_t *value)
{
    (void)user;
    *value = (int64_t)len * 3 - 7 + (name[0] & 1); /* any name has some value */
    return 0;
}

static void fuzz_space(const char *text, size_t size)
{
    mmt_space *s = NULL;
    mmt_err err;
    if (mmt_space_load_text("fuzz.yaml", text, size, &s, &err) != MMT_OK) return;
    mmt_device_info dev;
    memset(&dev, 0, sizeof dev);
    mmt_device_set_prop(&dev, "max_threads_per_block", 1024);
    mmt_device_set_prop(&dev, "max_smem_per_block", 232448);
    mmt_device_set_prop(&dev, "sm_count", 132);
    mmt_problem p = {.dtype = MMT_F32, .out = MMT_F32, .mode = MMT_MODE_F32, .m = 96, .n = 80, .k = 64};
    mmt_space_env env = {.problem = &p, .device = &dev};
    mmt_config *all = NULL;
    size_t n = 0;
    if (mmt_space_enumerate(s, &env, &all, &n, &err) == MMT_OK && n > 0) {
        mmt_geometry g;
        char defines[4096], text_cfg[512];
        mmt_space_geometry(s, &all[0], &env, &g, &err);
        mmt_space_defines(s, &all[0], &env, defines, sizeof defines, &err);
        mmt_config_format(s, &all[0], text_cfg, sizeof text_cfg);
        mmt_config back;
        mmt_config_parse(s, text_cfg, &back, &err);
    }
    free(all);
    /* the defaults' conditions, for a caller who asks for reproducible results and one who does not */
    for (env.reproducible = 0; env.reproducible < 2; env.reproducible++) {
        mmt_config def;
        int which;
        mmt_space_default_for(s, &env, &def, &which, &err);
    }
    mmt_space_free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    const int which = data[0] % 5;
    char *text = malloc(size); /* the rest, NUL-terminated (the expression parser takes a string) */
    if (!text) return 0;
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';
    mmt_err err;
    if (which == 0) {
        mmt_problem *problems = NULL;
        size_t n = 0;
        if (mmt_shapes_load_text("fuzz.yaml", text, size - 1, &problems, NULL, &n, &err) == MMT_OK) free(problems);
    } else if (which == 1) {
        fuzz_space(text, size - 1);
    } else if (which == 4) {
        fuzz_rows(text, size - 1);
    } else if (which == 3) {
        mmt_problem p, back;
        char again[160];
        if (!mmt_problem_parse(text, &p)) { /* what is read is what is written back */
            mmt_problem_format(&p, again, sizeof again);
            if (mmt_problem_parse(again, &back) || !mmt_problem_equal(&p, &back)) abort();
        }
    } else {
        mmt_expr *e = NULL;
        int col;
        int64_t v;
        if (mmt_expr_parse(text, &e, &col, &err) == MMT_OK) {
            mmt_expr_eval(e, lookup, NULL, &v, &err);
            mmt_expr_free(e);
        }
    }
    free(text);
    return 0;
}
