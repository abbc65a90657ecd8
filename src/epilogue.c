/* epilogue.c - a GEMM's epilogue on the host and on a GPU (epilogue.h). */
#include "epilogue.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "../templates/cpu/mmt_gelu.h" /* the CPU template computes GELU alike */
#include "device.h"
#include "kernel.h"
#include "parallel_for.h"
#include "problem.h"
#include "resource.h"

const char *mmt_epilogue_refused(const mmt_epilogue *epi, mmt_dtype c_type, mmt_layout layout, int64_t m, int64_t n,
                                 const void *c, int64_t ldc)
{
    if (epi->bias_kind != MMT_BIAS_NONE && epi->bias_kind != MMT_BIAS_PER_ROW && epi->bias_kind != MMT_BIAS_PER_COL)
        return "bias_kind is none of MMT_BIAS_NONE, MMT_BIAS_PER_ROW, MMT_BIAS_PER_COL";
    if (epi->act != MMT_ACT_NONE && epi->act != MMT_ACT_RELU && epi->act != MMT_ACT_GELU_TANH)
        return "act is none of MMT_ACT_NONE, MMT_ACT_RELU, MMT_ACT_GELU_TANH";
    if (!mmt_dtype_name(c_type)) return "C's type is none of MMT_F32, MMT_F64, MMT_BF16, MMT_F16, MMT_E4M3, MMT_E5M2";
    if (!isfinite(epi->scale)) return "the scale is not finite";
    if (!mmt_dtype_fp8(c_type) && epi->scale != 0 && epi->scale != 1) return "a scale other than 1 is FP8 C's";
    if (epi->bias_kind == MMT_BIAS_NONE) return NULL;
    if (epi->bias_type != MMT_F32 && (epi->bias_type != c_type || mmt_dtype_fp8(c_type)))
        return "the bias is neither fp32 nor of C's type (FP8 C's: fp32)";
    if (m <= 0 || n <= 0) return NULL; /* nothing is read */
    if (!epi->bias) return "the bias is NULL";
    /* the pass reads the bias while it writes C, on several threads */
    const int64_t lines = layout == MMT_COL_MAJOR ? n : m, len = layout == MMT_COL_MAJOR ? m : n;
    if (ldc < len) return NULL; /* the GEMM refuses it, nothing written */
    const int64_t bias_bytes = (epi->bias_kind == MMT_BIAS_PER_ROW ? m : n) * mmt_dtype_size(epi->bias_type),
                  c_bytes = ((lines - 1) * ldc + len) * mmt_dtype_size(c_type);
    const uintptr_t b0 = (uintptr_t)epi->bias, b1 = b0 + (uintptr_t)bias_bytes, c0 = (uintptr_t)c,
                    c1 = c0 + (uintptr_t)c_bytes;
    if (b0 < c1 && c0 < b1) return "the bias overlaps C";
    return NULL;
}

float mmt_epilogue_scale(const mmt_epilogue *epi) { return epi->scale == 0 ? 1.0f : epi->scale; }

/* One pass over lines of C as stored (rows where row-major, columns where column-major). */
typedef struct pass {
    const mmt_epilogue *epi;
    int64_t len, ldc; /* elements a line, and between lines */
    int bias_by_line; /* the bias indexed by the line (else by the element within it) */
    void *c;
} pass;

static inline __attribute__((always_inline)) void line_f32(const pass *p, int64_t l)
{
    const mmt_epilogue *epi = p->epi;
    float *c = (float *)p->c + l * p->ldc;
    const float *bias = epi->bias; /* fp32: C's type */
    if (epi->bias_kind != MMT_BIAS_NONE && p->bias_by_line)
        for (int64_t e = 0; e < p->len; e++) c[e] += bias[l];
    else if (epi->bias_kind != MMT_BIAS_NONE)
        for (int64_t e = 0; e < p->len; e++) c[e] += bias[e];
    if (epi->act == MMT_ACT_RELU)
        for (int64_t e = 0; e < p->len; e++) c[e] = c[e] < 0 ? 0 : c[e]; /* NaN stays NaN */
    else if (epi->act == MMT_ACT_GELU_TANH)
        for (int64_t e = 0; e < p->len; e++) c[e] = mmt_gelu_f32(c[e]);
}

static inline __attribute__((always_inline)) void line_f64(const pass *p, int64_t l)
{
    const mmt_epilogue *epi = p->epi;
    double *c = (double *)p->c + l * p->ldc;
    const int f32 = epi->bias_type == MMT_F32;
    const float *bf = epi->bias;
    const double *bd = epi->bias;
    if (epi->bias_kind != MMT_BIAS_NONE && p->bias_by_line) {
        const double b = f32 ? bf[l] : bd[l];
        for (int64_t e = 0; e < p->len; e++) c[e] += b;
    } else if (epi->bias_kind != MMT_BIAS_NONE) {
        if (f32)
            for (int64_t e = 0; e < p->len; e++) c[e] += bf[e];
        else
            for (int64_t e = 0; e < p->len; e++) c[e] += bd[e];
    }
    if (epi->act == MMT_ACT_RELU)
        for (int64_t e = 0; e < p->len; e++) c[e] = c[e] < 0 ? 0 : c[e];
    else if (epi->act == MMT_ACT_GELU_TANH)
        for (int64_t e = 0; e < p->len; e++) c[e] = mmt_gelu_f64(c[e]);
}

