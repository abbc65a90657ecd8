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

void mmt_progress_problem(mmt_progress *pr, const mmt_problem *p, size_t planned)
{
    if (!pr) return;
    pr->problem++;
    pr->planned = planned;
    pr->problem_start = mmt_now_s();
    if (pr->quiet) return;
    char name[128];
    mmt_problem_format(p, name, sizeof name);
    fprintf(pr->f, "[%zu/%zu] %s: %zu candidates\n", pr->problem, pr->n_problems, name, planned);
    fflush(pr->f);
}

static void format_eta(double s, char *buf, size_t size)
{
    if (!isfinite(s) || s < 0) snprintf(buf, size, "--");
    else if (s < 60) snprintf(buf, size, "%.0fs", s);
    else snprintf(buf, size, "%.0fm%02.0fs", floor(s / 60), fmod(s, 60));
}

void mmt_progress_trial(mmt_progress *pr, size_t done, const char *params, const char *status, double gflops,
                        double best_gflops)
{
    if (!pr || pr->quiet) return;
    double spent = mmt_now_s() - pr->problem_start;
    char eta[32];
    format_eta(done ? spent / done * (pr->planned - done) : NAN, eta, sizeof eta);
    if (pr->tty) {
        enum { WIDTH = 30 };
        char bar[WIDTH + 1];
        size_t fill = pr->planned ? done * WIDTH / pr->planned : WIDTH;
        for (size_t i = 0; i < WIDTH; i++) bar[i] = i < fill ? '#' : '.';
        bar[WIDTH] = '\0';
        fprintf(pr->f, "\r  [%s] %zu/%zu  best %.1f GFLOP/s  ETA %s   ", bar, done, pr->planned, best_gflops, eta);
    } else {
        fprintf(pr->f, "  %zu/%zu %-13s %8.1f GFLOP/s  best %8.1f  ETA %-7s %s\n", done, pr->planned, status,
                gflops, best_gflops, eta, params);
    }
    fflush(pr->f);
}

void mmt_progress_end_problem(mmt_progress *pr)
{
    if (!pr || pr->quiet) return;
    if (pr->tty) fprintf(pr->f, "\n");
    fflush(pr->f);
}

void mmt_report_table(FILE *f, const char *title, const char *vendor, const mmt_report_row *rows, size_t n)
{
    int pw = 6, nw = 30; /* "bf16->f32 row NN 16384x16384x16384" needs more than 30 */
    char name[128];
    for (size_t i = 0; i < n; i++) {
        if (rows[i].params && (int)strlen(rows[i].params) > pw) pw = (int)strlen(rows[i].params);
        mmt_problem_format(rows[i].problem, name, sizeof name);
        if ((int)strlen(name) > nw) nw = (int)strlen(name);
    }
    fprintf(f, "\n%s\n", title);
    fprintf(f, "%-*s  %-*s  %10s  %10s  %6s\n", nw, "problem", pw, "config", "GFLOP/s", "vendor", "ratio");
    for (size_t i = 0; i < n; i++) {
        char vend[32] = "-", ratio[32] = "-";
        mmt_problem_format(rows[i].problem, name, sizeof name);
        if (rows[i].vendor_gflops > 0) {
            snprintf(vend, sizeof vend, "%.1f", rows[i].vendor_gflops);
            if (rows[i].params) snprintf(ratio, sizeof ratio, "%.2fx", rows[i].gflops / rows[i].vendor_gflops);
        }
        if (rows[i].params)
            fprintf(f, "%-*s  %-*s  %10.1f  %10s  %6s\n", nw, name, pw, rows[i].params, rows[i].gflops, vend,
                    ratio);
        else
            fprintf(f, "%-*s  %-*s  %10s  %10s  %6s\n", nw, name, pw, "(none)", "-", vend, ratio);
        if (rows[i].note && *rows[i].note) fprintf(f, "%-*s  note: %s\n", nw, "", rows[i].note);
    }
    fprintf(f, "vendor: %s\n", vendor);
}
