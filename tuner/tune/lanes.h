/* lanes.h - one tune over several devices of one kind (--device 0,1,...; --device all on a
 * host of twin GPUs): a lane per device, each a thread with its own worker and database
 * connection, taking the next problem from one queue until it is empty. The queue holds the
 * costliest problems first (2mnk: each candidate of a problem is timed in proportion, and a
 * large one's final and vendor rounds too), so the lanes end together rather than one
 * working through the large problems a deal by count gave it; a lane whose device fails
 * leaves its problems to the others. The caller's own thread is the first lane, so one lane
 * runs as a plain loop. */
#ifndef MMT_LANES_H
#define MMT_LANES_H

#include <stddef.h>

#include "problem.h"

enum { MMT_LANES_MAX = 64 };

/* order[0..n): the indices of p, the costliest first (ties in their order in p). */
void mmt_lanes_order(const mmt_problem *p, size_t n, size_t *order);

/* Runs run(user, lane, order[j], last) for every j on `lanes` threads (the caller's is lane
 * 0), each taking the next j as it is free. A run that returns non-zero says its lane is
 * broken (its device failed) and that it recorded nothing: the problem goes to another lane,
 * and this lane takes no more unless it is the last one left. last: no other lane is left,
 * so the run records whatever happens (its return is not looked at). Every problem is thus
 * recorded exactly once. A lane whose thread cannot be started leaves its share to the
 * others. Returns how many lanes ran. */
typedef int (*mmt_lane_fn)(void *user, int lane, size_t i, int last);
int mmt_lanes_run(int lanes, const size_t *order, size_t n, mmt_lane_fn run, void *user);

#endif
