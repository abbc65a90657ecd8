/* ooc.c - GEMM on host matrices on the GPUs (ooc.h).
 *
 * Panels are packed into pinned staging by host threads and copied from there; where the
 * application pinned its matrices, the copy engines read the panels and write the C tiles
 * in place (2D copies) instead. Packing is a host memcpy of every byte on the way, which
 * is what bounds several GPUs: a host copies memory at about one host link's rate.
 *
 * One device's pipeline, step by step (a step is one panel of one tile; `streams` lanes
 * take the steps in turn, each with its own copy stream, pinned staging and device panels):
 *   the host waits until the lane's last copy is done (event copied), packs the panels of
 *   A and B into its staging where it packs, the lane's stream waits until the kernel that
 *   read the lane's device panels last is done (event consumed) and copies; the kernel
 *   stream waits for the copy and runs the tile's kernel on the panel. The host runs ahead
 *   of the device by up to `streams` steps, so packing, copies and kernels overlap. Each C
 *   tile has one of two device buffers: loaded first where beta is not 0 (stream cload),
 *   written back after its last panel (stream cstore) while the next tile computes in the
 *   other buffer, and (packing) unpacked into the caller's C when that buffer is needed
 *   again or at the end. */
#define _GNU_SOURCE
#include "ooc.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "backend.h"
#include "problem.h"

typedef struct lane {
    void *stream, *copied, *consumed; /* copy stream; events: staging free, device panels free */
    void *pa, *pb;                    /* pinned staging of the panels */
    void *da, *db;                    /* the device panels */
} lane;

typedef struct ctile {
    void *pinned, *dev;
    void *loaded, *done, *out; /* events: C loaded, kernels done, written back */
    int64_t tile;              /* pending write-back of this tile, or -1 */
} ctile;

struct mmt_ooc_device {
    int ordinal;
    const mmt_cuda_async *cu;
    lane lanes[MMT_OOC_MAX_STREAMS];
    int n_lanes;        /* lanes with streams and events */
    ctile ct[2];
    void *cload, *cstore;
    int64_t ab_cap[2];  /* bytes of every lane's A and B buffers */
    int64_t c_cap;
    int64_t held;       /* device bytes held */
};

mmt_ooc_device *mmt_ooc_device_new(int ordinal)
{
    mmt_ooc_device *dv = calloc(1, sizeof *dv);
    if (dv) dv->ordinal = ordinal, dv->cu = mmt_cuda_async_api();
    return dv;
}

static void free_buffers(mmt_ooc_device *dv)
{
    const mmt_cuda_async *cu = dv->cu;
    for (int i = 0; i < dv->n_lanes; i++) {
        lane *l = &dv->lanes[i];
        cu->host_free(dv->ordinal, l->pa), cu->host_free(dv->ordinal, l->pb);
        cu->dev_free(dv->ordinal, l->da), cu->dev_free(dv->ordinal, l->db);
        l->pa = l->pb = l->da = l->db = NULL;
    }
    for (int i = 0; i < 2; i++) {
        cu->host_free(dv->ordinal, dv->ct[i].pinned), cu->dev_free(dv->ordinal, dv->ct[i].dev);
        dv->ct[i].pinned = dv->ct[i].dev = NULL;
    }
    dv->ab_cap[0] = dv->ab_cap[1] = dv->c_cap = dv->held = 0;
}

void mmt_ooc_device_free(mmt_ooc_device *dv)
{
    if (!dv) return;
    if (dv->cu) {
        free_buffers(dv);
        for (int i = 0; i < dv->n_lanes; i++) {
            dv->cu->stream_free(dv->ordinal, dv->lanes[i].stream);
            dv->cu->event_free(dv->ordinal, dv->lanes[i].copied);
            dv->cu->event_free(dv->ordinal, dv->lanes[i].consumed);
        }
        for (int i = 0; i < 2; i++) {
            dv->cu->event_free(dv->ordinal, dv->ct[i].loaded);
            dv->cu->event_free(dv->ordinal, dv->ct[i].done);
            dv->cu->event_free(dv->ordinal, dv->ct[i].out);
        }
        dv->cu->stream_free(dv->ordinal, dv->cload);
        dv->cu->stream_free(dv->ordinal, dv->cstore);
    }
    free(dv);
}

