/* demote.c - a tuned template the vendor beat in mmtune bench's rounds gives its problem to
 * the vendor (see demote.h). */
#include "demote.h"

#include <stdio.h>
#include <string.h>

#include "store.h"
#include "vendor.h"

static mmt_status demote_one(mmt_store *st, const mmt_backend *be, int64_t device_id, int64_t session_id,
                             const mmt_demotion *d, mmt_err *err)
{
    const mmt_problem np = mmt_problem_normalise(d->problem);
    /* the route the bench timed: cuBLAS's own call on a GPU; on the CPU every route is one */
    char params[96], message[400];
    if (!mmt_vendor_route_params(be, np.mode, strcmp(be->name, "cpu") ? MMT_VENDOR_CALL : MMT_VENDOR_PLAN, params,
                                 sizeof params))
        return MMT_OK; /* no routine of the vendor's for the mode: nothing it could serve */
    snprintf(message, sizeof message,
             "mmtune bench: timed side by side with the tuned template over %d rounds (A B B A ..., the same "
             "inputs): the template %.2fx the vendor, beyond noise; libmmtuned serves it",
             d->vendor.samples, d->vendor.median_ms / d->tuned.median_ms);
    int64_t problem_id, template_id, trial_id;
    mmt_trial_rec rec = {.session_id = session_id, .device_id = device_id, .status = MMT_TRIAL_OK,
                         .time_ms_median = d->vendor.median_ms, .time_ms_min = d->vendor.min_ms,
                         .time_ms_max = d->vendor.max_ms, .gflops = mmt_problem_flops(&np) / (d->vendor.median_ms * 1e6),
                         .rel_error = d->vendor_error > 0 ? d->vendor_error : -1, .reps = d->vendor.samples,
                         .message = message, .cpu_wait = -1};
    FORWARD_IF_ERROR(mmt_store_problem(st, &np, &problem_id, err));
    FORWARD_IF_ERROR(mmt_store_template(st, MMT_VENDOR_TEMPLATE, MMT_VENDOR_SOURCE_HASH, &template_id, err));
    FORWARD_IF_ERROR(mmt_store_config(st, template_id, params, &rec.config_id, err));
    rec.problem_id = problem_id;
    FORWARD_IF_ERROR(mmt_store_trial_add(st, &rec, &trial_id, err));
    FORWARD_IF_ERROR(mmt_store_best_set(st, trial_id, err));
    return mmt_store_best_partial(st, device_id, problem_id, MMT_VENDOR_TEMPLATE, 0, err); /* no search */
}

mmt_status mmt_cli_demote(const char *path, const mmt_backend *be, const mmt_device_info *dev, const mmt_demotion *d,
                          size_t n, mmt_err *err)
{
    if (n == 0) return MMT_OK;
    mmt_store *st = NULL;
    int64_t device_id, session_id = 0;
    mmt_status s = mmt_store_open(path, 0, &st, err);
    if (s == MMT_OK) s = mmt_store_device(st, dev, &device_id, err);
    if (s == MMT_OK) s = mmt_store_session_begin(st, device_id, "mmtune bench", "bench", NULL, &session_id, err);
    for (size_t i = 0; s == MMT_OK && i < n; i++) s = demote_one(st, be, device_id, session_id, &d[i], err);
    if (session_id) { /* a failure before keeps its message */
        const mmt_status e = mmt_store_session_end(st, session_id, s == MMT_OK ? "complete" : "failed",
                                                   s == MMT_OK ? err : NULL);
        if (s == MMT_OK) s = e;
    }
    mmt_store_close(st);
    return s;
}
