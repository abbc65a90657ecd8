/* transfer.c - mmtune export, import and merge: a database's results out to a CSV or JSON
 * file, such files into a database, and databases into one. Inputs are only read, and all
 * of them are read and checked before the database written to is opened; what they bring
 * is added in one transaction. Exit codes as main.c's: 0 ok, 2 bad input (nothing
 * written), 1 failure. */
#include "transfer.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "exit_codes.h"
#include "family.h"
#include "fsutil.h"
#include "ooc_tuned.h"
#include "rows.h"
#include "store_transfer.h"

static const char usage[] =
    "usage: mmtune export [--db PATH] [-o FILE] [--format csv|json]  the database's results\n"
    "       mmtune import FILE... [--db PATH]     results that mmtune export wrote (- reads stdin)\n"
    "       mmtune merge DB... -o OUT             databases into OUT (created, or added to)\n"
    "  --db PATH        the database (default $MMTUNE_DB, else ~/.cache/mmtune/mmtune.db)\n"
    "  -o, --output F   export: the file (default stdout); merge: the database written\n"
    "  --format F       export: csv or json (default: json for a FILE ending in .json, else csv)\n"
    "  --quiet          no summary on stderr\n";

typedef struct transfer_options {
    const char *command, *db, *output, *format;
    int quiet;
    char **inputs;
    int n_inputs;
} transfer_options;

static int bad_input(const char *fmt, const char *arg)
{
    fprintf(stderr, "mmtune: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n(mmtune %s --help shows the usage)\n", "export|import|merge");
    return EXIT_BAD_INPUT;
}

static int parse_options(int argc, char **argv, transfer_options *o)
{
    static const struct option longs[] = {{"db", required_argument, 0, 'b'},     {"output", required_argument, 0, 'o'},
                                          {"format", required_argument, 0, 'f'}, {"quiet", no_argument, 0, 'q'},
                                          {"help", no_argument, 0, 'h'},         {0, 0, 0, 0}};
    memset(o, 0, sizeof *o);
    o->command = argv[1];
    optind = 2;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "o:", longs, NULL)) != -1) {
        switch (c) {
        case 'b': o->db = optarg; break;
        case 'o': o->output = optarg; break;
        case 'f': o->format = optarg; break;
        case 'q': o->quiet = 1; break;
        case 'h': fputs(usage, stdout); exit(EXIT_OK);
        default: return bad_input("unknown or incomplete option '%s'", argv[optind - 1]);
        }
    }
    o->inputs = argv + optind;
    o->n_inputs = argc - optind;
    int export = strcmp(o->command, "export") == 0, merge = strcmp(o->command, "merge") == 0;
    if (export && o->n_inputs) return bad_input("export takes no file '%s' (-o FILE names where it writes)", o->inputs[0]);
    if (!export && !o->n_inputs) return bad_input("%s needs the files to read", o->command);
    if (!export && o->format) return bad_input("%s reads CSV and JSON alike: no --format", o->command);
    if (merge && !o->output) return bad_input("%s", "merge needs -o OUT, the database it writes");
    if (merge && o->db) return bad_input("%s", "merge writes -o OUT: no --db");
    if (!export && !merge && o->output) return bad_input("%s", "import writes --db: no -o");
    if (o->format && strcmp(o->format, "csv") && strcmp(o->format, "json"))
        return bad_input("--format is csv or json, not '%s'", o->format);
    return EXIT_OK;
}

static int exit_code(mmt_status s)
{
    return s == MMT_OK ? EXIT_OK
           : s == MMT_PARSE || s == MMT_INVALID_ARGUMENT || s == MMT_NOT_FOUND || s == MMT_IO ? EXIT_BAD_INPUT
                                                                                              : EXIT_FAIL;
}

static void db_path(const transfer_options *o, char *buf, size_t size)
{
    if (o->db) snprintf(buf, size, "%s", o->db);
    else mmt_store_default_path(buf, size);
}

typedef struct export_state {
    FILE *f;
    mmt_rows_format format;
    long rows, trials;
} export_state;

static int put_row(void *user, const mmt_xfer_value *row)
{
    export_state *e = user;
    mmt_rows_put(e->f, e->format, row, e->rows++);
    e->trials += strcmp(row[MMT_COL_KIND].text, "trial") == 0;
    return ferror(e->f);
}

/* The database read as a snapshot (any schema version, never written); a file is written
 * whole or not at all. */
static int cmd_export(const transfer_options *o)
{
    char path[4096];
    db_path(o, path, sizeof path);
    const char *out = o->output && strcmp(o->output, "-") != 0 ? o->output : NULL; /* NULL: stdout */
    const char *ext = out ? strrchr(out, '.') : NULL;
    export_state e = {.format = (o->format ? strcmp(o->format, "json") == 0 : ext && strcasecmp(ext, ".json") == 0)
                                    ? MMT_ROWS_JSON
                                    : MMT_ROWS_CSV};
    mmt_store *st;
    mmt_err err;
    mmt_status s = mmt_store_open_snapshot(path, &st, &err);
    char *text = NULL;
    size_t size = 0;
    e.f = out ? open_memstream(&text, &size) : stdout;
    if (s == MMT_OK && !e.f) s = mmt_err_set(&err, MMT_OUT_OF_MEMORY, "out of memory");
    if (s == MMT_OK) {
        mmt_rows_begin(e.f, e.format);
        s = mmt_store_xfer_each(st, put_row, &e, &err);
        mmt_rows_end(e.f, e.format);
        if (s == MMT_OK && (ferror(e.f) || fflush(e.f)))
            s = mmt_err_set(&err, MMT_IO, "%s: cannot write", out ? out : "stdout");
    }
    mmt_store_close(st);
    if (out && e.f) fclose(e.f);
    if (s == MMT_OK && out) s = mmt_file_write_atomic(out, text, size, &err);
    free(text);
    if (s != MMT_OK) {
        fprintf(stderr, "mmtune: %s\n", err.msg);
        return s == MMT_NOT_FOUND ? EXIT_BAD_INPUT : EXIT_FAIL;
    }
    if (!o->quiet)
        fprintf(stderr, "mmtune: exported %ld trial%s and %ld baseline%s of %s to %s\n", e.trials,
                e.trials == 1 ? "" : "s", e.rows - e.trials, e.rows - e.trials == 1 ? "" : "s", path,
                out ? out : "stdout");
    return EXIT_OK;
}

