/* mmtuned.h - the public API of libmmtuned, the mmtune runtime library.
 *
 * libmmtuned runs GEMM (C = alpha * op(A) * op(B) + beta * C) with the kernel that
 * `mmtune` tuned for this device and problem, read from an SQLite database. An untuned
 * shape takes the configuration of the nearest tuned shape, else the template default:
 * never a wrong answer, never a crash. Every function returns MMT_OK (0) on success;
 * details of the last failure are kept per thread (mmt_last_error).
 *
 * Threads. Any number of threads may call the GEMM functions, mmt_set_stream,
 * mmt_set_sgemm_policy, mmt_set_reproducible, mmt_set_algorithm_policy and mmt_set_host_gemm
 * at once, on one context and on several (GEMMs on host matrices of one context take turns). mmt_last_error and
 * mmt_last_choice report the calling thread's own last call on a context, whatever
 * other threads do meanwhile. The first call of a shape chooses, compiles (if no cached
 * binary exists) and loads its kernel without holding anything that calls of other shapes
 * need: they go on while it builds (two threads meeting the same new shape may both build
 * it; one binary is kept). Database writes (the counts of shapes served untuned) and the
 * start of a background tuner happen after the calling thread's own launch, in that
 * thread. mmt_open and mmt_close are not concurrent with other calls on the same context:
 * open before sharing it, close after the last call has returned. On a GPU, the calls of
 * one context go to its one stream in the order the threads reach the launch. */
#ifndef MMTUNED_H
#define MMTUNED_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MMT_VERSION_MAJOR 0
#define MMT_VERSION_MINOR 1
#define MMT_VERSION_PATCH 0
#define MMT_VERSION_NUMBER (MMT_VERSION_MAJOR * 10000 + MMT_VERSION_MINOR * 100 + MMT_VERSION_PATCH)

/* What libmmtuned.so exports: these functions alone (the library is built with hidden
 * visibility; its internals are no part of its ABI). */
#if defined(__GNUC__)
#define MMT_API __attribute__((visibility("default")))
#else
#define MMT_API
#endif

/* Every status once: name, number (never reused), message. */
#define MMT_STATUS_MAP(X)                                                        \
    X(OK,               0, "success")                                            \
    X(INVALID_ARGUMENT, 1, "invalid argument")                                   \
    X(OUT_OF_MEMORY,    2, "out of memory")                                      \
    X(IO,               3, "file or process error")                              \
    X(PARSE,            4, "error in a YAML file or expression")                 \
    X(DATABASE,         5, "database error")                                     \
    X(COMPILE,          6, "kernel compilation failed")                          \
    X(LOAD,             7, "kernel could not be loaded")                         \
    X(LAUNCH,           8, "kernel launch or execution failed")                  \
    X(UNSUPPORTED,      9, "not supported by this device or build")              \
    X(NOT_FOUND,       10, "not found")                                          \
    X(INTERNAL,        11, "internal error")

typedef enum mmt_status {
#define MMT_STATUS_ENUM_(name, num, msg) MMT_##name = num,
    MMT_STATUS_MAP(MMT_STATUS_ENUM_)
#undef MMT_STATUS_ENUM_
} mmt_status;

/* Values match CBLAS, so cblas enums can be passed straight through. */
typedef enum mmt_layout { MMT_ROW_MAJOR = 101, MMT_COL_MAJOR = 102 } mmt_layout;
typedef enum mmt_transpose { MMT_NO_TRANS = 111, MMT_TRANS = 112 } mmt_transpose;

/* Element types of a problem. bf16 and f16 are stored as their 16-bit patterns. */
/* MMT_E4M3 and MMT_E5M2: 8-bit floating point (OCP FP8), inputs of a GPU's Hopper tensor
 * cores, C of MMT_F32, MMT_BF16, MMT_F16 or FP8. A scale per tensor goes into alpha. C of FP8
 * (e4m3 or e5m2, whatever the inputs' kinds) is rounded to nearest and saturates: a value
 * beyond the largest finite (448, 57344) is stored as it, NaN stays NaN; the output's scale
 * goes into alpha and beta (C = sat(alpha A B + beta C), the sum in fp32).
 * MMT_E4M3_E5M2 and MMT_E5M2_E4M3: an ab_type alone, FP8 of two kinds, A's first (A e4m3
 * and B e5m2, as a backward pass multiplies weights by gradients, and the reverse). */
