/* cublas.c - cuBLAS through dlopen (see cublas.h). The few declarations needed are
 * repeated here (values from cublas_api.h), so everything builds without the cuBLAS
 * headers and runs without the library. */
#define _GNU_SOURCE
#include "cublas.h"

#include "cublaslt.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void *cublas_handle;
enum { CUBLAS_OK = 0, CUBLAS_INVALID_VALUE = 7, CUBLAS_NOT_SUPPORTED = 15, CUBLAS_OP_N = 0, CUBLAS_OP_T = 1,
       CUBLAS_DEFAULT_MATH = 0 };
/* cudaDataType (library_types.h), cublasComputeType_t and cublasGemmAlgo_t (cublas_api.h) */
enum { CUDA_R_32F = 0, CUDA_R_16F = 2, CUDA_R_16BF = 14 };
enum { CUBLAS_COMPUTE_32F = 68, CUBLAS_COMPUTE_32F_FAST_TF32 = 77, CUBLAS_GEMM_DEFAULT = -1 };

struct mmt_cublas {
    void *lib;
    cublas_handle h;
    mmt_cublaslt *lt; /* the plans of small problems (cublaslt.h); NULL without cuBLASLt */
    int ordinal;
    pthread_mutex_t lock; /* a call sets the handle's stream, then launches: one at a time */
    char name[64];
    int (*create)(cublas_handle *);
    int (*destroy)(cublas_handle);
    int (*set_stream)(cublas_handle, void *);
    int (*set_math_mode)(cublas_handle, int);
    int (*get_version)(cublas_handle, int *);
    int (*sgemm)(cublas_handle, int, int, int, int, int, const float *, const float *, int, const float *, int,
                 const float *, float *, int);
    int (*dgemm)(cublas_handle, int, int, int, int, int, const double *, const double *, int, const double *, int,
                 const double *, double *, int);
    /* handle, transa, transb, m, n, k, alpha, A, Atype, lda, B, Btype, ldb, beta, C, Ctype, ldc,
     * computeType, algo */
    int (*gemm_ex)(cublas_handle, int, int, int, int, int, const void *, const void *, int, int, const void *, int,
                   int, const void *, void *, int, int, int, int);
    /* the strided-batched forms: after each matrix's leading dimension its stride, and the
     * batch count after C's */
    int (*sgemm_sb)(cublas_handle, int, int, int, int, int, const float *, const float *, int, long long,
                    const float *, int, long long, const float *, float *, int, long long, int);
    int (*dgemm_sb)(cublas_handle, int, int, int, int, int, const double *, const double *, int, long long,
                    const double *, int, long long, const double *, double *, int, long long, int);
    int (*gemm_ex_sb)(cublas_handle, int, int, int, int, int, const void *, const void *, int, int, long long,
                      const void *, int, int, long long, const void *, void *, int, int, long long, int, int, int);
    /* the grouped form (cuBLAS 12.5 on; NULL before): per group its transposes, sizes, alpha,
     * A (a device array of pointers), Atype, lda, B's, beta, C's, Ctype, ldc, then the group
     * count, each group's batch size and the compute type */
    int (*gemm_ex_grouped)(cublas_handle, const int *, const int *, const int *, const int *, const int *,
                           const void *, const void *const *, int, const int *, const void *const *, int, const int *,
                           const void *, void *const *, int, const int *, int, const int *, int);
    void *pool; /* device memory of the grouped form's pointer arrays, taken in stream order */
};