/* Streams and events for `streams` lanes (made once), buffers as large as the plan's (the
 * old ones given back first when they are too small). */
static mmt_status prepare(mmt_ooc_device *dv, const mmt_ooc_plan *p, mmt_err *err)
{
    const mmt_cuda_async *cu = dv->cu;
    const int o = dv->ordinal;
    RETURN_ERROR_IF(!cu, err, MMT_UNSUPPORTED, "the CUDA driver is not available");
    if (!dv->cload) {
        FORWARD_IF_ERROR(cu->stream_new(o, &dv->cload, err));
        FORWARD_IF_ERROR(cu->stream_new(o, &dv->cstore, err));
        for (int i = 0; i < 2; i++) {
            FORWARD_IF_ERROR(cu->event_new(o, &dv->ct[i].loaded, err));
            FORWARD_IF_ERROR(cu->event_new(o, &dv->ct[i].done, err));
            FORWARD_IF_ERROR(cu->event_new(o, &dv->ct[i].out, err));
        }
    }
    for (; dv->n_lanes < p->streams; dv->n_lanes++) {
        lane *l = &dv->lanes[dv->n_lanes];
        FORWARD_IF_ERROR(cu->stream_new(o, &l->stream, err));
        FORWARD_IF_ERROR(cu->event_new(o, &l->copied, err));
        FORWARD_IF_ERROR(cu->event_new(o, &l->consumed, err));
    }
    /* lanes beyond the plan's keep their buffers only if every lane used has them */
    int fits = p->a_bytes <= dv->ab_cap[0] && p->b_bytes <= dv->ab_cap[1] && p->c_bytes_tile <= dv->c_cap;
    for (int i = 0; i < p->streams && fits; i++) fits = dv->lanes[i].pa != NULL;
    if (fits) return MMT_OK;
    free_buffers(dv);
    for (int i = 0; i < p->streams; i++) {
        lane *l = &dv->lanes[i];
        FORWARD_IF_ERROR(cu->host_alloc(o, (size_t)p->a_bytes, &l->pa, err));
        FORWARD_IF_ERROR(cu->host_alloc(o, (size_t)p->b_bytes, &l->pb, err));
        FORWARD_IF_ERROR(cu->dev_alloc(o, (size_t)p->a_bytes, &l->da, err));
        FORWARD_IF_ERROR(cu->dev_alloc(o, (size_t)p->b_bytes, &l->db, err));
    }
    for (int i = 0; i < 2; i++) {
        FORWARD_IF_ERROR(cu->host_alloc(o, (size_t)p->c_bytes_tile, &dv->ct[i].pinned, err));
        FORWARD_IF_ERROR(cu->dev_alloc(o, (size_t)p->c_bytes_tile, &dv->ct[i].dev, err));
    }
    dv->ab_cap[0] = p->a_bytes, dv->ab_cap[1] = p->b_bytes, dv->c_cap = p->c_bytes_tile;
    dv->held = p->device_bytes;
    return MMT_OK;
}

/* ---- host copies ------------------------------------------------------------------------ */

/* rows of row_bytes from src (pitch spitch) to dst (pitch dpitch); large blocks on several
 * threads, since one core's memcpy is slower than the host link. */
typedef struct block {
    char *dst;
    const char *src;
    int64_t dpitch, spitch, rows, row_bytes;
} block;

/* One row, with stores that bypass the caches where SSE2 has them: each byte is written once
 * and read long after (by a copy engine, or the caller), and a plain store reads the line it
 * writes first, a third more memory traffic. bench_ooc, fp64 32768^3 on pageable matrices,
 * two H200s of a 32-core host: 1.20 s a call with memcpy, 0.88 with these (8 threads). */
static void copy_row(char *dst, const char *src, size_t n)
{
#if defined(__SSE2__)
    size_t i = (16 - ((uintptr_t)dst & 15)) & 15; /* to dst's first 16-byte boundary */
    if (i > n) i = n;
    memcpy(dst, src, i);
    for (; i + 16 <= n; i += 16)
        _mm_stream_si128((__m128i *)(void *)(dst + i), _mm_loadu_si128((const __m128i *)(const void *)(src + i)));
    memcpy(dst + i, src + i, n - i);
#else
    memcpy(dst, src, n);
#endif
}

