/* backend_cuda_async.c - the stream-ordered calls of backend.h's mmt_cuda_async table:
 * device and pinned host memory, memory pools, non-blocking streams, events and
 * asynchronous copies, each on a device's primary context as backend_cuda.c enters it
 * (cuda_driver.h). The out-of-core GEMM (ooc.c) drives GPUs with them; cuBLASLt's workspace
 * (cublaslt.c) and a call's check of where its operands live (api.c) use them too. */
#include <stdint.h>
#include <string.h>

#include "cuda_driver.h"

#if !MMT_HAVE_CUDA_HEADERS
/* Built without the CUDA toolkit's headers: no driver. */
const mmt_cuda_async *mmt_cuda_async_api(void) { return NULL; }
#else

/* ---- streams, events, pinned memory: the out-of-core GEMM's (ooc.c) ----------------------- */

/* Each call makes the device's primary context current for itself (and restores the
 * caller's), so any thread may call; a failure names the driver call. */
#define ON_DEVICE(ordinal, call, st, what)                                     \
    do {                                                                       \
        mmt_cuda_scope sc_;                                                    \
        FORWARD_IF_ERROR(mmt_cuda_enter_ordinal((ordinal), &sc_, err));        \
        CUresult rc_ = (call);                                                 \
        mmt_cuda_leave(&sc_);                                                  \
        if (rc_ != CUDA_SUCCESS) return mmt_cuda_fail(err, (st), rc_, (what)); \
    } while (0)

/* The type CUDA records for ptr's memory (CU_MEMORYTYPE_*), 0 for memory it does not know.
 * One query; again inside a context where none was current. */
static unsigned memory_type(const void *ptr)
{
    unsigned type = 0;
    CUresult rc = mmt_cu.PointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (CUdeviceptr)(uintptr_t)ptr);
    if (rc == CUDA_ERROR_INVALID_CONTEXT) {
        mmt_cuda_scope sc;
        if (mmt_cuda_enter_default(&sc, NULL) != MMT_OK) return 0;
        rc = mmt_cu.PointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (CUdeviceptr)(uintptr_t)ptr);
        mmt_cuda_leave(&sc);
    }
    return rc == CUDA_SUCCESS ? type : 0;
}

/* Memory that CUDA does not know, or host memory it pinned, is host memory; anything else
 * (device, managed) is the device's. */
static int async_is_host(const void *ptr)
{
    const unsigned type = memory_type(ptr);
    return type == 0 || type == CU_MEMORYTYPE_HOST;
}

/* Host memory that CUDA pinned (cuMemHostAlloc, cuMemHostRegister): copies read it in place. */
static int async_is_pinned(const void *ptr) { return memory_type(ptr) == CU_MEMORYTYPE_HOST; }

static mmt_status async_mem_free(int ordinal, int64_t *free_bytes, mmt_err *err)
{
    size_t fr = 0, total = 0;
    ON_DEVICE(ordinal, mmt_cu.MemGetInfo(&fr, &total), MMT_LAUNCH, "cuMemGetInfo");
    *free_bytes = (int64_t)fr;
    return MMT_OK;
}

static mmt_status async_dev_alloc(int ordinal, size_t size, void **ptr, mmt_err *err)
{
    CUdeviceptr d = 0;
    *ptr = NULL;
    mmt_cuda_scope sc;
    FORWARD_IF_ERROR(mmt_cuda_enter_ordinal(ordinal, &sc, err));
    CUresult rc = mmt_cu.MemAlloc(&d, size ? size : 1);
    mmt_cuda_leave(&sc);
    if (rc != CUDA_SUCCESS)
        return mmt_cuda_fail(err, rc == CUDA_ERROR_OUT_OF_MEMORY ? MMT_OUT_OF_MEMORY : MMT_LAUNCH, rc, "cuMemAlloc");
    *ptr = (void *)(uintptr_t)d;
    return MMT_OK;
}

static mmt_status async_host_alloc(int ordinal, size_t size, void **ptr, mmt_err *err)
{
    *ptr = NULL;
    mmt_cuda_scope sc;
    FORWARD_IF_ERROR(mmt_cuda_enter_ordinal(ordinal, &sc, err));
    CUresult rc = mmt_cu.MemHostAlloc(ptr, size ? size : 1, CU_MEMHOSTALLOC_PORTABLE);
    mmt_cuda_leave(&sc);
    if (rc != CUDA_SUCCESS) {
        *ptr = NULL;
        return mmt_cuda_fail(err, rc == CUDA_ERROR_OUT_OF_MEMORY ? MMT_OUT_OF_MEMORY : MMT_LAUNCH, rc,
                             "cuMemHostAlloc");
    }
    return MMT_OK;
}

