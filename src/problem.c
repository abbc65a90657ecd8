/* problem.c - names and normal form of GEMM problems (see problem.h). */
#include "problem.h"

#include <stdio.h>
#include <string.h>

const char *mmt_dtype_name(mmt_dtype dtype)
{
    switch (dtype) {
    case MMT_F32: return "f32";
    case MMT_F64: return "f64";
    }
    return NULL;
}

int mmt_dtype_parse(const char *name, mmt_dtype *out)
{
    if (strcmp(name, "f32") == 0) *out = MMT_F32;
    else if (strcmp(name, "f64") == 0) *out = MMT_F64;
    else return -1;
    return 0;
}

int mmt_dtype_size(mmt_dtype dtype) { return dtype == MMT_F64 ? 8 : 4; }

const char *mmt_layout_name(mmt_layout layout) { return layout == MMT_COL_MAJOR ? "col" : "row"; }

int mmt_layout_parse(const char *name, mmt_layout *out)
{
    if (strcmp(name, "row") == 0) *out = MMT_ROW_MAJOR;
    else if (strcmp(name, "col") == 0) *out = MMT_COL_MAJOR;
    else return -1;
    return 0;
}

mmt_problem mmt_problem_normalise(const mmt_problem *p)
{
    mmt_problem r = *p;
    if (p->layout == MMT_COL_MAJOR) {
        r.layout = MMT_ROW_MAJOR;
        r.m = p->n;
        r.n = p->m;
        r.trans_a = p->trans_b;
        r.trans_b = p->trans_a;
    }
    return r;
}

void mmt_problem_format(const mmt_problem *p, char *buf, size_t size)
{
    snprintf(buf, size, "%s %s %c%c %lldx%lldx%lld", mmt_dtype_name(p->dtype), mmt_layout_name(p->layout),
             p->trans_a ? 'T' : 'N', p->trans_b ? 'T' : 'N', (long long)p->m, (long long)p->n,
             (long long)p->k);
}

double mmt_problem_flops(const mmt_problem *p) { return 2.0 * (double)p->m * (double)p->n * (double)p->k; }
