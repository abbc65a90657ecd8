/* space.h - search spaces: a template's knobs, derived values, constraints, launch
 * geometry and default, loaded from YAML (DESIGN.md section 4) and checked at load time.
 *
 * A configuration is one value per param, in the order the file lists them. Its
 * canonical text is "NAME=VALUE,..." in that order; it is what the database stores. */
#ifndef MMT_SPACE_H
#define MMT_SPACE_H

#include <stddef.h>
#include <stdint.h>

#include "device.h"
#include "err.h"
#include "expr.h"
#include "problem.h"

#define MMT_SPACE_MAX_PARAMS 32
#define MMT_SPACE_MAX_VALUES 64
#define MMT_SPACE_MAX_DERIVED 32
#define MMT_SPACE_MAX_CONSTRAINTS 64
#define MMT_SPACE_MAX_DEFAULTS 16
/* The most Strassen-Winograd levels a space's `strassen:` param may ask for (strassen.h). */
#define MMT_STRASSEN_MAX_LEVELS 2

typedef struct mmt_space_param {
    char name[32];
    int n_values;
    int64_t values[MMT_SPACE_MAX_VALUES];
} mmt_space_param;

typedef struct mmt_space_expr {
    char name[32]; /* derived values only */
    char *text;
    mmt_expr *expr;
    int line, col; /* where the text starts in the file, 1-based */
} mmt_space_expr;

/* One entry of a space's `defaults:` list: a condition on the problem and the device, and the
 * configuration an untuned problem meeting it runs: the params it sets, each an expression of
 * the problem and the device (a number, or `min(16, pow2(log2(2 * N - 1)))`), the others the
 * `default:` value. */
typedef struct mmt_space_shape_default {
    mmt_space_expr when;
    int n_set;
    int set_param[MMT_SPACE_MAX_PARAMS];    /* which param set[j] gives */
    mmt_space_expr set[MMT_SPACE_MAX_PARAMS]; /* its name is the param's */
} mmt_space_shape_default;

typedef struct mmt_space {
    char *file;     /* for messages: path, or "<embedded>/search_spaces/x.yaml" */
    char *template; /* "cpu/gemm_avx.c" (relative to templates/) */
    char *entry;    /* "mmt_gemm" */
    unsigned modes;  /* bit (1u << mmt_mode) per precision mode served (the file's `modes:`) */
    int n_params;
    mmt_space_param params[MMT_SPACE_MAX_PARAMS];
    int n_derived;
    mmt_space_expr derived[MMT_SPACE_MAX_DERIVED];
    int n_constraints; /* what a valid configuration is (lookups check these) */
    mmt_space_expr constraints[MMT_SPACE_MAX_CONSTRAINTS];
    int n_prune;       /* valid configurations tuning need not measure (the default may be one) */
    mmt_space_expr prune[MMT_SPACE_MAX_CONSTRAINTS];
    int arch_specific; /* compile for the device's arch-specific target (sm_90a): `arch_specific: true` */
    /* `strassen: NAME`: the param holding the number of Strassen-Winograd levels that the
     * runtime runs around the kernel (strassen.h), or -1. It is a knob like any other in
     * the configuration and its text, but no compile definition (every level runs the same
     * binary), it is not searched (tuning adds levels to its classic winner, the levels
     * round) and a configuration's text leaves it out at 0 (its bit in added_mask): the
     * classic algorithm's text is the one it had before the knob existed. */
    int levels_param;
    /* `added: [NAME, ...]`, and the levels param: params added after configurations of the
     * space were recorded (bit i: params[i]). A configuration's text leaves each out at 0 and reads 0 where it is
     * absent, so every text recorded before the knob existed stays the configuration it was. */
    uint64_t added_mask;
    int has_launch; /* GPU spaces: grid, block, smem, workspace (bytes of device scratch; 0 if absent) */
    mmt_space_expr grid[3], block[3], smem, workspace;
    mmt_space_expr tma[3][2]; /* tma_a, tma_b, tma_c: TMA boxes of A, B, C (elements, contiguous dim first; 0: none) */
    mmt_space_expr tma_packed; /* which tensor maps describe packed copies in the workspace (backend.h) */
    mmt_space_expr tma_tf32;   /* nonzero: A's and B's maps round fp32 to tf32 as the TMA copies (backend.h) */
    int64_t defaults[MMT_SPACE_MAX_PARAMS]; /* the default configuration, per param */
    int n_shape_defaults; /* `defaults:`, tried in order before `default:` */
    mmt_space_shape_default shape_defaults[MMT_SPACE_MAX_DEFAULTS];
} mmt_space;

typedef struct mmt_config {
    int64_t v[MMT_SPACE_MAX_PARAMS];
} mmt_config;

/* Launch geometry of one configuration for one problem. */
typedef struct mmt_geometry {
    int64_t grid[3], block[3], smem;
    int64_t workspace; /* bytes of device scratch the launch needs (mmt_gemm_params.workspace) */
    /* TMA boxes of A, B and C in elements, the contiguous dimension first (0 0: the kernel
     * takes no tensor map of that operand); elem_bytes: the size of A's and B's elements,
     * c_bytes C's */
    int64_t tma[3][2];
    int64_t elem_bytes, c_bytes;
    int64_t tma_packed; /* 1 + 2 + 4: A, B packed in the workspace, packed K-major (backend.h) */
    int64_t tma_tf32;   /* nonzero: A's and B's maps round fp32 to tf32 (backend.h) */
} mmt_geometry;

