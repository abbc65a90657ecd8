/* store_report.c - the queries of mmtune report (see store_report.h). */
#include "store_report.h"

#include "store_sql.h"

/* Steps s to its end, handing each row to row(s, cb), where cb holds the caller's typed
 * callback and its user pointer; finalizes s. */
static mmt_status each_row(mmt_store *st, sqlite3_stmt *s, int (*row)(sqlite3_stmt *s, void *cb), void *cb,
                           mmt_err *err, const char *what)
{
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW)
        if (row(s, cb)) {
            rc = SQLITE_DONE;
            break;
        }
    mmt_status r = rc == SQLITE_DONE ? MMT_OK : mmt_store_db_error(st, err, what);
    sqlite3_finalize(s);
    return r;
}

static const char *text_or_null(sqlite3_stmt *s, int col)
{
    return sqlite3_column_type(s, col) == SQLITE_NULL ? NULL : (const char *)sqlite3_column_text(s, col);
}

typedef struct device_cb {
    int (*fn)(void *user, const mmt_rep_device *row);
    void *user;
} device_cb;

static int device_row(sqlite3_stmt *s, void *cb)
{
    mmt_rep_device d = {.id = sqlite3_column_int64(s, 0)};
    mmt_store_device_from_row(s, 1, &d.info);
    return ((device_cb *)cb)->fn(((device_cb *)cb)->user, &d);
}

mmt_status mmt_store_report_devices(mmt_store *st, const char *device,
                                    int (*fn)(void *user, const mmt_rep_device *d), void *user, mmt_err *err)
{
    sqlite3_stmt *s;
    FORWARD_IF_ERROR(mmt_store_prepare(st,
                                       "SELECT id, backend, name, arch, fingerprint, props FROM device "
                                       "WHERE ?1 IS NULL OR name = ?1 ORDER BY name, id",
                                       &s, err));
    if (device) sqlite3_bind_text(s, 1, device, -1, SQLITE_TRANSIENT);
    return each_row(st, s, device_row, &(device_cb){fn, user}, err, "devices");
}

typedef struct best_cb {
    int (*fn)(void *user, const mmt_rep_best *row);
    void *user;
} best_cb;

static int best_row(sqlite3_stmt *s, void *cb)
{
    const int c = MMT_STORE_PROBLEM_NCOLS;
    mmt_rep_best b = {.problem_id = sqlite3_column_int64(s, c)};
    mmt_store_problem_from_row(s, 0, &b.problem);
    b.template_name = (const char *)sqlite3_column_text(s, c + 1);
    b.params = (const char *)sqlite3_column_text(s, c + 2);
    b.time_ms = sqlite3_column_double(s, c + 3);
    b.gflops = sqlite3_column_double(s, c + 4);
    b.partial = sqlite3_column_int(s, c + 5);
    b.chosen = sqlite3_column_int(s, c + 6);
    b.vendor = text_or_null(s, c + 7);
    b.vendor_time_ms = sqlite3_column_double(s, c + 8);
    b.vendor_gflops = sqlite3_column_double(s, c + 9);
    b.vendor_unpaired = sqlite3_column_int(s, c + 10);
    return ((best_cb *)cb)->fn(((best_cb *)cb)->user, &b);
}

mmt_status mmt_store_report_bests(mmt_store *st, int64_t device_id,
                                  int (*fn)(void *user, const mmt_rep_best *b), void *user, mmt_err *err)
{
    /* the vendor as best_view pairs it: only a baseline timed beside this very trial */
    sqlite3_stmt *s;
    FORWARD_IF_ERROR(mmt_store_prepare(
        st,
        "SELECT " MMT_STORE_PROBLEM_COLS ", b.problem_id, b.template_name, c.params, b.time_ms, b.gflops, b.partial, "
        "b.gflops = (SELECT max(x.gflops) FROM best x WHERE x.device_id = b.device_id "
        "            AND x.problem_id = b.problem_id), "
        "v.library, v.time_ms, v.gflops, "
        "v.library IS NULL AND EXISTS (SELECT 1 FROM baseline u WHERE u.device_id = b.device_id "
        "                              AND u.problem_id = b.problem_id) "
        "FROM best b JOIN problem p ON p.id = b.problem_id JOIN config c ON c.id = b.config_id "
        "LEFT JOIN baseline v ON v.rowid = (SELECT rowid FROM baseline WHERE device_id = b.device_id "
        "                                   AND problem_id = b.problem_id AND trial_id = b.trial_id "
        "                                   ORDER BY gflops DESC LIMIT 1) "
        "WHERE b.device_id = ? "
        "ORDER BY p.dtype, p.mode, p.out_dtype, p.layout, p.trans_a, p.trans_b, p.m, p.n, p.k, b.template_name",
        &s, err));
    sqlite3_bind_int64(s, 1, device_id);
    return each_row(st, s, best_row, &(best_cb){fn, user}, err, "bests");
}

