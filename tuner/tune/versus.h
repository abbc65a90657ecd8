/* versus.h - the vendor round, the last measurement of a problem: the winner of each family
 * and the vendor library (vendor.h) are verified and timed side by side in one worker
 * (A B V V B A ... on the same inputs: mmt_worker_measure_versus), so the figures a table
 * prints and the ratio made of them are two figures of one measurement, taken in this run
 * whatever earlier runs measured. Each winner's result is recorded as an ordinary trial
 * ("vendor round: ...") and made its family's best (its configuration stays; its figure is
 * this run's); the vendor's figure goes to the baseline table with the trial of the
 * fastest winner it was timed beside (best_view shows a ratio only for that pair). Where the
 * vendor was the faster, or the more accurate (mmt_versus_vendor_serves), its
 * result becomes the best of the `vendor` family (vendor.h), which libmmtuned then serves;
 * a round that finds it so no more drops it. */
#ifndef MMT_VERSUS_H
#define MMT_VERSUS_H

#include "tune.h"

/* The rule, from the fastest winner's timing and relative error and the vendor's, taken in
 * the same rounds: the vendor serves where its median is the lower (a template must not be
 * slower than the library it stands in for: where the two are within noise of each other
 * either costs the same, and a tie kept for the template measured up to 0.93x the vendor
 * later), or where the winner's error is above MMT_VENDOR_ERROR_RATIO times the vendor's
 * (an error not above 0 is not known, and decides nothing). On the CPU it also serves where
 * it was clearly the faster with the two calls alternating in one process (below
 * MMT_BESIDE_MARGIN times the template's time; beside NULL or 0 rounds: not measured): there
 * one library's idle threads slow the other's next call, as in an application that calls
 * both, or in libmmtuned itself serving another problem by the vendor (on 2 cores a template
 * of f32 128x128x256 measured 1.04x alone, 0.75x so, and 0.74x in `mmtune bench`). Those
 * single calls move by about 10% between runs on a small machine (a template at 0.94x so
 * measured 1.26x in `mmtune bench`), hence the margin. On a GPU it also serves where its
 * median was the lower with the GPU below its power limit (cool NULL or 0 rounds: not
 * measured; bench.h): a template that wins only where the clock is held down by the power
 * limit loses to the vendor in an application's bursts of calls (H200, f64 8192x512x1024:
 * a template chosen at 1.03x in the rounds measured 0.96x in `mmtune bench`). */
#define MMT_BESIDE_MARGIN 0.9
mmt_vendor_serves mmt_versus_vendor_serves(const mmt_timing *winner, double winner_error, const mmt_timing *vendor,
                                           double vendor_error, const mmt_beside *beside, const mmt_cool *cool);

/* mmtune bench's rule for a tuned template it timed beside the vendor in the same rounds: a
 * later run that finds the template the slower beyond noise (the vendor's median below
 * MMT_DEMOTE_RATIO times the template's, their intervals apart), or clearly the slower by
 * the medians alone (below MMT_DEMOTE_CLEAR times), leaves the problem to the vendor, as a
 * vendor round that measured so would. A tune's rounds are one run: on a 16-core host, a
 * template chosen at 1.09x the vendor in them measured 0.85x in `bench`; on the 2-core VM
 * one measured 0.89x with intervals that overlapped, and was kept. Demoting a template that
 * was faster costs its gain; keeping one that is slower makes the application slower than
 * the vendor, so a clear median decides where noisy intervals do not. */
#define MMT_DEMOTE_RATIO 0.98
#define MMT_DEMOTE_CLEAR 0.95
int mmt_versus_demotes(const mmt_timing *tuned, const mmt_timing *vendor);

/* Where a round's results go: the store, this session, the device, and the problem (its row
 * and np, its normal form). */
typedef struct mmt_versus_to {
    mmt_store *st;
    int64_t session_id, device_id, problem_id;
    const mmt_problem *np;
} mmt_versus_to;

/* Records result r of template (name, source hash) and configuration params as a trial, its
 * message "<by>: <how>" (r's own message after by where it failed); an ok one becomes its
 * family's best. *trial_id: the trial (0 if none was recorded). */
mmt_status mmt_versus_record(const mmt_versus_to *to, const char *name, const char *source_hash, const char *params,
                             const mmt_measure *r, const char *by, const char *how, int64_t *trial_id, mmt_err *err);

/* The vendor's ok result r (params: its route's configuration) recorded so and made the
 * vendor family's best, its search complete: libmmtuned serves the vendor for the problem
 * (the vendor round's verdict, and mmtune bench's demotion). */
mmt_status mmt_versus_record_vendor(const mmt_versus_to *to, const char *params, const mmt_measure *r, const char *by,
                                    const char *how, mmt_err *err);

/* A family's winner. */
typedef struct mmt_versus_entry {
    const mmt_family *fam;
    const char *params;
} mmt_versus_entry;

typedef struct mmt_versus {
    int winner;                         /* the entry with the fastest median that passed; -1: none */
    mmt_timing tuned[MMT_MAX_FAMILIES]; /* per entry; samples 0: not timed */
    mmt_timing vendor;                  /* samples 0: not timed (text says why) */
    double tuned_error[MMT_MAX_FAMILIES]; /* per entry, its result's relative error; 0: not known */
    double vendor_error;                /* the vendor's, on the same inputs; 0: not known */
    mmt_vendor_serves vendor_serves;    /* why the vendor's family has the best, or MMT_VENDOR_NOT */
    mmt_beside beside;                  /* on the CPU: the fastest and the vendor in one process */
    mmt_cool cool;                      /* on a GPU: the fastest and the vendor below the power limit */
    double cpu_wait;                    /* on a CPU, the share of the round some task waited for a
                                           CPU (cpu_wait.h); above MMT_CPU_BUSY it decides nothing */
    char label[128];                    /* the vendor as tables name it */
    char text[512];                     /* why the round, or the vendor, timed nothing */
} mmt_versus;

/* "; beside it in one process, calls alternating over N rounds: the fastest 1.02x its time
 * alone, the vendor 1.05x": what the trials' messages and the table say of b. */
void mmt_versus_beside_text(const mmt_beside *b, char *buf, size_t size);

/* "; below the power limit over N rounds: the fastest 1.03x the vendor's speed": the same
 * of c. */
void mmt_versus_cool_text(const mmt_cool *c, char *buf, size_t size);

/* Times the n <= MMT_MAX_FAMILIES winners e of p beside the vendor and records them (see
 * above). A round the worker does not survive, or winners that cannot be built again,
 * leave out->winner -1 with the reason in out->text; errors are the tuner's own failures
 * (the database). */
mmt_status mmt_versus_run(mmt_tuner *t, const mmt_problem *p, int64_t problem_id, const mmt_versus_entry *e, int n,
                          mmt_versus *out, mmt_err *err);

#endif
