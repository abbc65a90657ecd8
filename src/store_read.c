/* store_read.c - the SQLite database read back: bests, lists, misses, trials, the best view. */
#include "store.h"

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_sql.h"

mmt_status mmt_store_best_get(mmt_store *st, int64_t device_id, int64_t problem_id, const char *template_name,
                              mmt_best_row *out, mmt_err *err)
{
    sqlite3_stmt *s;
    memset(out, 0, sizeof *out);
    FORWARD_IF_ERROR(mmt_store_prepare(st,
                                       "SELECT b.template_id, b.trial_id, b.gflops, c.params FROM best b "
                                       "JOIN config c ON c.id = b.config_id "
                                       "WHERE b.device_id = ? AND b.problem_id = ? AND b.template_name = ?",
                                       &s, err));
    sqlite3_bind_int64(s, 1, device_id);
    sqlite3_bind_int64(s, 2, problem_id);
    sqlite3_bind_text(s, 3, template_name, -1, SQLITE_TRANSIENT);
    const int rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        out->template_id = sqlite3_column_int64(s, 0);
        out->trial_id = sqlite3_column_int64(s, 1);
        out->gflops = sqlite3_column_double(s, 2);
        snprintf(out->params, sizeof out->params, "%s", (const char *)sqlite3_column_text(s, 3));
    }
    sqlite3_finalize(s);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? MMT_OK : mmt_store_db_error(st, err, "step");
}

#define PROBLEM_COLS MMT_STORE_PROBLEM_COLS
enum { PROBLEM_NCOLS = MMT_STORE_PROBLEM_NCOLS };
#define problem_from_row mmt_store_problem_from_row

const char *mmt_store_text_at(sqlite3_stmt *s, int col)
{
    const char *t = (const char *)sqlite3_column_text(s, col);
    return t ? t : "";
}

int mmt_store_problem_from_row(sqlite3_stmt *s, int col, mmt_problem *p)
{
    memset(p, 0, sizeof *p);
    int bad = mmt_dtype_parse(mmt_store_text_at(s, col), &p->dtype) != 0;
    bad |= mmt_dtype_parse(mmt_store_text_at(s, col + 1), &p->out) != 0;
    bad |= mmt_mode_parse(mmt_store_text_at(s, col + 2), &p->mode) != 0;
    bad |= mmt_layout_parse(mmt_store_text_at(s, col + 3), &p->layout) != 0;
    const int64_t ta = sqlite3_column_int64(s, col + 4), tb = sqlite3_column_int64(s, col + 5);
    p->trans_a = ta != 0;
    p->trans_b = tb != 0;
    p->m = sqlite3_column_int64(s, col + 6);
    p->n = sqlite3_column_int64(s, col + 7);
    p->k = sqlite3_column_int64(s, col + 8);
    for (int i = 4; i < 9; i++) bad |= sqlite3_column_type(s, col + i) != SQLITE_INTEGER;
    bad |= (ta != 0 && ta != 1) || (tb != 0 && tb != 1) || p->m < 1 || p->n < 1 || p->k < 1;
    return !bad && !mmt_problem_check(p);
}

mmt_status mmt_store_collect(mmt_store *st, sqlite3_stmt *s, const char *what, size_t elem_size,
                             int (*row)(sqlite3_stmt *s, void *elem), void **out, size_t *n, mmt_err *err)
{
    *out = NULL;
    *n = 0;
    size_t cap = 0;
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        if (*n == cap) {
            cap = cap ? 2 * cap : 16;
            void *grown = realloc(*out, cap * elem_size);
            if (!grown) {
                sqlite3_finalize(s);
                free(*out);
                *out = NULL;
                *n = 0;
                return mmt_err_set(err, MMT_OUT_OF_MEMORY, "out of memory");
            }
            *out = grown;
        }
        void *elem = (char *)*out + (*n)++ * elem_size;
        memset(elem, 0, elem_size);
        if (!row(s, elem)) (*n)--;
    }
    mmt_status r = rc == SQLITE_DONE ? MMT_OK : mmt_store_db_error(st, err, what);
    sqlite3_finalize(s);
    if (r != MMT_OK) free(*out), *out = NULL, *n = 0;
    return r;
}

