/* report.c - progress and tables (see report.h). */
#include "report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "term.h"

/* On a terminal: a line at the start of each family's search, a bar redrawn in place, a
 * result line. Anything else (a log, a pipe) gets one line per problem, at its end. */
struct mmt_progress {
    FILE *f;
    int tty, quiet;
    mmt_colours c;
    size_t n_problems, problem, planned;
    double problem_start;
};

mmt_progress *mmt_progress_new(FILE *f, size_t n_problems, int quiet)
{
    mmt_progress *pr = calloc(1, sizeof *pr);
    if (!pr) return NULL;
    pr->f = f;
    pr->tty = mmt_term_is_tty(f);
    pr->c = mmt_term_colours(f);
    pr->quiet = quiet;
    pr->n_problems = n_problems;
    return pr;
}

void mmt_progress_free(mmt_progress *pr) { free(pr); }

void mmt_progress_problem(mmt_progress *pr, const mmt_problem *p, const char *family, size_t planned, int first)
{
    if (!pr) return;
    pr->problem += first != 0;
    pr->planned = planned;
    pr->problem_start = mmt_now_s();
    if (pr->quiet || !pr->tty) return;
    char name[128];
    mmt_problem_format(p, name, sizeof name);
    fprintf(pr->f, "[%zu/%zu] %s: %s, %zu candidates\n", pr->problem, pr->n_problems, name, family, planned);
    fflush(pr->f);
}

static void format_eta(double s, char *buf, size_t size)
{
    if (!isfinite(s) || s < 0) snprintf(buf, size, "--");
    else if (s < 60) snprintf(buf, size, "%.0fs", s);
    else snprintf(buf, size, "%.0fm%02.0fs", floor(s / 60), fmod(s, 60));
}

static double per_s(size_t count, double s) { return s > 0 ? (double)count / s : 0; }

void mmt_report_pipeline_text(const mmt_report_pipeline *p, char *buf, size_t size)
{
    char how[48];
    if (p->ahead > 0) snprintf(how, sizeof how, "ahead in %d processes", p->ahead);
    else snprintf(how, sizeof how, "in turn");
    /* in turn, the device waits for every compile: the idle share is the compile share */
    char finals[96] = "";
    int n = p->finals ? snprintf(finals, sizeof finals, " + %zu in the final round", p->finals) : 0;
    if (p->levels) snprintf(finals + n, sizeof finals - (size_t)n, " + %zu in the levels round", p->levels);
    snprintf(buf, size,
             "measured %zu%s, reused %zu in %.1f s; compile %.2f/s %s, measure %.2f/s; "
             "idle waiting for compile %.0f%% (%.2f s)%s",
             p->measured, finals, p->reused, p->wall_s, per_s(p->compiled, p->wall_s), how,
             per_s(p->measured + p->finals + p->levels, p->wall_s),
             p->wall_s > 0 ? 100 * p->wait_s / p->wall_s : 0, p->wait_s,
             p->ahead > 0 ? "" : ": the compile share");
}

/* "[0.1011, 0.1040] 96%", or "-" without an interval. */
static void format_interval(double lo, double hi, double level, char *buf, size_t size)
{
    if (level > 0) snprintf(buf, size, "[%.4g, %.4g] %.0f%%", lo, hi, 100 * level);
    else snprintf(buf, size, "-");
}

void mmt_progress_trial(mmt_progress *pr, size_t done, const mmt_trial_line *l, const mmt_report_pipeline *pipe)
{
    if (!pr || pr->quiet || !pr->tty) return;
    double spent = mmt_now_s() - pr->problem_start;
    char eta[32], rates[96] = "";
    format_eta(done ? spent / done * (pr->planned - done) : NAN, eta, sizeof eta);
    if (pipe)
        snprintf(rates, sizeof rates, "compile %.1f/s  measure %.1f/s", per_s(pipe->compiled, pipe->wall_s),
                 per_s(pipe->measured, pipe->wall_s));
    /* "explored best": candidates timed alone, one after the other; the table's figures are
     * the winner's and the vendor's timed side by side at the end, and need not match */
    enum { WIDTH = 30 };
    char bar[WIDTH + 1];
    size_t fill = pr->planned ? done * WIDTH / pr->planned : WIDTH;
    if (fill > WIDTH) fill = WIDTH;
    memset(bar, '#', fill);
    memset(bar + fill, '.', WIDTH - fill);
    bar[WIDTH] = '\0';
    /* \033[K clears what a longer line before left */
    fprintf(pr->f, "\r  [%s%.*s%s%s] %zu/%zu %s  explored best %s%.1f GFLOP/s%s  %s  ETA %s%s", pr->c.good, (int)fill,
            bar, pr->c.off, bar + fill, done, pr->planned, l->status, pr->c.bold, l->best_gflops, pr->c.off, rates,
            eta, pr->c.off[0] ? "\033[K" : "   ");
    fflush(pr->f);
}

