/* backend_cuda.c - the CUDA backend: templates are compiled by NVRTC to a cubin for the
 * device's exact architecture, loaded and launched through the driver API. libcuda and
 * libnvrtc are opened with dlopen, so libmmtuned loads (and serves the CPU) on machines
 * without them. This file opens libcuda and holds the contexts, devices, modules, launches
 * and memory; NVRTC (its opening and the compiling) is backend_cuda_compile.c's, and the
 * stream-ordered calls of mmt_cuda_async are backend_cuda_async.c's, which use this file's
 * helpers. What they share is declared in cuda_driver.h; these files alone include cuda.h
 * and nvrtc.h.
 *
 * Contexts: every device is used through its primary context (the one the CUDA runtime
 * and cuBLAS share), retained once and kept for the life of the process. Each entry point
 * pushes the right one on the calling thread's stack and pops it before returning, so the
 * tuner and the runtime library may call from any thread and an application with a
 * context of its own finds it current again afterwards. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "cuda_driver.h"
#include "elf_object.h"

#if !MMT_HAVE_CUDA_HEADERS
/* Built without the CUDA toolkit's headers: the backend never registers. */
const mmt_backend *mmt_backend_cuda(mmt_err *err)
{
    mmt_err_set(err, MMT_UNSUPPORTED, "CUDA backend unavailable: built without the CUDA headers");
    return NULL;
}
const mmt_backend *mmt_backend_cuda_compiler(mmt_err *err)
{
    mmt_err_set(err, MMT_UNSUPPORTED, "NVRTC is not available: built without the CUDA headers");
    return NULL;
}
mmt_status mmt_cuda_context_enter(int ordinal, int *pushed, mmt_err *err)
{
    *pushed = 0;
    return mmt_err_set(err, MMT_UNSUPPORTED, "no CUDA device %d: built without the CUDA headers", ordinal);
}
void mmt_cuda_context_leave(int pushed) { (void)pushed; }
#else

/* the templates read the first 112 bytes (mmt_params.h), gemm_wgmma.cu all 128 (its mmt_scaled_params) */
_Static_assert(sizeof(mmt_gemm_params) == 128, "templates/cuda/*.cu repeat this layout");

#define STR_(x) #x
#define XSTR(x) STR_(x) /* the symbol a cuda.h name maps to: cuMemAlloc -> "cuMemAlloc_v2" */

struct mmt_cu mmt_cu;

/* ---- opening the libraries ------------------------------------------------------------ */

static pthread_once_t cuda_once = PTHREAD_ONCE_INIT, init_once = PTHREAD_ONCE_INIT;
static char cuda_why[512];      /* empty when the library opened */
static CUresult init_rc = CUDA_ERROR_NOT_INITIALIZED;

static void open_cuda(void)
{
    static const char *const names[] = {"libcuda.so.1", "libcuda.so", NULL};
    mmt_cu.lib = mmt_cuda_open_first(names, cuda_why, sizeof cuda_why);
    if (!mmt_cu.lib) {
        snprintf(cuda_why, sizeof cuda_why, "the CUDA driver (libcuda.so.1) is not installed");
        return;
    }
#define LOAD_FN_(field, sym)                                                                  \
    if (!(*(void **)&mmt_cu.field = dlsym(mmt_cu.lib, XSTR(sym)))) {                          \
        snprintf(cuda_why, sizeof cuda_why, "libcuda lacks %s (driver too old?)", XSTR(sym)); \
        goto fail;                                                                            \
    }
    /* cuEventElapsedTime_v2 is CUDA 12.8+; older drivers have the same call unversioned. */
    if (!dlsym(mmt_cu.lib, XSTR(cuEventElapsedTime))) {
        *(void **)&mmt_cu.EventElapsedTime = dlsym(mmt_cu.lib, "cuEventElapsedTime");
        if (!mmt_cu.EventElapsedTime) {
            snprintf(cuda_why, sizeof cuda_why, "libcuda lacks cuEventElapsedTime");
            goto fail;
        }
    }
    CU_FUNCS(LOAD_FN_)
#undef LOAD_FN_
    return;
fail:
    dlclose(mmt_cu.lib);
    mmt_cu.lib = NULL;
}

static void init_cuda(void)
{
    pthread_once(&cuda_once, open_cuda);
    if (mmt_cu.lib) init_rc = mmt_cu.Init(0);
}

/* ---- errors ------------------------------------------------------------------------------ */

