/* test_stream_k.c - the stream-K schedule of the CUDA-core template's persistent grid
 * (templates/cuda/mmt_stream_k.h, the same text the GPU compiles), played out on the host for
 * every block of many grids, tile counts and K lengths: each K step of each tile is computed
 * exactly once; whole tiles come in full waves, the pieces go out evenly; a piece that does
 * not start a tile is its block's first stream-K piece, a tile's owner finds exactly the blocks that hold
 * the rest of it, in K order, after itself; and a block writes at most one partial sum. */
#include <stdlib.h>

#include "check.h"

#define MMT_SK_FN static inline
#include "../templates/cuda/mmt_stream_k.h"

typedef struct piece {
    int block; /* who computed it, -1: nobody yet */
    long long k1;
} piece;

static void check_plan(long long tiles, long long iters, int grid)
{
    const mmt_sk_plan p = mmt_sk_make(tiles, iters, grid);
    const long long cells = tiles * (iters ? iters : 1);
    int *seen = calloc((size_t)cells, sizeof *seen);   /* how often each (tile, K step) ran */
    piece *head = malloc(sizeof *head * (size_t)tiles); /* each tile's piece at K step 0 */
    int *partials = calloc((size_t)grid, sizeof *partials);
    long long *from = malloc(sizeof *from * (size_t)cells); /* the block that ran a K step */
    long long least = -1, most = 0;
    int bad = 0;
    for (long long t = 0; t < tiles; t++) head[t].block = -1;

    /* the data-parallel tiles are whole waves; the stream-K ones the rest, or none */
    CHECK(p.dp_tiles >= 0 && p.dp_tiles <= tiles);
    bad += iters && p.dp_tiles % grid != 0;
    bad += iters && tiles > grid && tiles % grid && tiles - p.dp_tiles != tiles % grid + grid;
    bad += iters && tiles <= grid && p.dp_tiles != 0;

    for (int b = 0; b < grid; b++) {
        mmt_sk_cursor c = mmt_sk_start(&p, b);
        mmt_sk_unit u;
        long long steps = 0;
        int pieces = 0; /* of stream-K tiles */
        while (mmt_sk_next(&p, &c, &u)) {
            bad += u.tile < 0 || u.tile >= tiles || u.k0 < 0 || u.k1 > iters || (iters && u.k0 >= u.k1);
            if (bad) break;
            if (u.tile < p.dp_tiles) bad += u.k0 != 0 || u.k1 != iters || u.tile % grid != b;
            for (long long k = u.k0; k < u.k1; k++) {
                seen[u.tile * iters + k]++;
                from[u.tile * iters + k] = b;
            }
            if (!iters) seen[u.tile]++;
            steps += u.tile >= p.dp_tiles ? u.k1 - u.k0 : 0;
            if (u.k0 > 0) { /* a partial sum: the block's first piece, and its only one */
                bad += pieces != 0 || u.tile < p.dp_tiles;
                partials[b]++;
            } else if (u.tile >= p.dp_tiles) {
                bad += head[u.tile].block != -1;
                head[u.tile] = (piece){b, u.k1};
            }
            pieces += u.tile >= p.dp_tiles;
        }
        /* the stream-K ranges differ by a K step at most */
        least = least < 0 || steps < least ? steps : least;
        most = steps > most ? steps : most;
    }
    for (long long x = 0; x < cells; x++) bad += seen[x] != 1;
    bad += most - least > 1;
    for (int b = 0; b < grid; b++) bad += partials[b] > 1;

    /* each split tile's owner: the blocks after it it would wait for are the holders of the
     * rest of the tile, in K order, each starting where the one before stopped */
    for (long long t = p.dp_tiles; !bad && iters && t < tiles; t++) {
        const piece h = head[t];
        bad += h.block < 0;
        if (h.block < 0 || h.k1 == iters) continue;
        mmt_sk_unit u = {t, 0, h.k1};
        long long next = h.k1;
        for (int q = h.block + 1; q < grid && mmt_sk_begin(&p, q) < mmt_sk_tile_end(&p, &u); q++) {
            if (mmt_sk_begin(&p, q) == mmt_sk_begin(&p, q + 1)) continue; /* an empty range */
            bad += partials[q] != 1 || from[t * iters + next] != q;
            while (next < iters && from[t * iters + next] == q) next++;
        }
        bad += next != iters;
    }
    if (bad)
        fprintf(stderr, "stream-K plan of %lld tiles x %lld K steps on %d blocks: %d faults\n", tiles, iters, grid,
                bad);
    CHECK_EQ_INT(bad, 0);
    free(seen), free(head), free(partials), free(from);
}

int main(void)
{
    static const int grids[] = {1, 2, 3, 7, 132, 264, 396, 528};
    static const long long iters[] = {0, 1, 2, 3, 8, 17, 129, 513};
    int plans = 0;
    for (size_t g = 0; g < sizeof grids / sizeof grids[0]; g++)
        for (size_t i = 0; i < sizeof iters / sizeof iters[0]; i++) {
            /* fewer tiles than blocks, a few waves and a part, whole waves, many waves */
            const long long tiles[] = {1, 2, 5, grids[g] - 1, grids[g], grids[g] + 1, 2 * grids[g] - 1, 2 * grids[g],
                                       3 * grids[g] + 7, 1089, 4225};
            for (size_t t = 0; t < sizeof tiles / sizeof tiles[0]; t++)
                if (tiles[t] > 0) check_plan(tiles[t], iters[i], grids[g]), plans++;
        }
    /* the odd fp32 shapes of the benchmarks, on 128 x 128 tiles of K steps of 8, two blocks an SM of an H100 */
    check_plan(33 * 33, 513, 264);  /* 4097^3 */
    check_plan(7 * 10, 541, 264);   /* 777x1234x4321 */
    check_plan(20 * 3, 875, 264);   /* 2500x300x7000 */
    check_plan(32 * 32, 512, 264);  /* 4096^3 */
    printf("%d stream-K plans checked\n", plans + 4);
    return check_result();
}
