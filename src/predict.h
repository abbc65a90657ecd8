/* predict.h - what serves a problem nobody tuned: a template (the nearest tuned problem's
 * configuration, or the default) or the vendor library. The prediction reads the device's
 * tuned problems of the same kind (mode, types, transposes), each with its fastest template's
 * figure and the vendor's timed side by side (store_serving.h): the ratio of the two, averaged
 * in log space with weights that fall off with the distance in log M, log N, log K (a
 * Gaussian kernel of width PREDICT_WIDTH). A template serves only where the neighbours say it
 * beats the vendor by a margin, on enough evidence; everywhere else, and with no evidence at
 * all, the vendor does: the configuration a neighbour tuned runs at its best on its own
 * shape, not on this one, so the margin covers that loss (measured: mmtune replay --unseen).
 * Deterministic, derived from the database alone, and a pass over the records per first call
 * of a shape. */
#ifndef MMT_PREDICT_H
#define MMT_PREDICT_H

#include <stddef.h>

#include "store_serving.h"

#define MMT_PREDICT_WIDTH 0.5     /* the kernel's width in natural log units (a factor of 1.65) */
#define MMT_PREDICT_MARGIN 1.05   /* the template's predicted ratio to the vendor must clear it */
#define MMT_PREDICT_EVIDENCE 0.5  /* ... on kernel weights summing to at least this */

typedef struct mmt_prediction {
    double ratio;      /* the template's expected figure over the vendor's (1 where nothing is known) */
    double evidence;   /* the sum of the kernel weights */
    int template_wins; /* ratio >= MMT_PREDICT_MARGIN on evidence >= MMT_PREDICT_EVIDENCE */
} mmt_prediction;

/* The prediction for problem p (row-major) from recs, those of another kind passed over, and
 * p itself too where skip_self (leave one out). */
mmt_prediction mmt_predict(const mmt_paired_rec *recs, size_t n, const mmt_problem *p, int skip_self);

/* The serving rule where the vendor library may serve p (row-major), the one libmmtuned
 * applies (api.c) and `mmtune replay --unseen` measures: the templates' choice for p (how:
 * EXACT for p's own tuned entry, NEAREST or DEFAULT; gflops: its recorded figure where it
 * races the vendor's tuned entry on speed, 0 where that entry serves whatever the figures)
 * against the vendor family. vendor_exact: the vendor family's tuned figure for p itself,
 * NULL where it has none. Returns MMT_CHOICE_EXACT where the vendor's tuned entry serves
 * (faster than gflops, or p has no exact entry), MMT_CHOICE_VENDOR where p has no tuned entry
 * and the prediction from recs (skip_self as for mmt_predict) does not expect a template to
 * win, else MMT_CHOICE_NONE: the templates' choice serves. *pr (may be NULL) gets the
 * prediction where one was made, else ratio 1, evidence 0. */
mmt_choice mmt_predict_serve(mmt_choice how, double gflops, const double *vendor_exact, const mmt_paired_rec *recs,
                             size_t n, const mmt_problem *p, int skip_self, mmt_prediction *pr);

#endif
