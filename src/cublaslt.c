/* cublaslt.c - cuBLASLt through dlopen, with a plan kept per problem (see cublaslt.h). As
 * in cublas.c, the few declarations needed are repeated here (values from cublasLt.h,
 * cublas_api.h and library_types.h), so everything builds without the headers. */
#define _GNU_SOURCE
#include "cublaslt.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "space.h" /* mmt_align_bytes */

typedef void *lt_handle, *lt_desc, *lt_layout, *lt_pref;
typedef struct lt_algo {
    uint64_t data[8];
} lt_algo;
typedef struct lt_heuristic {
    lt_algo algo;
    size_t workspace_size;
    int state;
    float waves;
    int reserved[4];
} lt_heuristic;
enum { CUDA_R_32F = 0, CUDA_R_64F = 1, CUDA_R_16F = 2, CUDA_R_16BF = 14, CUDA_R_8F_E4M3 = 28, CUDA_R_8F_E5M2 = 29 };
enum { COMPUTE_32F = 68, COMPUTE_64F = 70, COMPUTE_32F_FAST_TF32 = 77 };
enum { DESC_TRANSA = 3, DESC_TRANSB = 4, PREF_MAX_WORKSPACE = 1, PREF_ALIGN_A = 5 }; /* B, C, D: 6, 7, 8 */
enum { DESC_EPILOGUE = 7, DESC_BIAS_POINTER = 8, DESC_BIAS_DATA_TYPE = 26 };
enum { DESC_A_SCALE_POINTER = 17, DESC_B_SCALE_POINTER = 18, DESC_A_SCALE_MODE = 31, DESC_B_SCALE_MODE = 32 };
enum { SCALE_VEC128_32F = 4, SCALE_BLK128x128_32F = 5 };
enum { EPILOGUE_DEFAULT = 1, EPILOGUE_RELU = 2, EPILOGUE_BIAS = 4, EPILOGUE_GELU = 32 };

/* The workspace cuBLAS's own calls may use on Hopper (32 MiB): a plan is made as cuBLAS
 * would choose. Where the caller allows it (a problem the tuner measured so), a plan may
 * need workspace (tensor-core modes only), taken from a pool of libmmtuned's own in the
 * call's stream order, so calls on other streams never share it; the pool keeps up to
 * KEEP_WORKSPACE bytes between calls. Elsewhere a plan is kept only where its algorithm
 * needs none: where the heuristic's first algorithm splits K it lost to cuBLAS's own
 * choice as often as it won (H200: tf32 512x512x4096 0.94x, f16 164x856x4013 0.96x; f16
 * 96x640x1024 1.16x), so only a measurement may choose it. */
static const uint64_t HEURISTIC_WORKSPACE = 32u << 20;
static const size_t KEEP_WORKSPACE = 64u << 20;
/* Larger problems take long enough that the host's time does not show: cuBLAS runs them.
 * The bound is m*n*k of some 10-25 us of an H200 at each mode's rate: 1024^3 on CUDA
 * cores, more on tensor cores, where a call of cuBLAS's own spends about as long on the
 * host as the GPU spends on 512x4096x1024 in f16. */
static double small_mnk(mmt_mode mode)
{
    const double cube = 1073741824.0; /* 1024^3 */
    return mode == MMT_MODE_BF16 || mode == MMT_MODE_F16 ? 8 * cube : mode == MMT_MODE_TF32 ? 4 * cube : cube;
}

enum { SLOTS = 256, PROBE = 4 };

typedef struct plan_key {
    int32_t mode, out, trans_a, trans_b;
    int64_t m, n, k, lda, ldb, ldc;
    int32_t align_a, align_b, align_c;
    int32_t workspace; /* the plan may need workspace; no padding the compiler adds: keys compare as bytes */
    int32_t epilogue;  /* cuBLASLt's epilogue (EPILOGUE_*; 0: none set) */
    int32_t bias_type; /* with a bias: its CUDA data type */
} plan_key;

