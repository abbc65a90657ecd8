/* ooc_plan.c - the out-of-core GEMM's tiles, panels and buffer sizes (ooc_plan.h). */
#include "ooc_plan.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PITCH_BYTES 128 /* rows of the packed buffers start on this: what vector and TMA loads like */

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

static int64_t pitch_of(int64_t cols, int elem)
{
    const int64_t unit = PITCH_BYTES / elem; /* at least one: a leading dimension is never 0 */
    return cols > unit ? (cols + unit - 1) / unit * unit : unit;
}

/* The sizes that follow from the tile, panel and stream count. */
static void derive(mmt_ooc_plan *p)
{
    p->tiles_m = (p->m + p->tile_m - 1) / p->tile_m;
    p->tiles_n = (p->n + p->tile_n - 1) / p->tile_n;
    p->panels = p->k > 0 ? (p->k + p->panel_k - 1) / p->panel_k : 1;
    const int64_t pk = p->k > 0 ? p->panel_k : 0;
    p->a_pitch = pitch_of(p->trans_a ? p->tile_m : pk, p->ab_bytes);
    p->b_pitch = pitch_of(p->trans_b ? pk : p->tile_n, p->ab_bytes);
    p->c_pitch = pitch_of(p->tile_n, p->c_bytes);
    p->a_bytes = (p->trans_a ? pk : p->tile_m) * p->a_pitch * p->ab_bytes;
    p->b_bytes = (p->trans_b ? p->tile_n : pk) * p->b_pitch * p->ab_bytes;
    p->c_bytes_tile = p->tile_m * p->c_pitch * p->c_bytes;
    p->device_bytes = 2 * p->c_bytes_tile + p->streams * (p->a_bytes + p->b_bytes);
}

/* A side's default tile: the whole side up to 4096, else half of it (rounded up to 256)
 * up to 32768. */
static int64_t default_side(int64_t side)
{
    if (side <= 4096) return side;
    int64_t half = ((side + 1) / 2 + 255) / 256 * 256;
    return min64(half, 32768);
}

const char *mmt_ooc_plan_make(int64_t m, int64_t n, int64_t k, int ab_bytes, int c_bytes, int trans_a, int trans_b,
                              const mmt_ooc_knobs *knobs, int64_t budget, mmt_ooc_plan *plan)
{
    static _Thread_local char why[256];
    const mmt_ooc_knobs none = {0};
    const mmt_ooc_knobs *kn = knobs ? knobs : &none;
    if (m <= 0 || n <= 0 || k < 0 || ab_bytes <= 0 || c_bytes <= 0) return "an empty or negative problem";
    if (kn->tile_m < 0 || kn->tile_n < 0 || kn->panel_k < 0 || kn->streams < 0 || kn->streams > MMT_OOC_MAX_STREAMS) {
        snprintf(why, sizeof why, "tile %lldx%lld, panel %lld, streams %d: sizes are positive (0: chosen), streams 1 to %d",
                 (long long)kn->tile_m, (long long)kn->tile_n, (long long)kn->panel_k, kn->streams,
                 MMT_OOC_MAX_STREAMS);
        return why;
    }
    mmt_ooc_plan p = {.m = m, .n = n, .k = k, .ab_bytes = ab_bytes, .c_bytes = c_bytes, .trans_a = trans_a,
                      .trans_b = trans_b};
    p.tile_m = kn->tile_m ? min64(kn->tile_m, m) : default_side(m);
    p.tile_n = kn->tile_n ? min64(kn->tile_n, n) : default_side(n);
    /* a C narrower than fp32 (bf16, f16) would be rounded once per panel: one panel, all of K */
    const int one_panel = c_bytes < 4;
    p.panel_k = k == 0 ? 1 : one_panel ? k : kn->panel_k ? min64(kn->panel_k, k) : min64(2048, k);
    p.streams = kn->streams ? kn->streams : 2;
    derive(&p);
    /* too big: halve what the caller left to us, the larger tile side first, then the panel */
    while (p.device_bytes > budget) {
        int64_t *side = NULL;
        if (!kn->tile_m && p.tile_m > MMT_OOC_MIN_SIDE && (p.tile_m >= p.tile_n || kn->tile_n || p.tile_n <= MMT_OOC_MIN_SIDE))
            side = &p.tile_m;
        else if (!kn->tile_n && p.tile_n > MMT_OOC_MIN_SIDE)
            side = &p.tile_n;
        else if (!kn->panel_k && !one_panel && k > 0 && p.panel_k > MMT_OOC_MIN_SIDE)
            side = &p.panel_k;
        if (!side) {
            snprintf(why, sizeof why,
                     "tiles of %lldx%lld with panels of %lld in %d streams need %lld MiB per GPU, more than the %lld "
                     "MiB of memory it can spare",
                     (long long)p.tile_m, (long long)p.tile_n, (long long)p.panel_k, p.streams,
                     (long long)(p.device_bytes >> 20), (long long)(budget >> 20));
            return why;
        }
        *side = (*side + 1) / 2;
        derive(&p);
    }
    *plan = p;
    return NULL;
}

