/* epilogue.h - a GEMM's epilogue on the host (mmtuned.h's mmt_gemm_epilogue): whether the
 * values of one are valid, and the pass that applies it to C after the GEMM. */
#ifndef MMT_EPILOGUE_H
#define MMT_EPILOGUE_H

#include <stdint.h>

#include "mmtuned.h"

/* NULL where epi (not NULL) can be applied to the m x n C of c_type at c (layout, leading
 * dimension ldc), else why not. */
const char *mmt_epilogue_refused(const mmt_epilogue *epi, mmt_dtype c_type, mmt_layout layout, int64_t m, int64_t n,
                                 const void *c, int64_t ldc);

/* 1 where epi changes nothing (NULL, no bias and no activation). */
int mmt_epilogue_none(const mmt_epilogue *epi);

/* C = act(C + bias) over the m x n C (f32 or f64, in layout with leading dimension ldc): the
 * bias added in C's type, the activation in C's precision (GELU in fp32 within a few units
 * in the last place); on as many of the host's threads as C's size pays for. epi has passed
 * mmt_epilogue_refused. */
void mmt_epilogue_apply_host(const mmt_epilogue *epi, mmt_dtype c_type, mmt_layout layout, int64_t m, int64_t n,
                             void *c, int64_t ldc);

#endif