typedef struct plan {
    plan_key key;
    int used;   /* the slot holds a plan */
    int usable; /* 0: cuBLASLt has none (that the key allows), or refused it: cuBLAS runs the problem */
    size_t workspace;
    lt_desc desc;
    lt_layout la, lb, lc, ld; /* ld: D's where C's type is another (FP8 C), else NULL (lc is D's too) */
    lt_algo algo;
} plan;

struct mmt_cublaslt {
    void *lib;
    lt_handle h;
    int ordinal;
    const mmt_cuda_async *cuda;
    void *pool; /* the workspaces' (NULL until a plan needs one) */
    int (*create)(lt_handle *);
    int (*destroy)(lt_handle);
    int (*desc_create)(lt_desc *, int, int);
    int (*desc_destroy)(lt_desc);
    int (*desc_set)(lt_desc, int, const void *, size_t);
    int (*layout_create)(lt_layout *, int, uint64_t, uint64_t, int64_t);
    int (*layout_destroy)(lt_layout);
    int (*pref_create)(lt_pref *);
    int (*pref_destroy)(lt_pref);
    int (*pref_set)(lt_pref, int, const void *, size_t);
    int (*heuristic)(lt_handle, lt_desc, lt_layout, lt_layout, lt_layout, lt_layout, lt_pref, int, lt_heuristic *,
                     int *);
    int (*matmul)(lt_handle, lt_desc, const void *, const void *, lt_layout, const void *, lt_layout, const void *,
                  const void *, lt_layout, void *, lt_layout, const lt_algo *, void *, size_t, void *);
    plan slots[SLOTS];
};

mmt_status mmt_cublaslt_open(int ordinal, mmt_cublaslt **out, mmt_err *err)
{
    *out = NULL;
    static const char *const names[] = {"libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so",
                                        "/usr/local/cuda/lib64/libcublasLt.so.13",
                                        "/usr/local/cuda/lib64/libcublasLt.so.12", NULL};
    mmt_cublaslt *lt = calloc(1, sizeof *lt);
    RETURN_ERROR_IF(!lt, err, MMT_OUT_OF_MEMORY, "out of memory");
    lt->ordinal = ordinal;
    lt->cuda = mmt_cuda_async_api();
    for (int i = 0; names[i] && !lt->lib; i++) lt->lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!lt->lib) {
        mmt_cublaslt_close(lt);
        return mmt_err_set(err, MMT_NOT_FOUND, "cuBLASLt is not installed (libcublasLt.so.13 or .12)");
    }
    struct {
        void **fn;
        const char *sym;
    } syms[] = {
        {(void **)&lt->create, "cublasLtCreate"},
        {(void **)&lt->destroy, "cublasLtDestroy"},
        {(void **)&lt->desc_create, "cublasLtMatmulDescCreate"},
        {(void **)&lt->desc_destroy, "cublasLtMatmulDescDestroy"},
        {(void **)&lt->desc_set, "cublasLtMatmulDescSetAttribute"},
        {(void **)&lt->layout_create, "cublasLtMatrixLayoutCreate"},
        {(void **)&lt->layout_destroy, "cublasLtMatrixLayoutDestroy"},
        {(void **)&lt->pref_create, "cublasLtMatmulPreferenceCreate"},
        {(void **)&lt->pref_destroy, "cublasLtMatmulPreferenceDestroy"},
        {(void **)&lt->pref_set, "cublasLtMatmulPreferenceSetAttribute"},
        {(void **)&lt->heuristic, "cublasLtMatmulAlgoGetHeuristic"},
        {(void **)&lt->matmul, "cublasLtMatmul"},
    };
    for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++)
        if (!(*syms[i].fn = dlsym(lt->lib, syms[i].sym))) {
            mmt_err_set(err, MMT_NOT_FOUND, "cuBLASLt lacks %s", syms[i].sym);
            mmt_cublaslt_close(lt);
            return MMT_NOT_FOUND;
        }
    int rc = lt->create(&lt->h);
    if (rc != 0) {
        lt->h = NULL;
        mmt_cublaslt_close(lt);
        return mmt_err_set(err, MMT_UNSUPPORTED, "cublasLtCreate failed (status %d)", rc);
    }
    *out = lt;
    return MMT_OK;
}

