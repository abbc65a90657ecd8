/* test_cuda_compile.c - the CUDA templates through NVRTC for sm_90 (sm_90a for the wgmma
 * family), no GPU needed: the SIMT space's default and a spread sample of its valid
 * configs for several problems (f32 and f64, split-K atomic and in the order of K, EVEN
 * ones among them, stream-K in every orientation), the mma space likewise for every mode,
 * output type and transpose (odd leading dimensions too), the fp64 tensor-core (DMMA) space for every transpose, both
 * copy widths, each mma shape, 128 x 128 tiles and both kinds of split-K, NN as C^T = B^T A^T
 * (SWAP) likewise, the thin (GEMV) space for every mode,
 * side and orientation (its defaults along X's rows and along K at their widest too), the
 * wgmma space for every mode (FP8 too) and operand orientation it serves, its grouped GEMM's one-launch instances,
 * the reference kernel, and a broken source that must fail
 * with MMT_COMPILE and its log, and the additions of Strassen-Winograd levels
 * (strassen_add.cu, f32 and f64), and the epilogue's kernel (epilogue.cu, every C type, the
 * bias in fp32 and in C's type; FP8 C's in fp32 alone). Register and spill counts are printed (ptxas -v); the
 * tensor-core samples must not spill, and a wgmma instance with two consumers must be
 * compiled to the register cap that setmaxnreg divides (168 per thread). Every GEMM instance
 * states what it needs of a launch (mmt_gemm_needs, backend.h), and one built for a problem
 * asks no more of a launch of that problem than it has. Skips (77) only
 * when NVRTC itself is unavailable. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "check.h"
#include "elf_object.h"
#include "family.h"
#include "grouped.h"
#include "h100.h"
#include "kernel.h"
#include "resource.h"

static int spills, compiled, last_regs, last_spill, needs_checked;
/* MMTUNE_TEST_TIER=full compiles every spread sample below; by default half of each (at
 * least one), so make test stays short on a 2-core machine while every family, mode,
 * orientation and default is still compiled. */
static int full_tier;

/* Compiles one instance (for sm_90a where its definitions ask for the arch-specific target,
 * as the backend does); prints its ptxas summary; returns the bytes it spilled. */
/* What an instance states it needs of a launch (backend.h): every GEMM template's states it;
 * one built for env asks no more than env's operands have (its orientation, no more
 * alignment, the problem's rows and columns), so a launch of the kind it was built for is
 * never refused. */
static void check_needs(const char *what, const char *source, const void *bin, size_t size, const mmt_space_env *env)
{
    if (!strstr(source, " mmt_gemm(mmt_gemm_params p")) return; /* the additions, the reference */
    mmt_launch_needs n;
    const int found = mmt_elf_object(bin, size, "mmt_gemm_needs", &n, sizeof n) == 0;
    if (!found) fprintf(stderr, "%s: the cubin has no mmt_gemm_needs\n", what);
    CHECK(found);
    if (!found) return;
    CHECK_EQ_INT(n.version, MMT_LAUNCH_NEEDS_VERSION);
    CHECK(n.elem_bytes == 1 || n.elem_bytes == 2 || n.elem_bytes == 4 || n.elem_bytes == 8);
    if (!env) return;
    const mmt_problem *p = env->problem;
    const int64_t es = mmt_dtype_size(p->dtype);
    const int align_a = env->align_a ? env->align_a : mmt_align_bytes(0, (p->trans_a ? p->m : p->k) * es);
    const int align_b = env->align_b ? env->align_b : mmt_align_bytes(0, (p->trans_b ? p->k : p->n) * es);
    const int ok = n.elem_bytes == es && (n.trans_a < 0 || n.trans_a == p->trans_a) &&
                   (n.trans_b < 0 || n.trans_b == p->trans_b) && n.align_a <= align_a && n.align_b <= align_b &&
                   (n.max_m == 0 || p->m <= n.max_m) && (n.max_n == 0 || p->n <= n.max_n);
    if (!ok)
        fprintf(stderr, "%s: needs elem %d align %d %d trans %d %d max %lld %lld, built for elem %lld align %d %d "
                        "trans %d %d, %lld x %lld\n",
                what, n.elem_bytes, n.align_a, n.align_b, n.trans_a, n.trans_b, (long long)n.max_m,
                (long long)n.max_n, (long long)es, align_a, align_b, p->trans_a, p->trans_b, (long long)p->m,
                (long long)p->n);
    CHECK(ok);
    needs_checked++;
}

/* The template refuses these defines when compiled, saying why (says, in NVRTC's log). */
static void check_refused(const char *source, const char *defines, const char *says)
{
    void *bin = NULL;
    size_t size = 0;
    char *log = NULL;
    mmt_err err;
    const char *arch = strstr(defines, "MMT_ARCH_SPECIFIC=1") ? "sm_90a" : "sm_90";
    CHECK_EQ_INT(mmt_cuda_compile_for_arch(arch, source, defines, &bin, &size, &log, &err), MMT_COMPILE);
    CHECK(log && strstr(log, says));
    free(log);
}

static int compile_one(const char *what, const char *source, const char *defines, const mmt_space_env *env)
{
    void *bin = NULL;
    size_t size = 0;
    char *log = NULL;
    mmt_err err;
    const char *arch = strstr(defines, "MMT_ARCH_SPECIFIC=1") ? "sm_90a" : "sm_90";
    mmt_status st = mmt_cuda_compile_for_arch(arch, source, defines, &bin, &size, &log, &err);
    if (st != MMT_OK) fprintf(stderr, "%s [%s]: %s\n", what, defines, err.msg);
    CHECK_EQ_INT(st, MMT_OK);
    CHECK(st != MMT_OK || (bin && size > 0));
    /* "ptxas info    : Used 127 registers, ..." and "N bytes spill stores" per kernel */
    int regs = -1, spill = 0;
    for (const char *s = log ? log : ""; (s = strstr(s, "Used ")); s += 5) {
        int r;
        if (sscanf(s, "Used %d registers", &r) == 1 && r > regs) regs = r;
    }
    for (const char *s = log ? log : ""; (s = strstr(s, "bytes spill stores")); s++) {
        const char *b = s;
        while (b > log && b[-1] == ' ') b--;
        while (b > log && b[-1] >= '0' && b[-1] <= '9') b--;
        spill += atoi(b);
    }
    if (spill) spills++;
    compiled += st == MMT_OK;
    last_regs = regs, last_spill = spill;
    if (st == MMT_OK) check_needs(what, source, bin, size, env);
    printf("%-14s regs %3d spill %4d B  cubin %7zu B  %s\n", what, regs, spill, size, defines);
    free(bin);
    free(log);
    return spill;
}

/* Compiles the default (if with_default) and `samples` configs spread over the valid ones
 * of problem p; returns how many of them spilled. */
