/* bench_cmd.c - mmtune bench: the runtime library exactly as applications call it, beside
 * the vendor in the same rounds (see command.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "command.h"
#include "demote.h"
#include "device_lock.h"
#include "exit_codes.h"
#include "mmtuned.h"
#include "store.h"
#include "tune.h"
#include "unseen.h"
#include "vendor.h"
#include "versus.h"

/* A GPU's paired rounds follow this long of both by turns (mmt_bench_warm). */
static const double WARM_MS = 1000.0;

/* bench: the runtime library exactly as applications call it, against the vendor. The
 * bench hands over the row-major problem; mmt_gemm_ex gets the descriptor of its mode. */
typedef struct runtime_call {
    mmt_ctx *ctx;
    const mmt_problem *problem;
} runtime_call;

static mmt_status runtime_gemm(void *user, const mmt_gemm_params *p, void *stream, mmt_err *err)
{
    (void)stream;
    runtime_call *rc = user;
    mmt_gemm_desc d = {.ab_type = mmt_mode_ab_type(rc->problem->mode), .c_type = rc->problem->out,
                       .compute = mmt_mode_compute(rc->problem->mode), .layout = MMT_ROW_MAJOR,
                       .trans_a = p->trans_a ? MMT_TRANS : MMT_NO_TRANS,
                       .trans_b = p->trans_b ? MMT_TRANS : MMT_NO_TRANS};
    /* block-scaled FP8: the bench's scales, through the call that takes them */
    mmt_status s = mmt_mode_block_scaled(rc->problem->mode)
                       ? mmt_gemm_scaled(rc->ctx, &d, p->scale_a, p->scale_b, p->m, p->n, p->k, p->alpha, p->a, p->lda,
                                         p->b, p->ldb, p->beta, p->c, p->ldc)
                       : mmt_gemm_ex(rc->ctx, &d, p->m, p->n, p->k, p->alpha, p->a, p->lda, p->b, p->ldb, p->beta,
                                     p->c, p->ldc);
    if (s != MMT_OK) return mmt_err_set(err, s, "%s", mmt_last_error(rc->ctx));
    return MMT_OK;
}

static const char *choice_name(mmt_choice c)
{
    switch (c) {
    case MMT_CHOICE_EXACT: return "tuned";
    case MMT_CHOICE_NEAREST: return "nearest tuned shape";
    case MMT_CHOICE_DEFAULT: return "template default (untuned)";
    case MMT_CHOICE_VENDOR: return "the vendor library (untuned)";
    default: return "";
    }
}

/* Whether libmmtuned's last call ran the vendor library (its configuration text then names
 * it: call_table.c). */
static int served_by_vendor(const char *config)
{
    return strncmp(config, "LIBRARY=", 8) == 0;
}

/* The Strassen-Winograd levels of the last call on ctx (MMTUNE_ALGORITHM=strassen lets the
 * runtime run them): its configuration read by the mode's families. */
static int levels_run(const mmt_ctx *ctx, const mmt_family_list *fl)
{
    const char *text;
    mmt_last_choice(ctx, &text);
    for (int f = 0; f < fl->n; f++) {
        mmt_config c;
        if (mmt_config_parse(fl->f[f]->space, text, &c, NULL) == MMT_OK) return mmt_config_levels(fl->f[f]->space, &c);
    }
    return 0;
}

/* bench --unseen: how the shapes were drawn, then per mode libmmtuned's GFLOP/s over the
 * vendor's (geometric mean, 10th percentile, minimum) and what served the shapes
 * (mmt_last_choice), as lines of the table's footer; returns how many. */
