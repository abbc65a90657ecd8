/* prebuild.h - compiling candidates ahead on a pool while the device measures earlier ones
 * (NVRTC and cc are CPU work). A prebuild only warms the kernel file cache (kernel.h); the
 * tuning loop then finds the binary there, so the pool never touches the database and its
 * results need no hand-over. Each thread of the pool has its compiles done by a process
 * of its own (`mmtune __compiler`, started on its first job): a compiler that crashes
 * takes that process, not the tuner, and NVRTC was seen to contend in the threads of one
 * process (docs/ARCHITECTURE.md). Used for GPUs only: on the CPU, compiling beside a
 * measurement would steal the cores being timed. */
#ifndef MMT_PREBUILD_H
#define MMT_PREBUILD_H

#include "backend.h"

typedef struct mmt_prebuild mmt_prebuild;

/* A pool of `threads` compile threads. source is borrowed and must outlive the pool. exe
 * is the mmtune binary (/proc/self/exe) whose compile processes the threads use; NULL, or
 * an exe that cannot be started, and a thread compiles in itself. */
mmt_status mmt_prebuild_new(const mmt_backend *be, const mmt_device_info *dev, const char *source, int threads,
                            const char *exe, mmt_prebuild **out, mmt_err *err);

/* Queues a compile of the instance with these definitions, unless it is queued already. */
void mmt_prebuild_push(mmt_prebuild *pb, const char *defines);

/* Before building an instance itself: drops it from the queue if no thread has taken it,
 * or waits until the thread compiling it is done. */
void mmt_prebuild_claim(mmt_prebuild *pb, const char *defines);

/* How many instances are queued or compiling (the loop keeps this near the pool size). */
int mmt_prebuild_pending(mmt_prebuild *pb);

/* How many instances the pool has compiled so far (found in a cache, failed, or lost with
 * its process: not counted), for the compile throughput the progress line shows. A failure
 * is the loop's to record: it builds the instance again itself. */
size_t mmt_prebuild_compiled(mmt_prebuild *pb);

/* Drops queued work, waits for running compiles, stops the compile processes and frees.
 * NULL is a no-op. */
void mmt_prebuild_free(mmt_prebuild *pb);

/* The compile process's side: compiles each request on fds 3 (in) and 4 (out) into the
 * kernel file cache until the pool closes them. */
int mmt_prebuild_main(void);

#endif
