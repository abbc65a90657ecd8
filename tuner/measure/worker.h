/* worker.h - measurement in an isolated process. The tuner compiles; a worker process
 * (`mmtune __worker DEVICE`, started with fork + exec) holds the device, the inputs and
 * the reference of one problem, and loads, verifies and times each binary it is sent. A
 * candidate that faults, or hangs past the watchdog, kills only the worker: the trial is
 * recorded as crashed or timeout, and a fresh worker is started and set up again. */
#ifndef MMT_WORKER_H
#define MMT_WORKER_H

#include "bench.h"
#include "vendor.h"
#include "space.h"
#include "store.h"
#include "strassen.h"

typedef struct mmt_worker mmt_worker;

typedef struct mmt_measure {
    mmt_trial_status status;
    double rel_error; /* NAN if not verified */
    mmt_timing timing;
    double cpu_wait; /* on a CPU device, the share of the measurement some task waited for a CPU
                      * (cpu_wait.h); < 0: not known, or a GPU's (the tuner's own compiles
                      * would count) */
    char message[2048];
} mmt_measure;

/* Starts a worker for a device ("cpu", "0"); exe is the mmtune binary (/proc/self/exe). */
mmt_status mmt_worker_start(const char *exe, const char *device, mmt_worker **out, mmt_err *err);

/* Inputs and reference of a problem; replaces the previous ones. */
mmt_status mmt_worker_setup(mmt_worker *w, const mmt_problem *p, mmt_err *err);

/* Loads, verifies and times one binary. best_hi_ms (0: none) is the upper end of the best
 * interval so far, for the early stop (bench.h). A worker failure becomes the trial's
 * status (crashed, timeout), not an error; errors are for the tuner's own failures. */
mmt_status mmt_worker_measure(mmt_worker *w, const void *bin, size_t size, const char *entry, const mmt_geometry *g,
                              double best_hi_ms, mmt_measure *m, mmt_err *err);

/* One binary of a paired measurement, with its entry symbol and launch geometry. */
typedef struct mmt_worker_binary {
    const void *bin;
    size_t size;
    const char *entry;
    mmt_geometry geometry;
    mmt_strassen_plan plan; /* levels 0: the classic algorithm */
} mmt_worker_binary;

/* Loads n binaries (n <= MMT_BENCH_MAX_PAIRED) into one worker, verifies each, and times
 * those that pass side by side (mmt_bench_time_paired): m[i] is binary i's result. A
 * binary whose plan has levels > 0 is the base kernel of that plan, run with the backend's
 * additions (the worker builds them, from the kernel file cache) and verified within the
 * bound for its levels. A worker lost on the way gives every m[i] its status (crashed,
 * timeout): which binary did it is not known. */
mmt_status mmt_worker_measure_paired(mmt_worker *w, int n, const mmt_worker_binary *bins, mmt_measure *m,
                                     mmt_err *err);

/* The same with the device's vendor library (vendor.h) as one more, verified and timed in
 * the same rounds after the binaries (n + 1 <= MMT_BENCH_MAX_PAIRED), so that a ratio is
 * two figures of one measurement: *vendor is its result (status launch_error and "not
 * measured: why" where it is absent or has no routine for the mode, or no binary passed),
 * label its name as tables print it ("OpenBLAS 0.3.21"). The vendor is timed as libmmtuned
 * serves it, by both routes where they differ (vendor.h): *route is the faster one's. On the
 * CPU, the fastest binary is then timed beside the vendor in one process, calls alternating
 * (*beside, bench.h; rounds 0 elsewhere); on a GPU, where the fastest binary was the
 * faster, the two are timed again below the power limit (*cool, bench.h; rounds 0 elsewhere).
 * route, beside and cool may be NULL. */
mmt_status mmt_worker_measure_versus(mmt_worker *w, int n, const mmt_worker_binary *bins, mmt_measure *m,
                                     mmt_measure *vendor, mmt_vendor_route *route, mmt_beside *beside, mmt_cool *cool,
                                     char *label, size_t size, mmt_err *err);

void mmt_worker_stop(mmt_worker *w);

/* The worker's side: serves requests on fds 3 (in) and 4 (out) until the tuner closes them. */
int mmt_worker_main(const char *device);

#endif
