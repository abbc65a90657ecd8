/* sgemm_example.c - an application of libmmtuned: C = A B on the CPU (or a GPU with device
 * pointers) with whatever kernel mmtune tuned for the shape, checked against a plain loop.
 *   cc sgemm_example.c $(pkg-config --cflags --libs mmtuned) -o sgemm_example
 * or with CMake: find_package(mmtuned) and link mmtuned::mmtuned (examples/CMakeLists.txt). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <mmtuned.h>

int main(void)
{
    enum { M = 120, N = 96, K = 80 };
    static float a[M * K], b[K * N], c[M * N];
    for (int i = 0; i < M * K; i++) a[i] = (float)(i % 7) - 3.0f;
    for (int i = 0; i < K * N; i++) b[i] = (float)(i % 5) - 2.0f;
    mmt_ctx *ctx;
    if (mmt_open(&ctx, "cpu", NULL) != MMT_OK) {
        fprintf(stderr, "mmt_open: %s\n", mmt_last_error(ctx));
        mmt_close(ctx);
        return 1;
    }
    mmt_status st = mmt_sgemm(ctx, MMT_ROW_MAJOR, MMT_NO_TRANS, MMT_NO_TRANS, M, N, K, 1.0f, a, K, b, N, 0.0f, c, N);
    if (st != MMT_OK) {
        fprintf(stderr, "mmt_sgemm: %s\n", mmt_last_error(ctx));
        mmt_close(ctx);
        return 1;
    }
    double worst = 0;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double s = 0;
            for (int l = 0; l < K; l++) s += (double)a[i * K + l] * b[l * N + j];
            worst = fmax(worst, fabs(c[i * N + j] - s));
        }
    const char *config;
    mmt_choice how = mmt_last_choice(ctx, &config);
    printf("libmmtuned %s: %dx%dx%d, largest error %g, kernel %s (%s)\n", mmt_version_string(), M, N, K, worst,
           config, how == MMT_CHOICE_EXACT ? "tuned" : how == MMT_CHOICE_NEAREST ? "nearest tuned" : "default");
    mmt_close(ctx);
    return worst == 0 ? 0 : 1;
}
