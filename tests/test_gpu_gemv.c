/* test_gpu_gemv.c - the thin family (cuda/gemv.cu) through the real backend on GPU 0: every
 * precision mode and output type, every transpose, a thin N and a thin M (so X runs along K
 * or along its rows either way), the problem's own default (the space's `defaults:`) and
 * configurations spread over the space (split-K atomic and summed by the last slice, several
 * rows per warp, Y staged in shared memory, 16-byte and element loads), on odd thin shapes, K == 0, a long K, with
 * 16-byte-aligned and odd leading dimensions, the BLAS alpha/beta rules (NaN-poisoned C with
 * beta = 0, NaN A and B with alpha = 0), the padding of C untouched, against a long double
 * host reference with the tuner's per-mode bound; and split-K summed in the order of K gives
 * the same bits twice. MMTUNE_TEST_TIER=quick: the default and one configuration for odd
 * rows of each, the same bits in f32 alone. Exits 77 (skipped) without a GPU. */
#include "gpu_check.h"

/* thin N: one column, a few, sixteen; odd M, K == 0, a K shorter than one step of a block's
 * warps along K (8 warps x 8 steps), a long K (split-K); M thin: the same transposed. Each
 * configuration runs where it is valid (its SIDE and SN). */
static const shape thin_n[] = {{1, 1, 1},   {300, 1, 520}, {257, 3, 129},  {65, 16, 2100},
                               {17, 5, 0},  {700, 7, 37},  {1000, 2, 4100}};
static const shape thin_m[] = {{1, 300, 520}, {3, 257, 129}, {16, 65, 2100}, {5, 17, 0}, {7, 700, 37}, {2, 1000, 4100}};

static const kind kinds[] = {{MMT_MODE_F32, MMT_F32},   {MMT_MODE_F64, MMT_F64},  {MMT_MODE_BF16, MMT_F32},
                             {MMT_MODE_BF16, MMT_BF16}, {MMT_MODE_F16, MMT_F16},  {MMT_MODE_TF32, MMT_F32},
                             {MMT_MODE_F32X3, MMT_F32}};

/* The configurations of one thin side: the problem's default, spread picks (aligned and odd
 * rows), split-K atomic (32- and 64-bit C) and summed by the last slice; two and four rows per
 * warp and rounds of two steps where X runs along K, else several warps along K, eight steps
 * in flight and Y's rows from shared memory (on `staged`, as wide as the registers allow). */
static int configs(const mmt_family *fam, const mmt_problem *p, const mmt_problem *wide, const mmt_problem *split,
                   const mmt_problem *staged, int x_kc, instance *list)
{
    int n = 0;
    mmt_space_env env = env_of(p, 0);
    mmt_err err;
    CHECK_OK(mmt_space_default_for(fam->space, &env, &list[n++].cfg, NULL, &err), &err);
    pick(fam, p, 1, NULL, 0, 1, list, &n);
    if (gc_quick()) return n; /* the default (16-byte loads) and one for odd rows */
    pick(fam, p, 0, NULL, 0, 2, list, &n);
    /* SN = 16; 16-bit X along its rows has it only with element loads (LIVE_REGS), which
     * the space offers where the rows are not 16-byte aligned */
    pick(fam, wide, !x_kc && mmt_dtype_size(p->dtype) == 2, NULL, 0, 1, list, &n);
    if (mmt_dtype_size(p->out) >= 4) pick(fam, split, 0, "SPLITK", 1, 1, list, &n);
    pick(fam, split, 0, "SERIAL", 1, 1, list, &n);
    if (x_kc) pick(fam, p, 0, "RW", 1, 1, list, &n), pick_where(fam, p, 0, "UK", 2, 1, 1, list, &n);
    else {
        pick(fam, p, 0, "KW", 1, 1, list, &n), pick_where(fam, p, 0, "UK", 8, 1, 1, list, &n);
        pick_where(fam, staged, 0, "YSH", 1, 1, 1, list, &n);
    }
    return n;
}

static void test_side(const mmt_family *fam, kind kd, int ta, int tb, int thin_m_side)
{
    const shape *shapes = thin_m_side ? thin_m : thin_n;
    const size_t n_shapes = thin_m_side ? sizeof thin_m / sizeof thin_m[0] : sizeof thin_n / sizeof thin_n[0];
    mmt_problem p = problem_of(kd, ta, tb, shapes[1]), wide = problem_of(kd, ta, tb, thin_m_side ? shapes[2] : shapes[3]),
                split = problem_of(kd, ta, tb, shapes[n_shapes - 1]),
                seven = problem_of(kd, ta, tb, thin_m_side ? shapes[4] : shapes[5]); /* SN 8 */
    instance list[GC_MAX_INSTANCES];
    memset(list, 0, sizeof list);
    const int n = configs(fam, &p, &wide, &split, mmt_dtype_size(p.dtype) == 4 ? &wide : &seven,
                          thin_m_side ? tb : !ta, list);
    build(fam, &p, list, n);
    for (size_t si = 0; si < n_shapes; si++)
        for (int odd_ld = 0; odd_ld < 2; odd_ld++) run_shape(fam, kd, ta, tb, shapes[si], odd_ld, list, n);
    char name[64];
    mmt_problem_format(&p, name, sizeof name);
    report(name, list, n);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0); /* lines whole between the messages on stderr */
    if (gpu_open()) return 77;
    mmt_family *fam = NULL;
    mmt_err err;
    CHECK_OK(mmt_family_load_file(MMT_SOURCE_DIR "/search_spaces/cuda_gemv.yaml", &fam, &err), &err);
    if (!fam) return check_result();
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        for (int t = 0; t < 4; t++)
            for (int side = 0; side < 2; side++) test_side(fam, kinds[i], t & 1, t >> 1, side);
    const shape long_k[] = {{1000, 3, 8200}, {2, 1000, 8200}};
    for (size_t i = 0; i < (gc_quick() ? 1 : sizeof kinds / sizeof kinds[0]); i++)
        for (int s = 0; s < 2; s++) check_same_bits(fam, kinds[i], long_k[s], "SERIAL");
    mmt_family_free(fam);
    return check_result();
}