static int sample_problem(const mmt_family *fam, const mmt_device_info *dev, const mmt_problem *pp, int with_default,
                          int samples)
{
    mmt_problem p = *pp;
    mmt_space_env env = {.problem = &p, .device = dev};
    mmt_err err;
    char defines[4096], what[64];
    int spilled = 0;
    mmt_problem_format(&p, what, sizeof what);

    if (with_default) {
        mmt_config def;
        mmt_space_default(fam->space, &def);
        int valid = 0;
        CHECK_OK(mmt_space_check(fam->space, &def, &env, &valid, NULL, &err), &err);
        CHECK_EQ_INT(valid, 1); /* the default serves every shape */
        CHECK_OK(mmt_kernel_defines(fam->space, &def, &env, defines, sizeof defines, &err), &err);
        spilled += compile_one("default", fam->source, defines, &env) > 0;
    }

    mmt_config *all = NULL;
    size_t count = 0;
    CHECK_OK(mmt_space_enumerate(fam->space, &env, &all, &count, &err), &err);
    printf("%s: %zu valid configs\n", what, count);
    CHECK(count > 0);
    if (!full_tier) samples = (samples + 1) / 2;
    for (int i = 0; count && i < samples; i++) {
        const mmt_config *c = &all[((size_t)i * 2 + 1) * count / (2 * (size_t)samples)];
        CHECK_OK(mmt_kernel_defines(fam->space, c, &env, defines, sizeof defines, &err), &err);
        spilled += compile_one(what, fam->source, defines, &env) > 0;
    }
    free(all);
    return spilled;
}

static void sample_space(const mmt_family *fam, const mmt_device_info *dev, mmt_dtype dtype, int64_t m, int64_t n,
                         int64_t k, int samples)
{
    mmt_problem p = {.dtype = dtype, .out = dtype, .mode = (mmt_mode)dtype, .layout = MMT_ROW_MAJOR, .m = m, .n = n,
                     .k = k};
    sample_problem(fam, dev, &p, 1, samples);
}

/* Compiles the first valid config of problem p whose params names[i] have values[i] (n of
 * them); returns whether it spilled (a missing one is a failure: the space lost what the
 * test is for). */
static int sample_where(const mmt_family *fam, const mmt_device_info *dev, const mmt_problem *p,
                        const char *const *names, const int64_t *values, int n)
{
    mmt_space_env env = {.problem = p, .device = dev};
    mmt_config *all = NULL;
    size_t count = 0;
    mmt_err err;
    int idx[4], spilled = 0, known = n <= 4;
    CHECK(known);
    for (int j = 0; known && j < n; j++) {
        idx[j] = -1;
        for (int i = 0; i < fam->space->n_params; i++)
            if (strcmp(fam->space->params[i].name, names[j]) == 0) idx[j] = i;
        CHECK(idx[j] >= 0);
        known = known && idx[j] >= 0;
    }
    CHECK_OK(mmt_space_enumerate(fam->space, &env, &all, &count, &err), &err);
    size_t i = 0;
    for (; known && i < count; i++) {
        int j = 0;
        while (j < n && all[i].v[idx[j]] == values[j]) j++;
        if (j == n) break;
    }
    CHECK(known && i < count);
    if (known && i < count) {
        char defines[4096], what[128] = "";
        for (int j = 0; j < n; j++) {
            size_t used = strlen(what);
            snprintf(what + used, sizeof what - used, "%s%s=%lld", j ? " " : "", names[j], (long long)values[j]);
        }
        CHECK_OK(mmt_kernel_defines(fam->space, &all[i], &env, defines, sizeof defines, &err), &err);
        spilled = compile_one(what, fam->source, defines, &env) > 0;
    }
    free(all);
    return spilled;
}

/* Compiles config `text` of problem p: one that tuning measures (valid, kept by the prune).
 * Returns whether it spilled. */
static int compile_measured(const mmt_family *fam, const mmt_device_info *dev, const mmt_problem *p, const char *text)
{
    mmt_space_env env = {.problem = p, .device = dev};
    mmt_config c, *all = NULL;
    size_t count = 0;
    mmt_err err;
    char defines[4096];
    int spilled = 1;
    CHECK_OK(mmt_config_parse(fam->space, text, &c, &err), &err);
    CHECK_OK(mmt_space_enumerate(fam->space, &env, &all, &count, &err), &err);
    CHECK(mmt_config_index(all, count, &c) >= 0);
    if (mmt_kernel_defines(fam->space, &c, &env, defines, sizeof defines, &err) == MMT_OK)
        spilled = compile_one(text, fam->source, defines, &env) > 0;
    free(all);
    return spilled;
}

/* Compiles what `defaults:` gives problem p with 16-byte aligned operands: an entry (its
 * index in *entry), whose definitions hold each space-separated word of `want`. Returns
 * whether it spilled. */
static int compile_default(const mmt_family *fam, const mmt_device_info *dev, const mmt_problem *p, const char *what,
                           const char *want, int *entry)
{
    mmt_space_env env = {.problem = p, .device = dev, .align_a = 16, .align_b = 16};
    mmt_config def;
    mmt_err err;
    char defines[4096], padded[4200], word[64];
    *entry = -1;
    CHECK_OK(mmt_space_default_for(fam->space, &env, &def, entry, &err), &err);
    CHECK(*entry >= 0);
    CHECK_OK(mmt_kernel_defines(fam->space, &def, &env, defines, sizeof defines, &err), &err);
    snprintf(padded, sizeof padded, " %s ", defines);
    int used = 0;
    for (const char *w = want; sscanf(w, " %63s%n", word, &used) == 1; w += used) {
        char needle[68];
        snprintf(needle, sizeof needle, " %s ", word);
        if (!strstr(padded, needle)) fprintf(stderr, "%s: %s lacks %s\n", what, defines, word);
        CHECK(strstr(padded, needle) != NULL);
    }
    return compile_one(what, fam->source, defines, &env) > 0;
}

/* sample_where with one param. */
static int sample_with(const mmt_family *fam, const mmt_device_info *dev, const mmt_problem *p, const char *name,
                       int64_t value)
{
    return sample_where(fam, dev, p, &name, &value, 1);
}

/* The fp64 tensor-core space: every transpose (the default and spread samples), odd leading
 * dimensions (8-byte copies), Hopper's m16n8k8 and m16n8k16 (on 128 x 128 tiles too),
 * split-K atomic and in order; SWAP (NN as C^T = B^T A^T) with each of those. */
