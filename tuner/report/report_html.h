/* report_html.h - mmtune report: one self-contained HTML page of a database's results (no
 * network, no other file: inline CSS, inline SVG, a few lines of script for the problem
 * selector). Per device: the tuned figures against the vendor's (a ratio only where the two
 * were timed side by side), a roofline under the device's ceilings (each one saying where
 * it comes from), the tuning time and what the database records of the pipeline (sessions,
 * trial time stamps), and per problem every configuration its search measured and how
 * each knob moves the time. The page is well-formed XML as well as HTML. */
#ifndef MMT_REPORT_HTML_H
#define MMT_REPORT_HTML_H

#include <stdio.h>

#include "store.h"

typedef struct mmt_report_options {
    const char *database;            /* the path the page names */
    const char *device;              /* the devices of this name only; NULL: every device */
    const mmt_device_info *host_cpu; /* this host's CPU, whose memory bandwidth the page measures
                                      * (no record has a CPU's); NULL: none */
} mmt_report_options;

typedef struct mmt_report_summary {
    size_t devices, problems, trials;
} mmt_report_summary;

mmt_status mmt_report_html(mmt_store *st, const mmt_report_options *o, FILE *f, mmt_report_summary *summary,
                           mmt_err *err);

#endif
