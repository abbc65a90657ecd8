/* ooc_tune.h - tuning a host-memory problem (a shapes file's `host: true`): the out-of-core
 * GEMM's tile, panel depth and streams (ooc_tuned.h's grid around the plan's default), each
 * timed as applications run it: mmt_gemm_ex on host matrices through libmmtuned in this
 * process, on a context of the tuned database, so the tiles run the kernels the runtime
 * would choose for them (tuned, nearest or default) and the figure includes every copy.
 * In-process, not in the worker: the candidates are not new kernels but plans of the same
 * verified ones, which a fault would not single out; a call that fails is recorded with the
 * library's message and the next goes on. Each candidate runs once with C poisoned (NaN)
 * and is verified on a sample of C's entries against an fp64 reference, then timed
 * (wall clock: the call returns when C is written). Every candidate is a trial of the
 * pseudo-template "ooc"; the fastest median is the problem's best. */
#ifndef MMT_OOC_TUNE_H
#define MMT_OOC_TUNE_H

#include "tune.h"

/* Tunes the knobs of p (as written) on device (as mmtune's --device names it) with the
 * database at db_path, into t's store and session. r as mmt_tune_problem fills it (family
 * "ooc", params the knobs' text). MMT_UNSUPPORTED where the device is not a GPU; a problem
 * whose host matrices cannot be allocated is MMT_OUT_OF_MEMORY, nothing recorded. */
mmt_status mmt_ooc_tune_problem(mmt_tuner *t, const char *device, const char *db_path, const mmt_problem *p,
                                mmt_tune_result *r, mmt_err *err);

#endif
