/* test_gpu_mma.c - the tensor-core templates (cuda/gemm_mma.cu, cuda/gemm_dmma.cu on sm_80
 * and later, and cuda/gemm_wgmma.cu and cuda/gemm_dmma_tma.cu where the GPU is the Hopper
 * they are built for) through
 * the real backend on GPU 0, every mode (bf16, f16, tf32, f32x3, f64, e4m3, e5m2) and output type,
 * every transpose each family serves: the space's default and configurations spread over
 * it (split-K atomic and in the order of K, packing, rasterisation, persistent grids,
 * clusters, one consumer, C through shared memory, tf32 and FP8 packed K-major, FP8's partial
 * sums promoted to fp32 (PROMOTE), Hopper's m16n8
 * fp64 shapes and fp64 NN as C^T = B^T A^T among them), on odd shapes and ragged K, with
 * 16-byte-aligned and with odd leading dimensions (each config only where the space admits
 * it for that alignment), the BLAS alpha/beta rules (NaN-poisoned C with beta = 0, NaN A
 * and B with alpha = 0), the padding of C untouched, against a long double host reference
 * with the tuner's per-mode bound. Then the promise of f32x3: its error is within a small
 * factor of the fp32 SIMT kernel's on the same data; and the promise of split-K in the
 * order of K: every family's such configurations (SIMT f32 and f64, mma, DMMA), and the SIMT
 * family's stream-K ones, give the same bits on two runs. Exits 77 (skipped) without a GPU. */
#include "gpu_check.h"

static int quick; /* `test_gpu_mma quick`: the small shapes, a few configurations (compute-sanitizer) */

/* small and odd (partial tiles everywhere), a ragged K of many steps, K == 0, a long K
 * (split-K), many row tiles (rasterisation), more tiles than a persistent grid has blocks */
static const shape shapes[] = {{1, 1, 1},      {7, 5, 3},   {63, 65, 17},   {65, 63, 129},  {300, 257, 129},
                               {257, 300, 520}, {17, 33, 0}, {65, 63, 2100}, {1100, 96, 64}, {1500, 2200, 72}};
static const shape main_shape = {257, 300, 520}, splitk_shape = {65, 63, 2100}, group_shape = {1100, 96, 64},
                   many_shape = {1500, 2200, 72};

static const kind kinds[] = {{MMT_MODE_BF16, MMT_BF16}, {MMT_MODE_BF16, MMT_F32}, {MMT_MODE_F16, MMT_F16},
                             {MMT_MODE_F16, MMT_F32},   {MMT_MODE_TF32, MMT_F32}, {MMT_MODE_F32X3, MMT_F32},
                             {MMT_MODE_F64, MMT_F64},   {MMT_MODE_E4M3, MMT_F32}, {MMT_MODE_E4M3, MMT_BF16},
                             {MMT_MODE_E5M2, MMT_F16},  {MMT_MODE_E4M3_E5M2, MMT_BF16}, {MMT_MODE_E5M2_E4M3, MMT_F32},
                             {MMT_MODE_E4M3, MMT_E4M3}, {MMT_MODE_E5M2_E4M3, MMT_E5M2}};

/* Whether the family serves this kind and orientation at all (some configuration is valid
 * for the aligned main shape), and whether its default does. */
static int serves(const mmt_family *fam, kind kd, int ta, int tb, int *by_default)
{
    mmt_problem p = problem_of(kd, ta, tb, main_shape);
    mmt_space_env env = env_of(&p, 0);
    mmt_config def, *all = NULL;
    size_t count = 0;
    mmt_err err;
    *by_default = 0;
    if (!(fam->space->modes & (1u << kd.mode))) return 0;
    mmt_space_default(fam->space, &def);
    if (mmt_space_check(fam->space, &def, &env, by_default, NULL, NULL) != MMT_OK) *by_default = 0;
    CHECK_OK(mmt_space_enumerate(fam->space, &env, &all, &count, &err), &err);
    free(all);
    return count > 0;
}

