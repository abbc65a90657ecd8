/* autotune.h - background tuning (MMTUNE_AUTOTUNE=background): when a context first serves
 * a problem without a tuned entry, it starts the mmtune command, detached, to tune that one
 * problem into the same database; the context picks the result up later (api.c's sync).
 * The library never links the tuner: it runs the mmtune binary.
 *
 * Across processes at most one mmtune tunes a (device, problem) at a time: a lock file per
 * pair in `<database>.autotune/`, held with flock by the mmtune process itself (it inherits
 * the descriptor), so the kernel releases it however mmtune ends. The runs' output goes to
 * `<database>.autotune/log`. */
#ifndef MMT_AUTOTUNE_H
#define MMT_AUTOTUNE_H

#include <stddef.h>

#include "err.h"
#include "problem.h"

typedef struct mmt_autotune {
    int on;          /* MMTUNE_AUTOTUNE=background */
    char budget[32]; /* --budget of each run: $MMTUNE_AUTOTUNE_BUDGET, else 60s */
    char bin[4096];  /* the mmtune to run; "" if none was found (misses are then only recorded) */
} mmt_autotune;

/* Reads the environment. MMTUNE_AUTOTUNE unset, empty or "off": off; "background": on, and
 * the binary is looked for ($MMTUNE_BIN, else mmtune next to the library or where an
 * install puts it from the library (bin/ of the same prefix), else on PATH); none found is
 * said once per process on stderr, and misses are then only recorded.
 * Any other value of MMTUNE_AUTOTUNE, or a budget mmtune would refuse, is
 * MMT_INVALID_ARGUMENT with a message that names the variable. */
mmt_status mmt_autotune_config(mmt_autotune *at, mmt_err *err);

/* The lock file of (device fingerprint, problem) for the database at db_path; MMT_OUT_OF_MEMORY
 * if the digest that names it failed. */
mmt_status mmt_autotune_lock_path(const char *db_path, const char *fingerprint, const mmt_problem *p, char *buf,
                                  size_t size);

typedef enum mmt_autotune_start_result {
    MMT_AUTOTUNE_STARTED = 0, /* an mmtune now tunes the problem */
    MMT_AUTOTUNE_BUSY,        /* another process holds the problem's lock: it is being tuned */
    MMT_AUTOTUNE_OFF,         /* off, or no mmtune binary */
    MMT_AUTOTUNE_FAILED,      /* the lock directory, the lock or the fork failed */
} mmt_autotune_start_result;

/* Starts `mmtune --device DEVICE --problem P --db DB_PATH --budget B --strategy random
 * --quiet` in a new session (double fork: the process is not the caller's child), unless
 * the problem's lock is held. Never blocks on the run; nothing here is an error to a GEMM
 * call. db_path should be absolute (the run keeps the caller's working directory). */
mmt_autotune_start_result mmt_autotune_start(const mmt_autotune *at, const char *device, const char *fingerprint,
                                             const char *db_path, const mmt_problem *p);

#endif
