/* cuda_driver.h - the CUDA libraries as backend_cuda.c opens them (dlopen): the driver's and
 * NVRTC's function tables, and the error and context helpers that the CUDA backend's other
 * files (backend_cuda_compile.c, backend_cuda_async.c) share with it. Internal to the
 * backend_cuda*.c files: the rest of src/ sees backend.h alone. */
#ifndef MMT_CUDA_DRIVER_H
#define MMT_CUDA_DRIVER_H

/* The headers come from the CUDA toolkit; the build should put its include directory on
 * the path (CMake: CUDAToolkit_INCLUDE_DIRS). Without them the backend_cuda*.c files
 * build stubs. */
#if __has_include(<cuda.h>) && __has_include(<nvrtc.h>)
#include <cuda.h>
#include <nvrtc.h>
#define MMT_HAVE_CUDA_HEADERS 1
#else
#define MMT_HAVE_CUDA_HEADERS 0
#endif
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#include "backend.h"

#if MMT_HAVE_CUDA_HEADERS

/* Driver and NVRTC functions: field name, API name (cuda.h's macros pick the versioned
 * symbol, and __typeof__ its prototype). */
#define CU_FUNCS(X)                                   \
    X(Init, cuInit)                                   \
    X(DriverGetVersion, cuDriverGetVersion)           \
    X(DeviceGetCount, cuDeviceGetCount)               \
    X(DeviceGet, cuDeviceGet)                         \
    X(DeviceGetName, cuDeviceGetName)                 \
    X(DeviceGetAttribute, cuDeviceGetAttribute)       \
    X(DevicePrimaryCtxRetain, cuDevicePrimaryCtxRetain) \
    X(CtxGetCurrent, cuCtxGetCurrent)                 \
    X(CtxSetCurrent, cuCtxSetCurrent)                 \
    X(CtxPushCurrent, cuCtxPushCurrent)               \
    X(CtxPopCurrent, cuCtxPopCurrent)                 \
    X(CtxSynchronize, cuCtxSynchronize)               \
    X(ModuleLoadData, cuModuleLoadData)               \
    X(ModuleUnload, cuModuleUnload)                   \
    X(ModuleGetFunction, cuModuleGetFunction)         \
    X(FuncSetAttribute, cuFuncSetAttribute)           \
    X(FuncGetAttribute, cuFuncGetAttribute)           \
    X(LaunchKernel, cuLaunchKernel)                   \
    X(MemAlloc, cuMemAlloc)                           \
    X(MemFree, cuMemFree)                             \
    X(MemcpyHtoD, cuMemcpyHtoD)                       \
    X(MemcpyDtoH, cuMemcpyDtoH)                       \
    X(MemcpyDtoD, cuMemcpyDtoD)                       \
    X(MemcpyHtoDAsync, cuMemcpyHtoDAsync)             \
    X(MemcpyDtoHAsync, cuMemcpyDtoHAsync)             \
    X(MemGetInfo, cuMemGetInfo)                       \
    X(MemHostAlloc, cuMemHostAlloc)                   \
    X(MemFreeHost, cuMemFreeHost)                     \
    X(Memcpy2DAsync, cuMemcpy2DAsync)                 \
    X(MemsetD2D8Async, cuMemsetD2D8Async)             \
    X(MemPoolCreate, cuMemPoolCreate)                 \
    X(MemPoolDestroy, cuMemPoolDestroy)               \
    X(MemPoolSetAttribute, cuMemPoolSetAttribute)     \
    X(MemAllocFromPoolAsync, cuMemAllocFromPoolAsync) \
    X(MemFreeAsync, cuMemFreeAsync)                   \
    X(StreamCreate, cuStreamCreate)                   \
    X(StreamDestroy, cuStreamDestroy)                 \
    X(StreamWaitEvent, cuStreamWaitEvent)             \
    X(StreamSynchronize, cuStreamSynchronize)         \
    X(StreamGetCtx, cuStreamGetCtx)                   \
    X(EventCreate, cuEventCreate)                     \
    X(EventRecord, cuEventRecord)                     \
    X(EventSynchronize, cuEventSynchronize)           \
    X(EventElapsedTime, cuEventElapsedTime)           \
    X(EventDestroy, cuEventDestroy)                   \
    X(PointerGetAttribute, cuPointerGetAttribute)     \
    X(TensorMapEncodeTiled, cuTensorMapEncodeTiled)   \
    X(GetErrorString, cuGetErrorString)               \
    X(GetErrorName, cuGetErrorName)

