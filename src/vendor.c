/* vendor.c - OpenBLAS (and cuBLAS, through cublas.c) behind one call (see vendor.h). */
#define _GNU_SOURCE
#include "vendor.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cublas.h"
#include "device.h"

enum { CBLAS_ROW_MAJOR = 101, CBLAS_NO_TRANS = 111, CBLAS_TRANS = 112 };

typedef void (*sgemm_fn)(int, int, int, int, int, int, float, const float *, int, const float *, int, float, float *,
                         int);
typedef void (*dgemm_fn)(int, int, int, int, int, int, double, const double *, int, const double *, int, double,
                         double *, int);

struct mmt_vendor {
    const mmt_backend *be; /* whose vendor it is (mmt_vendor_routine) */
    char name[128];
    void *lib;
    sgemm_fn sgemm;
    dgemm_fn dgemm;
    mmt_cublas *cublas; /* set on CUDA devices instead of the above */
};

/* OpenBLAS's library, or NULL where it is not installed. */
static void *dlopen_openblas(void)
{
    static const char *const names[] = {"libopenblas.so.0", "libopenblas.so", NULL};
    void *lib = NULL;
    for (int i = 0; names[i] && !lib; i++) lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    return lib;
}

static mmt_status open_openblas(mmt_vendor *v, mmt_err *err)
{
    v->lib = dlopen_openblas();
    RETURN_ERROR_IF(!v->lib, err, MMT_NOT_FOUND, "OpenBLAS is not installed (Debian: apt-get install libopenblas0)");
    *(void **)&v->sgemm = dlsym(v->lib, "cblas_sgemm");
    *(void **)&v->dgemm = dlsym(v->lib, "cblas_dgemm");
    RETURN_ERROR_IF(!v->sgemm || !v->dgemm, err, MMT_NOT_FOUND, "OpenBLAS has no cblas_sgemm");
    char *(*config)(void);
    *(void **)&config = dlsym(v->lib, "openblas_get_config");
    /* openblas_get_config(): "OpenBLAS 0.3.21 DYNAMIC_ARCH ...": keep the name and version */
    snprintf(v->name, sizeof v->name, "%.100s", config ? config() : "OpenBLAS");
    char *space = strchr(v->name, ' ');
    if (space) space = strchr(space + 1, ' ');
    if (space) *space = '\0';
    return MMT_OK;
}

mmt_status mmt_vendor_open(const mmt_backend *be, const mmt_device_info *dev, mmt_vendor **out, mmt_err *err)
{
    *out = NULL;
    int cuda = strcmp(be->name, "cuda") == 0;
    RETURN_ERROR_IF(!cuda && strcmp(be->name, "cpu") != 0, err, MMT_UNSUPPORTED, "no vendor library for %s",
                    be->name);
    mmt_vendor *v = calloc(1, sizeof *v);
    RETURN_ERROR_IF(!v, err, MMT_OUT_OF_MEMORY, "out of memory");
    v->be = be;
    mmt_status st = cuda ? mmt_cublas_open(dev->ordinal, &v->cublas, err) : open_openblas(v, err);
    if (st == MMT_OK && cuda) snprintf(v->name, sizeof v->name, "%s", mmt_cublas_name(v->cublas));
    if (st != MMT_OK) {
        mmt_vendor_close(v);
        return st;
    }
    *out = v;
    return MMT_OK;
}

void mmt_vendor_close(mmt_vendor *v)
{
    if (!v) return;
    mmt_cublas_close(v->cublas);
    if (v->lib) dlclose(v->lib);
    free(v);
}

mmt_status mmt_vendor_policy(int *off, mmt_err *err)
{
    const char *v = getenv("MMTUNE_VENDOR");
    *off = 0;
    if (!v || !*v || strcmp(v, "auto") == 0) return MMT_OK;
    RETURN_ERROR_IF(strcmp(v, "off") != 0, err, MMT_INVALID_ARGUMENT,
                    "MMTUNE_VENDOR=%.100s: the values are auto (the default) and off", v);
    *off = 1;
    return MMT_OK;
}

void mmt_vendor_use_device_cores(mmt_vendor *v, const mmt_device_info *dev)
{
    void (*set_threads)(int);
    if (!v || !v->lib || !(*(void **)&set_threads = dlsym(v->lib, "openblas_set_num_threads"))) return;
    int64_t cores = 1;
    mmt_device_get_prop(dev, "cores", 5, &cores);
    set_threads((int)cores);
}