mmt_status mmt_cublas_open(int ordinal, mmt_cublas **out, mmt_err *err)
{
    *out = NULL;
    static const char *const names[] = {"libcublas.so.13", "libcublas.so.12", "libcublas.so",
                                        "/usr/local/cuda/lib64/libcublas.so.13",
                                        "/usr/local/cuda/lib64/libcublas.so.12", NULL};
    mmt_cublas *cb = calloc(1, sizeof *cb);
    RETURN_ERROR_IF(!cb, err, MMT_OUT_OF_MEMORY, "out of memory");
    cb->ordinal = ordinal;
    pthread_mutex_init(&cb->lock, NULL);
    for (int i = 0; names[i] && !cb->lib; i++) cb->lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!cb->lib) {
        mmt_cublas_close(cb);
        return mmt_err_set(err, MMT_NOT_FOUND, "cuBLAS is not installed (libcublas.so.13 or .12)");
    }
    struct {
        void **fn;
        const char *sym;
    } syms[] = {
        {(void **)&cb->create, "cublasCreate_v2"},          {(void **)&cb->destroy, "cublasDestroy_v2"},
        {(void **)&cb->set_stream, "cublasSetStream_v2"},   {(void **)&cb->set_math_mode, "cublasSetMathMode"},
        {(void **)&cb->get_version, "cublasGetVersion_v2"}, {(void **)&cb->sgemm, "cublasSgemm_v2"},
        {(void **)&cb->dgemm, "cublasDgemm_v2"},           {(void **)&cb->gemm_ex, "cublasGemmEx"},
        {(void **)&cb->sgemm_sb, "cublasSgemmStridedBatched"},
        {(void **)&cb->dgemm_sb, "cublasDgemmStridedBatched"},
        {(void **)&cb->gemm_ex_sb, "cublasGemmStridedBatchedEx"},
    };
    for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++)
        if (!(*syms[i].fn = dlsym(cb->lib, syms[i].sym))) {
            mmt_err_set(err, MMT_NOT_FOUND, "cuBLAS lacks %s", syms[i].sym);
            mmt_cublas_close(cb);
            return MMT_NOT_FOUND;
        }
    cb->gemm_ex_grouped = dlsym(cb->lib, "cublasGemmGroupedBatchedEx");
    /* cuBLAS adopts the current context: the primary one the backend uses, for the call */
    int pushed;
    mmt_status st = mmt_cuda_context_enter(ordinal, &pushed, err);
    if (st != MMT_OK) {
        mmt_cublas_close(cb);
        return st;
    }
    int rc = cb->create(&cb->h);
    if (mmt_cublaslt_open(ordinal, &cb->lt, NULL) != MMT_OK) cb->lt = NULL; /* cuBLAS serves every call */
    mmt_cuda_context_leave(pushed);
    if (rc != CUBLAS_OK) {
        cb->h = NULL;
        mmt_cublas_close(cb);
        return mmt_err_set(err, MMT_UNSUPPORTED, "cublasCreate failed (status %d)", rc);
    }
    cb->set_math_mode(cb->h, CUBLAS_DEFAULT_MATH); /* FP32 stays FP32: no TF32 */
    int v = 0;
    if (cb->get_version(cb->h, &v) == CUBLAS_OK && v > 0)
        snprintf(cb->name, sizeof cb->name, "cuBLAS %d.%d.%d", v / 10000, v / 100 % 100, v % 100);
    else
        snprintf(cb->name, sizeof cb->name, "cuBLAS");
    *out = cb;
    return MMT_OK;
}

void mmt_cublas_close(mmt_cublas *cb)
{
    if (!cb) return;
    int pushed;
    const mmt_cuda_async *as = mmt_cuda_async_api();
    if (cb->pool && as) as->pool_free(cb->ordinal, cb->pool);
    if (cb->h && mmt_cuda_context_enter(cb->ordinal, &pushed, NULL) == MMT_OK) {
        cb->destroy(cb->h);
        mmt_cublaslt_close(cb->lt);
        cb->lt = NULL;
        mmt_cuda_context_leave(pushed);
    }
    mmt_cublaslt_close(cb->lt); /* where the context could not be entered */
    if (cb->lib) dlclose(cb->lib);
    pthread_mutex_destroy(&cb->lock);
    free(cb);
}

const char *mmt_cublas_name(const mmt_cublas *cb) { return cb ? cb->name : "cuBLAS"; }