/* What expressions may read besides params and derived values: the row-major problem
 * (M N K, TRANS_A TRANS_B, elem_bytes of A and B, c_bytes of C, MODE: problem.h's
 * mmt_mode number, 2 bf16 3 f16 4 tf32 5 f32x3), the alignment of the
 * operands (ALIGN_A ALIGN_B: the largest of 16, 8, 4, 2, 1 bytes that divides both the
 * pointer and the row pitch), whether the caller asked for results reproducible bit for bit
 * (REPRODUCIBLE: 1 or 0) and device.NAME. */
typedef struct mmt_space_env {
    const mmt_problem *problem; /* normalised (row-major) */
    const mmt_device_info *device;
    int align_a, align_b; /* bytes; 0: as dense storage of the problem (lda = K or M, ...) */
    int reproducible;     /* 1: the same inputs must give the same bits on every run */
    int allow_levels;     /* lookups: a configuration's Strassen levels may run (else they are dropped) */
} mmt_space_env;

/* The largest of 16, 8, 4, 2, 1 that divides both an address and a row pitch in bytes: the
 * lowest bit set of the two and 16 (inline: every call of a GEMM asks). */
static inline int mmt_align_bytes(uintptr_t address, int64_t pitch_bytes)
{
    const uintptr_t bits = address | (uintptr_t)pitch_bytes | 16;
    return (int)(bits & (~bits + 1));
}

/* Loads a space from a file or from text (name is used in messages). Every error names
 * file:line:column. Checks at load time: unknown names in expressions, duplicate or
 * empty params, a default that is missing a param or lies outside its values, a `defaults:`
 * entry whose `when` or values read params, or whose numbers lie outside their values. */
mmt_status mmt_space_load_file(const char *path, mmt_space **out, mmt_err *err);
mmt_status mmt_space_load_text(const char *name, const char *text, size_t size, mmt_space **out, mmt_err *err);
void mmt_space_free(mmt_space *s);

/* Evaluates the derived values (into derived[], may be NULL) and constraints for one
 * configuration. *valid is 1 if every constraint holds. Errors (division by zero, ...)
 * name the expression and its file:line:column. */
mmt_status mmt_space_check(const mmt_space *s, const mmt_config *c, const mmt_space_env *env, int *valid,
                           int64_t *derived, mmt_err *err);

/* Every valid configuration that no prune condition excludes (what tuning measures), in
 * odometer order over the params (last param fastest), the levels param (if any) at 0.
 * *out is malloc'd (the caller frees it). The walk fixes the params in file order and drops
 * a prefix as soon as a condition reading only the params fixed so far is false, so the
 * work is the partial configurations it visits, not the product of the params' values;
 * more than 10^8 of them is MMT_INVALID_ARGUMENT. An expression the environment cannot
 * evaluate (no device, a property the device lacks) fails where a walk over every
 * combination would: the first derived value that needs it, else the first condition that
 * a configuration reaches through the conditions before it. */
mmt_status mmt_space_enumerate(const mmt_space *s, const mmt_space_env *env, mmt_config **out, size_t *n,
                               mmt_err *err);

/* The index of configuration c in cands[0..n), or -1. */
long mmt_config_index(const mmt_config *cands, size_t n, const mmt_config *c);

/* The default configuration (the file's `default:`). */
void mmt_space_default(const mmt_space *s, mmt_config *out);

/* The default for a problem: the first entry of `defaults:` whose `when` holds for env and
 * whose configuration is valid there, else `default:` (not checked here: lookup.h says what
 * an invalid one means). *which: the entry's index, or -1 for `default:` (may be NULL).
 * Errors are those of evaluating a `when` or the constraints. */
mmt_status mmt_space_default_for(const mmt_space *s, const mmt_space_env *env, mmt_config *out, int *which,
                                 mmt_err *err);

/* Launch geometry (zeros if the space has no launch section). */
mmt_status mmt_space_geometry(const mmt_space *s, const mmt_config *c, const mmt_space_env *env, mmt_geometry *g,
                              mmt_err *err);

/* Canonical text "BM=64,BN=64,..." and back. Parsing requires exactly the space's params;
 * the levels param is written only where it is not 0, and read as 0 where it is absent. */
void mmt_config_format(const mmt_space *s, const mmt_config *c, char *buf, size_t size);
mmt_status mmt_config_parse(const mmt_space *s, const char *text, mmt_config *out, mmt_err *err);

/* The -D definitions a template instance is compiled with: every param (but the levels
 * param) and every derived value, "NAME=VALUE" separated by single spaces, in file order. */
mmt_status mmt_space_defines(const mmt_space *s, const mmt_config *c, const mmt_space_env *env, char *buf,
                             size_t size, mmt_err *err);

/* The Strassen-Winograd levels of a configuration (0 where the space has no levels param),
 * and the same configuration with other levels (a space without the param keeps c). */
int mmt_config_levels(const mmt_space *s, const mmt_config *c);
mmt_config mmt_config_with_levels(const mmt_space *s, const mmt_config *c, int levels);

#endif
