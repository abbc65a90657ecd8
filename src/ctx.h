/* ctx.h - a libmmtuned context's state (mmtuned.h's mmt_ctx), shared by the files that
 * serve a call: api.c (the public entry points: checks, contexts, policies), call_table.c
 * (the per-context table: what runs a call, chosen, built, launched) and host_route.c
 * (GEMMs of host matrices on a GPU, out of core). Internal to libmmtuned. */
#ifndef MMT_CTX_H
#define MMT_CTX_H

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "autotune.h"
#include "backend.h"
#include "builder.h"
#include "epilogue.h"
#include "family.h"
#include "miss.h"
#include "mmtuned.h"
#include "ooc.h"
#include "predict.h"
#include "store.h"
#include "store_serving.h"
#include "strassen.h"
#include "vendor.h"

#define N_BUCKETS 256
#define MMT_MAX_GPUS 64
#define MMT_GROUPED_KINDS 8 /* grouped.c's kinds of the one launch */

/* A loaded binary, shared by every problem whose instance compiles to the same key, and what
 * it was built from (a variant of it is built from the same, mmt_table_variant). */
typedef struct loaded {
    char key[65];
    mmt_module *mod;
    const mmt_family *fam;
    char *defines;
    struct loaded *next;
} loaded;

/* What the table is keyed by. The row-major problem (its mode and output type included);
 * the alignment of A and B (mmt_align_bytes of pointer and row pitch), because lookups
 * check configurations against it: one that needs 16-byte rows must never serve 2-byte
 * ones; that of C where it decides whether the vendor takes the call (FP8: cuBLASLt
 * writes 16-byte aligned rows alone; 0 elsewhere), and for FP8 C whether beta is 0
 * (cuBLASLt takes FP8 C at beta 0 alone; 0 elsewhere); whether the call may run f32x3 for
 * an f32 problem (mmt_sgemm under MMT_SGEMM_ALLOW_F32X3), whose answer may differ from the
 * plain f32 one; and whether it must be reproducible bit for bit (mmt_set_reproducible: no
 * atomic split-K) and whether it may run Strassen-Winograd levels (MMT_ALLOW_STRASSEN). */
typedef struct call_key {
    mmt_problem problem;
    int align_a, align_b, align_c;
    int beta_zero;
    int allow_f32x3;
    int reproducible;
    int allow_levels;
} call_key;

/* What a call runs. mod, geometry, plan, choice and params change together, under the
 * lock, when a sync switches the entry to a kernel tuned since; calls copy them under the
 * lock. */
typedef struct entry {
    call_key key;
    mmt_module *mod; /* NULL: the vendor library runs it, by route */
    mmt_vendor_route route;
    mmt_geometry geometry;
    mmt_strassen_plan plan; /* levels 0: the kernel alone (the classic algorithm) */
    mmt_choice choice;
    char params[512];
    mmt_miss_counter *miss; /* counts the calls while choice is not EXACT; NULL without write-back */
    int stay;               /* its tuned kernel failed to build: keep the fallback, do not retry */
    struct entry *next;
} entry;

/* A family of a mode and its tuned entries, read from the database once. */
typedef struct served_family {
    mmt_family *family;
    mmt_best_rec *bests;
    size_t n_bests;
} served_family;

/* Per mode: the families that serve it (family.h's order), which compete for every call,
 * with the vendor family's tuned entries and what the prediction for untuned problems
 * reads (predict.h). A mode this backend lacks is remembered as such (why), so asking
 * again costs nothing. */
typedef struct served {
    served_family fam[MMT_MAX_FAMILIES];
    int n;
    mmt_best_rec *vendor_bests;
    size_t n_vendor;
    mmt_paired_rec *paired;
    size_t n_paired;
    int ready, missing;
    char why[512];
} served;