/* The releases: a failure has nowhere to go (the resource is gone or the context is). */
static void async_release(int ordinal, int what, void *x)
{
    mmt_cuda_scope sc;
    if (!x || mmt_cuda_enter_ordinal(ordinal, &sc, NULL) != MMT_OK) return;
    switch (what) {
    case 0: mmt_cu.MemFree((CUdeviceptr)(uintptr_t)x); break;
    case 1: mmt_cu.MemFreeHost(x); break;
    case 2: mmt_cu.StreamDestroy((CUstream)x); break;
    default: mmt_cu.EventDestroy((CUevent)x); break;
    }
    mmt_cuda_leave(&sc);
}
static void async_dev_free(int ordinal, void *ptr) { async_release(ordinal, 0, ptr); }

/* A pool of device memory of libmmtuned's own (the application's pools keep their
 * settings), which keeps up to `keep` bytes between uses instead of giving them back at
 * each synchronisation. */
static mmt_status async_pool_new(int ordinal, size_t keep, void **pool, mmt_err *err)
{
    CUmemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    props.location.id = ordinal;
    CUmemoryPool mp = NULL;
    cuuint64_t threshold = keep;
    *pool = NULL;
    ON_DEVICE(ordinal, mmt_cu.MemPoolCreate(&mp, &props), MMT_LAUNCH, "cuMemPoolCreate");
    if (mmt_cu.MemPoolSetAttribute(mp, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &threshold) != CUDA_SUCCESS) {
        mmt_cu.MemPoolDestroy(mp);
        return mmt_err_set(err, MMT_LAUNCH, "cuMemPoolSetAttribute failed");
    }
    *pool = mp;
    return MMT_OK;
}

static void async_pool_free(int ordinal, void *pool)
{
    mmt_cuda_scope sc;
    if (!pool || mmt_cuda_enter_ordinal(ordinal, &sc, NULL) != MMT_OK) return;
    mmt_cu.MemPoolDestroy((CUmemoryPool)pool);
    mmt_cuda_leave(&sc);
}

static mmt_status async_pool_alloc(int ordinal, void *pool, size_t size, void *stream, void **ptr, mmt_err *err)
{
    CUdeviceptr d = 0;
    *ptr = NULL;
    ON_DEVICE(ordinal, mmt_cu.MemAllocFromPoolAsync(&d, size ? size : 1, (CUmemoryPool)pool, (CUstream)stream),
              MMT_OUT_OF_MEMORY, "cuMemAllocFromPoolAsync");
    *ptr = (void *)(uintptr_t)d;
    return MMT_OK;
}

static void async_pool_release(int ordinal, void *ptr, void *stream)
{
    mmt_cuda_scope sc;
    if (!ptr || mmt_cuda_enter_ordinal(ordinal, &sc, NULL) != MMT_OK) return;
    mmt_cu.MemFreeAsync((CUdeviceptr)(uintptr_t)ptr, (CUstream)stream);
    mmt_cuda_leave(&sc);
}
static void async_host_free(int ordinal, void *ptr) { async_release(ordinal, 1, ptr); }
static void async_stream_free(int ordinal, void *stream) { async_release(ordinal, 2, stream); }
static void async_event_free(int ordinal, void *event) { async_release(ordinal, 3, event); }

/* Non-blocking: no implicit order with the legacy default stream, which may be the one
 * the kernels run on. */
static mmt_status async_stream_new(int ordinal, void **stream, mmt_err *err)
{
    CUstream s = NULL;
    *stream = NULL;
    ON_DEVICE(ordinal, mmt_cu.StreamCreate(&s, CU_STREAM_NON_BLOCKING), MMT_LAUNCH, "cuStreamCreate");
    *stream = s;
    return MMT_OK;
}

static mmt_status async_event_new(int ordinal, void **event, mmt_err *err)
{
    CUevent e = NULL;
    *event = NULL;
    ON_DEVICE(ordinal, mmt_cu.EventCreate(&e, CU_EVENT_DISABLE_TIMING), MMT_LAUNCH, "cuEventCreate");
    *event = e;
    return MMT_OK;
}

static mmt_status async_record(int ordinal, void *event, void *stream, mmt_err *err)
{
    ON_DEVICE(ordinal, mmt_cu.EventRecord((CUevent)event, (CUstream)stream), MMT_LAUNCH, "cuEventRecord");
    return MMT_OK;
}