/* cudaDataType of a 16-bit or f32 matrix; -1 for another type. */
static int data_type(mmt_dtype t)
{
    return t == MMT_BF16 ? CUDA_R_16BF : t == MMT_F16 ? CUDA_R_16F : t == MMT_F32 ? CUDA_R_32F : -1;
}

/* One call with the handle's context current and its lock held; bt: a strided batch, one
 * call of the strided-batched form (NULL: one GEMM). */
static mmt_status gemm_in(mmt_cublas *cb, mmt_mode mode, mmt_dtype out, const mmt_gemm_params *p,
                          const mmt_batch *bt, void *stream, mmt_err *err)
{
    const mmt_dtype in = mmt_mode_dtype(mode);
    int rc = cb->set_stream(cb->h, stream);
    RETURN_ERROR_IF(rc != CUBLAS_OK, err, MMT_LAUNCH, "cublasSetStream failed (status %d)", rc);
    /* Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T: the row-major
     * storage of B read column-major is B^T, so B goes first with its own transpose flag,
     * and m and n swap. */
    int opb = p->trans_b ? CUBLAS_OP_T : CUBLAS_OP_N, opa = p->trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
    int m = (int)p->m, n = (int)p->n, k = (int)p->k;
    int lda = (int)p->lda, ldb = (int)p->ldb, ldc = (int)p->ldc;
    const long long sa = bt ? bt->stride_a : 0, sb = bt ? bt->stride_b : 0, sc = bt ? bt->stride_c : 0;
    const int count = bt ? (int)bt->count : 1;
    const char *what;
    if (mode == MMT_MODE_F64) {
        double alpha = p->alpha, beta = p->beta;
        what = bt ? "cublasDgemmStridedBatched" : "cublasDgemm";
        rc = bt ? cb->dgemm_sb(cb->h, opb, opa, n, m, k, &alpha, p->b, ldb, sb, p->a, lda, sa, &beta, p->c, ldc, sc,
                               count)
                : cb->dgemm(cb->h, opb, opa, n, m, k, &alpha, p->b, ldb, p->a, lda, &beta, p->c, ldc);
    } else if (mode == MMT_MODE_F32 || mode == MMT_MODE_F32X3) {
        float alpha = (float)p->alpha, beta = (float)p->beta;
        what = bt ? "cublasSgemmStridedBatched" : "cublasSgemm";
        rc = bt ? cb->sgemm_sb(cb->h, opb, opa, n, m, k, &alpha, p->b, ldb, sb, p->a, lda, sa, &beta, p->c, ldc, sc,
                               count)
                : cb->sgemm(cb->h, opb, opa, n, m, k, &alpha, p->b, ldb, p->a, lda, &beta, p->c, ldc);
    } else { /* bf16, f16, tf32: fp32 compute, so alpha and beta are floats */
        float alpha = (float)p->alpha, beta = (float)p->beta;
        int ab = data_type(in), ct = data_type(out);
        int compute = mode == MMT_MODE_TF32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
        what = bt ? "cublasGemmStridedBatchedEx" : "cublasGemmEx";
        rc = bt ? cb->gemm_ex_sb(cb->h, opb, opa, n, m, k, &alpha, p->b, ab, ldb, sb, p->a, ab, lda, sa, &beta, p->c,
                                 ct, ldc, sc, count, compute, CUBLAS_GEMM_DEFAULT)
                : cb->gemm_ex(cb->h, opb, opa, n, m, k, &alpha, p->b, ab, ldb, p->a, ab, lda, &beta, p->c, ct, ldc,
                              compute, CUBLAS_GEMM_DEFAULT);
    }
    RETURN_ERROR_IF(rc != CUBLAS_OK, err, MMT_LAUNCH, "%s (%s) failed (status %d)", what, mmt_mode_name(mode), rc);
    return MMT_OK;
}

/* planned: 0 cuBLAS's own call, 1 a plan that needs no workspace, 2 one that may need some;
 * bt: a strided batch (cuBLAS's own call) or NULL */
