/* bench.h - measuring one GEMM implementation on one problem of any mode: inputs on the
 * device (random, of the problem's input type, never zeros, several rotating sets so that
 * small problems are not timed out of the cache), verification against a reference in
 * higher precision (on the device where the backend ships a reference kernel, else on
 * the host) with C, of the output type, poisoned by its NaN first, and timing after
 * warm-up until the median is stable. */
#ifndef MMT_BENCH_H
#define MMT_BENCH_H

#include "backend.h"
#include "problem.h"

#define MMT_BENCH_MAX_SETS 16

typedef struct mmt_bench {
    const mmt_backend *be;
    const mmt_device_info *dev;
    void *stream;
    mmt_problem p; /* row-major form */
    int n_sets, next_set;
    void *a[MMT_BENCH_MAX_SETS], *b[MMT_BENCH_MAX_SETS], *c[MMT_BENCH_MAX_SETS];
    size_t a_bytes, b_bytes, c_bytes; /* A and B of p.dtype, C of p.out */
    int64_t lda, ldb, ldc;
    void *host_a, *host_b, *host_c; /* set 0 and a download buffer for C */
    /* block-scaled FP8 (problem.h): each set's scales, fp32, in mmt_gemm_scaled's layout (NULL elsewhere) */
    void *sa[MMT_BENCH_MAX_SETS], *sb[MMT_BENCH_MAX_SETS];
    double *ref;                     /* op(A) op(B) of set 0, m x n */
    double ref_norm;                 /* its Frobenius norm */
    double alpha;
    int settle; /* side by side, each sample after an untimed run of its own (mmt_bench_time_paired):
                   set for GPUs by mmt_bench_setup */
} mmt_bench;

/* A GEMM implementation under test: runs p (device pointers) and returns a status. */
typedef mmt_status (*mmt_gemm_fn)(void *user, const mmt_gemm_params *p, void *stream, mmt_err *err);

typedef struct mmt_timing {
    double median_ms, min_ms, max_ms;
    double lo_ms, hi_ms; /* the interval for the median (stats.h: order statistics) */
    double level;        /* its coverage (0.95 and above from 6 samples on) */
    int samples;         /* timed samples (each of one or more calls) */
    int stopped_early;   /* clearly slower than the best (stats.h): measurement cut short */
} mmt_timing;

/* count elements of dt, uniform in [-1, 1), rounded once to the storage type (bf16 and f16
 * as bit patterns), and never zero, so a kernel that skips work or writes zeros cannot
 * pass; the same seed gives the same values (filled in parallel). */
void mmt_bench_fill_random(void *buf, size_t count, mmt_dtype dt, uint64_t seed);
/* count block scales (fp32): positive, 2^e (1 + u / 2) with e in [-3, 2] and u in [-1, 1),
 * as a quantiser's are spread. */
void mmt_bench_fill_scales(float *buf, size_t count, uint64_t seed);
/* count elements of dt set to the type's NaN, before a verification: an element a kernel
 * leaves unwritten, or one it reads although beta is 0, shows. */
void mmt_bench_fill_nan(void *buf, size_t count, mmt_dtype dt);
/* Element i of a buffer of dt, exactly, as a double. */
double mmt_bench_elem(const void *buf, mmt_dtype dt, size_t i);

/* The most implementations one paired measurement takes: every family of a mode
 * (MMT_MAX_FAMILIES) and the vendor library by two routes (vendor.h). */
#define MMT_BENCH_MAX_PAIRED 9

/* Allocates and fills the inputs of p (any layout: it is normalised; any mode: a problem
 * that fails mmt_problem_check is MMT_INVALID_ARGUMENT) and computes the reference.
 * cache_bytes is the size of the caches to defeat (rotation covers twice it). */
mmt_status mmt_bench_setup(const mmt_backend *be, const mmt_device_info *dev, void *stream, const mmt_problem *p,
                           int64_t cache_bytes, mmt_bench **out, mmt_err *err);

/* The cache size a bench of this device must defeat: its L2 and L3 together. */
int64_t mmt_bench_cache_bytes(const mmt_device_info *dev);
void mmt_bench_free(mmt_bench *b);

/* The arguments of a call on input set 0 (beta 0), as the verification passes them. */
mmt_gemm_params mmt_bench_params(const mmt_bench *b);