typedef enum mmt_dtype { MMT_F32 = 0, MMT_F64 = 1, MMT_BF16 = 2, MMT_F16 = 3, MMT_E4M3 = 4, MMT_E5M2 = 5,
                         MMT_E4M3_E5M2 = 6, MMT_E5M2_E4M3 = 7 } mmt_dtype;

/* How the products are formed (the precision mode of a problem):
 *   MMT_COMPUTE_NATIVE  the input type's own: f32 and f64 on CUDA cores or the CPU, bf16 and
 *                       f16 on tensor cores with fp32 accumulation;
 *   MMT_COMPUTE_TF32    f32 inputs rounded to tf32 (10-bit mantissa) on tensor cores, fp32
 *                       accumulation: about 1e-3 relative error, much faster;
 *   MMT_COMPUTE_F32X3   f32 inputs, each split into a tf32 part and a tf32 residual, three
 *                       tensor-core products per step: fp32-level accuracy. */
typedef enum mmt_compute { MMT_COMPUTE_NATIVE = 0, MMT_COMPUTE_TF32 = 1, MMT_COMPUTE_F32X3 = 2 } mmt_compute;

/* Which rule chose what ran the last call on a context: the tuned entry of this very
 * problem (a template's, or the vendor library's where the tuner timed it faster), the
 * nearest tuned problem's configuration, the template's default, or, for a problem no family
 * tuned, the vendor library (cuBLAS, OpenBLAS), where the tuned problems around it say no
 * template beats it there, or while the template's kernel is built in the background. */
typedef enum mmt_choice { MMT_CHOICE_NONE = 0, MMT_CHOICE_EXACT = 1, MMT_CHOICE_NEAREST = 2,
                          MMT_CHOICE_DEFAULT = 3, MMT_CHOICE_VENDOR = 4 } mmt_choice;

typedef struct mmt_ctx mmt_ctx;

/* The version of the library, "MAJOR.MINOR.PATCH"; a static string. */
MMT_API const char *mmt_version_string(void);

/* The fixed message of a status; never NULL. */
MMT_API const char *mmt_status_string(mmt_status status);

/* Opens a context on a device.
 *   device:  "cpu" (or NULL) for the host CPU, "0", "1", ... or "cuda:0" for a GPU.
 *   db_path: the tuning database; NULL means $MMTUNE_DB, else $XDG_CACHE_HOME/mmtune/mmtune.db,
 *            else ~/.cache/mmtune/mmtune.db. A default database that is missing is not an
 *            error, nor one that cannot be used (of a newer mmtune, damaged, not a regular
 *            file, in a folder others may write: said once on stderr): every shape then
 *            runs untuned. A db_path given that does not exist is MMT_NOT_FOUND (a
 *            misspelt path must not pass unnoticed), one that cannot be opened or is not a
 *            regular file (a FIFO, a directory) MMT_DATABASE.
 * On success *out owns the context (free with mmt_close). On failure *out is NULL unless
 * a context could be made to carry the message, in which case read mmt_last_error and
 * close it. */
MMT_API mmt_status mmt_open(mmt_ctx **out, const char *device, const char *db_path);

/* Frees a context and everything it loaded; NULL is a no-op. */
MMT_API void mmt_close(mmt_ctx *ctx);

/* The detailed message of the calling thread's last call on ctx if it failed ("" if it
 * succeeded, or if this thread has not called on ctx lately: a thread keeps the messages of
 * its last four contexts). NULL: the thread's last mmt_open that could not make a context.
 * Owned by the thread, valid until its next call on ctx. */
MMT_API const char *mmt_last_error(const mmt_ctx *ctx);

