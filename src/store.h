/* store.h - the SQLite database (DESIGN.md section 5): devices, templates, configs,
 * problems, every trial, the best config per (device, problem) and tuning sessions. The
 * schema text is db/schema.sql (embedded); the version is in PRAGMA user_version and older
 * files are migrated forward with db/migrate_N.sql. WAL mode, a busy timeout, and one
 * transaction per trial. No compiled code: kernels are cached in the user's own directory
 * (kernel.h), and the binary table of older databases is neither read nor written. */
#ifndef MMT_STORE_H
#define MMT_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "device.h"
#include "err.h"
#include "problem.h"

typedef struct mmt_store mmt_store;

/* Trial statuses, as stored in trial.status. */
typedef enum mmt_trial_status {
    MMT_TRIAL_OK = 0,
    MMT_TRIAL_COMPILE_ERROR,
    MMT_TRIAL_LAUNCH_ERROR,
    MMT_TRIAL_WRONG_RESULT,
    MMT_TRIAL_TIMEOUT,
    MMT_TRIAL_CRASHED,
} mmt_trial_status;

/* "ok", "compile_error", "launch_error", "wrong_result", "timeout", "crashed". */
const char *mmt_trial_status_name(mmt_trial_status s);
/* The status of its name; a name it does not know reads as crashed. */
mmt_trial_status mmt_trial_status_parse(const char *name);

typedef struct mmt_trial_rec {
    int64_t session_id, device_id, problem_id, config_id;
    mmt_trial_status status;
    double time_ms_median, time_ms_min, time_ms_max; /* ok trials */
    double gflops;                                   /* from the median */
    double rel_error;                                /* against the reference; <0 if not measured */
    int reps;
    const char *message; /* compile log, fault, ...; may be NULL */
    double cpu_wait;     /* the share of its measurement some task waited for a CPU; < 0: not known */
} mmt_trial_rec;

/* A trial whose cpu_wait is above this was measured busy: it never takes a best from one
 * that was not (nor from one whose cpu_wait is not known), and mmt_store_trials_each leaves
 * it out, so a later run measures it again. */
#define MMT_CPU_BUSY 0.25

/* The default database path: $MMTUNE_DB, else mmtune/mmtune.db in the user's cache
 * directory (fsutil.h: $XDG_CACHE_HOME, else HOME's .cache, HOME from the password
 * database where it is unset; never relative to the working directory). */
void mmt_store_default_path(char *buf, size_t size);

/* Where $MMTUNE_DB does not name the database, its default folder is checked whole as the
 * kernel cache is (fsutil.h, mmt_private_dir): a folder above it that another user may
 * write could hold a planted database that steers this user's serving and takes in its
 * records. A folder not there yet is made private where create, else left alone (there is
 * no database in it to read). MMT_IO with the reason where it is refused. */
mmt_status mmt_store_default_dir_check(int create, mmt_err *err);

/* Opens (creating the file and its directory if needed, unless readonly) and brings the
 * schema to the current version. A readonly open of a missing file fails with
 * MMT_NOT_FOUND. */
mmt_status mmt_store_open(const char *path, int readonly, mmt_store **out, mmt_err *err);

/* Whether the whole file reads (PRAGMA quick_check) and best_view, what the runtime reads,
 * answers: MMT_DATABASE with SQLite's reason otherwise. libmmtuned serves on a database
 * that fails this (as untuned); a command that measures or reports it refuses it. */
mmt_status mmt_store_check(mmt_store *st, mmt_err *err);
void mmt_store_close(mmt_store *st);

/* The database at path copied into memory (one consistent snapshot) and brought to the
 * current schema there: for reading a file of any version without writing to it. */
mmt_status mmt_store_open_snapshot(const char *path, mmt_store **out, mmt_err *err);

/* Ids of rows, inserted if missing. A problem is its shape with its input type, output
 * type and precision mode (the same shape in tf32 and f32x3 is two rows); one whose types
 * and mode disagree (mmt_problem_check) is refused with MMT_INVALID_ARGUMENT. */
