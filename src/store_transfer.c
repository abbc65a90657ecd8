/* store_transfer.c - a database's results as rows and rows brought into a database (see
 * store_transfer.h): the SQL of mmtune export, import and merge. */
#include "store_transfer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_sql.h"

/* The rows of schema %1$s, in mmt_xfer_cols' order, then the part (trials 0, baselines 1)
 * and the row's place in it. A baseline names its paired trial (baseline.trial_id) by the
 * trial's template, configuration, creation and median. */
/* Best b is trial t's (by best's key first: best has no index on trial_id). */
#define BEST_OF(b, t) \
    b ".device_id = " t ".device_id AND " b ".problem_id = " t ".problem_id AND " b ".trial_id = " t ".id"
#define PROBLEM_AS                                                                                       \
    "p.dtype AS dtype, p.out_dtype AS out_dtype, p.mode AS mode, p.layout AS layout, p.trans_a AS trans_a, " \
    "p.trans_b AS trans_b, p.m AS m, p.n AS n, p.k AS k"
static const char rows_sql[] =
    "SELECT 'trial' AS kind, d.backend AS device_backend, d.name AS device_name, d.arch AS device_arch, "
    "d.fingerprint AS device_fingerprint, d.props AS device_props, " PROBLEM_AS ", tp.name AS template, "
    "tp.source_hash AS template_hash, c.params AS params, NULL AS library, t.status AS status, "
    "t.time_ms_median AS time_ms_median, t.time_ms_min AS time_ms_min, t.time_ms_max AS time_ms_max, "
    "t.gflops AS gflops, t.rel_error AS rel_error, t.reps AS reps, t.message AS message, t.created AS created, "
    "b.trial_id IS NOT NULL AS best, b.partial AS partial, s.command AS session_command, "
    "s.strategy AS session_strategy, s.budget AS session_budget, s.host AS session_host, "
    "s.started AS session_started, s.ended AS session_ended, s.outcome AS session_outcome, "
    "NULL AS paired_template, NULL AS paired_template_hash, NULL AS paired_params, NULL AS paired_created, "
    "NULL AS paired_time_ms_median, t.cpu_wait AS cpu_wait, 0 AS part, t.id AS line "
    "FROM %1$s.trial t JOIN %1$s.device d ON d.id = t.device_id JOIN %1$s.problem p ON p.id = t.problem_id "
    "JOIN %1$s.config c ON c.id = t.config_id JOIN %1$s.template tp ON tp.id = c.template_id "
    "LEFT JOIN %1$s.session s ON s.id = t.session_id LEFT JOIN %1$s.best b ON " BEST_OF("b", "t") " "
    "UNION ALL "
    "SELECT 'baseline', d.backend, d.name, d.arch, d.fingerprint, d.props, " PROBLEM_AS ", NULL, NULL, NULL, "
    "v.library, NULL, v.time_ms, NULL, NULL, v.gflops, NULL, NULL, NULL, v.created, NULL, NULL, "
    "NULL, NULL, NULL, NULL, NULL, NULL, NULL, pt.name, pt.source_hash, pc.params, pr.created, pr.time_ms_median, "
    "NULL, 1, v.rowid "
    "FROM %1$s.baseline v JOIN %1$s.device d ON d.id = v.device_id JOIN %1$s.problem p ON p.id = v.problem_id "
    "LEFT JOIN %1$s.trial pr ON pr.id = v.trial_id LEFT JOIN %1$s.config pc ON pc.id = pr.config_id "
    "LEFT JOIN %1$s.template pt ON pt.id = pc.template_id "
    "ORDER BY part, line";

/* rows_sql over main, checked against mmt_xfer_cols: the two lists must not drift. */
static mmt_status prepare_rows(mmt_store *st, sqlite3_stmt **out, mmt_err *err)
{
    char sql[4096];
    snprintf(sql, sizeof sql, rows_sql, "main");
    FORWARD_IF_ERROR(mmt_store_prepare(st, sql, out, err));
    int ok = sqlite3_column_count(*out) == MMT_XFER_NCOLS + 2;
    for (int c = 0; ok && c < MMT_XFER_NCOLS; c++)
        ok = strcmp(sqlite3_column_name(*out, c), mmt_xfer_cols[c].name) == 0;
    if (ok) return MMT_OK;
    sqlite3_finalize(*out);
    *out = NULL;
    return mmt_err_set(err, MMT_INTERNAL, "the export query's columns are not mmt_xfer_cols");
}

