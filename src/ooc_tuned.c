/* ooc_tuned.c - the out-of-core GEMM's tuned knobs: their text, the grid, the choice
 * (ooc_tuned.h). */
#include "ooc_tuned.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lookup.h"

void mmt_ooc_knobs_format(const mmt_ooc_knobs *k, char *buf, size_t size)
{
    snprintf(buf, size, "OOC_TILE_M=%lld,OOC_TILE_N=%lld,OOC_PANEL_K=%lld,OOC_STREAMS=%d", (long long)k->tile_m,
             (long long)k->tile_n, (long long)k->panel_k, k->streams);
}

int mmt_ooc_knobs_parse(const char *text, mmt_ooc_knobs *k)
{
    static const char *const names[4] = {"OOC_TILE_M=", "OOC_TILE_N=", "OOC_PANEL_K=", "OOC_STREAMS="};
    int64_t v[4];
    const char *s = text;
    for (int i = 0; i < 4; i++) { /* the canonical order, as format writes it */
        const size_t len = strlen(names[i]);
        if (strncmp(s, names[i], len) != 0 || s[len] < '1' || s[len] > '9') return -1;
        char *end;
        errno = 0;
        v[i] = strtoll(s + len, &end, 10);
        if (errno || *end != (i < 3 ? ',' : '\0')) return -1;
        s = end + (i < 3);
    }
    if (v[3] > MMT_OOC_MAX_STREAMS) return -1;
    *k = (mmt_ooc_knobs){.tile_m = v[0], .tile_n = v[1], .panel_k = v[2], .streams = (int)v[3]};
    return 0;
}

size_t mmt_ooc_grid(int64_t m, int64_t n, int64_t k, int ab_bytes, int c_bytes, mmt_ooc_knobs *out)
{
    mmt_ooc_plan def; /* the default with memory no object: the GPU's budget is the runtime's business */
    if (mmt_ooc_plan_make(m, n, k, ab_bytes, c_bytes, 0, 0, NULL, INT64_MAX, &def)) return 0;
    int64_t tiles[2][2] = {{def.tile_m, def.tile_n}}, panels[3] = {def.panel_k};
    int n_tiles = 1, n_panels = 1;
    const int64_t hm = (def.tile_m + 1) / 2, hn = (def.tile_n + 1) / 2;
    if (hm >= MMT_OOC_MIN_SIDE && hn >= MMT_OOC_MIN_SIDE) tiles[n_tiles][0] = hm, tiles[n_tiles++][1] = hn;
    if (c_bytes >= 4 && k > 0) { /* a narrower C takes all of K in one panel: nothing to choose */
        if (def.panel_k / 2 >= MMT_OOC_MIN_SIDE) panels[n_panels++] = def.panel_k / 2;
        if (def.panel_k * 2 <= k) panels[n_panels++] = def.panel_k * 2;
    }
    static const int streams[2] = {2, 3};
    size_t count = 0;
    for (int s = 0; s < 2; s++)
        for (int t = 0; t < n_tiles; t++)
            for (int p = 0; p < n_panels; p++)
                out[count++] = (mmt_ooc_knobs){tiles[t][0], tiles[t][1], panels[p], streams[s]};
    return count;
}

int mmt_ooc_tuned_choose(const mmt_best_rec *bests, size_t n, const mmt_problem *p, mmt_ooc_knobs *out,
                         mmt_choice *how)
{
    const mmt_best_rec *pick = NULL;
    double pick_d = 0;
    for (size_t i = 0; i < n; i++) {
        const mmt_problem *q = &bests[i].problem;
        mmt_ooc_knobs kn;
        if (q->dtype != p->dtype || q->out != p->out || q->mode != p->mode || q->layout != p->layout ||
            q->trans_a != p->trans_a || q->trans_b != p->trans_b || mmt_ooc_knobs_parse(bests[i].params, &kn))
            continue;
        const double d = mmt_lookup_distance(p, q);
        if (!pick || d < pick_d) pick = &bests[i], pick_d = d, *out = kn;
    }
    if (pick) *how = pick_d == 0 ? MMT_CHOICE_EXACT : MMT_CHOICE_NEAREST;
    return pick != NULL;
}
