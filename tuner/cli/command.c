/* command.c - what mmtune's commands share (see command.h). */
#include "command.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exit_codes.h"
#include "from_misses.h"
#include "shapes.h"
#include "shard.h"
#include "store.h"
#include "unseen.h"
#include "vendor.h"

/* OpenBLAS's core on the CPU (vendor.h), asked for by the commands that time it on the CPU
 * before anything loaded it. */
static mmt_vendor_core vendor_core;
static int vendor_core_asked;

void mmt_cli_ask_vendor_core(void) { mmt_vendor_fair_core(&vendor_core), vendor_core_asked = 1; }

/* The footer line of the vendor's core on dev, or NULL where it was not asked for. */
const char *mmt_cli_vendor_core_line(const mmt_device_info *dev, char *buf, size_t size)
{
    if (!vendor_core_asked || strcmp(dev->backend, "cpu") != 0) return NULL;
    int64_t cores = 1;
    mmt_device_get_prop(dev, "cores", 5, &cores);
    mmt_vendor_core_note(&vendor_core, (int)cores, buf, size);
    const char *g = getenv("GOMP_SPINCOUNT"), *w = getenv("OMP_WAIT_POLICY"), *o = getenv("OPENBLAS_THREAD_TIMEOUT");
    const size_t n = strlen(buf);
    snprintf(buf + n, size - n, "; idle threads: %s=%s, OPENBLAS_THREAD_TIMEOUT=%s",
             w ? "OMP_WAIT_POLICY" : "GOMP_SPINCOUNT", w ? w : g ? g : "(libgomp's default)",
             o ? o : "(OpenBLAS's default)");
    return buf;
}

void mmt_cli_db_path(const mmt_cli_options *o, char *buf, size_t size)
{
    if (o->db) snprintf(buf, size, "%s", o->db);
    else mmt_store_default_path(buf, size);
}

/* The backend and description of --device; a device this machine lacks is bad input. */
int mmt_cli_device_of(const char *device, const mmt_backend **be, mmt_device_info *dev)
{
    int ordinal;
    mmt_err err;
    mmt_status s = mmt_backend_for_device(device, be, &ordinal, &err);
    if (s == MMT_OK) s = (*be)->probe(ordinal, dev, &err);
    if (s == MMT_OK) return EXIT_OK;
    fprintf(stderr, "mmtune: %s\n", err.msg);
    /* a device this machine does not have is bad input, like a misspelt one */
    return s == MMT_INVALID_ARGUMENT || s == MMT_NOT_FOUND || s == MMT_UNSUPPORTED ? EXIT_BAD_INPUT : EXIT_FAIL;
}

/* Adds a vendor label to a "; "-separated list unless it is there: a table over several
 * modes names every figure it shows ("cuBLAS 13.1.0; cuBLAS 13.1.0 (TF32)"). */
void mmt_cli_add_label(char *list, size_t size, const char *label)
{
    size_t len = strlen(label);
    for (const char *at = list; (at = strstr(at, label)) != NULL; at += len)
        if ((at == list || at[-1] == ' ') && (at[len] == '\0' || at[len] == ';')) return;
    size_t n = strlen(list);
    snprintf(list + n, size - n, "%s%s", n ? "; " : "", label);
}


void mmt_cli_free_plan(mmt_cli_plan *pl)
{
    free(pl->problems);
    free(pl->host);
    for (int i = 0; i < MMT_N_MODES; i++) mmt_family_list_free(&pl->families[i]);
}

static int plan_misses(const mmt_cli_options *o, mmt_cli_plan *pl);
static int plan_unseen(const mmt_cli_options *o, mmt_cli_plan *pl);

