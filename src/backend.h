/* backend.h - the backend interface: one static table of function pointers per kind of
 * device (after SQLite's sqlite3_io_methods). Generic code reaches devices only through
 * it. The CPU backend is always there; CUDA registers only if libcuda and libnvrtc open.
 *
 * Every template family exports one entry point that takes mmt_gemm_params: on the CPU
 * `int mmt_gemm(const mmt_gemm_params *p)`, which returns 0, or non-zero where it could not
 * compute C (its scratch could not be allocated: C is then untouched), on CUDA
 * `extern "C" __global__ void mmt_gemm(mmt_gemm_params p)`. Kernels see the row-major
 * problem only (problem.h). Templates repeat this struct; keep them in step. */
#ifndef MMT_BACKEND_H
#define MMT_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "device.h"
#include "err.h"
#include "space.h"

typedef struct mmt_gemm_params {
    int64_t m, n, k;
    int64_t lda, ldb, ldc;
    int32_t trans_a, trans_b;
    double alpha, beta;
    const void *a, *b;
    void *c;
    void *workspace; /* scratch of workspace_size bytes (split-K partial sums) or NULL */
    int64_t workspace_size;
    const void *scale_a, *scale_b; /* block-scaled FP8 (problem.h): fp32 scales of A's and B's blocks, else NULL */
} mmt_gemm_params;

/* A strided batch of one mmt_gemm_params: count GEMMs, the i-th on operands at the params'
 * pointers plus i times each matrix's stride (in elements; 0: every GEMM reads the same). */
typedef struct mmt_batch {
    int64_t count, stride_a, stride_b, stride_c;
} mmt_batch;

typedef struct mmt_module mmt_module; /* a loaded instance; defined by each backend */

/* What an instance needs of every launch, as it was built. A CUDA template states it with
 * MMT_NEEDS (templates/cuda/mmt_params.h, the same layout), from the macros its code is
 * compiled from, as the object `<entry>_needs` of its binary; the backend reads it when it
 * loads the module (zeros where the binary has none: nothing is asked) and refuses a launch
 * that does not meet it, on the host and before anything runs. */
typedef struct mmt_launch_needs {
    int32_t version;            /* MMT_LAUNCH_NEEDS_VERSION; 0: the instance states nothing */
    int32_t elem_bytes;         /* of A and B: a row pitch in bytes is ld * elem_bytes */
    int32_t align_a, align_b;   /* A's (B's) address and row pitch in bytes are multiples of it (1: any) */
    int32_t trans_a, trans_b;   /* the orientation it was built for (-1: either) */
    int64_t max_m, max_n;       /* the largest M (N) it computes (0: any) */
} mmt_launch_needs;
#define MMT_LAUNCH_NEEDS_VERSION 1
_Static_assert(sizeof(mmt_launch_needs) == 40, "mmt_launch_needs must match templates/cuda/mmt_params.h");

/* MMT_OK where a launch of p with geometry g (may be NULL) meets what the instance needs and
 * the workspace the geometry asks for (at least g->workspace bytes, 16-byte aligned);
 * else MMT_INVALID_ARGUMENT, err saying what the instance was built for and what came. */
mmt_status mmt_launch_check(const mmt_launch_needs *needs, const mmt_gemm_params *p, const mmt_geometry *g,
                            mmt_err *err);

typedef enum mmt_copy_dir { MMT_H2D, MMT_D2H, MMT_D2D } mmt_copy_dir;

#define MMT_BACKEND_VERSION 1