int mmt_vendor_core_tier(const char *name)
{
    static const char *const avx512[] = {"skylakex", "cooperlake", "sapphirerapids", NULL},
                             *const avx2[] = {"haswell", "zen", "excavator", NULL},
                             *const avx[] = {"sandybridge", "bulldozer", "piledriver", "steamroller", NULL};
    const char *const *tiers[] = {avx, avx2, avx512};
    for (int t = 2; name && t >= 0; t--)
        for (int i = 0; tiers[t][i]; i++)
            if (strcasecmp(name, tiers[t][i]) == 0) return t + 1;
    return 0;
}

/* The core OpenBLAS picks in a fresh process, as the environment now says: a child loads
 * it and writes the name back (no OpenBLAS, or no name: ""). */
static void probe_core(char *name, size_t size)
{
    name[0] = '\0';
    int fds[2];
    if (pipe(fds) != 0) return;
    const pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        void *lib = dlopen_openblas();
        char *(*corename)(void) = NULL;
        if (lib) *(void **)&corename = dlsym(lib, "openblas_get_corename");
        const char *got = corename ? corename() : "";
        if (write(fds[1], got, strlen(got)) < 0) _exit(1);
        _exit(0);
    }
    close(fds[1]);
    ssize_t n = pid > 0 ? read(fds[0], name, size - 1) : -1;
    name[n > 0 ? n : 0] = '\0';
    close(fds[0]);
    if (pid > 0) waitpid(pid, NULL, 0);
}

/* The best core type this CPU runs, for OPENBLAS_CORETYPE. */
static const char *host_core(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl"))
        return "SKYLAKEX";
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return "HASWELL";
    if (__builtin_cpu_supports("avx")) return "SANDYBRIDGE";
#endif
    return "";
}

void mmt_vendor_fair_core(mmt_vendor_core *out)
{
    memset(out, 0, sizeof *out);
    snprintf(out->host, sizeof out->host, "%s", host_core());
    const char *set = getenv("OPENBLAS_CORETYPE");
    out->user_set = set && *set;
    probe_core(out->chosen, sizeof out->chosen);
    if (!out->chosen[0] || out->user_set || mmt_vendor_core_tier(out->chosen) >= mmt_vendor_core_tier(out->host))
        return;
    snprintf(out->first, sizeof out->first, "%s", out->chosen);
    setenv("OPENBLAS_CORETYPE", out->host, 1);
    out->raised = 1;
    probe_core(out->chosen, sizeof out->chosen); /* what it runs now (the same where it was built for one core) */
}

void mmt_vendor_core_note(const mmt_vendor_core *c, int threads, char *buf, size_t size)
{
    const int low = mmt_vendor_core_tier(c->chosen) < mmt_vendor_core_tier(c->host);
    if (!c->chosen[0])
        snprintf(buf, size, "vendor core: OpenBLAS is not installed, or does not say which kernels it runs");
    else if (c->raised)
        snprintf(buf, size,
                 "vendor core: OpenBLAS picked its %s kernels for this CPU, which runs %s: timed with "
                 "OPENBLAS_CORETYPE=%s (%s kernels%s), %d thread(s)",
                 c->first, c->host, c->host, c->chosen, low ? ": still below this CPU's best" : "", threads);
    else if (low)
        snprintf(buf, size,
                 "vendor core: %s kernels, %s; this CPU runs %s: the vendor's figures are not its best, %d thread(s)",
                 c->chosen, c->user_set ? "as OPENBLAS_CORETYPE asks" : "the ones OpenBLAS was built with", c->host,
                 threads);
    else
        snprintf(buf, size, "vendor core: OpenBLAS's %s kernels, %s, %d thread(s)", c->chosen,
                 c->user_set ? "as OPENBLAS_CORETYPE asks" : "its own choice for this CPU", threads);
}

const char *mmt_vendor_name(const mmt_vendor *v) { return v ? v->name : "none"; }

