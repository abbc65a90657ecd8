/* demote.c - a tuned template the vendor beat in mmtune bench's rounds gives its problem to
 * the vendor (see demote.h). */
#include "demote.h"

#include <math.h>
#include <stdio.h>

#include "store.h"
#include "vendor.h"
#include "versus.h"

static mmt_status demote_one(mmt_store *st, const mmt_backend *be, int64_t device_id, int64_t session_id,
                             const mmt_demotion *d, mmt_err *err)
{
    const mmt_problem np = mmt_problem_normalise(d->problem);
    char params[96], how[300];
    if (!mmt_vendor_route_params(be, np.mode, MMT_VENDOR_CALL, params, sizeof params)) /* the route the bench timed */
        return MMT_OK; /* no routine of the vendor's for the mode: nothing it could serve */
    snprintf(how, sizeof how,
             "timed side by side with the tuned template over %d rounds (A B B A ..., the same inputs): the template "
             "%.2fx the vendor, beyond noise; libmmtuned serves it",
             d->vendor.samples, d->vendor.median_ms / d->tuned.median_ms);
    const mmt_measure r = {.status = MMT_TRIAL_OK, .rel_error = d->vendor_error > 0 ? d->vendor_error : NAN,
                           .timing = d->vendor, .cpu_wait = -1};
    mmt_versus_to to = {st, session_id, device_id, 0, &np};
    FORWARD_IF_ERROR(mmt_store_problem(st, &np, &to.problem_id, err));
    return mmt_versus_record_vendor(&to, params, &r, "mmtune bench", how, err);
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
