/* svg.c - inline SVG for the report's charts (see svg.h). */
#include "svg.h"

#include <math.h>

#include "utf8.h"

void mmt_xml_text(FILE *f, const char *text)
{
    for (const unsigned char *c = (const unsigned char *)(text ? text : ""); *c;) {
        int len = mmt_utf8_length(c);
        if (*c == '&') fputs("&amp;", f);
        else if (*c == '<') fputs("&lt;", f);
        else if (*c == '>') fputs("&gt;", f);
        else if (*c == '"') fputs("&quot;", f);
        else if (*c == '\'') fputs("&#39;", f);
        else if (*c < 0x20 && *c != '\t' && *c != '\n') fputc(' ', f); /* XML 1.0 has no other C0 control */
        else if (len == 0) fputs("\xEF\xBF\xBD", f);                    /* U+FFFD */
        else fwrite(c, 1, (size_t)len, f);
        c += len ? len : 1;
    }
}

/* The round number at or above (up) or at or below v: 1, 2 or 5 times a power of ten. */
static double round_125(double v, int up)
{
    if (v == 0) return 0;
    double sign = v < 0 ? -1 : 1, a = fabs(v), p = pow(10, floor(log10(a)));
    static const double steps[] = {1, 2, 5, 10};
    if (sign < 0) up = !up;
    double r = up ? 10 * p : p;
    for (int i = 0; i < 4; i++) {
        double s = steps[i] * p;
        if (up && s >= a * (1 - 1e-12)) {
            r = s;
            break;
        }
        if (!up && s <= a * (1 + 1e-12)) r = s;
    }
    return sign * r;
}

mmt_scale mmt_scale_make(double lo, double hi, int log, double px_lo, double px_hi)
{
    mmt_scale s = {.lo = lo, .hi = hi, .px_lo = px_lo, .px_hi = px_hi, .log = log};
    if (!(hi > lo)) { /* nothing to span: one value, or none */
        s.lo = log ? lo / 10 : lo - (lo ? fabs(lo) : 1);
        s.hi = log ? hi * 10 : hi + (hi ? fabs(hi) : 1);
    }
    if (log) {
        s.lo = pow(10, floor(log10(s.lo)));
        s.hi = pow(10, ceil(log10(s.hi)));
        if (s.hi <= s.lo) s.hi = 10 * s.lo;
        return s;
    }
    /* an eighth of the span or a little more: 4 to 9 ticks */
    double step = s.step = round_125((s.hi - s.lo) / 8, 1);
    s.lo = floor(s.lo / step) * step;
    s.hi = ceil(s.hi / step - 1e-9) * step;
    return s;
}

double mmt_scale_px(const mmt_scale *s, double v)
{
    double t = s->log ? (log10(v) - log10(s->lo)) / (log10(s->hi) - log10(s->lo)) : (v - s->lo) / (s->hi - s->lo);
    return s->px_lo + t * (s->px_hi - s->px_lo);
}

int mmt_scale_ticks(const mmt_scale *s, double *ticks, int max)
{
    int n = 0;
    if (s->log) { /* decades; 2 and 5 between them where there are few */
        int decades = (int)lround(log10(s->hi / s->lo)), every = decades > 8 ? 2 : 1;
        for (int d = 0; d <= decades && n < max; d += every)
            for (int m = 1; m <= 5 && n < max; m += m == 1 ? 1 : 3)
                if (m == 1 || (decades <= 2 && d < decades)) ticks[n++] = s->lo * pow(10, d) * m;
        return n;
    }
    double step = s->step;
    for (double v = s->lo; v <= s->hi + step * 1e-9 && n < max; v = s->lo + step * n)
        ticks[n++] = fabs(v) < step * 1e-9 ? 0 : v;
    return n;
}

void mmt_tick_label(double v, char *buf, size_t size)
{
    snprintf(buf, size, "%g", v);
}

void mmt_svg_open(FILE *f, int width, int height, const char *title)
{
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">"
               "<title>",
            width, height, width, height);
    mmt_xml_text(f, title);
    fputs("</title>\n", f);
}

void mmt_svg_close(FILE *f) { fputs("</svg>\n", f); }

void mmt_svg_text(FILE *f, double x, double y, const char *anchor, const char *cls, const char *text)
{
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\"", x, y, anchor);
    if (cls) fprintf(f, " class=\"%s\"", cls);
    fputc('>', f);
    mmt_xml_text(f, text);
    fputs("</text>\n", f);
}

void mmt_svg_axes(FILE *f, const mmt_scale *x, const mmt_scale *y, const char *x_title, const char *y_title)
{
    double ticks[32];
    char label[32];
    int n = x->bare ? 0 : mmt_scale_ticks(x, ticks, 32);
    for (int i = 0; i < n; i++) {
        double px = mmt_scale_px(x, ticks[i]);
        fprintf(f, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", px, y->px_lo, px, y->px_hi);
        mmt_tick_label(ticks[i], label, sizeof label);
        mmt_svg_text(f, px, y->px_lo + 14, "middle", "tick", label);
    }
    n = y->bare ? 0 : mmt_scale_ticks(y, ticks, 32);
    for (int i = 0; i < n; i++) {
        double py = mmt_scale_px(y, ticks[i]);
        fprintf(f, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", x->px_lo, py, x->px_hi, py);
        mmt_tick_label(ticks[i], label, sizeof label);
        mmt_svg_text(f, x->px_lo - 4, py + 4, "end", "tick", label);
    }
    fprintf(f, "<path class=\"axis\" d=\"M%.1f %.1fV%.1fH%.1f\"/>\n", x->px_lo, y->px_hi, y->px_lo, x->px_hi);
    if (x_title) mmt_svg_text(f, (x->px_lo + x->px_hi) / 2, y->px_lo + 30, "middle", "title", x_title);
    if (y_title) {
        double cx = x->px_lo - 44, cy = (y->px_lo + y->px_hi) / 2;
        fprintf(f, "<g transform=\"rotate(-90 %.1f %.1f)\">", cx, cy);
        mmt_svg_text(f, cx, cy, "middle", "title", y_title);
        fputs("</g>\n", f);
    }
}