const char *mmt_vendor_routine(const mmt_backend *be, mmt_mode mode)
{
    if (strcmp(be->name, "cuda") == 0)
        return mode == MMT_MODE_F64                               ? "cublasDgemm"
               : mode == MMT_MODE_F32 || mode == MMT_MODE_F32X3 ? "cublasSgemm"
               /* cuBLAS has no FP8 call, cuBLASLt no e5m2 x e5m2 matmul, block-scaled or not */
               : mode == MMT_MODE_E5M2 || mode == MMT_MODE_E5M2_BLOCK ? NULL
               : mmt_dtype_fp8(mmt_mode_dtype(mode))                  ? MMT_VENDOR_LT_ROUTINE
                                                                     : "cublasGemmEx";
    if (strcmp(be->name, "cpu") == 0) return mode == MMT_MODE_F64 ? "cblas_dgemm" : mode == MMT_MODE_F32 ? "cblas_sgemm" : NULL;
    return NULL;
}

int mmt_vendor_takes(const mmt_backend *be, const mmt_problem *normal, int align_a, int align_b, int align_c,
                     int beta_zero)
{
    if (!mmt_vendor_routine(be, normal->mode)) return 0;
    /* cuBLASLt's FP8 matmul reads both operands K-major (A as stored, B transposed), all
     * three matrices in 16-byte aligned rows */
    if (!mmt_dtype_fp8(mmt_mode_dtype(normal->mode))) return 1;
    /* an FP8 D of cuBLASLt reads beta C from a C of another type (bf16 or f16): not C in place,
     * so beta 0 alone, and of e4m3 operands into e4m3 alone (its e5m2 D needs an e5m2
     * operand; the mixed kinds and block scales into FP8 D are not tested here) */
    if (mmt_dtype_fp8(normal->out) && (!beta_zero || normal->mode != MMT_MODE_E4M3 || normal->out != MMT_E4M3))
        return 0;
    if (normal->trans_a || !normal->trans_b || align_a < 16 || align_b < 16 || align_c < 16) return 0;
    /* Block scales: cuBLASLt's 1 x 128 scales of A (VEC128, M-major) and 128 x 128 of B
     * (BLK128x128, K-major) are mmt_gemm_scaled's layout where M is a multiple of 4 and K of
     * 512 (H200, cuBLAS 13.1: right at M 8 to 260, N 200 to 384). It has no algorithm for
     * other M (1, 257, 258) nor for K not in whole blocks (520), and pads B's rows of scales
     * to 4 (K 640 came out wrong in our layout). */
    return !mmt_mode_block_scaled(normal->mode) || (normal->m % 4 == 0 && normal->k % 512 == 0);
}

#define OWN_CALL ",PLAN=0"

const char *mmt_vendor_route_params(const mmt_backend *be, mmt_mode mode, mmt_vendor_route route, char *buf,
                                    size_t size)
{
    const char *routine = mmt_vendor_routine(be, mode);
    if (!routine) return NULL;
    if (strcmp(be->name, "cuda") != 0) route = MMT_VENDOR_PLAN; /* the host BLAS: every route is its routine */
    snprintf(buf, size, "ROUTINE=%s%s", route == MMT_VENDOR_PLAN_WORKSPACE ? MMT_VENDOR_LT_ROUTINE : routine,
             route == MMT_VENDOR_CALL ? OWN_CALL : "");
    return buf;
}

mmt_vendor_route mmt_vendor_route_of(const char *params)
{
    if (params && strstr(params, "ROUTINE=" MMT_VENDOR_LT_ROUTINE)) return MMT_VENDOR_PLAN_WORKSPACE;
    return params && strstr(params, OWN_CALL) ? MMT_VENDOR_CALL : MMT_VENDOR_PLAN;
}

void mmt_vendor_label(const mmt_vendor *v, mmt_mode mode, char *buf, size_t size)
{
    const char *tag = "";
    if (v && v->cublas && mode == MMT_MODE_TF32) tag = " (TF32)";
    if (v && v->cublas && mode == MMT_MODE_F32X3) tag = " (SGEMM)";
    snprintf(buf, size, "%s%s", mmt_vendor_name(v), tag);
}

mmt_status mmt_vendor_check(const mmt_vendor *v, mmt_mode mode, mmt_err *err)
{
    /* the modes mmt_vendor_routine names a routine for */
    RETURN_ERROR_IF(!mmt_vendor_routine(v->be, mode), err, MMT_UNSUPPORTED, "%s has no %s GEMM", v->name,
                    mmt_mode_name(mode) ? mmt_mode_name(mode) : "such");
    return MMT_OK;
}