static void sample_dmma(const mmt_device_info *dev)
{
    mmt_family *fam = NULL;
    mmt_err err;
    CHECK_OK(mmt_family_load_file(MMT_SOURCE_DIR "/search_spaces/cuda_gemm_dmma.yaml", &fam, &err), &err);
    if (!fam) return;
    int spilled = 0;
    for (int t = 0; t < 4; t++) {
        mmt_problem p = {.dtype = MMT_F64, .out = MMT_F64, .mode = MMT_MODE_F64, .layout = MMT_ROW_MAJOR,
                         .trans_a = t & 1, .trans_b = t >> 1, .m = 4096, .n = 4096, .k = 4096};
        spilled += sample_problem(fam, dev, &p, 1, t == 0 ? 3 : 1);
        p.m = 1000, p.n = 1001, p.k = 999; /* odd rows: one double per copy */
        spilled += sample_problem(fam, dev, &p, 0, 1);
    }
    mmt_problem p = {.dtype = MMT_F64, .out = MMT_F64, .mode = MMT_MODE_F64, .layout = MMT_ROW_MAJOR, .m = 4096,
                     .n = 4096, .k = 4096};
    spilled += sample_with(fam, dev, &p, "MMA_K", 8);
    spilled += sample_with(fam, dev, &p, "MMA_K", 16);
    /* 128 x 128 tiles (128 accumulator registers a thread) with each m16 shape: the prune
     * keeps them and they compile without spills */
    mmt_problem tt = p;
    tt.trans_a = tt.trans_b = 1;
    spilled += compile_measured(fam, dev, &tt, "BM=128,BN=128,BK=16,WARPS_M=4,WARPS_N=2,STAGES=3,VEC=2,MMA_K=16,SPLITK=1,SERIAL=0,GROUP_M=8,SWAP=0");
    spilled += compile_measured(fam, dev, &p, "BM=128,BN=128,BK=16,WARPS_M=2,WARPS_N=4,STAGES=3,VEC=2,MMA_K=8,SPLITK=1,SERIAL=0,GROUP_M=8,SWAP=0");
    mmt_problem sk = {.dtype = MMT_F64, .out = MMT_F64, .mode = MMT_MODE_F64, .layout = MMT_ROW_MAJOR, .m = 128,
                      .n = 96, .k = 8192, .trans_a = 1};
    spilled += sample_with(fam, dev, &sk, "SPLITK", 4);
    spilled += sample_with(fam, dev, &sk, "SERIAL", 1);
    /* SWAP: each m16 shape on blocks inside the matrix and at its odd edges (8-byte copies),
     * split-K atomic and in order; 128 x 128 m16n8k16, which spills without SWAP (A's
     * fragments copied twice), fits with it */
    static const char *const swap_k[] = {"SWAP", "MMA_K"}, *const swap_sk[] = {"SWAP", "SPLITK", "SERIAL"};
    for (int64_t mk = 8; mk <= 16; mk *= 2) {
        const int64_t v[] = {1, mk};
        mmt_problem odd = p;
        odd.m = 1000, odd.n = 1001, odd.k = 999;
        spilled += sample_where(fam, dev, &p, swap_k, v, 2);
        spilled += sample_where(fam, dev, &odd, swap_k, v, 2);
    }
    mmt_problem sknn = sk;
    sknn.trans_a = 0;
    for (int64_t serial = 0; serial < 2; serial++)
        spilled += sample_where(fam, dev, &sknn, swap_sk, (const int64_t[]){1, 4, serial}, 3);
    spilled += compile_measured(fam, dev, &p, "BM=128,BN=128,BK=16,WARPS_M=4,WARPS_N=2,STAGES=3,VEC=2,MMA_K=16,SPLITK=1,SERIAL=0,GROUP_M=8,SWAP=1");
    /* an untuned aligned fp64 NN problem on sm_90: the m16n8k8 SWAP entry of `defaults:` */
    int entry;
    spilled += compile_default(fam, dev, &p, "dmma f64 NN default", "SWAP=1 MMA_K=8", &entry);
    CHECK_EQ_INT(entry, 0);
    CHECK_EQ_INT(spilled, 0);
    mmt_family_free(fam);
}

/* The fp64 tensor-core space fed by the TMA: NN (as C^T = B^T A^T), TN, TT and NT, the default
 * and spread samples, odd sizes (the TMA zero-fills the edges), m16n8k16, clusters, split-K,
 * and the largest tiles the prune keeps, which must not spill. */
static void sample_dmma_tma(const mmt_device_info *dev)
{
    mmt_family *fam = NULL;
    mmt_err err;
    CHECK_OK(mmt_family_load_file(MMT_SOURCE_DIR "/search_spaces/cuda_gemm_dmma_tma.yaml", &fam, &err), &err);
    if (!fam) return;
    int spilled = 0;
    mmt_problem p = {.dtype = MMT_F64, .out = MMT_F64, .mode = MMT_MODE_F64, .layout = MMT_ROW_MAJOR, .m = 4096,
                     .n = 4096, .k = 4096};
    for (int t = 0; t < 4; t++) {
        p.trans_a = t & 1, p.trans_b = t >> 1;
        p.m = p.n = p.k = 4096;
        spilled += sample_problem(fam, dev, &p, 1, t == 0 || t == 2 ? 4 : 2);
        p.m = 1000, p.n = 1002, p.k = 998; /* partial tiles, 16-byte rows */
        spilled += sample_problem(fam, dev, &p, 0, 1);
    }
    for (int nt = 0; nt < 2; nt++) { /* NN (C^T = B^T A^T), NT (both slots K-major) */
        p.trans_a = 0, p.trans_b = nt, p.m = p.n = p.k = 4096;
        spilled += sample_with(fam, dev, &p, "MMA_K", 16);
        spilled += sample_with(fam, dev, &p, "CLUSTER", 2);
        spilled += sample_with(fam, dev, &p, "KH", 2);
    }
    /* few tiles over a long K: slices of K summed in order (instances the prune keeps) */
    const char *sliced = "BM=64,BN=128,WARPS_M=2,WARPS_N=4,STAGES=4,MMA_K=8,GROUP_M=1,CLUSTER=1,KH=1,SPLITK=4";
    for (int t = 0; t < 4; t++) {
        p.trans_a = t & 1, p.trans_b = t >> 1, p.m = p.n = 512, p.k = 4096;
        spilled += sample_with(fam, dev, &p, "SPLITK", 4);
        spilled += compile_measured(fam, dev, &p, sliced);
    }
    p.trans_a = p.trans_b = 0; /* and in a cluster of 2 x 4 blocks */
    sliced = "BM=128,BN=128,WARPS_M=4,WARPS_N=2,STAGES=3,MMA_K=8,GROUP_M=1,CLUSTER=2,KH=2,SPLITK=4";
    spilled += compile_measured(fam, dev, &p, sliced);
    p.trans_a = 0, p.trans_b = 1, p.m = p.n = p.k = 4096;
    /* NT's largest tiles, as NN's (its A slot's two loads kept apart: 255 registers, none spilled) */
    spilled +=
        compile_measured(fam, dev, &p, "BM=64,BN=256,WARPS_M=2,WARPS_N=4,STAGES=4,MMA_K=8,GROUP_M=8,CLUSTER=1,KH=1");
    spilled +=
        compile_measured(fam, dev, &p, "BM=128,BN=64,WARPS_M=2,WARPS_N=2,STAGES=4,MMA_K=8,GROUP_M=8,CLUSTER=2,KH=2");
    p.trans_a = p.trans_b = 0;
    /* an untuned aligned fp64 NN problem of many tiles: the `defaults:` entry */
    int entry;
    spilled += compile_default(fam, dev, &p, "dmma_tma f64 NN default", "BM=64 BN=256 STAGES=4", &entry);
    CHECK_EQ_INT(entry, 0);
    spilled += compile_measured(fam, dev, &p, "BM=64,BN=256,WARPS_M=2,WARPS_N=4,STAGES=3,MMA_K=8,GROUP_M=8,CLUSTER=1,KH=1");
    spilled += compile_measured(fam, dev, &p, "BM=128,BN=64,WARPS_M=2,WARPS_N=2,STAGES=4,MMA_K=8,GROUP_M=8,CLUSTER=2,KH=2");
    CHECK_EQ_INT(spilled, 0);
    mmt_family_free(fam);
}

/* The tensor-core space: every mode, both output types, every transpose, aligned and odd
 * leading dimensions (which only admit narrow copies). */