/* A row of problem columns, params and GFLOP/s. */
static int rec_row(sqlite3_stmt *s, void *elem)
{
    mmt_best_rec *b = elem;
    snprintf(b->params, sizeof b->params, "%s", mmt_store_text_at(s, PROBLEM_NCOLS));
    b->gflops = sqlite3_column_double(s, PROBLEM_NCOLS + 1);
    return problem_from_row(s, 0, &b->problem);
}

/* The rows of s (problem columns, params, GFLOP/s) into a malloc'd list; finalises s. */
static mmt_status collect_recs(mmt_store *st, sqlite3_stmt *s, const char *what, mmt_best_rec **out, size_t *n,
                               mmt_err *err)
{
    return mmt_store_collect(st, s, what, sizeof **out, rec_row, (void **)out, n, err);
}

/* Parameters 1-3 of s: the device fingerprint, template name and source hash. */
static void bind_kernel(sqlite3_stmt *s, const char *fingerprint, const char *template_name, const char *source_hash)
{
    sqlite3_bind_text(s, 1, fingerprint, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 2, template_name, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 3, source_hash, -1, SQLITE_TRANSIENT);
}

static mmt_status best_list(mmt_store *st, const char *fingerprint, const char *template_name,
                            const char *source_hash, mmt_mode mode, int complete_only, mmt_best_rec **out, size_t *n,
                            mmt_err *err)
{
    *out = NULL;
    *n = 0;
    sqlite3_stmt *s;
#define BEST_LIST_SQL(extra)                                                                      \
    "SELECT " PROBLEM_COLS ", c.params, b.gflops FROM best b JOIN device d ON d.id = b.device_id "      \
    "JOIN template t ON t.id = b.template_id JOIN config c ON c.id = b.config_id "                    \
    "JOIN problem p ON p.id = b.problem_id "                                                          \
    "WHERE d.fingerprint = ? AND t.name = ? AND t.source_hash = ? AND p.mode = ? " extra " ORDER BY p.id"
    FORWARD_IF_ERROR(mmt_store_prepare(st, complete_only ? BEST_LIST_SQL("AND b.partial = 0 AND NOT " MMT_STORE_BUSY(
                                                                "(SELECT cpu_wait FROM trial WHERE id = b.trial_id)"))
                                                : BEST_LIST_SQL(""), &s, err));
#undef BEST_LIST_SQL
    bind_kernel(s, fingerprint, template_name, source_hash);
    sqlite3_bind_text(s, 4, mmt_mode_name(mode), -1, SQLITE_STATIC);
    return collect_recs(st, s, "best list", out, n, err);
}

mmt_status mmt_store_best_list(mmt_store *st, const char *fingerprint, const char *template_name,
                               const char *source_hash, mmt_mode mode, mmt_best_rec **out, size_t *n,
                               mmt_err *err)
{
    return best_list(st, fingerprint, template_name, source_hash, mode, 0, out, n, err);
}

mmt_status mmt_store_best_list_complete(mmt_store *st, const char *fingerprint, const char *template_name,
                                        const char *source_hash, mmt_mode mode, mmt_best_rec **out, size_t *n,
                                        mmt_err *err)
{
    return best_list(st, fingerprint, template_name, source_hash, mode, 1, out, n, err);
}