mmt_status mmt_cuda_fail(mmt_err *err, mmt_status st, CUresult rc, const char *what)
{
    const char *name = NULL, *text = NULL;
    if (mmt_cu.GetErrorName) mmt_cu.GetErrorName(rc, &name);
    if (mmt_cu.GetErrorString) mmt_cu.GetErrorString(rc, &text);
    return mmt_err_set(err, st, "%s: %s (%d): %s", what, name ? name : "CUDA error", (int)rc,
                       text ? text : "unknown error");
}

#define CU_TRY(call, st, what)                                                 \
    do {                                                                       \
        CUresult rc_ = (call);                                                 \
        if (rc_ != CUDA_SUCCESS) return mmt_cuda_fail(err, (st), rc_, (what)); \
    } while (0)

mmt_status mmt_cuda_need_driver(mmt_err *err)
{
    pthread_once(&init_once, init_cuda);
    RETURN_ERROR_IF(!mmt_cu.lib, err, MMT_UNSUPPORTED, "%s", cuda_why);
    if (init_rc != CUDA_SUCCESS) return mmt_cuda_fail(err, MMT_UNSUPPORTED, init_rc, "cuInit");
    return MMT_OK;
}

/* ---- contexts -------------------------------------------------------------------------- */

#define MAX_DEVICES 64
static pthread_mutex_t ctx_lock = PTHREAD_MUTEX_INITIALIZER;
static CUcontext primary[MAX_DEVICES];
static _Atomic(CUcontext) last_ctx; /* for calls that name no device: free(NULL stream) */

static mmt_status enter(CUcontext ctx, mmt_cuda_scope *sc, mmt_err *err)
{
    sc->pushed = 0;
    CUcontext cur = NULL;
    if (mmt_cu.CtxGetCurrent(&cur) == CUDA_SUCCESS && cur == ctx) return MMT_OK;
    CU_TRY(mmt_cu.CtxPushCurrent(ctx), MMT_LAUNCH, "cuCtxPushCurrent");
    sc->pushed = 1;
    atomic_store(&last_ctx, ctx);
    return MMT_OK;
}

void mmt_cuda_leave(mmt_cuda_scope *sc)
{
    CUcontext popped;
    if (sc->pushed) mmt_cu.CtxPopCurrent(&popped);
    sc->pushed = 0;
}

/* The retained primary context of a device. */
static mmt_status primary_ctx(int ordinal, CUcontext *out, mmt_err *err)
{
    FORWARD_IF_ERROR(mmt_cuda_need_driver(err));
    int count = 0;
    CU_TRY(mmt_cu.DeviceGetCount(&count), MMT_UNSUPPORTED, "cuDeviceGetCount");
    RETURN_ERROR_IF(ordinal < 0 || ordinal >= count || ordinal >= MAX_DEVICES, err, MMT_NOT_FOUND,
                    "no GPU %d (this machine has %d)", ordinal, count);
    pthread_mutex_lock(&ctx_lock);
    CUresult rc = CUDA_SUCCESS;
    const char *what = "cuDeviceGet";
    if (!primary[ordinal]) {
        CUdevice dev;
        rc = mmt_cu.DeviceGet(&dev, ordinal);
        if (rc == CUDA_SUCCESS) {
            what = "cuDevicePrimaryCtxRetain";
            rc = mmt_cu.DevicePrimaryCtxRetain(&primary[ordinal], dev);
        }
    }
    *out = primary[ordinal];
    pthread_mutex_unlock(&ctx_lock);
    if (rc != CUDA_SUCCESS) return mmt_cuda_fail(err, MMT_UNSUPPORTED, rc, what);
    return MMT_OK;
}

/* The vendor wrapper's calls (cublas.c): the primary context pushed over the caller's where
 * another is current, as every backend call does (enter, mmt_cuda_leave). */
mmt_status mmt_cuda_context_enter(int ordinal, int *pushed, mmt_err *err)
{
    *pushed = 0;
    CUcontext ctx;
    FORWARD_IF_ERROR(primary_ctx(ordinal, &ctx, err));
    mmt_cuda_scope sc;
    FORWARD_IF_ERROR(enter(ctx, &sc, err));
    *pushed = sc.pushed;
    return MMT_OK;
}

void mmt_cuda_context_leave(int pushed)
{
    mmt_cuda_scope sc = {.pushed = pushed};
    mmt_cuda_leave(&sc);
}

mmt_status mmt_cuda_enter_ordinal(int ordinal, mmt_cuda_scope *sc, mmt_err *err)
{
    CUcontext ctx = NULL;
    sc->pushed = 0;
    FORWARD_IF_ERROR(primary_ctx(ordinal, &ctx, err));
    return enter(ctx, sc, err);
}