static void sample_mma(const mmt_device_info *dev)
{
    mmt_family *fam = NULL;
    mmt_err err;
    CHECK_OK(mmt_family_load_file(MMT_SOURCE_DIR "/search_spaces/cuda_gemm_mma.yaml", &fam, &err), &err);
    if (!fam) return;
    static const struct {
        mmt_mode mode;
        mmt_dtype out;
    } kinds[] = {{MMT_MODE_BF16, MMT_BF16}, {MMT_MODE_BF16, MMT_F32}, {MMT_MODE_F16, MMT_F16},
                 {MMT_MODE_F16, MMT_F32},   {MMT_MODE_TF32, MMT_F32}, {MMT_MODE_F32X3, MMT_F32}};
    int spilled = 0;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        for (int t = 0; t < 4; t++) {
            mmt_problem p = {.dtype = mmt_mode_dtype(kinds[i].mode), .out = kinds[i].out, .mode = kinds[i].mode,
                             .layout = MMT_ROW_MAJOR, .trans_a = t & 1, .trans_b = t >> 1, .m = 4096, .n = 4096,
                             .k = 4096};
            /* f32x3 keeps a second set of partial sums (its products are summed per mma step
             * apart from the accumulators), which NVRTC's register allocator sometimes meets
             * with a few spilled words: tolerated there, nowhere else */
            int s = sample_problem(fam, dev, &p, t == 0, t == 0 ? 3 : 1);
            p.m = p.n = p.k = 4097; /* 2-byte rows for 16-bit inputs: register-staged copies */
            s += sample_problem(fam, dev, &p, 0, 1);
            if (kinds[i].mode != MMT_MODE_F32X3) spilled += s;
        }
    mmt_problem sk = {.dtype = MMT_F32, .out = MMT_F32, .mode = MMT_MODE_TF32, .layout = MMT_ROW_MAJOR, .m = 128,
                      .n = 128, .k = 8192};
    spilled += sample_problem(fam, dev, &sk, 0, 2); /* split-K */
    spilled += sample_with(fam, dev, &sk, "SERIAL", 1); /* in the order of K */
    CHECK_EQ_INT(spilled, 0);
    mmt_family_free(fam);
}

/* The wgmma space (sm_90a): every mode in every operand orientation (tf32 and f32x3 other
 * than NT through K-major packing, where the default does not serve), both output types,
 * split-K on a problem of few tiles; the default with two consumer
 * warpgroups must be compiled to 168 registers, which setmaxnreg divides into 40 for the
 * producer and 232 for each consumer (fewer would leave the consumers waiting forever). */