static void *copy_block(void *arg)
{
    const block *b = arg;
    for (int64_t r = 0; r < b->rows; r++)
        copy_row(b->dst + r * b->dpitch, b->src + r * b->spitch, (size_t)b->row_bytes);
#if defined(__SSE2__)
    _mm_sfence(); /* the streamed stores reach memory before anyone is told the block is copied */
#endif
    return NULL;
}

/* the most threads a device's copies use (the host's cores shared among the GPUs): 16 of a
 * 32-core H200 host's, against 8, copied a 32768^3 call's panels in 0.81 s instead of 0.88
 * on two GPUs (fp64), and bf16's on one in 0.33 s instead of 0.43 */
#define COPY_THREADS 16

static void copy_rows(void *dst, int64_t dpitch, const void *src, int64_t spitch, int64_t rows, int64_t row_bytes,
                      int threads)
{
    block b = {dst, src, dpitch, spitch, rows, row_bytes};
    int n = rows * row_bytes >= (16 << 20) ? threads : 1;
    if (n > rows) n = (int)rows;
    if (n <= 1) {
        copy_block(&b);
        return;
    }
    block parts[COPY_THREADS];
    pthread_t th[COPY_THREADS];
    int started[COPY_THREADS] = {0};
    const int64_t per = (rows + n - 1) / n;
    for (int i = 0; i < n; i++) {
        const int64_t r0 = i * per, r1 = r0 + per < rows ? r0 + per : rows;
        parts[i] = (block){b.dst + r0 * dpitch, b.src + r0 * spitch, dpitch, spitch, r1 > r0 ? r1 - r0 : 0, row_bytes};
        started[i] = i > 0 && pthread_create(&th[i], NULL, copy_block, &parts[i]) == 0;
    }
    for (int i = 0; i < n; i++)
        if (!started[i]) copy_block(&parts[i]); /* part 0, and any whose thread did not start */
    for (int i = 1; i < n; i++)
        if (started[i]) pthread_join(th[i], NULL);
}

/* ---- one device --------------------------------------------------------------------------- */

typedef struct shared {
    const mmt_ooc_job *job;
    const mmt_ooc_plan *plan;
    atomic_llong next;  /* the next tile to take */
    atomic_int failed;  /* C can no longer be completed: every GPU stops */
    atomic_int written; /* a tile reached (or is on its way to) the caller's C */
    int threads;        /* per device, for the host copies */
    int direct;         /* the application pinned its matrices: copies read and write them in place */
    /* tiles a failed GPU left unfinished, for the others (taken before new ones) */
    pthread_mutex_t lock;
    atomic_int n_left;
    int64_t *left;
} shared;

/* The next tile to compute, or -1. */
static int64_t take_tile(shared *sh)
{
    if (atomic_load(&sh->n_left) > 0) {
        pthread_mutex_lock(&sh->lock);
        int64_t t = -1;
        if (atomic_load(&sh->n_left) > 0) t = sh->left[atomic_fetch_sub(&sh->n_left, 1) - 1];
        pthread_mutex_unlock(&sh->lock);
        if (t >= 0) return t;
    }
    const int64_t t = atomic_fetch_add(&sh->next, 1);
    return t < sh->plan->tiles_m * sh->plan->tiles_n ? t : -1;
}

/* A block of a matrix the caller stores: rows of `bytes` at `pitch` bytes from `first`. */
typedef struct view {
    char *first;
    int64_t pitch, rows, bytes;
} view;

/* Tile (i0, j0, rows x cols)'s block of C. */
static view c_view(const shared *sh, int64_t i0, int64_t j0, int64_t rows, int64_t cols)
{
    const int64_t cb = sh->plan->c_bytes;
    return (view){(char *)sh->job->c + (i0 * sh->job->ldc + j0) * cb, sh->job->ldc * cb, rows, cols * cb};
}

