/* mmt_stream_k.h - the stream-K schedule of a persistent grid (spliced in where included, like
 * mmt_params.h; plain C too: tests/test_stream_k.c checks it on the host).
 *
 * A GEMM of `tiles` output tiles of `iters` K steps each, on a grid of `grid` blocks that are
 * resident together (a few an SM). The tiles that fill whole waves of the grid are computed
 * whole, a block a tile (tiles [0, dp_tiles): block b takes b, b + grid, ...); the rest, the
 * last partial wave and the full wave before it (every tile where there are no more tiles than
 * blocks), is split evenly along K: block b takes the K steps [b * sk_iters / grid,
 * (b + 1) * sk_iters / grid) of those tiles laid end to end, in order (stream-K: Osama, Merrill,
 * Cecka, Garland and Owens, PPoPP 2023). No wave runs part empty, whatever the tile count, and
 * a long K is shared out without a slice count to choose.
 *
 * The piece of a tile that starts at its K step 0 owns the tile: where other blocks hold the
 * rest of it, it adds their partial sums to its own in block order, and writes C. Any other
 * piece is the first piece of its block (the block's range begins inside that tile), which
 * writes its partial sum to the block's slot and raises the block's flag before it does
 * anything else. An owner waits only for later blocks, and only for what they do first: with
 * the grid resident (or blocks started in index order) nothing deadlocks, and every sum is
 * taken in the same order on every run. */
#ifndef MMT_SK_FN
#define MMT_SK_FN __device__ __forceinline__
#endif

/* Counts of tiles and K steps are ints (fewer registers live across the K loop); places in
 * the stream-K order, which runs over tiles times K steps, are 64-bit. */
typedef struct mmt_sk_plan {
    int iters;          /* K steps per tile */
    int dp_tiles;       /* tiles computed whole, in full waves of the grid */
    int grid;
    long long sk_iters; /* the K steps of the other tiles, shared out evenly */
} mmt_sk_plan;

typedef struct mmt_sk_unit {
    int tile, k0, k1; /* a tile's K steps [k0, k1) */
} mmt_sk_unit;

typedef struct mmt_sk_cursor {
    int dp;           /* the block's next whole tile */
    long long g, end; /* the rest of its stream-K range */
} mmt_sk_cursor;

MMT_SK_FN mmt_sk_plan mmt_sk_make(int tiles, int iters, int grid)
{
    mmt_sk_plan p;
    const int rest = tiles % grid;
    /* none where there is no K (alpha == 0: C = beta C, tile by tile) or the waves are full */
    const int sk = iters == 0 ? 0 : tiles <= grid ? tiles : rest == 0 ? 0 : rest + grid;
    p.iters = iters, p.grid = grid;
    p.dp_tiles = tiles - sk;
    p.sk_iters = (long long)sk * iters;
    return p;
}

/* Where block b's stream-K range begins (b == grid: where the last one ends). */
MMT_SK_FN long long mmt_sk_begin(const mmt_sk_plan *p, int b)
{
    return p->sk_iters * b / p->grid;
}

MMT_SK_FN mmt_sk_cursor mmt_sk_start(const mmt_sk_plan *p, int b)
{
    mmt_sk_cursor c;
    c.dp = b, c.g = mmt_sk_begin(p, b), c.end = mmt_sk_begin(p, b + 1);
    return c;
}

/* Block's next piece of work into *u; 0 when it has done all of it. */
MMT_SK_FN int mmt_sk_next(const mmt_sk_plan *p, mmt_sk_cursor *c, mmt_sk_unit *u)
{
    if (c->dp < p->dp_tiles) {
        u->tile = c->dp, u->k0 = 0, u->k1 = p->iters;
        c->dp += p->grid;
        return 1;
    }
    if (c->g >= c->end) return 0;
    const long long t = c->g / p->iters, first = t * p->iters;
    u->tile = p->dp_tiles + (int)t;
    u->k0 = (int)(c->g - first);
    u->k1 = c->end - first < p->iters ? (int)(c->end - first) : p->iters;
    c->g = first + u->k1;
    return 1;
}

/* Where u's tile ends in the stream-K order: the blocks after its owner whose ranges begin
 * before that (the empty ones aside) hold the rest of the tile. */
MMT_SK_FN long long mmt_sk_tile_end(const mmt_sk_plan *p, const mmt_sk_unit *u)
{
    return (long long)(u->tile - p->dp_tiles + 1) * p->iters;
}
