/* demote.h - mmtune bench's record of what it found: a tuned template the vendor beat in
 * its rounds (versus.h, mmt_versus_demotes) gives its problem to the vendor. */
#ifndef MMT_DEMOTE_H
#define MMT_DEMOTE_H

#include "bench.h"
#include "problem.h"

typedef struct mmt_demotion {
    const mmt_problem *problem;
    mmt_timing tuned, vendor; /* the bench's paired figures */
    double vendor_error;      /* the vendor's relative error on the bench's inputs */
} mmt_demotion;

/* Records each of the n demotions in the database at path as a vendor round records a
 * vendor that won: the vendor's figure a trial of the `vendor` family (the route the bench
 * timed), made its best, so libmmtuned serves the vendor for the problem until a tune's
 * vendor round finds a template the faster again. One session, command "mmtune bench". */
mmt_status mmt_cli_demote(const char *path, const mmt_backend *be, const mmt_device_info *dev, const mmt_demotion *d,
                          size_t n, mmt_err *err);

#endif