/* How the kernel of the calling thread's last successful GEMM call on ctx was chosen, and
 * its configuration in canonical text ("BM=64,BN=64,...", or for the vendor library
 * "LIBRARY=cuBLAS 13.1.0,ROUTINE=cublasGemmEx"; owned by the thread, valid until its next
 * call on ctx). Either pointer may be NULL. */
MMT_API mmt_choice mmt_last_choice(const mmt_ctx *ctx, const char **config);

/* Waits until the kernels ctx builds in the background are in place. Where the vendor
 * library serves a mode, a shape whose kernel is not compiled yet is not compiled on the
 * calling thread: its calls run the vendor library (MMT_CHOICE_VENDOR) while a thread of the
 * context builds the kernel, which then takes over. After this returns, calls of the shapes
 * called so far run their kernels (benchmarks and warm-ups want that; no application needs
 * it). The same thread writes the untuned calls' counts to the database every few seconds
 * (MMTUNE_SYNC_S) and, under background tuning, switches to what was tuned since: this also
 * waits for such a sync that a call has started. *built (may be NULL) says whether any job
 * was queued or running: 0, nothing changed what the calls so far ran. */
MMT_API mmt_status mmt_wait_kernels(mmt_ctx *ctx, int *built);

/* For a GPU context: the CUDA stream (a CUstream / cudaStream_t) later calls run on;
 * NULL is the default stream. Ignored on the CPU. */
MMT_API mmt_status mmt_set_stream(mmt_ctx *ctx, void *stream);

/* GEMM with the CBLAS signature: C = alpha * op(A) * op(B) + beta * C, op(A) is m x k,
 * op(B) is k x n, C is m x n. On a GPU context A, B and C are device pointers and the call
 * is asynchronous on the context's stream, or all three are host memory (mmt_set_host_gemm
 * below: the call runs out of core and returns when C is written); a call that mixes them
 * is MMT_INVALID_ARGUMENT. As in BLAS, beta == 0 means C is not read
 * (NaN in C does not propagate), and alpha == 0 means A and B are not read.
 * Returns MMT_INVALID_ARGUMENT for a negative size, a leading dimension too small, or a
 * NULL pointer that the call would read or write; nothing is written then. */
MMT_API mmt_status mmt_sgemm(mmt_ctx *ctx, mmt_layout layout, mmt_transpose trans_a, mmt_transpose trans_b,
                     int64_t m, int64_t n, int64_t k, float alpha, const float *a, int64_t lda,
                     const float *b, int64_t ldb, float beta, float *c, int64_t ldc);

MMT_API mmt_status mmt_dgemm(mmt_ctx *ctx, mmt_layout layout, mmt_transpose trans_a, mmt_transpose trans_b,
                     int64_t m, int64_t n, int64_t k, double alpha, const double *a, int64_t lda,
                     const double *b, int64_t ldb, double beta, double *c, int64_t ldc);

/* What a general GEMM computes besides its sizes. */
typedef struct mmt_gemm_desc {
    mmt_dtype ab_type;       /* A and B: MMT_F32, MMT_F64, MMT_BF16, MMT_F16, MMT_E4M3, MMT_E5M2 */
    mmt_dtype c_type;        /* C: ab_type, or MMT_F32 for bf16 and f16 inputs; FP8's: MMT_F32, MMT_BF16, MMT_F16,
                              * MMT_E4M3, MMT_E5M2 */
    mmt_compute compute;     /* TF32 and F32X3 need f32 inputs and output */
    mmt_layout layout;
    mmt_transpose trans_a, trans_b;
} mmt_gemm_desc;

/* C = alpha * op(A) * op(B) + beta * C for any combination the descriptor allows, with the
 * rules of mmt_sgemm (pointers and leading dimensions count elements of each matrix's
 * type; alpha and beta are applied in fp32 for every type but f64). Returns
 * MMT_INVALID_ARGUMENT for a descriptor no kernel can serve (f64 with TF32, say) or bad
 * sizes, and MMT_UNSUPPORTED where this device has no template for the mode (bf16 on the
 * CPU); nothing is written then. The descriptor is what runs: the sgemm policy below
 * applies to mmt_sgemm only. A shape is looked up for the alignment of A and B (pointer
 * and row pitch), so misaligned operands may run another configuration than aligned
 * ones, never one that needs the alignment they lack. */