mmt_status mmt_store_measured_list(mmt_store *st, const char *fingerprint, const char *template_name,
                                   const char *source_hash, const mmt_problem *p, mmt_best_rec **out, size_t *n,
                                   mmt_err *err)
{
    *out = NULL;
    *n = 0;
    sqlite3_stmt *s;
    FORWARD_IF_ERROR(mmt_store_prepare(st,
                                       "SELECT " PROBLEM_COLS ", c.params, max(t.gflops) AS g "
                                       "FROM trial t JOIN device d ON d.id = t.device_id "
                                       "JOIN config c ON c.id = t.config_id JOIN template tp ON tp.id = c.template_id "
                                       "JOIN problem p ON p.id = t.problem_id "
                                       "WHERE d.fingerprint = ?1 AND tp.name = ?2 AND tp.source_hash = ?3 "
                                       "AND t.status = 'ok' "
                                       "AND t.gflops > 0 AND p.dtype = ?4 AND p.out_dtype = ?5 AND p.mode = ?6 "
                                       "AND p.layout = ?7 AND p.trans_a = ?8 AND p.trans_b = ?9 "
                                       "AND p.m = ?10 AND p.n = ?11 "
                                       "AND p.k = ?12 GROUP BY c.id ORDER BY g DESC, c.id",
                                       &s, err));
    bind_kernel(s, fingerprint, template_name, source_hash);
    mmt_store_bind_problem(s, 4, p);
    return collect_recs(st, s, "measured list", out, n, err);
}

static int miss_row(sqlite3_stmt *s, void *elem)
{
    mmt_miss_rec *m = elem;
    m->problem_id = sqlite3_column_int64(s, PROBLEM_NCOLS);
    m->calls = sqlite3_column_int64(s, PROBLEM_NCOLS + 1);
    return problem_from_row(s, 0, &m->problem);
}

mmt_status mmt_store_miss_list(mmt_store *st, const char *fingerprint, mmt_miss_rec **out, size_t *n,
                               mmt_err *err)
{
    *out = NULL;
    *n = 0;
    sqlite3_stmt *s;
    FORWARD_IF_ERROR(mmt_store_prepare(st,
                                       "SELECT " PROBLEM_COLS ", x.problem_id, x.calls FROM miss x "
                                       "JOIN device d ON d.id = x.device_id JOIN problem p ON p.id = x.problem_id "
                                       "WHERE d.fingerprint = ? ORDER BY x.calls DESC, x.last_seen DESC, p.id",
                                       &s, err));
    sqlite3_bind_text(s, 1, fingerprint, -1, SQLITE_TRANSIENT);
    return mmt_store_collect(st, s, "miss list", sizeof **out, miss_row, (void **)out, n, err);
}

mmt_status mmt_store_trials_each(mmt_store *st, int64_t device_id, int64_t problem_id, int64_t template_id,
                                 int (*fn)(void *user, const char *params, mmt_trial_status status,
                                           double time_ms_median, double gflops),
                                 void *user, mmt_err *err)
{
    sqlite3_stmt *s;
    FORWARD_IF_ERROR(mmt_store_prepare(st,
                                       "SELECT c.params, t.status, t.time_ms_median, t.gflops FROM trial t "
                                       "JOIN config c ON c.id = t.config_id "
                                       "WHERE t.device_id = ? AND t.problem_id = ? AND c.template_id = ? "
                                       "AND NOT " MMT_STORE_BUSY("t.cpu_wait") " ORDER BY t.id",
                                       &s, err));
    sqlite3_bind_int64(s, 1, device_id);
    sqlite3_bind_int64(s, 2, problem_id);
    sqlite3_bind_int64(s, 3, template_id);
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        double ms = sqlite3_column_type(s, 2) == SQLITE_NULL ? INFINITY : sqlite3_column_double(s, 2);
        mmt_trial_status status = mmt_trial_status_parse((const char *)sqlite3_column_text(s, 1));
        if (fn(user, (const char *)sqlite3_column_text(s, 0), status, ms, sqlite3_column_double(s, 3))) {
            rc = SQLITE_DONE;
            break;
        }
    }
    mmt_status r = rc == SQLITE_DONE ? MMT_OK : mmt_store_db_error(st, err, "trials");
    sqlite3_finalize(s);
    return r;
}

