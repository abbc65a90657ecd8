/* problem.h - a GEMM problem as the tuner and the database see it, and its canonical
 * text names. Problems are kept as the user wrote them (layout and transposes); the
 * kernels only ever see the row-major form (problem_normalise). */
#ifndef MMT_PROBLEM_H
#define MMT_PROBLEM_H

#include <stddef.h>
#include <stdint.h>

#include "mmtuned.h"

/* Precision modes: how the products of a problem are computed, i.e. its input type with
 * mmtuned.h's mmt_compute. A search space lists the modes its template serves (the
 * number is the mode's bit there); shapes files write the name as the dtype. */
typedef enum mmt_mode {
    MMT_MODE_F32 = 0,   /* f32 in, fp32 FMA */
    MMT_MODE_F64 = 1,   /* f64 in, fp64 FMA */
    MMT_MODE_BF16 = 2,  /* bf16 in, tensor cores, fp32 accumulation */
    MMT_MODE_F16 = 3,   /* f16 in, likewise */
    MMT_MODE_TF32 = 4,  /* f32 in, rounded to tf32 on tensor cores */
    MMT_MODE_F32X3 = 5, /* f32 in, three tf32 products: fp32-level accuracy */
    MMT_MODE_E4M3 = 6,  /* e4m3 in (FP8), tensor cores, fp32 accumulation */
    MMT_MODE_E5M2 = 7,  /* e5m2 in, likewise */
    MMT_MODE_E4M3_BLOCK = 8, /* e4m3 in with a scale per 128 of K of each row of A and per 128 x 128 of B */
    MMT_MODE_E5M2_BLOCK = 9, /* e5m2 in, likewise */
    MMT_MODE_E4M3_E5M2 = 10, /* A e4m3, B e5m2 (mmtuned.h's MMT_E4M3_E5M2), as MMT_MODE_E4M3 computes */
    MMT_MODE_E5M2_E4M3 = 11, /* A e5m2, B e4m3 */
} mmt_mode;
#define MMT_N_MODES 12

typedef struct mmt_problem {
    mmt_dtype dtype; /* A and B (A's where the mode's B differs: mmt_mode_b_dtype) */
    mmt_dtype out;   /* C: dtype, or f32 for bf16 and f16; f32, bf16, f16, e4m3 or e5m2 for FP8 */
    mmt_mode mode;
    mmt_layout layout;
    int trans_a, trans_b; /* 0 or 1 */
    int64_t m, n, k;
} mmt_problem;

/* "f32", "f64", "bf16", "f16", "e4m3", "e5m2"; NULL for an unknown value. */
const char *mmt_dtype_name(mmt_dtype dtype);
/* Parses a dtype name; returns 0 on success, -1 if unknown. */
int mmt_dtype_parse(const char *name, mmt_dtype *out);
/* Bytes per element (of each of a pair of FP8 types: 1). */
int mmt_dtype_size(mmt_dtype dtype);
/* Whether dtype is an 8-bit floating-point type (e4m3, e5m2). */
int mmt_dtype_fp8(mmt_dtype dtype);

/* "f32", "f64", "bf16", "f16", "tf32", "f32x3", "e4m3", "e5m2", "e4m3-block", "e5m2-block",
 * "e4m3xe5m2", "e5m2xe4m3"; NULL for an unknown value. */
const char *mmt_mode_name(mmt_mode mode);
int mmt_mode_parse(const char *name, mmt_mode *out);
/* The input type of a mode (f32 for tf32 and f32x3; A's where B's differs), and B's. */
mmt_dtype mmt_mode_dtype(mmt_mode mode);
mmt_dtype mmt_mode_b_dtype(mmt_mode mode);
/* The ab_type of a descriptor for the mode (mmtuned.h's pair where B's type differs). */
mmt_dtype mmt_mode_ab_type(mmt_mode mode);
/* The mode of an input type (or mmtuned.h's pair of FP8 types) computed a given way; -1 if
 * there is none (f64 in tf32). */
int mmt_mode_of(mmt_dtype dtype, mmt_compute compute, mmt_mode *out);
/* C's type where none is given: the input type, f32 for FP8 (its accumulation: nothing lost). */
mmt_dtype mmt_mode_default_out(mmt_mode mode);
/* How a mode computes (the inverse of mmt_mode_of, with mmt_mode_dtype and, for the
 * block-scaled modes, mmt_mode_block_scaled). */
mmt_compute mmt_mode_compute(mmt_mode mode);
/* Whether a mode takes block scales (mmt_gemm_scaled), and the block-scaled mode of an FP8
 * mode (-1 where it has none). */
int mmt_mode_block_scaled(mmt_mode mode);
int mmt_mode_with_block_scales(mmt_mode mode, mmt_mode *out);

/* "row", "col". */
const char *mmt_layout_name(mmt_layout layout);
int mmt_layout_parse(const char *name, mmt_layout *out);

/* NULL if dtype, out and mode agree (out is the input type, or f32 for bf16 and f16
 * inputs, or f32, bf16, f16, e4m3 or e5m2 for FP8 inputs) and the sizes are ones whose
 * dense matrices 64-bit byte counts hold, else why not. */
const char *mmt_problem_check(const mmt_problem *p);

/* Every field equal: the same problem, as written (layout and transposes included). */
int mmt_problem_equal(const mmt_problem *a, const mmt_problem *b);

/* The row-major problem the kernel runs: column-major C = op(A) op(B) is row-major
 * C^T = op(B)^T op(A)^T, so m/n and the operands (and their transposes) swap. */
mmt_problem mmt_problem_normalise(const mmt_problem *p);

/* Whether two problems are the same row-major problem (mmt_problem_normalise): a layout and
 * its swapped transposes are one kernel run. */
int mmt_problem_same_normal_form(const mmt_problem *a, const mmt_problem *b);
/* Whether p is the same row-major problem as one of list[0..n). */
int mmt_problem_among(const mmt_problem *p, const mmt_problem *list, size_t n);

/* One line a person can read: "f32 row NN 4096x4096x4096", "bf16->f32 row NT 64x64x64". */
void mmt_problem_format(const mmt_problem *p, char *buf, size_t size);

/* The inverse of mmt_problem_format: "MODE[->OUT] LAYOUT TT MxNxK", e.g. "f32 row NN 64x48x40",
 * "bf16->f32 col NT 128x64x32" (the input type is the mode's; OUT defaults to it). Returns
 * NULL and fills *out, or says what is wrong. */
const char *mmt_problem_parse(const char *text, mmt_problem *out);

/* 2*m*n*k. */
double mmt_problem_flops(const mmt_problem *p);

/* The bytes a rows x cols matrix of elem-byte elements spans when rows start ld elements
 * apart: ((rows - 1) ld + cols) elem, 0 for an empty one. Returns 0, or -1 where that does
 * not fit in an int64_t: sizes whose products would wrap around to a small number. */
int mmt_span_bytes(int64_t rows, int64_t cols, int64_t ld, int64_t elem, int64_t *bytes);

#endif
