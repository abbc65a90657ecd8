/* test_gpu_strassen.c - Strassen-Winograd levels on GPU 0 (src/strassen.c with the SIMT
 * template and templates/cuda/strassen_add.cu through the real backend): the checks of
 * strassen_check.h (every level on even and odd shapes, every transpose, padded leading
 * dimensions, the BLAS alpha/beta rules with NaN poisoning, f32 and f64, the workspace
 * between guards) for the SIMT space's default, a split-K and a rasterised configuration,
 * and an EVEN one on shapes whose every level divides its tiles. The built-in space keeps
 * levels to large problems; the test reads it without that bound, so small shapes (a host
 * reference in long double) exercise every path. Exits 77 (skipped) without a GPU. */
#include <unistd.h>

#include "gpu_check.h"
#include "resource.h"
#include "strassen_check.h"

static const sc_shape shapes[] = {{64, 64, 64},   {67, 45, 93},  {33, 130, 71}, {100, 3, 50},
                                  {129, 257, 300}, {1, 1, 1},    {17, 33, 0},   {40, 200, 33}};
static const sc_shape even_shapes[] = {{256, 256, 256}, {512, 256, 768}};

/* The built-in SIMT space without the size bound of its levels, as a family. */
static mmt_family *simt_without_bound(mmt_err *err)
{
    char *text = NULL, path[] = "/tmp/mmtune-test-gpu-strassen-XXXXXX";
    size_t size;
    mmt_family *fam = NULL;
    if (mmt_resource_read("search_spaces/cuda_gemm_simt.yaml", &text, &size, err) != MMT_OK) return NULL;
    char *bound = strstr(text, "  - LEVELS == 0 ||");
    CHECK(bound != NULL);
    if (bound) memset(bound, ' ', strcspn(bound, "\n")); /* the constraint line, blanked */
    int fd = mkstemp(path);
    if (fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text))
        mmt_family_load_file(path, &fam, err);
    if (fd >= 0) close(fd), unlink(path);
    free(text);
    return fam;
}

static void with(sc_env *e, const char *name, int64_t value)
{
    mmt_space_default(e->fam->space, &e->base);
    for (int i = 0; i < e->fam->space->n_params; i++)
        if (name && strcmp(e->fam->space->params[i].name, name) == 0) e->base.v[i] = value;
    char text[512];
    mmt_config_format(e->fam->space, &e->base, text, sizeof text);
    printf("base %s\n", text);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0); /* whole lines as they come: a timeout keeps what ran */
    if (gpu_open()) return 77;
    mmt_err err;
    mmt_family *fam = simt_without_bound(&err);
    if (!fam) {
        fprintf(stderr, "the SIMT space: %s\n", err.msg);
        CHECK(fam != NULL);
        return check_result();
    }
    sc_env e = {.be = be, .dev = &dev, .fam = fam};
    with(&e, NULL, 0);
    sc_run_all(&e, shapes, sizeof shapes / sizeof shapes[0]);
    if (gc_quick()) { /* the default alone */
        sc_close(&e);
        mmt_family_free(fam);
        return check_result();
    }
    with(&e, "SPLITK", 2); /* C = beta C first, then slices added atomically: beta = 1 products */
    sc_run_all(&e, shapes, 5);
    with(&e, "GROUP_M", 8);
    sc_run_all(&e, shapes, 5);
    with(&e, "EVEN", 1);
    sc_run_all(&e, even_shapes, sizeof even_shapes / sizeof even_shapes[0]);
    sc_close(&e);
    mmt_family_free(fam);
    return check_result();
}
