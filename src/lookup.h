/* lookup.h - which configuration runs a problem: the tuned one for exactly this problem,
 * else the nearest tuned problem's (same input type, output type, mode and transposes of
 * the row-major form; distance in log M, log N, log K) whose configuration is valid here,
 * else the space's default for the problem (its first `defaults:` entry that holds and is valid
 * here, else `default:`). Problems are compared in their row-major form, which is what
 * kernels run; validity is checked with the caller's env, so a configuration that needs
 * aligned rows is passed over for operands that are not. A tuned configuration keeps its
 * Strassen-Winograd levels only where env->allow_levels and its plan holds for the problem
 * (strassen.h); elsewhere it is chosen at 0 levels, its classic winner. The recorded
 * GFLOP/s that rank families and f32x3 against f32 are then the levels' figure. */
#ifndef MMT_LOOKUP_H
#define MMT_LOOKUP_H

#include <stddef.h>

#include "space.h"
#include "store.h"

/* The tuned choice only: 1 with *out, *how (EXACT or NEAREST) and *gflops (the entry's
 * recorded GFLOP/s; may be NULL), or 0 if no tuned entry fits env->problem. */
int mmt_lookup_tuned(const mmt_space *s, const mmt_best_rec *bests, size_t n, const mmt_space_env *env,
                     mmt_config *out, mmt_choice *how, double *gflops);

/* env->problem is the normalised problem to run. On success *out is valid for it, *how
 * says which rule chose it and *gflops (may be NULL) is the recorded GFLOP/s of the tuned
 * entry chosen, 0 for the default. A default that the operands' alignment rules out is
 * MMT_UNSUPPORTED (with the alignment in the message); one invalid for dense storage is a
 * broken space (MMT_INTERNAL). */
mmt_status mmt_lookup_choose(const mmt_space *s, const mmt_best_rec *bests, size_t n, const mmt_space_env *env,
                             mmt_config *out, mmt_choice *how, double *gflops, mmt_err *err);

/* One family's part in a choice among the families that serve a mode (family.h). */
typedef struct mmt_lookup_family {
    const mmt_space *space;
    const mmt_best_rec *bests; /* the family's tuned entries for this device */
    size_t n_bests;
} mmt_lookup_family;

/* The tuned choice among families: an exact entry beats a nearest one (a neighbour's
 * figure is a guess for this problem), and between two of the same rule the higher
 * recorded GFLOP/s wins; only configurations valid for env count, so a family whose
 * requirements the operands do not meet (alignment) is never chosen. Returns the index of
 * the family chosen, with *out, *how and *gflops (may be NULL), or -1. */
int mmt_lookup_tuned_among(const mmt_lookup_family *fams, int n, const mmt_space_env *env, mmt_config *out,
                           mmt_choice *how, double *gflops);

/* mmt_lookup_choose over families: the tuned choice among them, else the first family (in
 * the list's order) with a `defaults:` entry that holds and is valid for env (a family that
 * names this kind of problem in its defaults is made for it), else the `default:` of the
 * first family whose `default:` is valid for env. Where none is, the first family's reason
 * (MMT_UNSUPPORTED naming the alignment, or MMT_INTERNAL). *which: the index of the family
 * chosen. */
mmt_status mmt_lookup_choose_among(const mmt_lookup_family *fams, int n, const mmt_space_env *env, mmt_config *out,
                                   mmt_choice *how, double *gflops, int *which, mmt_err *err);

/* The distance between two problems of the same kind (row-major forms). */
double mmt_lookup_distance(const mmt_problem *a, const mmt_problem *b);

#endif
