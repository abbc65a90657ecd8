/* report_charts.c - the report's charts (see report_charts.h). */
#include "report_charts.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "svg.h"

enum { WIDE = 820, LABEL_W = 210, NOTE_W = 190, BAND = 26 };

/* ---- horizontal bars: a row per problem ------------------------------------------------ */

typedef struct hbar {
    char label[128], note[96], tip[256];
    double a, b; /* b < 0: one bar */
} hbar;

static void hbars(FILE *f, const char *title, const char *x_title, const hbar *rows, size_t n, const char *cls_a,
                  const char *cls_b)
{
    double top = 10, height = top + BAND * (double)n + 44, hi = 0;
    for (size_t i = 0; i < n; i++) hi = fmax(hi, fmax(rows[i].a, rows[i].b));
    mmt_scale x = mmt_scale_make(0, hi > 0 ? hi : 1, 0, LABEL_W, WIDE - NOTE_W);
    mmt_scale rows_scale = {.lo = 0, .hi = (double)n, .px_lo = height - 44, .px_hi = top, .bare = 1};
    mmt_svg_open(f, WIDE, (int)height, title);
    mmt_svg_axes(f, &x, &rows_scale, x_title, NULL);
    for (size_t i = 0; i < n; i++) {
        const hbar *r = &rows[i];
        double y0 = top + BAND * (double)i + 3, two = r->b >= 0, h = two ? 9 : 14;
        fprintf(f, "<g><title>");
        mmt_xml_text(f, r->tip);
        fprintf(f, "</title>\n");
        fprintf(f, "<rect class=\"%s\" x=\"%d\" y=\"%.1f\" width=\"%.1f\" height=\"%.0f\"/>\n", cls_a, LABEL_W, y0,
                mmt_scale_px(&x, r->a) - LABEL_W, h);
        if (two)
            fprintf(f, "<rect class=\"%s\" x=\"%d\" y=\"%.1f\" width=\"%.1f\" height=\"%.0f\"/>\n", cls_b, LABEL_W,
                    y0 + h + 1, mmt_scale_px(&x, r->b) - LABEL_W, h);
        fprintf(f, "</g>\n");
        mmt_svg_text(f, LABEL_W - 6, y0 + 12, "end", "label", r->label);
        mmt_svg_text(f, WIDE - NOTE_W + 8, y0 + 12, "start", "note", r->note);
    }
    mmt_svg_close(f);
}

void mmt_chart_versus(FILE *f, const mmt_rd_device *d)
{
    hbar *rows = calloc(d->n_problems ? d->n_problems : 1, sizeof *rows);
    size_t n = 0;
    for (size_t i = 0; rows && i < d->n_problems; i++) {
        const mmt_rd_best *b = d->problems[i].best;
        if (!b) continue;
        hbar *r = &rows[n++];
        mmt_problem_format(&b->problem, r->label, sizeof r->label);
        r->a = b->gflops;
        r->b = b->vendor ? b->vendor_gflops : -1;
        if (b->vendor)
            snprintf(r->note, sizeof r->note, "%.2fx%s", b->gflops / b->vendor_gflops, b->partial ? " (partial)" : "");
        else
            snprintf(r->note, sizeof r->note, "%s%s",
                     b->vendor_unpaired ? "vendor not timed beside it" : "no vendor figure", b->partial ? " (partial)" : "");
        snprintf(r->tip, sizeof r->tip, "%s: %.1f GFLOP/s (%s %s)%s%s%s", r->label, b->gflops, b->template_name,
                 b->params, b->vendor ? "; " : "", b->vendor ? b->vendor : "", b->vendor ? " beside it" : "");
    }
    if (rows && n) hbars(f, "tuned and vendor GFLOP/s per problem", "GFLOP/s", rows, n, "ours", "vendor");
    free(rows);
}

void mmt_chart_tuning_time(FILE *f, const mmt_rd_device *d)
{
    hbar *rows = calloc(d->n_problems ? d->n_problems : 1, sizeof *rows);
    for (size_t i = 0; rows && i < d->n_problems; i++) {
        const mmt_rd_problem *p = &d->problems[i];
        hbar *r = &rows[i];
        mmt_problem_format(&p->problem, r->label, sizeof r->label);
        r->a = p->tuning_s;
        r->b = -1;
        if (p->tuning_s < 1) snprintf(r->note, sizeof r->note, "< 1 s, %zu trials", p->trials);
        else snprintf(r->note, sizeof r->note, "%.0f s, %zu trials", p->tuning_s, p->trials);
        snprintf(r->tip, sizeof r->tip, "%s: %zu trials, %zu configurations measured", r->label, p->trials,
                 p->n_configs);
    }
    if (rows && d->n_problems)
        hbars(f, "tuning time per problem", "seconds (first trial to last, per session; the database keeps seconds)",
              rows, d->n_problems, "time", NULL);
    free(rows);
}