void mmt_ooc_tile(const mmt_ooc_plan *p, int64_t t, int64_t *i0, int64_t *j0, int64_t *rows, int64_t *cols)
{
    *i0 = t / p->tiles_n * p->tile_m;
    *j0 = t % p->tiles_n * p->tile_n;
    *rows = min64(p->tile_m, p->m - *i0);
    *cols = min64(p->tile_n, p->n - *j0);
}

void mmt_ooc_panel(const mmt_ooc_plan *p, int64_t q, int64_t *k0, int64_t *depth)
{
    *k0 = q * p->panel_k;
    *depth = p->k > 0 ? min64(p->panel_k, p->k - *k0) : 0;
}

const char *mmt_ooc_parse_devices(const char *text, int count, int max, int *ordinals, int *n)
{
    static _Thread_local char why[512];
    *n = 0;
    if (strcmp(text, "all") == 0) {
        if (count < 1) return "\"all\": this machine has no GPU";
        for (int i = 0; i < count && i < max; i++) ordinals[(*n)++] = i;
        return NULL;
    }
    const char *s = text;
    if (strncmp(s, "cuda:", 5) == 0) s += 5;
    while (1) {
        if (strncmp(s, "cuda:", 5) == 0) s += 5;
        char *end;
        errno = 0;
        long v = (*s >= '0' && *s <= '9') ? strtol(s, &end, 10) : -1;
        if (v < 0 || errno || (*end != ',' && *end != '\0')) {
            snprintf(why, sizeof why, "devices \"%.200s\": \"all\" or GPU ordinals separated by commas (\"0,1\")", text);
            return why;
        }
        if (v >= count) {
            snprintf(why, sizeof why, "devices \"%.200s\": no GPU %ld (this machine has %d)", text, v, count);
            return why;
        }
        for (int i = 0; i < *n; i++)
            if (ordinals[i] == v) {
                snprintf(why, sizeof why, "devices \"%.200s\": GPU %ld is named twice", text, v);
                return why;
            }
        if (*n == max) {
            snprintf(why, sizeof why, "devices \"%.200s\": more than %d GPUs", text, max);
            return why;
        }
        ordinals[(*n)++] = (int)v;
        if (*end == '\0') return NULL;
        s = end + 1;
    }
}

/* A positive integer, or 0 where the text is empty; -1 if it is neither. */
static int64_t size_of(const char *text, const char **rest)
{
    char *end;
    errno = 0;
    long long v = (*text >= '0' && *text <= '9') ? strtoll(text, &end, 10) : -1;
    if (v <= 0 || errno) return -1;
    *rest = end;
    return v;
}

const char *mmt_ooc_env(int64_t *tile_m, int64_t *tile_n, int64_t *panel_k, int *streams, char *devices,
                        size_t size)
{
    static _Thread_local char why[256];
    *tile_m = *tile_n = *panel_k = 0;
    *streams = 0;
    const char *v = getenv("MMTUNE_OOC_TILE"), *rest = "";
    if (v && *v) {
        *tile_m = *tile_n = size_of(v, &rest);
        if (*tile_m > 0 && (*rest == 'x' || *rest == 'X')) *tile_n = size_of(rest + 1, &rest);
        if (*tile_m <= 0 || *tile_n <= 0 || *rest) {
            snprintf(why, sizeof why, "MMTUNE_OOC_TILE=%.100s: a tile's side N, or rows and columns MxN", v);
            return why;
        }
    }
    if ((v = getenv("MMTUNE_OOC_PANEL")) && *v && ((*panel_k = size_of(v, &rest)) <= 0 || *rest)) {
        snprintf(why, sizeof why, "MMTUNE_OOC_PANEL=%.100s: the panels' depth, a positive integer", v);
        return why;
    }
    int64_t n = 0;
    if ((v = getenv("MMTUNE_OOC_STREAMS")) && *v &&
        ((n = size_of(v, &rest)) <= 0 || *rest || n > MMT_OOC_MAX_STREAMS)) {
        snprintf(why, sizeof why, "MMTUNE_OOC_STREAMS=%.100s: 1 to %d", v, MMT_OOC_MAX_STREAMS);
        return why;
    }
    *streams = (int)n;
    v = getenv("MMTUNE_OOC_DEVICES");
    snprintf(devices, size, "%s", v ? v : "");
    return NULL;
}
