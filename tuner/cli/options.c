/* options.c - mmtune's command line read into options (see options.h). */
#include "options.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exit_codes.h"
#include "mmtuned.h"
#include "search.h"
#include "shard.h"

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
    "side at the end of its problem, in this run (A B B A ... on the same inputs; on a GPU each\n"
    "sample after an untimed run of its own, so that its clock is the one its own power allows);\n"
    "intervals for the medians from order statistics, with their exact coverage (95% or a\n"
    "little more).\n"
    "A problem whose search the time budget or Ctrl-C cut short is marked partial; the same\n"
    "command goes on with it. Exit: 0 ok, 1 failure, 2 bad input (nothing written), 130/143\n"
    "a tune stopped by Ctrl-C / SIGTERM (its partial table printed). Progress is a redrawn line\n"
    "on a terminal, one line per problem otherwise; colour only on a terminal, never with NO_COLOR.\n";


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

int mmt_cli_parse(int argc, char **argv, mmt_cli_options *o)
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
    if (o->device && strchr(o->device, ',') && strcmp(o->command, "tune") != 0)
        return bad_input("--device %s: a list of devices is for a tune (twins sharing its problems)", o->device);
    if (o->top && !o->from_misses) return bad_input("%s", "--top goes with --from-misses");
    if (o->shard_count && !o->shapes) return bad_input("%s", "--shard deals the problems of --shapes FILE");
    if (!mmt_search_known(o->strategy)) {
        fprintf(stderr, "mmtune: unknown strategy '%s' (%s)\n(mmtune --help shows the usage)\n", o->strategy,
                mmt_search_names());
        return EXIT_BAD_INPUT;
    }
    return EXIT_OK;
}