static void plan_free(mmt_cublaslt *lt, plan *pl)
{
    if (pl->desc) lt->desc_destroy(pl->desc);
    if (pl->la) lt->layout_destroy(pl->la);
    if (pl->lb) lt->layout_destroy(pl->lb);
    if (pl->lc) lt->layout_destroy(pl->lc);
    if (pl->ld) lt->layout_destroy(pl->ld);
    memset(pl, 0, sizeof *pl);
}

void mmt_cublaslt_close(mmt_cublaslt *lt)
{
    if (!lt) return;
    for (int i = 0; i < SLOTS; i++) plan_free(lt, &lt->slots[i]);
    if (lt->pool) lt->cuda->pool_free(lt->ordinal, lt->pool);
    if (lt->h) lt->destroy(lt->h);
    if (lt->lib) dlclose(lt->lib);
    free(lt);
}

/* The alignment cuBLASLt may assume of a pointer: its lowest set bit, at most 256 bytes
 * (the heuristic assumes 256 unless told, and would pick kernels that need it). */
static int32_t alignment(const void *ptr)
{
    const uintptr_t a = (uintptr_t)ptr;
    return a == 0 || (a & 255) == 0 ? 256 : (int32_t)(a & -a);
}

/* On every call: FNV-1a over the key's eleven 64-bit words, not its 88 bytes. */
static uint64_t key_hash(const plan_key *k)
{
    _Static_assert(sizeof(plan_key) % sizeof(uint64_t) == 0, "the key is whole words");
    uint64_t h = 1469598103934665603u, w[sizeof(plan_key) / sizeof(uint64_t)];
    memcpy(w, k, sizeof w);
    for (size_t i = 0; i < sizeof w / sizeof *w; i++) h = (h ^ w[i]) * 1099511628211u;
    return h;
}

static int data_type(mmt_dtype t)
{
    return t == MMT_BF16   ? CUDA_R_16BF
           : t == MMT_F16  ? CUDA_R_16F
           : t == MMT_F64  ? CUDA_R_64F
           : t == MMT_E4M3 ? CUDA_R_8F_E4M3
           : t == MMT_E5M2 ? CUDA_R_8F_E5M2
                           : CUDA_R_32F;
}

/* Points pl's block scales at p's (its A's are our B's): the heuristic finds no algorithm
 * for block scales without them. */
static int set_scales(mmt_cublaslt *lt, plan *pl, const mmt_gemm_params *p)
{
    return lt->desc_set(pl->desc, DESC_A_SCALE_POINTER, &p->scale_b, sizeof p->scale_b) ||
           lt->desc_set(pl->desc, DESC_B_SCALE_POINTER, &p->scale_a, sizeof p->scale_a);
}

/* Fills pl for its key (p: the call it is made for): descriptors as cublas.c's call
 * (row-major C = op(A) op(B) as column-major C^T = op(B)^T op(A)^T) and the heuristic's first algorithm, with the
 * workspace it needs where the key allows some. pl->usable says whether one was found. */