static void test_kind(const mmt_family *fam, kind kd, int ta, int tb)
{
    int by_default;
    if (!serves(fam, kd, ta, tb, &by_default)) return;
    instance list[GC_MAX_INSTANCES];
    memset(list, 0, sizeof list);
    int n = 0;
    if (by_default) mmt_space_default(fam->space, &list[n++].cfg); /* tf32 other than NT: packed only */
    mmt_problem p = problem_of(kd, ta, tb, main_shape), q = problem_of(kd, ta, tb, group_shape),
                r = problem_of(kd, ta, tb, splitk_shape), w = problem_of(kd, ta, tb, many_shape);
    pick(fam, &p, 0, NULL, 0, quick ? 1 : 3, list, &n); /* aligned rows: the widest copies */
    const int swaps = strstr(fam->name, "wgmma") && mmt_dtype_size(p.dtype) == 4 && !ta && !tb;
    const int fp8 = mmt_dtype_fp8(p.dtype); /* the wgmma family's alone */
    /* fp64 NN under Hopper's m16 shapes: C^T = B^T A^T */
    const int dswaps = strstr(fam->name, "gemm_dmma.cu") && device_cc() >= 9 && !ta && !tb;
    const int tma64 = strstr(fam->name, "gemm_dmma_tma") != NULL; /* NN, TN, TT; 16-byte rows only */
    if (swaps || fp8) { /* what serves an untuned 32-bit NN problem (SWAP), or FP8 (PROMOTE, PACK) */
        mmt_space_env env = env_of(&p, 0);
        mmt_err err;
        int entry = -1;
        CHECK_OK(mmt_space_default_for(fam->space, &env, &list[n].cfg, &entry, &err), &err);
        CHECK(entry >= 0);
        n++;
    }
    if (quick) { /* odd rows (the narrowest copies, or packed first) and one split-K */
        if (strstr(fam->name, "wgmma")) {
            pick(fam, &w, 0, "PERSIST", 1, 1, list, &n);
            pick_where(fam, &p, 0, "EPI", 2, 1, 1, list, &n);
            pick(fam, &p, 1, "PACK", 1, 1, list, &n);
        } else if (tma64) {
            pick(fam, &w, 0, "CLUSTER", 1, 1, list, &n);
            pick(fam, &p, 0, "MMA_K", 1, 1, list, &n);
            pick(fam, &r, 0, "KH", 1, 1, list, &n);
        } else {
            pick(fam, &p, 1, NULL, 0, 1, list, &n);
        }
        if (kd.out == MMT_F32 || !strstr(fam->name, "gemm_mma")) pick(fam, &r, 0, "SPLITK", 1, 1, list, &n);
        if (swaps) pick_where(fam, &p, 0, "SWAP", 1, 1, 1, list, &n);
        if (dswaps) pick_where(fam, &r, 0, "SWAP", 1, 1, 1, list, &n);
        if (fp8) pick_where(fam, &r, 0, "PROMOTE", 1, 1, 1, list, &n); /* split-K, partial sums promoted */
        if (fp8) pick_where(fam, &p, 0, "PROMOTE", 2, 1, 1, list, &n); /* two stages' sums in flight */
        if (fp8) pick_where(fam, &r, 0, "PROMOTE", 2, 1, 1, list, &n);
    } else if (strstr(fam->name, "wgmma")) {
        pick(fam, &w, 0, "PERSIST", 1, 1, list, &n);   /* a persistent grid striding over the tiles */
        pick(fam, &w, 0, "CLUSTER", 1, 1, list, &n);   /* A multicast to a pair of blocks */
        pick(fam, &p, 0, "CONSUMERS", 0, 1, list, &n); /* one consumer warpgroup */
        pick(fam, &w, 0, "GROUP_M", 1, 1, list, &n);   /* rasterisation */
        pick_where(fam, &p, 0, "EPI", 1, 1, 1, list, &n); /* C staged through shared memory */
        pick_where(fam, &w, 0, "EPI", 2, 1, 1, list, &n); /* C by TMA stores (persistent or not) */
        pick(fam, &p, 1, "PACK", 1, 1, list, &n);      /* odd rows packed first */
        pick(fam, &r, 0, "SPLITK", 1, 1, list, &n);    /* slices of K summed in order */
        if (swaps) pick_where(fam, &p, 0, "SWAP", 1, 1, 3, list, &n); /* 32-bit NN as C^T = B^T A^T */
        if (swaps) pick_where(fam, &r, 0, "SWAP", 1, 1, 1, list, &n);
        if (fp8) pick_where(fam, &p, 0, "PROMOTE", 1, 1, 2, list, &n); /* FP8's partial sums promoted */
        if (fp8) pick_where(fam, &w, 0, "PROMOTE", 1, 1, 1, list, &n);
        if (fp8) pick_where(fam, &p, 0, "PROMOTE", 2, 1, 2, list, &n);
        if (fp8) pick_where(fam, &w, 0, "PROMOTE", 2, 1, 1, list, &n);
    } else if (tma64) {
        pick(fam, &w, 0, "CLUSTER", 1, 2, list, &n);   /* the A slot multicast to a pair of blocks */
        pick(fam, &p, 0, "MMA_K", 1, 2, list, &n);     /* m16n8k16 */
        pick(fam, &p, 0, "KH", 1, 2, list, &n);        /* stages of 32 k (a ragged last one) */
        pick(fam, &w, 0, "GROUP_M", 1, 1, list, &n);   /* rasterisation (NN: over C^T's 2200 rows) */
        pick_where(fam, &p, 0, "BM", 128, 1, 2, list, &n); /* the tall tiles, near 255 registers */
        pick(fam, &r, 0, "SPLITK", 1, 2, list, &n);    /* slices of K summed in order */
    } else if (strstr(fam->name, "dmma")) {
        pick(fam, &p, 1, NULL, 0, 1, list, &n);        /* odd rows: 8-byte copies */
        pick(fam, &q, 0, "GROUP_M", 1, 1, list, &n);   /* rasterisation */
        pick(fam, &r, 0, "SPLITK", 1, 1, list, &n);    /* split-K */
        pick(fam, &r, 0, "SERIAL", 1, 1, list, &n);    /* split-K in the order of K */
        if (device_cc() >= 9) pick(fam, &p, 0, "MMA_K", 1, 2, list, &n); /* Hopper's m16n8k8, m16n8k16 */
        pick_where(fam, &p, 0, "BM", 128, 1, 2, list, &n); /* the tall tiles, near 255 registers */
        if (dswaps) { /* C^T = B^T A^T: split-K (atomic, in order), 8-byte copies, one slice */
            pick_where(fam, &p, 0, "SWAP", 1, 1, 2, list, &n);
            pick_where(fam, &r, 0, "SWAP", 1, 1, 1, list, &n);
            pick_where(fam, &p, 1, "SWAP", 1, 1, 1, list, &n);
            pick_where(fam, &w, 0, "SWAP", 1, 1, 1, list, &n);
        }
    } else {
        pick(fam, &p, 1, "PACK", 0, 1, list, &n);    /* odd rows: the narrowest copies */
        pick(fam, &p, 1, "PACK", 1, 1, list, &n);    /* odd rows packed first */
        pick(fam, &q, 0, "GROUP_M", 1, 1, list, &n); /* rasterisation */
        if (kd.out == MMT_F32) pick(fam, &r, 0, "SPLITK", 1, 1, list, &n);
        if (kd.out == MMT_F32) pick(fam, &r, 0, "SERIAL", 1, 1, list, &n);
    }
    build(fam, &p, list, n); /* the definitions do not depend on the sizes */
    for (size_t si = 0; si < (quick ? 7 : sizeof shapes / sizeof shapes[0]); si++)
        for (int odd_ld = 0; odd_ld < 2; odd_ld++) run_shape(fam, kd, ta, tb, shapes[si], odd_ld, list, n);
    char name[64];
    mmt_problem_format(&p, name, sizeof name);
    report(name, list, n);
}

