/* main.c - the mmtune command line: tune, bench, show, replay, report (export, import and
 * merge are transfer.c's). Exit codes: 0 ok, 2 bad
 * input (nothing is written then), 1 failure, 128 + the signal for a tune stopped by
 * SIGINT (Ctrl-C) or SIGTERM after printing its partial table. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "all_gpus.h"
#include "bench.h"
#include "device_lock.h"
#include "exit_codes.h"
#include "explain.h"
#include "fsutil.h"
#include "replay.h"
#include "report_html.h"
#include "from_misses.h"
#include "ooc_tune.h"
#include "prebuild.h"
#include "shapes.h"
#include "search.h"
#include "shard.h"
#include "transfer.h"
#include "tune.h"
#include "unseen.h"
#include "vendor.h"
#include "worker.h"

static const char usage[] =
    "usage: mmtune [tune] --device DEV --shapes FILE [options]   tune every problem of FILE\n"
    "       mmtune bench --device DEV --shapes FILE [--db PATH]  libmmtuned vs the vendor library\n"
    "                                                             (or --problem TEXT)\n"
    "       mmtune bench --device DEV --unseen N [--seed S] [--db PATH]  the same on N shapes per mode\n"
    "                                                             nobody tuned, drawn around the tuned ones\n"
    "       mmtune show [--db PATH] [--device DEV] [--json]       what the database holds (for DEV)\n"
    "       mmtune report --html FILE [--db PATH] [--device DEV]  one page with the results, charts\n"
    "       mmtune [tune] --device DEV --problem TEXT [options]   tune one problem\n"
    "       mmtune [tune] --device DEV --from-misses [--top N]    tune what libmmtuned ran untuned most\n"
    "       mmtune replay --landscape DB [--strategy NAME|all] [--budget N|P%] [--seeds N] [--warm]\n"
    "                                                             strategies against recorded trials\n"
    "       mmtune replay --unseen [--landscape DB | --db DB] [--device DEV] [--json]\n"
    "                                                             the serving rule, each tuned problem\n"
    "                                                             left out in turn (no device)\n"
    "       mmtune export [--db PATH] [-o FILE] [--format csv|json]  the results, for another machine\n"
    "       mmtune import FILE... [--db PATH]                     results an export wrote (- is stdin)\n"
    "       mmtune merge DB... -o OUT                             databases into one (OUT may exist)\n"
    "       mmtune explain [KNOB]                                 what the knobs of the configurations mean\n"
    "\n"
    "  --device DEV      cpu, a GPU number (0, 1, ...), or all (every GPU in parallel; GPUs of one\n"
    "                    model deal the problems among them; a host without a GPU is refused)\n"
    "  --shapes FILE     the problems (YAML; see examples/shapes.yaml)\n"
    "  --shard I/N       only the I-th of N shares of the shapes file's problems (I from 0): N\n"
    "                    workers, each into its own --db, then mmtune merge\n"
    "  --problem TEXT    one problem: \"MODE[->OUT] row|col NN|NT|TN|TT MxNxK\" (f32 row NN 64x48x40)\n"
    "  --from-misses     the problems of the database's miss table, most calls first, less\n"
    "                    those tuned since (a search cut short goes on); --top N of them (default 10)\n"
    "  --db PATH         the database (default $MMTUNE_DB, else ~/.cache/mmtune/mmtune.db)\n"
    "  --strategy NAME   model (default: guided by a model of the measured trials), anneal\n"
    "                    (simulated annealing on the parameter grid), random or exhaustive\n"
    "  --budget N|P%|Ts|Tm  per problem: measure at most N configurations (0 = all) or P%\n"
    "                    of them, or stop starting new ones after T seconds / minutes (90s,\n"
    "                    2m; default 45s)\n"
    "  --seed N          seed of the random and guided strategies (default 1)\n"
    "  --space FILE      a search space YAML instead of the built-in one\n"
    "  --jobs N          compile ahead in N processes (GPUs; default: the cores less two, at most 24)\n"
    "  --fresh           measure again configurations the database already has\n"
    "  --classic-only    no levels round: large f32 and f64 problems are not measured with\n"
    "                    Strassen-Winograd levels around their classic winner\n"
    "  --no-wait         tune, bench: fail (exit 1) rather than wait while another mmtune of this\n"
    "                    user measures the same device (one measures at a time, the other waits)\n"
    "  --quiet           no progress output (errors only, and the table or --json on stdout)\n"
    "  --json            tune, bench, show: the table's figures as JSON on stdout (the text table\n"
    "                    then goes to stderr, or nowhere with --quiet)\n"
    "  --html FILE       report: the page written (- is stdout): per device the tuned and vendor\n"
    "                    figures, a roofline, tuning time, and per problem every configuration\n"
    "                    measured and how each knob moves the time\n"
    "  --landscape DB    replay: a database with exhaustive tunes; --seeds N runs per strategy\n"
    "                    (default 5), --warm starts each problem from the others' winners,\n"
    "                    --batch N proposals per step of a guided strategy (default 1)\n"
    "  --unseen          replay: each tuned problem of the database (--landscape or --db; --device\n"
    "                    cpu, cuda or a device's name keeps its problems) taken as untuned and served\n"
    "                    as libmmtuned would (template or vendor), scored with the database's figures\n"
    "                    there; bench --unseen N: N shapes per mode drawn (--seed S, default 1) between\n"
    "                    the device's tuned ones and never tuned, with a summary of the ratios\n"
    "  -o, --output FILE export: the file written (default stdout); merge: the database written\n"
    "  --format csv|json export: the format (default: json for a FILE ending in .json, else csv)\n"
    "  -h, --help, --version\n"
    "\n"
    "The table's GFLOP/s, vendor and ratio: each winner and the vendor library timed side by\n"
    "side at the end of its problem, in this run (A B A B ... on the same inputs); intervals\n"
    "for the medians from order statistics, with their exact coverage (95% or a little more).\n"
    "A problem whose search the time budget or Ctrl-C cut short is marked partial; the same\n"
    "command goes on with it. Exit: 0 ok, 1 failure, 2 bad input (nothing written), 130/143\n"
    "a tune stopped by Ctrl-C / SIGTERM (its partial table printed). Progress is a redrawn line\n"
    "on a terminal, one line per problem otherwise; colour only on a terminal, never with NO_COLOR.\n";

typedef struct options {
    const char *command, *device, *shapes, *db, *strategy, *space, *landscape;
    const char *html; /* report --html FILE */
    char given[32]; /* the options given, by their getopt values */
    size_t budget;
    double budget_s;    /* 0: no time budget */
    double budget_frac; /* 0: no fraction of the candidates */
    int seeds, warm, batch; /* replay */
    int unseen;             /* replay --unseen, bench --unseen N */
    size_t unseen_n;        /* bench: shapes drawn per mode */
    const char *budget_text;
    uint64_t seed;
    int fresh, quiet, json, classic_only;
    int no_wait; /* another process measuring the device: refuse rather than wait */
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