static mmt_status gemm(mmt_cublas *cb, mmt_mode mode, mmt_dtype out, const mmt_gemm_params *p, const mmt_batch *bt,
                       void *stream, int planned, mmt_err *err)
{
    const mmt_dtype in = mmt_mode_dtype(mode);
    const int fp8 = mmt_dtype_fp8(in);
    RETURN_ERROR_IF(!mmt_mode_name(mode) || (fp8 ? out == MMT_F64
                                                 : out != in && !(out == MMT_F32 && (in == MMT_BF16 || in == MMT_F16))),
                    err, MMT_INVALID_ARGUMENT, "cuBLAS has no GEMM of %s with C of %s",
                    mmt_mode_name(mode) ? mmt_mode_name(mode) : "?", mmt_dtype_name(out) ? mmt_dtype_name(out) : "?");
    /* cuBLASLt's FP8 D reads beta C from a C of another type (bf16 or f16), not C in place */
    RETURN_ERROR_IF(mmt_dtype_fp8(out) && p->beta != 0, err, MMT_UNSUPPORTED,
                    "cuBLASLt takes C of %s only with beta 0", mmt_dtype_name(out));
    RETURN_ERROR_IF(fp8 && bt, err, MMT_UNSUPPORTED, "cuBLAS has no strided batch of FP8 GEMMs");
    RETURN_ERROR_IF(p->m > 0x7fffffff || p->n > 0x7fffffff || p->k > 0x7fffffff || p->lda > 0x7fffffff ||
                        p->ldb > 0x7fffffff || p->ldc > 0x7fffffff,
                    err, MMT_UNSUPPORTED, "cuBLAS takes 32-bit sizes");
    RETURN_ERROR_IF(bt && bt->count > 0x7fffffff, err, MMT_UNSUPPORTED, "cuBLAS takes a 32-bit batch count");
    if (p->m == 0 || p->n == 0 || (bt && bt->count == 0)) return MMT_OK;
    int pushed;
    FORWARD_IF_ERROR(mmt_cuda_context_enter(cb->ordinal, &pushed, err));
    pthread_mutex_lock(&cb->lock);
    mmt_status st;
    if (fp8 && p->k > 0) { /* cuBLAS's own calls have no FP8: cuBLASLt's matmul, whatever planned says */
        st = cb->lt ? mmt_cublaslt_gemm_whole(cb->lt, mode, out, p, stream) : MMT_UNSUPPORTED;
        if (st == MMT_UNSUPPORTED)
            mmt_err_set(err, st, "cuBLASLt has no FP8 matmul for this call (%s; it takes both operands K-major, "
                                 "row-major NT, 16-byte aligned)", cb->lt ? "none found" : "no libcublasLt");
    } else if (mmt_dtype_fp8(out)) { /* K == 0 and beta 0: C = 0 */
        const mmt_cuda_async *as = mmt_cuda_async_api();
        st = as ? as->zero_2d(cb->ordinal, p->c, (size_t)p->ldc, (size_t)p->n, (size_t)p->m, stream, err)
                : mmt_err_set(err, MMT_UNSUPPORTED, "no CUDA driver");
    } else if (fp8) { /* K == 0: C = beta C, A and B not read: the output type's own GEMM */
        st = gemm_in(cb, out == MMT_F32 ? MMT_MODE_F32 : out == MMT_BF16 ? MMT_MODE_BF16 : MMT_MODE_F16, out, p, bt,
                     stream, err);
    } else {
        st = planned && cb->lt ? mmt_cublaslt_gemm(cb->lt, mode, out, p, planned == 2, stream) : MMT_UNSUPPORTED;
        if (st == MMT_UNSUPPORTED) st = gemm_in(cb, mode, out, p, bt, stream, err);
    }
    pthread_mutex_unlock(&cb->lock);
    mmt_cuda_context_leave(pushed);
    return st;
}

mmt_status mmt_cublas_gemm(mmt_cublas *cb, mmt_mode mode, mmt_dtype out, const mmt_gemm_params *p, void *stream,
                           mmt_err *err)
{
    return gemm(cb, mode, out, p, NULL, stream, 0, err);
}

