/* epilogue_check.h - what test_epilogue and test_gpu_epilogue check an epilogue's result
 * by: the activation in long double, the relative error of C against the reference GEMM
 * (gemm_check.h) with its bias and activation, and C's padding left as it was. */
#ifndef MMT_TEST_EPILOGUE_CHECK_H
#define MMT_TEST_EPILOGUE_CHECK_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

#include "gemm_check.h"
#include "mmtuned.h"

static long double act_ref(mmt_activation act, long double x)
{
    if (act == MMT_ACT_RELU) return x < 0 ? 0 : x;
    if (act == MMT_ACT_GELU_TANH)
        return 0.5L * x * (1 + tanhl(sqrtl(2 / 3.14159265358979323846264338327950288L) * (x + 0.044715L * x * x * x)));
    return x;
}

/* C (of type ct, m x n, leading dimension ldc) against scale act(ref + bias) (FP8 C's scale,
 * 0 read as 1; saturated at FP8's largest finite value), relative to the elements' scale
 * (ref's second half, gc_reference_t, plus the bias's magnitude, times the scale): the
 * relative Frobenius error. bias holds nb values of type bt. */
static double epi_error(const void *c, mmt_dtype ct, int col, int64_t ldc, int64_t m, int64_t n, const double *ref,
                        const mmt_epilogue *e, const void *host_bias, int64_t nb)
{
    double num = 0, den = 0;
    const double scale = e->scale == 0 ? 1 : e->scale;
    const double most = ct == MMT_E4M3 ? 448 : ct == MMT_E5M2 ? 57344 : INFINITY; /* FP8's saturation */
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            const int64_t at = e->bias_kind == MMT_BIAS_PER_ROW ? i : j;
            const double bv = e->bias_kind == MMT_BIAS_NONE ? 0 : gc_get_t(host_bias, e->bias_type, 0, nb, 0, at);
            const double y = scale * (double)act_ref(e->act, (long double)ref[i * n + j] + bv);
            const double want = fmin(fmax(y, -most), most), s = fabs(scale) * (ref[m * n + i * n + j] + fabs(bv));
            const double d = gc_get_t(c, ct, col, ldc, i, j) - want;
            num += d * d, den += s * s;
        }
    return sqrt(num) / (den > 0 ? sqrt(den) : 1);
}

/* Whether the last pad elements of each of C's lines (lines of ldc elements of size es) are
 * as they were before. */
static int epi_padding_kept(const void *c, const void *before, size_t es, int64_t lines, int64_t ldc, int64_t pad)
{
    int kept = 1;
    for (int64_t l = 0; l < lines; l++)
        kept &= memcmp((const char *)c + es * (size_t)(l * ldc + ldc - pad),
                       (const char *)before + es * (size_t)(l * ldc + ldc - pad), es * (size_t)pad) == 0;
    return kept;
}

/* The tests of the epilogue in a kernel's store (fused.h) ------------------------------- */

/* Epilogue e of the three each such case runs: 0 a bias per column and GELU, 1 a bias per
 * row and ReLU (over a residual where the case allows beta), 2 a bias per column alone. */
static void epi_store_kind(int e, mmt_bias_kind *kind, mmt_activation *act)
{
    *kind = e == 1 ? MMT_BIAS_PER_ROW : MMT_BIAS_PER_COL;
    *act = e == 0 ? MMT_ACT_GELU_TANH : e == 1 ? MMT_ACT_RELU : MMT_ACT_NONE;
}

/* A context on device over a new database made by fill(path, cases, n) (the tuned entries
 * the n cases name), the vendor off; NULL where either fails. path ("...XXXXXX") becomes the
 * file's. */
static mmt_ctx *epi_store_open(char *path, const char *device,
                               void (*fill)(const char *path, const void *cases, size_t n), const void *cases, size_t n)
{
    const int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0) return NULL;
    close(fd);
    fill(path, cases, n);
    setenv("MMTUNE_DB", path, 1);
    setenv("MMTUNE_VENDOR", "off", 1);
    mmt_ctx *ctx = NULL;
    CHECK_EQ_INT(mmt_open(&ctx, device, NULL), MMT_OK);
    return ctx;
}

/* Whether ctx's last call ran with the epilogue in the store (EPILOGUE=fused) of a
 * configuration holding each of knobs ("NAME=VALUE ..."); says what ran where not. */
static int epi_served_fused(mmt_ctx *ctx, const char *knobs, const char *what, int e)
{
    const char *config = "";
    mmt_last_choice(ctx, &config);
    int served = strstr(config, "EPILOGUE=fused") != NULL;
    char list[128], *save = NULL;
    snprintf(list, sizeof list, "%s", knobs);
    for (char *tok = strtok_r(list, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
        served &= strstr(config, tok) != NULL;
    if (!served) fprintf(stderr, "%s, epilogue %d: served by %s, not %s with EPILOGUE=fused\n", what, e, config, knobs);
    return served;
}

/* After the cases: the context closed, the database gone, the environment as before. */
static void epi_store_close(mmt_ctx *ctx, const char *path, int fused, size_t cases)
{
    printf("the epilogue in the kernel's store: %d of %zu cases fused\n", fused, cases);
    CHECK_EQ_INT(fused, (int)cases);
    mmt_close(ctx);
    unsetenv("MMTUNE_VENDOR");
    unsetenv("MMTUNE_DB");
    unlink(path);
}

#endif
