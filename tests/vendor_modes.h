/* vendor_modes.h - the modes cuBLAS serves on a GPU (bf16 and f16 with 16-bit and f32 C,
 * tf32, f32x3, f32, f64), with the routine and the strided-batched routine that a vendor
 * configuration of each names (test_gpu_serve, test_gpu_batched). */
#ifndef MMT_VENDOR_MODES_H
#define MMT_VENDOR_MODES_H

#include "mmtuned.h"
#include "problem.h"

typedef struct mode_case {
    mmt_dtype ab, c;
    mmt_compute compute;
    mmt_mode mode;
    const char *routine, *batched;
} mode_case;

static const mode_case modes[] = {
    {MMT_BF16, MMT_F32, MMT_COMPUTE_NATIVE, MMT_MODE_BF16, "cublasGemmEx", "cublasGemmStridedBatchedEx"},
    {MMT_BF16, MMT_BF16, MMT_COMPUTE_NATIVE, MMT_MODE_BF16, "cublasGemmEx", "cublasGemmStridedBatchedEx"},
    {MMT_F16, MMT_F16, MMT_COMPUTE_NATIVE, MMT_MODE_F16, "cublasGemmEx", "cublasGemmStridedBatchedEx"},
    {MMT_F32, MMT_F32, MMT_COMPUTE_TF32, MMT_MODE_TF32, "cublasGemmEx", "cublasGemmStridedBatchedEx"},
    {MMT_F32, MMT_F32, MMT_COMPUTE_F32X3, MMT_MODE_F32X3, "cublasSgemm", "cublasSgemmStridedBatched"},
    {MMT_F32, MMT_F32, MMT_COMPUTE_NATIVE, MMT_MODE_F32, "cublasSgemm", "cublasSgemmStridedBatched"},
    {MMT_F64, MMT_F64, MMT_COMPUTE_NATIVE, MMT_MODE_F64, "cublasDgemm", "cublasDgemmStridedBatched"},
};

#endif