typedef struct mmt_backend {
    int version;      /* MMT_BACKEND_VERSION */
    const char *name; /* "cpu", "cuda": the prefix of its templates (templates/cpu/...) */

    int (*device_count)(void);
    mmt_status (*probe)(int ordinal, mmt_device_info *out, mmt_err *err);

    /* Compiles the template source with `defines` ("NAME=VALUE ..."); the result is an
     * opaque binary (a shared object, a cubin). *log (malloc'd, may be NULL) holds the
     * compiler's output; on failure the status is MMT_COMPILE and err quotes the log.
     * MMT_ARCH_SPECIFIC=1 among the definitions asks for the device's arch-specific target
     * (CUDA: sm_90a, whose wgmma and setmaxnreg run on that exact architecture only). */
    mmt_status (*compile)(const mmt_device_info *dev, const char *source, const char *defines, void **bin,
                          size_t *size, char **log, mmt_err *err);
    /* Compiler identity and flags, part of the compile-cache key. */
    const char *(*compiler_id)(const mmt_device_info *dev);

    mmt_status (*load)(const mmt_device_info *dev, const void *bin, size_t size, const char *entry,
                       mmt_module **out, mmt_err *err);
    /* Launches; asynchronous on GPUs (stream may be NULL). geometry is ignored on the CPU.
     * Where the geometry has TMA boxes (tma[0] A, tma[1] B, tma[2] C), the CUDA kernel takes
     * three tensor maps after its parameters: `mmt_gemm(mmt_gemm_params p, const
     * __grid_constant__ CUtensorMap a, const __grid_constant__ CUtensorMap b, const
     * __grid_constant__ CUtensorMap c)` (a kernel may declare only the first two), each the
     * operand as p describes it, boxed as the geometry says, swizzled by the box's row bytes
     * (128, 64 or 32), zero-filled outside. With tma_packed they describe the operands'
     * packed copies in p->workspace instead, which the kernel's pre-pass writes: A (as
     * stored: rows of k, or of m transposed) at the start, B right after it, every row at
     * its byte length rounded up to 16 (the layout of the mma.sync template's PACK too).
     * tma_packed is a sum: 1 A is packed, 2 B is packed (after A where A is, else at the
     * start), 4 the packed ones are K-major (A as m x k, B as n x k) whatever the
     * transposes; an operand not packed is read in place. With tma_tf32, A's and B's maps
     * are of tf32 (CU_TENSOR_MAP_DATA_TYPE_TFLOAT32): the TMA rounds each fp32 to the
     * nearest tf32 as it copies it, as cuBLAS rounds in its TF32 mode (the tensor cores
     * would drop the low 13 bits instead). */
    mmt_status (*launch)(mmt_module *mod, const mmt_gemm_params *p, const mmt_geometry *g, void *stream,
                         mmt_err *err);
    void (*unload)(mmt_module *mod);

    /* Device memory; the identity of host memory on the CPU. */
    mmt_status (*alloc)(const mmt_device_info *dev, size_t size, void **ptr, mmt_err *err);
    void (*free)(void *ptr);
    mmt_status (*copy)(void *dst, const void *src, size_t size, mmt_copy_dir dir, mmt_err *err);
    mmt_status (*sync)(void *stream, mmt_err *err);

    /* Times `reps` back-to-back calls of run (device events on GPUs, a monotonic clock on
     * the CPU); *ms is the time of one call. */
    mmt_status (*elapsed)(mmt_status (*run)(void *user, mmt_err *err), void *user, int reps, void *stream,
                          double *ms, mmt_err *err);
} mmt_backend;

extern const mmt_backend mmt_backend_cpu;

/* Below this many multiply-adds (M N K) the CPU template runs a GEMM on one thread whatever
 * OpenMP offers (its MIN_WORK_PER_THREAD): the CPU backend then asks nothing of the thread
 * count. */
#define MMT_CPU_ONE_THREAD_MNK (1 << 18)

/* The CUDA backend, or NULL (with the reason in err) if its libraries do not open. */
const mmt_backend *mmt_backend_cuda(mmt_err *err);

/* The CUDA backend for compiling only: NVRTC alone, no driver and no GPU needed (the
 * compile-ahead pool's processes use it). Its name, compile and compiler_id are those of
 * mmt_backend_cuda (the same binaries under the same cache keys); the other members are
 * NULL. NULL (with the reason in err) if NVRTC does not open. */
const mmt_backend *mmt_backend_cuda_compiler(mmt_err *err);

/* Parses a device name ("cpu", "0", "cuda:1") into a backend and an ordinal. */
mmt_status mmt_backend_for_device(const char *device, const mmt_backend **be, int *ordinal, mmt_err *err);

