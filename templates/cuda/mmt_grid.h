/* mmt_grid.h - which tile and which part of K a block of a (tiles, 1, SPLITK) grid takes
 * (spliced in where included, like mmt_params.h, after BK, GROUP_M and SPLITK). */

/* Tile pid's place: blocks sweep GROUP_M tile rows column by column, so the blocks resident
 * together share both A rows and B columns in L2. */
__device__ __forceinline__ void mmt_place_tile(long long pid, long long tiles_m, long long tiles_n,
                                               long long &tile_m, long long &tile_n)
{
    const long long group = (long long)GROUP_M * tiles_n;
    const long long first_m = pid / group * GROUP_M;
    const long long rows = tiles_m - first_m < GROUP_M ? tiles_m - first_m : GROUP_M;
    tile_m = first_m + (pid % group) % rows, tile_n = (pid % group) / rows;
}

/* Split-K slice z's part [kbeg, kend) of [0, K): whole BK steps but a ragged last one; empty
 * (kbeg >= kend) for a slice past K. */
__device__ __forceinline__ void mmt_slice_range(long long K, long long z, long long &kbeg, long long &kend)
{
    const long long chunk = ((K + SPLITK - 1) / SPLITK + BK - 1) / BK * BK;
    kbeg = z * chunk;
    kend = kbeg + chunk < K ? kbeg + chunk : K;
}