double mmt_report_gflops(const mmt_problem *p, const mmt_report_figure *f)
{
    return f->median_ms > 0 ? mmt_problem_flops(p) / (f->median_ms * 1e6) : 0;
}

/* "1.36x", or "-" where one of the two is missing. */
static void format_ratio(const mmt_report_row *r, char *buf, size_t size)
{
    double ours = mmt_report_gflops(r->problem, &r->tuned), theirs = mmt_report_gflops(r->problem, &r->vendor);
    if (r->params && ours > 0 && theirs > 0) snprintf(buf, size, "%.2fx", ours / theirs);
    else snprintf(buf, size, "-");
}

void mmt_progress_end_problem(mmt_progress *pr, const mmt_report_row *row)
{
    if (!pr || pr->quiet) return;
    char ratio[32], result[256] = "", name[128];
    format_ratio(row, ratio, sizeof ratio);
    const char *colour = row->tuned.median_ms > 0 && row->vendor.median_ms > 0
                             ? (row->vendor.median_ms >= row->tuned.median_ms ? pr->c.good : pr->c.bad)
                             : "";
    if (row->params && row->vendor.median_ms > 0)
        snprintf(result, sizeof result, "%.1f GFLOP/s, the vendor %.1f, %s%s%s: timed side by side",
                 mmt_report_gflops(row->problem, &row->tuned), mmt_report_gflops(row->problem, &row->vendor), colour,
                 ratio, pr->c.off);
    else if (row->params)
        snprintf(result, sizeof result, "%.1f GFLOP/s", mmt_report_gflops(row->problem, &row->tuned));
    else snprintf(result, sizeof result, "no result");
    const char *note = row->note && *row->note ? row->note : NULL;
    if (pr->tty) {
        fprintf(pr->f, "\n  result: %s\n", result);
        if (note) fprintf(pr->f, "  %snote: %s%s\n", pr->c.dim, note, pr->c.off);
    } else { /* the problem's one line: its result, what its search took, its note */
        char pipe[160] = "";
        const mmt_report_pipeline *p = row->detail ? &row->detail->pipe : NULL;
        if (p)
            snprintf(pipe, sizeof pipe, "; measured %zu, reused %zu in %.1f s, compile %.1f/s  measure %.1f/s",
                     p->measured + p->finals, p->reused, p->wall_s, per_s(p->compiled, p->wall_s),
                     per_s(p->measured + p->finals, p->wall_s));
        mmt_problem_format(row->problem, name, sizeof name);
        fprintf(pr->f, "[%zu/%zu] %s: %s%s%s%s\n", pr->problem, pr->n_problems, name, result, pipe,
                note ? "; note: " : "", note ? note : "");
    }
    fflush(pr->f);
}

/* The cells of one figure: GFLOP/s, median ms, interval and relative error ("-" where
 * there is none). */
typedef struct figure_cells {
    char gflops[32], ms[32], interval[64], error[32];
} figure_cells;

static void figure_cells_of(const mmt_problem *p, const mmt_report_figure *f, int shown, figure_cells *c)
{
    snprintf(c->gflops, sizeof c->gflops, "-");
    snprintf(c->ms, sizeof c->ms, "-");
    snprintf(c->interval, sizeof c->interval, "-");
    snprintf(c->error, sizeof c->error, "-");
    if (!shown || f->median_ms <= 0) return;
    snprintf(c->gflops, sizeof c->gflops, "%.1f", mmt_report_gflops(p, f));
    snprintf(c->ms, sizeof c->ms, "%.4g", f->median_ms);
    format_interval(f->lo_ms, f->hi_ms, f->level, c->interval, sizeof c->interval);
    if (f->rel_error > 0) snprintf(c->error, sizeof c->error, "%.1e", f->rel_error);
}

static int widest(int w, const char *text)
{
    int n = (int)strlen(text);
    return n > w ? n : w;
}

/* prefix, then text: on a terminal on lines of at most 160 columns, broken at spaces, the
 * lines after the first indented by `indent` columns; elsewhere on one line, which scripts
 * grep (--json is the form for programs). */