static void sample_wgmma(const mmt_device_info *dev)
{
    mmt_family *fam = NULL;
    mmt_err err;
    CHECK_OK(mmt_family_load_file(MMT_SOURCE_DIR "/search_spaces/cuda_gemm_wgmma.yaml", &fam, &err), &err);
    if (!fam) return;
    static const struct {
        mmt_mode mode;
        mmt_dtype out;
        int ta, tb; /* -1: every orientation */
    } kinds[] = {{MMT_MODE_BF16, MMT_F32, -1, -1}, {MMT_MODE_BF16, MMT_BF16, 0, 0}, {MMT_MODE_F16, MMT_F16, -1, -1},
                 {MMT_MODE_F16, MMT_F32, 1, 1},    {MMT_MODE_TF32, MMT_F32, -1, -1}, {MMT_MODE_F32X3, MMT_F32, -1, -1},
                 {MMT_MODE_E4M3, MMT_F32, -1, -1}, {MMT_MODE_E4M3, MMT_BF16, 0, 1},  {MMT_MODE_E5M2, MMT_F16, 0, 1},
                 {MMT_MODE_E4M3_BLOCK, MMT_BF16, 0, 1}, {MMT_MODE_E5M2_BLOCK, MMT_F16, 1, 0},
                 {MMT_MODE_E4M3_E5M2, MMT_BF16, 0, 1},  {MMT_MODE_E5M2_E4M3, MMT_F32, 1, 1}};
    int spilled = 0;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        for (int t = 0; t < 4; t++) {
            if (kinds[i].ta >= 0 && (t & 1) != kinds[i].ta) continue;
            if (kinds[i].tb >= 0 && (t >> 1) != kinds[i].tb) continue;
            mmt_problem p = {.dtype = mmt_mode_dtype(kinds[i].mode), .out = kinds[i].out, .mode = kinds[i].mode,
                             .layout = MMT_ROW_MAJOR, .trans_a = t & 1, .trans_b = t >> 1, .m = 4096, .n = 4096,
                             .k = 4096};
            const int packed = mmt_dtype_size(p.dtype) != 2 && (p.trans_a || !p.trans_b);
            /* block scales need PROMOTE, which the default lacks (their `defaults:` set it) */
            spilled += sample_problem(fam, dev, &p, !packed && !mmt_mode_block_scaled(p.mode), 2);
        }
    /* split-K: few tiles, a long K */
    mmt_problem sk = {.dtype = MMT_BF16, .out = MMT_BF16, .mode = MMT_MODE_BF16, .layout = MMT_ROW_MAJOR, .m = 96,
                      .n = 4096, .k = 8192};
    spilled += sample_problem(fam, dev, &sk, 0, 2);
    sk = (mmt_problem){.dtype = MMT_F32, .out = MMT_F32, .mode = MMT_MODE_F32X3, .layout = MMT_ROW_MAJOR, .m = 200,
                       .n = 300, .k = 8192};
    spilled += sample_problem(fam, dev, &sk, 0, 2);
    /* the default: two consumers, so the register cap setmaxnreg divides */
    mmt_problem p = {.dtype = MMT_BF16, .out = MMT_F32, .mode = MMT_MODE_BF16, .layout = MMT_ROW_MAJOR, .m = 4096,
                     .n = 4096, .k = 4096};
    mmt_space_env env = {.problem = &p, .device = dev};
    mmt_config def;
    char defines[4096];
    mmt_space_default(fam->space, &def);
    CHECK_OK(mmt_kernel_defines(fam->space, &def, &env, defines, sizeof defines, &err), &err);
    CHECK(strstr(defines, "CONSUMERS=2") && strstr(defines, "MMT_ARCH_SPECIFIC=1"));
    spilled += compile_one("default", fam->source, defines, &env) > 0;
    CHECK_EQ_INT(last_regs, 168);
    /* the packing pass (operands whose rows the TMA cannot read in place) */
    spilled += compile_one("wgmma PACK", fam->source, "PACK=1 MMT_ARCH_SPECIFIC=1", NULL) > 0;
    /* C by TMA stores, 32- and 16-bit, persistent with a cluster */
    spilled += compile_one("wgmma EPI 2", fam->source, "EPI=2 MMT_ARCH_SPECIFIC=1", NULL) > 0;
    spilled += compile_one("wgmma EPI 2 bf16 C", fam->source, "EPI=2 MMT_OUT=2 BN=256 CLUSTER=2 MMT_ARCH_SPECIFIC=1",
                           NULL) > 0;
    /* FP8 C (e4m3, e5m2) out of each way the store runs, split-K's last slice's too; EPI 2's
     * boxes are 128 columns of it, which 192 columns do not fill */
    static const char *const fp8_c[] = {"EPI=0 MMT_OUT=4 BN=192 PROMOTE=1",
                                        "EPI=1 MMT_OUT=5 PERSIST=1 SPLITK=2 PROMOTE=1",
                                        "EPI=2 MMT_OUT=4 PERSIST=1 PROMOTE=1", "EPI=2 MMT_OUT=5 BN=256 PERSIST=1",
                                        "EPI=1 MMT_MODE=8 MMT_OUT=5 PROMOTE=1"};
    for (size_t i = 0; i < sizeof fp8_c / sizeof fp8_c[0]; i++) {
        snprintf(defines, sizeof defines, "MMT_MODE=6 %s OP_B=1 MMT_ARCH_SPECIFIC=1", fp8_c[i]);
        spilled += compile_one("wgmma FP8 C", fam->source, defines, NULL) > 0;
    }
    check_refused(fam->source, "MMT_MODE=6 MMT_OUT=4 EPI=2 BN=192 OP_B=1 PROMOTE=1 MMT_ARCH_SPECIFIC=1",
                  "EPI 2 stores whole boxes");
    /* the epilogue in the store (fused.h): a bias per row or per column, in fp32 or C's type,
     * ReLU or GELU, over each way the store runs */
    static const char *const fused[] = {
        "EPI=0 MMT_OUT=2 EPI_BIAS=2 EPI_ACT=2 BIAS_C=1",
        "EPI=1 MMT_MODE=3 MMT_OUT=3 OP_A=1 OP_B=0 EPI_BIAS=1 EPI_ACT=1",
        "EPI=2 MMT_OUT=2 BN=256 PERSIST=1 OP_B=1 EPI_BIAS=2 EPI_ACT=2 BIAS_C=1",
        "EPI=2 OP_B=1 EPI_BIAS=1",
        "MMT_MODE=4 OP_A=0 OP_B=0 SWAP=1 EPI=1 EPI_BIAS=2 EPI_ACT=2",
        "MMT_MODE=5 OP_A=0 OP_B=0 SWAP=1 EPI=0 PERSIST=1 SPLITK=2 EPI_BIAS=1 EPI_ACT=2",
        "MMT_MODE=6 MMT_OUT=2 OP_B=1 PROMOTE=1 EPI=1 EPI_BIAS=2 EPI_ACT=2 BIAS_C=1",
        "MMT_MODE=6 MMT_OUT=4 OP_B=1 PROMOTE=1 EPI=1 EPI_BIAS=2 EPI_ACT=2", /* FP8 C, its scale */
        "MMT_MODE=7 MMT_OUT=4 OP_B=1 EPI=2 PERSIST=1 EPI_BIAS=1 EPI_ACT=1",
        "MMT_MODE=6 MMT_OUT=5 OP_B=1 PROMOTE=1 EPI=0 PERSIST=1 SPLITK=2 EPI_BIAS=2"};
    for (size_t i = 0; i < sizeof fused / sizeof fused[0]; i++) {
        snprintf(defines, sizeof defines, "%s MMT_ARCH_SPECIFIC=1", fused[i]);
        spilled += compile_one("wgmma fused", fam->source, defines, NULL) > 0;
    }
    /* a grouped GEMM's one launch (grouped.h), every kind of call it takes, as it builds it */
    static const struct {
        mmt_mode mode;
        mmt_dtype out;
    } grouped[] = {{MMT_MODE_BF16, MMT_BF16}, {MMT_MODE_F16, MMT_F16},  {MMT_MODE_E4M3, MMT_BF16},
                   {MMT_MODE_E4M3, MMT_F16},  {MMT_MODE_E4M3, MMT_F32}, {MMT_MODE_E5M2, MMT_BF16},
                   {MMT_MODE_E5M2, MMT_F16},  {MMT_MODE_E5M2, MMT_F32}, {MMT_MODE_BF16, MMT_F32}};
    for (size_t i = 0; i < sizeof grouped / sizeof grouped[0]; i++) {
        mmt_problem g = {.dtype = mmt_mode_dtype(grouped[i].mode), .out = grouped[i].out, .mode = grouped[i].mode,
                         .layout = MMT_ROW_MAJOR, .trans_b = 1, .m = 1000, .n = 4096, .k = 4096};
        mmt_space_env genv = {.problem = &g, .device = dev, .align_a = 16, .align_b = 16};
        mmt_config cfg;
        const mmt_status st = mmt_grouped_defines(fam, &genv, &cfg, defines, sizeof defines, &err);
        char what[32];
        snprintf(what, sizeof what, "grouped %s %s", mmt_mode_name(g.mode), mmt_dtype_name(g.out));
        if (g.out != g.dtype && !mmt_dtype_fp8(g.dtype)) { /* 16-bit with f32 C: not a kind it takes */
            CHECK_EQ_INT(st, MMT_UNSUPPORTED);
            continue;
        }
        CHECK_OK(st, &err);
        if (st == MMT_OK) spilled += compile_one(what, fam->source, defines, &genv) > 0;
    }
    /* an untuned 32-bit NN problem, aligned, is served by the defaults through SWAP (its
     * default config would need B packed first); that instance compiles without spills */
    mmt_problem nn = {.dtype = MMT_F32, .out = MMT_F32, .mode = MMT_MODE_TF32, .layout = MMT_ROW_MAJOR, .m = 4096,
                      .n = 4096, .k = 4096};
    int entry;
    spilled += compile_default(fam, dev, &nn, "wgmma tf32 NN default", "SWAP=1", &entry);
    /* an untuned 16-bit problem of many tiles: 128 x 256 tiles, persistent, C by TMA stores */
    mmt_problem sq = {.dtype = MMT_BF16, .out = MMT_BF16, .mode = MMT_MODE_BF16, .layout = MMT_ROW_MAJOR, .m = 4096,
                      .n = 4096, .k = 4096};
    spilled += compile_default(fam, dev, &sq, "wgmma bf16 square default", "BN=256 PERSIST=1 EPI=2", &entry);
    CHECK_EQ_INT(last_regs, 168);
    /* an untuned FP8 problem whose B is not K-major: packed K-major first, by the defaults */
    mmt_problem f8 = {.dtype = MMT_E4M3, .out = MMT_BF16, .mode = MMT_MODE_E4M3, .layout = MMT_ROW_MAJOR, .m = 4096,
                      .n = 4096, .k = 4096};
    spilled += compile_default(fam, dev, &f8, "wgmma e4m3 NN default", "PACK=2 PROMOTE=1", &entry);
    f8.trans_b = 1;
    spilled += compile_default(fam, dev, &f8, "wgmma e4m3 NT default", "PACK=0 PROMOTE=1", &entry);
    f8.mode = MMT_MODE_E4M3_BLOCK; /* block scales: the same default */
    spilled += compile_default(fam, dev, &f8, "wgmma e4m3-block NT default", "PACK=0 PROMOTE=1 MMT_MODE=8", &entry);
    f8.mode = MMT_MODE_E4M3;
    /* FP8's promotion with the widest tile it admits: two sets of 64 x 192 accumulators */
    static const char *const promoted[] = {"BM", "BN", "CONSUMERS", "PROMOTE"};
    static const int64_t wide[] = {128, 192, 2, 1};
    spilled += sample_where(fam, dev, &f8, promoted, wide, 4);
    /* and with two stages' sums in flight: three sets of 64 x 128 */
    static const int64_t overlapped[] = {128, 128, 2, 2};
    spilled += sample_where(fam, dev, &f8, promoted, overlapped, 4);
    /* 32-bit NN without packing: B^T from registers, C written transposed */
    spilled += compile_one("wgmma SWAP tf32", fam->source,
                           "MMT_MODE=4 OP_A=0 OP_B=0 SWAP=1 EPI=1 BN=256 CLUSTER=2 MMT_ARCH_SPECIFIC=1", NULL) > 0;
    spilled += compile_one("wgmma SWAP f32x3", fam->source,
                           "MMT_MODE=5 OP_A=0 OP_B=0 SWAP=1 EPI=0 PERSIST=1 SPLITK=2 MMT_ARCH_SPECIFIC=1", NULL) > 0;
    CHECK_EQ_INT(spilled, 0);
    mmt_family_free(fam);
}