typedef struct import_state {
    mmt_xfer *x;
    int source;
} import_state;

static mmt_status stage_row(void *user, long line, const mmt_xfer_value *row, mmt_err *err)
{
    import_state *in = user;
    return mmt_xfer_add(in->x, in->source, line, row, err);
}

/* A whole file, or stdin for "-". */
static mmt_status read_all(const char *path, char **text, size_t *size, mmt_err *err)
{
    if (strcmp(path, "-") != 0) return mmt_file_read(path, (void **)text, size, err);
    size_t cap = 1 << 16, n = 0, got;
    char *buf = malloc(cap + 1);
    while (buf && (got = fread(buf + n, 1, cap - n, stdin)) > 0)
        if ((n += got) == cap) {
            char *grown = realloc(buf, 2 * cap + 1);
            if (!grown) free(buf);
            buf = grown, cap *= 2;
        }
    RETURN_ERROR_IF(!buf, err, MMT_OUT_OF_MEMORY, "out of memory reading stdin");
    buf[n] = '\0';
    *text = buf;
    *size = n;
    return ferror(stdin) ? mmt_err_set(err, MMT_IO, "cannot read stdin") : MMT_OK;
}

/* This mmtune's source hash of a template, which ranks a best of that source first. */
static const char *current_source(void *user, const char *name)
{
    char *hash = user;
    mmt_family *f;
    mmt_err err;
    if (strcmp(name, MMT_OOC_TEMPLATE) == 0) return MMT_OOC_SOURCE_HASH; /* the out-of-core knobs' pseudo-template */
    if (mmt_family_find_template(name, &f, &err) != MMT_OK) return NULL;
    snprintf(hash, 65, "%s", f->source_hash);
    mmt_family_free(f);
    return hash;
}

/* Two paths that name one file (the output of a merge must not be one of its inputs). */
static int same_file(const char *a, const char *b)
{
    struct stat x, y;
    return stat(a, &x) == 0 && stat(b, &y) == 0 && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

/* import and merge: every input staged (checked) first, then one transaction. */
static int cmd_absorb(const transfer_options *o)
{
    const int merge = strcmp(o->command, "merge") == 0;
    char target[4096];
    if (merge) snprintf(target, sizeof target, "%s", o->output);
    else db_path(o, target, sizeof target);
    for (int i = 0; merge && i < o->n_inputs; i++)
        if (same_file(o->inputs[i], target)) return bad_input("merge never writes its inputs: -o %s is one", target);
    mmt_err err;
    mmt_xfer *x;
    mmt_status s = mmt_xfer_new(&x, &err);
    for (int i = 0; s == MMT_OK && i < o->n_inputs; i++) {
        if (merge) {
            s = mmt_xfer_add_db(x, i + 1, o->inputs[i], &err);
            continue;
        }
        char *text = NULL;
        size_t size = 0;
        import_state in = {x, i + 1};
        s = read_all(o->inputs[i], &text, &size, &err);
        if (s == MMT_OK)
            s = mmt_rows_read(text, size, strcmp(o->inputs[i], "-") ? o->inputs[i] : "stdin", stage_row, &in, &err);
        free(text);
    }
    char hash[65];
    mmt_xfer_counts n;
    if (s == MMT_OK) s = mmt_xfer_absorb(x, target, o->n_inputs, current_source, hash, &n, &err);
    mmt_xfer_free(x);
    if (s != MMT_OK) {
        fprintf(stderr, "mmtune: %s\n", err.msg);
        return exit_code(s);
    }
    if (!o->quiet)
        fprintf(stderr, "mmtune: %s %d %s%s into %s: %ld rows read; added %ld trials, %ld sessions, %ld devices; "
                        "set %ld best and %ld baselines\n",
                merge ? "merged" : "imported", o->n_inputs, merge ? "database" : "file", o->n_inputs == 1 ? "" : "s",
                target, n.rows, n.trials, n.sessions, n.devices, n.bests, n.baselines);
    return EXIT_OK;
}

int mmt_transfer_command(const char *name)
{
    return strcmp(name, "export") == 0 || strcmp(name, "import") == 0 || strcmp(name, "merge") == 0;
}

int mmt_default_db_checked(void)
{
    mmt_err err;
    if (mmt_store_default_dir_check(1, &err) == MMT_OK) return EXIT_OK;
    fprintf(stderr, "mmtune: %s (name a database with --db or MMTUNE_DB)\n", err.msg);
    return EXIT_BAD_INPUT;
}

int mmt_transfer_main(int argc, char **argv)
{
    transfer_options o;
    int rc = parse_options(argc, argv, &o);
    if (rc != EXIT_OK) return rc;
    if (!o.db && (rc = mmt_default_db_checked()) != EXIT_OK) return rc;
    return strcmp(o.command, "export") == 0 ? cmd_export(&o) : cmd_absorb(&o);
}
