/* test_cpu_paths.c - every path of the CPU template (templates/cpu/gemm_avx.c) that the
 * tuner can choose, against the long double reference:
 *   - each ISA this host runs, the scalar one (ISA=0) included: the space offers it only on
 *     a host without AVX2, so its configurations are taken from the space as such a host
 *     would enumerate it (the device's isa set to 0) and built here; AVX-512 only where the
 *     host has it (said where it is not run);
 *   - each parallel loop: PAR=0 (split M: one B block shared by the threads, packed by
 *     all of them between barriers), PAR=1 (split N, private blocks), PAR=2 (a grid of
 *     threads over M and N, private blocks: the space offers it from 4 cores on, so it is
 *     taken as a 16-core host would enumerate it), on 1, 2 and 3 threads (three on a
 *     two-core machine too: an odd split) and PAR=2 on 4 too (a 2 x 2 grid), and THREADS=1;
 *   - PAR=3, the register blocks reading A and B in place (offered for small problems), on
 *     1-3 threads and THREADS=1, on every shape (with a transposed B it runs as PAR=1);
 *   - f32 and f64, every transpose, padded leading dimensions, the BLAS alpha/beta rules
 *     with C poisoned where beta is 0, on shapes that give each thread several register
 *     blocks and B panels, more than one cache block in M, K and N (N past NC), edge tiles,
 *     none (whole register blocks) and an empty K.
 * test_cpu_template.c samples the space at large; this test is the one that pins each
 * path. A case's inputs and reference are made once and every instance runs on them. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cpu_template_check.h"

static const ct_shape shapes[] = {
    {1, 1, 1},     /* one element: a single thread, every tile an edge tile */
    {7, 5, 3},     /* smaller than one register block */
    {17, 33, 0},   /* K = 0: C = beta C, A and B unread */
    {50, 4133, 37}, /* N past NC (4096): two B blocks, the second partial */
    {389, 157, 555}, /* several MC blocks a thread, K in 2 or 3 KC blocks, B panels a thread */
    {168, 192, 40}, /* whole register blocks for every MR (4 6 8 14) and NR (4 to 64): PAR=3 packs nothing */
    {168, 37, 20}   /* whole rows of blocks, edge columns */
};

/* The choices of the loop knobs the space allows: THREADS=1 only with PAR=0 or 3. */
static const struct {
    int par, threads;
} loops[] = {{0, 0}, {1, 0}, {0, 1}, {2, 0}, {3, 0}, {3, 1}};
#define N_LOOPS (int)(sizeof loops / sizeof loops[0])

#define MAX_INSTANCES (3 * N_LOOPS)

typedef struct instance {
    mmt_config cfg;
    char text[512];
    mmt_module *mod;
    int threads; /* the THREADS knob */
    int par;
    int runs, bad;
} instance;

static int param_index(const mmt_space *s, const char *name)
{
    for (int i = 0; i < s->n_params; i++)
        if (strcmp(s->params[i].name, name) == 0) return i;
    return -1;
}

/* A configuration the space offers a host of ISA isa with the given loop knobs (for a
 * 512^3 problem; PAR=3, offered for small ones, for a 64^3 one): the enumeration as that
 * host would make it, the which-th of three spread over the matches, so that the
 * instances differ in their register and cache blocks too. 0 if none. */
static int pick(const mmt_device_info *host, const mmt_space *s, int isa, int par, int threads, int which,
                mmt_config *out)
{
    mmt_device_info dev = *host;
    mmt_device_set_prop(&dev, "isa", isa);
    mmt_device_set_prop(&dev, "cores", 16); /* PAR=2 is offered from 4 cores on */
    const int64_t side = par == 3 ? 64 : 512;
    mmt_problem p = {.dtype = MMT_F32, .layout = MMT_ROW_MAJOR, .m = side, .n = side, .k = side};
    mmt_space_env env = {.problem = &p, .device = &dev};
    mmt_config *all = NULL;
    size_t n = 0, matches = 0;
    mmt_err err;
    CHECK_OK(mmt_space_enumerate(s, &env, &all, &n, &err), &err);
    const int i_isa = param_index(s, "ISA"), i_par = param_index(s, "PAR"), i_thr = param_index(s, "THREADS");
    CHECK(i_isa >= 0 && i_par >= 0 && i_thr >= 0);
    for (size_t i = 0; i < n && i_isa >= 0 && i_par >= 0 && i_thr >= 0; i++)
        if (all[i].v[i_isa] == isa && all[i].v[i_par] == par && all[i].v[i_thr] == threads) all[matches++] = all[i];
    if (matches) *out = all[matches * (2 * (size_t)which + 1) / 6];
    free(all);
    return matches > 0;
}

