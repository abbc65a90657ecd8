/* unseen.h - serving measured where it is decided: on problems nobody tuned. libmmtuned serves
 * such a problem with a template (the nearest tuned problem's configuration, or the default)
 * or the vendor library, by the rule of mmt_predict_serve (predict.h); two measurements of it.
 *
 * Leave one out on a recorded database, no device (mmtune replay --unseen): each tuned problem
 * P with a vendor figure is taken as never tuned, and the rule decides from the rest of the
 * database: the templates' choice is the nearest other tuned problem's configuration as the
 * runtime's lookup picks it (mmt_lookup_choose_among over the mode's families), the prediction
 * reads the other problems' records. The decision is scored with what the database measured
 * at P: the vendor's figure, or the chosen configuration's fastest trial there; one never
 * measured at P is unscorable, and said so (an exhaustive landscape measured every
 * configuration at every problem). Beside it, the rule before the vendor served untuned
 * problems: the nearest configuration always. Vendor figures timed alone (an older
 * database's, trial_id NULL) count here, which libmmtuned's prediction does not read; the
 * output says how many. Deterministic, and milliseconds.
 *
 * Problems nobody tuned, drawn for a device (mmtune bench --unseen N): per mode the database
 * tuned on the device, sizes log-uniform between the smallest and largest tuned M, N and K,
 * the kind (types, layout, transposes) one of those tuned, never a problem tuned there. */
#ifndef MMT_UNSEEN_H
#define MMT_UNSEEN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "device.h"
#include "err.h"
#include "problem.h"
#include "store.h"

typedef struct mmt_unseen_options {
    const char *db;     /* read into memory (any schema version), never written */
    const char *device; /* NULL: every device of the database; else its backend (cpu, cuda) or name */
    int json;           /* the JSON document on out, the text on text */
} mmt_unseen_options;

/* Prints a row per tuned problem and a summary per device and mode to text (NULL: none),
 * and with o->json the same as one JSON document to out. MMT_NOT_FOUND where the database
 * holds no tuned problem with a vendor figure (for o->device). */
mmt_status mmt_unseen_replay(const mmt_unseen_options *o, FILE *text, FILE *out, mmt_err *err);

/* Ratios (served over the vendor's) summarised: the geometric mean, the 10th percentile
 * (linear between order statistics) and the minimum; n 0: none (the figures NAN). */
typedef struct mmt_ratio_summary {
    size_t n;
    double geomean, p10, min;
} mmt_ratio_summary;

/* Summarises r[0..n) (sorted in place); values that are not finite and positive are left out. */
mmt_ratio_summary mmt_ratio_summarise(double *r, size_t n);

/* Draws per mode that dev (by fingerprint) has tuned problems of in st (any family's best but
 * the out-of-core knobs'), per_mode problems nobody tuned there: M, N and K log-uniform
 * between the smallest and the largest tuned (as stored, rounded), types, layout and
 * transposes those of a tuned problem (each kind seen equally likely), none equal (in its
 * row-major form) to a tuned problem or to another drawn. The same database and seed give
 * the same problems. *out is malloc'd, modes in order; a mode whose range holds fewer
 * untuned problems than asked stops after 1000 draws that met a tuned or drawn one, and a
 * line in note (may be NULL) says so. MMT_NOT_FOUND where the device has no tuned problem. */
mmt_status mmt_unseen_draw(mmt_store *st, const mmt_device_info *dev, size_t per_mode, uint64_t seed,
                           mmt_problem **out, size_t *n, char *note, size_t note_size, mmt_err *err);

#endif