MMT_API mmt_status mmt_gemm_ex(mmt_ctx *ctx, const mmt_gemm_desc *desc, int64_t m, int64_t n, int64_t k, double alpha,
                       const void *a, int64_t lda, const void *b, int64_t ldb, double beta, void *c,
                       int64_t ldc);

/* FP8 with block scales (DeepSeek-V3's and DeepGEMM's layout), on a Hopper GPU: K in
 * blocks of 128 (the last may be shorter), A with a scale per row and block, B with a scale
 * per 128 x 128 block, each block's products summed in fp32 and multiplied by its scales:
 *     C[i][j] = alpha * sum over blocks kb of scale_a[kb * m + i] * scale_b[(j / 128) * kbs + kb]
 *                       * (op(A)[i][K of kb] . op(B)[K of kb][j])  +  beta * C[i][j]
 * with kbs = ceil(k / 128): scale_a holds kbs runs of m floats, scale_b ceil(n / 128) runs of
 * kbs floats, both fp32 in device memory beside A, B and C. desc: ab_type MMT_E4M3 or
 * MMT_E5M2, compute MMT_COMPUTE_NATIVE, MMT_ROW_MAJOR (a column-major call's scales would lie
 * along the other operand: MMT_UNSUPPORTED), any transposes; the rest as mmt_gemm_ex, whose
 * checks it makes first (nothing written where one fails). NULL scales with work to do are
 * MMT_INVALID_ARGUMENT; a device with no template for it (anything but compute capability
 * 9.0) MMT_UNSUPPORTED. */
MMT_API mmt_status mmt_gemm_scaled(mmt_ctx *ctx, const mmt_gemm_desc *desc, const float *scale_a, const float *scale_b,
                                   int64_t m, int64_t n, int64_t k, double alpha, const void *a, int64_t lda,
                                   const void *b, int64_t ldb, double beta, void *c, int64_t ldc);

/* A strided batch of GEMMs: for i in [0, batch), C_i = alpha * op(A_i) * op(B_i) + beta * C_i,
 * where A_i starts at a + i * stride_a, B_i at b + i * stride_b and C_i at c + i * stride_c
 * (strides count elements of each matrix's type, as the leading dimensions do; a stride of 0
 * has every GEMM read the same A or B), each GEMM with the rules of mmt_gemm_ex. The whole
 * batch is checked before anything is written: MMT_INVALID_ARGUMENT for a negative batch or
 * stride, a stride_c less than one C (the C matrices would overlap), a batch whose last
 * matrix would lie beyond 64-bit sizes, and whatever mmt_gemm_ex refuses (MMT_UNSUPPORTED
 * for a mode the device has no template for, nothing written either). On a GPU with device
 * operands the vendor library's strided-batched routine runs the batch in one call
 * (cublasGemmStridedBatchedEx and its kin: MMT_CHOICE_VENDOR), asynchronously on the
 * context's stream; without it, bf16 and f16 row-major C = A B^T whose A's and C's follow one
 * another run as a grouped GEMM's groups (mmt_gemm_grouped) where that takes them. On the
 * CPU, a batch of GEMMs of at most 2^18 multiply-adds each (m n k), which the CPU template
 * and OpenBLAS each run on one thread, is spread over the host's
 * cores: contiguous ranges of the batch on plain threads libmmtuned keeps between calls
 * (they sleep when idle) and the calling thread, all done before the call returns, up to
 * one a core, never more than GEMMs and only as many as the batch's work pays for (where
 * none can be made, the calling thread runs them all); libmmtuned changes no setting of
 * OpenMP's or OpenBLAS's for it. Elsewhere (larger GEMMs, which use the cores themselves;
 * host operands on a GPU) the GEMMs run one after another. On the CPU either way each GEMM
 * is served as mmt_gemm_ex serves that matrix alone and gives the same bits;
 * mmt_last_choice says what served the last. A GEMM
 * that fails as it runs (its kernel cannot be built, memory runs out) fails the call with
 * the status of the lowest-numbered GEMM that failed; the other C_i may have been written
 * or not. batch == 0 computes nothing. */
