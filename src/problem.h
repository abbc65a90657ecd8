/* problem.h - a GEMM problem as the tuner and the database see it, and its canonical
 * text names. Problems are kept as the user wrote them (layout and transposes); the
 * kernels only ever see the row-major form (problem_normalise). */
#ifndef MMT_PROBLEM_H
#define MMT_PROBLEM_H

#include <stddef.h>
#include <stdint.h>

#include "mmtuned.h"

typedef struct mmt_problem {
    mmt_dtype dtype;
    mmt_layout layout;
    int trans_a, trans_b; /* 0 or 1 */
    int64_t m, n, k;
} mmt_problem;

/* "f32", "f64"; NULL for an unknown value. */
const char *mmt_dtype_name(mmt_dtype dtype);
/* Parses a dtype name; returns 0 on success, -1 if unknown. */
int mmt_dtype_parse(const char *name, mmt_dtype *out);
/* Bytes per element. */
int mmt_dtype_size(mmt_dtype dtype);
/* "row", "col". */
const char *mmt_layout_name(mmt_layout layout);
int mmt_layout_parse(const char *name, mmt_layout *out);

/* The row-major problem the kernel runs: column-major C = op(A) op(B) is row-major
 * C^T = op(B)^T op(A)^T, so m/n and the operands (and their transposes) swap. */
mmt_problem mmt_problem_normalise(const mmt_problem *p);

/* One line a person can read: "f32 row NN 4096x4096x4096". */
void mmt_problem_format(const mmt_problem *p, char *buf, size_t size);

/* 2*m*n*k. */
double mmt_problem_flops(const mmt_problem *p);

#endif
