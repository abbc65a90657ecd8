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

/* "OpenBLAS 0.3.21", "cuBLAS 130000". */
const char *mmt_vendor_name(const mmt_vendor *v);

/* A GEMM call for bench.h: user is a mmt_vendor_call. */
typedef struct mmt_vendor_call {
    mmt_vendor *v;
    mmt_dtype dtype;
} mmt_vendor_call;
mmt_status mmt_vendor_gemm(void *call, const mmt_gemm_params *p, void *stream, mmt_err *err);

#endif