/* Panel (k0, depth) of that tile's A and B as stored (A m x k or k x m transposed, B k x n
 * or n x k). */
static void panel_views(const shared *sh, int64_t i0, int64_t j0, int64_t rows, int64_t cols, int64_t k0,
                        int64_t depth, view *a, view *b)
{
    const mmt_ooc_job *jb = sh->job;
    const mmt_ooc_plan *p = sh->plan;
    const int64_t e = p->ab_bytes;
    *a = p->trans_a ? (view){(char *)jb->a + (k0 * jb->lda + i0) * e, jb->lda * e, depth, rows * e}
                    : (view){(char *)jb->a + (i0 * jb->lda + k0) * e, jb->lda * e, rows, depth * e};
    *b = p->trans_b ? (view){(char *)jb->b + (j0 * jb->ldb + k0) * e, jb->ldb * e, cols, depth * e}
                    : (view){(char *)jb->b + (k0 * jb->ldb + j0) * e, jb->ldb * e, depth, cols * e};
}

/* Copies block v to device memory dev of pitch dpitch: in place where the caller's
 * matrices are pinned, else through pinned staging (packed before an upload; unpacked
 * after a download, by write_back). */
static mmt_status upload(mmt_ooc_device *dv, const shared *sh, view v, void *staging, void *dev, int64_t dpitch,
                         void *stream, mmt_err *err)
{
    if (sh->direct)
        return dv->cu->copy_2d(dv->ordinal, dev, (size_t)dpitch, v.first, (size_t)v.pitch, (size_t)v.bytes,
                               (size_t)v.rows, MMT_H2D, stream, err);
    copy_rows(staging, dpitch, v.first, v.pitch, v.rows, v.bytes, sh->threads);
    return dv->cu->copy(dv->ordinal, dev, staging, (size_t)(v.rows * dpitch), MMT_H2D, stream, err);
}

/* Waits for tile ct's write-back and unpacks it into the caller's C (ct->tile stays set
 * until then: a failure leaves it unfinished). */
static mmt_status write_back(mmt_ooc_device *dv, ctile *ct, shared *sh, mmt_err *err)
{
    if (ct->tile < 0) return MMT_OK;
    const mmt_ooc_plan *p = sh->plan;
    int64_t i0, j0, rows, cols;
    mmt_ooc_tile(p, ct->tile, &i0, &j0, &rows, &cols);
    FORWARD_IF_ERROR(dv->cu->wait_host(dv->ordinal, ct->out, err));
    atomic_store(&sh->written, 1);
    if (!sh->direct) { /* else copied in place */
        const view v = c_view(sh, i0, j0, rows, cols);
        copy_rows(v.first, v.pitch, ct->pinned, p->c_pitch * p->c_bytes, v.rows, v.bytes, sh->threads);
    }
    ct->tile = -1;
    return MMT_OK;
}

