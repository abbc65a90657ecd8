/* main.c - the mmtune command line: tune, bench, show. Exit codes: 0 ok, 2 bad input
 * (nothing is written then), 1 failure. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "all_gpus.h"
#include "bench.h"
#include "exit_codes.h"
#include "replay.h"
#include "from_misses.h"
#include "shapes.h"
#include "search.h"
#include "shard.h"
#include "transfer.h"
#include "tune.h"
#include "vendor.h"
#include "worker.h"

static const char usage[] =
    "usage: mmtune [tune] --device DEV --shapes FILE [options]   tune every problem of FILE\n"
    "       mmtune bench --device DEV --shapes FILE [--db PATH]  tuned kernels vs the vendor library\n"
    "       mmtune show [--db PATH]                               what the database holds\n"
    "       mmtune [tune] --device DEV --problem TEXT [options]   tune one problem\n"
    "       mmtune [tune] --device DEV --from-misses [--top N]    tune what libmmtuned ran untuned most\n"
    "       mmtune replay --landscape DB [--strategy NAME|all] [--budget N|P%] [--seeds N] [--warm]\n"
    "                                                             strategies against recorded trials\n"
    "       mmtune export [--db PATH] [-o FILE] [--format csv|json]  the results, for another machine\n"
    "       mmtune import FILE... [--db PATH]                     results an export wrote (- is stdin)\n"
    "       mmtune merge DB... -o OUT                             databases into one (OUT may exist)\n"
    "\n"
    "  --device DEV      cpu, a GPU number (0, 1, ...), or all (every GPU in parallel; GPUs of one\n"
    "                    model deal the problems among them; a host without a GPU is refused)\n"
    "  --shapes FILE     the problems (YAML; see examples/shapes.yaml)\n"
    "  --shard I/N       only the I-th of N shares of the shapes file's problems (I from 0): N\n"
    "                    workers, each into its own --db, then mmtune merge\n"
    "  --problem TEXT    one problem: \"MODE[->OUT] row|col NN|NT|TN|TT MxNxK\" (f32 row NN 64x48x40)\n"
    "  --from-misses     the problems of the database's miss table, most calls first, less\n"
    "                    those tuned since; --top N of them (default 10)\n"
    "  --db PATH         the database (default $MMTUNE_DB, else ~/.cache/mmtune/mmtune.db)\n"
    "  --strategy NAME   model (default: guided by a model of the measured trials), anneal\n"
    "                    (simulated annealing on the parameter grid), random or exhaustive\n"
    "  --budget N|P%|Ts|Tm  per problem: measure at most N configurations (0 = all) or P%\n"
    "                    of them, or stop starting new ones after T seconds / minutes (90s,\n"
    "                    2m; default 45s)\n"
    "  --seed N          seed of the random and guided strategies (default 1)\n"
    "  --space FILE      a search space YAML instead of the built-in one\n"
    "  --jobs N          compile ahead on N threads (GPUs; default: the cores less two)\n"
    "  --fresh           measure again configurations the database already has\n"
    "  --classic-only    no levels round: large f32 and f64 problems are not measured with\n"
    "                    Strassen-Winograd levels around their classic winner\n"
    "  --quiet           no progress output\n"
    "  --landscape DB    replay: a database with exhaustive tunes; --seeds N runs per strategy\n"
    "                    (default 5), --warm starts each problem from the others' winners,\n"
    "                    --batch N proposals per step of a guided strategy (default 1)\n"
    "  --help, --version\n";

typedef struct options {
    const char *command, *device, *shapes, *db, *strategy, *space, *landscape;
    size_t budget;
    double budget_s;    /* 0: no time budget */
    double budget_frac; /* 0: no fraction of the candidates */
    int seeds, warm, batch; /* replay */
    const char *budget_text;
    uint64_t seed;
    int fresh, quiet, classic_only;
    int jobs; /* -1: the default */
    const char *problem; /* --problem TEXT */
    int from_misses;
    size_t top; /* 0: not given */
    int shard_index, shard_count; /* --shard I/N; count 0: not given */
} options;