MMT_API mmt_status mmt_gemm_strided_batched(mmt_ctx *ctx, const mmt_gemm_desc *desc, int64_t m, int64_t n,
                                            int64_t k, double alpha, const void *a, int64_t lda, int64_t stride_a,
                                            const void *b, int64_t ldb, int64_t stride_b, double beta, void *c,
                                            int64_t ldc, int64_t stride_c, int64_t batch);

/* A batch of GEMMs of one shape on matrices anywhere: for i in [0, batch), C_i = alpha *
 * op(A_i) * op(B_i) + beta * C_i on a[i], b[i] and c[i] (host arrays of pointers to the
 * context's device memory on a GPU, to host memory on the CPU), as mmt_gemm_ex computes each.
 * The C matrices must not overlap. The whole batch is checked before anything is written:
 * MMT_INVALID_ARGUMENT for a negative batch, a NULL array or, where the GEMMs have work, a
 * NULL matrix they read or write (the message names the GEMM), and whatever mmt_gemm_ex
 * refuses of one GEMM. On the CPU small GEMMs are spread over the host's cores as a strided
 * batch's are; on a GPU, GEMMs of at most 64 rows, every matrix and row 16-byte aligned, are
 * one call of cuBLAS's grouped form where the vendor serves; the others run one after
 * another. batch == 0 computes nothing. mmt_last_choice says what served the call, or its
 * last GEMM. */
MMT_API mmt_status mmt_gemm_batched(mmt_ctx *ctx, const mmt_gemm_desc *desc, int64_t m, int64_t n, int64_t k,
                                    double alpha, const void *const *a, int64_t lda, const void *const *b, int64_t ldb,
                                    double beta, void *const *c, int64_t ldc, int64_t batch);

/* A grouped GEMM, as a mixture of experts' layer runs one: `groups` GEMMs that share n, k
 * and the descriptor, GEMM g of m_sizes[g] rows (0 allowed; m_sizes in host memory). The
 * groups' rows follow one another in op(A) and in C (group g's first row is the sum of the
 * sizes before it), and each has its own B: B_g = b + g * stride_b (elements of B's type; 0
 * has every group read the same B):
 *     C[rows of g] = alpha * op(A)[rows of g] * op(B_g) + beta * C[rows of g]
 * with the rules of mmt_gemm_ex, lda and ldc those of the whole op(A) and C. The whole call
 * is checked before anything is written: MMT_INVALID_ARGUMENT for a negative group count,
 * size or stride_b, NULL m_sizes with groups, sizes whose sum or whose last B would lie
 * beyond 64-bit sizes, and whatever mmt_gemm_ex refuses of the whole (sum x n x k) problem.
 * On the CPU, groups of at most 2^18 multiply-adds each are spread over the host's cores as
 * a strided batch's GEMMs are (mmt_gemm_strided_batched), a group to a thread as threads
 * come free, each computed as mmt_gemm_ex computes it alone; larger ones run one after
 * another. On a GPU (asynchronously on the context's stream), groups of at most 64 rows on
 * average, every matrix and row 16-byte aligned, are one call of cuBLAS's grouped form where
 * the vendor serves (bf16, f16, f32, tf32, C of the input type); else bf16 and f16 with C of
 * their type and e4m3 and e5m2 with C of f32, bf16 or f16, row-major C = A B^T with B's one
 * after another (stride_b n * ldb) or one (0), 16-byte aligned, are one launch of the
 * templates for all groups, where the vendor serves only for groups of at most 256 rows on
 * average, and never where a group of the average rows would fill the GPU alone; the others run one after another. A group that fails as
 * it runs fails the call with the status of the lowest-numbered group that failed; the
 * others may have been written or not.
 * mmt_last_choice says what served the call, or its last group of rows. */
