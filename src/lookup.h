/* lookup.h - which configuration runs a problem: the tuned one for exactly this problem,
 * else the nearest tuned problem's (same dtype and transposes of the row-major form,
 * distance in log M, log N, log K) whose configuration is valid here, else the space's
 * default. Problems are compared in their row-major form, which is what kernels run. */
#ifndef MMT_LOOKUP_H
#define MMT_LOOKUP_H

#include <stddef.h>

#include "space.h"
#include "store.h"

/* env->problem is the normalised problem to run. On success *out is valid for it. */
mmt_status mmt_lookup_choose(const mmt_space *s, const mmt_best_rec *bests, size_t n, const mmt_space_env *env,
                             mmt_config *out, mmt_choice *how, mmt_err *err);

/* The distance between two problems of the same dtype and transposes (row-major forms). */
double mmt_lookup_distance(const mmt_problem *a, const mmt_problem *b);

#endif