static size_t unseen_lines(const mmt_cli_options *o, const mmt_cli_plan *pl, const mmt_report_row *rows,
                           const mmt_choice *hows, char (*lines)[600])
{
    size_t n = 0;
    snprintf(lines[n++], sizeof *lines,
             "unseen: %zu shape(s) per mode drawn with seed %llu, none tuned on this device: M, N and K log-uniform "
             "between the smallest and largest the database tuned here, types, layout and transposes those of a "
             "tuned problem%s%.300s",
             o->unseen_n, (unsigned long long)o->seed, pl->drawn[0] ? "; " : "", pl->drawn);
    for (int mode = 0; mode < MMT_N_MODES; mode++) {
        double *ratios = malloc(sizeof(double) * (pl->n ? pl->n : 1));
        size_t shapes = 0, timed = 0, by[MMT_CHOICE_VENDOR + 1] = {0};
        for (size_t i = 0; ratios && i < pl->n; i++) {
            if ((int)pl->problems[i].mode != mode) continue;
            shapes++;
            const double ours = mmt_report_gflops(rows[i].problem, &rows[i].tuned),
                         theirs = mmt_report_gflops(rows[i].problem, &rows[i].vendor);
            if (rows[i].params && ours > 0 && theirs > 0) ratios[timed++] = ours / theirs;
            if (rows[i].params && hows[i] >= 0 && hows[i] <= MMT_CHOICE_VENDOR) by[hows[i]]++;
        }
        if (!shapes) {
            free(ratios);
            continue;
        }
        const mmt_ratio_summary sum = mmt_ratio_summarise(ratios, timed);
        free(ratios);
        /* a few short parts: the line stays well within its 600 bytes */
        char *line = lines[n++];
        int len = snprintf(line, sizeof *lines, "unseen %s: %zu shape(s), %zu timed beside the vendor",
                           mmt_mode_name((mmt_mode)mode), shapes, timed);
        if (sum.n)
            len += snprintf(line + len, sizeof *lines - (size_t)len,
                            "; libmmtuned's GFLOP/s over the vendor's: geomean %.3fx, p10 %.3fx, min %.3fx",
                            sum.geomean, sum.p10, sum.min);
        len += snprintf(line + len, sizeof *lines - (size_t)len, "; what served them:");
        const char *sep = " ";
        for (int c = MMT_CHOICE_EXACT; c <= MMT_CHOICE_VENDOR; c++)
            if (by[c]) {
                len += snprintf(line + len, sizeof *lines - (size_t)len, "%s%s %zu", sep, choice_name((mmt_choice)c),
                                by[c]);
                sep = ", ";
            }
    }
    return n;
}

