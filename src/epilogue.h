/* epilogue.h - a GEMM's epilogue (mmtuned.h's mmt_gemm_epilogue): whether the values of one
 * are valid, the pass that applies it to C after the GEMM on the host, and on a GPU the
 * kernel that does (templates/cuda/epilogue.cu). */
#ifndef MMT_EPILOGUE_H
#define MMT_EPILOGUE_H

#include <stdint.h>

#include "backend.h"
#include "mmtuned.h"

/* The launch parameters of an instance with the epilogue in its store (fused.h): the bias
 * follows the GEMM's (templates/cuda/mmt_fused_params.h repeats the struct). */
typedef struct mmt_fused_params {
    mmt_gemm_params p;
    const void *bias; /* NULL: no bias */
    float scale;      /* FP8 C's (mmt_epilogue's; 1 for none) */
    int32_t pad;
} mmt_fused_params;
_Static_assert(sizeof(mmt_fused_params) == 144, "mmt_fused_params must match templates/cuda/mmt_fused_params.h");

/* C's types an epilogue's kernel is built for (mmtuned.h's mmt_dtype: f32 to e5m2). */
#define MMT_EPILOGUE_C_TYPES (MMT_E5M2 + 1)

/* NULL where epi (not NULL) can be applied to the m x n C of c_type at c (layout, leading
 * dimension ldc), else why not. */
const char *mmt_epilogue_refused(const mmt_epilogue *epi, mmt_dtype c_type, mmt_layout layout, int64_t m, int64_t n,
                                 const void *c, int64_t ldc);

/* epi's scale (FP8 C's), 0 read as 1. */
float mmt_epilogue_scale(const mmt_epilogue *epi);

/* C = act(C + bias) over the m x n C (f32 or f64, in layout with leading dimension ldc): the
 * bias added in C's type, the activation in C's precision (GELU in fp32 within a few units
 * in the last place); on as many of the host's threads as C's size pays for. epi has passed
 * mmt_epilogue_refused and has a bias or an activation. */
void mmt_epilogue_apply_host(const mmt_epilogue *epi, mmt_dtype c_type, mmt_layout layout, int64_t m, int64_t n,
                             void *c, int64_t ldc);

/* The epilogue's kernel of a backend that has one (templates/<backend>/epilogue.*, a GPU's):
 * for C of c_type and a bias of C's type (bias_c) or fp32, built (or read from the cache)
 * and loaded into *out. MMT_UNSUPPORTED where the backend has none. */
mmt_status mmt_epilogue_load(const mmt_backend *be, const mmt_device_info *dev, mmt_dtype c_type, int bias_c,
                             mmt_module **out, mmt_err *err);

/* Launches mod (mmt_epilogue_load's, for epi's bias type and C's type c_type) over the m x n
 * C at c (layout, ldc) on stream, after what the stream runs before: in place (s NULL), or
 * for FP8 C from the GEMM's fp32 result s (m x n, C's layout, unpadded), C's weight beta and
 * epi's scale, C = sat(scale act(s + beta C + bias)). */
mmt_status mmt_epilogue_launch(const mmt_backend *be, mmt_module *mod, const mmt_epilogue *epi, mmt_dtype c_type,
                               mmt_layout layout, int64_t m, int64_t n, const float *s, double beta, void *c,
                               int64_t ldc, void *stream, mmt_err *err);

#endif