/* Computes tiles until none is left; *current: the tile being computed (-1 between tiles). */
static mmt_status run_tiles(const mmt_ooc_gpu *g, shared *sh, int64_t *current, mmt_err *err)
{
    mmt_ooc_device *dv = g->dv;
    const mmt_cuda_async *cu = dv->cu;
    const int o = dv->ordinal;
    const mmt_ooc_job *jb = sh->job;
    const mmt_ooc_plan *p = sh->plan;
    int64_t step = 0, count = 0;
    dv->ct[0].tile = dv->ct[1].tile = -1;
    while (!atomic_load(&sh->failed)) {
        const int64_t t = *current = take_tile(sh);
        if (t < 0) break;
        ctile *ct = &dv->ct[count++ % 2];
        FORWARD_IF_ERROR(write_back(dv, ct, sh, err)); /* the tile before last, in this buffer */
        int64_t i0, j0, rows, cols;
        mmt_ooc_tile(p, t, &i0, &j0, &rows, &cols);
        const int64_t cb = p->c_bytes;
        const view cv = c_view(sh, i0, j0, rows, cols);
        if (jb->beta != 0) { /* beta = 0: C is not read */
            FORWARD_IF_ERROR(upload(dv, sh, cv, ct->pinned, ct->dev, p->c_pitch * cb, dv->cload, err));
            FORWARD_IF_ERROR(cu->record(o, ct->loaded, dv->cload, err));
            FORWARD_IF_ERROR(cu->wait_stream(o, g->stream, ct->loaded, err));
        }
        for (int64_t q = 0; q < p->panels; q++, step++) {
            lane *l = &dv->lanes[step % p->streams];
            int64_t k0, depth;
            mmt_ooc_panel(p, q, &k0, &depth);
            if (step >= p->streams) FORWARD_IF_ERROR(cu->wait_host(o, l->copied, err));
            if (depth > 0) {
                view av, bv;
                panel_views(sh, i0, j0, rows, cols, k0, depth, &av, &bv);
                /* the staging is free (above); the device panels once their last kernel is done */
                if (step >= p->streams) FORWARD_IF_ERROR(cu->wait_stream(o, l->stream, l->consumed, err));
                FORWARD_IF_ERROR(upload(dv, sh, av, l->pa, l->da, p->a_pitch * p->ab_bytes, l->stream, err));
                FORWARD_IF_ERROR(upload(dv, sh, bv, l->pb, l->db, p->b_pitch * p->ab_bytes, l->stream, err));
                FORWARD_IF_ERROR(cu->record(o, l->copied, l->stream, err));
                FORWARD_IF_ERROR(cu->wait_stream(o, g->stream, l->copied, err));
            } else {
                FORWARD_IF_ERROR(cu->record(o, l->copied, l->stream, err)); /* keeps the lane's events in step */
            }
            /* the tile's kernel: A panel rows x depth (pitch a_pitch), B depth x cols, C rows x cols */
            FORWARD_IF_ERROR(g->gemm(g->user, &jb->desc, rows, cols, depth, depth > 0 ? jb->alpha : 0,
                                     depth > 0 ? l->da : NULL, p->a_pitch, depth > 0 ? l->db : NULL, p->b_pitch,
                                     q == 0 ? jb->beta : 1.0, ct->dev, p->c_pitch, err));
            FORWARD_IF_ERROR(cu->record(o, l->consumed, g->stream, err));
        }
        FORWARD_IF_ERROR(cu->record(o, ct->done, g->stream, err));
        FORWARD_IF_ERROR(cu->wait_stream(o, dv->cstore, ct->done, err));
        if (sh->direct) {
            atomic_store(&sh->written, 1);
            FORWARD_IF_ERROR(cu->copy_2d(o, cv.first, (size_t)cv.pitch, ct->dev, (size_t)(p->c_pitch * cb),
                                         (size_t)cv.bytes, (size_t)cv.rows, MMT_D2H, dv->cstore, err));
        } else {
            FORWARD_IF_ERROR(cu->copy(o, ct->pinned, ct->dev, (size_t)(rows * p->c_pitch * cb), MMT_D2H, dv->cstore, err));
        }
        ct->tile = t; /* its write-back has begun: in place, C may be changing from here on */
        *current = -1;
        FORWARD_IF_ERROR(cu->record(o, ct->out, dv->cstore, err));
    }
    FORWARD_IF_ERROR(write_back(dv, &dv->ct[count % 2], sh, err)); /* the older first */
    return write_back(dv, &dv->ct[(count + 1) % 2], sh, err);
}

/* A device's part of the job. After a failure its streams are drained, so that nothing
 * still uses the buffers, and the tiles it left unfinished go to the other devices: none
 * of them reached C, except (copying in place) a tile whose write-back had begun, which
 * can be computed again only where C is not read (beta 0); where it cannot, every device
 * stops. */
typedef struct worker {
    const mmt_ooc_gpu *g;
    shared *sh;
    mmt_err err;
    mmt_status st;
} worker;

