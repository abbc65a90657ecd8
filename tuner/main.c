/* main.c - the mmtune command line: tune, show, replay, report (the options are read by
 * cli/options.c, bench is cli/bench_cmd.c's, export, import and merge are transfer.c's).
 * Exit codes: 0 ok, 2 bad input (nothing is written then), 1 failure, 128 + the signal for
 * a tune stopped by SIGINT (Ctrl-C) or SIGTERM after printing its partial table. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "all_gpus.h"
#include "command.h"
#include "device_lock.h"
#include "exit_codes.h"
#include "explain.h"
#include "fsutil.h"
#include "lanes.h"
#include "replay.h"
#include "report_html.h"
#include "ooc_tune.h"
#include "prebuild.h"
#include "transfer.h"
#include "tune.h"
#include "twins.h"
#include "unseen.h"
#include "vendor.h"
#include "worker.h"

/* show and report: the database read-only (as it is, or a snapshot of any schema version)
 * and --device's description, which names the rows they keep. */
static int open_to_read(const mmt_cli_options *o, int snapshot, char *path, size_t size,
                        mmt_device_info *dev, mmt_store **st)
{
    mmt_cli_db_path(o, path, size);
    const mmt_backend *be;
    int rc = o->device ? mmt_cli_device_of(o->device, &be, dev) : EXIT_OK;
    if (rc != EXIT_OK) return rc;
    mmt_err err;
    if ((snapshot ? mmt_store_open_snapshot(path, st, &err) : mmt_store_open(path, 1, st, &err)) != MMT_OK) {
        fprintf(stderr, "mmtune: %s\n", err.msg);
        return EXIT_FAIL;
    }
    return EXIT_OK;
}

static int cmd_show(const mmt_cli_options *o)
{
    char path[4096];
    mmt_device_info dev;
    mmt_store *st;
    mmt_err err;
    int rc = open_to_read(o, 0, path, sizeof path, &dev, &st);
    if (rc != EXIT_OK) return rc;
    /* --json: the document on stdout, the table on stderr unless --quiet (as tune's) */
    FILE *text = o->json ? (o->quiet ? NULL : stderr) : stdout;
    const char *device = o->device ? dev.name : NULL;
    mmt_status s = MMT_OK;
    if (text) {
        fprintf(text, "database: %s\n", path);
        if (o->device) fprintf(text, "device: %s\n", dev.name);
        s = mmt_store_print_best(st, text, device, &err);
    }
    if (s == MMT_OK && o->json) s = mmt_report_json_best(stdout, st, path, device, &err);
    mmt_store_close(st);
    if (s != MMT_OK) fprintf(stderr, "mmtune: %s\n", err.msg);
    return s == MMT_OK ? EXIT_OK : EXIT_FAIL;
}

/* report: the page is made in memory from a snapshot of the database (any schema version,
 * never written), then written whole or not at all (- is stdout). */
static int cmd_report(const mmt_cli_options *o)
{
    char path[4096];
    mmt_device_info dev;
    mmt_store *st;
    mmt_err err;
    int rc = open_to_read(o, 1, path, sizeof path, &dev, &st);
    if (rc != EXIT_OK) return rc;
    /* this host's CPU: the page measures its memory bandwidth where it has its results */
    const mmt_backend *cpu;
    mmt_device_info host;
    int ordinal;
    int have_host = mmt_backend_for_device("cpu", &cpu, &ordinal, &err) == MMT_OK &&
                    cpu->probe(ordinal, &host, &err) == MMT_OK;
    mmt_report_options ro = {path, o->device ? dev.name : NULL, have_host ? &host : NULL};
    char *page = NULL;
    size_t size = 0;
    FILE *mem = open_memstream(&page, &size);
    mmt_report_summary sum;
    mmt_status s = mem ? mmt_report_html(st, &ro, mem, &sum, &err) : mmt_err_set(&err, MMT_OUT_OF_MEMORY, "out of memory");
    if (mem) fclose(mem);
    mmt_store_close(st);
    if (s == MMT_OK && strcmp(o->html, "-") == 0) {
        if (fwrite(page, 1, size, stdout) != size || fflush(stdout))
            s = mmt_err_set(&err, MMT_IO, "writing the page to stdout failed");
    } else if (s == MMT_OK && (s = mmt_file_write_atomic(o->html, page, size, &err)) == MMT_OK) {
        mode_t mask = umask(0); /* a page to share: the mode a new file gets, not the temporary's 0600 */
        umask(mask);
        chmod(o->html, 0666 & ~mask);
    }
    free(page);
    if (s != MMT_OK) {
        fprintf(stderr, "mmtune: %s\n", err.msg);
        return EXIT_FAIL;
    }
    if (!o->quiet)
        fprintf(stderr, "mmtune: wrote %s: %zu device%s, %zu problem%s, %zu trial%s of %s\n",
                strcmp(o->html, "-") == 0 ? "the page to stdout" : o->html, sum.devices,
                sum.devices == 1 ? "" : "s", sum.problems, sum.problems == 1 ? "" : "s", sum.trials,
                sum.trials == 1 ? "" : "s", path);
    return EXIT_OK;
}

