/* test_blas_offload.c - libmmtuned_blas's GPU offload (blas/offload.c), as a program linked
 * against the library sees it: with MMTUNE_OFFLOAD=cuda:0 and a small MMTUNE_OFFLOAD_MIN,
 * sgemm_, dgemm_, cblas_sgemm and cblas_dgemm on host matrices above the threshold run on the
 * GPU out of core (small forced tiles: many tiles, panels and ragged edges), in both layouts
 * and with transposes, and give the reference's results, C's padding untouched; a call below
 * the threshold stays on the CPU. The work runs in a child, whose MMTUNE_BLAS_STATS line at
 * exit says how many GEMMs the GPU ran. Exits 77 (skipped) without a GPU. */
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "blas_decls.h"
#include "check.h"


static int have_gpu(void)
{
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) return 0;
    int (*init)(unsigned) = (int (*)(unsigned))dlsym(lib, "cuInit");
    int (*count)(int *) = (int (*)(int *))dlsym(lib, "cuDeviceGetCount");
    int n = 0;
    return init && count && init(0) == 0 && count(&n) == 0 && n > 0;
}

/* Element (r, c) of a stored matrix (column-major unless row). */
static double at(const void *x, int f64, int row, int ld, int r, int c)
{
    const long i = row ? (long)r * ld + c : (long)c * ld + r;
    return f64 ? ((const double *)x)[i] : ((const float *)x)[i];
}

/* One GEMM through the named entry point against a long double reference; returns the
 * largest error relative to its bound, > 1 if wrong (or C's padding changed). */
static double one(int entry, int f64, int m, int n, int k, int ta, int tb, double alpha, double beta)
{
    const int row = entry == 1; /* 0: Fortran, 1: CBLAS row-major, 2: CBLAS column-major */
    const int ar = ta ? k : m, ac = ta ? m : k, br = tb ? n : k, bc = tb ? k : n;
    const int lda = (row ? ac : ar) + 3, ldb = (row ? bc : br) + 1, ldc = (row ? n : m) + 2;
    const size_t es = f64 ? 8 : 4;
    const long na = (long)(row ? ar : ac) * lda, nb = (long)(row ? br : bc) * ldb, nc = (long)(row ? m : n) * ldc;
    char *a = malloc(es * na), *b = malloc(es * nb), *c = malloc(es * nc), *c0 = malloc(es * nc);
    for (long i = 0; i < na + nb + nc; i++) {
        const double v = (double)((i * 7919 % 2003) - 1001) / 1024;
        char *x = i < na ? a : i < na + nb ? b : c;
        const long j = i < na ? i : i < na + nb ? i - na : i - na - nb;
        if (f64) ((double *)x)[j] = v;
        else ((float *)x)[j] = (float)v;
    }
    memcpy(c0, c, es * nc);
    const char tra = ta ? 'T' : 'N', trb = tb ? 'T' : 'N';
    if (entry == 0 && f64)
        dgemm_(&tra, &trb, &m, &n, &k, &alpha, (double *)a, &lda, (double *)b, &ldb, &beta, (double *)c, &ldc, 1, 1);
    else if (entry == 0) {
        const float al = (float)alpha, be = (float)beta;
        sgemm_(&tra, &trb, &m, &n, &k, &al, (float *)a, &lda, (float *)b, &ldb, &be, (float *)c, &ldc, 1, 1);
    } else if (f64)
        cblas_dgemm(row ? ROW : COL, ta ? TR : NO, tb ? TR : NO, m, n, k, alpha, (double *)a, lda, (double *)b, ldb,
                    beta, (double *)c, ldc);
    else
        cblas_sgemm(row ? ROW : COL, ta ? TR : NO, tb ? TR : NO, m, n, k, (float)alpha, (float *)a, lda, (float *)b,
                    ldb, (float)beta, (float *)c, ldc);
    const double u = f64 ? ldexp(1.0, -53) : ldexp(1.0, -24);
    double worst = 0;
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            long double s = 0, scale = 0;
            for (int l = 0; l < k; l++) {
                const long double p = (long double)(ta ? at(a, f64, row, lda, l, i) : at(a, f64, row, lda, i, l)) *
                                      (tb ? at(b, f64, row, ldb, j, l) : at(b, f64, row, ldb, l, j));
                s += p;
                scale += fabsl(p);
            }
            const long double c_in = at(c0, f64, row, ldc, i, j);
            const long double want = alpha * s + beta * c_in;
            const double bound = 8.0 * sqrt((double)k + 1) * u * (double)(fabsl(alpha) * scale + fabsl(beta * c_in)) + 1e-300;
            const double e = fabs(at(c, f64, row, ldc, i, j) - (double)want) / bound;
            if (!(e <= worst)) worst = e;
        }
    const int rows = row ? m : n, used = row ? n : m;
    for (int r = 0; r < rows; r++)
        if (memcmp(c + es * ((long)r * ldc + used), c0 + es * ((long)r * ldc + used), es * (ldc - used))) worst = 2;
    free(a), free(b), free(c), free(c0);
    return worst;
}