/* ---- f32x3 against plain fp32 ---------------------------------------------------------- */

/* Relative error of one instance of fam (its default, or the config text) on A, B
 * (f32, row-major dense; B stored n x k where tb) for m x n x k against ref; beta = 0. */
static double error_of(const mmt_family *fam, mmt_mode mode, const char *config, shape s, const void *da,
                       const void *db, int tb, void *dc, float *host_c, const double *ref)
{
    mmt_problem p = {.dtype = MMT_F32, .out = MMT_F32, .mode = mode, .layout = MMT_ROW_MAJOR, .trans_b = tb,
                     .m = s.m, .n = s.n, .k = s.k};
    mmt_space_env env = {.problem = &p, .device = &dev};
    mmt_config cfg;
    mmt_err err;
    char defines[4096], *log = NULL;
    void *bin = NULL;
    size_t size = 0;
    mmt_module *mod = NULL;
    mmt_geometry g;
    double e = INFINITY;
    mmt_space_default(fam->space, &cfg);
    mmt_status st = config ? mmt_config_parse(fam->space, config, &cfg, &err) : MMT_OK;
    if (st == MMT_OK) st = mmt_kernel_defines(fam->space, &cfg, &env, defines, sizeof defines, &err);
    if (st == MMT_OK) st = be->compile(&dev, fam->source, defines, &bin, &size, &log, &err);
    if (st == MMT_OK) st = be->load(&dev, bin, size, fam->space->entry, &mod, &err);
    if (st == MMT_OK) st = mmt_space_geometry(fam->space, &cfg, &env, &g, &err);
    mmt_gemm_params gp = {.m = s.m, .n = s.n, .k = s.k, .lda = s.k, .ldb = tb ? s.k : s.n, .ldc = s.n,
                          .trans_b = tb, .alpha = 1, .beta = 0, .a = da, .b = db, .c = dc};
    void *ws = NULL;
    if (st == MMT_OK && g.workspace > 0) st = be->alloc(&dev, (size_t)g.workspace, &ws, &err);
    gp.workspace = ws, gp.workspace_size = ws ? g.workspace : 0;
    if (st == MMT_OK) st = be->launch(mod, &gp, &g, NULL, &err);
    if (st == MMT_OK) st = be->sync(NULL, &err);
    be->free(ws);
    if (st == MMT_OK) st = be->copy(host_c, dc, sizeof(float) * s.m * s.n, MMT_D2H, &err);
    if (st == MMT_OK) e = gc_rel_error_t(MMT_F32, 0, s.m, s.n, host_c, s.n, ref);
    else fprintf(stderr, "%s: %s\n", mmt_mode_name(mode), err.msg);
    CHECK_EQ_INT(st, MMT_OK);
    if (mod) be->unload(mod);
    free(bin);
    free(log);
    return e;
}

