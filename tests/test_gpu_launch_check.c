/* test_gpu_launch_check.c - on GPU 0, every GEMM template family's default instance launched
 * the way it was not built for is refused on the host (MMT_INVALID_ARGUMENT) before anything
 * runs, where its kernel would trap and end the process's CUDA context: an operand less
 * aligned than the instance's copies (SIMT's 16-byte copies, DMMA's and mma.sync's VEC, the
 * TMA's operands read in place, the thin family's X), the other orientation, a thin side wider
 * than the instance computes, a workspace short of the geometry's. After the refusals the
 * context still works: the same instance then runs every alpha/beta case of its shape
 * (gpu_check.h's run_shape), each within the bound.
 * Exits 77 (skipped) without a GPU. */
#include "gpu_check.h"
#include "elf_object.h"

typedef struct family_case {
    const char *space;
    kind kd;
    shape s; /* aligned leading dimensions of this shape suit the default */
} family_case;

static const family_case families[] = {
    {"cuda_gemm_simt.yaml", {MMT_MODE_F32, MMT_F32}, {64, 48, 40}},
    {"cuda_gemm_dmma.yaml", {MMT_MODE_F64, MMT_F64}, {64, 48, 40}},
    {"cuda_gemm_mma.yaml", {MMT_MODE_BF16, MMT_F32}, {64, 48, 40}},
    {"cuda_gemm_wgmma.yaml", {MMT_MODE_BF16, MMT_F32}, {64, 48, 40}},
    {"cuda_gemm_dmma_tma.yaml", {MMT_MODE_F64, MMT_F64}, {64, 48, 40}},
    {"cuda_gemv.yaml", {MMT_MODE_F32, MMT_F32}, {300, 4, 72}},
};

/* One launch of the instance with the test's operands, expecting a refusal naming `word`. */
static void refused(const instance *in, const mmt_gemm_params *p, const mmt_geometry *g, const char *word)
{
    mmt_err err = {0};
    const mmt_status st = be->launch(in->mod, p, g, NULL, &err);
    if (st != MMT_INVALID_ARGUMENT || !strstr(err.msg, word))
        fprintf(stderr, "%s: %s, want a refusal naming '%s'\n", in->text, st == MMT_OK ? "launched" : err.msg, word);
    CHECK_EQ_INT(st, MMT_INVALID_ARGUMENT);
    CHECK(strstr(err.msg, word) != NULL);
}

static void test_family(const family_case *fc)
{
    char path[512];
    snprintf(path, sizeof path, "%s/search_spaces/%s", MMT_SOURCE_DIR, fc->space);
    mmt_family *fam = NULL;
    mmt_err err;
    CHECK_OK(mmt_family_load_file(path, &fam, &err), &err);
    if (!fam) return;
    mmt_problem p = problem_of(fc->kd, 0, 0, fc->s);
    mmt_space_env env = env_of(&p, 0);
    instance list[1];
    memset(list, 0, sizeof list);
    int valid = 0;
    mmt_config *all = NULL;
    size_t count = 0;
    if (mmt_space_default_for(fam->space, &env, &list[0].cfg, NULL, &err) != MMT_OK ||
        mmt_space_check(fam->space, &list[0].cfg, &env, &valid, NULL, &err) != MMT_OK || !valid ||
        mmt_space_enumerate(fam->space, &env, &all, &count, &err) != MMT_OK || count == 0) {
        printf("%-22s not on this device\n", fc->space); /* DMMA before sm_80, wgmma but on sm_90 */
        free(all);
        mmt_family_free(fam);
        return;
    }
    free(all);
    build(fam, &p, list, 1);
    if (!list[0].mod) {
        mmt_family_free(fam);
        return;
    }
    const int64_t es = mmt_dtype_size(p.dtype);
    int64_t lda, ldb;
    lds_of(fc->s, 0, 0, 0, &lda, &ldb);
    const size_t bytes = (size_t)(es * (fc->s.m * lda + fc->s.k * ldb) + 8 * fc->s.m * (fc->s.n + 32) + 256);
    void *buf = NULL, *ws = NULL;
    CHECK_OK(be->alloc(&dev, bytes, &buf, &err), &err);
    mmt_geometry g;
    CHECK_OK(mmt_space_geometry(fam->space, &list[0].cfg, &env, &g, &err), &err);
    if (g.workspace > 0) CHECK_OK(be->alloc(&dev, (size_t)g.workspace, &ws, &err), &err);
    char *base = buf;
    const mmt_gemm_params ok = {.m = p.m, .n = p.n, .k = p.k, .lda = lda, .ldb = ldb, .ldc = p.n, .alpha = 1,
                                .a = base, .b = base + es * p.m * lda, .c = base + es * (p.m * lda + p.k * ldb),
                                .workspace = ws, .workspace_size = ws ? g.workspace : 0};
    /* what the instance itself says (backend.h), to know which refusals apply */
    mmt_launch_needs n = {0};
    {
        char defines[4096], *log = NULL;
        void *bin = NULL;
        size_t size = 0;
        CHECK_OK(mmt_kernel_defines(fam->space, &list[0].cfg, &env, defines, sizeof defines, &err), &err);
        CHECK_OK(be->compile(&dev, fam->source, defines, &bin, &size, &log, &err), &err);
        CHECK_EQ_INT(mmt_elf_object(bin, size, "mmt_gemm_needs", &n, sizeof n), 0);
        free(bin), free(log);
    }
    int refusals = 0;
    mmt_gemm_params q = ok;
    if (n.align_a > es) { /* A one element off its 16-byte boundary */
        q.a = (const char *)ok.a + es;
        refused(&list[0], &q, &g, "A's address and row pitch aligned to");
        refusals++;
    }
    if (n.align_b > es) { /* B's rows one element longer */
        q = ok;
        q.ldb = ldb + 1;
        refused(&list[0], &q, &g, "B's address and row pitch aligned to");
        refusals++;
    }
    q = ok;
    q.trans_a = 1, q.lda = p.m; /* a transposed A of the same size, in the same buffer */
    refused(&list[0], &q, &g, "built for A as stored");
    refusals++;
    if (n.max_n > 0) {
        q = ok;
        q.n = n.max_n + 1, q.ldc = q.n;
        refused(&list[0], &q, &g, "columns, the launch has N");
        refusals++;
    }
    if (g.workspace > 0) { /* one byte short */
        q = ok;
        q.workspace_size = g.workspace - 1;
        refused(&list[0], &q, &g, "bytes of workspace");
        refusals++;
    }
    CHECK_OK(be->sync(NULL, &err), &err); /* nothing ran, nothing failed */
    be->free(buf);
    be->free(ws);
    /* the context is whole: the instance computes right */
    run_shape(fam, fc->kd, 0, 0, fc->s, 0, list, 1);
    printf("%-22s %-110s %d refusals, then %d runs\n", fc->space, list[0].text, refusals, list[0].runs);
    CHECK(list[0].runs > 0);
    CHECK_EQ_INT(list[0].bad, 0);
    be->unload(list[0].mod);
    mmt_family_free(fam);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (gpu_open()) return 77;
    for (size_t i = 0; i < sizeof families / sizeof families[0]; i++) test_family(&families[i]);
    return check_result();
}