mmt_status mmt_store_device(mmt_store *st, const mmt_device_info *d, int64_t *id, mmt_err *err);
mmt_status mmt_store_template(mmt_store *st, const char *name, const char *source_hash, int64_t *id, mmt_err *err);
mmt_status mmt_store_config(mmt_store *st, int64_t template_id, const char *params, int64_t *id, mmt_err *err);
mmt_status mmt_store_problem(mmt_store *st, const mmt_problem *p, int64_t *id, mmt_err *err);

/* Sessions: who tuned what, when, how. */
mmt_status mmt_store_session_begin(mmt_store *st, int64_t device_id, const char *command, const char *strategy,
                                   const char *budget, int64_t *id, mmt_err *err);
/* Ends a session with how it went (session.outcome: "complete", "partial", "interrupted",
 * "failed"; NULL leaves it unknown). */
mmt_status mmt_store_session_end(mmt_store *st, int64_t session_id, const char *outcome, mmt_err *err);

/* Records a trial in one transaction; an ok trial faster than the current best of its
 * (device, problem) - or whose best is stale (another template hash), or was measured busy
 * where this one was not (MMT_CPU_BUSY) - becomes the best, marked partial until its search
 * ends (mmt_store_best_partial); a busy trial never displaces a best that was not busy.
 * *trial_id may be NULL. */
mmt_status mmt_store_trial_add(mmt_store *st, const mmt_trial_rec *t, int64_t *trial_id, mmt_err *err);

/* Makes an ok trial the best of its (device, problem, template name) whatever the times
 * on record: the tuner's final round decides on paired medians and breaks ties by text.
 * Marked partial, like a best a trial moves, until its search ends. A trial measured busy
 * leaves a best that was not where it is (MMT_OK all the same). */
mmt_status mmt_store_best_set(mmt_store *st, int64_t trial_id, mmt_err *err);

/* The best of (device, problem, template name) as it stands: its template, trial, figure
 * and configuration (out->trial_id 0: none). */
typedef struct mmt_best_row {
    int64_t template_id, trial_id;
    double gflops;
    char params[512];
} mmt_best_row;
mmt_status mmt_store_best_get(mmt_store *st, int64_t device_id, int64_t problem_id, const char *template_name,
                              mmt_best_row *out, mmt_err *err);

/* The end of a search: marks the best of (device, problem, template name) as chosen by a
 * search that stopped before it measured what it planned (partial 1: a time budget, an
 * interrupt), or by one that did not (0). */
mmt_status mmt_store_best_partial(mmt_store *st, int64_t device_id, int64_t problem_id, const char *template_name,
                                  int partial, mmt_err *err);

/* A vendor library's figure for a problem, timed side by side with the tuned trial trial_id
 * in the same rounds (0: not paired; best_view then shows no ratio from it). */
mmt_status mmt_store_baseline_put(mmt_store *st, int64_t device_id, int64_t problem_id, const char *library,
                                  double time_ms, double gflops, int64_t trial_id, mmt_err *err);

/* One best entry, as lookups need it. */
typedef struct mmt_best_rec {
    mmt_problem problem; /* with its dtype, out and mode as stored */
    char params[512];
    double gflops;
} mmt_best_rec;

/* Every best entry for (device fingerprint, template name, template source hash), for
 * all problems of the given precision mode (any output type). *out is malloc'd. A device
 * or template the database does not know gives zero entries, not an error. */
mmt_status mmt_store_best_list(mmt_store *st, const char *fingerprint, const char *template_name,
                               const char *source_hash, mmt_mode mode, mmt_best_rec **out, size_t *n,
                               mmt_err *err);
/* The same, less the bests whose search stopped before it measured what it planned
 * (partial) and those measured busy (MMT_CPU_BUSY): what a later run should go on with. */
mmt_status mmt_store_best_list_complete(mmt_store *st, const char *fingerprint, const char *template_name,
                                        const char *source_hash, mmt_mode mode, mmt_best_rec **out, size_t *n,
                                        mmt_err *err);