typedef struct trial_cb {
    int (*fn)(void *user, const mmt_rep_trial *row);
    void *user;
} trial_cb;

static int trial_row(sqlite3_stmt *s, void *cb)
{
    const int c = MMT_STORE_PROBLEM_NCOLS;
    mmt_rep_trial t = {.id = sqlite3_column_int64(s, c), .session_id = sqlite3_column_int64(s, c + 1),
                       .problem_id = sqlite3_column_int64(s, c + 2), .template_id = sqlite3_column_int64(s, c + 3)};
    mmt_store_problem_from_row(s, 0, &t.problem);
    t.template_name = (const char *)sqlite3_column_text(s, c + 4);
    t.template_hash = (const char *)sqlite3_column_text(s, c + 5);
    t.params = (const char *)sqlite3_column_text(s, c + 6);
    t.status = mmt_trial_status_parse((const char *)sqlite3_column_text(s, c + 7));
    t.time_ms = sqlite3_column_double(s, c + 8);
    t.gflops = sqlite3_column_double(s, c + 9);
    t.created = sqlite3_column_int64(s, c + 10);
    t.round = (mmt_rep_round)sqlite3_column_int(s, c + 11);
    return ((trial_cb *)cb)->fn(((trial_cb *)cb)->user, &t);
}

mmt_status mmt_store_report_trials(mmt_store *st, int64_t device_id,
                                   int (*fn)(void *user, const mmt_rep_trial *t), void *user, mmt_err *err)
{
    sqlite3_stmt *s;
    FORWARD_IF_ERROR(mmt_store_prepare(
        st,
        "SELECT " MMT_STORE_PROBLEM_COLS ", t.id, coalesce(t.session_id, 0), t.problem_id, tp.id, tp.name, "
        "substr(tp.source_hash, 1, 12), c.params, t.status, coalesce(t.time_ms_median, 0), coalesce(t.gflops, 0), "
        "coalesce(CAST(strftime('%s', t.created) AS INTEGER), 0), "
        "CASE WHEN t.message LIKE 'final round:%' THEN 1 WHEN t.message LIKE 'vendor round:%' THEN 2 ELSE 0 END "
        "FROM trial t JOIN problem p ON p.id = t.problem_id JOIN config c ON c.id = t.config_id "
        "JOIN template tp ON tp.id = c.template_id WHERE t.device_id = ? ORDER BY t.id",
        &s, err));
    sqlite3_bind_int64(s, 1, device_id);
    return each_row(st, s, trial_row, &(trial_cb){fn, user}, err, "trials");
}

typedef struct session_cb {
    int (*fn)(void *user, const mmt_rep_session *row);
    void *user;
} session_cb;

static int session_row(sqlite3_stmt *s, void *cb)
{
    mmt_rep_session x = {.id = sqlite3_column_int64(s, 0),
                         .command = (const char *)sqlite3_column_text(s, 1),
                         .strategy = (const char *)sqlite3_column_text(s, 2),
                         .budget = (const char *)sqlite3_column_text(s, 3),
                         .host = (const char *)sqlite3_column_text(s, 4),
                         .outcome = text_or_null(s, 5),
                         .started = sqlite3_column_int64(s, 6),
                         .ended = sqlite3_column_int64(s, 7)};
    return ((session_cb *)cb)->fn(((session_cb *)cb)->user, &x);
}

mmt_status mmt_store_report_sessions(mmt_store *st, int64_t device_id,
                                     int (*fn)(void *user, const mmt_rep_session *s), void *user, mmt_err *err)
{
    sqlite3_stmt *s;
    FORWARD_IF_ERROR(mmt_store_prepare(st,
                                       "SELECT id, command, strategy, budget, host, outcome, "
                                       "coalesce(CAST(strftime('%s', started) AS INTEGER), 0), "
                                       "coalesce(CAST(strftime('%s', ended) AS INTEGER), 0) "
                                       "FROM session WHERE device_id = ? ORDER BY id",
                                       &s, err));
    sqlite3_bind_int64(s, 1, device_id);
    return each_row(st, s, session_row, &(session_cb){fn, user}, err, "sessions");
}