/* The thin (GEMV) space: every mode and output type, a thin N and a thin M in every
 * orientation (X along K and along its rows), split-K atomic and summed by the last slice. */
static void sample_gemv(const mmt_device_info *dev)
{
    mmt_family *fam = NULL;
    mmt_err err;
    CHECK_OK(mmt_family_load_file(MMT_SOURCE_DIR "/search_spaces/cuda_gemv.yaml", &fam, &err), &err);
    if (!fam) return;
    static const struct {
        mmt_mode mode;
        mmt_dtype out;
    } kinds[] = {{MMT_MODE_F32, MMT_F32},   {MMT_MODE_F64, MMT_F64}, {MMT_MODE_BF16, MMT_F32},
                 {MMT_MODE_BF16, MMT_BF16}, {MMT_MODE_F16, MMT_F16}, {MMT_MODE_TF32, MMT_F32}};
    int spilled = 0;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        for (int t = 0; t < 4; t++) {
            /* thin N and thin M in turn: X along K (NN, NT) or along its rows */
            mmt_problem p = {.dtype = mmt_mode_dtype(kinds[i].mode), .out = kinds[i].out, .mode = kinds[i].mode,
                             .layout = MMT_ROW_MAJOR, .trans_a = t & 1, .trans_b = t >> 1, .m = 4096, .n = 4,
                             .k = 4096};
            if (t % 2) p.m = 3, p.n = 4096;
            mmt_space_env env = {.problem = &p, .device = dev};
            mmt_config def;
            char defines[4096];
            CHECK_OK(mmt_space_default_for(fam->space, &env, &def, NULL, &err), &err);
            CHECK_OK(mmt_kernel_defines(fam->space, &def, &env, defines, sizeof defines, &err), &err);
            spilled += compile_one("gemv default", fam->source, defines, &env) > 0;
            if (i == 0 || i == 3) spilled += sample_problem(fam, dev, &p, 0, 1);
        }
    /* the defaults at their widest, thin N and thin M: along X's rows (16; 8 for bf16), Y's
     * rows staged in shared memory but for f64; along K (16), two blocks of 256 threads an SM
     * (128 registers) */
    static const struct {
        mmt_mode mode;
        int64_t wide;
        int x_kc;
        const char *want;
    } wides[] = {{MMT_MODE_F32, 16, 0, "SN=16 WARPS=8 RW=1 KW=8 UK=4 YSH=1"},
                 {MMT_MODE_F64, 16, 0, "SN=16 WARPS=8 RW=1 KW=8 UK=4 YSH=0"},
                 {MMT_MODE_BF16, 8, 0, "SN=8 WARPS=8 RW=1 KW=8 UK=4 YSH=1"},
                 {MMT_MODE_F32, 16, 1, "SN=16 WARPS=8 RW=4 KW=1 UK=2"},
                 {MMT_MODE_F64, 16, 1, "SN=16 WARPS=8 RW=2 KW=1 UK=2"},
                 {MMT_MODE_BF16, 16, 1, "SN=16 WARPS=8 RW=2 KW=1 UK=4"},
                 {MMT_MODE_F16, 16, 1, "SN=16 WARPS=8 RW=2 KW=1 UK=4"}};
    for (size_t i = 0; i < sizeof wides / sizeof wides[0]; i++)
        for (int side = 0; side < 2; side++) {
            /* X runs along K where A is not transposed (thin N) or B is (thin M) */
            mmt_problem p = {.dtype = mmt_mode_dtype(wides[i].mode), .out = mmt_mode_dtype(wides[i].mode),
                             .mode = wides[i].mode, .layout = MMT_ROW_MAJOR, .trans_a = !side && !wides[i].x_kc,
                             .trans_b = side && wides[i].x_kc, .m = 8192, .n = wides[i].wide, .k = 8192};
            if (side) p.m = wides[i].wide, p.n = 8192;
            mmt_space_env env = {.problem = &p, .device = dev};
            mmt_config def;
            char defines[4096];
            CHECK_OK(mmt_space_default_for(fam->space, &env, &def, NULL, &err), &err);
            CHECK_OK(mmt_kernel_defines(fam->space, &def, &env, defines, sizeof defines, &err), &err);
            const int ok = strstr(defines, wides[i].want) && strstr(defines, wides[i].x_kc ? "X_KC=1" : "X_KC=0");
            if (!ok) fprintf(stderr, "default %s, not %s\n", defines, wides[i].want);
            CHECK(ok);
            spilled += compile_one(wides[i].x_kc ? "gemv dot" : "gemv rows", fam->source, defines, &env) > 0;
            if (wides[i].x_kc || strstr(defines, "YSH=1")) CHECK(last_regs <= 128);
        }
    mmt_problem sk = {.dtype = MMT_F32, .out = MMT_F32, .mode = MMT_MODE_F32, .layout = MMT_ROW_MAJOR, .m = 1,
                      .n = 4096, .k = 8192};
    spilled += sample_with(fam, dev, &sk, "KW", 2);
    spilled += sample_with(fam, dev, &sk, "SPLITK", 16); /* atomic: SERIAL 0 comes first */
    sk.dtype = sk.out = MMT_F64, sk.mode = MMT_MODE_F64;
    spilled += sample_with(fam, dev, &sk, "SERIAL", 1);
    CHECK_EQ_INT(spilled, 0);
    mmt_family_free(fam);
}

/* A template's instances with an epilogue in the store (fused.h): each of the n defines
 * compiles without spills; with atomic split-K (defines `atomic`) the template refuses. */
static void compile_fused(const char *what, const char *source, const char *const *fused, int n, const char *atomic)
{
    for (int i = 0; i < n; i++) CHECK_EQ_INT(compile_one(what, source, fused[i], NULL), 0);
    check_refused(source, atomic, "split-K in the order of K");
}