/* Runs every instance on one case: THREADS=0 ones on 1, 2 and 3 threads, PAR=2 on 4 too. */
static void run_all(instance *in, int n, ct_case *t)
{
    for (int i = 0; i < n; i++)
        for (int nt = 1; nt <= (in[i].par == 2 ? 4 : 3); nt++) {
            if (in[i].threads != 0 && nt > 1) break;
            omp_set_num_threads(in[i].threads != 0 ? 3 : nt); /* THREADS=1 must hold with 3 on offer */
            double e = ct_case_run(in[i].mod, t);
            in[i].runs++;
            if (!(e <= gc_bound(t->f64, t->s.k))) {
                fprintf(stderr, "%s %s on %d thread(s): %lldx%lldx%lld ta=%d tb=%d alpha=%g beta=%g: rel error %g\n",
                        t->f64 ? "f64" : "f32", in[i].text, nt, (long long)t->s.m, (long long)t->s.n,
                        (long long)t->s.k, t->ta, t->tb, t->ab.alpha, t->ab.beta, e);
                in[i].bad++;
            }
        }
}

static void test_dtype(const mmt_device_info *dev, const mmt_family *fam, int f64, int host_isa)
{
    const mmt_space *s = fam->space;
    instance in[MAX_INSTANCES];
    int n = 0;
    const int i_isa = param_index(s, "ISA");
    for (int v = 0; i_isa >= 0 && v < s->params[i_isa].n_values; v++) {
        const int isa = (int)s->params[i_isa].values[v];
        if (isa > host_isa) {
            printf("%s ISA=%d not run: this host's ISA is %d\n", f64 ? "f64" : "f32", isa, host_isa);
            continue;
        }
        for (int l = 0; l < N_LOOPS && n < MAX_INSTANCES; l++) {
            instance *x = &in[n];
            memset(x, 0, sizeof *x);
            if (!pick(dev, s, isa, loops[l].par, loops[l].threads, l % 3, &x->cfg)) {
                fprintf(stderr, "the space offers no ISA=%d PAR=%d THREADS=%d\n", isa, loops[l].par, loops[l].threads);
                CHECK(0);
                continue;
            }
            mmt_config_format(s, &x->cfg, x->text, sizeof x->text);
            x->threads = loops[l].threads;
            x->par = loops[l].par;
            n++;
        }
    }
    /* compiles in parallel: each is a cc process */
    mmt_problem p = {.dtype = f64 ? MMT_F64 : MMT_F32, .layout = MMT_ROW_MAJOR, .m = 64, .n = 64, .k = 64};
    char why[MAX_INSTANCES][512];
#pragma omp parallel for schedule(dynamic) num_threads(2)
    for (int i = 0; i < n; i++) {
        mmt_err err;
        in[i].mod = ct_build(dev, fam, &in[i].cfg, &p, &err);
        if (!in[i].mod) snprintf(why[i], sizeof why[i], "%.500s", err.msg);
    }
    int built = 0;
    for (int i = 0; i < n; i++) {
        if (in[i].mod) in[built++] = in[i];
        else {
            fprintf(stderr, "build of %s failed: %s\n", in[i].text, why[i]);
            CHECK(0);
        }
    }

    for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++)
        for (int tr = 0; tr < 4; tr++)
            for (size_t ci = 0; ci < sizeof ct_cases / sizeof ct_cases[0]; ci++) {
                ct_case t;
                ct_case_make(&t, f64, shapes[si], tr & 1, tr >> 1, ct_cases[ci]);
                run_all(in, built, &t);
                ct_case_free(&t);
            }
    for (int i = 0; i < built; i++) {
        CHECK_EQ_INT(in[i].bad, 0);
        printf("%s %-58s %s: %d runs ok\n", f64 ? "f64" : "f32", in[i].text,
               in[i].threads ? "1 thread  " : in[i].par == 2 ? "1-4 threads" : "1-3 threads", in[i].runs - in[i].bad);
        mmt_backend_cpu.unload(in[i].mod);
    }
}

int main(void)
{
    mmt_device_info dev;
    mmt_err err;
    CHECK_OK(mmt_backend_cpu.probe(0, &dev, &err), &err);
    int64_t isa = 0;
    CHECK(mmt_device_get_prop(&dev, "isa", 3, &isa) == 0);
    printf("host ISA %lld (%s)\n", (long long)isa, dev.arch);
    for (int f64 = 0; f64 < 2; f64++) {
        mmt_family *fam = NULL;
        CHECK_OK(mmt_family_find_template("cpu/gemm_avx.c", &fam, &err), &err);
        if (!fam) continue;
        test_dtype(&dev, fam, f64, (int)isa);
        mmt_family_free(fam);
    }
    return check_result();
}