/* CUDA-only helpers (backend_cuda*.c; they fail with MMT_UNSUPPORTED without CUDA). */

/* NVRTC-compiles source for an architecture ("sm_90") without needing a GPU: what the
 * backend's compile does for a device of that arch (same flags, same log and errors). */
mmt_status mmt_cuda_compile_for_arch(const char *arch, const char *source, const char *defines, void **bin,
                                     size_t *size, char **log, mmt_err *err);

/* Makes GPU `ordinal`'s primary context (retained once, shared with the CUDA runtime and
 * cuBLAS) current on the calling thread, pushed over the caller's where another one is
 * current (*pushed says so); mmt_cuda_context_leave(*pushed) pops it again, so a library
 * call leaves the caller's context as it found it. */
mmt_status mmt_cuda_context_enter(int ordinal, int *pushed, mmt_err *err);
void mmt_cuda_context_leave(int pushed);

/* What the out-of-core GEMM (ooc.c) drives a GPU with: device and pinned host memory,
 * non-blocking streams, events and asynchronous copies, each call on `ordinal`'s primary
 * context (made current for the call, the caller's restored). is_host: memory CUDA does not
 * know, or pinned host memory, is host memory (one cuPointerGetAttribute). mem_free: the
 * device's free bytes. wait_host blocks until the event has happened, wait_stream makes the
 * stream's later work wait for it. Copies are H2D or D2H. pool_new makes a memory pool of
 * the caller's own that keeps up to `keep` bytes between uses; pool_alloc and pool_release
 * take and give back its memory in stream order (the release waits for the stream's work
 * before it, so the next user cannot overlap it). is_pinned: host memory CUDA pinned
 * (cuMemHostAlloc, cuMemHostRegister). copy_2d copies `rows` rows of `width` bytes between
 * pitched host and device memory; zero_2d zeroes `rows` rows of `width` bytes of device memory. */
typedef struct mmt_cuda_async {
    int (*is_host)(const void *ptr);
    int (*is_pinned)(const void *ptr);
    mmt_status (*mem_free)(int ordinal, int64_t *free_bytes, mmt_err *err);
    mmt_status (*dev_alloc)(int ordinal, size_t size, void **ptr, mmt_err *err);
    void (*dev_free)(int ordinal, void *ptr);
    mmt_status (*pool_new)(int ordinal, size_t keep, void **pool, mmt_err *err);
    void (*pool_free)(int ordinal, void *pool);
    mmt_status (*pool_alloc)(int ordinal, void *pool, size_t size, void *stream, void **ptr, mmt_err *err);
    void (*pool_release)(int ordinal, void *ptr, void *stream);
    mmt_status (*host_alloc)(int ordinal, size_t size, void **ptr, mmt_err *err);
    void (*host_free)(int ordinal, void *ptr);
    mmt_status (*stream_new)(int ordinal, void **stream, mmt_err *err);
    void (*stream_free)(int ordinal, void *stream);
    mmt_status (*event_new)(int ordinal, void **event, mmt_err *err);
    void (*event_free)(int ordinal, void *event);
    mmt_status (*record)(int ordinal, void *event, void *stream, mmt_err *err);
    mmt_status (*wait_host)(int ordinal, void *event, mmt_err *err);
    mmt_status (*wait_stream)(int ordinal, void *stream, void *event, mmt_err *err);
    mmt_status (*copy)(int ordinal, void *dst, const void *src, size_t size, mmt_copy_dir dir, void *stream,
                       mmt_err *err);
    mmt_status (*sync)(int ordinal, void *stream, mmt_err *err);
    mmt_status (*copy_2d)(int ordinal, void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                          size_t rows, mmt_copy_dir dir, void *stream, mmt_err *err);
    mmt_status (*zero_2d)(int ordinal, void *dst, size_t pitch, size_t width, size_t rows, void *stream,
                          mmt_err *err);
} mmt_cuda_async;

/* The table above, or NULL without the CUDA driver. */
const mmt_cuda_async *mmt_cuda_async_api(void);

#endif