mmt_status mmt_store_xfer_each(mmt_store *st, int (*fn)(void *user, const mmt_xfer_value *row), void *user,
                               mmt_err *err)
{
    sqlite3_stmt *s;
    FORWARD_IF_ERROR(prepare_rows(st, &s, err));
    mmt_xfer_value row[MMT_XFER_NCOLS];
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        for (int c = 0; c < MMT_XFER_NCOLS; c++) {
            mmt_xfer_value *v = &row[c];
            memset(v, 0, sizeof *v);
            v->null = sqlite3_column_type(s, c) == SQLITE_NULL;
            if (v->null) continue;
            switch (mmt_xfer_cols[c].type) {
            case MMT_XFER_TEXT: v->text = (const char *)sqlite3_column_text(s, c); break;
            case MMT_XFER_INT: v->i = sqlite3_column_int64(s, c); break;
            case MMT_XFER_REAL: v->r = sqlite3_column_double(s, c); break;
            }
        }
        if (fn(user, row)) {
            rc = SQLITE_DONE;
            break;
        }
    }
    mmt_status r = rc == SQLITE_DONE ? MMT_OK : mmt_store_db_error(st, err, "export");
    sqlite3_finalize(s);
    return r;
}

/* Staging has a connection of its own, on a database in memory: files and databases are
 * read and checked there before the target is opened, so a bad input leaves no trace, and
 * the target is attached for the one transaction that absorbs the rows. */
struct mmt_xfer {
    mmt_store db;         /* the staging connection; db.path names what is being read */
    sqlite3_stmt *insert; /* one staged row */
    long rows;            /* staged */
};

enum { BUSY_TIMEOUT_MS = 30000 }; /* as store.c's: a transfer waits for tuners like a tuner does */

/* xfer holds rows with the ids they resolve to in the target, current_template this
 * mmtune's template sources. */
static mmt_status create_staging(mmt_store *st, mmt_err *err)
{
    char sql[4096];
    size_t n = snprintf(sql, sizeof sql, "CREATE TABLE xfer (src INTEGER NOT NULL, line INTEGER NOT NULL");
    for (int c = 0; c < MMT_XFER_NCOLS; c++)
        n += snprintf(sql + n, sizeof sql - n, ", %s %s", mmt_xfer_cols[c].name,
                      mmt_xfer_cols[c].type == MMT_XFER_TEXT ? "TEXT"
                      : mmt_xfer_cols[c].type == MMT_XFER_INT ? "INTEGER"
                                                              : "REAL");
    snprintf(sql + n, sizeof sql - n,
             ", device_id INTEGER, problem_id INTEGER, template_id INTEGER, config_id INTEGER, "
             "session_id INTEGER, trial_id INTEGER); "
             "CREATE INDEX xfer_by_src ON xfer (src, kind); "
             "CREATE INDEX xfer_baselines ON xfer (device_id, problem_id, library) WHERE kind = 'baseline'; "
             "CREATE TABLE current_template (name TEXT PRIMARY KEY, source_hash TEXT);");
    return mmt_store_exec(st, sql, err);
}

mmt_status mmt_xfer_new(mmt_xfer **out, mmt_err *err)
{
    *out = NULL;
    mmt_xfer *x = calloc(1, sizeof *x);
    RETURN_ERROR_IF(!x, err, MMT_OUT_OF_MEMORY, "out of memory");
    snprintf(x->db.path, sizeof x->db.path, "staging");
    mmt_status s = sqlite3_open(":memory:", &x->db.db) == SQLITE_OK
                       ? MMT_OK
                       : mmt_err_set(err, MMT_OUT_OF_MEMORY, "cannot open a database in memory");
    if (s == MMT_OK) {
        sqlite3_busy_timeout(x->db.db, BUSY_TIMEOUT_MS);
        s = mmt_store_exec(&x->db, "PRAGMA foreign_keys = ON", err);
    }
    if (s == MMT_OK) s = create_staging(&x->db, err);
    char sql[2048];
    size_t n = snprintf(sql, sizeof sql, "INSERT INTO xfer (src, line");
    for (int c = 0; c < MMT_XFER_NCOLS; c++) n += snprintf(sql + n, sizeof sql - n, ", %s", mmt_xfer_cols[c].name);
    n += snprintf(sql + n, sizeof sql - n, ") VALUES (?, ?");
    for (int c = 0; c < MMT_XFER_NCOLS; c++) n += snprintf(sql + n, sizeof sql - n, ", ?");
    snprintf(sql + n, sizeof sql - n, ")");
    if (s == MMT_OK) s = mmt_store_prepare(&x->db, sql, &x->insert, err);
    if (s != MMT_OK) {
        mmt_xfer_free(x);
        return s;
    }
    *out = x;
    return MMT_OK;
}