int mmt_cli_bench(const mmt_cli_options *o)
{
    mmt_cli_plan pl;
    int rc = mmt_cli_make_plan(o, &pl);
    if (rc != EXIT_OK) {
        mmt_cli_free_plan(&pl);
        return rc;
    }
    char path[4096];
    mmt_cli_db_path(o, path, sizeof path);
    mmt_ctx *ctx;
    mmt_err err;
    if (mmt_device_lock(&pl.dev, !o->no_wait, &err) != MMT_OK) {
        fprintf(stderr, "mmtune: %s\n", err.msg);
        mmt_cli_free_plan(&pl);
        return EXIT_FAIL;
    }
    /* libmmtuned serves on a damaged database (as untuned); a bench of it measures nothing */
    mmt_store *st = NULL;
    mmt_status s = access(path, F_OK) == 0 ? mmt_store_open_snapshot(path, &st, &err) : MMT_OK;
    if (s == MMT_OK && st) s = mmt_store_check(st, &err);
    mmt_store_close(st);
    if (s != MMT_OK) {
        fprintf(stderr, "mmtune: %s\n", err.msg);
        mmt_cli_free_plan(&pl);
        return EXIT_FAIL;
    }
    if (mmt_open(&ctx, o->device, path) != MMT_OK) {
        fprintf(stderr, "mmtune: %s\n", mmt_last_error(ctx));
        mmt_close(ctx);
        mmt_cli_free_plan(&pl);
        return EXIT_FAIL;
    }
    mmt_vendor *vendor = NULL;
    char vendor_why[256] = "", labels[512] = "";
    if (mmt_vendor_open(pl.be, &pl.dev, &vendor, &err) != MMT_OK)
        snprintf(vendor_why, sizeof vendor_why, "not measured: %.200s", err.msg);
    mmt_vendor_use_device_cores(vendor, &pl.dev);
    mmt_report_row *rows = calloc(pl.n, sizeof *rows);
    char (*params)[512] = calloc(pl.n, sizeof *params);
    char (*notes)[512] = calloc(pl.n, sizeof *notes);
    char (*vendor_labels)[160] = calloc(pl.n, sizeof *vendor_labels);
    mmt_choice *hows = calloc(pl.n ? pl.n : 1, sizeof *hows); /* what served each (mmt_last_choice) */
    mmt_demotion *demoted = calloc(pl.n ? pl.n : 1, sizeof *demoted); /* tuned templates the vendor beat */
    size_t n_demoted = 0;
    int vendor_off = 0; /* MMTUNE_VENDOR=off: a yardstick, whom libmmtuned serves stays */
    if (mmt_vendor_policy(&vendor_off, &err) != MMT_OK) vendor_off = 1;
    const int on_gpu = strcmp(pl.be->name, "cpu") != 0;
    for (size_t i = 0; rows && params && notes && vendor_labels && hows && demoted && i < pl.n; i++) {
        mmt_problem *p = &pl.problems[i];
        rows[i] = (mmt_report_row){.problem = p, .note = notes[i]};
        mmt_bench *b = NULL;
        runtime_call call = {ctx, p};
        double rel, vendor_rel; /* the relative errors of libmmtuned's call and the vendor's */
        int ok = 0;
        /* libmmtuned and the vendor are verified, then timed side by side (A B B A ... on the
         * same inputs), so clock and temperature drift fall on both alike: the ratio is two
         * figures of the same rounds. The first call chooses the shape's kernel; where it was
         * built in the background meanwhile (the vendor ran the call), what an application's
         * calls run from then on is verified again. */
        int built = 0;
        if (mmt_bench_setup(pl.be, &pl.dev, NULL, p, mmt_bench_cache_bytes(&pl.dev), &b, &err) != MMT_OK ||
            mmt_bench_verify(b, runtime_gemm, &call, 0, &rel, &ok, &err) != MMT_OK ||
            mmt_wait_kernels(ctx, &built) != MMT_OK ||
            (built && mmt_bench_verify(b, runtime_gemm, &call, 0, &rel, &ok, &err) != MMT_OK) ||
            (!ok && !(rel <= mmt_bench_error_bound(&b->p, levels_run(ctx, &pl.families[p->mode]))) &&
             mmt_err_set(&err, MMT_INTERNAL, "wrong result: relative error %.3g", rel))) {
            snprintf(notes[i], sizeof notes[i], "%.500s", err.msg);
            rc = EXIT_FAIL;
        } else {
            const char *cfg;
            mmt_choice how = hows[i] = mmt_last_choice(ctx, &cfg);
            snprintf(params[i], sizeof params[i], "%s", cfg);
            snprintf(notes[i], sizeof notes[i], "%s", choice_name(how));
            mmt_vendor_call vc = {vendor, p->mode, p->out, MMT_VENDOR_CALL};
            char label[160];
            mmt_vendor_label(vendor, p->mode, label, sizeof label);
            mmt_status vs = vendor ? mmt_vendor_check(vendor, p->mode, &err) : MMT_NOT_FOUND;
            if (vs == MMT_OK) vs = mmt_bench_verify(b, mmt_vendor_gemm, &vc, 0, &vendor_rel, &ok, &err);
            if (vs == MMT_OK && !ok)
                vs = mmt_err_set(&err, MMT_INTERNAL, "wrong result: relative error %.3g", vendor_rel);
            if (vs != MMT_OK && vendor) {
                size_t n = strlen(notes[i]);
                snprintf(notes[i] + n, sizeof notes[i] - n, "; vendor %s: %.300s",
                         vs == MMT_UNSUPPORTED ? "not measured" : "failed", err.msg);
            }
            const mmt_gemm_fn fns[2] = {runtime_gemm, mmt_vendor_gemm};
            void *const users[2] = {&call, &vc};
            mmt_timing tm[2];
            const int ways = vs == MMT_OK ? 2 : 1;
            /* on a GPU: the rounds at its power limit, as a tune's are (bench.h) */
            mmt_status ts = on_gpu ? mmt_bench_warm(b, ways, fns, users, WARM_MS, &err) : MMT_OK;
            if (ts == MMT_OK) ts = mmt_bench_time_paired(b, ways, fns, users, tm, &err);
            if (ts != MMT_OK) {
                snprintf(notes[i], sizeof notes[i], "%.500s", err.msg);
                rc = EXIT_FAIL;
            } else {
                rows[i].params = params[i];
                rows[i].tuned = (mmt_report_figure){tm[0].median_ms, tm[0].lo_ms, tm[0].hi_ms, tm[0].level, rel};
                if (vs == MMT_OK) {
                    rows[i].vendor =
                        (mmt_report_figure){tm[1].median_ms, tm[1].lo_ms, tm[1].hi_ms, tm[1].level, vendor_rel};
                    snprintf(vendor_labels[i], sizeof vendor_labels[i], "%s", label);
                    rows[i].vendor_label = vendor_labels[i];
                    mmt_cli_add_label(labels, sizeof labels, label);
                    if (how == MMT_CHOICE_EXACT && !served_by_vendor(params[i]) && !vendor_off &&
                        mmt_versus_demotes(&tm[0], &tm[1])) {
                        demoted[n_demoted++] = (mmt_demotion){p, tm[0], tm[1], vendor_rel};
                        size_t n = strlen(notes[i]);
                        snprintf(notes[i] + n, sizeof notes[i] - n, "; demoted: the vendor serves it from now on");
                    }
                    mmt_cool cool;
                    if (on_gpu &&
                        mmt_bench_time_cool(b, runtime_gemm, &call, mmt_vendor_gemm, &vc,
                                            fmax(tm[0].median_ms, tm[1].median_ms), &cool, &err) == MMT_OK &&
                        cool.rounds > 0) {
                        size_t n = strlen(notes[i]);
                        snprintf(notes[i] + n, sizeof notes[i] - n, "; below the power limit over %d rounds: %.2fx",
                                 cool.rounds, cool.other_ms / cool.ours_ms);
                    }
                }
            }
        }
        mmt_bench_free(b);
        if (!o->quiet) {
            char name[128];
            mmt_problem_format(p, name, sizeof name);
            fprintf(stderr, "  %s: %.1f GFLOP/s, vendor %.1f\n", name, mmt_report_gflops(p, &rows[i].tuned),
                    mmt_report_gflops(p, &rows[i].vendor));
        }
    }
    char demote_text[700] = "";
    if (n_demoted) {
        /* a database this user cannot write (another's, read-only) is benched all the same */
        if (mmt_cli_demote(path, pl.be, &pl.dev, demoted, n_demoted, &err) == MMT_OK)
            snprintf(demote_text, sizeof demote_text,
                     "demoted: %zu tuned problem(s) where the vendor was the faster beyond noise (below %.2fx, the "
                     "intervals apart): the database now gives them to the vendor",
                     n_demoted, MMT_DEMOTE_RATIO);
        else
            snprintf(demote_text, sizeof demote_text,
                     "demoted: %zu tuned problem(s) the vendor beat beyond noise, not recorded: %.500s", n_demoted,
                     err.msg);
    }
    char vendor_text[1024];
    if (vendor && labels[0])
        snprintf(vendor_text, sizeof vendor_text,
                 "vendor: %.200s, timed side by side with libmmtuned (A B B A ... on the same inputs"
                 "%s): GFLOP/s, "
                 "vendor and ratio are figures of the same rounds; ratio: libmmtuned's GFLOP/s over the vendor's (above "
                 "1.00x: faster than the vendor)%s",
                 labels,
                 on_gpu ? ", each sample after an untimed run of its own, after a second of both by turns: the GPU at "
                          "its power limit, as in a tune"
                        : "",
                 on_gpu ? "; a note's \"below the power limit\": the ratio timed again with the GPU idle four times "
                          "each sample's length before it (an application's bursts of calls)"
                        : "");
    else if (vendor) snprintf(vendor_text, sizeof vendor_text, "vendor: %.100s: nothing measured", mmt_vendor_name(vendor));
    else snprintf(vendor_text, sizeof vendor_text, "vendor: %.300s", vendor_why);
    const char *footer[MMT_N_MODES + 7] = {vendor_text, mmt_cli_intervals_note, mmt_cli_errors_note};
    char core[600];
    size_t n_footer = 3;
    if (demote_text[0]) footer[n_footer++] = demote_text;
    if (mmt_cli_vendor_core_line(&pl.dev, core, sizeof core)) footer[n_footer++] = core;
    char unseen[MMT_N_MODES + 1][600];
    const size_t n_unseen = o->unseen && rows && hows ? unseen_lines(o, &pl, rows, hows, unseen) : 0;
    for (size_t i = 0; i < n_unseen; i++) footer[n_footer++] = unseen[i];
    footer[n_footer] = NULL;
    char title[512];
    snprintf(title, sizeof title, "libmmtuned vs vendor on %s (%s), database %.200s%s", pl.dev.name, pl.dev.arch, path,
             o->unseen ? ", shapes nobody tuned" : "");
    mmt_report_meta meta = {"bench", &pl.dev, path, footer, 0};
    if (rows && params && notes && vendor_labels && hows && demoted) mmt_cli_print_table(o, &meta, title, rows, pl.n);
    free(demoted);
    free(hows);
    free(rows);
    free(params);
    free(notes);
    free(vendor_labels);
    mmt_vendor_close(vendor);
    mmt_close(ctx);
    mmt_cli_free_plan(&pl);
    return rc;
}