/* Every configuration measured for problem p (as stored: its layout and transposes as the
 * user wrote them) with (device fingerprint, template name, source hash) that ran correctly,
 * each once with its fastest GFLOP/s, fastest first: where a call rules out the tuned one
 * (aligned loads, atomic split-K under mmt_set_reproducible), the next best it allows. */
mmt_status mmt_store_measured_list(mmt_store *st, const char *fingerprint, const char *template_name,
                                   const char *source_hash, const mmt_problem *p, mmt_best_rec **out, size_t *n,
                                   mmt_err *err);

/* The configs (canonical text) already measured for (device, problem, template) with
 * their status and median time, in the order measured: for resuming and replay. Trials
 * measured busy (MMT_CPU_BUSY) are left out: a run measures them again. Calls fn for
 * each; stops early if fn returns non-zero. */
mmt_status mmt_store_trials_each(mmt_store *st, int64_t device_id, int64_t problem_id, int64_t template_id,
                                 int (*fn)(void *user, const char *params, mmt_trial_status status,
                                           double time_ms_median, double gflops),
                                 void *user, mmt_err *err);

/* The fastest ok trial of (device, problem, template) whose relative error is known and at
 * most max_error (measured quiet): its configuration into params (empty: none) and median
 * into *ms. The tuner's fallback where the fastest winner is less accurate than the vendor. */
mmt_status mmt_store_fastest_within(mmt_store *st, int64_t device_id, int64_t problem_id, int64_t template_id,
                                    double max_error, char *params, size_t size, double *ms, mmt_err *err);

/* The trials of one (device, problem, template): a landscape for replaying searches. The
 * device is rebuilt from its row (identity and props), as search spaces read it. */
typedef struct mmt_trial_set {
    int64_t device_id, problem_id, template_id;
    mmt_problem problem;
    char template_name[64];
    mmt_device_info device;
    size_t trials;
} mmt_trial_set;

/* Every (device, problem, template) that has trials, ordered by device, template,
 * problem. *out is malloc'd. */
mmt_status mmt_store_trial_sets(mmt_store *st, mmt_trial_set **out, size_t *n, mmt_err *err);

/* Misses: problems the runtime served without a tuned entry for exactly that problem. */
typedef struct mmt_miss_rec {
    mmt_problem problem; /* as recorded: the row-major form */
    int64_t problem_id;  /* filled by mmt_store_miss_list */
    int64_t calls;
} mmt_miss_rec;

/* Adds calls to the miss rows of (dev, each problem), creating the device, problem and
 * miss rows as needed, all in one transaction: on failure nothing is written. */
mmt_status mmt_store_miss_add(mmt_store *st, const mmt_device_info *dev, const mmt_miss_rec *misses, size_t n,
                              mmt_err *err);

/* The misses of a device (by fingerprint), most calls first (then the latest seen). *out
 * is malloc'd; a device the database does not know has none. */
mmt_status mmt_store_miss_list(mmt_store *st, const char *fingerprint, mmt_miss_rec **out, size_t *n,
                               mmt_err *err);

/* How long a statement waits for another connection's write lock before it fails with
 * MMT_DATABASE (mmt_store_open sets 30 s: a tuner waits; libmmtuned's write-back from a
 * GEMM call must not). */
void mmt_store_busy_timeout(mmt_store *st, int ms);

/* For `mmtune show`: prints best_view as an aligned table to f, the rows of the device
 * named device only (NULL: every device). */
mmt_status mmt_store_print_best(mmt_store *st, void *file /* FILE* */, const char *device, mmt_err *err);

/* A column of a row as SQLite holds it. */
typedef struct mmt_store_cell {
    const char *name;
    enum { MMT_CELL_NULL, MMT_CELL_INT, MMT_CELL_REAL, MMT_CELL_TEXT } type;
    int64_t i;
    double r;
    const char *text;
} mmt_store_cell;

/* For `mmtune show --json`: best_view's rows (of the device named device; NULL: every
 * device), fn called with each row's n cells; a non-zero return stops. */
mmt_status mmt_store_best_view_each(mmt_store *st, const char *device,
                                    int (*fn)(void *user, const mmt_store_cell *cells, int n), void *user,
                                    mmt_err *err);

#endif