/* ---- the roofline ---------------------------------------------------------------------- */

static double intensity(const mmt_problem *p) { return mmt_problem_flops(p) / mmt_problem_min_bytes(p); }

void mmt_roofs_of(const mmt_rd_device *d, mmt_roofs *r)
{
    memset(r, 0, sizeof *r);
    for (size_t i = 0; i < d->n_problems; i++) {
        const mmt_rd_problem *p = &d->problems[i];
        mmt_mode m = p->problem.mode;
        double fastest = p->n_ok ? p->configs[0].gflops : 0;
        if (p->best) fastest = fmax(fastest, fmax(p->best->gflops, p->best->vendor ? p->best->vendor_gflops : 0));
        if (fastest <= 0) continue;
        r->present[m] = 1;
        r->attained_gflops[m] = fmax(r->attained_gflops[m], fastest);
        /* GFLOP/s over FLOP per byte: GB/s at the least traffic */
        r->attained_gbs = fmax(r->attained_gbs, fastest / intensity(&p->problem));
    }
    for (int m = 0; m < MMT_N_MODES; m++)
        if (r->present[m]) r->flops[m] = mmt_peak_flops(&d->dev.info, (mmt_mode)m);
    r->bandwidth = mmt_peak_bandwidth(&d->dev.info);
}

static void point(FILE *f, const mmt_scale *x, const mmt_scale *y, double i, double g, const char *cls, const char *tip)
{
    fprintf(f, "<circle class=\"%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\"><title>", cls, mmt_scale_px(x, i),
            mmt_scale_px(y, g));
    mmt_xml_text(f, tip);
    fprintf(f, "</title></circle>\n");
}

void mmt_chart_roofline(FILE *f, const mmt_rd_device *d, const mmt_roofs *r)
{
    double bw = r->bandwidth.value, ilo = INFINITY, ihi = 0, glo = INFINITY, ghi = 0;
    for (size_t i = 0; i < d->n_problems; i++) {
        const mmt_rd_best *b = d->problems[i].best;
        if (!b) continue;
        double in = intensity(&b->problem);
        ilo = fmin(ilo, in), ihi = fmax(ihi, in);
        glo = fmin(glo, b->vendor ? fmin(b->gflops, b->vendor_gflops) : b->gflops);
    }
    if (!(ihi > 0)) return;
    for (int m = 0; m < MMT_N_MODES; m++)
        if (r->present[m]) {
            double peak = r->flops[m].value > 0 ? r->flops[m].value : r->attained_gflops[m];
            ghi = fmax(ghi, peak);
            if (bw > 0) ihi = fmax(ihi, peak / bw); /* the ridge point in view */
        }
    const int height = 440, left = 80, right = WIDE - 170, top = 16, bottom = height - 48;
    mmt_scale x = mmt_scale_make(ilo / 2, ihi * 2, 1, left, right);
    mmt_scale y = mmt_scale_make(glo / 2, ghi * 1.5, 1, bottom, top);
    mmt_svg_open(f, WIDE, height, "roofline: GFLOP/s against arithmetic intensity, under the device's ceilings");
    mmt_svg_axes(f, &x, &y, "arithmetic intensity (FLOP per byte: 2mnk / bytes of A, B and C once)", "GFLOP/s");
    for (int m = 0; m < MMT_N_MODES; m++) {
        if (!r->present[m]) continue;
        double peak = r->flops[m].value > 0 ? r->flops[m].value : r->attained_gflops[m];
        /* bandwidth-bound up to the ridge, then flat, clipped to the frame; flat alone
         * where the bandwidth is not known */
        double x0 = bw > 0 ? fmax(x.lo, y.lo / bw) : x.lo, ridge = bw > 0 ? fmax(peak / bw, x0) : x.lo;
        fprintf(f, "<path class=\"roof mode%d%s\" d=\"M%.1f %.1fL%.1f %.1fH%.1f\"/>\n", m,
                r->flops[m].value > 0 ? "" : " attained", mmt_scale_px(&x, x0),
                mmt_scale_px(&y, bw > 0 ? bw * x0 : peak), mmt_scale_px(&x, ridge), mmt_scale_px(&y, peak),
                mmt_scale_px(&x, x.hi));
        char label[96];
        snprintf(label, sizeof label, "%s %s %.0f GFLOP/s", mmt_mode_name((mmt_mode)m),
                 r->flops[m].value > 0 ? "peak" : "attained", peak);
        mmt_svg_text(f, right + 6, mmt_scale_px(&y, peak) + 4, "start", "label", label);
    }
    char tip[320], name[128];
    for (size_t i = 0; i < d->n_problems; i++) {
        const mmt_rd_best *b = d->problems[i].best;
        if (!b) continue;
        mmt_problem_format(&b->problem, name, sizeof name);
        double in = intensity(&b->problem);
        if (b->vendor) {
            snprintf(tip, sizeof tip, "%s: %s %.1f GFLOP/s", name, b->vendor, b->vendor_gflops);
            point(f, &x, &y, in, b->vendor_gflops, "vendor", tip);
        }
        snprintf(tip, sizeof tip, "%s: tuned %.1f GFLOP/s at %.1f FLOP/byte", name, b->gflops, in);
        point(f, &x, &y, in, b->gflops, "ours", tip);
    }
    mmt_svg_close(f);
}