/* f32x3 keeps fp32-level accuracy: its error on a long K within a small factor of the fp32
 * SIMT kernel's, and tf32's clearly above it; for the mma family (NN) and, where it runs,
 * the wgmma family (NT: it reads 32-bit operands K-major only). */
static void test_f32x3_accuracy(const mmt_family *mma, const mmt_family *wg)
{
    mmt_family *simt = NULL;
    mmt_err err;
    CHECK_OK(mmt_family_load_file(MMT_SOURCE_DIR "/search_spaces/cuda_gemm_simt.yaml", &simt, &err), &err);
    if (!simt) return;
    const shape s = {256, 256, 4096}; /* a long K: accumulation error dominates */
    void *a = gc_matrix_t(MMT_F32, 0, s.m, s.k, s.k, 0), *b = gc_matrix_t(MMT_F32, 0, s.k, s.n, s.n, 0);
    float *c = malloc(sizeof(float) * s.m * s.n);
    double *ref = gc_ref_alloc(s.m, s.n);
    gc_reference_t(MMT_F32, MMT_F32, 0, 0, 0, s.m, s.n, s.k, 1.0, a, s.k, b, s.n, 0.0, NULL, 1, ref);
    float *bt = malloc(sizeof(float) * s.k * s.n); /* B^T, n x k */
    for (int64_t i = 0; i < s.k; i++)
        for (int64_t j = 0; j < s.n; j++) bt[j * s.k + i] = ((const float *)b)[i * s.n + j];
    void *da = NULL, *db = NULL, *dbt = NULL, *dc = NULL;
    if (be->alloc(&dev, 4 * s.m * s.k, &da, &err) == MMT_OK && be->alloc(&dev, 4 * s.k * s.n, &db, &err) == MMT_OK &&
        be->alloc(&dev, 4 * s.k * s.n, &dbt, &err) == MMT_OK && be->alloc(&dev, 4 * s.m * s.n, &dc, &err) == MMT_OK &&
        be->copy(da, a, 4 * s.m * s.k, MMT_H2D, &err) == MMT_OK && be->copy(db, b, 4 * s.k * s.n, MMT_H2D, &err) == MMT_OK &&
        be->copy(dbt, bt, 4 * s.k * s.n, MMT_H2D, &err) == MMT_OK) {
        double e32 = error_of(simt, MMT_MODE_F32, NULL, s, da, db, 0, dc, c, ref);
        double ex3 = error_of(mma, MMT_MODE_F32X3, NULL, s, da, db, 0, dc, c, ref);
        double etf = error_of(mma, MMT_MODE_TF32, NULL, s, da, db, 0, dc, c, ref);
        printf("256x256x4096 relative error against long double: fp32 SIMT %.3g, f32x3 %.3g (%.2fx), tf32 %.3g\n",
               e32, ex3, ex3 / e32, etf);
        CHECK(ex3 <= 4 * e32); /* fp32-level accuracy */
        CHECK(etf > 16 * ex3); /* and tf32 is measurably not that: the split is doing its work */
        mmt_problem nt = {.dtype = MMT_F32, .out = MMT_F32, .mode = MMT_MODE_F32X3, .layout = MMT_ROW_MAJOR,
                          .trans_b = 1, .m = s.m, .n = s.n, .k = s.k};
        mmt_space_env env = {.problem = &nt, .device = &dev};
        mmt_config def;
        int valid = 0;
        if (wg) mmt_space_default(wg->space, &def);
        if (wg && mmt_space_check(wg->space, &def, &env, &valid, NULL, NULL) == MMT_OK && valid) {
            double wx3 = error_of(wg, MMT_MODE_F32X3, NULL, s, da, dbt, 1, dc, c, ref);
            double wtf = error_of(wg, MMT_MODE_TF32, NULL, s, da, dbt, 1, dc, c, ref);
            printf("  wgmma (NT): f32x3 %.3g (%.2fx fp32 SIMT), tf32 %.3g\n", wx3, wx3 / e32, wtf);
            CHECK(wx3 <= 4 * e32);
            CHECK(wtf > 16 * wx3);
            /* NN through K-major packing; and split-K, whose slices are summed in the order of
             * K: the same inputs give the same bits on every run */
            const char *packed = "BM=128,BN=128,STAGES=3,CONSUMERS=2,GROUP_M=8,CLUSTER=1,PERSIST=0,EPI=0,PACK=2,SPLITK=1,SWAP=0",
                       *split = "BM=128,BN=128,STAGES=3,CONSUMERS=2,GROUP_M=8,CLUSTER=1,PERSIST=1,EPI=0,PACK=2,SPLITK=4,SWAP=0",
                       *swap = "BM=128,BN=128,STAGES=3,CONSUMERS=2,GROUP_M=8,CLUSTER=1,PERSIST=0,EPI=1,PACK=0,SPLITK=1,SWAP=1";
            double wnn = error_of(wg, MMT_MODE_F32X3, packed, s, da, db, 0, dc, c, ref);
            double wsw = error_of(wg, MMT_MODE_F32X3, swap, s, da, db, 0, dc, c, ref);
            printf("  wgmma (NN, C^T = B^T A^T): f32x3 %.3g\n", wsw);
            CHECK(wsw <= 4 * e32);
            float *first = malloc(sizeof(float) * s.m * s.n);
            double ws1 = error_of(wg, MMT_MODE_F32X3, split, s, da, db, 0, dc, first, ref);
            double ws2 = error_of(wg, MMT_MODE_F32X3, split, s, da, db, 0, dc, c, ref);
            printf("  wgmma (NN, packed K-major): f32x3 %.3g; split-K 4: %.3g, twice the same bits: %s\n", wnn, ws1,
                   memcmp(first, c, sizeof(float) * s.m * s.n) ? "no" : "yes");
            CHECK(wnn <= 4 * e32);
            CHECK(ws1 <= 4 * e32 && ws2 == ws1);
            CHECK(memcmp(first, c, sizeof(float) * s.m * s.n) == 0);
            free(first);
        }
    }
    free(bt);
    be->free(da), be->free(db), be->free(dbt), be->free(dc);
    free(a), free(b), free(c), free(ref);
    mmt_family_free(simt);
}