/* For calls that name no device: the current context if there is one, else the last one
 * entered, else device 0's. */
mmt_status mmt_cuda_enter_default(mmt_cuda_scope *sc, mmt_err *err)
{
    sc->pushed = 0;
    FORWARD_IF_ERROR(mmt_cuda_need_driver(err));
    CUcontext cur = NULL;
    if (mmt_cu.CtxGetCurrent(&cur) == CUDA_SUCCESS && cur) return MMT_OK;
    CUcontext last = atomic_load(&last_ctx);
    if (last) return enter(last, sc, err);
    return mmt_cuda_enter_ordinal(0, sc, err);
}

static mmt_status enter_for_ptr(const void *ptr, mmt_cuda_scope *sc, mmt_err *err)
{
    sc->pushed = 0;
    FORWARD_IF_ERROR(mmt_cuda_need_driver(err));
    CUcontext ctx = NULL;
    if (mmt_cu.PointerGetAttribute(&ctx, CU_POINTER_ATTRIBUTE_CONTEXT, (CUdeviceptr)(uintptr_t)ptr) == CUDA_SUCCESS &&
        ctx)
        return enter(ctx, sc, err);
    return mmt_cuda_enter_default(sc, err);
}

static mmt_status enter_for_stream(void *stream, mmt_cuda_scope *sc, mmt_err *err)
{
    sc->pushed = 0;
    FORWARD_IF_ERROR(mmt_cuda_need_driver(err));
    CUcontext ctx = NULL;
    if (stream && mmt_cu.StreamGetCtx((CUstream)stream, &ctx) == CUDA_SUCCESS && ctx) return enter(ctx, sc, err);
    return mmt_cuda_enter_default(sc, err);
}

/* ---- devices ----------------------------------------------------------------------------- */

static int cuda_device_count(void)
{
    pthread_once(&init_once, init_cuda);
    if (!mmt_cu.lib || init_rc != CUDA_SUCCESS) return 0; /* no driver or no device: no GPUs */
    int n = 0;
    return mmt_cu.DeviceGetCount(&n) == CUDA_SUCCESS ? n : 0;
}

static mmt_status cuda_probe(int ordinal, mmt_device_info *d, mmt_err *err)
{
    FORWARD_IF_ERROR(mmt_cuda_need_driver(err));
    int count = cuda_device_count();
    RETURN_ERROR_IF(ordinal < 0 || ordinal >= count, err, MMT_NOT_FOUND, "no GPU %d (this machine has %d)", ordinal,
                    count);
    CUdevice dev;
    CU_TRY(mmt_cu.DeviceGet(&dev, ordinal), MMT_UNSUPPORTED, "cuDeviceGet");
    memset(d, 0, sizeof *d);
    snprintf(d->backend, sizeof d->backend, "cuda");
    d->ordinal = ordinal;
    CU_TRY(mmt_cu.DeviceGetName(d->name, (int)sizeof d->name, dev), MMT_UNSUPPORTED, "cuDeviceGetName");

    static const struct {
        const char *name;
        CUdevice_attribute attr;
    } attrs[] = {
        {"cc_major", CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR},
        {"cc_minor", CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR},
        {"max_threads_per_block", CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK},
        /* the opt-in maximum: kernels above 48 KiB get it at launch (cuFuncSetAttribute) */
        {"max_smem_per_block", CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN},
        {"smem_per_sm", CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR},
        {"regs_per_block", CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK},
        {"regs_per_sm", CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR},
        {"max_threads_per_sm", CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR},
        {"sm_count", CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT},
        {"warp_size", CU_DEVICE_ATTRIBUTE_WARP_SIZE},
        {"l2_bytes", CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE},
    };
    int cc[2] = {0, 0};
    for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++) {
        int v = 0;
        CU_TRY(mmt_cu.DeviceGetAttribute(&v, attrs[i].attr, dev), MMT_UNSUPPORTED, "cuDeviceGetAttribute");
        mmt_device_set_prop(d, attrs[i].name, v);
        if (i < 2) cc[i] = v;
    }
    /* the clocks and the bus, for a report's roofline (peak rates and bandwidth): recorded
     * where the driver has them, never a reason to fail */
    static const struct {
        const char *name;
        CUdevice_attribute attr;
    } rates[] = {
        {"clock_khz", CU_DEVICE_ATTRIBUTE_CLOCK_RATE},
        {"mem_clock_khz", CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE},
        {"mem_bus_bits", CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH},
    };
    for (size_t i = 0; i < sizeof rates / sizeof rates[0]; i++) {
        int v = 0;
        if (mmt_cu.DeviceGetAttribute(&v, rates[i].attr, dev) == CUDA_SUCCESS && v > 0)
            mmt_device_set_prop(d, rates[i].name, v);
    }
    snprintf(d->arch, sizeof d->arch, "sm_%d%d", cc[0], cc[1]);
    int driver = 0;
    CU_TRY(mmt_cu.DriverGetVersion(&driver), MMT_UNSUPPORTED, "cuDriverGetVersion");
    pthread_once(&mmt_nvrtc_once, mmt_nvrtc_open);
    int64_t sms = 0;
    mmt_device_get_prop(d, "sm_count", 8, &sms);
    snprintf(d->fingerprint, sizeof d->fingerprint, "cuda|%s|%s|sms=%lld|driver=%d|nvrtc=%d.%d", d->name, d->arch,
             (long long)sms, driver, mmt_nvrtc.major, mmt_nvrtc.minor);
    return MMT_OK;
}