static void plan_make(mmt_cublaslt *lt, plan *pl, const mmt_gemm_params *p)
{
    const plan_key *k = &pl->key;
    const mmt_mode mode = (mmt_mode)k->mode;
    /* our A's and B's types (FP8 of two kinds: e4m3 x e5m2 or the reverse) */
    const int in_a = data_type(mmt_mode_dtype(mode)), in_b = data_type(mmt_mode_b_dtype(mode)),
              ct = data_type((mmt_dtype)k->out);
    /* an FP8 D reads beta C from a C of bf16 (or f16): this C is never read (beta 0, run_plan) */
    const int fp8_d = mmt_dtype_fp8((mmt_dtype)k->out);
    const int compute = mode == MMT_MODE_F64 ? COMPUTE_64F : mode == MMT_MODE_TF32 ? COMPUTE_32F_FAST_TF32 : COMPUTE_32F;
    const int32_t opa = k->trans_b, opb = k->trans_a; /* cuBLASLt's A is our B, its B our A */
    /* A plan with workspace only on tensor cores: for f32 and f64 the kernel cuBLAS's own
     * Sgemm and Dgemm choose ran faster on the GPU than cuBLASLt's split-K one (H200, f32
     * 256x256x8192: 0.97x), and what a plan saves on the host does not make that up. */
    const int tensor_cores = mode == MMT_MODE_BF16 || mode == MMT_MODE_F16 || mode == MMT_MODE_TF32 ||
                             mmt_dtype_fp8(mmt_mode_dtype(mode));
    lt_pref pref = NULL;
    lt_heuristic best;
    int found = 0;
    if (lt->desc_create(&pl->desc, compute, mode == MMT_MODE_F64 ? CUDA_R_64F : CUDA_R_32F) == 0 &&
        lt->desc_set(pl->desc, DESC_TRANSA, &opa, sizeof opa) == 0 &&
        lt->desc_set(pl->desc, DESC_TRANSB, &opb, sizeof opb) == 0 &&
        lt->layout_create(&pl->la, in_b, opa ? k->k : k->n, opa ? k->n : k->k, k->ldb) == 0 &&
        lt->layout_create(&pl->lb, in_a, opb ? k->m : k->k, opb ? k->k : k->m, k->lda) == 0 &&
        lt->layout_create(&pl->lc, fp8_d ? CUDA_R_16BF : ct, k->n, k->m, k->ldc) == 0 &&
        (!fp8_d || lt->layout_create(&pl->ld, ct, k->n, k->m, k->ldc) == 0) &&
        (!mmt_mode_block_scaled(mode) || /* block scales: 128 x 128 of its A (our B), 1 x 128 of its B */
         (lt->desc_set(pl->desc, DESC_A_SCALE_MODE, &(int32_t){SCALE_BLK128x128_32F}, sizeof(int32_t)) == 0 &&
          lt->desc_set(pl->desc, DESC_B_SCALE_MODE, &(int32_t){SCALE_VEC128_32F}, sizeof(int32_t)) == 0 &&
          set_scales(lt, pl, p) == 0)) &&
        (!k->epilogue || lt->desc_set(pl->desc, DESC_EPILOGUE, &k->epilogue, sizeof k->epilogue) == 0) &&
        (!(k->epilogue & EPILOGUE_BIAS) ||
         lt->desc_set(pl->desc, DESC_BIAS_DATA_TYPE, &k->bias_type, sizeof k->bias_type) == 0) &&
        lt->pref_create(&pref) == 0 &&
        lt->pref_set(pref, PREF_MAX_WORKSPACE, &HEURISTIC_WORKSPACE, sizeof HEURISTIC_WORKSPACE) == 0) {
        const uint32_t align[4] = {(uint32_t)k->align_b, (uint32_t)k->align_a, (uint32_t)k->align_c,
                                   (uint32_t)k->align_c};
        int set = 1;
        for (int i = 0; i < 4; i++) set &= lt->pref_set(pref, PREF_ALIGN_A + i, &align[i], sizeof align[i]) == 0;
        found = set &&
                lt->heuristic(lt->h, pl->desc, pl->la, pl->lb, pl->lc, pl->ld ? pl->ld : pl->lc, pref, 1, &best,
                              &found) == 0 &&
                found == 1 && best.state == 0 &&
                (best.workspace_size == 0 ||
                 (k->workspace && tensor_cores && lt->cuda && best.workspace_size <= HEURISTIC_WORKSPACE));
    }
    if (pref) lt->pref_destroy(pref);
    pl->used = 1;
    pl->usable = found;
    if (found) pl->algo = best.algo, pl->workspace = best.workspace_size;
}