/* `test_gpu_mma accuracy` runs the f32x3 comparison alone (BENCHMARKS.md quotes it);
 * `test_gpu_mma quick` (or MMTUNE_TEST_TIER=quick) every kind and orientation on the small
 * shapes with the default and a few other configurations per family (odd rows, split-K);
 * `test_gpu_mma sanitize` bf16->f32, tf32 and f64 of those alone, few enough launches for
 * compute-sanitizer. */
int main(int argc, char **argv)
{
    const int accuracy_only = argc > 1 && strcmp(argv[1], "accuracy") == 0;
    const int sanitize = argc > 1 && strcmp(argv[1], "sanitize") == 0;
    quick = sanitize || (argc > 1 && strcmp(argv[1], "quick") == 0) || gc_quick();
    setvbuf(stdout, NULL, _IOLBF, 0); /* lines whole between the messages on stderr */
    if (gpu_open()) return 77;
    mmt_err err;
    mmt_family *fam = NULL;
    CHECK_OK(mmt_family_load_file(MMT_SOURCE_DIR "/search_spaces/cuda_gemm_mma.yaml", &fam, &err), &err);
    if (!fam) return check_result();
    /* the wgmma family where this GPU is the architecture it is built for */
    mmt_family *wg = NULL;
    CHECK_OK(mmt_family_load_file(MMT_SOURCE_DIR "/search_spaces/cuda_gemm_wgmma.yaml", &wg, &err), &err);
    if (!quick) test_f32x3_accuracy(fam, wg);
    /* the fp64 tensor-core family (sm_80 and later: its constraints admit nothing elsewhere) */
    mmt_family *dm = NULL, *simt = NULL;
    CHECK_OK(mmt_family_load_file(MMT_SOURCE_DIR "/search_spaces/cuda_gemm_dmma.yaml", &dm, &err), &err);
    CHECK_OK(mmt_family_load_file(MMT_SOURCE_DIR "/search_spaces/cuda_gemm_simt.yaml", &simt, &err), &err);
    if (!quick && !accuracy_only) {
        static const kind f32 = {MMT_MODE_F32, MMT_F32}, f64 = {MMT_MODE_F64, MMT_F64}, tf32 = {MMT_MODE_TF32, MMT_F32},
                          bf16 = {MMT_MODE_BF16, MMT_F32};
        const shape few = {96, 80, 4100}; /* few tiles, a long K */
        if (simt) check_same_bits(simt, f32, few, "SERIAL"), check_same_bits(simt, f64, few, "SERIAL");
        if (simt) check_same_bits(simt, f32, few, "STREAMK"), check_same_bits(simt, f64, few, "STREAMK");
        check_same_bits(fam, tf32, few, "SERIAL");
        check_same_bits(fam, bf16, few, "SERIAL");
        if (dm) check_same_bits(dm, f64, few, "SERIAL");
    }
    const char *only = getenv("MMTUNE_TEST_FAMILY"); /* "mma", "wgmma", "dmma" or "dmma_tma": one family alone */
    const char *mode = getenv("MMTUNE_TEST_MODE");   /* "f32x3", say: that mode's kinds alone */
    /* fp64 on the tensor cores fed by the TMA where this GPU is the Hopper it is built for */
    mmt_family *dt = NULL;
    CHECK_OK(mmt_family_load_file(MMT_SOURCE_DIR "/search_spaces/cuda_gemm_dmma_tma.yaml", &dt, &err), &err);
    mmt_family *fams[4] = {fam, wg, dm, dt};
    static const char *const names[4] = {"mma", "wgmma", "dmma", "dmma_tma"};
    for (int f = 0; f < 4; f++) {
        if (!fams[f] || (only && strcmp(only, names[f]) != 0)) continue;
        for (size_t i = 0; !accuracy_only && i < sizeof kinds / sizeof kinds[0]; i++)
            for (int t = 0; t < 4; t++)
                if ((!mode || strcmp(mode, mmt_mode_name(kinds[i].mode)) == 0) &&
                    (!sanitize || kinds[i].mode == MMT_MODE_TF32 || kinds[i].mode == MMT_MODE_F64 ||
                     (kinds[i].mode == MMT_MODE_BF16 && kinds[i].out == MMT_F32)))
                    test_kind(fams[f], kinds[i], t & 1, t >> 1);
    }
    mmt_family_free(simt);
    mmt_family_free(dt);
    mmt_family_free(dm);
    mmt_family_free(wg);
    mmt_family_free(fam);
    return check_result();
}