/* ---- modules and launches -------------------------------------------------------------- */

/* A tensor map and what it was encoded from: a repeated call with the same operand reuses it. */
typedef struct tmap_entry {
    const void *base;
    uint64_t dims[2], pitch;
    uint32_t box[2], elem;
    CUtensorMap map;
} tmap_entry;

struct mmt_module {
    CUcontext ctx;
    CUmodule mod;
    CUfunction fn, pre; /* pre: "<entry>_pre" (split-K: C = beta * C first), or NULL */
    int64_t sm_count;
    int max_threads, regs; /* what the compiled kernel allows: its registers limit its block */
    pthread_mutex_t lock;
    int64_t smem_opted; /* dynamic shared memory already allowed beyond 48 KiB */
    tmap_entry tmaps[3]; /* the last tensor map of A, of B and of C (guarded by lock) */
    mmt_launch_needs needs; /* what the instance says it needs of a launch (zeros: nothing) */
};

/* cuda_load with ctx current. */
static mmt_status load_in(CUcontext ctx, const mmt_device_info *dev, const void *bin, size_t size, const char *entry,
                          mmt_module **out, mmt_err *err)
{
    mmt_module *m = calloc(1, sizeof *m);
    RETURN_ERROR_IF(!m, err, MMT_OUT_OF_MEMORY, "out of memory");
    m->ctx = ctx;
    /* read from the cubin on the host, as it was compiled: no device access, no sync */
    char needs_name[256];
    snprintf(needs_name, sizeof needs_name, "%s_needs", entry);
    if (mmt_elf_object(bin, size, needs_name, &m->needs, sizeof m->needs) != 0) memset(&m->needs, 0, sizeof m->needs);
    CUresult rc = mmt_cu.ModuleLoadData(&m->mod, bin);
    if (rc != CUDA_SUCCESS) {
        free(m);
        return mmt_cuda_fail(err, MMT_LOAD, rc, "cuModuleLoadData");
    }
    rc = mmt_cu.ModuleGetFunction(&m->fn, m->mod, entry);
    if (rc != CUDA_SUCCESS) {
        mmt_cu.ModuleUnload(m->mod);
        free(m);
        return mmt_cuda_fail(err, MMT_LOAD, rc, entry);
    }
    char pre[256];
    snprintf(pre, sizeof pre, "%s_pre", entry);
    if (mmt_cu.ModuleGetFunction(&m->pre, m->mod, pre) != CUDA_SUCCESS) m->pre = NULL;
    m->sm_count = 132;
    mmt_device_get_prop(dev, "sm_count", 8, &m->sm_count);
    m->max_threads = 1024;
    mmt_cu.FuncGetAttribute(&m->max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, m->fn);
    mmt_cu.FuncGetAttribute(&m->regs, CU_FUNC_ATTRIBUTE_NUM_REGS, m->fn);
    pthread_mutex_init(&m->lock, NULL);
    *out = m;
    return MMT_OK;
}

static mmt_status cuda_load(const mmt_device_info *dev, const void *bin, size_t size, const char *entry,
                            mmt_module **out, mmt_err *err)
{
    *out = NULL;
    CUcontext ctx = NULL;
    mmt_cuda_scope sc;
    FORWARD_IF_ERROR(primary_ctx(dev->ordinal, &ctx, err));
    FORWARD_IF_ERROR(enter(ctx, &sc, err));
    mmt_status st = load_in(ctx, dev, bin, size, entry, out, err);
    mmt_cuda_leave(&sc);
    return st;
}