mmt_status mmt_cublas_gemm_strided_batched(mmt_cublas *cb, mmt_mode mode, mmt_dtype out, const mmt_gemm_params *p,
                                           const mmt_batch *bt, void *stream, mmt_err *err)
{
    return gemm(cb, mode, out, p, bt, stream, 0, err);
}

mmt_status mmt_cublas_gemm_planned(mmt_cublas *cb, mmt_mode mode, mmt_dtype out, const mmt_gemm_params *p,
                                   int workspace, void *stream, mmt_err *err)
{
    return gemm(cb, mode, out, p, NULL, stream, workspace ? 2 : 1, err);
}

/* The modes cuBLAS's grouped form takes here (C of the input type). */
static int grouped_takes(mmt_mode mode)
{
    return mode == MMT_MODE_BF16 || mode == MMT_MODE_F16 || mode == MMT_MODE_F32 || mode == MMT_MODE_TF32;
}

/* mmt_cublas_gemm_grouped with the handle's context current and its lock held; each GEMM
 * of ps a group of one, as gemm_in turns a row-major GEMM into cuBLAS's column-major one. */
static mmt_status grouped_in(mmt_cublas *cb, mmt_mode mode, const mmt_gemm_params *ps, int count, void *stream,
                             mmt_err *err)
{
    const mmt_cuda_async *as = mmt_cuda_async_api();
    if (!as) return MMT_UNSUPPORTED;
    if (!cb->pool) FORWARD_IF_ERROR(as->pool_new(cb->ordinal, 64 << 10, &cb->pool, err));
    int rc = cb->set_stream(cb->h, stream);
    RETURN_ERROR_IF(rc != CUBLAS_OK, err, MMT_LAUNCH, "cublasSetStream failed (status %d)", rc);
    int *ints = malloc(sizeof *ints * (size_t)count * 9);
    float *scalars = malloc(sizeof *scalars * (size_t)count * 2);
    const void **ptrs = malloc(sizeof *ptrs * (size_t)count * 3);
    mmt_status st = MMT_OK;
    if (!ints || !scalars || !ptrs) st = mmt_err_set(err, MMT_OUT_OF_MEMORY, "out of host memory for %d groups", count);
    int *opb = ints, *opa = opb + count, *m = opa + count, *n = m + count, *k = n + count, *lda = k + count,
        *ldb = lda + count, *ldc = ldb + count, *one = ldc + count;
    for (int i = 0; st == MMT_OK && i < count; i++) { /* cuBLAS's A is our B (row-major C^T = B^T A^T) */
        const mmt_gemm_params *p = &ps[i];
        opb[i] = p->trans_b ? CUBLAS_OP_T : CUBLAS_OP_N, opa[i] = p->trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
        m[i] = (int)p->n, n[i] = (int)p->m, k[i] = (int)p->k;
        lda[i] = (int)p->ldb, ldb[i] = (int)p->lda, ldc[i] = (int)p->ldc, one[i] = 1;
        scalars[i] = (float)p->alpha, scalars[count + i] = (float)p->beta;
        ptrs[i] = p->b, ptrs[count + i] = p->a, ptrs[2 * count + i] = p->c;
    }
    void *dev = NULL;
    const size_t bytes = sizeof *ptrs * (size_t)count * 3;
    if (st == MMT_OK) st = as->pool_alloc(cb->ordinal, cb->pool, bytes, stream, &dev, err);
    if (st == MMT_OK) st = as->copy(cb->ordinal, dev, ptrs, bytes, MMT_H2D, stream, err);
    if (st == MMT_OK) {
        const int ab = data_type(mmt_mode_dtype(mode));
        const int compute = mode == MMT_MODE_TF32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
        const void *const *d = dev;
        rc = cb->gemm_ex_grouped(cb->h, opb, opa, m, n, k, scalars, d, ab, lda, d + count, ab, ldb, scalars + count,
                                 (void *const *)(d + 2 * count), ab, ldc, count, one, compute);
        /* refused before it launched (no such combination of types): the caller runs the GEMMs */
        if (rc == CUBLAS_NOT_SUPPORTED || rc == CUBLAS_INVALID_VALUE) st = MMT_UNSUPPORTED;
        else if (rc != CUBLAS_OK)
            st = mmt_err_set(err, MMT_LAUNCH, "cublasGemmGroupedBatchedEx (%s) failed (status %d)",
                             mmt_mode_name(mode), rc);
    }
    if (dev) as->pool_release(cb->ordinal, dev, stream);
    free(ints), free(scalars), free(ptrs);
    return st;
}