int mmt_cli_make_plan(const mmt_cli_options *o, mmt_cli_plan *pl)
{
    mmt_err err;
    int rc;
    memset(pl, 0, sizeof *pl);
    if (o->shapes && mmt_shapes_load_file(o->shapes, &pl->problems, &pl->host, &pl->n, &err) != MMT_OK) {
        fprintf(stderr, "mmtune: %s\n", err.msg);
        return EXIT_BAD_INPUT;
    }
    int hosts = 0;
    for (size_t i = 0; pl->host && i < pl->n; i++) hosts |= pl->host[i];
    if (hosts && (o->shard_count || strcmp(o->command, "bench") == 0)) {
        fprintf(stderr, "mmtune: %s: host: true problems are tuned by a plain tune (not %s)\n", o->shapes,
                o->shard_count ? "--shard" : "bench");
        return EXIT_BAD_INPUT;
    }
    if (o->shard_count && mmt_shard_select(pl->problems, &pl->n, o->shard_index, o->shard_count)) {
        fprintf(stderr, "mmtune: out of memory\n");
        return EXIT_FAIL;
    }
    if (o->problem) {
        const char *why = (pl->problems = calloc(1, sizeof *pl->problems)) ? mmt_problem_parse(o->problem, pl->problems)
                                                                          : "out of memory";
        if (why) {
            fprintf(stderr, "mmtune: --problem '%s': %s (e.g. \"f32 row NN 64x48x40\", \"bf16->f32 col NT 128x64x32\")\n",
                    o->problem, why);
            return EXIT_BAD_INPUT;
        }
        pl->n = 1;
    }
    char first[64]; /* of a tune's list of twins (twins.h), the first */
    snprintf(first, sizeof first, "%.*s", (int)strcspn(o->device, ","), o->device);
    if ((rc = mmt_cli_device_of(first, &pl->be, &pl->dev)) != EXIT_OK) return rc;
    if (hosts && strcmp(pl->be->name, "cuda") != 0) {
        fprintf(stderr, "mmtune: %s: host: true problems tune the out-of-core GEMM, which runs on a GPU (not %s)\n",
                o->shapes, pl->dev.name);
        return EXIT_BAD_INPUT;
    }
    mmt_status s;
    if (o->from_misses && (rc = plan_misses(o, pl)) != EXIT_OK) return rc;
    if (o->unseen && (rc = plan_unseen(o, pl)) != EXIT_OK) return rc;
    for (size_t i = 0; i < pl->n; i++) {
        mmt_mode dt = pl->problems[i].mode;
        mmt_family_list *fl = &pl->families[dt];
        if (fl->n) continue;
        s = o->space ? mmt_family_list_load_file(o->space, fl, &err) : mmt_family_find_all(pl->be->name, dt, fl, &err);
        if (s == MMT_OK && !(fl->f[0]->space->modes & (1u << dt)))
            s = mmt_err_set(&err, MMT_UNSUPPORTED, "%s does not list mode %s", fl->f[0]->space->file,
                            mmt_mode_name(dt));
        if (s == MMT_OK && strncmp(fl->f[0]->name, pl->be->name, strlen(pl->be->name)) != 0)
            s = mmt_err_set(&err, MMT_UNSUPPORTED, "%s is a template for another backend than %s", fl->f[0]->name,
                            pl->be->name);
        if (s != MMT_OK) { /* which problem, and what the device does serve */
            char name[128], modes[128] = "";
            mmt_problem_format(&pl->problems[i], name, sizeof name);
            for (int m = 0; !o->space && m < MMT_N_MODES; m++) {
                mmt_family_list any = {0};
                if (mmt_family_find_all(pl->be->name, (mmt_mode)m, &any, NULL) == MMT_OK && any.n)
                    snprintf(modes + strlen(modes), sizeof modes - strlen(modes), "%s%s", modes[0] ? ", " : "",
                             mmt_mode_name((mmt_mode)m));
                mmt_family_list_free(&any);
            }
            fprintf(stderr, "mmtune: %s: %s: %s%s%s%s%s%s\n", o->shapes ? o->shapes : "--problem", name, err.msg,
                    modes[0] ? " (" : "", modes[0] ? pl->dev.name : "", modes[0] ? " serves " : "", modes,
                    modes[0] ? ")" : "");
            return EXIT_BAD_INPUT;
        }
    }
    return EXIT_OK;
}

/* --from-misses: the plan's problems are the device's most frequent misses not tuned since. */
static int plan_misses(const mmt_cli_options *o, mmt_cli_plan *pl)
{
    char path[4096];
    mmt_cli_db_path(o, path, sizeof path);
    size_t left_out;
    mmt_err err;
    mmt_status s = mmt_from_misses_pick(path, pl->be, &pl->dev, o->space, o->top ? o->top : 10, &pl->problems,
                                        &pl->n, &left_out, pl->picked, sizeof pl->picked, &err);
    if (s != MMT_OK) {
        fprintf(stderr, "mmtune: %s\n", err.msg);
        return s == MMT_DATABASE || s == MMT_OUT_OF_MEMORY ? EXIT_FAIL : EXIT_BAD_INPUT;
    }
    if (!o->quiet)
        fprintf(stderr, "mmtune: from misses on %s: %s%s (%zu passed over: tuned since, or no template)\n",
                pl->dev.name, pl->n ? "tuning " : "", pl->n ? pl->picked : "nothing left to tune", left_out);
    return EXIT_OK;
}

/* bench --unseen N: the plan's problems are drawn between the device's tuned ones (unseen.h). */
static int plan_unseen(const mmt_cli_options *o, mmt_cli_plan *pl)
{
    char path[4096];
    mmt_cli_db_path(o, path, sizeof path);
    mmt_store *st;
    mmt_err err;
    mmt_status s = mmt_store_open(path, 1, &st, &err);
    if (s == MMT_OK) {
        s = mmt_unseen_draw(st, &pl->dev, o->unseen_n, o->seed, &pl->problems, &pl->n, pl->drawn, sizeof pl->drawn,
                            &err);
        mmt_store_close(st);
    }
    if (s != MMT_OK) {
        fprintf(stderr, "mmtune: %s\n", err.msg);
        return s == MMT_NOT_FOUND ? EXIT_BAD_INPUT : EXIT_FAIL;
    }
    return EXIT_OK;
}

/* What every table's intervals are (stats.h). */
const char mmt_cli_intervals_note[] =
    "intervals: for each median, from order statistics (no assumption about the shape of the times), with "
    "their exact coverage: 95% or a little more from 6 samples on";

/* What every table's errors are (bench.h's verification). */
const char mmt_cli_errors_note[] =
    "error, vendor error: each result's relative (Frobenius) error against a higher-precision reference, ours "
    "and the vendor's on the same inputs";

/* The table: on stdout; with --json the JSON document there instead, and the table on
 * stderr (a person at a terminal still reads it) unless --quiet. */
void mmt_cli_print_table(const mmt_cli_options *o, const mmt_report_meta *meta, const char *title,
                         const mmt_report_row *rows, size_t n)
{
    if (!o->json) {
        mmt_report_table(stdout, title, meta->notes, rows, n);
        return;
    }
    if (!o->quiet) mmt_report_table(stderr, title, meta->notes, rows, n);
    mmt_report_json(stdout, meta, rows, n);
}