MMT_API mmt_status mmt_gemm_grouped(mmt_ctx *ctx, const mmt_gemm_desc *desc, int64_t groups, const int64_t *m_sizes,
                                    int64_t n, int64_t k, double alpha, const void *a, int64_t lda, const void *b,
                                    int64_t ldb, int64_t stride_b, double beta, void *c, int64_t ldc);

/* What a GEMM does to its result before C keeps it (an epilogue, as cuBLASLt's epilogues and
 * oneDNN's post-ops):
 *     C = scale * act(alpha * op(A) * op(B) + beta * C + bias)
 * beta * C is a residual add where C holds the residual. Rows and columns are those of C as
 * the call sees it (m x n), whatever the layout.
 *   bias_kind  MMT_BIAS_NONE, MMT_BIAS_PER_ROW (m values: bias[i] is added to row i), or
 *              MMT_BIAS_PER_COL (n values: bias[j] to column j, a layer's output features
 *              where C is row-major activations x features)
 *   bias_type  MMT_F32, or C's own type (FP8 C's: MMT_F32)
 *   bias       where the bias lies: host memory on the CPU, device memory on a GPU
 *   act        MMT_ACT_NONE, MMT_ACT_RELU (max(x, 0)), or MMT_ACT_GELU_TANH
 *              (0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), GELU's tanh form)
 *   scale      FP8 C's scale (the output's, of a tensor scaled into FP8's range), applied
 *              before C is rounded (and saturated); 0 reads as 1, so a zeroed epilogue has
 *              none. C of another type takes 0 or 1. */
typedef enum mmt_bias_kind { MMT_BIAS_NONE = 0, MMT_BIAS_PER_ROW = 1, MMT_BIAS_PER_COL = 2 } mmt_bias_kind;
typedef enum mmt_activation { MMT_ACT_NONE = 0, MMT_ACT_RELU = 1, MMT_ACT_GELU_TANH = 2 } mmt_activation;
typedef struct mmt_epilogue {
    mmt_bias_kind bias_kind;
    mmt_dtype bias_type;
    const void *bias;
    mmt_activation act;
    float scale;
} mmt_epilogue;

/* mmt_gemm_ex followed by the epilogue epi (NULL: none), with its rules. The GEMM's sum is
 * rounded to C's type, then the bias added and the activation applied (in C's precision on
 * the CPU; in fp32 on a GPU, fp64 for f64 C, for 16-bit C rounded once more). On the CPU,
 * where the template serves the GEMM, a variant of it applies the epilogue to each block of
 * C as its values become final (built off the call's path on the first call of its kind,
 * the calls before it running the pass below; mmt_wait_kernels waits for it); elsewhere the
 * GEMM writes C, then the host's cores apply the epilogue to it in one pass (on as many
 * threads as C's size pays for). On a GPU, where a wgmma, mma.sync or CUDA-core kernel
 * serves the GEMM, a variant of it applies the epilogue in its store (the sum, the bias and
 * the activation in fp32, fp64 for f64 C, C rounded once; 16-bit C's GELU by the hardware's
 * tanh), built off the call's path on the first call of its kind, the calls before it is
 * built running the epilogue's kernel after the GEMM (mmt_wait_kernels waits for it); where
 * cuBLAS serves the GEMM, beta is 0, A's, B's and C's rows start on 16 bytes and the bias
 * (if any) runs along the rows of a row-major C or the columns of a column-major one,
 * cuBLASLt's epilogue is fused into the GEMM where it has an algorithm for it (the sum and
 * the bias rounded to C once; GELU on doubles excepted: cuBLASLt's is a single-precision
 * one); elsewhere the epilogue's kernel follows the GEMM on the context's stream (built on
 * the first call of its C type and bias type, as a kernel is).
 * Returns MMT_INVALID_ARGUMENT for an epilogue value outside its enum, a bias of another
 * type than fp32 or C's, a NULL bias with a bias_kind, a bias that overlaps C, or on a GPU
 * a bias in host memory, a scale that is not finite, or one other than 1 for C not FP8;
 * MMT_UNSUPPORTED for host matrices on a GPU context; nothing is written then. FP8 C (a GPU's
 * wgmma kernels): the sum, bias, activation and scale in fp32, C rounded once, in the
 * kernel's store; the calls before that variant is built run the GEMM into scratch fp32 C,
 * then the epilogue's kernel from it into C (the call waits for both: the scratch is freed). */