/* The tensor map of operand o (0: A, 1: B, 2: C) for a kernel that takes one (geometry
 * tma[o]): the operand as mmt_gemm_params describes it (A is m x k, or k x m transposed, with
 * row pitch lda; B is k x n, or n x k; C is m x n), its box from the geometry, 128-, 64- or
 * 32-byte swizzle by the box's row in bytes, zeros outside. A kernel that will not read the
 * operand (k == 0, alpha == 0) gets a zeroed map of A and B, and C's only where beta == 0 and
 * C meets the TMA's terms (16-byte aligned, 16-byte row pitch; the template's EPI 2 tests the
 * same and writes C otherwise). Encoded once per operand and module while it stays the same. */
static mmt_status tensor_map(mmt_module *mod, const mmt_gemm_params *p, const mmt_geometry *g, int o, CUtensorMap *out,
                             mmt_err *err)
{
    memset(out, 0, sizeof *out);
    if (g->tma[o][0] <= 0) return MMT_OK;
    tmap_entry e;
    if (o == 2) {
        const uint64_t pitch = (uint64_t)(p->ldc * g->c_bytes);
        if (p->beta != 0 || (uintptr_t)p->c % 16 || pitch % 16) return MMT_OK;
        e = (tmap_entry){.base = p->c, .dims = {(uint64_t)p->n, (uint64_t)p->m}, .pitch = pitch,
                         .box = {(uint32_t)g->tma[o][0], (uint32_t)g->tma[o][1]}, .elem = (uint32_t)g->c_bytes};
    } else {
        if (p->k == 0 || p->alpha == 0) return MMT_OK;
        /* tma_packed (backend.h): 1 A packed, 2 B packed, 4 packed K-major (A as m x k, B as n x k) */
        const int pa = (int)(g->tma_packed & 1), pb = (int)(g->tma_packed & 2) != 0,
                  kmajor = (int)(g->tma_packed & 4) != 0;
        const int ta = pa && kmajor ? 0 : p->trans_a, tb = pb && kmajor ? 1 : p->trans_b;
        const int trans = o ? tb : ta;
        const int64_t rows = o ? (trans ? p->n : p->k) : (trans ? p->k : p->m);
        const int64_t cols = o ? (trans ? p->k : p->n) : (trans ? p->m : p->k);
        e = (tmap_entry){.base = o ? p->b : p->a, .dims = {(uint64_t)cols, (uint64_t)rows},
                         .pitch = (uint64_t)((o ? p->ldb : p->lda) * g->elem_bytes),
                         .box = {(uint32_t)g->tma[o][0], (uint32_t)g->tma[o][1]}, .elem = (uint32_t)g->elem_bytes};
        if (o ? pb : pa) { /* the packed layout (backend.h): A, then B, rows at 16-byte pitches */
            const int64_t a_pitch = ((ta ? p->m : p->k) * g->elem_bytes + 15) / 16 * 16;
            const int64_t b_pitch = ((tb ? p->k : p->n) * g->elem_bytes + 15) / 16 * 16;
            const int64_t a_bytes = pa ? (ta ? p->k : p->m) * a_pitch : 0;
            RETURN_ERROR_IF(p->workspace_size < a_bytes + (pb ? (tb ? p->n : p->k) * b_pitch : 0), err, MMT_LAUNCH,
                            "the workspace (%lld bytes) is smaller than the packed operands",
                            (long long)p->workspace_size);
            e.pitch = (uint64_t)(o ? b_pitch : a_pitch);
            e.base = (const char *)p->workspace + (o ? a_bytes : 0);
        }
    }
    pthread_mutex_lock(&mod->lock);
    tmap_entry *have = &mod->tmaps[o];
    int same = have->base == e.base && have->dims[0] == e.dims[0] && have->dims[1] == e.dims[1] &&
               have->pitch == e.pitch && have->box[0] == e.box[0] && have->box[1] == e.box[1] && have->elem == e.elem;
    if (same) *out = have->map;
    pthread_mutex_unlock(&mod->lock);
    if (same) return MMT_OK;

    const uint32_t row_bytes = e.box[0] * e.elem;
    CUtensorMapSwizzle swizzle = row_bytes == 128 ? CU_TENSOR_MAP_SWIZZLE_128B
                                 : row_bytes == 64 ? CU_TENSOR_MAP_SWIZZLE_64B
                                 : row_bytes == 32 ? CU_TENSOR_MAP_SWIZZLE_32B
                                                   : CU_TENSOR_MAP_SWIZZLE_NONE;
    const int tf32 = o < 2 && g->tma_tf32;
    CUtensorMapDataType type = e.elem == 1   ? CU_TENSOR_MAP_DATA_TYPE_UINT8 /* FP8 */
                               : e.elem == 2 ? CU_TENSOR_MAP_DATA_TYPE_UINT16
                               : e.elem == 4 ? (tf32 ? CU_TENSOR_MAP_DATA_TYPE_TFLOAT32 : CU_TENSOR_MAP_DATA_TYPE_FLOAT32)
                                             : CU_TENSOR_MAP_DATA_TYPE_FLOAT64;
    const cuuint64_t dims[2] = {e.dims[0], e.dims[1]}, strides[1] = {e.pitch};
    const cuuint32_t box[2] = {e.box[0], e.box[1]}, estrides[2] = {1, 1};
    CU_TRY(mmt_cu.TensorMapEncodeTiled(&e.map, type, 2, (void *)(uintptr_t)e.base, dims, strides, box, estrides,
                                       CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                                       CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
           MMT_LAUNCH, o == 2 ? "cuTensorMapEncodeTiled (C)" : o ? "cuTensorMapEncodeTiled (B)" : "cuTensorMapEncodeTiled (A)");
    pthread_mutex_lock(&mod->lock);
    mod->tmaps[o] = e;
    pthread_mutex_unlock(&mod->lock);
    *out = e.map;
    return MMT_OK;
}

/* cuda_launch with the module's context current. */
static mmt_status launch_in(mmt_module *mod, const mmt_gemm_params *p, const mmt_geometry *g, void *stream,
                            mmt_err *err)
{
    if (p->m <= 0 || p->n <= 0) return MMT_OK; /* C is empty: nothing to do */
    FORWARD_IF_ERROR(mmt_launch_check(&mod->needs, p, g, err));
    RETURN_ERROR_IF(g->grid[0] < 1 || g->grid[1] < 1 || g->grid[2] < 1 || g->block[0] < 1 || g->block[1] < 1 ||
                        g->block[2] < 1 || g->grid[0] > 0x7fffffff || g->grid[1] > 65535 || g->grid[2] > 65535 ||
                        g->block[0] * g->block[1] * g->block[2] > 1024 || g->smem < 0 || g->smem > 0x7fffffff,
                    err, MMT_LAUNCH, "bad launch geometry: grid %lld %lld %lld, block %lld %lld %lld, smem %lld",
                    (long long)g->grid[0], (long long)g->grid[1], (long long)g->grid[2], (long long)g->block[0],
                    (long long)g->block[1], (long long)g->block[2], (long long)g->smem);
    /* checked here rather than met as a launch failure: the message says what to change */
    RETURN_ERROR_IF(g->block[0] * g->block[1] * g->block[2] > mod->max_threads, err, MMT_LAUNCH,
                    "a block of %lld threads exceeds this kernel's limit of %d (it uses %d registers per thread)",
                    (long long)(g->block[0] * g->block[1] * g->block[2]), mod->max_threads, mod->regs);
    /* a kernel that reads its operands through the TMA takes their tensor maps after p (and
     * C's, zeroed where it has no box: the kernel reads only as many as it declares) */
    CUtensorMap maps[3];
    const int tma = g->tma[0][0] > 0 || g->tma[1][0] > 0;
    if (tma)
        for (int o = 0; o < 3; o++) FORWARD_IF_ERROR(tensor_map(mod, p, g, o, &maps[o], err));
    void *args[] = {(void *)p, &maps[0], &maps[1], &maps[2]};
    /* everything that can fail before anything runs: a pass that scaled C by beta must not
     * be left without its kernel */
    if (g->smem > 48 * 1024) {
        pthread_mutex_lock(&mod->lock);
        CUresult rc = CUDA_SUCCESS;
        if (g->smem > mod->smem_opted) {
            rc = mmt_cu.FuncSetAttribute(mod->fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)g->smem);
            if (rc == CUDA_SUCCESS) mod->smem_opted = g->smem;
        }
        pthread_mutex_unlock(&mod->lock);
        if (rc != CUDA_SUCCESS) return mmt_cuda_fail(err, MMT_LAUNCH, rc, "cuFuncSetAttribute (dynamic shared memory)");
    }
    if (mod->pre) { /* a pass over C (split-K's beta) or over the packed operands (16-byte units) */
        int64_t total = p->m * p->n > g->workspace / 16 ? p->m * p->n : g->workspace / 16;
        int64_t blocks = (total + 255) / 256, cap = mod->sm_count * 8;
        if (blocks > cap) blocks = cap; /* the kernel strides */
        CU_TRY(mmt_cu.LaunchKernel(mod->pre, (unsigned)blocks, 1, 1, 256, 1, 1, 0, (CUstream)stream, args, NULL),
               MMT_LAUNCH, "cuLaunchKernel (the pass before the kernel)");
    }
    CU_TRY(mmt_cu.LaunchKernel(mod->fn, (unsigned)g->grid[0], (unsigned)g->grid[1], (unsigned)g->grid[2],
                               (unsigned)g->block[0], (unsigned)g->block[1], (unsigned)g->block[2],
                               (unsigned)g->smem, (CUstream)stream, args, NULL),
           MMT_LAUNCH,
           mod->pre ? "cuLaunchKernel (after the pass before it, which may have scaled C by beta)" : "cuLaunchKernel");
    return MMT_OK;
}