struct mmt_ctx {
    const mmt_backend *be;
    mmt_device_info dev;
    char device[64]; /* as mmt_open got it: a background mmtune's --device */
    mmt_store *st;   /* NULL without a database */
    char db_path[PATH_MAX]; /* absolute; set when the database is writable */
    mmt_misses *misses;     /* NULL unless the database opened writable: nothing is recorded then */
    mmt_autotune autotune;
    uint64_t id; /* unique per context of the process: thread views name contexts by it */
    _Atomic(void *) stream;
    pthread_mutex_t lock; /* guards the table, the modules, the additions and the policies; launches run outside it */
    int sgemm_policy;     /* mmt_sgemm_policy */
    int reproducible;     /* mmt_set_reproducible */
    int algorithm_policy; /* mmt_algorithm_policy */
    _Atomic uint64_t table_gen; /* bumped under lock where an entry's launch or a policy changes:
                                   a thread's repeat of its last call (mmt_table_repeat) checks it */
    mmt_strassen_adds adds[2]; /* f32, f64: the additions of Strassen levels, loaded when an entry first has levels */
    mmt_module *epilogue[MMT_EPILOGUE_C_TYPES][2]; /* the epilogue's kernels by C's type, the bias in fp32 or
                                                   * C's type; under lock */
    /* grouped.c: the one launch's instance of each kind it takes (a mode and C's type),
     * published once made, and its state (0 not tried, 1 being made, 2 made, 3 failed to
     * build: never tried again) */
    _Atomic(struct mmt_grouped_instance *) grouped[MMT_GROUPED_KINDS];
    _Atomic int grouped_state[MMT_GROUPED_KINDS];
    struct mmt_fused_instance *fused; /* fused.c: instances with an epilogue in their store; under lock */
    /* The vendor library (vendor.h), opened on the first call that may need it, under
     * vendor_lock: vendor_state 0 not yet tried, 1 open, -1 absent or off (MMTUNE_VENDOR=off). */
    pthread_mutex_t vendor_lock;
    mmt_vendor *vendor;
    _Atomic int vendor_state;
    mmt_builder *builder; /* builds kernels off the callers' paths while the vendor serves */
    pthread_mutex_t modes_lock; /* guards modes: taken on first-time shapes and syncs, before lock */
    int db_unread;              /* the database failed a read of tuned entries (said once), under modes_lock */
    served modes[MMT_N_MODES];
    entry *buckets[N_BUCKETS];
    loaded *modules;
    /* Device scratch for kernels whose launch asks for it (operands packed to aligned rows)
     * and for the temporaries of Strassen levels. Every launch of a context goes to its one
     * stream, so one buffer serves them all; the mutex keeps each call's launches (pack,
     * multiply; a Strassen run's products and additions) together. */
    pthread_mutex_t ws_lock;
    void *ws;
    int64_t ws_size;
    /* Host-memory GEMMs (ooc.h), one at a time under ooc_lock: the knobs as the caller set
     * them (tiles in the caller's layout), the GPUs (gpus[i] the ordinal, peer[i] its
     * context: this one, or one opened on the same database) and their pipelines. */
    pthread_mutex_t ooc_lock;
    const mmt_cuda_async *async; /* NULL on the CPU */
    char db_arg[PATH_MAX];       /* mmt_open's db_path ("" for NULL): the peers open it too */
    mmt_host_gemm_config ooc_cfg; /* devices: ooc_devices */
    char ooc_devices[256];
    int n_gpus;
    int gpus[MMT_MAX_GPUS];
    mmt_ctx *peer[MMT_MAX_GPUS];
    mmt_ooc_device *ooc[MMT_MAX_GPUS];
};

/* src into dst of size bytes, cut to fit: on every call's path, where snprintf's formatting
 * cost a tenth of a small GEMM's time. */
static inline void mmt_copy_text(char *dst, size_t size, const char *src)
{
    const size_t n = strnlen(src, size - 1);
    memcpy(dst, src, n);
    dst[n] = '\0';
}

#endif
