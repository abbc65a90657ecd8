/* report_json.c - the final table as JSON (see report.h). */
#include "report.h"

#include <stdlib.h>

#include "json_out.h"

static void figure(mmt_json *j, const char *key, const mmt_problem *p, const mmt_report_figure *f, const char *library)
{
    if (f->median_ms <= 0) {
        mmt_json_null(j, key);
        return;
    }
    mmt_json_open(j, key, '{');
    if (library) mmt_json_str(j, "library", library);
    mmt_json_num(j, "gflops", mmt_report_gflops(p, f));
    mmt_json_num(j, "median_ms", f->median_ms);
    if (f->level > 0) {
        mmt_json_open(j, "interval_ms", '[');
        mmt_json_num(j, NULL, f->lo_ms);
        mmt_json_num(j, NULL, f->hi_ms);
        mmt_json_close(j, ']');
        mmt_json_num(j, "coverage", f->level);
    } else {
        mmt_json_null(j, "interval_ms");
        mmt_json_null(j, "coverage");
    }
    if (f->rel_error > 0) mmt_json_num(j, "rel_error", f->rel_error);
    else mmt_json_null(j, "rel_error");
    mmt_json_close(j, '}');
}

static void problem(mmt_json *j, const mmt_problem *p)
{
    char name[128];
    mmt_problem_format(p, name, sizeof name);
    mmt_json_str(j, "problem", name);
    mmt_json_str(j, "mode", mmt_mode_name(p->mode));
    mmt_json_str(j, "dtype", mmt_dtype_name(p->dtype));
    mmt_json_str(j, "out_dtype", mmt_dtype_name(p->out));
    mmt_json_str(j, "layout", mmt_layout_name(p->layout));
    mmt_json_bool(j, "trans_a", p->trans_a);
    mmt_json_bool(j, "trans_b", p->trans_b);
    mmt_json_int(j, "m", (long long)p->m);
    mmt_json_int(j, "n", (long long)p->n);
    mmt_json_int(j, "k", (long long)p->k);
}

static void pipeline(mmt_json *j, const mmt_report_pipeline *p)
{
    mmt_json_open(j, "pipeline", '{');
    mmt_json_num(j, "wall_s", p->wall_s);
    mmt_json_num(j, "wait_s", p->wait_s);
    mmt_json_int(j, "compiled", (long long)p->compiled);
    mmt_json_int(j, "measured", (long long)p->measured);
    mmt_json_int(j, "final_round", (long long)p->finals);
    mmt_json_int(j, "reused", (long long)p->reused);
    mmt_json_int(j, "compile_threads", p->ahead);
    mmt_json_close(j, '}');
}

static void row(mmt_json *j, const mmt_report_row *r)
{
    mmt_json_open(j, NULL, '{');
    problem(j, r->problem);
    mmt_json_str(j, "family", r->params ? r->family : NULL);
    mmt_json_str(j, "served_by", !r->params ? NULL : r->vendor_serves ? "vendor" : "template");
    mmt_json_str(j, "config", r->params);
    mmt_report_figure none = {0};
    figure(j, "tuned", r->problem, r->params ? &r->tuned : &none, NULL);
    figure(j, "vendor", r->problem, &r->vendor, r->vendor_label ? r->vendor_label : "");
    if (r->params && r->tuned.median_ms > 0 && r->vendor.median_ms > 0)
        mmt_json_num(j, "ratio", r->vendor.median_ms / r->tuned.median_ms);
    else mmt_json_null(j, "ratio");
    mmt_json_str(j, "note", r->note && *r->note ? r->note : NULL);
    const mmt_report_detail *d = r->detail;
    mmt_json_str(j, "final", d && d->final[0] ? d->final : NULL);
    mmt_json_str(j, "figures", d && d->figures[0] ? d->figures : NULL);
    if (d) pipeline(j, &d->pipe);
    else mmt_json_null(j, "pipeline");
    mmt_json_close(j, '}');
}

void mmt_report_json(FILE *f, const mmt_report_meta *m, const mmt_report_row *rows, size_t n)
{
    mmt_json j;
    mmt_json_init(&j, f);
    mmt_json_open(&j, NULL, '{');
    mmt_json_str(&j, "command", m->command);
    mmt_json_open(&j, "device", '{');
    mmt_json_str(&j, "backend", m->device->backend);
    mmt_json_str(&j, "name", m->device->name);
    mmt_json_str(&j, "arch", m->device->arch);
    mmt_json_str(&j, "fingerprint", m->device->fingerprint);
    mmt_json_close(&j, '}');
    mmt_json_str(&j, "database", m->database);
    mmt_json_bool(&j, "interrupted", m->interrupted);
    mmt_json_open(&j, "rows", '[');
    for (size_t i = 0; i < n; i++) row(&j, &rows[i]);
    mmt_json_close(&j, ']');
    mmt_json_open(&j, "notes", '[');
    for (int i = 0; m->notes && m->notes[i]; i++) mmt_json_str(&j, NULL, m->notes[i]);
    mmt_json_close(&j, ']');
    mmt_json_close(&j, '}');
    fflush(f);
}

static int best_row(void *user, const mmt_store_cell *cells, int n)
{
    mmt_json *j = user;
    mmt_json_open(j, NULL, '{');
    for (int c = 0; c < n; c++) {
        const mmt_store_cell *x = &cells[c];
        switch (x->type) {
        case MMT_CELL_INT: mmt_json_int(j, x->name, (long long)x->i); break;
        case MMT_CELL_REAL: mmt_json_num(j, x->name, x->r); break;
        case MMT_CELL_TEXT: mmt_json_str(j, x->name, x->text); break;
        default: mmt_json_null(j, x->name); break;
        }
    }
    mmt_json_close(j, '}');
    return ferror(j->f);
}

mmt_status mmt_report_json_best(FILE *f, mmt_store *st, const char *database, const char *device, mmt_err *err)
{
    /* written to memory first: a failing query leaves no half document on f */
    char *text = NULL;
    size_t size = 0;
    FILE *mem = open_memstream(&text, &size);
    if (!mem) return mmt_err_set(err, MMT_OUT_OF_MEMORY, "out of memory");
    mmt_json j;
    mmt_json_init(&j, mem);
    mmt_json_open(&j, NULL, '{');
    mmt_json_str(&j, "database", database);
    mmt_json_str(&j, "device", device);
    mmt_json_open(&j, "rows", '[');
    mmt_status s = mmt_store_best_view_each(st, device, best_row, &j, err);
    mmt_json_close(&j, ']');
    mmt_json_close(&j, '}');
    fclose(mem);
    if (s == MMT_OK) fwrite(text, 1, size, f);
    free(text);
    return s;
}