static mmt_status cuda_launch(mmt_module *mod, const mmt_gemm_params *p, const mmt_geometry *g, void *stream,
                              mmt_err *err)
{
    mmt_cuda_scope sc;
    FORWARD_IF_ERROR(enter(mod->ctx, &sc, err));
    mmt_status st = launch_in(mod, p, g, stream, err);
    mmt_cuda_leave(&sc);
    return st;
}

static void cuda_unload(mmt_module *mod)
{
    if (!mod) return;
    mmt_cuda_scope sc;
    if (enter(mod->ctx, &sc, NULL) == MMT_OK) {
        mmt_cu.ModuleUnload(mod->mod);
        mmt_cuda_leave(&sc);
    }
    pthread_mutex_destroy(&mod->lock);
    free(mod);
}

/* ---- memory, synchronisation, timing --------------------------------------------------- */

static mmt_status cuda_alloc(const mmt_device_info *dev, size_t size, void **ptr, mmt_err *err)
{
    *ptr = NULL;
    mmt_cuda_scope sc;
    FORWARD_IF_ERROR(mmt_cuda_enter_ordinal(dev->ordinal, &sc, err));
    CUdeviceptr d = 0;
    CUresult rc = mmt_cu.MemAlloc(&d, size ? size : 1);
    mmt_cuda_leave(&sc);
    if (rc != CUDA_SUCCESS)
        return mmt_cuda_fail(err, rc == CUDA_ERROR_OUT_OF_MEMORY ? MMT_OUT_OF_MEMORY : MMT_LAUNCH, rc, "cuMemAlloc");
    *ptr = (void *)(uintptr_t)d;
    return MMT_OK;
}