/* The problem's plan: kept, or made now in its slot (a full probe run gives its first slot
 * up). */
static plan *plan_for(mmt_cublaslt *lt, const plan_key *k, const mmt_gemm_params *p)
{
    const size_t at = (size_t)(key_hash(k) % SLOTS);
    for (int i = 0; i < PROBE; i++) {
        plan *pl = &lt->slots[(at + (size_t)i) % SLOTS];
        if (pl->used && memcmp(&pl->key, k, sizeof *k) == 0) return pl;
        if (!pl->used) {
            pl->key = *k;
            plan_make(lt, pl, p);
            return pl;
        }
    }
    plan *pl = &lt->slots[at];
    plan_free(lt, pl);
    pl->key = *k;
    plan_make(lt, pl, p);
    return pl;
}

/* The plan of a small problem, kept or made now; NULL where the problem is not small (or
 * has no K). */
static plan *plan_of(mmt_cublaslt *lt, mmt_mode mode, mmt_dtype out, const mmt_gemm_params *p, int workspace)
{
    if (p->k == 0 || (double)p->m * (double)p->n * (double)p->k > small_mnk(mode)) return NULL;
    const plan_key key = {.mode = (int32_t)mode, .out = (int32_t)out, .trans_a = !!p->trans_a, .trans_b = !!p->trans_b,
                     .m = p->m, .n = p->n, .k = p->k, .lda = p->lda, .ldb = p->ldb, .ldc = p->ldc,
                     .align_a = alignment(p->a), .align_b = alignment(p->b), .align_c = alignment(p->c),
                     .workspace = !!workspace};
    return plan_for(lt, &key, p);
}

int mmt_cublaslt_needs_workspace(mmt_cublaslt *lt, mmt_mode mode, mmt_dtype out, const mmt_gemm_params *p)
{
    const plan *pl = plan_of(lt, mode, out, p, 1);
    return pl && pl->usable && pl->workspace > 0;
}

int mmt_cublaslt_has_plan(mmt_cublaslt *lt, mmt_mode mode, mmt_dtype out, const mmt_gemm_params *p)
{
    const plan *pl = plan_of(lt, mode, out, p, 0);
    return pl && pl->usable;
}

/* Runs p through its plan pl on stream; MMT_UNSUPPORTED, nothing launched, where no workspace
 * can be had or cuBLASLt refuses the call (the plan is then marked unusable). */
static mmt_status run_plan(mmt_cublaslt *lt, plan *pl, mmt_mode mode, const mmt_gemm_params *p, void *stream)
{
    if (!pl || !pl->usable || (pl->ld && p->beta != 0)) return MMT_UNSUPPORTED;
    if (mmt_mode_block_scaled(mode) && set_scales(lt, pl, p)) return MMT_UNSUPPORTED;
    void *ws = NULL;
    if (pl->workspace && ((!lt->pool && lt->cuda->pool_new(lt->ordinal, KEEP_WORKSPACE, &lt->pool, NULL) != MMT_OK) ||
                          lt->cuda->pool_alloc(lt->ordinal, lt->pool, pl->workspace, stream, &ws, NULL) != MMT_OK)) {
        pl->usable = 0; /* no workspace to be had: cuBLAS, which has its own, from now on */
        return MMT_UNSUPPORTED;
    }
    const double alpha64 = p->alpha, beta64 = p->beta;
    const float alpha32 = (float)p->alpha, beta32 = (float)p->beta;
    const int f64 = mode == MMT_MODE_F64;
    /* FP8 C: no C pointer (cuBLASLt refuses C == D with C's layout of another type, H200,
     * cuBLAS 13.1; at beta 0 it reads no C) */
    int rc = lt->matmul(lt->h, pl->desc, f64 ? (const void *)&alpha64 : &alpha32, p->b, pl->la, p->a, pl->lb,
                        f64 ? (const void *)&beta64 : &beta32, pl->ld ? NULL : p->c, pl->lc, p->c,
                        pl->ld ? pl->ld : pl->lc, &pl->algo, ws, pl->workspace, stream);
    if (ws) lt->cuda->pool_release(lt->ordinal, ws, stream);
    if (rc != 0) { /* refused before launching: cuBLAS runs the problem from now on */
        pl->usable = 0;
        return MMT_UNSUPPORTED;
    }
    return MMT_OK;
}

