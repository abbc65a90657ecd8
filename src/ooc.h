/* ooc.h - GEMM on host matrices on one or more GPUs (out of core): C split into tiles
 * (ooc_plan.h), panels of A and B packed into pinned staging buffers and copied to the
 * device on streams of their own while the tuned kernel of the previous panel runs, each C
 * tile accumulated on the device across the panels (beta on the first, 1 after) and
 * written back while the next tile computes. Several GPUs take tiles from one counter
 * until none is left. The kernel of a tile is whatever the caller's gemm function runs
 * for device operands (libmmtuned's lookup of the tile's problem). */
#ifndef MMT_OOC_H
#define MMT_OOC_H

#include <stdint.h>

#include "err.h"
#include "mmtuned.h"
#include "ooc_plan.h"

/* One GPU's streams, events and buffers, kept between calls (made on the first; grown when
 * a plan needs more). Not shared between calls running at once. */
typedef struct mmt_ooc_device mmt_ooc_device;
mmt_ooc_device *mmt_ooc_device_new(int ordinal);
void mmt_ooc_device_free(mmt_ooc_device *dv); /* NULL: nothing */

/* C = alpha op(A) op(B) + beta C on device operands, row-major, on the gemm's stream. */
typedef mmt_status (*mmt_ooc_gemm_fn)(void *user, const mmt_gemm_desc *d, int64_t m, int64_t n, int64_t k,
                                      double alpha, const void *a, int64_t lda, const void *b, int64_t ldb,
                                      double beta, void *c, int64_t ldc, mmt_err *err);

typedef struct mmt_ooc_gpu {
    mmt_ooc_device *dv;
    void *stream; /* where gemm's kernels run (NULL: the default stream) */
    mmt_ooc_gemm_fn gemm;
    void *user;
} mmt_ooc_gpu;

/* A checked, row-major call (desc->layout MMT_ROW_MAJOR; a column-major caller's problem
 * normalised), m and n above 0, every pointer that is read valid host memory. */
typedef struct mmt_ooc_job {
    mmt_gemm_desc desc;
    int64_t m, n, k;
    double alpha, beta;
    const void *a, *b;
    void *c;
    int64_t lda, ldb, ldc;
    mmt_ooc_knobs knobs;
    int n_gpus;
    const mmt_ooc_gpu *gpus;
} mmt_ooc_job;

/* Runs the job; returns when C is written, with the plan it ran in *plan. MMT_OUT_OF_MEMORY
 * (a plan that does not fit the GPUs' free memory, buffers that cannot be had) and
 * MMT_UNSUPPORTED (a GPU that cannot be set up) come before anything is written: C is
 * untouched. Any other failure may leave C partly written (a kernel's, say: MMT_COMPILE,
 * MMT_LAUNCH; a failure after a tile was written back is MMT_LAUNCH, its message beginning
 * "C is partly written"), except where one of several GPUs fails: the others compute the tiles it left unfinished, and the
 * call returns MMT_LAUNCH with a message that says C is complete (copying pinned matrices
 * in place with beta not 0, a tile whose write-back had begun cannot be computed again:
 * then every GPU stops and C is partly written). */
mmt_status mmt_ooc_run(const mmt_ooc_job *job, mmt_ooc_plan *plan, mmt_err *err);

#endif