static void print_wrapped(FILE *f, const char *prefix, int indent, const char *text)
{
    enum { WIDTH = 160 };
    if (!mmt_term_is_tty(f)) {
        fprintf(f, "%s%s\n", prefix, text);
        return;
    }
    int col = fprintf(f, "%s", prefix), first = 1;
    while (*text) {
        const size_t word = strcspn(text, " ");
        if (!first && col + 1 + (int)word > WIDTH) {
            col = fprintf(f, "\n%*s", indent, "") - 1;
        } else if (!first) {
            col += fprintf(f, " ");
        }
        col += (int)fwrite(text, 1, word, f);
        first = 0;
        text += word;
        while (*text == ' ') text++;
    }
    fputc('\n', f);
}

void mmt_report_table(FILE *f, const char *title, const char *const *footer, const mmt_report_row *rows, size_t n)
{
    /* column widths: at least the header's; the configuration goes on a line of its own and
     * the vendor's interval to --json, show and the report, so a row fits 160 columns */
    int nw = 30, fw = 0, iw = (int)strlen("interval (ms)");
    char name[128];
    for (size_t i = 0; i < n; i++) {
        figure_cells ours;
        figure_cells_of(rows[i].problem, &rows[i].tuned, rows[i].params != NULL, &ours);
        mmt_problem_format(rows[i].problem, name, sizeof name);
        nw = widest(nw, name);
        if (rows[i].family) fw = widest(fw < 6 ? 6 : fw, rows[i].family);
        iw = widest(iw, ours.interval);
    }
    char fam[80] = "";
    if (fw) snprintf(fam, sizeof fam, "%-*s  ", fw, "family");
    const mmt_colours c = mmt_term_colours(f);
    fprintf(f, "\n%s%s%s\n", c.bold, title, c.off);
    fprintf(f, "%s%-*s  %s%8s  %10s  %-*s  %8s  %10s  %6s  %7s  %12s%s\n", c.bold, nw, "problem", fam, "GFLOP/s",
            "median ms", iw, "interval (ms)", "vendor", "vendor ms", "ratio", "error", "vendor error", c.off);
    for (size_t i = 0; i < n; i++) {
        const mmt_report_row *r = &rows[i];
        figure_cells ours, theirs;
        figure_cells_of(r->problem, &r->tuned, r->params != NULL, &ours);
        figure_cells_of(r->problem, &r->vendor, 1, &theirs);
        char ratio[32];
        format_ratio(r, ratio, sizeof ratio);
        mmt_problem_format(r->problem, name, sizeof name);
        if (fw) snprintf(fam, sizeof fam, "%-*s  ", fw, r->family ? r->family : "-");
        const char *colour = ratio[0] == '-' ? "" : r->vendor.median_ms >= r->tuned.median_ms ? c.good : c.bad;
        fprintf(f, "%-*s  %s%8s  %10s  %-*s  %8s  %10s  %s%6s%s  %7s  %12s\n", nw, name, fam, ours.gflops, ours.ms, iw,
                ours.interval, theirs.gflops, theirs.ms, colour, ratio, c.off, ours.error, theirs.error);
        fprintf(f, "%-*s  config: %s\n", nw, "", r->params ? r->params : "(none)");
        if (r->note && *r->note) {
            char prefix[192];
            snprintf(prefix, sizeof prefix, "%-*s  %snote: ", nw, "", c.dim);
            print_wrapped(f, prefix, nw + 4, r->note);
            fputs(c.off, f);
        }
    }
    for (int i = 0; footer && footer[i]; i++) print_wrapped(f, "", 2, footer[i]);
    /* per problem: how each winner was chosen, where its figures come from, and how well
     * compiling kept the device busy (idle: the loop waited for a binary with nothing else
     * to run) */
    int header = 0;
    for (size_t i = 0; i < n; i++) {
        const mmt_report_detail *d = rows[i].detail;
        if (!d) continue;
        if (!header++)
            print_wrapped(f, "", 2,
                          "per problem: the final choice, the levels round (Strassen-Winograd levels against the classic "
                          "kernel) where there was one, where the figures come from, and the pipeline (per second of "
                          "wall time)");
        char text[320];
        mmt_report_pipeline_text(&d->pipe, text, sizeof text);
        mmt_problem_format(rows[i].problem, name, sizeof name);
        const struct {
            const char *label, *text;
        } lines[] = {{"final", d->final}, {"levels", d->levels}, {"figures", d->figures}, {"pipeline", text}};
        for (size_t j = 0; j < sizeof lines / sizeof *lines; j++) {
            char prefix[192];
            if (!lines[j].text[0]) continue;
            snprintf(prefix, sizeof prefix, "%-*s  %s: ", nw, name, lines[j].label);
            print_wrapped(f, prefix, nw + 4, lines[j].text);
        }
    }
}