mmt_status mmt_store_fastest_within(mmt_store *st, int64_t device_id, int64_t problem_id, int64_t template_id,
                                    double max_error, char *params, size_t size, double *ms, mmt_err *err)
{
    params[0] = '\0';
    *ms = INFINITY;
    sqlite3_stmt *s;
    FORWARD_IF_ERROR(mmt_store_prepare(st,
                                       "SELECT c.params, t.time_ms_median FROM trial t "
                                       "JOIN config c ON c.id = t.config_id "
                                       "WHERE t.device_id = ? AND t.problem_id = ? AND c.template_id = ? "
                                       "AND t.status = 'ok' AND t.rel_error > 0 AND t.rel_error <= ? "
                                       "AND t.time_ms_median > 0 AND NOT " MMT_STORE_BUSY("t.cpu_wait")
                                       " ORDER BY t.time_ms_median, c.params LIMIT 1",
                                       &s, err));
    sqlite3_bind_int64(s, 1, device_id);
    sqlite3_bind_int64(s, 2, problem_id);
    sqlite3_bind_int64(s, 3, template_id);
    sqlite3_bind_double(s, 4, max_error);
    int rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        snprintf(params, size, "%s", mmt_store_text_at(s, 0));
        *ms = sqlite3_column_double(s, 1);
        rc = SQLITE_DONE;
    }
    mmt_status r = rc == SQLITE_DONE ? MMT_OK : mmt_store_db_error(st, err, "the fastest trial within an error");
    sqlite3_finalize(s);
    return r;
}

static int trial_set_row(sqlite3_stmt *s, void *elem)
{
    mmt_trial_set *t = elem;
    const int sound = problem_from_row(s, 0, &t->problem);
    const int c = PROBLEM_NCOLS;
    t->device_id = sqlite3_column_int64(s, c);
    t->problem_id = sqlite3_column_int64(s, c + 1);
    t->template_id = sqlite3_column_int64(s, c + 2);
    snprintf(t->template_name, sizeof t->template_name, "%s", mmt_store_text_at(s, c + 3));
    mmt_store_device_from_row(s, c + 4, &t->device);
    t->trials = (size_t)sqlite3_column_int64(s, c + 9);
    return sound;
}

mmt_status mmt_store_trial_sets(mmt_store *st, mmt_trial_set **out, size_t *n, mmt_err *err)
{
    *out = NULL;
    *n = 0;
    sqlite3_stmt *s;
    FORWARD_IF_ERROR(mmt_store_prepare(st,
                                       "SELECT " PROBLEM_COLS ", t.device_id, t.problem_id, c.template_id, tp.name, "
                                       "d.backend, "
                                       "d.name, d.arch, d.fingerprint, d.props, count(*) FROM trial t "
                                       "JOIN config c ON c.id = t.config_id JOIN template tp ON tp.id = c.template_id "
                                       "JOIN device d ON d.id = t.device_id JOIN problem p ON p.id = t.problem_id "
                                       "GROUP BY t.device_id, t.problem_id, c.template_id "
                                       "ORDER BY t.device_id, c.template_id, t.problem_id",
                                       &s, err));
    return mmt_store_collect(st, s, "trial sets", sizeof **out, trial_set_row, (void **)out, n, err);
}

void mmt_store_device_from_row(sqlite3_stmt *s, int col, mmt_device_info *d)
{
    memset(d, 0, sizeof *d);
    snprintf(d->backend, sizeof d->backend, "%s", (const char *)sqlite3_column_text(s, col));
    snprintf(d->name, sizeof d->name, "%s", (const char *)sqlite3_column_text(s, col + 1));
    snprintf(d->arch, sizeof d->arch, "%s", (const char *)sqlite3_column_text(s, col + 2));
    snprintf(d->fingerprint, sizeof d->fingerprint, "%s", (const char *)sqlite3_column_text(s, col + 3));
    /* props: "name=value name=value ...", as mmt_store_device wrote them */
    const char *props = (const char *)sqlite3_column_text(s, col + 4);
    for (const char *q = props ? props : ""; *q;) {
        char name[48];
        long long v;
        int used = 0;
        if (sscanf(q, "%47[^= ]=%lld%n", name, &v, &used) == 2) mmt_device_set_prop(d, name, v);
        q += used ? used : 1;
        while (*q == ' ') q++;
    }
}

