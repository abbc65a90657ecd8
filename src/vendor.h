/* vendor.h - the vendor library a backend is compared with, in the same run: OpenBLAS on
 * the CPU, cuBLAS on CUDA GPUs, both opened with dlopen (absent -> the report says so). */
#ifndef MMT_VENDOR_H
#define MMT_VENDOR_H

#include "backend.h"
#include "problem.h"

typedef struct mmt_vendor mmt_vendor;

/* Opens the vendor library for a device; on failure *out is NULL and err says why. */
mmt_status mmt_vendor_open(const mmt_backend *be, const mmt_device_info *dev, mmt_vendor **out, mmt_err *err);
void mmt_vendor_close(mmt_vendor *v);

/* "OpenBLAS 0.3.21", "cuBLAS 13.1.0". */
const char *mmt_vendor_name(const mmt_vendor *v);

/* What the vendor's figure for a mode measures, for tables and the baseline row: the
 * name, tagged where it is not the plain routine of the mode's type ("cuBLAS 13.1.0
 * (TF32)"; "cuBLAS 13.1.0 (SGEMM)" for f32x3, whose baseline is plain SGEMM). */
void mmt_vendor_label(const mmt_vendor *v, mmt_mode mode, char *buf, size_t size);

/* MMT_OK if the library has a GEMM for the mode, else MMT_UNSUPPORTED and why ("OpenBLAS
 * has no bf16 GEMM"): nothing to measure, which is not a failed launch. */
mmt_status mmt_vendor_check(const mmt_vendor *v, mmt_mode mode, mmt_err *err);

/* A GEMM call for bench.h: user is a mmt_vendor_call (the problem's mode and C's type). */
typedef struct mmt_vendor_call {
    mmt_vendor *v;
    mmt_mode mode;
    mmt_dtype out;
} mmt_vendor_call;
mmt_status mmt_vendor_gemm(void *call, const mmt_gemm_params *p, void *stream, mmt_err *err);

#endif
