/* store_serving.c - the queries of store_serving.h. */
#include "store_serving.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ooc_tuned.h"
#include "store_sql.h"
#include "vendor.h"

static int paired_row(sqlite3_stmt *s, void *elem)
{
    mmt_paired_rec *r = elem;
    r->gflops = sqlite3_column_double(s, MMT_STORE_PROBLEM_NCOLS);
    r->vendor_gflops = sqlite3_column_double(s, MMT_STORE_PROBLEM_NCOLS + 1);
    r->transfer = r->reach = 0; /* not calibrated */
    return mmt_store_problem_from_row(s, 0, &r->problem);
}

static int recorded_row(sqlite3_stmt *s, void *elem)
{
    mmt_recorded_best *r = elem;
    const int c = MMT_STORE_PROBLEM_NCOLS;
    snprintf(r->best.params, sizeof r->best.params, "%s", mmt_store_text_at(s, c));
    r->best.gflops = sqlite3_column_double(s, c + 1);
    snprintf(r->template_name, sizeof r->template_name, "%s", mmt_store_text_at(s, c + 2));
    snprintf(r->source_hash, sizeof r->source_hash, "%s", mmt_store_text_at(s, c + 3));
    if (sqlite3_column_type(s, c + 4) != SQLITE_NULL && sqlite3_column_double(s, c + 4) > 0) {
        r->vendor_gflops = sqlite3_column_double(s, c + 4);
        r->pairing = sqlite3_column_int(s, c + 5)   ? MMT_VENDOR_PAIRED
                     : sqlite3_column_int(s, c + 6) ? MMT_VENDOR_ALONE
                                                    : MMT_VENDOR_OTHER;
    }
    return mmt_store_problem_from_row(s, 0, &r->best.problem);
}

mmt_status mmt_store_paired_list(mmt_store *st, const char *fingerprint, mmt_mode mode, mmt_paired_rec **out,
                                 size_t *n, mmt_err *err)
{
    *out = NULL;
    *n = 0;
    sqlite3_stmt *s;
    /* the vendor round pairs its figure with the fastest family's trial, whose best it is
     * until a later round moves it: one row a problem. Where the vendor family has a best of
     * the problem too it serves it (the faster, or the more accurate), so the template's
     * figure counts for no more than the vendor's there. */
    FORWARD_IF_ERROR(mmt_store_prepare(st,
                                       "SELECT " MMT_STORE_PROBLEM_COLS ", "
                                       "CASE WHEN vb.problem_id IS NULL THEN b.gflops "
                                       "ELSE MIN(b.gflops, v.gflops) END, v.gflops "
                                       "FROM best b JOIN device d ON d.id = b.device_id "
                                       "JOIN problem p ON p.id = b.problem_id "
                                       "JOIN baseline v ON v.device_id = b.device_id AND v.problem_id = b.problem_id "
                                       "AND v.trial_id = b.trial_id "
                                       "LEFT JOIN best vb ON vb.device_id = b.device_id AND vb.problem_id = b.problem_id "
                                       "AND vb.template_name = ?3 "
                                       "WHERE d.fingerprint = ?1 AND p.mode = ?2 AND b.template_name NOT IN (?3, ?4) "
                                       "AND b.gflops > 0 AND v.gflops > 0 ORDER BY p.id",
                                       &s, err));
    sqlite3_bind_text(s, 1, fingerprint, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 2, mmt_mode_name(mode), -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 3, MMT_VENDOR_TEMPLATE, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 4, MMT_OOC_TEMPLATE, -1, SQLITE_STATIC);
    return mmt_store_collect(st, s, "paired list", sizeof **out, paired_row, (void **)out, n, err);
}

mmt_status mmt_store_recorded_bests(mmt_store *st, const char *fingerprint, mmt_mode mode, mmt_recorded_best **out,
                                    size_t *n, mmt_err *err)
{
    *out = NULL;
    *n = 0;
    sqlite3_stmt *s;
    FORWARD_IF_ERROR(mmt_store_prepare(st,
                                       "SELECT " MMT_STORE_PROBLEM_COLS ", c.params, b.gflops, b.template_name, "
                                       "t.source_hash, v.gflops, v.trial_id IS b.trial_id, v.trial_id IS NULL "
                                       "FROM best b JOIN device d ON d.id = b.device_id "
                                       "JOIN problem p ON p.id = b.problem_id JOIN template t ON t.id = b.template_id "
                                       "JOIN config c ON c.id = b.config_id "
                                       /* timed beside this best, else alone, else beside another
                                        * trial; the latest among equals (SQLite takes no outer
                                        * column in a subquery's ORDER BY: a key of rank and rowid) */
                                       "LEFT JOIN baseline v ON v.rowid = (SELECT max((CASE "
                                       "WHEN x.trial_id IS b.trial_id THEN 2 WHEN x.trial_id IS NULL THEN 1 "
                                       "ELSE 0 END) * 4294967296 + x.rowid) FROM baseline x "
                                       "WHERE x.device_id = b.device_id AND x.problem_id = b.problem_id) % 4294967296 "
                                       "WHERE d.fingerprint = ?1 AND p.mode = ?2 ORDER BY p.id, b.template_name",
                                       &s, err));
    sqlite3_bind_text(s, 1, fingerprint, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 2, mmt_mode_name(mode), -1, SQLITE_STATIC);
    return mmt_store_collect(st, s, "recorded bests", sizeof **out, recorded_row, (void **)out, n, err);
}

mmt_status mmt_store_best_drop(mmt_store *st, int64_t device_id, int64_t problem_id, const char *template_name,
                               int *dropped, mmt_err *err)
{
    sqlite3_stmt *s;
    FORWARD_IF_ERROR(mmt_store_prepare(
        st, "DELETE FROM best WHERE device_id = ?1 AND problem_id = ?2 AND template_name = ?3", &s, err));
    sqlite3_bind_int64(s, 1, device_id);
    sqlite3_bind_int64(s, 2, problem_id);
    sqlite3_bind_text(s, 3, template_name, -1, SQLITE_TRANSIENT);
    const int rc = sqlite3_step(s);
    sqlite3_finalize(s);
    RETURN_ERROR_IF(rc != SQLITE_DONE, err, MMT_DATABASE, "%s: dropping the %s best: %s", st->path, template_name,
                    sqlite3_errmsg(st->db));
    if (dropped) *dropped = sqlite3_changes(st->db) > 0;
    return MMT_OK;
}
