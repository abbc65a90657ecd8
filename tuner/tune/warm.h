/* warm.h - where a search starts: the configurations that won on the nearest problems
 * already tuned (same mode and transposes of the row-major form; distance in log M, log N,
 * log K), nearest first, then the space's default for the problem. Tuning the 50th shape of a sweep thus
 * starts from what won on its neighbours, and a time to beat is known after a few trials. */
#ifndef MMT_WARM_H
#define MMT_WARM_H

#include <stddef.h>

#include "space.h"
#include "store.h"

/* The nearest few winners carry the information; each further one costs a measurement. */
#define MMT_WARM_MAX 5 /* neighbours' winners and the default */

/* Fills first[0..max_first) with indices into cands[0..n) (the valid configurations of
 * the row-major problem env->problem) and returns how many: the winners of bests[0..nb)
 * nearest first (those invalid here are passed over), then the space's default for the
 * problem (mmt_space_default_for). */
size_t mmt_warm_order(const mmt_space *s, const mmt_config *cands, size_t n, const mmt_space_env *env,
                      const mmt_best_rec *bests, size_t nb, size_t *first, size_t max_first);

#endif
