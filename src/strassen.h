/* strassen.h - Strassen-Winograd levels around a tuned base kernel.
 *
 * One level of Winograd's variant splits C = alpha op(A) op(B) + beta C into quadrants and
 * forms it from 7 products of half the size and 15 additions:
 *
 *   S1 = A21 + A22   S2 = S1 - A11   S3 = A11 - A21   S4 = A12 - S2
 *   T1 = B12 - B11   T2 = B22 - T1   T3 = B22 - B12   T4 = T2 - B21
 *   P1 = A11 B11  P2 = A12 B21  P3 = S4 B22  P4 = A22 T4  P5 = S1 T1  P6 = S2 T2  P7 = S3 T3
 *   C11 = P1 + P2    U2 = P1 + P6    U3 = U2 + P7
 *   C12 = U2 + P5 + P3    C21 = U3 - P4    C22 = U3 + P5
 *
 * The 8 input additions are two fused passes (S1..S4 from A's quadrants read once, T1..T4
 * from B's); the products accumulate into C's quadrants through the base kernel's beta
 * where they can, so the output additions need two temporaries of a quadrant (P, Q) and
 * three passes (strassen_add templates, one per backend: vectorised C with OpenMP on the
 * CPU, device kernels on CUDA). A product recurses for the next level; the last level's
 * products are base kernel calls. Temporaries come from one workspace, laid out when the
 * plan is made: nothing is allocated while a run recurses.
 *
 * Any shape: each level peels what does not split evenly. The halves are kept multiples of
 * `unit` elements (16 bytes), so every quadrant, strip and temporary keeps the 16-byte
 * alignment class of the operands (a kernel chosen for 16-byte rows gets 16-byte rows);
 * the peeled rows, columns and depth (fewer than 2 units) go to the base kernel as strips:
 *   C[0:m0, 0:n0]  = Strassen(op(A)[0:m0, 0:k0], op(B)[0:k0, 0:n0]) (+ beta C)
 *   C[0:m0, 0:n0] += op(A)[0:m0, k0:k] op(B)[k0:k, 0:n0]          (depth k - k0)
 *   C[0:m0, n0:n]  = op(A)[0:m0, :] op(B)[:, n0:n] (+ beta C)      (columns n - n0)
 *   C[m0:m, :]     = op(A)[m0:m, :] op(B) (+ beta C)               (rows m - m0)
 * Peeling costs no copy and no memory (padding would copy A and B into padded buffers,
 * level by level), and the strips are thin GEMMs the base kernel serves anyway.
 *
 * Every base call runs the problem's transposes (temporaries are stored in the orientation
 * of the operand they stand for), so a CUDA instance built for one pair of transposes
 * serves them all. BLAS rules hold: beta == 0 never reads C, and alpha == 0 (or k == 0)
 * is one base call on the whole problem, which reads neither A nor B. */
#ifndef MMT_STRASSEN_H
#define MMT_STRASSEN_H

#include "backend.h"
#include "space.h"

/* The most distinct base-call shapes of a run: the whole problem (alpha == 0), three strips
 * per level and the last level's product. */
#define MMT_STRASSEN_MAX_SHAPES (2 + 3 * MMT_STRASSEN_MAX_LEVELS)

typedef struct mmt_strassen_shape {
    int64_t m, n, k;
    mmt_geometry g; /* the base configuration's launch geometry for this shape */
} mmt_strassen_shape;

/* A run of one problem with its levels, worked out once: the shapes the base kernel is
 * called with and their geometry, and the workspace. Plain data (the worker receives it). */
typedef struct mmt_strassen_plan {
    int levels;           /* 0: no plan (the classic algorithm) */
    int64_t m, n, k;      /* the row-major problem */
    int64_t elem_bytes;   /* of A, B and C (f32 or f64) */
    int64_t unit;         /* the halves are multiples of this many elements (16 bytes) */
    int n_shapes;
    mmt_strassen_shape shape[MMT_STRASSEN_MAX_SHAPES]; /* shape[0]: the whole problem */
    int64_t temp_bytes;   /* every level's temporaries (256-byte aligned each) */
    int64_t workspace;    /* temp_bytes and, after it, the largest workspace a base call asks for */
} mmt_strassen_plan;

/* The plan of configuration c (its levels > 0) for env's problem. *valid is 0 where the
 * levels cannot run there: c breaks a constraint of the problem (a space bounds levels to
 * large problems), the base configuration (c at 0 levels) is invalid for a shape the levels
 * hand it (an EVEN path on a strip), or the mode is not f32 or f64. Errors are those of
 * evaluating the space. */
mmt_status mmt_strassen_plan_make(const mmt_space *s, const mmt_config *c, const mmt_space_env *env,
                                  mmt_strassen_plan *plan, int *valid, mmt_err *err);

/* Whether c runs with its levels for env: they are allowed (env->allow_levels) and the
 * plan is valid. A configuration without levels applies trivially. */
int mmt_strassen_applies(const mmt_space *s, const mmt_config *c, const mmt_space_env *env);

/* The additions of a backend (templates/<backend>/strassen_add.*), for one element type. */
typedef struct mmt_strassen_adds {
    const mmt_backend *be;
    mmt_module *split_a, *split_b, *acc, *u3;
} mmt_strassen_adds;

/* Builds (file cache or compiler) and loads the additions for dtype (f32 or f64). Free
 * with mmt_strassen_adds_unload. */
mmt_status mmt_strassen_adds_load(const mmt_backend *be, const mmt_device_info *dev, mmt_dtype dtype,
                                  mmt_strassen_adds *out, mmt_err *err);
void mmt_strassen_adds_unload(mmt_strassen_adds *a);

/* The binary of the additions (as mmt_kernel_binary): the tuner builds it before a worker
 * needs it, so the worker finds it in the kernel file cache. */
mmt_status mmt_strassen_adds_binary(const mmt_backend *be, const mmt_device_info *dev, mmt_dtype dtype, void **bin,
                                    size_t *size, mmt_err *err);

/* Runs p (its m n k the plan's) with the plan's levels: base is the loaded instance of the
 * base configuration, adds the additions of p's element type. p->workspace must hold
 * plan->workspace bytes (else MMT_INTERNAL, before anything runs); the base calls get what
 * follows the temporaries. Asynchronous on GPUs, like a launch. A failure part way leaves
 * C undefined. */
mmt_status mmt_strassen_run(const mmt_backend *be, mmt_module *base, const mmt_strassen_adds *adds,
                            const mmt_strassen_plan *plan, const mmt_gemm_params *p, void *stream, mmt_err *err);

#endif
