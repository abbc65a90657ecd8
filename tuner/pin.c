/* pin.c - the final choice into the best table (see pin.h). */
#include "pin.h"

#include <sqlite3.h>

enum { BUSY_TIMEOUT_MS = 30000 };

mmt_status mmt_pin_best(const char *db_path, int64_t trial_id, mmt_err *err)
{
    /* the same statement as store.c's update_best, without its "only if faster" */
    static const char sql[] =
        "INSERT INTO best (device_id, problem_id, template_name, template_id, config_id, trial_id, time_ms, gflops) "
        "SELECT t.device_id, t.problem_id, tp.name, tp.id, t.config_id, t.id, t.time_ms_median, t.gflops "
        "FROM trial t JOIN config c ON c.id = t.config_id JOIN template tp ON tp.id = c.template_id "
        "WHERE t.id = ?1 AND t.status = 'ok' AND t.time_ms_median > 0 "
        "ON CONFLICT (device_id, problem_id, template_name) DO UPDATE SET "
        "template_id = excluded.template_id, config_id = excluded.config_id, trial_id = excluded.trial_id, "
        "time_ms = excluded.time_ms, gflops = excluded.gflops";
    sqlite3 *db = NULL;
    sqlite3_stmt *s = NULL;
    int rc = sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READWRITE, NULL);
    if (rc == SQLITE_OK) rc = sqlite3_busy_timeout(db, BUSY_TIMEOUT_MS);
    if (rc == SQLITE_OK) rc = sqlite3_prepare_v2(db, sql, -1, &s, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_bind_int64(s, 1, trial_id);
        rc = sqlite3_step(s);
        if (rc == SQLITE_DONE) rc = sqlite3_changes(db) == 1 ? SQLITE_OK : SQLITE_NOTFOUND;
    }
    mmt_status st = MMT_OK;
    if (rc == SQLITE_NOTFOUND)
        st = mmt_err_set(err, MMT_NOT_FOUND, "%s: trial %lld is not an ok trial", db_path, (long long)trial_id);
    else if (rc != SQLITE_OK)
        st = mmt_err_set(err, MMT_DATABASE, "%s: making trial %lld the best: %s", db_path, (long long)trial_id,
                         db ? sqlite3_errmsg(db) : "out of memory");
    sqlite3_finalize(s);
    sqlite3_close(db);
    return st;
}
