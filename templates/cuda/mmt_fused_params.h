/* mmt_fused_params.h - what a template with an epilogue in its store (src/fused.h) is built
 * with and launched with, spliced in after mmt_params.h: its defines, which are not knobs
 * (none by default: the template compiles as without them), and the launch parameters of
 * such an instance, the bias after the 128 bytes of src/backend.h's mmt_gemm_params (the
 * scales' pointers, which no such instance reads; src/epilogue.h). The store's arithmetic is
 * mmt_fuse.h's. */
#ifndef EPI_BIAS
#define EPI_BIAS 0 /* a bias added to C's values before the activation: 1 one per row of C, 2 one per column */
#endif
#ifndef EPI_ACT
#define EPI_ACT 0 /* the activation of C's values: 1 ReLU, 2 GELU's tanh form */
#endif
#ifndef BIAS_C
#define BIAS_C 0 /* the bias in C's type (16-bit or f64 C), else fp32 */
#endif
#define FUSED (EPI_BIAS || EPI_ACT)
#if EPI_BIAS < 0 || EPI_BIAS > 2 || EPI_ACT < 0 || EPI_ACT > 2 ||                                               \
    (BIAS_C && !(MMT_OUT == 2 || MMT_OUT == 3 || MMT_DTYPE_F64))
#error "EPI_BIAS and EPI_ACT are 0 to 2; BIAS_C 1 takes a 16-bit or an f64 C (an fp32 C's bias is fp32)"
#endif

/* split-K summed apart (a template's SERIAL 0) leaves no slice holding the sum */
#if FUSED && SPLITK > 1 && defined(SERIAL) && !SERIAL
#error "an epilogue in the store needs split-K in the order of K (the last slice holds the sum)"
#endif

struct mmt_fused_params {
    mmt_gemm_params p;
    const void *scale_a, *scale_b;
    const void *bias; /* EPI_BIAS's values (NULL without) */
    float scale;      /* FP8 C's: multiplied in after the activation (1 for none) */
    int pad;
};
static_assert(sizeof(mmt_fused_params) == 144, "mmt_fused_params must match src/epilogue.h");
/* a template's launch parameters: its own (own), or with the epilogue mmt_fused_params */
#if FUSED
#define MMT_OWN_OR_FUSED(own) mmt_fused_params
#else
#define MMT_OWN_OR_FUSED(own) own
#endif