static void cuda_free(void *ptr)
{
    mmt_cuda_scope sc;
    if (!ptr || enter_for_ptr(ptr, &sc, NULL) != MMT_OK) return;
    mmt_cu.MemFree((CUdeviceptr)(uintptr_t)ptr);
    mmt_cuda_leave(&sc);
}

static mmt_status cuda_copy(void *dst, const void *src, size_t size, mmt_copy_dir dir, mmt_err *err)
{
    if (size == 0) return MMT_OK;
    mmt_cuda_scope sc;
    FORWARD_IF_ERROR(enter_for_ptr(dir == MMT_D2H ? src : dst, &sc, err));
    CUresult rc;
    switch (dir) {
    case MMT_H2D: rc = mmt_cu.MemcpyHtoD((CUdeviceptr)(uintptr_t)dst, src, size); break;
    case MMT_D2H: rc = mmt_cu.MemcpyDtoH(dst, (CUdeviceptr)(uintptr_t)src, size); break;
    default: rc = mmt_cu.MemcpyDtoD((CUdeviceptr)(uintptr_t)dst, (CUdeviceptr)(uintptr_t)src, size); break;
    }
    mmt_cuda_leave(&sc);
    /* a copy is where an earlier asynchronous kernel fault shows up */
    if (rc != CUDA_SUCCESS) return mmt_cuda_fail(err, MMT_LAUNCH, rc, "cuMemcpy");
    return MMT_OK;
}

static mmt_status cuda_sync(void *stream, mmt_err *err)
{
    mmt_cuda_scope sc;
    FORWARD_IF_ERROR(enter_for_stream(stream, &sc, err));
    CUresult rc = stream ? mmt_cu.StreamSynchronize((CUstream)stream) : mmt_cu.CtxSynchronize();
    mmt_cuda_leave(&sc);
    if (rc != CUDA_SUCCESS)
        return mmt_cuda_fail(err, MMT_LAUNCH, rc, stream ? "cuStreamSynchronize" : "cuCtxSynchronize");
    return MMT_OK;
}