/* The child: every entry point, both types, transposes; 7 calls above the threshold of
 * 1000 (m n k), 1 below. */
static int child(void)
{
    if (!have_gpu()) return 77;
    int bad = 0, calls = 0;
    for (int entry = 0; entry < 3; entry++)
        for (int f64 = 0; f64 < 2; f64++) {
            const int t = (entry + f64) % 4;
            const double e = one(entry, f64, 70 + entry, 53, 61 + f64, t & 1, t >> 1, 0.75, entry == 1 ? 0.0 : -1.5);
            calls++;
            if (!(e <= 1)) {
                fprintf(stderr, "entry %d f64 %d: error %g of the bound\n", entry, f64, e);
                bad++;
            }
        }
    if (!(one(1, 0, 100, 90, 80, 1, 1, 1.0, 1.0) <= 1)) bad++;   /* above */
    if (!(one(2, 0, 9, 10, 10, 0, 0, 1.0, 0.5) <= 1)) bad++;     /* 900: below, on the CPU */
    printf("%d GEMMs through libmmtuned_blas with MMTUNE_OFFLOAD=cuda:0: %s\n", calls + 2, bad ? "WRONG" : "ok");
    return bad ? 1 : 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "child") == 0) return child();
    char log[] = "/tmp/test_blas_offload.XXXXXX";
    int fd = mkstemp(log);
    CHECK(fd >= 0);
    if (fd < 0) return check_result();
    pid_t pid = fork();
    if (pid == 0) { /* the library reads its environment once, on the first GEMM */
        setenv("MMTUNE_OFFLOAD", "cuda:0", 1);
        setenv("MMTUNE_OFFLOAD_MIN", "1000", 1);
        setenv("MMTUNE_OOC_TILE", "32x24", 1);
        setenv("MMTUNE_OOC_PANEL", "16", 1);
        setenv("MMTUNE_BLAS_STATS", "1", 1);
        setenv("MMTUNE_DB", "/nonexistent/mmtune-test.db", 1);
        dup2(fd, 2);
        execl("/proc/self/exe", argv[0], "child", (char *)NULL);
        _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    char text[8192] = "";
    ssize_t got = pread(fd, text, sizeof text - 1, 0);
    text[got > 0 ? got : 0] = '\0';
    close(fd);
    unlink(log);
    fputs(text, stderr);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 77) {
        printf("skipped: no GPU\n");
        return 77;
    }
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    /* 4 sgemm above the threshold, 3 dgemm; the one below served on the CPU */
    CHECK(strstr(text, "sgemm: 1 served by libmmtuned") != NULL);
    CHECK(strstr(text, "0 forwarded, 4 offloaded to the GPU") != NULL);
    CHECK(strstr(text, "dgemm: 0 served by libmmtuned") != NULL);
    CHECK(strstr(text, "0 forwarded, 3 offloaded to the GPU") != NULL);
    return check_result();
}
