/* search.h - search strategies behind one interface. A strategy proposes the next
 * candidate (an index into the valid configurations of a problem) and is told each
 * result. The candidates listed as `first` (the space's default, the configurations that
 * won on neighbouring problems: warm.h) are proposed before anything else: they set a good
 * time to beat early, and the guided strategies start from the best of them.
 *
 *   exhaustive  every candidate, in enumeration order
 *   random      a uniformly shuffled order (seeded)
 *   anneal      simulated annealing over the parameter grid: from the best point so far,
 *               measure a few unmeasured neighbours (one param one step along its list),
 *               move to the best of them, or to a worse one with the Metropolis
 *               probability of a temperature that cools over the budget; restarts at a
 *               random point when a neighbourhood is exhausted
 *   model       model-guided: a distance-weighted nearest-neighbour model of log(time)
 *               over the parameter grid, fitted to every measured trial, proposes the
 *               candidates with the lowest predicted time less an exploration bonus for
 *               being far from anything measured (the bonus shrinks as the budget is
 *               spent), a few at a time
 *
 * Every strategy is deterministic for a seed, whatever the timings: the same results
 * reported give the same proposals. */
#ifndef MMT_SEARCH_H
#define MMT_SEARCH_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "space.h"

typedef struct mmt_search mmt_search;

/* The candidates are cands[0..n) of space s (their params give the grid the guided
 * strategies move on; both must outlive the search). budget: the most candidates
 * proposed (0 = all). batch: how many proposals a guided strategy makes at once, so that
 * they can compile ahead (1 or more). */
mmt_status mmt_search_new(const char *strategy, const mmt_space *s, const mmt_config *cands, size_t n,
                          const size_t *first, size_t n_first, size_t budget, size_t batch, uint64_t seed,
                          mmt_search **out, mmt_err *err);

/* The next candidate index, or -1 when the search is done. */
long mmt_search_next(mmt_search *s);

/* The candidate that will be proposed `i` places after the last one proposed (0 = the
 * next), or -1 if there is none or the strategy cannot know yet: for compiling ahead. */
long mmt_search_ahead(const mmt_search *s, size_t i);

/* The measured time of a proposed candidate (INFINITY if it failed). */
void mmt_search_report(mmt_search *s, long index, double time_ms);

/* How many candidates the search will propose at most. */
size_t mmt_search_planned(const mmt_search *s);

void mmt_search_free(mmt_search *s);

/* Is name one of the strategies? */
int mmt_search_known(const char *name);

/* "exhaustive, random, anneal, model": for messages. */
const char *mmt_search_names(void);

#endif
