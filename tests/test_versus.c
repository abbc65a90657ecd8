/* test_versus.c - the vendor round's rule for when libmmtuned serves the vendor
 * (tuner/tune/versus.c, mmt_versus_vendor_serves): faster (its median below the winner's, within
 * noise too), else more accurate (the winner's error above 1.1x the vendor's on the same
 * inputs); on the CPU, faster with the two calls alternating in one process; a template that
 * is as fast and as accurate keeps the problem, and an error that is not known decides
 * nothing; on a GPU, faster with the GPU below its power limit. And mmtune bench's rule
 * (mmt_versus_demotes) for a tuned template a later run finds the slower. */
#include <math.h>

#include "check.h"
#include "versus.h"

static mmt_timing timing(double lo, double median, double hi)
{
    return (mmt_timing){.median_ms = median, .min_ms = lo, .max_ms = hi, .lo_ms = lo, .hi_ms = hi, .level = 0.95,
                        .samples = 20};
}

int main(void)
{
    const mmt_timing slow = timing(1.9, 2.0, 2.1), fast = timing(0.9, 1.0, 1.1), near = timing(0.95, 1.02, 1.1);
    /* speed: the lower median, within noise too (a template must not be the slower) */
    CHECK_EQ_INT(mmt_versus_vendor_serves(&slow, 1e-7, &fast, 1e-7, NULL, NULL), MMT_VENDOR_FASTER);
    CHECK_EQ_INT(mmt_versus_vendor_serves(&fast, 1e-7, &slow, 1e-7, NULL, NULL), MMT_VENDOR_NOT);
    CHECK_EQ_INT(mmt_versus_vendor_serves(&near, 1e-7, &fast, 1e-7, NULL, NULL), MMT_VENDOR_FASTER);
    CHECK_EQ_INT(mmt_versus_vendor_serves(&fast, 1e-7, &near, 1e-7, NULL, NULL), MMT_VENDOR_NOT);
    /* a tie keeps the template */
    CHECK_EQ_INT(mmt_versus_vendor_serves(&fast, 1e-7, &fast, 1e-7, NULL, NULL), MMT_VENDOR_NOT);
    /* accuracy: a faster winner whose error is above 1.1x the vendor's leaves it to the vendor */
    CHECK_EQ_INT(mmt_versus_vendor_serves(&fast, 2.3e-7, &slow, 2e-7, NULL, NULL), MMT_VENDOR_MORE_ACCURATE);
    CHECK_EQ_INT(mmt_versus_vendor_serves(&fast, 2.19e-7, &slow, 2e-7, NULL, NULL), MMT_VENDOR_NOT);
    /* the winner more accurate: fine */
    CHECK_EQ_INT(mmt_versus_vendor_serves(&fast, 1e-9, &slow, 2e-7, NULL, NULL), MMT_VENDOR_NOT);
    /* faster and more accurate: speed is the reason given */
    CHECK_EQ_INT(mmt_versus_vendor_serves(&slow, 5e-7, &fast, 2e-7, NULL, NULL), MMT_VENDOR_FASTER);
    /* an error not known (0, negative, NaN) on either side decides nothing */
    CHECK_EQ_INT(mmt_versus_vendor_serves(&fast, 5e-7, &slow, 0, NULL, NULL), MMT_VENDOR_NOT);
    CHECK_EQ_INT(mmt_versus_vendor_serves(&fast, NAN, &slow, 2e-7, NULL, NULL), MMT_VENDOR_NOT);
    CHECK_EQ_INT(mmt_versus_vendor_serves(&fast, 5e-7, &slow, NAN, NULL, NULL), MMT_VENDOR_NOT);
    CHECK_EQ_INT(mmt_versus_vendor_serves(&fast, -1, &slow, 2e-7, NULL, NULL), MMT_VENDOR_NOT);
    /* on the CPU, the two calls alternating in one process: the vendor clearly the faster
     * there (below 0.9x the template's time) serves, however the two timed apart; within
     * that margin (0.91x), or beside figures not measured (0 rounds), the rule above */
    const mmt_beside lost = {41, 0.0535, 0.0899, 0.0554, 0.0670}, held = {41, 0.05, 0.06, 0.055, 0.0545},
                     none = {0, 0, 0, 0, 0};
    CHECK_EQ_INT(mmt_versus_vendor_serves(&fast, 1e-7, &near, 1e-7, &lost, NULL), MMT_VENDOR_FASTER_BESIDE);
    CHECK_EQ_INT(mmt_versus_vendor_serves(&fast, 1e-7, &near, 1e-7, &held, NULL), MMT_VENDOR_NOT);
    CHECK_EQ_INT(mmt_versus_vendor_serves(&fast, 1e-7, &near, 1e-7, &none, NULL), MMT_VENDOR_NOT);
    const mmt_beside edge = {41, 0.05, 0.06, 0.055, 0.0535}; /* 0.89x the template's: clearly faster */
    CHECK_EQ_INT(mmt_versus_vendor_serves(&fast, 1e-7, &near, 1e-7, &edge, NULL), MMT_VENDOR_FASTER_BESIDE);
    CHECK_EQ_INT(mmt_versus_vendor_serves(&slow, 1e-7, &fast, 1e-7, &held, NULL), MMT_VENDOR_FASTER); /* apart first */
    CHECK_EQ_INT(mmt_versus_vendor_serves(&fast, 2.3e-7, &slow, 2e-7, &lost, NULL), MMT_VENDOR_FASTER_BESIDE);
    /* on a GPU, the two again below the power limit: the vendor's median the lower there
     * serves, however the rounds at the limit went; a tie there, or not measured, the rule above */
    const mmt_cool burst_lost = {10, 0.1810, 0.1790}, burst_tie = {10, 0.18, 0.18}, burst_none = {0, 0, 0};
    CHECK_EQ_INT(mmt_versus_vendor_serves(&fast, 1e-7, &near, 1e-7, NULL, &burst_lost), MMT_VENDOR_FASTER_COOL);
    CHECK_EQ_INT(mmt_versus_vendor_serves(&fast, 1e-7, &near, 1e-7, NULL, &burst_tie), MMT_VENDOR_NOT);
    CHECK_EQ_INT(mmt_versus_vendor_serves(&fast, 1e-7, &near, 1e-7, NULL, &burst_none), MMT_VENDOR_NOT);
    CHECK_EQ_INT(mmt_versus_vendor_serves(&slow, 1e-7, &fast, 1e-7, NULL, &burst_tie), MMT_VENDOR_FASTER);
    /* a later run's bench: the vendor beyond noise the faster (0.85x: its interval apart),
     * or clearly by the medians (0.85x with intervals that overlap), takes the problem;
     * within 0.98x, 0.96x with intervals that overlap, or a figure not timed, not */
    const mmt_timing tuned = timing(0.1289, 0.1315, 0.1333), beat = timing(0.1110, 0.1124, 0.1140),
                     tie = timing(0.1270, 0.1290, 0.1300), wide = timing(0.1100, 0.1124, 0.1295),
                     close_by = timing(0.1230, 0.1262, 0.1300), untimed = {0};
    CHECK(mmt_versus_demotes(&tuned, &beat));
    CHECK(!mmt_versus_demotes(&tuned, &tie));
    CHECK(mmt_versus_demotes(&tuned, &wide));
    CHECK(!mmt_versus_demotes(&tuned, &close_by));
    CHECK(!mmt_versus_demotes(&beat, &tuned));
    CHECK(!mmt_versus_demotes(&tuned, &untimed));
    CHECK(!mmt_versus_demotes(&untimed, &beat));
    return check_result();
}