/* ---- one problem: the spread of its configurations, and its knobs ---------------------- */

/* A configuration's family as an index for its colour: the families in the order of their
 * fastest configuration (families holds the template ids seen so far, at most max). */
static int family_index(int64_t template_id, int64_t *families, int *n, int max)
{
    for (int i = 0; i < *n; i++)
        if (families[i] == template_id) return i;
    if (*n < max) families[(*n)++] = template_id;
    return *n - 1;
}

static int is_winner(const mmt_rd_problem *p, const mmt_rd_config *c)
{
    return p->best && strcmp(p->best->template_name, c->template_name) == 0 && strcmp(p->best->params, c->params) == 0;
}

void mmt_chart_spread(FILE *f, const mmt_rd_problem *p)
{
    if (!p->n_ok) return;
    double hi = p->configs[0].gflops;
    if (p->best) hi = fmax(hi, fmax(p->best->gflops, p->best->vendor ? p->best->vendor_gflops : 0));
    const int height = 280, left = 70, right = WIDE - 20, top = 14, bottom = height - 46;
    mmt_scale x = mmt_scale_make(1, (double)p->n_ok + 1, 0, left, right);
    mmt_scale y = mmt_scale_make(0, hi, 0, bottom, top);
    mmt_svg_open(f, WIDE, height, "every configuration measured, fastest first");
    mmt_svg_axes(f, &x, &y, "configurations measured, fastest first (rank)", "GFLOP/s");
    if (p->best && p->best->vendor) {
        double py = mmt_scale_px(&y, p->best->vendor_gflops);
        fprintf(f, "<line class=\"vendorline\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>\n", left, py, right, py);
        char label[160];
        snprintf(label, sizeof label, "%s %.1f (timed beside the best)", p->best->vendor, p->best->vendor_gflops);
        mmt_svg_text(f, right - 4, py - 5, "end", "label", label);
    }
    char tip[768];
    int64_t families[6];
    int n_families = 0;
    for (size_t i = 0; i < p->n_ok; i++) {
        const mmt_rd_config *c = &p->configs[i];
        int win = is_winner(p, c);
        snprintf(tip, sizeof tip, "#%zu %s %s: %.1f GFLOP/s, %.4g ms%s", i + 1, c->template_name, c->params, c->gflops,
                 c->time_ms, win ? " (the best)" : "");
        fprintf(f, "<circle class=\"fam%d%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"%d\"><title>",
                family_index(c->template_id, families, &n_families, 6),
                win ? " win" : "", mmt_scale_px(&x, (double)i + 1), mmt_scale_px(&y, c->gflops), win ? 6 : 3);
        mmt_xml_text(f, tip);
        fputs("</title></circle>\n", f);
    }
    for (int i = 0; i < n_families; i++) /* the families' colours, where more than one competed */
        for (size_t c = 0; n_families > 1 && c < p->n_ok; c++)
            if (p->configs[c].template_id == families[i]) {
                char cls[32];
                snprintf(cls, sizeof cls, "label fam%d", i);
                mmt_svg_text(f, right - 4, top + 14 + 14 * i, "end", cls, p->configs[c].template_name);
                break;
            }
    mmt_svg_close(f);
}

