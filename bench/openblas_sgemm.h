/* openblas_sgemm.h - OpenBLAS's cblas_sgemm for the benchmarks that call it beside
 * libmmtuned in one process (coresident.c, call_tail.c), opened by name as libmmtuned opens
 * it, so both use the one library. */
#ifndef MMT_BENCH_OPENBLAS_SGEMM_H
#define MMT_BENCH_OPENBLAS_SGEMM_H

#include <dlfcn.h>
#include <stdint.h>

enum { CBLAS_ROW_MAJOR = 101, CBLAS_NO_TRANS = 111 };
typedef void (*cblas_sgemm_fn)(int, int, int, int, int, int, float, const float *, int, const float *, int, float,
                               float *, int);

/* cblas_sgemm, or NULL where OpenBLAS is not installed (the benchmark then skips). */
static cblas_sgemm_fn openblas_sgemm(void)
{
    void *lib = dlopen("libopenblas.so.0", RTLD_NOW);
    if (!lib) lib = dlopen("libopenblas.so", RTLD_NOW);
    return lib ? (cblas_sgemm_fn)(uintptr_t)dlsym(lib, "cblas_sgemm") : NULL;
}

#endif