static void *work(void *arg)
{
    worker *w = arg;
    mmt_ooc_device *dv = w->g->dv;
    shared *sh = w->sh;
    int64_t current = -1;
    w->st = run_tiles(w->g, sh, &current, &w->err);
    if (w->st == MMT_OK) return NULL;
    mmt_err ignore;
    for (int i = 0; i < dv->n_lanes; i++) dv->cu->sync(dv->ordinal, dv->lanes[i].stream, &ignore);
    dv->cu->sync(dv->ordinal, w->g->stream, &ignore);
    dv->cu->sync(dv->ordinal, dv->cload, &ignore);
    dv->cu->sync(dv->ordinal, dv->cstore, &ignore);
    const int again = !sh->direct || sh->job->beta == 0;
    pthread_mutex_lock(&sh->lock);
    if (current >= 0) sh->left[atomic_fetch_add(&sh->n_left, 1)] = current;
    for (int i = 0; i < 2; i++)
        if (dv->ct[i].tile >= 0) {
            if (again) sh->left[atomic_fetch_add(&sh->n_left, 1)] = dv->ct[i].tile;
            else atomic_store(&sh->failed, 1);
            dv->ct[i].tile = -1;
        }
    pthread_mutex_unlock(&sh->lock);
    return NULL;
}

/* ---- the caller's matrices, where the application pinned them ------------------------------ */

/* 1 where the first and last bytes of A (where read), B and C are host memory CUDA pinned:
 * the copies read and write them in place. Pinning them here for one call was measured
 * slower than the packing it saves (bench_ooc on an H200 host: fp64 32768^3 2.62 s against
 * 1.59 s), so memory the application did not pin goes through staging. */
static int operands_pinned(const mmt_ooc_job *jb, const mmt_ooc_plan *p, const mmt_cuda_async *cu)
{
    const int64_t e = p->ab_bytes, cb = p->c_bytes;
    const int64_t a_rows = p->trans_a ? p->k : p->m, a_cols = p->trans_a ? p->m : p->k;
    const int64_t b_rows = p->trans_b ? p->n : p->k, b_cols = p->trans_b ? p->k : p->n;
    const struct { const void *x; int64_t rows, cols, ld, size; } m[3] = {
        {jb->a, a_rows, a_cols, jb->lda, e}, {jb->b, b_rows, b_cols, jb->ldb, e}, {jb->c, p->m, p->n, jb->ldc, cb}};
    for (int i = 0; i < 3; i++) {
        if (m[i].rows <= 0 || m[i].cols <= 0) continue; /* k 0: A and B are not read */
        const char *lo = m[i].x, *last = lo + ((m[i].rows - 1) * m[i].ld + m[i].cols) * m[i].size - 1;
        if (m[i].ld * m[i].size >= ((int64_t)1 << 31) || !cu->is_pinned(lo) || !cu->is_pinned(last)) return 0;
    }
    return 1;
}

/* ---- the job ------------------------------------------------------------------------------ */

static mmt_status plan_for(const mmt_ooc_job *job, mmt_ooc_plan *plan, mmt_err *err)
{
    const mmt_cuda_async *cu = mmt_cuda_async_api();
    RETURN_ERROR_IF(!cu || job->n_gpus < 1, err, MMT_UNSUPPORTED, "host-memory GEMM needs a GPU and its driver");
    /* per device: 60% of what is free besides our own buffers (the kernels' scratch and
     * other users keep the rest), and a quarter of the host's memory, pinned, shared */
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    int64_t budget = pages > 0 && page > 0 ? (int64_t)pages * page / 4 / job->n_gpus : INT64_MAX;
    for (int d = 0; d < job->n_gpus; d++) {
        int64_t fr = 0;
        FORWARD_IF_ERROR(cu->mem_free(job->gpus[d].dv->ordinal, &fr, err));
        const int64_t mine = (fr + job->gpus[d].dv->held) / 10 * 6;
        if (mine < budget) budget = mine;
    }
    const int64_t k = job->alpha != 0 ? job->k : 0; /* alpha = 0: A and B are not read */
    const char *why = mmt_ooc_plan_make(job->m, job->n, k, mmt_dtype_size(job->desc.ab_type),
                                        mmt_dtype_size(job->desc.c_type), job->desc.trans_a == MMT_TRANS,
                                        job->desc.trans_b == MMT_TRANS, &job->knobs, budget, plan);
    RETURN_ERROR_IF(why, err, MMT_OUT_OF_MEMORY, "host-memory GEMM %lldx%lldx%lld: %s", (long long)job->m,
                    (long long)job->n, (long long)job->k, why);
    return MMT_OK;
}