/* The command line as one string a shell reads back as the same words, for the session
 * row: an argument with anything but plain characters goes in single quotes ('\'' for a
 * quote inside). */
static void join_args(int argc, char **argv, char *buf, size_t size)
{
    static const char plain_chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-+=/.,:%@";
    size_t n = 0;
    buf[0] = '\0';
    for (int i = 0; i < argc && n + 1 < size; i++) {
        const char *a = argv[i];
        int plain = *a && strspn(a, plain_chars) == strlen(a);
        if (i) buf[n++] = ' ';
        if (!plain && n + 1 < size) buf[n++] = '\'';
        for (; *a && n + 4 < size; a++)
            if (*a == '\'' && !plain) n += (size_t)snprintf(buf + n, size - n, "'\\''");
            else buf[n++] = *a;
        if (!plain && n + 1 < size) buf[n++] = '\'';
        buf[n] = '\0';
    }
}

/* GPUs: compile ahead on the cores the worker does not need (two are left for it and the
 * loop): a Hopper instance takes 0.3-0.5 s of a core, several times what measuring it
 * takes, so the GPU is kept busy only by many compiles at once, each in a process of its
 * own (prebuild.h says why). Capped for memory (an NVRTC compile holds a few hundred
 * MB). The CPU compiles in turn: a compile beside a measurement steals timed cores. */
static int compile_threads(const mmt_backend *be, int jobs)
{
    if (strcmp(be->name, "cpu") == 0) return 0;
    if (jobs >= 0) return jobs;
    long cores = sysconf(_SC_NPROCESSORS_ONLN) - 2;
    return cores < 1 ? 1 : cores > 24 ? 24 : (int)cores;
}

/* Ctrl-C and SIGTERM: the tune stops starting candidates, ends what is in flight and
 * prints its partial table; a second one stops at once. A SIGTERM within 2 s of the first
 * is the same request: `timeout` and `kill -TERM -PGID` send one to the process and one to
 * its group (the workers ignore theirs: the tuner ends them in order). */
static volatile sig_atomic_t stop_signal;
static struct timespec stop_first;

static void on_stop(int sig)
{
    static const char msg[] = "\nmmtune: stopping: the candidate in flight ends, then the partial table "
                              "(again to stop at once)\n";
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now); /* async-signal-safe */
    if (stop_signal) {
        const double since = (double)(now.tv_sec - stop_first.tv_sec) + (now.tv_nsec - stop_first.tv_nsec) / 1e9;
        if (sig == SIGTERM && stop_signal == SIGTERM && since < 2) return;
        signal(sig, SIG_DFL); /* the second: at once, as the signal's own default */
        raise(sig);
        return;
    }
    stop_first = now;
    stop_signal = sig;
    ssize_t w = write(STDERR_FILENO, msg, sizeof msg - 1);
    (void)w;
}

