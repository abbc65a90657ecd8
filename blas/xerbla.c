/* xerbla.c - CBLAS's error reporting as reference CBLAS does it: the globals RowMajorStrg and
 * CBLAS_CallFromC (part of reference CBLAS's ABI: its test programs read RowMajorStrg) and
 * cblas_xerbla, which prints the bad parameter's number and exits. Ours, not the system
 * BLAS's: OpenBLAS's ignores RowMajorStrg, so it would name the wrong parameter of a
 * row-major call. xerbla_ (the Fortran one) is the system BLAS's, forwarded. A program's
 * own cblas_xerbla takes the place of this one, as with the reference. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blas.h"

MMTB_EXPORT int RowMajorStrg = 0;
MMTB_EXPORT int CBLAS_CallFromC = 0;

/* The parameters whose places a row-major call swaps in the column-major one it makes:
 * routines whose name contains `part` (the first match counts) and the pairs of numbers. */
static const struct {
    const char *part, *unless;
    int pairs[2][2];
} row_major_swaps[] = {
    {"gemm", NULL, {{4, 5}, {9, 11}}},
    {"symm", NULL, {{4, 5}, {0, 0}}},
    {"hemm", NULL, {{4, 5}, {0, 0}}},
    {"trmm", NULL, {{6, 7}, {0, 0}}},
    {"trsm", NULL, {{6, 7}, {0, 0}}},
    {"gemv", NULL, {{3, 4}, {0, 0}}},
    {"gbmv", NULL, {{3, 4}, {5, 6}}},
    {"ger", NULL, {{2, 3}, {6, 8}}},
    {"her2", "her2k", {{6, 8}, {0, 0}}},
    {"hpr2", NULL, {{6, 8}, {0, 0}}},
};

MMTB_EXPORT void cblas_xerbla(int info, const char *rout, const char *form, ...)
{
    for (size_t i = 0; RowMajorStrg && i < sizeof row_major_swaps / sizeof *row_major_swaps; i++) {
        if (!strstr(rout, row_major_swaps[i].part)) continue;
        if (row_major_swaps[i].unless && strstr(rout, row_major_swaps[i].unless)) continue;
        for (int p = 0; p < 2; p++) {
            const int x = row_major_swaps[i].pairs[p][0], y = row_major_swaps[i].pairs[p][1];
            if (info == x) info = y;
            else if (info == y) info = x;
        }
        break;
    }
    if (info) fprintf(stderr, "Parameter %d to routine %s was incorrect\n", info, rout);
    va_list ap;
    va_start(ap, form);
    vfprintf(stderr, form, ap);
    va_end(ap);
    exit(-1);
}
