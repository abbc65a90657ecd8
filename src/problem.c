/* problem.c - names and normal form of GEMM problems (see problem.h). */
#include "problem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const dtype_names[] = {"f32", "f64", "bf16", "f16", "e4m3", "e5m2"};
static const char *const mode_names[MMT_N_MODES] = {"f32",        "f64",        "bf16",      "f16",
                                                    "tf32",       "f32x3",      "e4m3",      "e5m2",
                                                    "e4m3-block", "e5m2-block", "e4m3xe5m2", "e5m2xe4m3"};

const char *mmt_dtype_name(mmt_dtype dtype)
{
    return (unsigned)dtype < sizeof dtype_names / sizeof *dtype_names ? dtype_names[dtype] : NULL;
}

int mmt_dtype_parse(const char *name, mmt_dtype *out)
{
    for (size_t i = 0; i < sizeof dtype_names / sizeof *dtype_names; i++)
        if (strcmp(name, dtype_names[i]) == 0) {
            *out = (mmt_dtype)i;
            return 0;
        }
    return -1;
}

int mmt_dtype_size(mmt_dtype dtype)
{
    return dtype == MMT_F64                                                              ? 8
           : dtype == MMT_F32                                                            ? 4
           : mmt_dtype_fp8(dtype) || dtype == MMT_E4M3_E5M2 || dtype == MMT_E5M2_E4M3 ? 1
                                                                                         : 2;
}

int mmt_dtype_fp8(mmt_dtype dtype) { return dtype == MMT_E4M3 || dtype == MMT_E5M2; }

const char *mmt_mode_name(mmt_mode mode) { return (unsigned)mode < MMT_N_MODES ? mode_names[mode] : NULL; }

int mmt_mode_parse(const char *name, mmt_mode *out)
{
    for (int i = 0; i < MMT_N_MODES; i++)
        if (strcmp(name, mode_names[i]) == 0) {
            *out = (mmt_mode)i;
            return 0;
        }
    return -1;
}

mmt_dtype mmt_mode_dtype(mmt_mode mode)
{
    switch (mode) {
    case MMT_MODE_F64: return MMT_F64;
    case MMT_MODE_BF16: return MMT_BF16;
    case MMT_MODE_F16: return MMT_F16;
    case MMT_MODE_E4M3:
    case MMT_MODE_E4M3_BLOCK:
    case MMT_MODE_E4M3_E5M2: return MMT_E4M3;
    case MMT_MODE_E5M2:
    case MMT_MODE_E5M2_BLOCK:
    case MMT_MODE_E5M2_E4M3: return MMT_E5M2;
    default: return MMT_F32;
    }
}

mmt_dtype mmt_mode_ab_type(mmt_mode mode)
{
    return mode == MMT_MODE_E4M3_E5M2   ? MMT_E4M3_E5M2
           : mode == MMT_MODE_E5M2_E4M3 ? MMT_E5M2_E4M3
                                        : mmt_mode_dtype(mode);
}

mmt_dtype mmt_mode_b_dtype(mmt_mode mode)
{
    return mode == MMT_MODE_E4M3_E5M2 ? MMT_E5M2 : mode == MMT_MODE_E5M2_E4M3 ? MMT_E4M3 : mmt_mode_dtype(mode);
}

int mmt_mode_of(mmt_dtype dtype, mmt_compute compute, mmt_mode *out)
{
    if (compute == MMT_COMPUTE_NATIVE && (dtype == MMT_E4M3_E5M2 || dtype == MMT_E5M2_E4M3))
        *out = dtype == MMT_E4M3_E5M2 ? MMT_MODE_E4M3_E5M2 : MMT_MODE_E5M2_E4M3;
    else if (compute == MMT_COMPUTE_NATIVE && mmt_dtype_fp8(dtype))
        *out = dtype == MMT_E4M3 ? MMT_MODE_E4M3 : MMT_MODE_E5M2;
    else if (compute == MMT_COMPUTE_NATIVE && mmt_dtype_name(dtype)) *out = (mmt_mode)dtype; /* same numbers */
    else if (compute == MMT_COMPUTE_TF32 && dtype == MMT_F32) *out = MMT_MODE_TF32;
    else if (compute == MMT_COMPUTE_F32X3 && dtype == MMT_F32) *out = MMT_MODE_F32X3;
    else return -1;
    return 0;
}