static void catch_stop(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

/* A tune's row: the result, and a note saying what the figures cannot (a search cut short,
 * a vendor that was not timed, why there is no result) and, of a run on twins, which device
 * measured it (device; NULL on one). */
static mmt_report_row tune_row(const mmt_cli_options *o, const mmt_problem *p, const mmt_tune_result *r,
                               int begun, const char *device, char *note, size_t size)
{
    size_t n = 0;
    note[0] = '\0';
    if (!begun)
        n += (size_t)snprintf(note, size, "not tuned: interrupted before it began");
    else if (r->partial && r->interrupted)
        n += (size_t)snprintf(note, size, "partial: interrupted after %zu of %zu candidates; the same command goes on",
                              r->proposed, r->planned);
    else if (r->partial && o->budget_s > 0)
        n += (size_t)snprintf(note, size,
                              "partial: the time budget (%s per problem) ended the search after %zu of %zu candidates; "
                              "the same command goes on",
                              o->budget_text, r->proposed, r->planned);
    else if (r->partial) /* no time budget to blame: a failure (a full disk, say) ended it */
        n += (size_t)snprintf(note, size, "partial: the search ended after %zu of %zu candidates; the same command "
                                          "goes on",
                              r->proposed, r->planned);
    else if (r->interrupted && r->ok)
        n += (size_t)snprintf(note, size, "interrupted before the vendor round: no vendor figure");
    char accuracy[96];
    snprintf(accuracy, sizeof accuracy, "the fastest template's error was above %.1fx its own on the same inputs",
             MMT_VENDOR_ERROR_RATIO);
    const char *why = r->vendor_serves == MMT_VENDOR_FASTER ? "it was faster than every template in the same rounds"
                      : r->vendor_serves == MMT_VENDOR_FASTER_BESIDE
                          ? "with its calls and the fastest template's alternating in one process it was the faster "
                            "(as an application calling both finds them)"
                      : r->vendor_serves == MMT_VENDOR_FASTER_COOL
                          ? "timed again with the GPU below its power limit (as an application's bursts of calls "
                            "run), it was the faster"
                      : r->vendor_serves == MMT_VENDOR_MORE_ACCURATE ? accuracy
                                                                     : NULL;
    if (why && n < size)
        n += (size_t)snprintf(note + n, size - n,
                              "%sserved by %s: %s, so libmmtuned calls it for this problem (the figures are the "
                              "templates' best beside it)",
                              n ? "; " : "", r->vendor_label, why);
    if (r->cpu_wait > MMT_CPU_BUSY && n < size)
        n += (size_t)snprintf(note + n, size - n,
                              "%sbusy: some task waited for a CPU %.0f%% of the time this problem (or its round "
                              "beside the vendor) was measured; its figures displace none measured quiet, whom "
                              "libmmtuned serves stays as it was, and the next run measures it again",
                              n ? "; " : "", 100 * r->cpu_wait);
    if (r->message[0] && n < size) n += (size_t)snprintf(note + n, size - n, "%s%s", n ? "; " : "", r->message);
    if (device && begun && n < size) snprintf(note + n, size - n, "%stuned on device %s", n ? "; " : "", device);
    return (mmt_report_row){.problem = p, .family = r->ok ? r->family : NULL, .params = r->ok ? r->params : NULL,
                            .tuned = r->tuned, .vendor = r->vendor,
                            .vendor_label = r->vendor.median_ms > 0 ? r->vendor_label : NULL,
                            .vendor_serves = r->vendor_serves, .note = note, .detail = begun ? &r->detail : NULL};
}

/* How a tune went, for the session row: interrupted, failed, partial or complete. */
static const char *outcome(int interrupted, int failed, int partial)
{
    return interrupted ? "interrupted" : failed ? "failed" : partial ? "partial" : "complete";
}

/* What the lanes of a tune share (lanes.h): each problem's result, row and note by its
 * index, the one progress output and the run's outcome, these two under lock. */
typedef struct tune_run {
    const mmt_cli_options *o;
    const mmt_cli_plan *pl;
    const char *path;
    const mmt_twins *tw;
    mmt_tuner *lanes; /* one per device of tw */
    mmt_tune_result *res;
    mmt_report_row *rows;
    char (*notes)[1024];
    mmt_progress *progress; /* the run's: a lone lane's own, else fed by tune_one alone */
    pthread_mutex_t lock;
    int rc, partial;
    char failed_devices[600]; /* what the table's footer says of lanes that left */
} tune_run;

/* Problem i on a lane: tuned, then its row and its line of progress. A problem that fails
 * as a whole for the device's sake (a launch, a load or the worker process, not a
 * candidate; not the database or the input, which another lane would meet too) where another
 * lane is left: this lane's device is taken for broken, said on stderr, and the problem goes
 * to another lane (returns 1, nothing recorded). */
static int tune_one(void *user, int lane, size_t i, int last)
{
    tune_run *r = user;
    mmt_tuner *t = &r->lanes[lane];
    const mmt_problem *p = &r->pl->problems[i];
    mmt_tune_result *res = &r->res[i];
    const int begun = !stop_signal, host = r->pl->host && r->pl->host[i];
    mmt_err err;
    mmt_err_clear(&err);
    const mmt_status st = !begun ? MMT_OK
                          : host ? mmt_ooc_tune_problem(t, r->tw->device[lane], r->path, p, res, &err)
                                 : mmt_tune_problem(t, p, res, &err);
    const int failed = st != MMT_OK, device_failed = st == MMT_LAUNCH || st == MMT_LOAD || st == MMT_IO;
    if (device_failed && !last) {
        pthread_mutex_lock(&r->lock);
        fprintf(stderr, "mmtune: device %s: %s; it takes no more problems, the other devices tune them\n",
                r->tw->device[lane], err.msg);
        const size_t n = strlen(r->failed_devices);
        snprintf(r->failed_devices + n, sizeof r->failed_devices - n, "%s%s (%.200s)", n ? "; " : "",
                 r->tw->device[lane], err.msg);
        r->rc = EXIT_FAIL;
        pthread_mutex_unlock(&r->lock);
        return 1;
    }
    if (failed) snprintf(res->message, sizeof res->message, "%.500s", err.msg);
    r->rows[i] = tune_row(r->o, p, res, begun, r->tw->n > 1 ? r->tw->device[lane] : NULL, r->notes[i],
                          sizeof r->notes[i]);
    pthread_mutex_lock(&r->lock);
    if (failed) {
        fprintf(stderr, "mmtune: %s\n", err.msg);
        r->rc = EXIT_FAIL;
    }
    if (begun && r->tw->n > 1) { /* the lanes print no progress of their own: a line a problem here */
        char where[48];
        snprintf(where, sizeof where, "on device %s", r->tw->device[lane]);
        mmt_progress_problem(r->progress, p, where, res->planned, 1);
    }
    if (begun) mmt_progress_end_problem(r->progress, &r->rows[i]);
    r->partial |= res->partial || !begun;
    if (begun && !res->ok && r->rc == EXIT_OK) r->rc = EXIT_FAIL;
    pthread_mutex_unlock(&r->lock);
    return 0;
}

static int cmd_tune(const mmt_cli_options *o, int argc, char **argv)
{
    mmt_cli_plan pl;
    int rc = mmt_cli_make_plan(o, &pl);
    if (rc != EXIT_OK) {
        mmt_cli_free_plan(&pl);
        return rc;
    }
    char path[4096], command[4096];
    mmt_cli_db_path(o, path, sizeof path);
    join_args(argc, argv, command, sizeof command);
    static mmt_twins tw; /* the devices, each a lane of the run (one process runs one tune) */
    if ((rc = mmt_twins_probe(o->device, &tw)) != EXIT_OK) {
        mmt_cli_free_plan(&pl);
        return rc;
    }
    for (size_t i = 0; tw.n > 1 && pl.host && i < pl.n; i++)
        if (pl.host[i]) { /* two lanes would hold two problems' host matrices at once */
            fprintf(stderr, "mmtune: %s: host: true problems are tuned on one device (--device %s), not on a list\n",
                    o->shapes, tw.device[0]);
            mmt_cli_free_plan(&pl);
            return EXIT_BAD_INPUT;
        }
    mmt_err lock_err;
    if (mmt_twins_lock(&tw, !o->no_wait, &lock_err) != MMT_OK) {
        fprintf(stderr, "mmtune: %s\n", lock_err.msg);
        mmt_cli_free_plan(&pl);
        return EXIT_FAIL;
    }
    if (o->from_misses) { /* the session row says what the command chose */
        size_t n = strlen(command);
        snprintf(command + n, sizeof command - n, " -- from misses: %s", pl.n ? pl.picked : "nothing left to tune");
    }
    mmt_err err;
    mmt_tuner t = {.be = pl.be, .dev = pl.dev, .strategy = o->strategy, .budget = o->budget,
                   .budget_frac = o->budget_frac, .budget_s = o->budget_s, .seed = o->seed,
                   .fresh = o->fresh, .classic_only = o->classic_only,
                   .compile_threads = compile_threads(pl.be, o->jobs), .stop = &stop_signal};
    memcpy(t.families, pl.families, sizeof t.families);
    const char *budget = o->budget_text ? o->budget_text : "0";
    if (mmt_store_open(path, 0, &t.st, &err) != MMT_OK ||
        mmt_store_device(t.st, &t.dev, &t.device_id, &err) != MMT_OK ||
        mmt_store_session_begin(t.st, t.device_id, command, o->strategy, budget, &t.session_id, &err) != MMT_OK) {
        fprintf(stderr, "mmtune: %s\n", err.msg);
        mmt_store_close(t.st);
        mmt_cli_free_plan(&pl);
        return EXIT_FAIL;
    }
    if (pl.n == 0) { /* a shard or the misses left nothing: the session row records the run */
        if (o->shard_count && !o->quiet)
            fprintf(stderr, "mmtune: shard %d/%d of %s holds no problem: nothing to tune\n", o->shard_index,
                    o->shard_count, o->shapes);
        rc = mmt_store_session_end(t.st, t.session_id, "complete", &err) == MMT_OK ? EXIT_OK : EXIT_FAIL;
        mmt_store_close(t.st);
        mmt_cli_free_plan(&pl);
        return rc;
    }
    char exe[1024];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    snprintf(exe + (len > 0 ? len : 0), sizeof exe - (len > 0 ? len : 0), "%s", len > 0 ? "" : argv[0]);
    t.exe = exe;
    mmt_tuner *lanes = calloc((size_t)tw.n, sizeof *lanes);
    mmt_status started = lanes ? mmt_worker_start(exe, tw.device[0], &t.worker, &err)
                               : mmt_err_set(&err, MMT_OUT_OF_MEMORY, "out of memory");
    if (started == MMT_OK) {
        lanes[0] = t;
        started = mmt_twins_start_lanes(&tw, path, exe, lanes, &err);
        if (started != MMT_OK) mmt_worker_stop(t.worker);
    }
    if (started != MMT_OK) {
        fprintf(stderr, "mmtune: %s\n", err.msg);
        mmt_store_session_end(t.st, t.session_id, "failed", &err);
        mmt_store_close(t.st);
        mmt_cli_free_plan(&pl);
        free(lanes);
        return EXIT_FAIL;
    }
    catch_stop();
    t.progress = lanes[0].progress = mmt_progress_new(stderr, pl.n, o->quiet);
    if (tw.n > 1) lanes[0].progress = NULL; /* the lanes' lines would interleave: tune_one prints them */
    if (!o->quiet) fprintf(stderr, "mmtune %s: tuning %zu problem(s) on %s%s (%s%s%s) into %s\n", mmt_version_string(),
                           pl.n, tw.n > 1 ? "twins of " : "", t.dev.name, t.dev.arch, tw.n > 1 ? "; devices " : "",
                           tw.n > 1 ? o->device : "", path);

    tune_run run = {.o = o, .pl = &pl, .path = path, .tw = &tw, .lanes = lanes, .res = calloc(pl.n, sizeof *run.res),
                    .rows = calloc(pl.n, sizeof *run.rows), .notes = calloc(pl.n, sizeof *run.notes),
                    .progress = t.progress, .lock = PTHREAD_MUTEX_INITIALIZER, .rc = rc};
    mmt_tune_result *res = run.res;
    mmt_report_row *rows = run.rows;
    char(*notes)[1024] = run.notes;
    size_t *order = calloc(pl.n ? pl.n : 1, sizeof *order);
    if (res && rows && notes && order) {
        /* one device: the file's order; twins: the costliest first, each to the next free lane */
        if (tw.n > 1) mmt_lanes_order(pl.problems, pl.n, order);
        else
            for (size_t i = 0; i < pl.n; i++) order[i] = i;
        mmt_lanes_run(tw.n, order, pl.n, tune_one, &run);
    }
    free(order);
    rc = run.rc;
    const int partial = run.partial;
    mmt_twins_stop_lanes(lanes, tw.n);
    free(lanes);
    mmt_store_session_end(t.st, t.session_id, outcome(stop_signal != 0, rc != EXIT_OK, partial), &err);

    /* the footer: where the vendor's figures come from, what the intervals and errors are,
     * what partial means */
    char vendor[600], labels[400] = "";
    snprintf(vendor, sizeof vendor, "vendor: not timed%s", stop_signal ? " (interrupted before its rounds)" : "");
    for (size_t i = 0; res && i < pl.n; i++)
        if (res[i].vendor.median_ms > 0) mmt_cli_add_label(labels, sizeof labels, res[i].vendor_label);
    const int on_gpu = strcmp(pl.be->name, "cpu") != 0;
    if (labels[0])
        snprintf(vendor, sizeof vendor,
                 "vendor: %s, timed side by side with each winner at the end of its problem, in this run (A B B A "
                 "... on the same inputs%s): GFLOP/s, vendor and ratio are figures of the same rounds; ratio: our "
                 "GFLOP/s over the vendor's (above 1.00x: faster than the vendor)",
                 labels, on_gpu ? ", each sample after an untimed run of its own" : "");
    char core[600];
    const char *footer[8] = {vendor};
    size_t n_footer = 1;
    if (mmt_cli_vendor_core_line(&t.dev, core, sizeof core)) footer[n_footer++] = core;
    footer[n_footer++] = mmt_cli_intervals_note;
    footer[n_footer++] = mmt_cli_errors_note;
    if (partial)
        footer[n_footer++] = "partial: a search stopped before it measured the candidates it planned (time budget, "
                             "Ctrl-C); the same command goes on with it";
    size_t busy = 0;
    for (size_t i = 0; res && i < pl.n; i++) busy += res[i].cpu_wait > MMT_CPU_BUSY;
    char busy_line[300];
    if (busy) {
        snprintf(busy_line, sizeof busy_line,
                 "busy: %zu of %zu problem(s) measured while other work kept tasks waiting for a CPU more than %.0f%% "
                 "of the time (/proc/pressure/cpu): run the same command on a quiet machine",
                 busy, pl.n, 100 * MMT_CPU_BUSY);
        footer[n_footer++] = busy_line;
    }
    char failed_line[700];
    if (run.failed_devices[0]) {
        snprintf(failed_line, sizeof failed_line, "failed: device %s; the other devices tuned its problems",
                 run.failed_devices);
        footer[n_footer++] = failed_line;
    }
    footer[n_footer] = NULL;
    char title[512];
    snprintf(title, sizeof title, "best per shape on %s (%s), GFLOP/s = 2mnk / median time%s", t.dev.name,
             t.dev.arch, stop_signal ? "; interrupted: a partial table" : "");
    mmt_report_meta meta = {"tune", &t.dev, path, footer, stop_signal != 0};
    if (res && rows && notes) mmt_cli_print_table(o, &meta, title, rows, pl.n);
    if (res && rows && notes && !o->quiet && !stop_signal) { /* what a person does next: on stderr, off the table */
        char what[600] = "";
        if (o->problem || o->shapes)
            snprintf(what, sizeof what,
                     "`mmtune bench --device %.40s %s \"%.200s\" --db %.200s` times libmmtuned as an application calls it, beside "
                     "the vendor;\n      ",
                     tw.device[0], o->problem ? "--problem" : "--shapes", o->problem ? o->problem : o->shapes, path);
        fprintf(stderr,
                "\nnext: %s`mmtune show --db %s` lists what the database holds; `mmtune explain KNOB` says what a "
                "knob of a config sets;\n      programs get these kernels by linking -lmmtuned (mmtuned.h), through "
                "the drop-in BLAS (LD_PRELOAD=libmmtuned_blas.so), or in Python (mmtune.matmul)\n",
                what, path);
    }
    free(res);
    free(rows);
    free(notes);
    mmt_progress_free(t.progress);
    mmt_worker_stop(t.worker);
    mmt_store_close(t.st);
    mmt_cli_free_plan(&pl);
    return stop_signal ? 128 + stop_signal : rc;
}

/* replay: strategies against the recorded trials of a database (replay.h). */
static int cmd_replay(const mmt_cli_options *o)
{
    if (o->unseen) { /* the serving rule, each tuned problem left out (unseen.h) */
        char path[4096];
        if (o->landscape) snprintf(path, sizeof path, "%s", o->landscape);
        else mmt_cli_db_path(o, path, sizeof path);
        mmt_unseen_options u = {.db = path, .device = o->device, .json = o->json};
        mmt_err err;
        FILE *text = o->json ? (o->quiet ? NULL : stderr) : stdout;
        mmt_status s = mmt_unseen_replay(&u, text, stdout, &err);
        if (s == MMT_OK) return EXIT_OK;
        fprintf(stderr, "mmtune: %s\n", err.msg);
        return s == MMT_INVALID_ARGUMENT || s == MMT_NOT_FOUND ? EXIT_BAD_INPUT : EXIT_FAIL;
    }
    mmt_replay_options r = {.landscape = o->landscape, .strategies = o->strategy, .budget = o->budget,
                            .budget_frac = o->budget_frac, .batch = (size_t)o->batch, .seeds = o->seeds,
                            .warm = o->warm};
    mmt_err err;
    mmt_status s = mmt_replay(&r, stdout, &err);
    if (s == MMT_OK) return EXIT_OK;
    fprintf(stderr, "mmtune: %s\n", err.msg);
    return s == MMT_INVALID_ARGUMENT || s == MMT_NOT_FOUND ? EXIT_BAD_INPUT : EXIT_FAIL;
}

int main(int argc, char **argv)
{
    /* a file-size limit (ulimit -f) fails the write that passes it, with a message, rather
     * than killing mmtune with no word (SIGXFSZ's default); the workers inherit it */
    signal(SIGXFSZ, SIG_IGN);
    if (argc == 3 && strcmp(argv[1], "__worker") == 0) return mmt_worker_main(argv[2]);
    if (argc == 2 && strcmp(argv[1], "__compiler") == 0) return mmt_prebuild_main();
    if (argc > 1 && mmt_transfer_command(argv[1])) return mmt_transfer_main(argc, argv);
    if (argc > 1 && strcmp(argv[1], "explain") == 0) return mmt_explain_main(argc, argv);
    mmt_cli_options o;
    int rc = mmt_cli_parse(argc, argv, &o);
    if (rc != EXIT_OK) return rc;
    if (!o.db && (rc = mmt_default_db_checked()) != EXIT_OK) return rc;
    int vendor_off; /* a misspelt MMTUNE_VENDOR stops a tune before anything is written */
    mmt_err err;
    if (mmt_vendor_policy(&vendor_off, &err) != MMT_OK) {
        fprintf(stderr, "mmtune: %s\n", err.msg);
        return EXIT_BAD_INPUT;
    }
    /* the vendor at its best: before the tuner, its worker or bench load OpenBLAS */
    if ((strcmp(o.command, "tune") == 0 || strcmp(o.command, "bench") == 0) && o.device &&
        strcmp(o.device, "cpu") == 0)
        mmt_cli_ask_vendor_core();
    if (strcmp(o.command, "show") == 0) return cmd_show(&o);
    if (strcmp(o.command, "bench") == 0) return mmt_cli_bench(&o);
    if (strcmp(o.command, "replay") == 0) return cmd_replay(&o);
    if (strcmp(o.command, "report") == 0) return cmd_report(&o);
    if (strcmp(o.device, "all") == 0)
        return mmt_tune_all_gpus(argc, argv, o.json);
    return cmd_tune(&o, argc, argv);
}