/* The value of knob name in params text "A=1,B=2" into buf; 0 found. */
static int knob_value(const char *params, const char *name, char *buf, size_t size)
{
    size_t len = strlen(name);
    for (const char *q = params; q && *q; q = strchr(q, ',') ? strchr(q, ',') + 1 : NULL)
        if (strncmp(q, name, len) == 0 && q[len] == '=') {
            size_t n = strcspn(q + len + 1, ",");
            snprintf(buf, size, "%.*s", (int)(n < size ? n : size - 1), q + len + 1);
            return 0;
        }
    return -1;
}

static int by_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef struct knob_value_stats {
    char value[32];
    double median, fastest;
    size_t n;
} knob_value_stats;

/* Values that read as numbers sort as numbers, the others as text. */
static int by_value(const void *a, const void *b)
{
    const char *x = ((const knob_value_stats *)a)->value, *y = ((const knob_value_stats *)b)->value;
    char *ex, *ey;
    double dx = strtod(x, &ex), dy = strtod(y, &ey);
    if (!*ex && !*ey && *x && *y) return dx < dy ? -1 : dx > dy;
    return strcmp(x, y);
}

/* One knob of one family: the distinct values and their configurations' times. Returns
 * how many values (0: out of memory). */
static size_t knob_stats(const mmt_rd_problem *p, int64_t template_id, const char *knob, knob_value_stats *out,
                         size_t max)
{
    size_t n = 0;
    double *times = malloc(p->n_ok * sizeof *times);
    if (!times) return 0;
    char value[32];
    for (size_t i = 0; i < p->n_ok; i++) {
        const mmt_rd_config *c = &p->configs[i];
        if (c->template_id != template_id || knob_value(c->params, knob, value, sizeof value)) continue;
        size_t v = 0;
        while (v < n && strcmp(out[v].value, value) != 0) v++;
        if (v == n && n < max) out[n++] = (knob_value_stats){.fastest = c->time_ms};
        if (v == n) continue; /* past max values: not drawn */
        snprintf(out[v].value, sizeof out[v].value, "%s", value);
        out[v].n++;
    }
    for (size_t v = 0; v < n; v++) { /* configurations are fastest first: the first is the fastest */
        size_t m = 0;
        for (size_t i = 0; i < p->n_ok; i++)
            if (p->configs[i].template_id == template_id && !knob_value(p->configs[i].params, knob, value, sizeof value) &&
                strcmp(value, out[v].value) == 0)
                times[m++] = p->configs[i].time_ms;
        qsort(times, m, sizeof *times, by_double);
        out[v].fastest = times[0];
        out[v].median = m % 2 ? times[m / 2] : (times[m / 2 - 1] + times[m / 2]) / 2;
    }
    free(times);
    qsort(out, n, sizeof *out, by_value);
    return n;
}

static void knob_chart(FILE *f, const char *family, const char *knob, const knob_value_stats *v, size_t n)
{
    const int width = 250, height = 170, left = 56, right = width - 8, top = 22, bottom = height - 36;
    double hi = 0;
    for (size_t i = 0; i < n; i++) hi = fmax(hi, v[i].median);
    mmt_scale y = mmt_scale_make(0, hi, 0, bottom, top);
    mmt_scale band = {.lo = 0, .hi = (double)n, .px_lo = left, .px_hi = right, .bare = 1};
    char title[160];
    snprintf(title, sizeof title, "%s: %s", family, knob);
    mmt_svg_open(f, width, height, title);
    mmt_svg_axes(f, &band, &y, NULL, "ms");
    mmt_svg_text(f, (left + right) / 2.0, 14, "middle", "knob", knob);
    double w = (right - left) / (double)n;
    for (size_t i = 0; i < n; i++) {
        double x0 = left + w * (double)i, py = mmt_scale_px(&y, v[i].median), pf = mmt_scale_px(&y, v[i].fastest);
        fprintf(f, "<g><title>%s=", knob);
        mmt_xml_text(f, v[i].value);
        fprintf(f, ": %zu configurations, median %.4g ms, fastest %.4g ms</title>\n", v[i].n, v[i].median,
                v[i].fastest);
        fprintf(f, "<rect class=\"knobbar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>\n", x0 + w * 0.15, py,
                w * 0.7, bottom - py);
        fprintf(f, "<line class=\"fastest\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/></g>\n", x0 + w * 0.1, pf,
                x0 + w * 0.9, pf);
        mmt_svg_text(f, x0 + w / 2, bottom + 14, "middle", n > 8 ? "tick small" : "tick", v[i].value);
    }
    mmt_svg_close(f);
}