mmt_dtype mmt_mode_default_out(mmt_mode mode)
{
    return mmt_dtype_fp8(mmt_mode_dtype(mode)) ? MMT_F32 : mmt_mode_dtype(mode);
}

mmt_compute mmt_mode_compute(mmt_mode mode)
{
    return mode == MMT_MODE_TF32 ? MMT_COMPUTE_TF32 : mode == MMT_MODE_F32X3 ? MMT_COMPUTE_F32X3 : MMT_COMPUTE_NATIVE;
}

int mmt_mode_block_scaled(mmt_mode mode) { return mode == MMT_MODE_E4M3_BLOCK || mode == MMT_MODE_E5M2_BLOCK; }

int mmt_mode_with_block_scales(mmt_mode mode, mmt_mode *out)
{
    if (mode != MMT_MODE_E4M3 && mode != MMT_MODE_E5M2) return -1;
    *out = mode == MMT_MODE_E4M3 ? MMT_MODE_E4M3_BLOCK : MMT_MODE_E5M2_BLOCK;
    return 0;
}

const char *mmt_layout_name(mmt_layout layout) { return layout == MMT_COL_MAJOR ? "col" : "row"; }

int mmt_layout_parse(const char *name, mmt_layout *out)
{
    if (strcmp(name, "row") == 0) *out = MMT_ROW_MAJOR;
    else if (strcmp(name, "col") == 0) *out = MMT_COL_MAJOR;
    else return -1;
    return 0;
}

const char *mmt_problem_check(const mmt_problem *p)
{
    if (!mmt_mode_name(p->mode) || !mmt_dtype_name(p->dtype) || !mmt_dtype_name(p->out)) return "unknown type or mode";
    if (mmt_mode_dtype(p->mode) != p->dtype) return "the mode does not compute this input type";
    if (mmt_dtype_fp8(p->dtype)) {
        if (p->out == MMT_F64) return "the output type of FP8 inputs is f32, bf16, f16, e4m3 or e5m2";
    } else if (p->out != p->dtype && !(p->out == MMT_F32 && (p->dtype == MMT_BF16 || p->dtype == MMT_F16))) {
        return "the output type is the input type, or f32 for bf16 and f16 inputs";
    }
    if (mmt_mode_block_scaled(p->mode) && p->layout == MMT_COL_MAJOR)
        return "block scales are row-major problems' (mmt_gemm_scaled)";
    if (p->m < 0 || p->n < 0 || p->k < 0) return "a size is negative";
    /* dense A, B and C (and a reference of C in double) must span a number of bytes that
     * 64 bits hold: products that wrap around would size a buffer far too small */
    int64_t bytes;
    const int64_t es = mmt_dtype_size(p->dtype);
    if (mmt_span_bytes(p->m, p->k, p->k, es, &bytes) || mmt_span_bytes(p->k, p->n, p->n, es, &bytes) ||
        mmt_span_bytes(p->m, p->n, p->n, (int64_t)sizeof(double), &bytes))
        return "too large: a matrix would span more bytes than 64-bit sizes hold";
    return NULL;
}

int mmt_problem_equal(const mmt_problem *a, const mmt_problem *b)
{
    return a->m == b->m && a->n == b->n && a->k == b->k && a->dtype == b->dtype && a->out == b->out &&
           a->mode == b->mode && a->layout == b->layout && !a->trans_a == !b->trans_a && !a->trans_b == !b->trans_b;
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
        if (p->mode == MMT_MODE_E4M3_E5M2 || p->mode == MMT_MODE_E5M2_E4M3) { /* B becomes A */
            r.mode = p->mode == MMT_MODE_E4M3_E5M2 ? MMT_MODE_E5M2_E4M3 : MMT_MODE_E4M3_E5M2;
            r.dtype = mmt_mode_dtype(r.mode);
        }
    }
    return r;
}

