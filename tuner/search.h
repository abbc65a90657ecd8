/* search.h - search strategies behind one interface. A strategy proposes the next
 * candidate (an index into the valid configurations) and is told each result. The
 * candidates listed as `first` (the space's default, the configurations that won on
 * neighbouring problems) are proposed before anything else: they set a good time to
 * beat early, which lets slow candidates stop early. */
#ifndef MMT_SEARCH_H
#define MMT_SEARCH_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"

typedef struct mmt_search mmt_search;

/* strategy: "exhaustive" (every candidate, in enumeration order) or "random" (a
 * uniformly shuffled order, seeded). budget: the most candidates measured (0 = all). */
mmt_status mmt_search_new(const char *strategy, size_t n_candidates, const size_t *first, size_t n_first,
                          size_t budget, uint64_t seed, mmt_search **out, mmt_err *err);

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

#endif
