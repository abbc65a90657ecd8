/* blas.h - what the files of libmmtuned_blas.so share. The library is a thin layer over
 * libmmtuned's public API (mmtuned.h): gemm.c has the GEMM entry points, context.c
 * the one context they run on, offload.c the opt-in GPU offload, forward.c the system BLAS
 * that every other routine goes to, xerbla.c CBLAS's error reporting. Only the BLAS
 * symbols are exported (MMTB_EXPORT); everything else is hidden. */
#ifndef MMTB_BLAS_H
#define MMTB_BLAS_H

#include <stdatomic.h>
#include <stddef.h>

#include "mmtuned.h"

#define MMTB_EXPORT __attribute__((visibility("default")))

/* The reference BLAS's error handlers, called through the dynamic linker so that a
 * program's own definitions (the netlib test programs have them) take their place. */
void xerbla_(const char *srname, const int *info, size_t srname_len);
void cblas_xerbla(int info, const char *rout, const char *form, ...);

/* Reference CBLAS's globals: RowMajorStrg tells cblas_xerbla that the parameter number it
 * gets is of the row-major call turned column-major (it swaps M and N, lda and ldb back). */
extern int RowMajorStrg, CBLAS_CallFromC;

/* One GEMM as the caller made it: sizes and leading dimensions of the caller's layout. */
typedef struct mmtb_gemm {
    mmt_dtype dtype; /* MMT_F32 or MMT_F64 */
    mmt_layout layout;
    mmt_transpose trans_a, trans_b;
    int m, n, k;
    double alpha, beta;
    const void *a, *b;
    void *c;
    int lda, ldb, ldc;
} mmtb_gemm;


/* gemm.c: a checked call: the quick return, then libmmtuned (the GPU under MMTUNE_OFFLOAD,
 * else the CPU), else fallback (NULL: the system BLAS), counted as forwarded. 1 where the
 * context of mmtb_context_enter served it, else 0. */
int mmtb_run(const mmtb_gemm *g, void (*fallback)(const mmtb_gemm *g));

/* A cblas_sgemm or cblas_dgemm call's arguments. */
typedef struct mmtb_cblas_args {
    mmt_dtype dtype;
    int layout, trans_a, trans_b;
    int m, n, k;
    double alpha;
    const void *a;
    int lda;
    const void *b;
    int ldb;
    double beta;
    void *c;
    int ldc;
} mmtb_cblas_args;

/* gemm.c: the call as a mmtb_gemm, 0; or the number reference CBLAS gives its first bad
 * argument (layout 1, TransA 2, TransB 3, then as cblas_xerbla numbers them), *g unset. */
int mmtb_cblas_gemm_of(const mmtb_cblas_args *x, mmtb_gemm *g);

/* inside.c: a call's entry into the context (0: the exit has begun, or no memory for this
 * thread's count: keep off it) and its leave; the exit's close, which keeps new calls off
 * and waits wait_ms at most for those inside (1: none is left); a forked child's reset. */
int mmtb_inside_enter(void);
void mmtb_inside_leave(void);
int mmtb_inside_close(int wait_ms);
void mmtb_inside_forked(void);

/* context.c: the context GEMMs run on, opened on the first call (NULL when it cannot be:
 * the GEMM then goes to the system BLAS, which mmtb_warn has said once). Every successful
 * enter is paired with a leave; between them the context stays open. */
mmt_ctx *mmtb_context_enter(void);
void mmtb_context_leave(void);
/* Counts n GEMMs served by libmmtuned on c (how it chose the kernel: mmt_last_choice) or one
 * forwarded, where MMTUNE_BLAS_STATS asks for the counts. */
void mmtb_count_served(mmt_ctx *c, mmt_dtype dtype, long long n);
void mmtb_count_forwarded(mmt_dtype dtype);
/* Counts a GEMM run on the GPU by the offload. */
void mmtb_count_offloaded(mmt_dtype dtype);
/* Prints "libmmtuned_blas: ..." on stderr, once per flag. */
void mmtb_warn_once(atomic_int *flag, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* g through mmt_sgemm or mmt_dgemm on ctx (the context above, or the offload's GPU). */
mmt_status mmtb_gemm_on(mmt_ctx *ctx, const mmtb_gemm *g);

/* offload.c: runs g on the GPU named by MMTUNE_OFFLOAD if it is at least the threshold's
 * size; 1 if it did, 0 if the call stays on the CPU (offload off, a small call, no usable
 * GPU or a GEMM the GPU could not run with C untouched: said once). */
int mmtb_offload(const mmtb_gemm *g);

/* forward.c: the system BLAS's own definition of a symbol (it never returns one of this
 * library's), or NULL; mmtb_forward_missing says why a routine cannot be forwarded and
 * aborts. mmtb_system_blas names the library chosen ("" if none). */
void *mmtb_system_symbol(const char *name);
__attribute__((noreturn)) void mmtb_forward_missing(const char *name);
const char *mmtb_system_blas(void);

#endif