static int bad_input(const char *fmt, const char *arg)
{
    fprintf(stderr, "mmtune: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n(mmtune --help shows the usage)\n");
    return EXIT_BAD_INPUT;
}

static int parse_number(const char *text, uint64_t *out)
{
    char *end;
    unsigned long long v = strtoull(text, &end, 10);
    if (!*text || *end || text[0] == '-') return -1;
    *out = v;
    return 0;
}

/* "200" (candidates), "10%" (of each problem's candidates) or "90s" / "2m" (time per
 * problem). */
static int parse_budget(const char *text, size_t *count, double *fraction, double *seconds)
{
    char *end;
    unsigned long long v = strtoull(text, &end, 10);
    if (end == text || text[0] == '-') return -1;
    if (!*end) *count = (size_t)v;
    else if (strcmp(end, "%") == 0 && v > 0 && v <= 100) *fraction = (double)v / 100.0;
    else if (strcmp(end, "s") == 0 && v > 0) *seconds = (double)v;
    else if (strcmp(end, "m") == 0 && v > 0) *seconds = 60.0 * (double)v;
    else return -1;
    return 0;
}

static int parse_options(int argc, char **argv, options *o)
{
    static const struct option longs[] = {
        {"device", required_argument, 0, 'd'}, {"shapes", required_argument, 0, 's'},
        {"db", required_argument, 0, 'b'},     {"strategy", required_argument, 0, 'S'},
        {"budget", required_argument, 0, 'B'}, {"seed", required_argument, 0, 'e'},
        {"space", required_argument, 0, 'p'},  {"fresh", no_argument, 0, 'f'},
        {"quiet", no_argument, 0, 'q'},        {"help", no_argument, 0, 'h'},
        {"version", no_argument, 0, 'V'},      {"jobs", required_argument, 0, 'j'},
        {"landscape", required_argument, 0, 'L'}, {"seeds", required_argument, 0, 'n'},
        {"warm", no_argument, 0, 'w'},         {"batch", required_argument, 0, 'a'},
        {"problem", required_argument, 0, 'P'}, {"from-misses", no_argument, 0, 'M'},
        {"top", required_argument, 0, 'T'},    {"shard", required_argument, 0, 'H'},
        {"classic-only", no_argument, 0, 'C'}, {0, 0, 0, 0}};
    memset(o, 0, sizeof *o);
    o->command = "tune";
    o->strategy = "model";
    o->seed = 1;
    o->jobs = -1;
    o->seeds = 5;
    o->batch = 1;
    int first = 1;
    if (argc > 1 && argv[1][0] != '-') {
        o->command = argv[1];
        first = 2;
    }
    optind = first;
    opterr = 0;
    int c;
    uint64_t v;
    while ((c = getopt_long(argc, argv, "", longs, NULL)) != -1) {
        switch (c) {
        case 'd': o->device = optarg; break;
        case 's': o->shapes = optarg; break;
        case 'b': o->db = optarg; break;
        case 'S': o->strategy = optarg; break;
        case 'p': o->space = optarg; break;
        case 'f': o->fresh = 1; break;
        case 'C': o->classic_only = 1; break;
        case 'q': o->quiet = 1; break;
        case 'B':
            if (parse_budget(optarg, &o->budget, &o->budget_frac, &o->budget_s))
                return bad_input("--budget takes a count, a percentage (10%%) or a time (90s, 2m), not '%s'",
                                 optarg);
            o->budget_text = optarg;
            break;
        case 'j':
            if (parse_number(optarg, &v) || v > 256)
                return bad_input("--jobs takes a number up to 256, not '%s'", optarg);
            o->jobs = (int)v;
            break;
        case 'e':
            if (parse_number(optarg, &v)) return bad_input("--seed takes a number, not '%s'", optarg);
            o->seed = v;
            break;
        case 'L': o->landscape = optarg; break;
        case 'w': o->warm = 1; break;
        case 'n':
            if (parse_number(optarg, &v) || v < 1 || v > 1000)
                return bad_input("--seeds takes a number from 1 to 1000, not '%s'", optarg);
            o->seeds = (int)v;
            break;
        case 'a':
            if (parse_number(optarg, &v) || v < 1 || v > 256)
                return bad_input("--batch takes a number from 1 to 256, not '%s'", optarg);
            o->batch = (int)v;
            break;
        case 'P': o->problem = optarg; break;
        case 'M': o->from_misses = 1; break;
        case 'T':
            if (parse_number(optarg, &v) || v < 1 || v > 1000000)
                return bad_input("--top takes a number from 1, not '%s'", optarg);
            o->top = (size_t)v;
            break;
        case 'H':
            if (mmt_shard_parse(optarg, &o->shard_index, &o->shard_count))
                return bad_input("--shard takes I/N with 0 <= I < N (0/4 ... 3/4), not '%s'", optarg);
            break;
        case 'h': fputs(usage, stdout); exit(EXIT_OK);
        case 'V': printf("mmtune %s\n", mmt_version_string()); exit(EXIT_OK);
        default: return bad_input("unknown or incomplete option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc) return bad_input("unexpected argument '%s'", argv[optind]);
    if (strcmp(o->command, "tune") && strcmp(o->command, "bench") && strcmp(o->command, "show") &&
        strcmp(o->command, "replay"))
        return bad_input("unknown command '%s' (tune, bench, show, replay, export, import, merge)", o->command);
    if (!o->budget_text && strcmp(o->command, "replay") != 0) {
        /* the default: a time per problem that bounds a tune of a large GPU space, while a
         * small CPU space is measured in full within it */
        o->budget_s = 45;
        o->budget_text = "45s";
    }
    if (strcmp(o->command, "replay") == 0) {
        if (!o->landscape) return bad_input("%s needs --landscape DB (a database with exhaustive tunes)", o->command);
        if (o->budget_s > 0) return bad_input("replay measures nothing: --budget %s is no count or percentage",
                                              o->budget_text);
        if (strcmp(o->strategy, "all") == 0) return EXIT_OK;
    } else if (strcmp(o->command, "show") != 0) {
        if (!o->device) return bad_input("%s needs --device (cpu or a GPU number)", o->command);
        int sources = !!o->shapes + !!o->problem + o->from_misses;
        if (o->from_misses && strcmp(o->command, "tune") != 0) return bad_input("%s takes no --from-misses", o->command);
        if (sources == 0) return bad_input("%s needs --shapes FILE, --problem TEXT or --from-misses", o->command);
        if (sources > 1) return bad_input("%s", "--shapes, --problem and --from-misses exclude each other");
    }
    if (o->top && !o->from_misses) return bad_input("%s", "--top goes with --from-misses");
    if (o->shard_count && !o->shapes) return bad_input("%s", "--shard deals the problems of --shapes FILE");
    if (!mmt_search_known(o->strategy)) {
        fprintf(stderr, "mmtune: unknown strategy '%s' (%s)\n(mmtune --help shows the usage)\n", o->strategy,
                mmt_search_names());
        return EXIT_BAD_INPUT;
    }
    return EXIT_OK;
}

static void db_path(const options *o, char *buf, size_t size)
{
    if (o->db) snprintf(buf, size, "%s", o->db);
    else mmt_store_default_path(buf, size);
}

static int cmd_show(const options *o)
{
    char path[4096];
    db_path(o, path, sizeof path);
    mmt_store *st;
    mmt_err err;
    if (mmt_store_open(path, 1, &st, &err) != MMT_OK) {
        fprintf(stderr, "mmtune: %s\n", err.msg);
        return EXIT_FAIL;
    }
    printf("database: %s\n", path);
    mmt_status s = mmt_store_print_best(st, stdout, &err);
    mmt_store_close(st);
    if (s != MMT_OK) fprintf(stderr, "mmtune: %s\n", err.msg);
    return s == MMT_OK ? EXIT_OK : EXIT_FAIL;
}

/* The command line as one string, for the session row. */
static void join_args(int argc, char **argv, char *buf, size_t size)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int i = 0; i < argc && n < size; i++) n += snprintf(buf + n, size - n, "%s%s", i ? " " : "", argv[i]);
}

/* Adds a vendor label to a "; "-separated list unless it is there: a table over several
 * modes names every figure it shows ("cuBLAS 13.1.0; cuBLAS 13.1.0 (TF32)"). */
static void add_label(char *list, size_t size, const char *label)
{
    size_t len = strlen(label);
    for (const char *at = list; (at = strstr(at, label)) != NULL; at += len)
        if ((at == list || at[-1] == ' ') && (at[len] == '\0' || at[len] == ';')) return;
    size_t n = strlen(list);
    snprintf(list + n, size - n, "%s%s", n ? "; " : "", label);
}

/* Everything that can be checked before anything is written: shapes, device, spaces. */
typedef struct plan {
    mmt_problem *problems;
    size_t n;
    const mmt_backend *be;
    mmt_device_info dev;
    mmt_family_list families[MMT_N_MODES]; /* per mode: the families that compete, or --space's */
    char picked[1536]; /* --from-misses: the problems picked with their calls, for the session row */
} plan;

static void free_plan(plan *pl)
{
    free(pl->problems);
    for (int i = 0; i < MMT_N_MODES; i++) mmt_family_list_free(&pl->families[i]);
}

static int plan_misses(const options *o, plan *pl);

static int make_plan(const options *o, plan *pl)
{
    mmt_err err;
    int rc;
    memset(pl, 0, sizeof *pl);
    if (o->shapes && mmt_shapes_load_file(o->shapes, &pl->problems, &pl->n, &err) != MMT_OK) {
        fprintf(stderr, "mmtune: %s\n", err.msg);
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
    int ordinal;
    mmt_status s = mmt_backend_for_device(o->device, &pl->be, &ordinal, &err);
    if (s != MMT_OK) {
        fprintf(stderr, "mmtune: %s\n", err.msg);
        /* a device this machine does not have is bad input, like a misspelt one */
        return s == MMT_INVALID_ARGUMENT || s == MMT_NOT_FOUND || s == MMT_UNSUPPORTED ? EXIT_BAD_INPUT : EXIT_FAIL;
    }
    if (pl->be->probe(ordinal, &pl->dev, &err) != MMT_OK) {
        fprintf(stderr, "mmtune: %s\n", err.msg);
        return EXIT_FAIL;
    }
    if (o->from_misses && (rc = plan_misses(o, pl)) != EXIT_OK) return rc;
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
        if (s != MMT_OK) {
            fprintf(stderr, "mmtune: %s\n", err.msg);
            return EXIT_BAD_INPUT;
        }
    }
    return EXIT_OK;
}

/* --from-misses: the plan's problems are the device's most frequent misses not tuned since. */
static int plan_misses(const options *o, plan *pl)
{
    char path[4096];
    db_path(o, path, sizeof path);
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

/* GPUs: compile ahead on the cores the worker does not need (two are left for it and the
 * loop). The CPU compiles in turn: a compile beside a measurement steals timed cores. */
static int compile_threads(const mmt_backend *be, int jobs)
{
    if (strcmp(be->name, "cpu") == 0) return 0;
    if (jobs >= 0) return jobs;
    long cores = sysconf(_SC_NPROCESSORS_ONLN) - 2;
    return cores < 1 ? 1 : cores > 12 ? 12 : (int)cores;
}

static int cmd_tune(const options *o, int argc, char **argv)
{
    plan pl;
    int rc = make_plan(o, &pl);
    if (rc != EXIT_OK) {
        free_plan(&pl);
        return rc;
    }
    char path[4096], command[4096];
    db_path(o, path, sizeof path);
    join_args(argc, argv, command, sizeof command);
    if (o->from_misses) { /* the session row says what the command chose */
        size_t n = strlen(command);
        snprintf(command + n, sizeof command - n, " -- from misses: %s", pl.n ? pl.picked : "nothing left to tune");
    }
    mmt_err err;
    mmt_tuner t = {.be = pl.be, .dev = pl.dev, .strategy = o->strategy, .budget = o->budget,
                   .budget_frac = o->budget_frac, .budget_s = o->budget_s, .seed = o->seed,
                   .fresh = o->fresh, .classic_only = o->classic_only,
                   .compile_threads = compile_threads(pl.be, o->jobs)};
    memcpy(t.families, pl.families, sizeof t.families);
    const char *budget = o->budget_text ? o->budget_text : "0";
    if (mmt_store_open(path, 0, &t.st, &err) != MMT_OK ||
        mmt_store_device(t.st, &t.dev, &t.device_id, &err) != MMT_OK ||
        mmt_store_session_begin(t.st, t.device_id, command, o->strategy, budget, &t.session_id, &err) != MMT_OK) {
        fprintf(stderr, "mmtune: %s\n", err.msg);
        mmt_store_close(t.st);
        free_plan(&pl);
        return EXIT_FAIL;
    }
    if (pl.n == 0) { /* a shard or the misses left nothing: the session row records the run */
        if (o->shard_count && !o->quiet)
            fprintf(stderr, "mmtune: shard %d/%d of %s holds no problem: nothing to tune\n", o->shard_index,
                    o->shard_count, o->shapes);
        rc = mmt_store_session_end(t.st, t.session_id, &err) == MMT_OK ? EXIT_OK : EXIT_FAIL;
        mmt_store_close(t.st);
        free_plan(&pl);
        return rc;
    }
    char exe[1024];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    snprintf(exe + (len > 0 ? len : 0), sizeof exe - (len > 0 ? len : 0), "%s", len > 0 ? "" : argv[0]);
    if (mmt_worker_start(exe, o->device, &t.worker, &err) != MMT_OK) {
        fprintf(stderr, "mmtune: %s\n", err.msg);
        mmt_store_session_end(t.st, t.session_id, &err);
        mmt_store_close(t.st);
        free_plan(&pl);
        return EXIT_FAIL;
    }
    t.progress = mmt_progress_new(stderr, pl.n, o->quiet);
    if (!o->quiet) fprintf(stderr, "mmtune %s: tuning %zu problem(s) on %s (%s) into %s\n", mmt_version_string(),
                           pl.n, t.dev.name, t.dev.arch, path);

    mmt_tune_result *res = calloc(pl.n, sizeof *res);
    mmt_report_row *rows = calloc(pl.n, sizeof *rows);
    for (size_t i = 0; res && rows && i < pl.n; i++) {
        mmt_err_clear(&err);
        if (mmt_tune_problem(&t, &pl.problems[i], &res[i], &err) != MMT_OK) {
            fprintf(stderr, "mmtune: %s\n", err.msg);
            snprintf(res[i].message, sizeof res[i].message, "%.500s", err.msg);
            rc = EXIT_FAIL;
        }
        rows[i] = (mmt_report_row){.problem = &pl.problems[i], .family = res[i].ok ? res[i].family : NULL,
                                   .params = res[i].ok ? res[i].params : NULL,
                                   .gflops = res[i].gflops, .vendor_gflops = res[i].vendor_gflops,
                                   .note = res[i].message, .detail = &res[i].detail};
        if (!res[i].ok && rc == EXIT_OK) rc = EXIT_FAIL;
    }
    mmt_store_session_end(t.st, t.session_id, &err);
    char vendor[512] = "not measured", labels[400] = "";
    for (size_t i = 0; res && i < pl.n; i++)
        if (res[i].vendor[0]) add_label(labels, sizeof labels, res[i].vendor);
        else if (res[i].message[0]) snprintf(vendor, sizeof vendor, "%.240s", res[i].message);
    if (labels[0]) snprintf(vendor, sizeof vendor, "%s, measured in the same run", labels);
    char title[512];
    snprintf(title, sizeof title, "best per shape on %s (%s), GFLOP/s = 2mnk / median time", t.dev.name,
             t.dev.arch);
    if (res && rows) mmt_report_table(stdout, title, vendor, rows, pl.n);
    free(res);
    free(rows);
    mmt_progress_free(t.progress);
    mmt_worker_stop(t.worker);
    mmt_store_close(t.st);
    free_plan(&pl);
    return rc;
}

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
    mmt_gemm_desc d = {.ab_type = rc->problem->dtype, .c_type = rc->problem->out,
                       .compute = mmt_mode_compute(rc->problem->mode), .layout = MMT_ROW_MAJOR,
                       .trans_a = p->trans_a ? MMT_TRANS : MMT_NO_TRANS,
                       .trans_b = p->trans_b ? MMT_TRANS : MMT_NO_TRANS};
    mmt_status s = mmt_gemm_ex(rc->ctx, &d, p->m, p->n, p->k, p->alpha, p->a, p->lda, p->b, p->ldb, p->beta, p->c,
                               p->ldc);
    if (s != MMT_OK) return mmt_err_set(err, s, "%s", mmt_last_error(rc->ctx));
    return MMT_OK;
}

static const char *choice_name(mmt_choice c)
{
    switch (c) {
    case MMT_CHOICE_EXACT: return "tuned";
    case MMT_CHOICE_NEAREST: return "nearest tuned shape";
    case MMT_CHOICE_DEFAULT: return "template default (untuned)";
    default: return "";
    }
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

static int cmd_bench(const options *o)
{
    plan pl;
    int rc = make_plan(o, &pl);
    if (rc != EXIT_OK) {
        free_plan(&pl);
        return rc;
    }
    char path[4096];
    db_path(o, path, sizeof path);
    mmt_ctx *ctx;
    mmt_err err;
    if (mmt_open(&ctx, o->device, path) != MMT_OK) {
        fprintf(stderr, "mmtune: %s\n", mmt_last_error(ctx));
        mmt_close(ctx);
        free_plan(&pl);
        return EXIT_FAIL;
    }
    mmt_vendor *vendor = NULL;
    char vendor_why[256] = "", labels[512] = "";
    if (mmt_vendor_open(pl.be, &pl.dev, &vendor, &err) != MMT_OK)
        snprintf(vendor_why, sizeof vendor_why, "not measured: %.200s", err.msg);
    mmt_report_row *rows = calloc(pl.n, sizeof *rows);
    char (*params)[512] = calloc(pl.n, sizeof *params);
    char (*notes)[512] = calloc(pl.n, sizeof *notes);
    for (size_t i = 0; rows && params && notes && i < pl.n; i++) {
        mmt_problem *p = &pl.problems[i];
        rows[i] = (mmt_report_row){.problem = p, .note = notes[i]};
        mmt_bench *b = NULL;
        runtime_call call = {ctx, p};
        double rel;
        int ok = 0;
        /* libmmtuned and the vendor are verified, then timed side by side (A B A B ... on the
         * same inputs), so clock and temperature drift fall on both alike: the ratio is two
         * figures of the same rounds */
        if (mmt_bench_setup(pl.be, &pl.dev, NULL, p, mmt_tune_cache_bytes(&pl.dev), &b, &err) != MMT_OK ||
            mmt_bench_verify(b, runtime_gemm, &call, 0, &rel, &ok, &err) != MMT_OK ||
            (!ok && !(rel <= mmt_bench_error_bound(&b->p, levels_run(ctx, &pl.families[p->mode]))) &&
             mmt_err_set(&err, MMT_INTERNAL, "wrong result: relative error %.3g", rel))) {
            snprintf(notes[i], sizeof notes[i], "%.500s", err.msg);
            rc = EXIT_FAIL;
        } else {
            const char *cfg;
            mmt_choice how = mmt_last_choice(ctx, &cfg);
            snprintf(params[i], sizeof params[i], "%s", cfg);
            snprintf(notes[i], sizeof notes[i], "%s", choice_name(how));
            mmt_vendor_call vc = {vendor, p->mode, p->out};
            char label[160];
            mmt_vendor_label(vendor, p->mode, label, sizeof label);
            mmt_status vs = vendor ? mmt_vendor_check(vendor, p->mode, &err) : MMT_NOT_FOUND;
            if (vs == MMT_OK) vs = mmt_bench_verify(b, mmt_vendor_gemm, &vc, 0, &rel, &ok, &err);
            if (vs == MMT_OK && !ok) vs = mmt_err_set(&err, MMT_INTERNAL, "wrong result: relative error %.3g", rel);
            if (vs != MMT_OK && vendor) {
                size_t n = strlen(notes[i]);
                snprintf(notes[i] + n, sizeof notes[i] - n, "; vendor %s: %.300s",
                         vs == MMT_UNSUPPORTED ? "not measured" : "failed", err.msg);
            }
            const mmt_gemm_fn fns[2] = {runtime_gemm, mmt_vendor_gemm};
            void *const users[2] = {&call, &vc};
            mmt_timing tm[2];
            mmt_status ts = mmt_bench_time_paired(b, vs == MMT_OK ? 2 : 1, fns, users, tm, &err);
            if (ts != MMT_OK) {
                snprintf(notes[i], sizeof notes[i], "%.500s", err.msg);
                rc = EXIT_FAIL;
            } else {
                rows[i].params = params[i];
                rows[i].gflops = mmt_problem_flops(p) / (tm[0].median_ms * 1e6);
                if (vs == MMT_OK) {
                    rows[i].vendor_gflops = mmt_problem_flops(p) / (tm[1].median_ms * 1e6);
                    add_label(labels, sizeof labels, label);
                }
            }
        }
        mmt_bench_free(b);
        if (!o->quiet) {
            char name[128];
            mmt_problem_format(p, name, sizeof name);
            fprintf(stderr, "  %s: %.1f GFLOP/s, vendor %.1f\n", name, rows[i].gflops, rows[i].vendor_gflops);
        }
    }
    if (vendor && labels[0])
        snprintf(vendor_why, sizeof vendor_why, "%.200s, timed side by side with libmmtuned", labels);
    else if (vendor) snprintf(vendor_why, sizeof vendor_why, "%.100s: nothing measured", mmt_vendor_name(vendor));
    char title[512];
    snprintf(title, sizeof title, "libmmtuned vs vendor on %s (%s), database %.200s", pl.dev.name, pl.dev.arch, path);
    if (rows) mmt_report_table(stdout, title, vendor_why, rows, pl.n);
    free(rows);
    free(params);
    free(notes);
    mmt_vendor_close(vendor);
    mmt_close(ctx);
    free_plan(&pl);
    return rc;
}

/* replay: strategies against the recorded trials of a database (replay.h). */
static int cmd_replay(const options *o)
{
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
    if (argc == 3 && strcmp(argv[1], "__worker") == 0) return mmt_worker_main(argv[2]);
    if (argc > 1 && mmt_transfer_command(argv[1])) return mmt_transfer_main(argc, argv);
    options o;
    int rc = parse_options(argc, argv, &o);
    if (rc != EXIT_OK) return rc;
    if (strcmp(o.command, "show") == 0) return cmd_show(&o);
    if (strcmp(o.command, "bench") == 0) return cmd_bench(&o);
    if (strcmp(o.command, "replay") == 0) return cmd_replay(&o);
    if (strcmp(o.device, "all") == 0)
        return mmt_tune_all_gpus(argc, argv, o.shapes != NULL, o.shard_index, o.shard_count ? o.shard_count : 1);
    return cmd_tune(&o, argc, argv);
}
