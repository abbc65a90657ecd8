/* offload.c - one large GEMM through a Fortran BLAS loaded with dlopen, as an application
 * linked against a BLAS calls it: the figure of the drop-in BLAS's GPU offload
 * (libmmtuned_blas.so with MMTUNE_OFFLOAD=cuda:0, MMTUNE_OOC_DEVICES choosing the GPUs)
 * beside the host's own BLAS (OpenBLAS) and NVIDIA's offloading BLAS (libnvblas.so, its
 * configuration file in NVBLAS_CONFIG_FILE), each run of this program one library.
 *   offload LIB f32|f64 N [CALLS]
 * Host matrices of N x N (malloc'd, column-major, random in [-1, 1)), C poisoned with NaN
 * and beta 0, then CALLS timed calls (default 1) after an untimed first one when CALLS > 1
 * (it opens the GPU, builds kernels, pins buffers). 64 sampled entries of C are checked
 * against a long double dot product within 2 N u sum|a||b| (u of the precision). Prints one
 * line: the library, the mode, N, the first call's seconds, the best timed call's seconds
 * and TFLOP/s, the largest error over its bound; exits 1 where an entry is wrong. */
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef void gemm_fn(const char *ta, const char *tb, const int *m, const int *n, const int *k, const void *alpha,
                     const void *a, const int *lda, const void *b, const int *ldb, const void *beta, void *c,
                     const int *ldc);

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* count values in [-1, 1), never all zero (xorshift64). Not bench.h's filler: this program
 * links nothing of libmmtuned, whose drop-in BLAS it loads as one of the libraries timed. */
static void fill(void *x, size_t count, int f64, uint64_t seed)
{
    uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
    for (size_t i = 0; i < count; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        const double v = (double)(s >> 11) / 4503599627370496.0 - 1.0; /* 53 bits over 2^52 */
        if (f64) ((double *)x)[i] = v;
        else ((float *)x)[i] = (float)v;
    }
}

static double get(const void *x, int f64, size_t i) { return f64 ? ((const double *)x)[i] : ((const float *)x)[i]; }

int main(int argc, char **argv)
{
    if (argc < 4 || (strcmp(argv[2], "f32") && strcmp(argv[2], "f64"))) {
        fprintf(stderr, "usage: offload LIB f32|f64 N [CALLS]\n");
        return 2;
    }
    const int f64 = !strcmp(argv[2], "f64"), n = atoi(argv[3]), calls = argc > 4 ? atoi(argv[4]) : 1;
    if (n < 1 || calls < 1) {
        fprintf(stderr, "offload: N and CALLS are positive\n");
        return 2;
    }
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL);
    gemm_fn *gemm = lib ? (gemm_fn *)dlsym(lib, f64 ? "dgemm_" : "sgemm_") : NULL;
    if (!gemm) {
        fprintf(stderr, "offload: %s: %s\n", argv[1], lib ? "no sgemm_/dgemm_" : dlerror());
        return 2;
    }
    const size_t es = f64 ? 8 : 4, count = (size_t)n * n;
    void *a = malloc(count * es), *b = malloc(count * es), *c = malloc(count * es);
    if (!a || !b || !c) {
        fprintf(stderr, "offload: out of host memory for three %d^2 matrices\n", n);
        return 2;
    }
    fill(a, count, f64, 1);
    fill(b, count, f64, 2);
    const double one = 1.0, zero = 0.0;
    const float one_f = 1.0f, zero_f = 0.0f;
    const void *alpha = f64 ? (const void *)&one : (const void *)&one_f;
    const void *beta = f64 ? (const void *)&zero : (const void *)&zero_f;
    double first = 0, best = INFINITY;
    for (int call = 0; call < calls + (calls > 1); call++) {
        memset(c, 0xff, count * es); /* NaN: beta 0 must not read C */
        const double t0 = now();
        gemm("N", "N", &n, &n, &n, alpha, a, &n, b, &n, beta, c, &n);
        const double t = now() - t0;
        if (call == 0) first = t;
        if (calls == 1 || call > 0) best = t < best ? t : best;
    }
    const double u = f64 ? 0x1p-53 : 0x1p-24;
    double worst = 0;
    uint64_t s = 12345;
    for (int e = 0; e < 64; e++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        const size_t i = (s >> 33) % n, j = (s >> 13) % n;
        long double ref = 0, mag = 0;
        for (size_t l = 0; l < (size_t)n; l++) {
            const long double p = (long double)get(a, f64, l * n + i) * get(b, f64, j * n + l);
            ref += p, mag += fabsl(p);
        }
        const double err = fabs((double)(get(c, f64, j * n + i) - ref)) / (2.0 * n * u * (double)mag);
        worst = isnan(err) || err > worst ? (isnan(err) ? INFINITY : err) : worst;
    }
    printf("%s %s %d: first call %.3f s, best of %d %.3f s, %.1f TFLOP/s, error/bound %.2g%s\n", argv[1], argv[2],
           n, first, calls, best, 2.0 * n * n * (double)n / best / 1e12, worst, worst > 1 ? " WRONG" : "");
    return worst > 1;
}
