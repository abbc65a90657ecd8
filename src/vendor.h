/* vendor.h - the vendor library of a backend: OpenBLAS on the CPU, cuBLAS on CUDA GPUs, both
 * opened with dlopen (absent -> the tuner's report says so, and libmmtuned serves its
 * templates alone). The tuner times it beside its winners in the same run; libmmtuned serves
 * it as a family like the templates, where it is the faster (the `vendor` family). Calls may
 * come from several threads at once. */
#ifndef MMT_VENDOR_H
#define MMT_VENDOR_H

#include "backend.h"
#include "problem.h"

/* The vendor family in the database: a best of template `vendor` (configuration
 * ROUTINE=<routine>) says the vendor library was the fastest for that problem, timed side by
 * side with every family's winner; its source hash is fixed (counted up should what serves
 * it change). */
#define MMT_VENDOR_TEMPLATE "vendor"
#define MMT_VENDOR_SOURCE_HASH "5cce1a1ca2083b1a98ca8ef9336c4aabd06c5409c9e782909765eb00d24a9c7c"

typedef struct mmt_vendor mmt_vendor;

/* Opens the vendor library for a device; on failure *out is NULL and err says why
 * (MMT_NOT_FOUND where it is not installed). It leaves the library's own settings alone. */
mmt_status mmt_vendor_open(const mmt_backend *be, const mmt_device_info *dev, mmt_vendor **out, mmt_err *err);
void mmt_vendor_close(mmt_vendor *v);

/* MMTUNE_VENDOR: unset, empty or `auto`, the vendor family competes (*off 0); `off`, the
 * vendor library is a yardstick only: libmmtuned never serves it and the tuner records no
 * best for it (*off 1). Another value is MMT_INVALID_ARGUMENT. */
mmt_status mmt_vendor_policy(int *off, mmt_err *err);

/* The tuner's comparisons: OpenBLAS on the cores our CPU kernels may use (the device's
 * `cores`); nothing on GPUs. A setting of the whole process, so libmmtuned never calls it. */
void mmt_vendor_use_device_cores(mmt_vendor *v, const mmt_device_info *dev);

/* The routine of a backend's vendor library that serves a mode ("cblas_sgemm",
 * "cublasGemmEx"): the vendor family's configuration text is ROUTINE=<it>. NULL where the
 * library has none (OpenBLAS: no bf16, f16, tf32 or f32x3; cuBLASLt: no e5m2 x e5m2). */
const char *mmt_vendor_routine(const mmt_backend *be, mmt_mode mode);
/* Whether the vendor library has a call for the row-major problem normal whose A, B and C
 * rows are align_a, align_b and align_c bytes aligned (mmt_align_bytes), with beta 0 or
 * not (beta_zero): its routine for the mode, and for FP8 the one orientation cuBLASLt
 * takes, row-major NT, on 16-byte aligned rows; FP8 C with beta 0 alone. */
int mmt_vendor_takes(const mmt_backend *be, const mmt_problem *normal, int align_a, int align_b, int align_c,
                     int beta_zero);

/* OpenBLAS picks its kernels from the CPU's model; a model it does not know (a virtual
 * machine's "Intel Xeon Processor") gets generic ones, 5x slower on AVX-512 (1,120 GFLOP/s
 * against 197-237 measured), and a tuner comparing against those would claim gains that are
 * not there. The tuner's processes therefore ask, before OpenBLAS is loaded in them, which
 * core it picks here (in a child process) and how far this CPU's vector instructions go;
 * where OpenBLAS picked a lower core, and OPENBLAS_CORETYPE is not set, they set it to the
 * core this CPU runs, which their children inherit. Never in an application's process:
 * libmmtuned leaves the vendor's settings alone. */
typedef struct mmt_vendor_core {
    char chosen[32]; /* the core OpenBLAS runs now ("Cooperlake"; "" where it is not installed) */
    char first[32];  /* the one it picked by itself, where that was raised */
    char host[16];   /* the core type this CPU runs at best ("SKYLAKEX", "HASWELL", "SANDYBRIDGE"; "" none) */
    int user_set;    /* OPENBLAS_CORETYPE was set before */
    int raised;      /* OPENBLAS_CORETYPE set to host here */
} mmt_vendor_core;
void mmt_vendor_fair_core(mmt_vendor_core *out);

/* The vector tier of an OpenBLAS core name: 3 AVX-512, 2 AVX2, 1 AVX, 0 older or unknown. */
int mmt_vendor_core_tier(const char *name);

/* A line for the tables: which core the vendor's figures are of, on how many threads, and
 * whether it is the best this CPU runs. */
void mmt_vendor_core_note(const mmt_vendor_core *c, int threads, char *buf, size_t size);

/* "OpenBLAS 0.3.21", "cuBLAS 13.1.0". */
const char *mmt_vendor_name(const mmt_vendor *v);

/* What the vendor's figure for a mode measures, for tables and the baseline row: the
 * name, tagged where it is not the plain routine of the mode's type ("cuBLAS 13.1.0
 * (TF32)"; "cuBLAS 13.1.0 (SGEMM)" for f32x3, whose baseline is plain SGEMM). */
void mmt_vendor_label(const mmt_vendor *v, mmt_mode mode, char *buf, size_t size);