/* cuda_elapsed with the stream's context current. */
static mmt_status elapsed_in(mmt_status (*run)(void *user, mmt_err *err), void *user, int reps, void *stream,
                             double *ms, mmt_err *err)
{
    CUevent e0 = NULL, e1 = NULL;
    CU_TRY(mmt_cu.EventCreate(&e0, CU_EVENT_DEFAULT), MMT_LAUNCH, "cuEventCreate");
    CUresult rc = mmt_cu.EventCreate(&e1, CU_EVENT_DEFAULT);
    if (rc != CUDA_SUCCESS) {
        mmt_cu.EventDestroy(e0);
        return mmt_cuda_fail(err, MMT_LAUNCH, rc, "cuEventCreate");
    }
    mmt_status st = MMT_OK;
    float t = 0;
    const char *what = "cuEventRecord";
    rc = mmt_cu.EventRecord(e0, (CUstream)stream);
    for (int i = 0; rc == CUDA_SUCCESS && st == MMT_OK && i < reps; i++) st = run(user, err);
    if (rc == CUDA_SUCCESS && st == MMT_OK) rc = mmt_cu.EventRecord(e1, (CUstream)stream);
    if (rc == CUDA_SUCCESS && st == MMT_OK) {
        what = "cuEventSynchronize (a kernel failed)";
        rc = mmt_cu.EventSynchronize(e1);
    }
    if (rc == CUDA_SUCCESS && st == MMT_OK) {
        what = "cuEventElapsedTime";
        rc = mmt_cu.EventElapsedTime(&t, e0, e1);
    }
    mmt_cu.EventDestroy(e0);
    mmt_cu.EventDestroy(e1);
    if (st != MMT_OK) return st;
    if (rc != CUDA_SUCCESS) return mmt_cuda_fail(err, MMT_LAUNCH, rc, what);
    *ms = (double)t / (reps > 0 ? reps : 1);
    return MMT_OK;
}

static mmt_status cuda_elapsed(mmt_status (*run)(void *user, mmt_err *err), void *user, int reps, void *stream,
                               double *ms, mmt_err *err)
{
    *ms = 0;
    mmt_cuda_scope sc;
    FORWARD_IF_ERROR(enter_for_stream(stream, &sc, err));
    mmt_status st = elapsed_in(run, user, reps, stream, ms, err);
    mmt_cuda_leave(&sc);
    return st;
}

static const mmt_backend cuda_backend = {
    .version = MMT_BACKEND_VERSION,
    .name = "cuda",
    .device_count = cuda_device_count,
    .probe = cuda_probe,
    .compile = mmt_cuda_compile,
    .compiler_id = mmt_cuda_compiler_id,
    .load = cuda_load,
    .launch = cuda_launch,
    .unload = cuda_unload,
    .alloc = cuda_alloc,
    .free = cuda_free,
    .copy = cuda_copy,
    .sync = cuda_sync,
    .elapsed = cuda_elapsed,
};

const mmt_backend *mmt_backend_cuda(mmt_err *err)
{
    pthread_once(&mmt_nvrtc_once, mmt_nvrtc_open);
    pthread_once(&init_once, init_cuda);
    if (!mmt_cu.lib) {
        mmt_err_set(err, MMT_UNSUPPORTED, "CUDA backend unavailable: %s", cuda_why);
        return NULL;
    }
    if (!mmt_nvrtc.lib) {
        mmt_err_set(err, MMT_UNSUPPORTED, "CUDA backend unavailable: NVRTC: %s", mmt_nvrtc_why);
        return NULL;
    }
    return &cuda_backend;
}

static const mmt_backend cuda_compiler = {
    .version = MMT_BACKEND_VERSION,
    .name = "cuda",
    .compile = mmt_cuda_compile,
    .compiler_id = mmt_cuda_compiler_id,
};

const mmt_backend *mmt_backend_cuda_compiler(mmt_err *err)
{
    pthread_once(&mmt_nvrtc_once, mmt_nvrtc_open);
    if (!mmt_nvrtc.lib) {
        mmt_err_set(err, MMT_UNSUPPORTED, "NVRTC is not available: %s", mmt_nvrtc_why);
        return NULL;
    }
    return &cuda_compiler;
}

#endif /* MMT_HAVE_CUDA_HEADERS */