mmt_status mmt_cublas_gemm_grouped(mmt_cublas *cb, mmt_mode mode, const mmt_gemm_params *ps, int count, void *stream,
                                   mmt_err *err)
{
    if (!cb->gemm_ex_grouped || !grouped_takes(mode)) return MMT_UNSUPPORTED;
    for (int i = 0; i < count; i++)
        if (ps[i].m > 0x7fffffff || ps[i].n > 0x7fffffff || ps[i].k > 0x7fffffff || ps[i].lda > 0x7fffffff ||
            ps[i].ldb > 0x7fffffff || ps[i].ldc > 0x7fffffff)
            return MMT_UNSUPPORTED;
    if (count == 0) return MMT_OK;
    int pushed;
    FORWARD_IF_ERROR(mmt_cuda_context_enter(cb->ordinal, &pushed, err));
    pthread_mutex_lock(&cb->lock);
    const mmt_status st = grouped_in(cb, mode, ps, count, stream, err);
    pthread_mutex_unlock(&cb->lock);
    mmt_cuda_context_leave(pushed);
    return st;
}


const char *mmt_cublas_grouped_routine(const mmt_cublas *cb, mmt_mode mode)
{
    return cb && cb->gemm_ex_grouped && grouped_takes(mode) ? "cublasGemmGroupedBatchedEx" : NULL;
}

mmt_status mmt_cublas_gemm_epilogue(mmt_cublas *cb, mmt_mode mode, mmt_dtype out, const mmt_gemm_params *p,
                                    mmt_activation act, const void *bias, mmt_dtype bias_type, void *stream,
                                    mmt_err *err)
{
    if (!cb->lt || p->m == 0 || p->n == 0 || p->m > 0x7fffffff || p->n > 0x7fffffff || p->k > 0x7fffffff)
        return MMT_UNSUPPORTED;
    int pushed;
    FORWARD_IF_ERROR(mmt_cuda_context_enter(cb->ordinal, &pushed, err));
    pthread_mutex_lock(&cb->lock);
    const mmt_status st = mmt_cublaslt_gemm_epilogue(cb->lt, mode, out, p, act, bias, bias_type, stream);
    pthread_mutex_unlock(&cb->lock);
    mmt_cuda_context_leave(pushed);
    return st;
}

/* which: what to ask of p's plans, 1 whether the plan with workspace allowed needs some, 0
 * whether there is a usable plan without */
static int ask_plans(mmt_cublas *cb, mmt_mode mode, mmt_dtype out, const mmt_gemm_params *p, int which)
{
    int pushed, yes = 0;
    if (!cb->lt || mmt_cuda_context_enter(cb->ordinal, &pushed, NULL) != MMT_OK) return 0;
    pthread_mutex_lock(&cb->lock);
    yes = which ? mmt_cublaslt_needs_workspace(cb->lt, mode, out, p) : mmt_cublaslt_has_plan(cb->lt, mode, out, p);
    pthread_mutex_unlock(&cb->lock);
    mmt_cuda_context_leave(pushed);
    return yes;
}

int mmt_cublas_plan_needs_workspace(mmt_cublas *cb, mmt_mode mode, mmt_dtype out, const mmt_gemm_params *p)
{
    return ask_plans(cb, mode, out, p, 1);
}

int mmt_cublas_has_plan(mmt_cublas *cb, mmt_mode mode, mmt_dtype out, const mmt_gemm_params *p)
{
    return ask_plans(cb, mode, out, p, 0);
}