mmt_status mmt_store_print_best(mmt_store *st, void *file, const char *device, mmt_err *err)
{
    FILE *f = file;
    sqlite3_stmt *s;
    FORWARD_IF_ERROR(mmt_store_prepare(st, "SELECT * FROM best_view WHERE ?1 IS NULL OR device = ?1", &s, err));
    if (device) sqlite3_bind_text(s, 1, device, -1, SQLITE_TRANSIENT);
    int cols = sqlite3_column_count(s);
    /* two passes: widths, then rows (the view is small: one row per tuned problem) */
    int width[32] = {0};
    if (cols > 32) cols = 32;
    for (int c = 0; c < cols; c++) width[c] = (int)strlen(sqlite3_column_name(s, c));
    int rc, rows = 0;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        rows++;
        for (int c = 0; c < cols; c++) {
            const unsigned char *t = sqlite3_column_text(s, c);
            int w = t ? (int)strlen((const char *)t) : 0;
            if (w > width[c]) width[c] = w;
        }
    }
    sqlite3_reset(s);
    /* the last column is not padded: no trailing blanks */
    for (int c = 0; c < cols; c++)
        fprintf(f, "%-*s%s", c + 1 < cols ? width[c] : 0, sqlite3_column_name(s, c), c + 1 < cols ? "  " : "\n");
    while ((rc = sqlite3_step(s)) == SQLITE_ROW)
        for (int c = 0; c < cols; c++) {
            const unsigned char *t = sqlite3_column_text(s, c);
            fprintf(f, "%-*s%s", c + 1 < cols ? width[c] : 0, t ? (const char *)t : "", c + 1 < cols ? "  " : "\n");
        }
    if (rows == 0) fprintf(f, "(no tuned problems%s%s in %s)\n", device ? " for " : "", device ? device : "", st->path);
    mmt_status r = rc == SQLITE_DONE ? MMT_OK : mmt_store_db_error(st, err, "best_view");
    sqlite3_finalize(s);
    return r;
}

mmt_status mmt_store_best_view_each(mmt_store *st, const char *device,
                                    int (*fn)(void *user, const mmt_store_cell *cells, int n), void *user,
                                    mmt_err *err)
{
    sqlite3_stmt *s;
    FORWARD_IF_ERROR(mmt_store_prepare(st, "SELECT * FROM best_view WHERE ?1 IS NULL OR device = ?1", &s, err));
    if (device) sqlite3_bind_text(s, 1, device, -1, SQLITE_TRANSIENT);
    mmt_store_cell cells[32];
    int n = sqlite3_column_count(s) < 32 ? sqlite3_column_count(s) : 32, rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        for (int c = 0; c < n; c++) {
            mmt_store_cell *x = &cells[c];
            *x = (mmt_store_cell){.name = sqlite3_column_name(s, c)};
            switch (sqlite3_column_type(s, c)) {
            case SQLITE_INTEGER: x->type = MMT_CELL_INT, x->i = sqlite3_column_int64(s, c); break;
            case SQLITE_FLOAT: x->type = MMT_CELL_REAL, x->r = sqlite3_column_double(s, c); break;
            case SQLITE_NULL: x->type = MMT_CELL_NULL; break;
            default: x->type = MMT_CELL_TEXT, x->text = (const char *)sqlite3_column_text(s, c); break;
            }
        }
        if (fn(user, cells, n)) {
            rc = SQLITE_DONE;
            break;
        }
    }
    mmt_status r = rc == SQLITE_DONE ? MMT_OK : mmt_store_db_error(st, err, "best_view");
    sqlite3_finalize(s);
    return r;
}