int main(void)
{
    mmt_err err;
    void *bin = NULL;
    size_t size = 0;
    char *log = NULL;
    setenv("MMTUNE_PTXAS_VERBOSE", "1", 1);
    const char *tier = getenv("MMTUNE_TEST_TIER");
    full_tier = tier && strcmp(tier, "full") == 0;

    /* NVRTC missing is the only reason to skip. */
    mmt_status st = mmt_cuda_compile_for_arch("sm_90", "extern \"C\" __global__ void k() {}", "", &bin, &size, &log,
                                              &err);
    if (st == MMT_UNSUPPORTED) {
        printf("skipped: %s\n", err.msg);
        return 77;
    }
    CHECK_OK(st, &err);
    free(bin);
    free(log);

    /* A compile error is MMT_COMPILE, with the compiler's words in the log and in err. */
    st = mmt_cuda_compile_for_arch("sm_90", "extern \"C\" __global__ void k() { undeclared_thing(); }", "X=1", &bin,
                                   &size, &log, &err);
    CHECK_EQ_INT(st, MMT_COMPILE);
    CHECK(bin == NULL && size == 0);
    CHECK(log && strstr(log, "undeclared_thing"));
    CHECK(strstr(err.msg, "undeclared_thing") != NULL);
    free(log);
    /* A template #error too (a warp tile that is not 32 lanes). */
    char *simt = NULL;
    size_t simt_size = 0;
    CHECK_OK(mmt_resource_read("templates/cuda/gemm_simt.cu", &simt, &simt_size, &err), &err);
    if (simt) {
        st = mmt_cuda_compile_for_arch("sm_90", simt, "WM=64 WN=64", &bin, &size, &log, &err);
        CHECK_EQ_INT(st, MMT_COMPILE);
        CHECK(log && strstr(log, "warp tile"));
        free(log);
        /* the template compiles by itself, every knob defaulted, f32 and f64 */
        compile_one("bare f32", simt, "", NULL);
        compile_one("bare f64", simt, "MMT_DTYPE_F64=1", NULL);
        /* the epilogue in the store (fused.h): C by 16 bytes, f64 with its bias, split-K in
         * the order of K, stream-K; an #error with atomic split-K */
        static const char *const fused[] = {"VEC=1 ASYNC=1 STAGES=3 PIPE=1 EPI_BIAS=2 EPI_ACT=2",
                                            "MMT_DTYPE_F64=1 EPI_BIAS=1 EPI_ACT=2 BIAS_C=1",
                                            "SPLITK=4 SERIAL=1 EPI_BIAS=2 EPI_ACT=1",
                                            "MMT_DTYPE_F64=1 STREAMK=2 SK_GRID=264 EPI_BIAS=2 EPI_ACT=2"};
        compile_fused("simt fused", simt, fused, 4, "SPLITK=4 EPI_ACT=1");
        free(simt);
    }
    char *dmma = NULL;
    size_t dmma_size = 0;
    CHECK_OK(mmt_resource_read("templates/cuda/gemm_dmma.cu", &dmma, &dmma_size, &err), &err);
    if (dmma) {
        /* bare (sm_80's m8n8k4), and for sm_90 Hopper's m16n8k16; an #error for a mode it lacks */
        CHECK_EQ_INT(compile_one("bare dmma", dmma, "", NULL), 0);
        CHECK_EQ_INT(compile_one("bare dmma", dmma, "MMA_K=16", NULL), 0);
        st = mmt_cuda_compile_for_arch("sm_90", dmma, "MMT_MODE=0", &bin, &size, &log, &err);
        CHECK_EQ_INT(st, MMT_COMPILE);
        CHECK(log && strstr(log, "f64 (MMT_MODE 1) only"));
        free(log);
        free(dmma);
    }
    char *dmma_tma = NULL;
    size_t dmma_tma_size = 0;
    CHECK_OK(mmt_resource_read("templates/cuda/gemm_dmma_tma.cu", &dmma_tma, &dmma_tma_size, &err), &err);
    if (dmma_tma) {
        /* bare (sm_90a), and an #error for a mode it lacks */
        CHECK_EQ_INT(compile_one("bare dmma_tma", dmma_tma, "MMT_ARCH_SPECIFIC=1", NULL), 0);
        st = mmt_cuda_compile_for_arch("sm_90a", dmma_tma, "MMT_MODE=0", &bin, &size, &log, &err);
        CHECK_EQ_INT(st, MMT_COMPILE);
        CHECK(log && strstr(log, "f64 (MMT_MODE 1) only"));
        free(log);
        free(dmma_tma);
    }
    char *mma = NULL;
    size_t mma_size = 0;
    CHECK_OK(mmt_resource_read("templates/cuda/gemm_mma.cu", &mma, &mma_size, &err), &err);
    if (mma) {
        /* bare, every mode; and an #error for a tile the warps cannot split */
        static const char *const modes[] = {"MMT_MODE=2", "MMT_MODE=3 MMT_OUT=3", "MMT_MODE=4", "MMT_MODE=5"};
        for (int i = 0; i < 4; i++) compile_one("bare mma", mma, modes[i], NULL);
        /* the epilogue in the store (fused.h), split-K in the order of K too; none with atomic
         * split-K, whose slices never hold the sum */
        static const char *const fused[] = {"MMT_MODE=2 MMT_OUT=2 EPI_BIAS=2 EPI_ACT=2 BIAS_C=1",
                                            "MMT_MODE=3 MMT_OUT=3 OP_A=1 EPI_BIAS=1 EPI_ACT=1",
                                            "MMT_MODE=4 OP_B=1 SPLITK=4 SERIAL=1 EPI_BIAS=2 EPI_ACT=2",
                                            "MMT_MODE=5 EPI_BIAS=1 EPI_ACT=2"};
        compile_fused("mma fused", mma, fused, 4, "MMT_MODE=4 SPLITK=4 EPI_BIAS=2");
        st = mmt_cuda_compile_for_arch("sm_90", mma, "BM=64 WARPS_M=8", &bin, &size, &log, &err);
        CHECK_EQ_INT(st, MMT_COMPILE);
        CHECK(log && strstr(log, "warp tiles"));
        free(log);
        free(mma);
    }

    /* The reference kernel. */
    char *ref = NULL;
    size_t ref_size = 0;
    CHECK_OK(mmt_resource_read("templates/cuda/gemm_ref.cu", &ref, &ref_size, &err), &err);
    if (ref) {
        compile_one("ref f32", ref, "MMT_DTYPE_F64=0", NULL);
        compile_one("ref f64", ref, "MMT_DTYPE_F64=1", NULL);
        free(ref);
    }

    /* The additions of Strassen-Winograd levels, both element types. */
    char *adds = NULL;
    size_t adds_size = 0;
    CHECK_OK(mmt_resource_read("templates/cuda/strassen_add.cu", &adds, &adds_size, &err), &err);
    if (adds) {
        CHECK_EQ_INT(compile_one("strassen f32", adds, "MMT_DTYPE_F64=0", NULL), 0);
        CHECK_EQ_INT(compile_one("strassen f64", adds, "MMT_DTYPE_F64=1", NULL), 0);
        free(adds);
    }

    /* The epilogue's kernel (a bias and an activation after the GEMM): every C type, the bias
     * in fp32 and in C's type (FP8 C: fp32, its bias of FP8 refused). */
    char *epi = NULL;
    size_t epi_size = 0;
    CHECK_OK(mmt_resource_read("templates/cuda/epilogue.cu", &epi, &epi_size, &err), &err);
    for (int t = 0; epi && t <= MMT_E5M2; t++)
        for (int bias_c = 0; bias_c < 2; bias_c++) {
            char name[32], defines[48];
            snprintf(name, sizeof name, "epilogue C %d bias %s", t, bias_c ? "C's" : "f32");
            snprintf(defines, sizeof defines, "MMT_C_TYPE=%d MMT_BIAS_C=%d", t, bias_c);
            if (mmt_dtype_fp8((mmt_dtype)t) && bias_c)
                check_refused(epi, defines, "its bias fp32");
            else
                CHECK_EQ_INT(compile_one(name, epi, defines, NULL), 0);
        }
    free(epi);

    /* The real space: default and samples for several problems. */
    mmt_family *fam = NULL;
    CHECK_OK(mmt_family_load_file(MMT_SOURCE_DIR "/search_spaces/cuda_gemm_simt.yaml", &fam, &err), &err);
    if (fam) {
        mmt_device_info dev;
        h100(&dev);
        sample_space(fam, &dev, MMT_F32, 4096, 4096, 4096, 8);  /* EVEN configs among them */
        sample_space(fam, &dev, MMT_F64, 4096, 4096, 4096, 4);
        sample_space(fam, &dev, MMT_F32, 1000, 1001, 999, 4);   /* odd: checked paths */
        sample_space(fam, &dev, MMT_F32, 128, 128, 8192, 4);    /* split-K */
        sample_space(fam, &dev, MMT_F64, 96, 64, 4096, 3);      /* split-K, f64 atomics */
        mmt_problem sk = {.dtype = MMT_F32, .out = MMT_F32, .mode = MMT_MODE_F32, .layout = MMT_ROW_MAJOR,
                          .m = 128, .n = 128, .k = 8192};
        sample_with(fam, &dev, &sk, "SERIAL", 1); /* split-K in the order of K */
        sk.dtype = sk.out = MMT_F64, sk.mode = MMT_MODE_F64;
        sample_with(fam, &dev, &sk, "SERIAL", 1);
        /* KC: A (NN, NT), B (NT, TT) or both (NT) kept contiguous along k, odd sizes, f32 and f64 */
        const int orient[][2] = {{0, 0}, {0, 1}, {1, 1}};
        for (int o = 0; o < 3; o++) {
            mmt_problem kc = {.dtype = MMT_F32, .out = MMT_F32, .mode = MMT_MODE_F32, .layout = MMT_ROW_MAJOR,
                              .m = 1000, .n = 1001, .k = 999, .trans_a = orient[o][0], .trans_b = orient[o][1]};
            sample_with(fam, &dev, &kc, "KC", 1);
            kc.dtype = kc.out = MMT_F64, kc.mode = MMT_MODE_F64;
            sample_with(fam, &dev, &kc, "KC", 1);
        }
        /* PIPE: fragments double-buffered across K tiles, register-staged and cp.async, odd
         * and even shapes, f32 and f64 */
        static const char *const pipe[] = {"PIPE", "ASYNC", "EVEN"};
        for (int f64 = 0; f64 < 2; f64++)
            for (int async = 0; async < 2; async++) {
                const int64_t odd[] = {1, async, 0}, even[] = {1, async, 1};
                mmt_problem pp = {.dtype = f64 ? MMT_F64 : MMT_F32, .layout = MMT_ROW_MAJOR,
                                  .m = 1000, .n = 1001, .k = 999, .trans_b = async};
                pp.out = pp.dtype, pp.mode = (mmt_mode)pp.dtype;
                sample_where(fam, &dev, &pp, pipe, odd, 3);
                pp.m = pp.n = pp.k = 4096;
                sample_where(fam, &dev, &pp, pipe, even, 3);
            }
        /* 16 rows or columns a thread (128 accumulators) in every orientation, inside 255
         * registers without a spill; the default of large f32 problems is one */
        static const char *const wide[] = {"TM", "TN"};
        for (int t = 0; t < 4; t++)
            for (int w = 0; w < 2; w++) {
                mmt_problem wp = {.dtype = MMT_F32, .out = MMT_F32, .mode = MMT_MODE_F32, .layout = MMT_ROW_MAJOR,
                                  .m = 4096, .n = 4096, .k = 4096, .trans_a = t & 1, .trans_b = t >> 1};
                CHECK_EQ_INT(sample_with(fam, &dev, &wp, wide[w], 16), 0);
            }
        /* stream-K (a persistent grid, the tiles of the last waves shared out along K): every
         * orientation, f32 and f64, odd and 16-byte rows, each count of blocks an SM; the
         * 16-wide thread tiles, near 255 registers, may keep some of the schedule in local
         * memory around the K loop (8 to 24 bytes; never in it, the SASS shows), the others
         * nothing */
        static const char *const sk_knobs[] = {"STREAMK", "TM"};
        for (int t = 0; t < 4; t++)
            for (int f64 = 0; f64 < 2; f64++) {
                mmt_problem sp = {.dtype = f64 ? MMT_F64 : MMT_F32, .layout = MMT_ROW_MAJOR,
                                  .m = 4097, .n = 4097 - 2 * t, .k = 4097 + t, .trans_a = t & 1, .trans_b = t >> 1};
                sp.out = sp.dtype, sp.mode = (mmt_mode)sp.dtype;
                const int64_t blocks = 1 + (t + f64) % 4, v16[] = {2, 16};
                CHECK_EQ_INT(sample_with(fam, &dev, &sp, "STREAMK", blocks), 0);
                sp.m = 777, sp.n = 1236, sp.k = 4320; /* 16-byte rows, few tiles */
                CHECK_EQ_INT(sample_with(fam, &dev, &sp, "STREAMK", 1 + (t + f64 + 2) % 4), 0);
                if (!f64) {
                    sample_where(fam, &dev, &sp, sk_knobs, v16, 2);
                    CHECK(last_spill <= 32);
                }
            }
        /* the tiles of the large problems' default on a stream-K grid, at 4097^3 */
        mmt_problem odd = {.dtype = MMT_F32, .out = MMT_F32, .mode = MMT_MODE_F32, .layout = MMT_ROW_MAJOR,
                           .m = 4097, .n = 4097, .k = 4097};
        compile_measured(fam, &dev, &odd, "BM=128,BN=128,BK=8,WM=64,WN=64,TM=16,TN=8,VEC=1,STAGES=4,ASYNC=1,PIPE=1,"
                                          "REGCAP=0,PAD=4,SPLITK=1,SERIAL=0,STREAMK=2,GROUP_M=8,EVEN=0,KC=0,LEVELS=0");
        CHECK(last_spill <= 32);
        mmt_problem big = {.dtype = MMT_F32, .out = MMT_F32, .mode = MMT_MODE_F32, .layout = MMT_ROW_MAJOR,
                           .m = 4096, .n = 4096, .k = 4096};
        int entry;
        CHECK_EQ_INT(compile_default(fam, &dev, &big, "simt f32 4096^3 default", "TM=16 TN=8 PIPE=1 EVEN=1", &entry), 0);
        big.m = 4097;
        CHECK_EQ_INT(compile_default(fam, &dev, &big, "simt f32 4097x4096x4096 default", "TM=16 TN=8 EVEN=0", &entry), 0);
        /* few tiles over a long K: slices for four blocks an SM (100 tiles: 6), summed in order */
        big.m = 2500, big.n = 300, big.k = 7000;
        CHECK_EQ_INT(compile_default(fam, &dev, &big, "simt f32 2500x300x7000 default", "BM=128 BN=64 SPLITK=6 SERIAL=1", &entry), 0);
        mmt_family_free(fam);
        sample_dmma(&dev);
        sample_dmma_tma(&dev);
        sample_gemv(&dev);
        sample_mma(&dev);
        sample_wgmma(&dev);
    }
    printf("%d instances compiled, %d with spills; %d stated needs checked against the problem they were built "
           "for\n", compiled, spills, needs_checked);
    return check_result();
}