mmt_status mmt_cublaslt_gemm(mmt_cublaslt *lt, mmt_mode mode, mmt_dtype out, const mmt_gemm_params *p, int workspace,
                             void *stream)
{
    /* the fallbacks say nothing: cuBLAS takes the call at once, and most large calls pass here */
    return run_plan(lt, plan_of(lt, mode, out, p, workspace), mode, p, stream);
}

mmt_status mmt_cublaslt_gemm_epilogue(mmt_cublaslt *lt, mmt_mode mode, mmt_dtype out, const mmt_gemm_params *p,
                                      mmt_activation act, const void *bias, mmt_dtype bias_type, void *stream)
{
    if (p->k == 0 || (act != MMT_ACT_NONE && act != MMT_ACT_RELU && act != MMT_ACT_GELU_TANH)) return MMT_UNSUPPORTED;
    /* its GELU is a single-precision one: 1.4e-11 relative error on doubles on an H200, the
     * element-wise kernel's 1e-16 */
    if (act == MMT_ACT_GELU_TANH && out == MMT_F64) return MMT_UNSUPPORTED;
    const int32_t epilogue = (act == MMT_ACT_RELU ? EPILOGUE_RELU : act == MMT_ACT_GELU_TANH ? EPILOGUE_GELU : 0) |
                             (bias ? EPILOGUE_BIAS : 0);
    /* where a matrix's rows do not all start on 16 bytes, its GELU_BIAS ran 4-6x its own GEMM's
     * time (H200, BENCHMARKS.md), far more than the element-wise kernel after the GEMM */
    const int64_t es = mmt_dtype_size(mmt_mode_dtype(mode)), cs = mmt_dtype_size(out);
    if (epilogue && (mmt_align_bytes((uintptr_t)p->a, p->lda * es) < 16 ||
                     mmt_align_bytes((uintptr_t)p->b, p->ldb * es) < 16 ||
                     mmt_align_bytes((uintptr_t)p->c, p->ldc * cs) < 16))
        return MMT_UNSUPPORTED;
    /* any size: the plan spares C a pass of its own, whatever the host's time; the workspace
     * cuBLAS's own call would take, on tensor cores */
    const plan_key key = {.mode = (int32_t)mode, .out = (int32_t)out, .trans_a = !!p->trans_a, .trans_b = !!p->trans_b,
                          .m = p->m, .n = p->n, .k = p->k, .lda = p->lda, .ldb = p->ldb, .ldc = p->ldc,
                          .align_a = alignment(p->a), .align_b = alignment(p->b), .align_c = alignment(p->c),
                          .workspace = 1, .epilogue = epilogue ? epilogue : EPILOGUE_DEFAULT,
                          .bias_type = bias ? data_type(bias_type) : 0};
    plan *pl = plan_for(lt, &key, p);
    if (!pl->usable || (bias && lt->desc_set(pl->desc, DESC_BIAS_POINTER, &bias, sizeof bias) != 0))
        return MMT_UNSUPPORTED;
    return run_plan(lt, pl, mode, p, stream);
}

mmt_status mmt_cublaslt_gemm_whole(mmt_cublaslt *lt, mmt_mode mode, mmt_dtype out, const mmt_gemm_params *p,
                                   void *stream)
{
    return mmt_cublaslt_gemm_epilogue(lt, mode, out, p, MMT_ACT_NONE, NULL, MMT_F32, stream);
}
