/* report_charts.h - the charts of mmtune report: inline SVG drawn from one device's data
 * (report_data.h). Colours and fonts come from the page's CSS classes. */
#ifndef MMT_REPORT_CHARTS_H
#define MMT_REPORT_CHARTS_H

#include <stdio.h>

#include "peaks.h"
#include "report_data.h"

/* The roofline's ceilings per mode the device has results of: the peak its record gives
 * (peaks.h), and what was attained (the fastest figure on record), which stands in where
 * the record gives no peak; the bandwidth its record gives (0: none, and no slope is
 * drawn; attained_gbs, the most bytes per second a GEMM moved at its least traffic, is
 * only a lower bound, which GEMMs, compute-bound, put far below the memory's). */
typedef struct mmt_roofs {
    int present[MMT_N_MODES];
    mmt_peak flops[MMT_N_MODES];
    double attained_gflops[MMT_N_MODES];
    mmt_peak bandwidth;
    double attained_gbs;
} mmt_roofs;

void mmt_roofs_of(const mmt_rd_device *d, mmt_roofs *r);

/* Per problem (its chosen family's best): ours and the vendor's GFLOP/s, the ratio only
 * where the two were timed side by side. */
void mmt_chart_versus(FILE *f, const mmt_rd_device *d);
/* Each problem's best and vendor figure at its arithmetic intensity, under the ceilings
 * (the slope only where the bandwidth is known). */
void mmt_chart_roofline(FILE *f, const mmt_rd_device *d, const mmt_roofs *r);
/* Every configuration the problem's search measured, fastest first: its GFLOP/s. */
void mmt_chart_spread(FILE *f, const mmt_rd_problem *p);
/* Per family and knob, the median (bar) and fastest (tick) time of the configurations with
 * each value: a <div> of small charts, and the knobs that had one value. */
void mmt_chart_knobs(FILE *f, const mmt_rd_problem *p);
/* Per session, the trials recorded against the seconds since it began (the latest 8). */
void mmt_chart_sessions(FILE *f, const mmt_rd_device *d);
/* Per problem, the time its tuning took (first trial to last, per session). */
void mmt_chart_tuning_time(FILE *f, const mmt_rd_device *d);

#endif