/* The decimal number text starts with (digits only: no sign, no space), *end after it; -1
 * where there is none or it does not fit in 64 bits. */
static int leading_number(const char *text, uint64_t *out, char **end)
{
    if (!isdigit((unsigned char)text[0])) return -1;
    errno = 0;
    unsigned long long v = strtoull(text, end, 10);
    if (errno == ERANGE) return -1;
    *out = v;
    return 0;
}

static int parse_number(const char *text, uint64_t *out)
{
    char *end;
    return leading_number(text, out, &end) == 0 && !*end ? 0 : -1;
}

/* "200" (candidates), "10%" (of each problem's candidates) or "90s" / "2m" (time per
 * problem). */
static int parse_budget(const char *text, size_t *count, double *fraction, double *seconds)
{
    char *end;
    uint64_t v;
    if (leading_number(text, &v, &end)) return -1;
    const double days = 86400.0 * 366; /* a time budget beyond a year is a typing error */
    if (!*end) *count = (size_t)v;
    else if (strcmp(end, "%") == 0 && v > 0 && v <= 100) *fraction = (double)v / 100.0;
    else if (strcmp(end, "s") == 0 && v > 0 && (double)v <= days) *seconds = (double)v;
    else if (strcmp(end, "m") == 0 && v > 0 && 60.0 * (double)v <= days) *seconds = 60.0 * (double)v;
    else return -1;
    return 0;
}