/* Where an earlier asynchronous failure (a kernel's fault) shows up. */
static mmt_status async_wait_host(int ordinal, void *event, mmt_err *err)
{
    ON_DEVICE(ordinal, mmt_cu.EventSynchronize((CUevent)event), MMT_LAUNCH, "cuEventSynchronize");
    return MMT_OK;
}

static mmt_status async_wait_stream(int ordinal, void *stream, void *event, mmt_err *err)
{
    ON_DEVICE(ordinal, mmt_cu.StreamWaitEvent((CUstream)stream, (CUevent)event, 0), MMT_LAUNCH, "cuStreamWaitEvent");
    return MMT_OK;
}

static mmt_status async_copy(int ordinal, void *dst, const void *src, size_t size, mmt_copy_dir dir, void *stream,
                             mmt_err *err)
{
    if (size == 0) return MMT_OK;
    if (dir == MMT_H2D)
        ON_DEVICE(ordinal, mmt_cu.MemcpyHtoDAsync((CUdeviceptr)(uintptr_t)dst, src, size, (CUstream)stream), MMT_LAUNCH,
                  "cuMemcpyHtoDAsync");
    else
        ON_DEVICE(ordinal, mmt_cu.MemcpyDtoHAsync(dst, (CUdeviceptr)(uintptr_t)src, size, (CUstream)stream), MMT_LAUNCH,
                  "cuMemcpyDtoHAsync");
    return MMT_OK;
}

static mmt_status async_sync(int ordinal, void *stream, mmt_err *err)
{
    ON_DEVICE(ordinal, mmt_cu.StreamSynchronize((CUstream)stream), MMT_LAUNCH, "cuStreamSynchronize");
    return MMT_OK;
}

static mmt_status async_copy_2d(int ordinal, void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                size_t rows, mmt_copy_dir dir, void *stream, mmt_err *err)
{
    if (width == 0 || rows == 0) return MMT_OK;
    CUDA_MEMCPY2D c;
    memset(&c, 0, sizeof c);
    c.WidthInBytes = width, c.Height = rows, c.srcPitch = spitch, c.dstPitch = dpitch;
    if (dir == MMT_H2D) {
        c.srcMemoryType = CU_MEMORYTYPE_HOST, c.srcHost = src;
        c.dstMemoryType = CU_MEMORYTYPE_DEVICE, c.dstDevice = (CUdeviceptr)(uintptr_t)dst;
    } else {
        c.srcMemoryType = CU_MEMORYTYPE_DEVICE, c.srcDevice = (CUdeviceptr)(uintptr_t)src;
        c.dstMemoryType = CU_MEMORYTYPE_HOST, c.dstHost = dst;
    }
    ON_DEVICE(ordinal, mmt_cu.Memcpy2DAsync(&c, (CUstream)stream), MMT_LAUNCH, "cuMemcpy2DAsync");
    return MMT_OK;
}

static mmt_status async_zero_2d(int ordinal, void *dst, size_t pitch, size_t width, size_t rows, void *stream,
                                mmt_err *err)
{
    if (width == 0 || rows == 0) return MMT_OK;
    ON_DEVICE(ordinal, mmt_cu.MemsetD2D8Async((CUdeviceptr)(uintptr_t)dst, pitch, 0, width, rows, (CUstream)stream),
              MMT_LAUNCH, "cuMemsetD2D8Async");
    return MMT_OK;
}

static const mmt_cuda_async async_api = {
    .is_host = async_is_host,
    .is_pinned = async_is_pinned,
    .mem_free = async_mem_free,
    .dev_alloc = async_dev_alloc,
    .dev_free = async_dev_free,
    .pool_new = async_pool_new,
    .pool_free = async_pool_free,
    .pool_alloc = async_pool_alloc,
    .pool_release = async_pool_release,
    .host_alloc = async_host_alloc,
    .host_free = async_host_free,
    .stream_new = async_stream_new,
    .stream_free = async_stream_free,
    .event_new = async_event_new,
    .event_free = async_event_free,
    .record = async_record,
    .wait_host = async_wait_host,
    .wait_stream = async_wait_stream,
    .copy = async_copy,
    .sync = async_sync,
    .copy_2d = async_copy_2d,
    .zero_2d = async_zero_2d,
};

const mmt_cuda_async *mmt_cuda_async_api(void)
{
    mmt_err ignore;
    return mmt_cuda_need_driver(&ignore) == MMT_OK ? &async_api : NULL;
}

#endif /* MMT_HAVE_CUDA_HEADERS */
