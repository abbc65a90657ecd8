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
    double gflops;        /* the template's; no more than the vendor's where the vendor family
                           * has a best of the problem (it serves there) */
    double vendor_gflops; /* the vendor library's */
    /* the prediction's calibration (predict.h, mmt_predict_calibrate; 0: none): what the
     * configuration the lookup gives this problem from the other records delivered here,
     * over the ratio they predicted; and how far its nearest other record is */
    double transfer, reach;
} mmt_paired_rec;

/* The paired records of a device's problems of a mode (every template family's bests but
 * the vendor's and the out-of-core knobs', of any source), in problem order. *out is
 * malloc'd (NULL with *n 0 where there are none). */
mmt_status mmt_store_paired_list(mmt_store *st, const char *fingerprint, mmt_mode mode, mmt_paired_rec **out,
                                 size_t *n, mmt_err *err);

/* A best as the database recorded it, for measuring the serving rule on recorded data
 * (mmtune replay --unseen) and drawing problems nobody tuned (mmtune bench --unseen). */
typedef enum mmt_vendor_pairing {
    MMT_VENDOR_NONE = 0,  /* no vendor figure for the problem */
    MMT_VENDOR_PAIRED,    /* timed beside this best's trial, in the same rounds */
    MMT_VENDOR_ALONE,     /* timed alone (trial_id NULL: a version-4 database's, or an old import's) */
    MMT_VENDOR_OTHER,     /* timed beside another trial (a best that has moved since) */
} mmt_vendor_pairing;

typedef struct mmt_recorded_best {
    mmt_best_rec best;       /* the problem as stored, the configuration, the best's GFLOP/s */
    char template_name[64];  /* a template family's, MMT_VENDOR_TEMPLATE or 'ooc' */
    char source_hash[65];    /* of the template source it was measured with */
    double vendor_gflops;    /* the vendor library's figure for the problem; 0: none */
    mmt_vendor_pairing pairing;
} mmt_recorded_best;

/* Every best of a device's problems of a mode (every family's, whatever its source hash,
 * the vendor family's and the out-of-core knobs' too), each with the vendor library's
 * figure for its problem: the one timed beside this best's trial, else one timed alone,
 * else one timed beside another trial; in problem order, then by template name. *out is
 * malloc'd (NULL with *n 0 where there are none). */
mmt_status mmt_store_recorded_bests(mmt_store *st, const char *fingerprint, mmt_mode mode, mmt_recorded_best **out,
                                    size_t *n, mmt_err *err);

/* Removes a family's best of a problem, if it has one (*dropped says whether it had). */
mmt_status mmt_store_best_drop(mmt_store *st, int64_t device_id, int64_t problem_id, const char *template_name,
                               int *dropped, mmt_err *err);

#endif