/* The passes are built twice where GCC builds for x86-64 and glibc, whose loader picks the
 * one the CPU runs (an ifunc): 8 lanes (4 of f64) with FMA where there is AVX2 (GELU 2.5x the
 * baseline's speed); the same machine always runs the same one. Not under a sanitizer: the
 * loader makes the choice before the sanitizer's runtime is set up (ThreadSanitizer's build
 * crashed there). */
#if defined(__x86_64__) && defined(__GLIBC__) && defined(__GNUC__) && !defined(__clang__) &&                      \
    !defined(__SANITIZE_THREAD__) && !defined(__SANITIZE_ADDRESS__)
#define WIDEST __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define WIDEST
#endif

WIDEST static void lines_f32(void *arg, int64_t begin, int64_t end)
{
    for (int64_t l = begin; l < end; l++) line_f32(arg, l);
}

WIDEST static void lines_f64(void *arg, int64_t begin, int64_t end)
{
    for (int64_t l = begin; l < end; l++) line_f64(arg, l);
}

/* Elements a thread takes at least: below this a thread costs more than it saves. */
#define ELEMENTS_A_THREAD (1 << 16)

void mmt_epilogue_apply_host(const mmt_epilogue *epi, mmt_dtype c_type, mmt_layout layout, int64_t m, int64_t n,
                             void *c, int64_t ldc)
{
    if (m <= 0 || n <= 0) return;
    const int row_major = layout == MMT_ROW_MAJOR;
    pass p = {.epi = epi, .len = row_major ? n : m, .ldc = ldc, .c = c,
              .bias_by_line = (epi->bias_kind == MMT_BIAS_PER_ROW) == row_major};
    const int64_t n_lines = row_major ? m : n, by_size = m * n / ELEMENTS_A_THREAD, cores = mmt_usable_cores();
    const int64_t threads = by_size < 1 ? 1 : by_size < cores ? by_size : cores;
    mmt_parallel_for(n_lines, 0, (int)threads, c_type == MMT_F64 ? lines_f64 : lines_f32, &p);
}

/* ---- on a GPU: templates/cuda/epilogue.cu -------------------------------------------------- */

mmt_status mmt_epilogue_load(const mmt_backend *be, const mmt_device_info *dev, mmt_dtype c_type, int bias_c,
                             mmt_module **out, mmt_err *err)
{
    char path[64], defines[64];
    *out = NULL;
    snprintf(path, sizeof path, "templates/%s/epilogue.cu", be->name);
    RETURN_ERROR_IF(strcmp(be->name, "cuda") != 0, err, MMT_UNSUPPORTED, "the %s backend has no epilogue kernel",
                    be->name);
    RETURN_ERROR_IF(!mmt_dtype_name(c_type) || (mmt_dtype_fp8(c_type) && bias_c), err, MMT_INVALID_ARGUMENT,
                    "an epilogue over C of type %d%s", (int)c_type, bias_c ? " with a bias of its type" : "");
    snprintf(defines, sizeof defines, "MMT_C_TYPE=%d MMT_BIAS_C=%d", (int)c_type, bias_c != 0);
    char *source = NULL, *log = NULL;
    size_t n;
    void *bin = NULL;
    size_t size = 0;
    FORWARD_IF_ERROR(mmt_resource_read(path, &source, &n, err));
    mmt_status st = mmt_kernel_binary(be, dev, path + strlen("templates/"), source, defines, &bin, &size, &log, NULL,
                                      err);
    free(source);
    free(log);
    if (st == MMT_OK) st = be->load(dev, bin, size, "mmt_epilogue", out, err);
    free(bin);
    return st;
}

/* A block covers this many 16-byte units of a line; the grid's y at most this many lines at
 * once. */
enum { EPI_BLOCK = 256, EPI_LINES = 65535 };

mmt_status mmt_epilogue_launch(const mmt_backend *be, mmt_module *mod, const mmt_epilogue *epi, mmt_dtype c_type,
                               mmt_layout layout, int64_t m, int64_t n, const float *s, double beta, void *c,
                               int64_t ldc, void *stream, mmt_err *err)
{
    if (m <= 0 || n <= 0) return MMT_OK;
    const int row_major = layout == MMT_ROW_MAJOR;
    const int64_t lines = row_major ? m : n, len = row_major ? n : m;
    const mmt_gemm_params p = {.m = lines, .n = len, .ldc = ldc, .c = c, .b = s, .ldb = len, .beta = beta,
                               .alpha = mmt_epilogue_scale(epi),
                               .a = epi->bias_kind == MMT_BIAS_NONE ? NULL : epi->bias,
                               .trans_a = (epi->bias_kind == MMT_BIAS_PER_ROW) == row_major, .trans_b = (int)epi->act};
    /* FP8 C: an element a thread; else the 16-byte units of a line, and one for the rest */
    const int64_t threads = s ? len : len / (16 / mmt_dtype_size(c_type)) + 1;
    const mmt_geometry g = {.grid = {(threads + EPI_BLOCK - 1) / EPI_BLOCK, lines < EPI_LINES ? lines : EPI_LINES, 1},
                            .block = {EPI_BLOCK, 1, 1}};
    return be->launch(mod, &p, &g, stream, err);
}