void mmt_xfer_free(mmt_xfer *x)
{
    if (!x) return;
    sqlite3_finalize(x->insert);
    sqlite3_close_v2(x->db.db);
    free(x);
}

mmt_status mmt_xfer_add(mmt_xfer *x, int source, long line, const mmt_xfer_value *row, mmt_err *err)
{
    char buf[128];
    const char *why = mmt_xfer_row_check(row, buf, sizeof buf);
    RETURN_ERROR_IF(why, err, MMT_INVALID_ARGUMENT, "%s", why);
    sqlite3_stmt *s = x->insert;
    sqlite3_reset(s);
    sqlite3_bind_int(s, 1, source);
    sqlite3_bind_int64(s, 2, line);
    int session = !row[MMT_COL_S_STARTED].null;
    for (int c = 0; c < MMT_XFER_NCOLS; c++) {
        const mmt_xfer_value *v = &row[c];
        const int at = c + 3;
        /* the defaults a database row has, so a file's row and the database's compare equal */
        if (v->null && (c == MMT_COL_PROPS || (session && (c == MMT_COL_S_STRATEGY || c == MMT_COL_S_BUDGET || c == MMT_COL_S_HOST))))
            sqlite3_bind_text(s, at, "", 0, SQLITE_STATIC);
        else if (v->null && c == MMT_COL_BEST && row[MMT_COL_LIBRARY].null) sqlite3_bind_int(s, at, 0);
        else if (v->null) sqlite3_bind_null(s, at);
        else if (mmt_xfer_cols[c].type == MMT_XFER_TEXT) sqlite3_bind_text(s, at, v->text, -1, SQLITE_TRANSIENT);
        else if (mmt_xfer_cols[c].type == MMT_XFER_INT) sqlite3_bind_int64(s, at, v->i);
        else sqlite3_bind_double(s, at, v->r);
    }
    if (sqlite3_step(s) != SQLITE_DONE) return mmt_store_db_error(&x->db, err, "staging");
    x->rows++;
    return MMT_OK;
}

/* Runs one statement with ?1 = source; *changes (if not NULL) gets the rows it changed. */
static mmt_status run(mmt_store *st, const char *sql, int source, long *changes, mmt_err *err)
{
    sqlite3_stmt *s;
    FORWARD_IF_ERROR(mmt_store_prepare(st, sql, &s, err));
    if (sqlite3_bind_parameter_count(s) > 0) sqlite3_bind_int(s, 1, source);
    mmt_status r = sqlite3_step(s) == SQLITE_DONE ? MMT_OK : mmt_store_db_error(st, err, "transfer");
    sqlite3_finalize(s);
    if (r == MMT_OK && changes) *changes += sqlite3_changes(st->db);
    return r;
}

mmt_status mmt_xfer_add_db(mmt_xfer *x, int source, const char *path, mmt_err *err)
{
    mmt_store *snap, *st = &x->db;
    FORWARD_IF_ERROR(mmt_store_open_snapshot(path, &snap, err));
    sqlite3_int64 size = 0;
    unsigned char *data = sqlite3_serialize(snap->db, "main", &size, 0);
    mmt_store_close(snap);
    RETURN_ERROR_IF(!data, err, MMT_OUT_OF_MEMORY, "%s: out of memory copying it", path);
    /* a copy of a WAL file says so in its header (bytes 18 and 19 are 2), and a database in
     * memory cannot open a WAL: the copy is marked as a rollback-journal one */
    if (size >= 20) data[18] = data[19] = 1;
    /* the migrated copy becomes schema xfer_src of the staging connection (the buffer is
     * SQLite's from here on, freed on failure too) */
    snprintf(st->path, sizeof st->path, "%s", path);
    mmt_status r = mmt_store_exec(st, "ATTACH ':memory:' AS xfer_src", err);
    if (r != MMT_OK) {
        sqlite3_free(data);
        return r;
    }
    if (sqlite3_deserialize(st->db, "xfer_src", data, size, size,
                            SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_READONLY) != SQLITE_OK)
        r = mmt_store_db_error(st, err, "reading a copy");
    char names[1024] = "", rows[4096], sql[6144];
    for (int c = 0, n = 0; c < MMT_XFER_NCOLS; c++)
        n += snprintf(names + n, sizeof names - n, "%s%s", c ? ", " : "", mmt_xfer_cols[c].name);
    snprintf(rows, sizeof rows, rows_sql, "xfer_src");
    snprintf(sql, sizeof sql, "INSERT INTO xfer (src, %s, line) SELECT ?1, %s, line FROM (%s)", names, names, rows);
    if (r == MMT_OK) r = run(st, sql, source, &x->rows, err);
    mmt_status d = mmt_store_exec(st, "DETACH xfer_src", r == MMT_OK ? err : NULL);
    return r != MMT_OK ? r : d;
}