/* The options each command takes, by getopt value: one it does not take is bad input,
 * never ignored. */
static const struct {
    const char *command, *takes;
} command_options[] = {
    {"tune", "dsbSBepfqjPMTHJCY"}, {"bench", "dsPbqJUeY"}, {"show", "bdJq"}, {"replay", "LSBnwaUbdJq"},
    {"report", "Rbdq"}};

static int parse_options(int argc, char **argv, options *o)
{
    static const struct option known[] = {
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
        {"json", no_argument, 0, 'J'},         {"html", required_argument, 0, 'R'},
        {"classic-only", no_argument, 0, 'C'}, {"unseen", no_argument, 0, 'U'},
        {"no-wait", no_argument, 0, 'Y'},      {0, 0, 0, 0}};
    struct option longs[sizeof known / sizeof *known];
    memcpy(longs, known, sizeof known);
    memset(o, 0, sizeof *o);
    o->command = "tune";
    o->strategy = "model";
    o->seed = 1;
    o->jobs = -1;
    o->seeds = 5;
    o->batch = 1;
    if (argc < 2) { /* nothing asked: the usage, as for a wrong one */
        fputs(usage, stderr);
        return EXIT_BAD_INPUT;
    }
    int first = 1;
    if (argc > 1 && argv[1][0] != '-') {
        o->command = argv[1];
        first = 2;
    }
    for (struct option *l = longs; l->name; l++) /* bench --unseen N; replay --unseen alone */
        if (l->val == 'U' && strcmp(o->command, "bench") == 0) l->has_arg = required_argument;
    optind = first;
    opterr = 0;
    int c;
    uint64_t v;
    while ((c = getopt_long(argc, argv, "h", longs, NULL)) != -1) {
        if (c != '?' && c != ':' && !strchr(o->given, c) && strlen(o->given) + 1 < sizeof o->given) {
            size_t n = strlen(o->given);
            o->given[n] = (char)c;
            o->given[n + 1] = '\0';
        }
        switch (c) {
        case 'd': o->device = optarg; break;
        case 's': o->shapes = optarg; break;
        case 'b':
            if (!*optarg) return bad_input("%s", "--db takes a path, not an empty one (SQLite would use a temporary "
                                                 "database and throw it away)");
            o->db = optarg;
            break;
        case 'S': o->strategy = optarg; break;
        case 'p': o->space = optarg; break;
        case 'f': o->fresh = 1; break;
        case 'C': o->classic_only = 1; break;
        case 'q': o->quiet = 1; break;
        case 'Y': o->no_wait = 1; break;
        case 'J': o->json = 1; break;
        case 'R': o->html = optarg; break;
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
        case 'U':
            o->unseen = 1;
            if (optarg && (parse_number(optarg, &v) || v < 1 || v > 10000))
                return bad_input("--unseen takes a number of shapes per mode from 1 to 10000, not '%s'", optarg);
            if (optarg) o->unseen_n = (size_t)v;
            break;
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
    const char *takes = NULL;
    for (size_t i = 0; i < sizeof command_options / sizeof *command_options; i++)
        if (strcmp(o->command, command_options[i].command) == 0) takes = command_options[i].takes;
    if (!takes)
        return bad_input("unknown command '%s' (tune, bench, show, replay, report, export, import, merge)", o->command);
    for (const char *g = o->given; *g; g++)
        if (!strchr(takes, *g))
            for (const struct option *l = longs; l->name; l++)
                if (l->val == *g) {
                    fprintf(stderr, "mmtune: %s takes no --%s\n(mmtune --help shows the usage)\n", o->command,
                            l->name);
                    return EXIT_BAD_INPUT;
                }
    if (!o->budget_text && strcmp(o->command, "replay") != 0) {
        /* the default: a time per problem that bounds a tune of a large GPU space, while a
         * small CPU space is measured in full within it */
        o->budget_s = 45;
        o->budget_text = "45s";
    }
    if (strcmp(o->command, "show") == 0 || strcmp(o->command, "report") == 0) {
        if (o->device && strcmp(o->device, "all") == 0)
            return bad_input("%s --device takes cpu or a GPU number (without it: every device)", o->command);
        if (strcmp(o->command, "report") == 0 && !o->html)
            return bad_input("%s", "report needs --html FILE (- writes the page to stdout)");
    } else if (strcmp(o->command, "replay") == 0) {
        /* --unseen runs no strategy; the others read no --db, --device, --json or --quiet */
        for (const char *g = o->given; *g; g++)
            if (strchr(o->unseen ? "SBnwa" : "bdJq", *g))
                for (const struct option *l = longs; l->name; l++)
                    if (l->val == *g) {
                        fprintf(stderr,
                                o->unseen ? "mmtune: replay --unseen runs no strategy: it takes no --%s\n"
                                          : "mmtune: replay takes --%s only with --unseen\n",
                                l->name);
                        fputs("(mmtune --help shows the usage)\n", stderr);
                        return EXIT_BAD_INPUT;
                    }
        if (o->unseen && o->landscape && o->db)
            return bad_input("%s", "replay --unseen reads --landscape DB or --db DB, not both");
        if (o->unseen) return EXIT_OK;
        if (!o->landscape) return bad_input("%s needs --landscape DB (a database with exhaustive tunes)", o->command);
        if (o->budget_s > 0) return bad_input("replay measures nothing: --budget %s is no count or percentage",
                                              o->budget_text);
        if (strcmp(o->strategy, "all") == 0) return EXIT_OK;
    } else {
        if (!o->device) return bad_input("%s needs --device (cpu or a GPU number)", o->command);
        const int bench = strcmp(o->command, "bench") == 0;
        int sources = !!o->shapes + !!o->problem + o->from_misses + o->unseen;
        if (sources == 0)
            return bad_input(bench ? "%s needs --shapes FILE, --problem TEXT or --unseen N"
                                   : "%s needs --shapes FILE, --problem TEXT or --from-misses",
                             o->command);
        if (sources > 1)
            return bad_input("%s", bench ? "--shapes, --problem and --unseen exclude each other"
                                         : "--shapes, --problem and --from-misses exclude each other");
        if (bench && strchr(o->given, 'e') && !o->unseen)
            return bad_input("%s", "bench --seed goes with --unseen N: it seeds the draw of the shapes");
    }
    if (o->top && !o->from_misses) return bad_input("%s", "--top goes with --from-misses");
    if (o->shard_count && !o->shapes) return bad_input("%s", "--shard deals the problems of --shapes FILE");
    if (o->json && o->device && strcmp(o->device, "all") == 0)
        return bad_input("%s", "--json takes one device: --device all runs one mmtune per GPU, each with its table");
    if (!mmt_search_known(o->strategy)) {
        fprintf(stderr, "mmtune: unknown strategy '%s' (%s)\n(mmtune --help shows the usage)\n", o->strategy,
                mmt_search_names());
        return EXIT_BAD_INPUT;
    }
    return EXIT_OK;
}

/* OpenBLAS's core on the CPU (vendor.h), asked for by the commands that time it on the CPU
 * before anything loaded it. */
static mmt_vendor_core vendor_core;
static int vendor_core_asked;

/* The footer line of the vendor's core on dev, or NULL where it was not asked for. */
static const char *vendor_core_line(const mmt_device_info *dev, char *buf, size_t size)
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

static void db_path(const options *o, char *buf, size_t size)
{
    if (o->db) snprintf(buf, size, "%s", o->db);
    else mmt_store_default_path(buf, size);
}

/* The backend and description of --device; a device this machine lacks is bad input. */
static int device_of(const char *device, const mmt_backend **be, mmt_device_info *dev)
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

/* show and report: the database read-only (as it is, or a snapshot of any schema version)
 * and --device's description, which names the rows they keep. */
static int open_to_read(const options *o, int snapshot, char *path, size_t size, mmt_device_info *dev,
                        mmt_store **st)
{
    db_path(o, path, size);
    const mmt_backend *be;
    int rc = o->device ? device_of(o->device, &be, dev) : EXIT_OK;
    if (rc != EXIT_OK) return rc;
    mmt_err err;
    if ((snapshot ? mmt_store_open_snapshot(path, st, &err) : mmt_store_open(path, 1, st, &err)) != MMT_OK) {
        fprintf(stderr, "mmtune: %s\n", err.msg);
        return EXIT_FAIL;
    }
    return EXIT_OK;
}

static int cmd_show(const options *o)
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
static int cmd_report(const options *o)
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
    unsigned char *host; /* per problem: 1 where its matrices live in host memory; NULL: none do */
    size_t n;
    const mmt_backend *be;
    mmt_device_info dev;
    mmt_family_list families[MMT_N_MODES]; /* per mode: the families that compete, or --space's */
    char picked[1536]; /* --from-misses: the problems picked with their calls, for the session row */
    char drawn[512];   /* bench --unseen: modes whose range held fewer untuned problems than asked */
} plan;

static void free_plan(plan *pl)
{
    free(pl->problems);
    free(pl->host);
    for (int i = 0; i < MMT_N_MODES; i++) mmt_family_list_free(&pl->families[i]);
}

static int plan_misses(const options *o, plan *pl);
static int plan_unseen(const options *o, plan *pl);

static int make_plan(const options *o, plan *pl)
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
    if ((rc = device_of(o->device, &pl->be, &pl->dev)) != EXIT_OK) return rc;
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

/* bench --unseen N: the plan's problems are drawn between the device's tuned ones (unseen.h). */
static int plan_unseen(const options *o, plan *pl)
{
    char path[4096];
    db_path(o, path, sizeof path);
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

/* What every table's intervals are (stats.h). */
static const char intervals_note[] =
    "intervals: for each median, from order statistics (no assumption about the shape of the times), with "
    "their exact coverage: 95% or a little more from 6 samples on";

/* What every table's errors are (bench.h's verification). */
static const char errors_note[] =
    "error, vendor error: each result's relative (Frobenius) error against a higher-precision reference, ours "
    "and the vendor's on the same inputs";

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

/* The table: on stdout; with --json the JSON document there instead, and the table on
 * stderr (a person at a terminal still reads it) unless --quiet. */
static void print_table(const options *o, const mmt_report_meta *meta, const char *title, const mmt_report_row *rows,
                        size_t n)
{
    if (!o->json) {
        mmt_report_table(stdout, title, meta->notes, rows, n);
        return;
    }
    if (!o->quiet) mmt_report_table(stderr, title, meta->notes, rows, n);
    mmt_report_json(stdout, meta, rows, n);
}

/* A tune's row: the result, and a note saying what the figures cannot (a search cut short,
 * a vendor that was not timed, why there is no result). */
static mmt_report_row tune_row(const options *o, const mmt_problem *p, const mmt_tune_result *r, int begun,
                               char *note, size_t size)
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
    if (r->vendor_serves == MMT_VENDOR_FASTER && n < size)
        n += (size_t)snprintf(note + n, size - n,
                              "%sserved by %s: it was faster than every template in the same rounds, so libmmtuned calls "
                              "it for this problem (the figures are the templates' best beside it)",
                              n ? "; " : "", r->vendor_label);
    else if (r->vendor_serves == MMT_VENDOR_MORE_ACCURATE && n < size)
        n += (size_t)snprintf(note + n, size - n,
                              "%sserved by %s: the fastest template's error was above %.1fx its own on the same "
                              "inputs, so libmmtuned calls it for this problem (the figures are the templates' best "
                              "beside it)",
                              n ? "; " : "", r->vendor_label, MMT_VENDOR_ERROR_RATIO);
    if (r->cpu_wait > MMT_CPU_BUSY && n < size)
        n += (size_t)snprintf(note + n, size - n,
                              "%sbusy: some task waited for a CPU %.0f%% of the time this problem was measured; its "
                              "figures displace none measured quiet, whom libmmtuned serves stays as it was, and the "
                              "next run measures it again",
                              n ? "; " : "", 100 * r->cpu_wait);
    if (r->message[0] && n < size) snprintf(note + n, size - n, "%s%s", n ? "; " : "", r->message);
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
    mmt_err lock_err;
    if (mmt_device_lock(&pl.dev, !o->no_wait, &lock_err) != MMT_OK) {
        fprintf(stderr, "mmtune: %s\n", lock_err.msg);
        free_plan(&pl);
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
        free_plan(&pl);
        return EXIT_FAIL;
    }
    if (pl.n == 0) { /* a shard or the misses left nothing: the session row records the run */
        if (o->shard_count && !o->quiet)
            fprintf(stderr, "mmtune: shard %d/%d of %s holds no problem: nothing to tune\n", o->shard_index,
                    o->shard_count, o->shapes);
        rc = mmt_store_session_end(t.st, t.session_id, "complete", &err) == MMT_OK ? EXIT_OK : EXIT_FAIL;
        mmt_store_close(t.st);
        free_plan(&pl);
        return rc;
    }
    char exe[1024];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    snprintf(exe + (len > 0 ? len : 0), sizeof exe - (len > 0 ? len : 0), "%s", len > 0 ? "" : argv[0]);
    t.exe = exe;
    if (mmt_worker_start(exe, o->device, &t.worker, &err) != MMT_OK) {
        fprintf(stderr, "mmtune: %s\n", err.msg);
        mmt_store_session_end(t.st, t.session_id, "failed", &err);
        mmt_store_close(t.st);
        free_plan(&pl);
        return EXIT_FAIL;
    }
    catch_stop();
    t.progress = mmt_progress_new(stderr, pl.n, o->quiet);
    if (!o->quiet) fprintf(stderr, "mmtune %s: tuning %zu problem(s) on %s (%s) into %s\n", mmt_version_string(),
                           pl.n, t.dev.name, t.dev.arch, path);

    mmt_tune_result *res = calloc(pl.n, sizeof *res);
    mmt_report_row *rows = calloc(pl.n, sizeof *rows);
    char (*notes)[1024] = calloc(pl.n, sizeof *notes);
    int partial = 0;
    for (size_t i = 0; res && rows && notes && i < pl.n; i++) {
        const int begun = !stop_signal;
        mmt_err_clear(&err);
        const int host = pl.host && pl.host[i];
        if (begun && (host ? mmt_ooc_tune_problem(&t, o->device, path, &pl.problems[i], &res[i], &err)
                           : mmt_tune_problem(&t, &pl.problems[i], &res[i], &err)) != MMT_OK) {
            fprintf(stderr, "mmtune: %s\n", err.msg);
            snprintf(res[i].message, sizeof res[i].message, "%.500s", err.msg);
            rc = EXIT_FAIL;
        }
        rows[i] = tune_row(o, &pl.problems[i], &res[i], begun, notes[i], sizeof notes[i]);
        if (begun) mmt_progress_end_problem(t.progress, &rows[i]);
        partial |= res[i].partial || !begun;
        if (begun && !res[i].ok && rc == EXIT_OK) rc = EXIT_FAIL;
    }
    mmt_store_session_end(t.st, t.session_id, outcome(stop_signal != 0, rc != EXIT_OK, partial), &err);

    /* the footer: where the vendor's figures come from, what the intervals and errors are,
     * what partial means */
    char vendor[600], labels[400] = "";
    snprintf(vendor, sizeof vendor, "vendor: not timed%s", stop_signal ? " (interrupted before its rounds)" : "");
    for (size_t i = 0; res && i < pl.n; i++)
        if (res[i].vendor.median_ms > 0) add_label(labels, sizeof labels, res[i].vendor_label);
    if (labels[0])
        snprintf(vendor, sizeof vendor,
                 "vendor: %s, timed side by side with each winner at the end of its problem, in this run (A B A B "
                 "... on the same inputs): GFLOP/s, vendor and ratio are figures of the same rounds; ratio: our "
                 "GFLOP/s over the vendor's (above 1.00x: faster than the vendor)",
                 labels);
    char core[600];
    const char *footer[7] = {vendor};
    size_t n_footer = 1;
    if (vendor_core_line(&t.dev, core, sizeof core)) footer[n_footer++] = core;
    footer[n_footer++] = intervals_note;
    footer[n_footer++] = errors_note;
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
    footer[n_footer] = NULL;
    char title[512];
    snprintf(title, sizeof title, "best per shape on %s (%s), GFLOP/s = 2mnk / median time%s", t.dev.name,
             t.dev.arch, stop_signal ? "; interrupted: a partial table" : "");
    mmt_report_meta meta = {"tune", &t.dev, path, footer, stop_signal != 0};
    if (res && rows && notes) print_table(o, &meta, title, rows, pl.n);
    if (res && rows && notes && !o->quiet && !stop_signal) { /* what a person does next: on stderr, off the table */
        char what[600] = "";
        if (o->problem || o->shapes)
            snprintf(what, sizeof what,
                     "`mmtune bench --device %.40s %s \"%.200s\" --db %.200s` times libmmtuned as an application calls it, beside "
                     "the vendor;\n      ",
                     o->device, o->problem ? "--problem" : "--shapes", o->problem ? o->problem : o->shapes, path);
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
    free_plan(&pl);
    return stop_signal ? 128 + stop_signal : rc;
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
    case MMT_CHOICE_VENDOR: return "the vendor library (untuned)";
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

/* bench --unseen: how the shapes were drawn, then per mode libmmtuned's GFLOP/s over the
 * vendor's (geometric mean, 10th percentile, minimum) and what served the shapes
 * (mmt_last_choice), as lines of the table's footer; returns how many. */
static size_t unseen_lines(const options *o, const plan *pl, const mmt_report_row *rows, const mmt_choice *hows,
                           char (*lines)[600])
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
    if (mmt_device_lock(&pl.dev, !o->no_wait, &err) != MMT_OK) {
        fprintf(stderr, "mmtune: %s\n", err.msg);
        free_plan(&pl);
        return EXIT_FAIL;
    }
    /* libmmtuned serves on a damaged database (as untuned); a bench of it measures nothing */
    mmt_store *st = NULL;
    mmt_status s = access(path, F_OK) == 0 ? mmt_store_open_snapshot(path, &st, &err) : MMT_OK;
    if (s == MMT_OK && st) s = mmt_store_check(st, &err);
    mmt_store_close(st);
    if (s != MMT_OK) {
        fprintf(stderr, "mmtune: %s\n", err.msg);
        free_plan(&pl);
        return EXIT_FAIL;
    }
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
    mmt_vendor_use_device_cores(vendor, &pl.dev);
    mmt_report_row *rows = calloc(pl.n, sizeof *rows);
    char (*params)[512] = calloc(pl.n, sizeof *params);
    char (*notes)[512] = calloc(pl.n, sizeof *notes);
    char (*vendor_labels)[160] = calloc(pl.n, sizeof *vendor_labels);
    mmt_choice *hows = calloc(pl.n ? pl.n : 1, sizeof *hows); /* what served each (mmt_last_choice) */
    for (size_t i = 0; rows && params && notes && vendor_labels && hows && i < pl.n; i++) {
        mmt_problem *p = &pl.problems[i];
        rows[i] = (mmt_report_row){.problem = p, .note = notes[i]};
        mmt_bench *b = NULL;
        runtime_call call = {ctx, p};
        double rel, vendor_rel; /* the relative errors of libmmtuned's call and the vendor's */
        int ok = 0;
        /* libmmtuned and the vendor are verified, then timed side by side (A B A B ... on the
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
            mmt_status ts = mmt_bench_time_paired(b, vs == MMT_OK ? 2 : 1, fns, users, tm, &err);
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
                    add_label(labels, sizeof labels, label);
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
    char vendor_text[600];
    if (vendor && labels[0])
        snprintf(vendor_text, sizeof vendor_text,
                 "vendor: %.200s, timed side by side with libmmtuned (A B A B ... on the same inputs): GFLOP/s, "
                 "vendor and ratio are figures of the same rounds; ratio: libmmtuned's GFLOP/s over the vendor's (above "
                 "1.00x: faster than the vendor)",
                 labels);
    else if (vendor) snprintf(vendor_text, sizeof vendor_text, "vendor: %.100s: nothing measured", mmt_vendor_name(vendor));
    else snprintf(vendor_text, sizeof vendor_text, "vendor: %.300s", vendor_why);
    const char *footer[MMT_N_MODES + 6] = {vendor_text, intervals_note, errors_note};
    char core[600];
    size_t n_footer = 3;
    if (vendor_core_line(&pl.dev, core, sizeof core)) footer[n_footer++] = core;
    char unseen[MMT_N_MODES + 1][600];
    const size_t n_unseen = o->unseen && rows && hows ? unseen_lines(o, &pl, rows, hows, unseen) : 0;
    for (size_t i = 0; i < n_unseen; i++) footer[n_footer++] = unseen[i];
    footer[n_footer] = NULL;
    char title[512];
    snprintf(title, sizeof title, "libmmtuned vs vendor on %s (%s), database %.200s%s", pl.dev.name, pl.dev.arch, path,
             o->unseen ? ", shapes nobody tuned" : "");
    mmt_report_meta meta = {"bench", &pl.dev, path, footer, 0};
    if (rows && params && notes && vendor_labels && hows) print_table(o, &meta, title, rows, pl.n);
    free(hows);
    free(rows);
    free(params);
    free(notes);
    free(vendor_labels);
    mmt_vendor_close(vendor);
    mmt_close(ctx);
    free_plan(&pl);
    return rc;
}

/* replay: strategies against the recorded trials of a database (replay.h). */
static int cmd_replay(const options *o)
{
    if (o->unseen) { /* the serving rule, each tuned problem left out (unseen.h) */
        char path[4096];
        if (o->landscape) snprintf(path, sizeof path, "%s", o->landscape);
        else db_path(o, path, sizeof path);
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
    options o;
    int rc = parse_options(argc, argv, &o);
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
        mmt_vendor_fair_core(&vendor_core), vendor_core_asked = 1;
    if (strcmp(o.command, "show") == 0) return cmd_show(&o);
    if (strcmp(o.command, "bench") == 0) return cmd_bench(&o);
    if (strcmp(o.command, "replay") == 0) return cmd_replay(&o);
    if (strcmp(o.command, "report") == 0) return cmd_report(&o);
    if (strcmp(o.device, "all") == 0)
        return mmt_tune_all_gpus(argc, argv, o.shapes != NULL, o.shard_index, o.shard_count ? o.shard_count : 1);
    return cmd_tune(&o, argc, argv);
}
