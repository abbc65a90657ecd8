/* predict.h - what serves a problem nobody tuned: a template (the nearest tuned problem's
 * configuration, or the default) or the vendor library. The prediction reads the device's
 * tuned problems of the same kind (mode, types, transposes), each with its fastest template's
 * figure and the vendor's timed side by side (store_serving.h): the ratio of the two, averaged
 * in log space with weights that fall off with the distance in log M, log N, log K (a
 * Gaussian kernel of width MMT_PREDICT_WIDTH). That ratio is the neighbours' configurations
 * on their own shapes; a neighbour's configuration on this shape delivers less, and how much
 * less is measured on the device's own records (mmt_predict_calibrate): each tuned problem
 * taken as untuned, the configuration the lookup would give it from the others, as the
 * database measured it there, over the ratio predicted for it. A template serves only where
 * the ratio times the worst of those transfers among the MMT_PREDICT_SAMPLES calibrated
 * records of the kind nearest to the problem clears the margin, and the problem is no
 * farther from its nearest record than those records were from theirs; everywhere else,
 * and with fewer records or nothing known, the vendor does. Deterministic, derived from the database
 * alone: the calibration is a lookup and a read of one problem's trials per record (at most
 * MMT_PREDICT_CALIBRATED of them) when a mode is first served, a prediction a pass over the
 * records per first call of a shape. */
#ifndef MMT_PREDICT_H
#define MMT_PREDICT_H

#include <stddef.h>

#include "family.h"
#include "lookup.h"
#include "store_serving.h"

#define MMT_PREDICT_WIDTH 0.5     /* the kernel's width in natural log units (a factor of 1.65) */
#define MMT_PREDICT_MARGIN 1.05   /* the calibrated ratio to the vendor must clear it */
#define MMT_PREDICT_SAMPLES 8     /* the nearest calibrated records of the kind that decide */
#define MMT_PREDICT_CALIBRATED 64 /* records of a mode calibrated, at most (spread evenly) */

typedef struct mmt_prediction {
    double ratio;      /* the neighbours' template figure over the vendor's (1 where nothing is known) */
    double transfer;   /* the worst calibration of the samples (1 where there is none) */
    int samples;       /* the nearest calibrated records of the kind, at most MMT_PREDICT_SAMPLES */
    double distance;   /* from p to its nearest record of the kind (INFINITY: none) */
    double reach;      /* the farthest a sample was from its own nearest record */
    int template_wins; /* ratio * transfer >= MMT_PREDICT_MARGIN on MMT_PREDICT_SAMPLES records, within reach */
} mmt_prediction;

/* The prediction for problem p (row-major) from recs, those of another kind passed over, and
 * p itself too where skip_self (leave one out). */
mmt_prediction mmt_predict(const mmt_paired_rec *recs, size_t n, const mmt_problem *p, int skip_self);

/* What a configuration (params, of family fam) ran at problem p (as stored), GFLOP/s; 0
 * where it never ran there. */
typedef mmt_status (*mmt_predict_measured_fn)(void *user, const mmt_family *fam, const mmt_problem *p,
                                              const char *params, double *gflops, mmt_err *err);

/* The trials of st on device dev of the family's current source (user: a mmt_predict_trials),
 * what libmmtuned reads. */
typedef struct mmt_predict_trials {
    mmt_store *st;
    const mmt_device_info *dev;
} mmt_predict_trials;
mmt_status mmt_predict_measured(void *trials, const mmt_family *fam, const mmt_problem *p, const char *params,
                                double *gflops, mmt_err *err);

/* Sets each record's transfer and reach (the calibration fields of mmt_paired_rec; 0 where
 * it cannot be measured: the configuration chosen for it never ran there) from the families
 * of its mode (fams[i] with its tuned entries lf[i]) on device dev, and what `measured` says
 * the configuration chosen ran at. */
mmt_status mmt_predict_calibrate(const mmt_device_info *dev, mmt_family *const *fams, const mmt_lookup_family *lf,
                                 int n_fams, mmt_predict_measured_fn measured, void *user, mmt_paired_rec *recs,
                                 size_t n, mmt_err *err);

/* The serving rule where the vendor library may serve p (row-major), the one libmmtuned
 * applies (api.c) and `mmtune replay --unseen` measures: the templates' choice for p (how:
 * EXACT for p's own tuned entry, NEAREST or DEFAULT; gflops: its recorded figure where it
 * races the vendor's tuned entry on speed, 0 where that entry serves whatever the figures)
 * against the vendor family. vendor_exact: the vendor family's tuned figure for p itself,
 * NULL where it has none. Returns MMT_CHOICE_EXACT where the vendor's tuned entry serves
 * (faster than gflops, or p has no exact entry), MMT_CHOICE_VENDOR where p has no tuned entry
 * and the templates' choice is a default or the prediction from recs (skip_self as for
 * mmt_predict) does not expect the neighbour's configuration to win, else MMT_CHOICE_NONE:
 * the templates' choice serves. *pr (may be NULL) gets the
 * prediction where one was made, else ratio 1 and no samples. */
mmt_choice mmt_predict_serve(mmt_choice how, double gflops, const double *vendor_exact, const mmt_paired_rec *recs,
                             size_t n, const mmt_problem *p, int skip_self, mmt_prediction *pr);

#endif