/* Statements of the absorb, in their order, each over the rows of source ?1. */
#define SESSION_IS(s, x)                                                                                   \
    s ".device_id = " x ".device_id AND " s ".command = " x ".session_command AND " s ".strategy = " x        \
    ".session_strategy AND " s ".budget = " x ".session_budget AND " s ".host = " x ".session_host AND " s \
    ".started = " x ".session_started"
#define TRIAL_COLS                                                                                          \
    "session_id, device_id, problem_id, config_id, status, time_ms_median, time_ms_min, time_ms_max, gflops, " \
    "rel_error, reps, message, created, cpu_wait"
#define TRIAL_IS(t, x)                                                                                         \
    t ".device_id = " x ".device_id AND " t ".problem_id = " x ".problem_id AND " t ".config_id = " x           \
    ".config_id AND " t ".session_id IS " x ".session_id AND " t ".status = " x ".status AND " t                \
    ".time_ms_median IS " x ".time_ms_median AND " t ".time_ms_min IS " x ".time_ms_min AND " t ".time_ms_max IS " \
    x ".time_ms_max AND " t ".gflops IS " x ".gflops AND " t ".rel_error IS " x ".rel_error AND " t ".reps IS " x   \
    ".reps AND " t ".message IS " x ".message AND " t ".created = " x ".created"