MMT_API mmt_status mmt_gemm_epilogue(mmt_ctx *ctx, const mmt_gemm_desc *desc, const mmt_epilogue *epi, int64_t m,
                                     int64_t n, int64_t k, double alpha, const void *a, int64_t lda, const void *b,
                                     int64_t ldb, double beta, void *c, int64_t ldc);

/* Which kernels mmt_sgemm may run. MMT_SGEMM_F32 (the default): plain fp32 only.
 * MMT_SGEMM_ALLOW_F32X3: per shape, the faster of the tuned fp32 and f32x3 kernels (f32x3
 * keeps fp32-level accuracy but rounds differently). The environment variable
 * MMTUNE_SGEMM=f32x3 sets MMT_SGEMM_ALLOW_F32X3 on every context when it is opened. */
typedef enum mmt_sgemm_policy { MMT_SGEMM_F32 = 0, MMT_SGEMM_ALLOW_F32X3 = 1 } mmt_sgemm_policy;
MMT_API mmt_status mmt_set_sgemm_policy(mmt_ctx *ctx, mmt_sgemm_policy policy);

/* Whether later GEMM calls on ctx must give the same bits on every run. on = 1: no call runs
 * a kernel whose split-K slices add into C atomically (in an order that varies from run to
 * run); a shape tuned to one runs the nearest tuned configuration that sums its slices in the
 * order of K or does not split K, else the default. Each kernel then gives the same bits for
 * the same inputs on the same device, in this process and the next, as long as the database
 * serves the same configuration (tuning in between may change it). on = 0 (the default)
 * allows every kernel. The environment variable MMTUNE_REPRODUCIBLE=1 sets it on every
 * context when it is opened. Returns MMT_INVALID_ARGUMENT for another value of on. */
MMT_API mmt_status mmt_set_reproducible(mmt_ctx *ctx, int on);

/* Which algorithms the GEMM functions of a context may run (mmt_sgemm, mmt_dgemm and
 * mmt_gemm_ex alike).
 *   MMT_CLASSIC_ONLY (the default): the classic algorithm, whose rounding error is bounded
 *     element by element, |C - fl(C)| <= ~K u |A| |B|: what BLAS callers rely on.
 *   MMT_ALLOW_STRASSEN: f32 and f64 problems for which the tuner measured one or two
 *     Strassen-Winograd levels around its tuned kernel faster than the kernel alone (large
 *     problems; mmtune's levels round) run those levels: 1/8 fewer products per level, for
 *     an error bounded only in norm, ||C - fl(C)|| <= c_L K u ||A|| ||B||. On random data it
 *     grows by about 2.6x per level (measured, f32 and f64; the tuner admits sqrt(7)); on data
 *     whose rows or columns differ widely in scale, small elements of C can lose their
 *     relative accuracy entirely. A level needs m k + k n + m n / 2 elements of scratch
 *     memory (2.5 square matrices of the problem's size; a second level adds a quarter of
 *     that), kept by the context; Strassen calls of one context take turns on it, and one that
 *     fails part way leaves C undefined.
 * The environment variable MMTUNE_ALGORITHM=strassen sets MMT_ALLOW_STRASSEN on every
 * context when it is opened (classic: the default). mmt_last_choice's configuration text
 * names the levels a call ran ("...,LEVELS=1"; none: the classic algorithm). */
typedef enum mmt_algorithm_policy { MMT_CLASSIC_ONLY = 0, MMT_ALLOW_STRASSEN = 1 } mmt_algorithm_policy;
MMT_API mmt_status mmt_set_algorithm_policy(mmt_ctx *ctx, mmt_algorithm_policy policy);

