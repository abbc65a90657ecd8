/* store_serving.h - what serving reads beside the bests, and what the vendor round writes
 * of the vendor family: each tuned problem's fastest template against the vendor library
 * timed side by side with it (what the prediction for untuned problems learns from), and a
 * family's best dropped where a later run no longer finds it. */
#ifndef MMT_STORE_SERVING_H
#define MMT_STORE_SERVING_H

#include "store.h"

/* A tuned problem: its fastest template family's best and the vendor's figure of the same
 * rounds (the baseline paired with that best's trial). */
typedef struct mmt_paired_rec {
    mmt_problem problem;
    double gflops;        /* the template's */
    double vendor_gflops; /* the vendor library's */
} mmt_paired_rec;

/* The paired records of a device's problems of a mode (every template family's bests but
 * the vendor's and the out-of-core knobs', of any source), in problem order. *out is
 * malloc'd (NULL with *n 0 where there are none). */
mmt_status mmt_store_paired_list(mmt_store *st, const char *fingerprint, mmt_mode mode, mmt_paired_rec **out,
                                 size_t *n, mmt_err *err);

/* Removes a family's best of a problem, if it has one (*dropped says whether it had). */
mmt_status mmt_store_best_drop(mmt_store *st, int64_t device_id, int64_t problem_id, const char *template_name,
                               int *dropped, mmt_err *err);

#endif