enum { N_NONE, N_DEVICES, N_SESSIONS, N_TRIALS, N_BESTS, N_BASELINES };
static const struct step {
    const char *sql;
    int counts; /* which count its changes add to */
} steps[] = {
    {"INSERT OR IGNORE INTO target.device (backend, name, arch, fingerprint, props) SELECT device_backend, "
     "device_name, device_arch, device_fingerprint, device_props FROM xfer WHERE src = ?1 ORDER BY line",
     N_DEVICES},
    {"UPDATE xfer SET device_id = (SELECT d.id FROM target.device d WHERE d.fingerprint = xfer.device_fingerprint) "
     "WHERE src = ?1",
     N_NONE},
    {"INSERT OR IGNORE INTO target.problem (dtype, out_dtype, mode, layout, trans_a, trans_b, m, n, k) SELECT dtype, "
     "out_dtype, mode, layout, trans_a, trans_b, m, n, k FROM xfer WHERE src = ?1 ORDER BY line",
     N_NONE},
    {"UPDATE xfer SET problem_id = (SELECT p.id FROM target.problem p WHERE p.dtype = xfer.dtype AND "
     "p.out_dtype = xfer.out_dtype AND p.mode = xfer.mode AND p.layout = xfer.layout AND p.trans_a = xfer.trans_a "
     "AND p.trans_b = xfer.trans_b AND p.m = xfer.m AND p.n = xfer.n AND p.k = xfer.k) WHERE src = ?1",
     N_NONE},
    {"INSERT OR IGNORE INTO target.template (name, source_hash) SELECT template, template_hash FROM xfer "
     "WHERE src = ?1 AND kind = 'trial' ORDER BY line",
     N_NONE},
    {"UPDATE xfer SET template_id = (SELECT tp.id FROM target.template tp WHERE tp.name = xfer.template AND "
     "tp.source_hash = xfer.template_hash) WHERE src = ?1 AND kind = 'trial'",
     N_NONE},
    {"INSERT OR IGNORE INTO target.config (template_id, params) SELECT template_id, params FROM xfer "
     "WHERE src = ?1 AND kind = 'trial' ORDER BY line",
     N_NONE},
    {"UPDATE xfer SET config_id = (SELECT c.id FROM target.config c WHERE c.template_id = xfer.template_id AND "
     "c.params = xfer.params) WHERE src = ?1 AND kind = 'trial'",
     N_NONE},
    /* sessions have no key of their own: the same device, command, strategy, budget, host
     * and start are the same session */
    {"INSERT INTO target.session (device_id, command, strategy, budget, host, started) SELECT device_id, "
     "session_command, session_strategy, session_budget, session_host, session_started "
     "FROM xfer x WHERE src = ?1 AND session_started IS NOT NULL AND NOT EXISTS (SELECT 1 FROM target.session s "
     "WHERE " SESSION_IS("s", "x") ") GROUP BY device_id, session_command, session_strategy, session_budget, "
     "session_host, session_started ORDER BY min(line)",
     N_SESSIONS},
    {"UPDATE xfer SET session_id = (SELECT min(s.id) FROM target.session s WHERE " SESSION_IS("s", "xfer") ") "
     "WHERE src = ?1 AND session_started IS NOT NULL",
     N_NONE},
    /* a session's end and outcome: what the target or a source knows (a session ends once, so
     * copies agree or some do not know yet; where they disagree, the later end and the worse
     * outcome, whichever copy came first) */
    {"UPDATE target.session SET ended = (SELECT max(e) FROM (SELECT session.ended AS e UNION ALL SELECT "
     "x.session_ended FROM xfer x WHERE x.src = ?1 AND x.session_id = session.id)), outcome = (SELECT o FROM "
     "(SELECT session.outcome AS o UNION ALL SELECT x.session_outcome FROM xfer x WHERE x.src = ?1 AND "
     "x.session_id = session.id) WHERE o IS NOT NULL ORDER BY instr('complete partial interrupted failed', o) DESC "
     "LIMIT 1) WHERE id IN (SELECT session_id FROM xfer WHERE src = ?1)",
     N_NONE},
    /* the n-th of equal trials of a source is added where the database has fewer than n */
    {"INSERT INTO target.trial (" TRIAL_COLS ") SELECT " TRIAL_COLS " FROM (SELECT *, row_number() OVER (PARTITION BY "
     TRIAL_COLS " ORDER BY line) AS occurrence FROM xfer WHERE src = ?1 AND kind = 'trial') x "
     "WHERE occurrence > (SELECT count(*) FROM target.trial t WHERE " TRIAL_IS("t", "x") ") ORDER BY line",
     N_TRIALS},
    {"UPDATE xfer SET trial_id = (SELECT min(t.id) FROM target.trial t WHERE " TRIAL_IS("t", "xfer") ") "
     "WHERE src = ?1 AND kind = 'trial' AND best = 1",
     N_NONE},
    {"INSERT INTO target.best (device_id, problem_id, template_name, template_id, config_id, trial_id, time_ms, "
     "gflops, partial) SELECT device_id, problem_id, template, template_id, config_id, trial_id, time_ms_median, "
     "gflops, coalesce(partial, 0) FROM "
     "(SELECT x.*, row_number() OVER (PARTITION BY x.device_id, x.problem_id, x.template ORDER BY r.stale, "
     MMT_STORE_BUSY("x.cpu_wait") ", x.time_ms_median, r.params, r.source_hash, x.trial_id) AS place FROM xfer x JOIN temp.config_rank r "
     "ON r.config_id = x.config_id WHERE x.src = ?1 AND x.kind = 'trial' AND x.best = 1) WHERE place = 1 "
     "ON CONFLICT (device_id, problem_id, template_name) DO UPDATE SET template_id = excluded.template_id, "
     "config_id = excluded.config_id, trial_id = excluded.trial_id, time_ms = excluded.time_ms, "
     "gflops = excluded.gflops, partial = excluded.partial WHERE (SELECT r.stale, "
     MMT_STORE_BUSY("(SELECT cpu_wait FROM target.trial WHERE id = excluded.trial_id)") ", excluded.time_ms, r.params, "
     "r.source_hash FROM temp.config_rank r WHERE r.config_id = excluded.config_id) < (SELECT r.stale, "
     MMT_STORE_BUSY("(SELECT cpu_wait FROM target.trial WHERE id = best.trial_id)") ", best.time_ms, r.params, r.source_hash "
     "FROM temp.config_rank r WHERE r.config_id = best.config_id)",
     N_BESTS},
    /* the same best trial, partial in one copy and not in another: that copy saw its search
     * go on to its end (an export taken while it ran, a rerun), whichever copy came first */
    {"UPDATE target.best SET partial = 0 WHERE partial = 1 AND trial_id IN (SELECT trial_id FROM xfer WHERE "
     "src = ?1 AND kind = 'trial' AND best = 1 AND partial = 0)",
     N_BESTS},
};

