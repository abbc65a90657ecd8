/* shard.h - --shard I/N: the problems of a shapes file dealt among N workers like cards
 * (the j-th distinct problem to worker j mod N), so worker I tunes its share, every
 * problem goes to exactly one worker whatever N is, and the neighbouring sizes of a sweep
 * are spread over the workers. Workers are numbered from 0, as a Slurm job array's
 * tasks are (--array=0-(N-1)). */
#ifndef MMT_SHARD_H
#define MMT_SHARD_H

#include <stddef.h>

#include "problem.h"

enum { MMT_SHARD_MAX = 1000000 };

/* Parses "I/N" (0 <= I < N <= MMT_SHARD_MAX); 0 on success, -1 if malformed. */
int mmt_shard_parse(const char *text, int *index, int *count);

/* Keeps, in order and in place, worker index's share of the distinct problems (a problem
 * written twice counts once), and sets *n to their number; -1 if out of memory. */
int mmt_shard_select(mmt_problem *problems, size_t *n, int index, int count);

#endif