/* Runs fn once on set 0 with C full of NaN (beta = 0) and measures the relative
 * Frobenius error against the reference; *ok is 1 if it is within the bound of
 * mmt_bench_error_bound for fn's Strassen levels (NaN never passes). */
mmt_status mmt_bench_verify(mmt_bench *b, mmt_gemm_fn fn, void *user, int levels, double *rel_error, int *ok,
                            mmt_err *err);

/* The error bound for a problem, per mode and Strassen-Winograd levels (bench.c derives
 * it): 8 (sqrt(K) + L) 7^(L/2) u_acc (x2 for f32x3) + 4 u_in (tf32's input rounding)
 * + 2 u_out (a 16-bit C); L = 0 for the classic algorithm. */
double mmt_bench_error_bound(const mmt_problem *p, int levels);

/* Times fn: one warm-up call, then samples until the median is stable (or the limits in
 * bench.c). best_hi_ms > 0 is the upper end of the best's interval: once the candidate's
 * interval lies clearly above it (mmt_stats_clearly_slower), it stops early. */
mmt_status mmt_bench_time(mmt_bench *b, mmt_gemm_fn fn, void *user, double best_hi_ms, mmt_timing *t,
                          mmt_err *err);

/* Two implementations in one process, as an application that calls both (libmmtuned and
 * the vendor library an application also links): single calls of each back to back (alone),
 * then the two alternating call by call (beside), on the same input sets; medians of each
 * call. What one library's idle threads do to the other's next call shows in beside / alone.
 * rounds 0: not measured, where a call takes so long (call_ms, the slower's time) that the
 * rounds would not fit the budget of about a second. */
typedef struct mmt_beside {
    int rounds;
    double ours_alone_ms, ours_beside_ms, other_alone_ms, other_beside_ms;
} mmt_beside;
mmt_status mmt_bench_time_beside(mmt_bench *b, mmt_gemm_fn ours, void *ours_user, mmt_gemm_fn other, void *other_user,
                                 double call_ms, mmt_beside *out, mmt_err *err);

/* Runs the n implementations by turns, untimed, a sample's length of each a turn, for about ms
 * milliseconds: rounds that follow on a GPU then measure it at its power limit, as a tune's
 * rounds after its search do (H200: the power a second averages reaches the 700 W limit
 * within a second of tensor-core load; before that a kernel runs at the clock its own
 * current allows). */
mmt_status mmt_bench_warm(mmt_bench *b, int n, const mmt_gemm_fn *fn, void *const *user, double ms, mmt_err *err);

/* Two implementations side by side on a GPU below its power limit: after a second of idle,
 * rounds of one sample each (A B, B A, ... as mmt_bench_time_paired), every sample after
 * the GPU idled four times its length, so the power the GPU averages stays far below its
 * limit. A GPU at its limit lowers its clock more under the more power-hungry kernel (H200,
 * f64 8192x512x1024: cuBLAS 45 TFLOP/s sustained, 48 in the second after an idle GPU; a
 * template 41.5 and 43): the paired rounds give the sustained ratio, these the one of an
 * application whose calls come in bursts. Medians of each; rounds 0: not measured, where a
 * call (call_ms, the slower's time) is so long that the rounds would not fit about 3 s. */
typedef struct mmt_cool {
    int rounds;
    double ours_ms, other_ms;
} mmt_cool;
mmt_status mmt_bench_time_cool(mmt_bench *b, mmt_gemm_fn ours, void *ours_user, mmt_gemm_fn other, void *other_user,
                               double call_ms, mmt_cool *out, mmt_err *err);

/* Times n implementations (n <= MMT_BENCH_MAX_PAIRED) side by side: one warm-up call
 * each, then rounds of one sample each, every other round in reverse order (A B C, C B A,
 * A B C ...), every sample of a round the same number of calls on the same input sets,
 * until every median is stable (or the limits in bench.c). Drift of the clocks or the
 * temperature falls on all of them alike, and no one of them always runs first or always
 * after the same other. On a GPU (b->settle) each sample follows its own implementation's
 * runs: an untimed run of twice its calls, or the sample before it (a round's first), so
 * that it runs at the clock its own power allows, not the one another implementation left
 * (bench.c). t[i] is implementation i's timing; samples counts the rounds. */
mmt_status mmt_bench_time_paired(mmt_bench *b, int n, const mmt_gemm_fn *fn, void *const *user, mmt_timing *t,
                                 mmt_err *err);

#endif