/* How a vendor figure ranks among those of its (device, problem, library), the greater
 * first: timed beside a trial that is a best of the target (beside the faster best, where
 * it could be either: the row best_view's `chosen` marks), then paired at all, then the
 * later measured, the faster; last its trial's key, so that the order is total and any
 * order of sources keeps the same figure. v has trial_id, created, gflops and the time ms. */
#define BASELINE_RANK(v, ms)                                                                                       \
    "(SELECT coalesce((SELECT b.gflops FROM target.best b WHERE " BEST_OF("b", "t") "), -1), t.id IS NOT NULL, " \
    v ".created, " v ".gflops, -" v "." ms ", coalesce(t.created, ''), -coalesce(t.time_ms_median, 0), "          \
    "coalesce(c.params, ''), coalesce(tp.source_hash, '') FROM (SELECT 1) LEFT JOIN target.trial t ON t.id = " v  \
    ".trial_id LEFT JOIN target.config c ON c.id = t.config_id LEFT JOIN target.template tp ON tp.id = "           \
    "c.template_id)"

/* After every source's trials and bests are in (a baseline belongs to a trial, and its
 * rank depends on which trials are bests at the end, not on the way there). */
static const struct step final_steps[] = {
    /* the trial a baseline names, by its key (of trials alike in it, copies of one measurement
     * that differ elsewhere, a best first: the one best_view shows); none: the figure stays
     * unpaired */
    {"UPDATE xfer SET trial_id = (SELECT t.id FROM target.trial t JOIN target.config c ON c.id = t.config_id "
     "JOIN target.template tp ON tp.id = c.template_id WHERE t.device_id = xfer.device_id AND t.problem_id = "
     "xfer.problem_id AND tp.name = xfer.paired_template AND tp.source_hash = xfer.paired_template_hash AND "
     "c.params = xfer.paired_params AND t.created = xfer.paired_created AND t.time_ms_median IS "
     "xfer.paired_time_ms_median ORDER BY EXISTS (SELECT 1 FROM target.best b WHERE " BEST_OF("b", "t") ") DESC, t.id "
     "LIMIT 1) WHERE kind = 'baseline' AND paired_template IS NOT NULL",
     N_NONE},
    /* the greatest of every source's figures and the target's (one change at most per key:
     * candidates that tie are alike, and only a greater one replaces) */
    {"INSERT INTO target.baseline (device_id, problem_id, library, time_ms, gflops, created, trial_id) SELECT "
     "device_id, problem_id, library, time_ms_median, gflops, created, trial_id FROM xfer v WHERE kind = 'baseline' "
     "AND NOT EXISTS (SELECT 1 FROM xfer w WHERE w.kind = 'baseline' AND w.device_id = v.device_id AND "
     "w.problem_id = v.problem_id AND w.library = v.library AND " BASELINE_RANK("w", "time_ms_median") " > "
     BASELINE_RANK("v", "time_ms_median") ") ORDER BY src, line ON CONFLICT (device_id, problem_id, library) DO "
     "UPDATE SET time_ms = excluded.time_ms, gflops = excluded.gflops, created = excluded.created, trial_id = "
     "excluded.trial_id WHERE " BASELINE_RANK("excluded", "time_ms") " > " BASELINE_RANK("baseline", "time_ms"),
     N_BASELINES},
};

