/* miss.h - what a context served without a tuned entry, and its write-back to the
 * database's miss table (db/schema.sql).
 *
 * A counter per problem, shared by the context's table entries of that problem (they
 * differ by operand alignment), is bumped by each such call with one relaxed atomic
 * increment, of the calling thread's share of it: the shares lie on cache lines of their
 * own, so that threads calling one shape at once do not take one line from each other on
 * every call. Nothing else of it is on the GEMM path. The counts reach the database in one
 * transaction when a call finds the sync interval over (mmt_misses_due; the context's
 * builder thread then writes them, off the call's path) and when the context closes. Writes
 * go through a connection of their own, opened with the context, with a short busy timeout
 * (a tuner committing to the same file delays a write by at most that). A write that fails
 * keeps the counts for the next one and is never an error to the caller. */
#ifndef MMT_MISS_H
#define MMT_MISS_H

#include <stdatomic.h>
#include <stdint.h>

#include "device.h"
#include "err.h"
#include "problem.h"
#include "store.h"

enum { MMT_MISS_SHARES = 8 };

typedef struct mmt_miss_counter {
    mmt_problem problem; /* the row-major problem, as looked up */
    struct {
        _Alignas(64) _Atomic int64_t n;
    } calls[MMT_MISS_SHARES]; /* since the last successful write: their sum, a thread adding to one */
    _Alignas(64) atomic_int autotune; /* background tuning was asked for it (once per context) */
    struct mmt_miss_counter *next;
} mmt_miss_counter;

typedef struct mmt_misses mmt_misses;

/* The sync interval in seconds: $MMTUNE_SYNC_S (a number >= 0), else 5. A value that is
 * not a number is MMT_INVALID_ARGUMENT naming the variable. */
mmt_status mmt_misses_interval(double *seconds, mmt_err *err);

/* Counters for misses on dev, written to the database at db_path through a connection
 * opened now. NULL if that fails (a read-only file, say): nothing is recorded then. */
mmt_misses *mmt_misses_new(const char *db_path, const mmt_device_info *dev, double interval_s);

/* Writes what is left (waiting up to a few seconds for the write lock), then frees. */
void mmt_misses_free(mmt_misses *m);

/* The counter of problem p, made on first use; NULL if out of memory. */
mmt_miss_counter *mmt_misses_counter(mmt_misses *m, const mmt_problem *p);

/* Adds calls to the calling thread's share of c. */
void mmt_miss_count_n(mmt_miss_counter *c, int64_t calls);
static inline void mmt_miss_count(mmt_miss_counter *c) { mmt_miss_count_n(c, 1); }

/* 1 if the sync interval is over and no other thread is syncing: the caller then owns the
 * sync (write-back, re-checks) until mmt_misses_done. Reads a coarse clock: no system call. */
int mmt_misses_due(mmt_misses *m);
void mmt_misses_done(mmt_misses *m);

/* Writes every count in one transaction, waiting at most 100 ms for the write lock; on
 * failure the counts stay for the next write. Call it while owning the sync. */
void mmt_misses_flush(mmt_misses *m);

/* The write-back connection, for reads made while owning the sync (its statements wait
 * 100 ms at most for a lock). */
mmt_store *mmt_misses_store(mmt_misses *m);

#endif