void mmt_chart_knobs(FILE *f, const mmt_rd_problem *p)
{
    enum { MAX_VALUES = 24 };
    knob_value_stats v[MAX_VALUES];
    for (size_t first = 0; first < p->n_ok; first++) {
        const mmt_rd_config *c = &p->configs[first];
        int seen = 0; /* each family once, at its fastest configuration */
        for (size_t j = 0; j < first && !seen; j++) seen = p->configs[j].template_id == c->template_id;
        if (seen) continue;
        fputs("<div class=\"knobs\">\n", f);
        char fixed[1024] = "", knob[48];
        size_t nf = 0;
        for (const char *q = c->params; q && *q; q = strchr(q, ',') ? strchr(q, ',') + 1 : NULL) {
            size_t len = strcspn(q, "=,");
            snprintf(knob, sizeof knob, "%.*s", (int)(len < sizeof knob ? len : sizeof knob - 1), q);
            size_t n = knob_stats(p, c->template_id, knob, v, MAX_VALUES);
            if (n >= 2) knob_chart(f, c->template_name, knob, v, n);
            else if (n == 1 && nf < sizeof fixed - 1)
                nf += (size_t)snprintf(fixed + nf, sizeof fixed - nf, "%s%s=%s", nf ? ", " : "", knob, v[0].value);
        }
        fputs("</div>\n", f);
        fprintf(f, "<p class=\"caption\">");
        mmt_xml_text(f, c->template_name);
        fprintf(f, ": per knob, the median time (bar) and the fastest (line) of the configurations measured with "
                   "each value; lower is faster.");
        if (nf) {
            fputs(" One value measured: ", f);
            mmt_xml_text(f, fixed);
            fputc('.', f);
        }
        fputs("</p>\n", f);
    }
}

/* ---- sessions: trials against time ----------------------------------------------------- */

void mmt_chart_sessions(FILE *f, const mmt_rd_device *d)
{
    enum { SHOWN = 8 };
    size_t from = d->n_sessions > SHOWN ? d->n_sessions - SHOWN : 0;
    double tmax = 0, nmax = 0;
    for (size_t i = from; i < d->n_sessions; i++) {
        const mmt_rd_session *s = &d->sessions[i];
        if (s->trials) tmax = fmax(tmax, (double)s->offsets[s->trials - 1]), nmax = fmax(nmax, (double)s->trials);
    }
    if (nmax == 0) return;
    const int height = 280, left = 70, right = WIDE - 130, top = 14, bottom = height - 46;
    mmt_scale x = mmt_scale_make(0, tmax > 0 ? tmax : 1, 0, left, right);
    mmt_scale y = mmt_scale_make(0, nmax, 0, bottom, top);
    mmt_svg_open(f, WIDE, height, "trials recorded against the time since each session began");
    mmt_svg_axes(f, &x, &y, "seconds since the session began (the database keeps seconds)", "trials");
    for (size_t i = from; i < d->n_sessions; i++) {
        const mmt_rd_session *s = &d->sessions[i];
        if (!s->trials) continue;
        fprintf(f, "<path class=\"session s%zu\" d=\"M%.1f %.1f", (i - from) % 8, mmt_scale_px(&x, 0),
                mmt_scale_px(&y, 0));
        for (size_t t = 0; t < s->trials; t++) /* a step per trial */
            fprintf(f, "L%.1f %.1f", mmt_scale_px(&x, (double)s->offsets[t]), mmt_scale_px(&y, (double)t + 1));
        fprintf(f, "\"/>\n");
        char label[64], cls[16];
        snprintf(label, sizeof label, "session %lld: %zu", (long long)s->id, s->trials);
        snprintf(cls, sizeof cls, "label s%zu", (i - from) % 8);
        mmt_svg_text(f, right + 6, top + 14 + 16 * (double)(i - from), "start", cls, label);
    }
    mmt_svg_close(f);
}
