/* ooc_plan.h - the plan of an out-of-core GEMM (ooc.c), as pure functions of the problem,
 * the caller's knobs and a memory budget: C (m x n, the row-major problem) split into tiles
 * of tile_m x tile_n, each computed from panels of A (tile_m x panel_k) and B (panel_k x
 * tile_n) streamed to the device, `streams` panels in flight per device. What each buffer
 * takes follows from them: every device holds two C tiles (one computed while the other is
 * written back) and `streams` pairs of panels, and as much pinned host memory for their
 * staging. tests/test_ooc_plan.c checks that the tiles cover C exactly, the panels K, and
 * that the buffers stay within the budget. */
#ifndef MMT_OOC_PLAN_H
#define MMT_OOC_PLAN_H

#include <stddef.h>
#include <stdint.h>

/* The knobs (mmtuned.h's mmt_host_gemm_config in the row-major problem's terms); 0 chooses. */
typedef struct mmt_ooc_knobs {
    int64_t tile_m, tile_n, panel_k;
    int streams;
} mmt_ooc_knobs;

#define MMT_OOC_MAX_STREAMS 8

/* The smallest tile side and panel depth the plan halves to, and the tuner's grid goes:
 * smaller ones starve the kernels. */
#define MMT_OOC_MIN_SIDE 256

typedef struct mmt_ooc_plan {
    int64_t m, n, k;          /* k 0: no panels read (K = 0 or alpha = 0), C = beta C */
    int ab_bytes, c_bytes;    /* element sizes */
    int trans_a, trans_b;
    int64_t tile_m, tile_n, panel_k;
    int streams;
    int64_t tiles_m, tiles_n; /* tiles down and across C */
    int64_t panels;           /* per tile (1 with k 0: the pass that applies beta) */
    /* row pitches (elements) of the packed buffers, whole 128-byte units: A's panel is
     * tile_m x panel_k (panel_k x tile_m transposed), B's panel_k x tile_n (tile_n x panel_k) */
    int64_t a_pitch, b_pitch, c_pitch;
    int64_t a_bytes, b_bytes, c_bytes_tile; /* one buffer each */
    int64_t device_bytes;                   /* per device: 2 C tiles, `streams` panel pairs; pinned alike */
    int pinned; /* set by mmt_ooc_run: the caller's matrices were pinned, copied in place */
} mmt_ooc_plan;

/* Plans an m x n x k problem (k 0 where A and B are not read) with elements of ab_bytes
 * (A, B) and c_bytes (C) within budget bytes per device. Knobs the caller set are kept (a
 * tile or panel larger than the problem is cut to it); the others are chosen: tiles of up
 * to half of each side (so a device writes one tile back while it computes the next) but
 * at most 32768 and the whole side up to 4096, panels of 2048 (the first panel, which
 * nothing overlaps, costs less than 4096's: 9.6% against 13.8% of the kernels' time at
 * 16384^3 fp32 on the H100), 2 streams, and the tiles and then the panels halved until the
 * buffers fit. A C of 2-byte elements (bf16, f16) takes all of K in one panel, whatever the
 * knob says: it is rounded once, not once a panel. Returns NULL, or why no plan fits (knobs
 * the caller set too large for the budget, named with the numbers). */
const char *mmt_ooc_plan_make(int64_t m, int64_t n, int64_t k, int ab_bytes, int c_bytes, int trans_a, int trans_b,
                              const mmt_ooc_knobs *knobs, int64_t budget, mmt_ooc_plan *plan);

/* Tile t of 0 .. tiles_m * tiles_n - 1 (row by row): its first row and column in C and its
 * size (edge tiles are smaller). */
void mmt_ooc_tile(const mmt_ooc_plan *p, int64_t t, int64_t *i0, int64_t *j0, int64_t *rows, int64_t *cols);

/* Panel q of 0 .. panels - 1: its first index in K and its depth (the last is shorter). */
void mmt_ooc_panel(const mmt_ooc_plan *p, int64_t q, int64_t *k0, int64_t *depth);

/* The GPUs of a device list: "all" (0 .. count - 1) or ordinals separated by commas ("0,1",
 * "cuda:0,1" and "cuda:0,cuda:1" alike), each below count and named once, at most max.
 * Returns NULL with *n set, or what is wrong. */
const char *mmt_ooc_parse_devices(const char *text, int count, int max, int *ordinals, int *n);

/* The knobs of the environment: MMTUNE_OOC_TILE (N or MxN), MMTUNE_OOC_PANEL,
 * MMTUNE_OOC_STREAMS (unset or empty: 0, chosen) and MMTUNE_OOC_DEVICES (copied into
 * devices, "" if unset). Returns NULL, or what is wrong with which variable. */
const char *mmt_ooc_env(int64_t *tile_m, int64_t *tile_n, int64_t *panel_k, int *streams, char *devices,
                        size_t size);

#endif
