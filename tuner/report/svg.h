/* svg.h - the pieces of mmtune report's charts: inline SVG written to a stream, text
 * escaped for XML (the page is well-formed XML as well as HTML), and scales that map
 * values to pixels with round ticks (linear, or logarithmic by decades). */
#ifndef MMT_SVG_H
#define MMT_SVG_H

#include <stdio.h>

/* Text with & < > " ' escaped, for element content and attribute values alike. */
void mmt_xml_text(FILE *f, const char *text);

typedef struct mmt_scale {
    double lo, hi;       /* the values at the two ends, widened to round ones */
    double px_lo, px_hi; /* where they are drawn */
    double step;         /* between linear ticks */
    int log;             /* log10 */
    int bare;            /* no ticks or grid: the chart labels its own categories */
} mmt_scale;

/* A scale over [lo, hi], widened to round ends (1, 2 or 5 times a power of ten; whole
 * decades on a log scale, which needs lo > 0); a span of nothing is widened to something. */
mmt_scale mmt_scale_make(double lo, double hi, int log, double px_lo, double px_hi);
double mmt_scale_px(const mmt_scale *s, double v);
/* Round values within the scale, at most max of them; returns how many. */
int mmt_scale_ticks(const mmt_scale *s, double *ticks, int max);
/* A tick's label: "0.0005", "200", "1e+06". */
void mmt_tick_label(double v, char *buf, size_t size);

/* <svg> with its size and a title (what a screen reader says), and </svg>. */
void mmt_svg_open(FILE *f, int width, int height, const char *title);
void mmt_svg_close(FILE *f);
/* Escaped text at (x, y); anchor start, middle or end; cls a CSS class or NULL. */
void mmt_svg_text(FILE *f, double x, double y, const char *anchor, const char *cls, const char *text);
/* The frame of a chart: grid lines and labelled ticks of both scales, the axes' titles. */
void mmt_svg_axes(FILE *f, const mmt_scale *x, const mmt_scale *y, const char *x_title, const char *y_title);

#endif