/* MMT_OK if the library has a GEMM for the mode, else MMT_UNSUPPORTED and why ("OpenBLAS
 * has no bf16 GEMM"): nothing to measure, which is not a failed launch. */
mmt_status mmt_vendor_check(const mmt_vendor *v, mmt_mode mode, mmt_err *err);

/* How a call reaches the vendor library. On the CPU every route is the routine itself. */
typedef enum mmt_vendor_route {
    MMT_VENDOR_CALL = 0, /* the vendor's routine as an application calls it: the baseline, and
                            served where the tuner measured it the faster (ROUTINE=...,PLAN=0) */
    MMT_VENDOR_PLAN = 1, /* libmmtuned's serving path on a GPU: a cuBLASLt plan kept per small
                            problem where it needs no workspace (cublaslt.h), else the routine */
    MMT_VENDOR_PLAN_WORKSPACE = 2, /* the same, the plan allowed to need workspace: served only
                                      where the tuner measured it the faster (ROUTINE=cublasLtMatmul) */
} mmt_vendor_route;

/* The vendor family's configuration text of a route on backend be in mode, into buf:
 * ROUTINE=<the routine> (MMT_VENDOR_PLAN), ROUTINE=cublasLtMatmul (MMT_VENDOR_PLAN_WORKSPACE),
 * ROUTINE=<the routine>,PLAN=0 (MMT_VENDOR_CALL); on the host BLAS, whose routes are all its
 * routine, ROUTINE=<the routine> for each; NULL where be has no routine for mode.
 * mmt_vendor_route_of reads the route back from such a text (MMT_VENDOR_PLAN where it names
 * none: the configurations written before the routes). */
#define MMT_VENDOR_LT_ROUTINE "cublasLtMatmul"
const char *mmt_vendor_route_params(const mmt_backend *be, mmt_mode mode, mmt_vendor_route route, char *buf,
                                    size_t size);
mmt_vendor_route mmt_vendor_route_of(const char *params);

/* At most this many multiply-adds (M N K), OpenBLAS runs a real GEMM on the calling thread
 * whatever its thread count (interface/gemm.c: 65536 times GEMM_MULTITHREAD_THRESHOLD, a
 * constant of its build, 4 by default and in Debian's packages). It is the one safe way
 * libmmtuned has of an OpenBLAS GEMM on one thread: openblas_set_num_threads sets the whole
 * process's count, under the calls of the application's other threads too, and 0.3.21 has
 * nothing narrower. */
#define MMT_VENDOR_ONE_THREAD_MNK (1 << 18)

/* A GEMM call for bench.h: user is a mmt_vendor_call (the problem's mode and C's type, and
 * the route). */
typedef struct mmt_vendor_call {
    mmt_vendor *v;
    mmt_mode mode;
    mmt_dtype out;
    mmt_vendor_route route;
} mmt_vendor_call;
mmt_status mmt_vendor_gemm(void *call, const mmt_gemm_params *p, void *stream, mmt_err *err);

/* p's GEMM with an epilogue fused in by the vendor (cuBLASLt's: act, and bias, NULL or a
 * vector of bias_type with a value per column of p's row-major C; cublas.h); MMT_UNSUPPORTED,
 * nothing launched and nothing said, where the library cannot (the host BLAS, no cuBLASLt,
 * no algorithm for it): the caller runs the GEMM and the epilogue apart. */
mmt_status mmt_vendor_gemm_epilogue(const mmt_vendor_call *call, const mmt_gemm_params *p, mmt_activation act,
                                    const void *bias, mmt_dtype bias_type, void *stream, mmt_err *err);

/* The strided batch bt of p's GEMMs in one call of the vendor's strided-batched routine
 * (cuBLAS's own call; mmt_vendor_batched_routine names it); MMT_UNSUPPORTED, saying
 * nothing, where the library has none (the host BLAS): the caller runs the GEMMs one by one. */
mmt_status mmt_vendor_gemm_strided_batched(const mmt_vendor_call *call, const mmt_gemm_params *p, const mmt_batch *bt,
                                           void *stream, mmt_err *err);
const char *mmt_vendor_batched_routine(const mmt_vendor *v, mmt_mode mode);

/* count GEMMs (each its own sizes and operands, C of the input type) in one call of the
 * vendor's grouped routine (cuBLAS's grouped form; mmt_vendor_grouped_routine names it);
 * MMT_UNSUPPORTED, nothing launched, where the library has none or refuses the call: the
 * caller runs the GEMMs one by one. */
mmt_status mmt_vendor_gemm_grouped(const mmt_vendor_call *call, const mmt_gemm_params *ps, int count, void *stream,
                                   mmt_err *err);
const char *mmt_vendor_grouped_routine(const mmt_vendor *v, mmt_mode mode);

/* Whether route `other` runs p otherwise than MMT_VENDOR_PLAN for the call's library, mode
 * and C type: MMT_VENDOR_PLAN_WORKSPACE where p's plan with workspace allowed needs some,
 * MMT_VENDOR_CALL where p has a kept plan. The tuner then times both. */
int mmt_vendor_route_differs(const mmt_vendor_call *call, const mmt_gemm_params *p, mmt_vendor_route other);

#endif