int mmt_problem_same_normal_form(const mmt_problem *a, const mmt_problem *b)
{
    const mmt_problem x = mmt_problem_normalise(a), y = mmt_problem_normalise(b);
    return mmt_problem_equal(&x, &y);
}

int mmt_problem_among(const mmt_problem *p, const mmt_problem *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (mmt_problem_same_normal_form(p, &list[i])) return 1;
    return 0;
}

void mmt_problem_format(const mmt_problem *p, char *buf, size_t size)
{
    const char *mode = mmt_mode_name(p->mode), *out = mmt_dtype_name(p->out);
    /* C's type where it is not the input type, or not the one parse reads for none (FP8's f32) */
    const int arrow = p->out != p->dtype || p->out != mmt_mode_default_out(p->mode);
    snprintf(buf, size, "%s%s%s %s %c%c %lldx%lldx%lld", mode ? mode : "?", arrow ? "->" : "",
             arrow && out ? out : "", mmt_layout_name(p->layout), p->trans_a ? 'T' : 'N',
             p->trans_b ? 'T' : 'N', (long long)p->m, (long long)p->n, (long long)p->k);
}

/* A size of the MxNxK field: digits, at least 1, then `stop`; *text moves past the stop. */
static int parse_size(const char **text, char stop, int64_t *out)
{
    char *end;
    if (**text < '0' || **text > '9') return -1;
    long long v = strtoll(*text, &end, 10);
    if (*end != stop || v < 1) return -1;
    *out = v;
    *text = end + (stop != '\0');
    return 0;
}

const char *mmt_problem_parse(const char *text, mmt_problem *out)
{
    char mode[32], layout[16], trans[16], sizes[96], extra[2];
    if (!text || sscanf(text, "%31s %15s %15s %95s %1s", mode, layout, trans, sizes, extra) != 4)
        return "four fields are expected: MODE[->OUT] LAYOUT TT MxNxK";
    mmt_problem p = {0};
    char *arrow = strstr(mode, "->");
    if (arrow) *arrow = '\0';
    if (mmt_mode_parse(mode, &p.mode) != 0) return "unknown mode (f32, f64, bf16, f16, tf32, f32x3, e4m3, e5m2)";
    p.dtype = mmt_mode_dtype(p.mode);
    p.out = mmt_mode_default_out(p.mode);
    if (arrow && (mmt_dtype_parse(arrow + 2, &p.out) != 0 || (mmt_dtype_fp8(p.out) && !mmt_dtype_fp8(p.dtype))))
        return "unknown output type after -> (f32, f64, bf16, f16; e4m3, e5m2 for FP8 inputs)";
    if (mmt_layout_parse(layout, &p.layout) != 0) return "the layout is row or col";
    if (strlen(trans) != 2 || !strchr("NT", trans[0]) || !strchr("NT", trans[1]))
        return "the transposes are two letters N or T (NN, NT, TN, TT)";
    p.trans_a = trans[0] == 'T';
    p.trans_b = trans[1] == 'T';
    const char *at = sizes;
    if (parse_size(&at, 'x', &p.m) || parse_size(&at, 'x', &p.n) || parse_size(&at, '\0', &p.k))
        return "the sizes are MxNxK, each at least 1";
    const char *why = mmt_problem_check(&p);
    if (why) return why;
    *out = p;
    return NULL;
}

double mmt_problem_flops(const mmt_problem *p) { return 2.0 * (double)p->m * (double)p->n * (double)p->k; }

int mmt_span_bytes(int64_t rows, int64_t cols, int64_t ld, int64_t elem, int64_t *bytes)
{
    int64_t n;
    *bytes = 0;
    if (rows <= 0 || cols <= 0) return 0;
    if (__builtin_mul_overflow(rows - 1, ld, &n) || __builtin_add_overflow(n, cols, &n) ||
        __builtin_mul_overflow(n, elem, bytes))
        return -1;
    return 0;
}