/* current_template: this mmtune's source of each template the staged bests name. */
static mmt_status current_sources(mmt_store *st, const char *(*current_source)(void *user, const char *name),
                                  void *user, mmt_err *err)
{
    sqlite3_stmt *names, *put;
    FORWARD_IF_ERROR(mmt_store_prepare(st, "SELECT DISTINCT template FROM xfer WHERE best = 1", &names, err));
    if (mmt_store_prepare(st, "INSERT OR REPLACE INTO current_template (name, source_hash) VALUES (?, ?)", &put,
                          err) != MMT_OK) {
        sqlite3_finalize(names);
        return err ? err->status : MMT_DATABASE;
    }
    mmt_status r = MMT_OK;
    int rc;
    while (r == MMT_OK && (rc = sqlite3_step(names)) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(names, 0);
        const char *hash = current_source ? current_source(user, name) : NULL;
        if (!hash) continue;
        sqlite3_reset(put);
        sqlite3_bind_text(put, 1, name, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(put, 2, hash, -1, SQLITE_TRANSIENT);
        if (sqlite3_step(put) != SQLITE_DONE) r = mmt_store_db_error(st, err, "current templates");
    }
    if (r == MMT_OK && rc != SQLITE_DONE) r = mmt_store_db_error(st, err, "current templates");
    sqlite3_finalize(names);
    sqlite3_finalize(put);
    return r;
}

/* The absorb itself, on the staging connection with the target attached. */
static mmt_status absorb_attached(mmt_xfer *x, int sources, mmt_xfer_counts *counts, mmt_err *err)
{
    mmt_store *st = &x->db;
    long *count_of[] = {[N_NONE] = NULL, [N_DEVICES] = &counts->devices, [N_SESSIONS] = &counts->sessions,
                        [N_TRIALS] = &counts->trials, [N_BESTS] = &counts->bests,
                        [N_BASELINES] = &counts->baselines};
    /* how a best candidate ranks: a result of this mmtune's template source first, then the
     * faster, then by configuration text and source hash, so any order of merging picks the
     * same (a view of the target's rows: temporary, as views across schemas must be) */
    FORWARD_IF_ERROR(mmt_store_exec(st,
                                    "CREATE TEMP VIEW config_rank AS SELECT c.id AS config_id, c.params AS params, "
                                    "tp.source_hash AS source_hash, NOT EXISTS (SELECT 1 FROM main.current_template ct "
                                    "WHERE ct.name = tp.name AND ct.source_hash = tp.source_hash) AS stale "
                                    "FROM target.config c JOIN target.template tp ON tp.id = c.template_id",
                                    err));
    mmt_status r = mmt_store_exec(st, "BEGIN IMMEDIATE", err);
    for (int src = 1; r == MMT_OK && src <= sources; src++)
        for (size_t i = 0; r == MMT_OK && i < sizeof steps / sizeof *steps; i++)
            r = run(st, steps[i].sql, src, count_of[steps[i].counts], err);
    for (size_t i = 0; r == MMT_OK && i < sizeof final_steps / sizeof *final_steps; i++)
        r = run(st, final_steps[i].sql, 0, count_of[final_steps[i].counts], err);
    if (r == MMT_OK) r = mmt_store_exec(st, "COMMIT", err);
    else mmt_store_exec(st, "ROLLBACK", NULL);
    mmt_store_exec(st, "DROP VIEW temp.config_rank", NULL);
    return r;
}

mmt_status mmt_xfer_absorb(mmt_xfer *x, const char *target, int sources,
                           const char *(*current_source)(void *user, const char *name), void *user,
                           mmt_xfer_counts *counts, mmt_err *err)
{
    mmt_store *st = &x->db, *t;
    memset(counts, 0, sizeof *counts);
    counts->rows = x->rows;
    FORWARD_IF_ERROR(current_sources(st, current_source, user, err));
    /* the target, created or brought to the current schema the way every open does */
    FORWARD_IF_ERROR(mmt_store_open(target, 0, &t, err));
    mmt_store_close(t);
    snprintf(st->path, sizeof st->path, "%s", target);
    sqlite3_stmt *s;
    FORWARD_IF_ERROR(mmt_store_prepare(st, "ATTACH ?1 AS target", &s, err));
    sqlite3_bind_text(s, 1, target, -1, SQLITE_TRANSIENT);
    mmt_status r = sqlite3_step(s) == SQLITE_DONE ? MMT_OK : mmt_store_db_error(st, err, "attach");
    sqlite3_finalize(s);
    if (r == MMT_OK) r = absorb_attached(x, sources, counts, err);
    mmt_store_exec(st, "DETACH target", NULL);
    if (r != MMT_OK) memset(counts, 0, sizeof *counts);
    return r;
}