mmt_status mmt_ooc_run(const mmt_ooc_job *job, mmt_ooc_plan *used, mmt_err *err)
{
    mmt_ooc_plan plan;
    FORWARD_IF_ERROR(plan_for(job, &plan, err));
    for (int d = 0; d < job->n_gpus; d++) {
        mmt_err why;
        mmt_status st = prepare(job->gpus[d].dv, &plan, &why);
        /* nothing has run: a failure here is one of setting up (ooc.h's contract) */
        if (st != MMT_OK)
            return mmt_err_set(err, st == MMT_OUT_OF_MEMORY ? st : MMT_UNSUPPORTED, "setting up GPU %d: %.3800s",
                               job->gpus[d].dv->ordinal, why.msg);
    }
    *used = plan;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int per = cpus > 0 ? (int)(cpus / job->n_gpus) : 1;
    shared sh = {.job = job, .plan = &plan, .threads = per < 1 ? 1 : per > COPY_THREADS ? COPY_THREADS : per};
    worker *w = calloc((size_t)job->n_gpus, sizeof *w);
    pthread_t *th = calloc((size_t)job->n_gpus, sizeof *th);
    int *started = calloc((size_t)job->n_gpus, sizeof *started), *alive = calloc((size_t)job->n_gpus, sizeof *alive);
    sh.left = calloc((size_t)job->n_gpus * 3, sizeof *sh.left); /* at most 3 a GPU: computing, 2 written back */
    if (!w || !th || !started || !alive || !sh.left) {
        free(w), free(th), free(started), free(alive), free(sh.left);
        return mmt_err_set(err, MMT_OUT_OF_MEMORY, "out of memory");
    }
    pthread_mutex_init(&sh.lock, NULL);
    used->pinned = sh.direct = operands_pinned(job, &plan, job->gpus[0].dv->cu);
    for (int d = 0; d < job->n_gpus; d++) alive[d] = 1, w[d] = (worker){.g = &job->gpus[d], .sh = &sh};
    mmt_status st = MMT_OK;
    int failed_gpu = -1;
    /* rounds: the living GPUs take tiles until none is left; a GPU that fails leaves its
     * unfinished ones, which the next round deals to the others if they were done already */
    for (int any = 1; any && !atomic_load(&sh.failed);) {
        /* the calling thread drives the first GPU, a thread of its own each other one */
        int first = -1;
        for (int d = 0; d < job->n_gpus; d++) {
            started[d] = 0;
            if (!alive[d]) continue;
            if (first < 0) first = d;
            else started[d] = pthread_create(&th[d], NULL, work, &w[d]) == 0;
        }
        if (first < 0) break; /* every GPU failed */
        work(&w[first]);
        for (int d = first + 1; d < job->n_gpus; d++)
            if (started[d]) pthread_join(th[d], NULL);
            else if (alive[d]) work(&w[d]); /* no thread: this one takes its share (what is left) */
        for (int d = 0; d < job->n_gpus; d++)
            if (alive[d] && w[d].st != MMT_OK) {
                alive[d] = 0;
                if (st == MMT_OK) *err = w[d].err, st = w[d].st, failed_gpu = job->gpus[d].dv->ordinal;
            }
        any = atomic_load(&sh.n_left) > 0;
    }
    const int complete = st != MMT_OK && !atomic_load(&sh.failed) && atomic_load(&sh.n_left) == 0;
    char msg[sizeof err->msg];
    snprintf(msg, sizeof msg, "%s", err->msg);
    if (complete) /* the other GPUs computed the failed one's tiles */
        st = mmt_err_set(err, MMT_LAUNCH, "GPU %d failed (%.3800s); the other GPUs computed its tiles: C is complete",
                         failed_gpu, msg);
    else if (st != MMT_OK && atomic_load(&sh.written)) /* no status that promises an untouched C */
        st = mmt_err_set(err, MMT_LAUNCH, "C is partly written: %.3900s", msg);
    pthread_mutex_destroy(&sh.lock);
    free(alive), free(sh.left);
    free(w), free(th), free(started);
    return st;
}