/* Host matrices on a GPU context (out of core). When A, B and C of a GEMM call on a GPU
 * context are all host memory (memory CUDA does not know, or pinned host memory; one
 * pointer query per operand tells), the call runs out of core: C is split into tiles of
 * tile_m x tile_n; for each tile, panels of op(A) (tile_m x panel_k) and op(B) (panel_k x
 * tile_n) are packed into pinned staging buffers and copied to the GPU on `streams` copy
 * streams (2: double buffering) while the kernel of the previous panel runs on the
 * context's stream (where the application pinned A, B and C itself, with cudaMallocHost,
 * cudaHostRegister or a framework's pinned tensors, the copies read and write them in
 * place instead: no host copy of every byte, which is what bounds several GPUs), the tile
 * is accumulated on the GPU across the panels (beta on the first, 1 after: beta == 0
 * never reads C) and written back while the next tile computes.
 * Each tile runs the kernel the database serves for the tile's own problem on that GPU
 * (mmt_last_choice's configuration is that of the first tile, followed by
 * ",OOC_TILE_M=...,OOC_TILE_N=...,OOC_PANEL_K=...,OOC_STREAMS=...,OOC_GPUS=...,OOC_TUNED=...,
 * OOC_PINNED=...", OOC_TUNED saying where knobs left at 0 came from: the database's tune of
 * this problem (exact), of the nearest one (nearest), the defaults (none), or the defaults
 * because the tuned ones did not fit (too_big); OOC_PINNED 1 where the copies read and
 * wrote the caller's pinned matrices in place, 0 where they went through staging). Any size
 * the host holds runs, larger than the GPU's memory too; the GPU needs two C tiles and
 * `streams` pairs of panels (and as much pinned host memory). The call is synchronous;
 * host-memory calls of one context take turns. A failure with MMT_OUT_OF_MEMORY (the tiles
 * the caller set do not fit, buffers that cannot be had), MMT_UNSUPPORTED (a GPU that
 * cannot be set up) or MMT_INVALID_ARGUMENT leaves C untouched; any other (a kernel's) may
 * leave it partly written, except where one of several GPUs fails part way: the others
 * compute its unfinished tiles, and the call returns MMT_LAUNCH with mmt_last_error saying
 * "C is complete" (the full result is in C; that GPU's context may be lost for later
 * calls). A call whose operands mix host and device memory is MMT_INVALID_ARGUMENT, with
 * nothing written.
 *
 * The knobs (0 or NULL: chosen): tile_m, tile_n, rows and columns of a C tile as the caller
 * stores C (default: the tuned value where `mmtune` tuned the problem or a near one, else
 * the whole side up to 4096, else half of it, at most 32768); panel_k, the depth of the
 * panels (default: tuned, else 2048; a bf16 or f16 C takes all of K in one panel, so that
 * it is rounded once); streams, 1 to 8 (default: tuned, else 2); devices, the GPUs the
 * tiles are dealt across: "all", or ordinals like "0,1" (default: the context's GPU alone).
 * Chosen sizes are halved until the buffers fit in 60% of each GPU's free memory and a
 * quarter of the host's; sizes the caller set that do not fit fail the call
 * (MMT_OUT_OF_MEMORY, nothing written). The environment sets them for every GPU context
 * when it is opened: MMTUNE_OOC_TILE (N or MxN), MMTUNE_OOC_PANEL, MMTUNE_OOC_STREAMS,
 * MMTUNE_OOC_DEVICES. Returns MMT_INVALID_ARGUMENT for a negative size, streams outside 1
 * to 8 or a malformed device list, MMT_NOT_FOUND for a GPU the host lacks, and
 * MMT_UNSUPPORTED on a CPU context; the context's settings are unchanged then. cfg NULL
 * restores the defaults. */
typedef struct mmt_host_gemm_config {
    int64_t tile_m, tile_n, panel_k;
    int streams;
    const char *devices;
} mmt_host_gemm_config;
MMT_API mmt_status mmt_set_host_gemm(mmt_ctx *ctx, const mmt_host_gemm_config *cfg);

#ifdef __cplusplus
}
#endif
#endif /* MMTUNED_H */