#define NVRTC_FUNCS(X)                          \
    X(Version, nvrtcVersion)                    \
    X(CreateProgram, nvrtcCreateProgram)        \
    X(CompileProgram, nvrtcCompileProgram)      \
    X(DestroyProgram, nvrtcDestroyProgram)      \
    X(GetProgramLogSize, nvrtcGetProgramLogSize) \
    X(GetProgramLog, nvrtcGetProgramLog)        \
    X(GetCUBINSize, nvrtcGetCUBINSize)          \
    X(GetCUBIN, nvrtcGetCUBIN)                  \
    X(GetErrorString, nvrtcGetErrorString)

#define DECLARE_FN_(field, sym) __typeof__(sym) *field;
extern struct mmt_cu {
    void *lib;
    CU_FUNCS(DECLARE_FN_)
} mmt_cu;
extern struct mmt_nvrtc {
    void *lib;
    int major, minor;
    NVRTC_FUNCS(DECLARE_FN_)
} mmt_nvrtc;
#undef DECLARE_FN_

/* NVRTC opens once (backend_cuda_compile.c): pthread_once(&mmt_nvrtc_once, mmt_nvrtc_open);
 * where it did not, mmt_nvrtc.lib is NULL and mmt_nvrtc_why says why. */
extern pthread_once_t mmt_nvrtc_once;
extern char mmt_nvrtc_why[512];
void mmt_nvrtc_open(void);

/* The first of names that dlopen opens; NULL with why set where none does. */
static inline void *mmt_cuda_open_first(const char *const *names, char *why, size_t size)
{
    for (int i = 0; names[i]; i++) {
        void *h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (h) return h;
    }
    const char *e = dlerror();
    snprintf(why, size, "cannot open %s (%s)", names[0], e ? e : "not found");
    return NULL;
}

/* Sets err to st: the call `what` failed with rc, named and described by the driver. */
mmt_status mmt_cuda_fail(mmt_err *err, mmt_status st, CUresult rc, const char *what);
/* MMT_OK where libcuda opened and cuInit succeeded (once), else MMT_UNSUPPORTED and why. */
mmt_status mmt_cuda_need_driver(mmt_err *err);

/* A context made current for one backend call: pushed unless it is current already, and
 * popped by mmt_cuda_leave, which restores the caller's. */
typedef struct mmt_cuda_scope {
    int pushed;
} mmt_cuda_scope;

/* GPU ordinal's primary context made current for one call (retained on first use). */
mmt_status mmt_cuda_enter_ordinal(int ordinal, mmt_cuda_scope *sc, mmt_err *err);
/* For calls that name no device: the current context if there is one, else the last one
 * entered, else device 0's. */
mmt_status mmt_cuda_enter_default(mmt_cuda_scope *sc, mmt_err *err);
void mmt_cuda_leave(mmt_cuda_scope *sc);

/* The backend's compile and compiler_id (backend_cuda_compile.c). */
mmt_status mmt_cuda_compile(const mmt_device_info *dev, const char *source, const char *defines, void **bin,
                            size_t *size, char **log, mmt_err *err);
const char *mmt_cuda_compiler_id(const mmt_device_info *dev);

#endif /* MMT_HAVE_CUDA_HEADERS */
#endif
