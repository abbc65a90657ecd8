/* report.c - progress and tables (see report.h). */
#include "report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"

struct mmt_progress {
    FILE *f;
    int tty, quiet;
    size_t n_problems, problem, planned;
    double problem_start;
};

mmt_progress *mmt_progress_new(FILE *f, size_t n_problems, int quiet)
{
    mmt_progress *pr = calloc(1, sizeof *pr);
    if (!pr) return NULL;
    pr->f = f;
    pr->tty = isatty(fileno(f));
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
    if (pr->quiet) return;
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
    if (p->ahead > 0) snprintf(how, sizeof how, "ahead on %d threads", p->ahead);
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
    if (!pr || pr->quiet) return;
    double spent = mmt_now_s() - pr->problem_start;
    char eta[32], rates[96] = "";
    format_eta(done ? spent / done * (pr->planned - done) : NAN, eta, sizeof eta);
    if (pipe)
        snprintf(rates, sizeof rates, "compile %.1f/s  measure %.1f/s", per_s(pipe->compiled, pipe->wall_s),
                 per_s(pipe->measured, pipe->wall_s));
    if (pr->tty) {
        enum { WIDTH = 30 };
        char bar[WIDTH + 1];
        size_t fill = pr->planned ? done * WIDTH / pr->planned : WIDTH;
        for (size_t i = 0; i < WIDTH; i++) bar[i] = i < fill ? '#' : '.';
        bar[WIDTH] = '\0';
        fprintf(pr->f, "\r  [%s] %zu/%zu  best %.1f GFLOP/s  %s  ETA %s   ", bar, done, pr->planned,
                l->best_gflops, rates, eta);
    } else {
        char ms[80] = "-", iv[64];
        format_interval(l->lo_ms, l->hi_ms, l->level, iv, sizeof iv);
        if (l->median_ms > 0)
            snprintf(ms, sizeof ms, "%.4g ms %s", l->median_ms, l->reused ? "(reused)" : iv);
        fprintf(pr->f, "  %zu/%zu %-13s %8.1f GFLOP/s  best %8.1f  ETA %-7s %-34s %s  %s\n", done, pr->planned,
                l->status, l->gflops, l->best_gflops, eta, ms, rates, l->params);
    }
    fflush(pr->f);
}

void mmt_progress_end_problem(mmt_progress *pr, const mmt_report_detail *d)
{
    if (!pr || pr->quiet) return;
    if (pr->tty) fprintf(pr->f, "\n");
    if (d) {
        char text[320];
        mmt_report_pipeline_text(&d->pipe, text, sizeof text);
        if (d->final[0]) fprintf(pr->f, "  final: %s\n", d->final);
        if (d->levels[0]) fprintf(pr->f, "  levels: %s\n", d->levels);
        fprintf(pr->f, "  pipeline: %s\n", text);
    }
    fflush(pr->f);
}

void mmt_report_table(FILE *f, const char *title, const char *vendor, const mmt_report_row *rows, size_t n)
{
    int pw = 6, nw = 30, iw = 0, fw = 0; /* "bf16->f32 row NN 16384x16384x16384" needs more than 30 */
    char name[128], iv[64], mid[128], fam[80];
    for (size_t i = 0; i < n; i++) {
        if (rows[i].params && (int)strlen(rows[i].params) > pw) pw = (int)strlen(rows[i].params);
        if (rows[i].family && (int)strlen(rows[i].family) > fw) fw = (int)strlen(rows[i].family);
        mmt_problem_format(rows[i].problem, name, sizeof name);
        if ((int)strlen(name) > nw) nw = (int)strlen(name);
        const mmt_report_detail *d = rows[i].detail;
        if (d) format_interval(d->lo_ms, d->hi_ms, d->level, iv, sizeof iv);
        if (d && (int)strlen(iv) + 1 > iw) iw = (int)strlen(iv) + 1;
    }
    /* the median and interval columns where there are tuned rows (mmtune bench has none) */
    if (iw > 0 && iw < 17) iw = 17;
    if (iw) snprintf(mid, sizeof mid, "  %10s  %-*s", "median ms", iw, "interval (ms)");
    else mid[0] = '\0';
    /* the family column where rows name the family that won (the tuner's table) */
    if (fw && fw < 6) fw = 6;
    if (fw) snprintf(fam, sizeof fam, "%-*s  ", fw, "family");
    else fam[0] = '\0';
    fprintf(f, "\n%s\n", title);
    fprintf(f, "%-*s  %s%-*s  %10s%s  %10s  %6s\n", nw, "problem", fam, pw, "config", "GFLOP/s", mid, "vendor", "ratio");
    for (size_t i = 0; i < n; i++) {
        char vend[32] = "-", ratio[32] = "-", ms[32] = "-", gf[32] = "-";
        const mmt_report_detail *d = rows[i].detail;
        snprintf(iv, sizeof iv, "-");
        if (d && rows[i].params) {
            snprintf(ms, sizeof ms, "%.4g", d->median_ms);
            format_interval(d->lo_ms, d->hi_ms, d->level, iv, sizeof iv);
        }
        if (iw) snprintf(mid, sizeof mid, "  %10s  %-*s", ms, iw, iv);
        if (rows[i].params) snprintf(gf, sizeof gf, "%.1f", rows[i].gflops);
        mmt_problem_format(rows[i].problem, name, sizeof name);
        if (rows[i].vendor_gflops > 0) {
            snprintf(vend, sizeof vend, "%.1f", rows[i].vendor_gflops);
            if (rows[i].params) snprintf(ratio, sizeof ratio, "%.2fx", rows[i].gflops / rows[i].vendor_gflops);
        }
        if (fw) snprintf(fam, sizeof fam, "%-*s  ", fw, rows[i].family ? rows[i].family : "-");
        fprintf(f, "%-*s  %s%-*s  %10s%s  %10s  %6s\n", nw, name, fam, pw, rows[i].params ? rows[i].params : "(none)",
                gf, mid, vend, ratio);
        if (rows[i].note && *rows[i].note) fprintf(f, "%-*s  note: %s\n", nw, "", rows[i].note);
    }
    fprintf(f, "vendor: %s\n", vendor);
    /* the per-problem figures: how each winner was chosen, and how well compiling kept the
     * device busy (idle: the loop waited for a binary with nothing else to run) */
    int header = 0;
    for (size_t i = 0; i < n; i++) {
        const mmt_report_detail *d = rows[i].detail;
        if (!d) continue;
        if (!header++)
            fprintf(f, "per problem: the final choice, the levels round (Strassen-Winograd levels against the classic "
                       "kernel) where there was one, and the pipeline (per second of wall time)\n");
        char text[320];
        mmt_report_pipeline_text(&d->pipe, text, sizeof text);
        mmt_problem_format(rows[i].problem, name, sizeof name);
        if (d->final[0]) fprintf(f, "%-*s  final: %s\n", nw, name, d->final);
        if (d->levels[0]) fprintf(f, "%-*s  levels: %s\n", nw, name, d->levels);
        fprintf(f, "%-*s  pipeline: %s\n", nw, name, text);
    }
}