mmt_status mmt_vendor_gemm(void *user, const mmt_gemm_params *p, void *stream, mmt_err *err)
{
    mmt_vendor_call *call = user;
    mmt_vendor *v = call->v;
    if (v->cublas)
        return call->route == MMT_VENDOR_CALL
                   ? mmt_cublas_gemm(v->cublas, call->mode, call->out, p, stream, err)
                   : mmt_cublas_gemm_planned(v->cublas, call->mode, call->out, p,
                                             call->route == MMT_VENDOR_PLAN_WORKSPACE, stream, err);
    /* the host BLAS's two routines (mmt_vendor_routine), told apart here on every call
     * without its name compares */
    RETURN_ERROR_IF(call->mode != MMT_MODE_F32 && call->mode != MMT_MODE_F64, err, MMT_UNSUPPORTED,
                    "%s has no %s GEMM", v->name, mmt_mode_name(call->mode) ? mmt_mode_name(call->mode) : "such");
    RETURN_ERROR_IF(p->m > 0x7fffffff || p->n > 0x7fffffff || p->k > 0x7fffffff, err, MMT_UNSUPPORTED,
                    "the vendor library takes 32-bit sizes");
    int ta = p->trans_a ? CBLAS_TRANS : CBLAS_NO_TRANS, tb = p->trans_b ? CBLAS_TRANS : CBLAS_NO_TRANS;
    if (call->mode == MMT_MODE_F64)
        v->dgemm(CBLAS_ROW_MAJOR, ta, tb, (int)p->m, (int)p->n, (int)p->k, p->alpha, p->a, (int)p->lda, p->b,
                 (int)p->ldb, p->beta, p->c, (int)p->ldc);
    else
        v->sgemm(CBLAS_ROW_MAJOR, ta, tb, (int)p->m, (int)p->n, (int)p->k, (float)p->alpha, p->a, (int)p->lda, p->b,
                 (int)p->ldb, (float)p->beta, p->c, (int)p->ldc);
    return MMT_OK;
}

mmt_status mmt_vendor_gemm_strided_batched(const mmt_vendor_call *call, const mmt_gemm_params *p, const mmt_batch *bt,
                                           void *stream, mmt_err *err)
{
    if (!call->v->cublas) return MMT_UNSUPPORTED;
    return mmt_cublas_gemm_strided_batched(call->v->cublas, call->mode, call->out, p, bt, stream, err);
}

mmt_status mmt_vendor_gemm_grouped(const mmt_vendor_call *call, const mmt_gemm_params *ps, int count, void *stream,
                                   mmt_err *err)
{
    if (!call->v->cublas) return MMT_UNSUPPORTED;
    return mmt_cublas_gemm_grouped(call->v->cublas, call->mode, ps, count, stream, err);
}

const char *mmt_vendor_grouped_routine(const mmt_vendor *v, mmt_mode mode)
{
    return v ? mmt_cublas_grouped_routine(v->cublas, mode) : NULL;
}

mmt_status mmt_vendor_gemm_epilogue(const mmt_vendor_call *call, const mmt_gemm_params *p, mmt_activation act,
                                    const void *bias, mmt_dtype bias_type, void *stream, mmt_err *err)
{
    if (!call->v->cublas) return MMT_UNSUPPORTED;
    return mmt_cublas_gemm_epilogue(call->v->cublas, call->mode, call->out, p, act, bias, bias_type, stream, err);
}

const char *mmt_vendor_batched_routine(const mmt_vendor *v, mmt_mode mode)
{
    if (!v || !v->cublas || mmt_dtype_fp8(mmt_mode_dtype(mode))) return NULL; /* cuBLAS has no FP8 batch */
    return mode == MMT_MODE_F64                               ? "cublasDgemmStridedBatched"
           : mode == MMT_MODE_F32 || mode == MMT_MODE_F32X3 ? "cublasSgemmStridedBatched"
                                                              : "cublasGemmStridedBatchedEx";
}

int mmt_vendor_route_differs(const mmt_vendor_call *call, const mmt_gemm_params *p, mmt_vendor_route other)
{
    mmt_cublas *cb = call->v->cublas;
    if (!cb) return 0;
    if (other == MMT_VENDOR_PLAN_WORKSPACE) return mmt_cublas_plan_needs_workspace(cb, call->mode, call->out, p);
    return other == MMT_VENDOR_CALL && mmt_cublas_has_plan(cb, call->mode, call->out, p);
}
