/* store.c - the SQLite database opened, upgraded and written (see store.h and db/schema.sql). */
#include "store.h"

#include <limits.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "fsutil.h"
#include "resource.h"
#include "store_sql.h"

enum { SCHEMA_VERSION = 6, BUSY_TIMEOUT_MS = 30000 };

void mmt_store_default_path(char *buf, size_t size)
{
    const char *env = getenv("MMTUNE_DB");
    char base[4096];
    mmt_user_cache_dir(base, sizeof base);
    if (env && *env) snprintf(buf, size, "%s", env);
    else snprintf(buf, size, "%s/mmtune/mmtune.db", base);
}

mmt_status mmt_store_default_dir_check(int create, mmt_err *err)
{
    const char *env = getenv("MMTUNE_DB");
    if (env && *env) return MMT_OK; /* the user's own choice, as an explicit path is */
    char path[4096 + 32]; /* the cache folder and mmtune/mmtune.db */
    mmt_store_default_path(path, sizeof path);
    char *slash = strrchr(path, '/');
    if (slash) *slash = '\0';
    if (!create && access(path, F_OK) != 0) return MMT_OK;
    return mmt_private_dir(path, err);
}

/* SQLite's words for what went wrong, with what they mean for a database file said plainly. */
static const char *sqlite_why(int rc, const char *msg)
{
    switch (rc & 0xff) {
    case SQLITE_NOTADB: return "not an SQLite database (another kind of file, or its header is damaged)";
    case SQLITE_CORRUPT: return "damaged (SQLite: database disk image is malformed)";
    default: return msg;
    }
}

static mmt_status db_error(mmt_store *st, mmt_err *err, const char *what)
{
    return mmt_err_set(err, MMT_DATABASE, "%s: %s: %s", st->path, what,
                       sqlite_why(sqlite3_extended_errcode(st->db), sqlite3_errmsg(st->db)));
}

static mmt_status exec(mmt_store *st, const char *sql, mmt_err *err)
{
    char *msg = NULL;
    if (sqlite3_exec(st->db, sql, NULL, NULL, &msg) == SQLITE_OK) return MMT_OK;
    mmt_status s = mmt_err_set(err, MMT_DATABASE, "%s: %s", st->path,
                               sqlite_why(sqlite3_extended_errcode(st->db), msg ? msg : sqlite3_errmsg(st->db)));
    sqlite3_free(msg);
    return s;
}

static mmt_status prepare(mmt_store *st, const char *sql, sqlite3_stmt **out, mmt_err *err)
{
    if (sqlite3_prepare_v2(st->db, sql, -1, out, NULL) == SQLITE_OK) return MMT_OK;
    *out = NULL;
    return db_error(st, err, "prepare");
}

/* Runs a statement to completion (no rows wanted) and finalizes it. */
static mmt_status step_done(mmt_store *st, sqlite3_stmt *s, mmt_err *err)
{
    int rc = sqlite3_step(s);
    mmt_status r = rc == SQLITE_DONE || rc == SQLITE_ROW ? MMT_OK : db_error(st, err, "step");
    sqlite3_finalize(s);
    return r;
}

static mmt_status user_version(mmt_store *st, int *v, mmt_err *err)
{
    sqlite3_stmt *s;
    FORWARD_IF_ERROR(prepare(st, "PRAGMA user_version", &s, err));
    *v = sqlite3_step(s) == SQLITE_ROW ? sqlite3_column_int(s, 0) : 0;
    sqlite3_finalize(s);
    return MMT_OK;
}

static mmt_status too_new(mmt_store *st, int v, mmt_err *err)
{
    return mmt_err_set(err, MMT_DATABASE, "%s: schema version %d is newer than this mmtune knows (%d): update mmtune",
                       st->path, v, SCHEMA_VERSION);
}

/* Fails if a row names a missing parent. The rebuild of a table in a migration runs with
 * foreign keys off, so this is what proves that it kept every id. */
static mmt_status foreign_keys_hold(mmt_store *st, mmt_err *err)
{
    sqlite3_stmt *s;
    FORWARD_IF_ERROR(prepare(st, "PRAGMA foreign_key_check", &s, err));
    int rc = sqlite3_step(s);
    mmt_status r = MMT_OK;
    if (rc == SQLITE_ROW)
        r = mmt_err_set(err, MMT_DATABASE, "%s: schema upgrade stopped: %s row %lld names a missing %s row", st->path,
                        (const char *)sqlite3_column_text(s, 0), (long long)sqlite3_column_int64(s, 1),
                        (const char *)sqlite3_column_text(s, 2));
    else if (rc != SQLITE_DONE) r = db_error(st, err, "foreign_key_check");
    sqlite3_finalize(s);
    return r;
}

/* The schema steps of upgrade(), in one write transaction. The version is read again
 * under the write lock, so when two processes open an old or new file at once the
 * second finds the first one's work and does nothing. */
static mmt_status upgrade_locked(mmt_store *st, mmt_err *err)
{
    int v;
    FORWARD_IF_ERROR(exec(st, "BEGIN IMMEDIATE", err));
    mmt_status s = user_version(st, &v, err);
    if (s == MMT_OK && v > SCHEMA_VERSION) s = too_new(st, v, err);
    for (int next = v == 0 ? SCHEMA_VERSION : v + 1; s == MMT_OK && next <= SCHEMA_VERSION; next++) {
        char name[64], pragma[64], *sql = NULL;
        size_t n;
        if (v == 0) snprintf(name, sizeof name, "db/schema.sql");
        else snprintf(name, sizeof name, "db/migrate_%d.sql", next);
        snprintf(pragma, sizeof pragma, "PRAGMA user_version = %d", next);
        s = mmt_resource_read(name, &sql, &n, err);
        if (s == MMT_OK) s = exec(st, sql, err);
        if (s == MMT_OK) s = exec(st, pragma, err);
        free(sql);
    }
    if (s == MMT_OK) s = foreign_keys_hold(st, err);
    if (s == MMT_OK) s = exec(st, "COMMIT", err);
    if (s != MMT_OK) exec(st, "ROLLBACK", NULL);
    return s;
}

/* PRAGMA quick_check: MMT_OK where the whole file reads, else MMT_DATABASE with SQLite's
 * reason ("damaged: ...", or its error where it cannot even run the check). */
static mmt_status quick_check(mmt_store *st, mmt_err *err)
{
    sqlite3_stmt *s;
    FORWARD_IF_ERROR(prepare(st, "PRAGMA quick_check", &s, err));
    const int rc = sqlite3_step(s);
    const char *said = rc == SQLITE_ROW ? (const char *)sqlite3_column_text(s, 0) : NULL;
    mmt_status r = said && strcmp(said, "ok") == 0 ? MMT_OK
                   : said ? mmt_err_set(err, MMT_DATABASE, "%s: damaged: %.300s", st->path, said)
                          : db_error(st, err, "checking");
    sqlite3_finalize(s);
    return r;
}

/* Brings the file to SCHEMA_VERSION: db/schema.sql for a new file (user_version 0), else
 * db/migrate_N.sql for each N after the file's version. Migrations rebuild tables
 * (SQLite's documented procedure), which needs foreign keys off; the pragma is a no-op
 * inside a transaction, so it goes around it, and back on whatever happened. */
static mmt_status upgrade(mmt_store *st, int readonly, mmt_err *err)
{
    int v;
    FORWARD_IF_ERROR(user_version(st, &v, err));
    if (v > SCHEMA_VERSION) return too_new(st, v, err);
    if (v == SCHEMA_VERSION) return MMT_OK;
    /* version 0 read-only: no mmtune database, or one SQLite cannot read (a truncated file
     * reads as version 0): say which rather than ask for an upgrade */
    if (readonly && v == 0) {
        FORWARD_IF_ERROR(quick_check(st, err));
        return mmt_err_set(err, MMT_DATABASE, "%s: not an mmtune database (no schema version)", st->path);
    }
    RETURN_ERROR_IF(readonly, err, MMT_DATABASE, "%s: schema version %d needs an upgrade to %d (open it writable)",
                    st->path, v, SCHEMA_VERSION);
    FORWARD_IF_ERROR(exec(st, "PRAGMA foreign_keys = OFF", err));
    mmt_status s = upgrade_locked(st, err);
    mmt_status on = exec(st, "PRAGMA foreign_keys = ON", s == MMT_OK ? err : NULL);
    return s != MMT_OK ? s : on;
}

/* Switching a file to WAL needs an exclusive lock, and SQLite answers SQLITE_BUSY at once,
 * without the busy handler (it would risk a deadlock), while another connection opening
 * the same file holds a read lock: so the switch is retried for as long as the busy
 * timeout, or processes opening a new file together fail with "database is locked". */
static mmt_status wal_mode(mmt_store *st, mmt_err *err)
{
    const double deadline = mmt_now_s() + BUSY_TIMEOUT_MS / 1000.0;
    int rc;
    while ((rc = sqlite3_exec(st->db, "PRAGMA journal_mode = WAL", NULL, NULL, NULL)) == SQLITE_BUSY &&
           mmt_now_s() < deadline)
        usleep(10000);
    return rc == SQLITE_OK ? MMT_OK : db_error(st, err, "journal_mode = WAL");
}

/* "file:PATH?immutable=1" with PATH's URI characters escaped. */
static void immutable_uri(const char *path, char *buf, size_t size)
{
    size_t n = (size_t)snprintf(buf, size, "file:");
    for (const char *p = path; *p && n + 4 < size; p++)
        n += (size_t)(*p == '%' || *p == '?' || *p == '#' ? snprintf(buf + n, size - n, "%%%02X", (unsigned char)*p)
                                                          : snprintf(buf + n, size - n, "%c", *p));
    snprintf(buf + n, size - n, "?immutable=1");
}

/* sqlite3_open_v2 of path, read-only or read-write (created if missing). A database this
 * process cannot write is one its owner published: read as it is (immutable), with no -shm
 * or -wal made beside it (a reader of a WAL database made them, owned by itself, in the
 * owner's directory, and the owner's next tune could not write them). */
static int open_db(const char *path, int readonly, sqlite3 **db)
{
    const int flags = (readonly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) |
                      SQLITE_OPEN_FULLMUTEX;
    if (!readonly || access(path, W_OK) == 0) return sqlite3_open_v2(path, db, flags, NULL);
    char uri[PATH_MAX + 64];
    immutable_uri(path, uri, sizeof uri);
    return sqlite3_open_v2(uri, db, flags | SQLITE_OPEN_URI, NULL);
}

mmt_status mmt_store_open(const char *path, int readonly, mmt_store **out, mmt_err *err)
{
    *out = NULL;
    mmt_store *st = calloc(1, sizeof *st);
    RETURN_ERROR_IF(!st, err, MMT_OUT_OF_MEMORY, "out of memory");
    snprintf(st->path, sizeof st->path, "%s", path);
    if (!readonly) {
        char dir[1024];
        snprintf(dir, sizeof dir, "%s", path);
        char *slash = strrchr(dir, '/');
        if (slash && slash != dir) {
            *slash = '\0';
            mmt_status s = mmt_mkdirs(dir, err);
            if (s != MMT_OK) {
                free(st);
                return s;
            }
        }
    }
    if (readonly && access(path, F_OK) != 0) {
        free(st);
        return mmt_err_set(err, MMT_NOT_FOUND, "%s: no such database", path);
    }
    int rc = open_db(path, readonly, &st->db);
    mmt_status s = MMT_OK;
    if (rc != SQLITE_OK)
        s = mmt_err_set(err, readonly && rc == SQLITE_CANTOPEN ? MMT_NOT_FOUND : MMT_DATABASE, "%s: %s", path,
                        st->db ? sqlite3_errmsg(st->db) : sqlite3_errstr(rc));
    /* SQLite opens a file it cannot write read-only without a word: say so before writing */
    if (s == MMT_OK && !readonly && sqlite3_db_readonly(st->db, "main") == 1)
        s = mmt_err_set(err, MMT_DATABASE, "%s is read-only: it can be read, not tuned into (--db names another file)",
                        path);
    if (s == MMT_OK) {
        sqlite3_busy_timeout(st->db, BUSY_TIMEOUT_MS);
        if (!readonly) s = wal_mode(st, err);
        /* In WAL mode, NORMAL syncs the log at checkpoints rather than at every commit: a
         * process that dies loses nothing it committed, a machine that loses power at most
         * its last commits, never the file's consistency. FULL's sync per commit (a trial, a
         * binary) left the H100 waiting 66% of a fast problem's tune (4.2 candidates a
         * second); the same tune with the database on tmpfs, 28% (9.2 a second). */
        if (s == MMT_OK && !readonly) s = exec(st, "PRAGMA synchronous = NORMAL", err);
        if (s == MMT_OK) s = exec(st, "PRAGMA foreign_keys = ON", err);
    }
    if (s == MMT_OK) s = upgrade(st, readonly, err);
    if (s != MMT_OK) {
        mmt_store_close(st);
        return s;
    }
    *out = st;
    return MMT_OK;
}

mmt_status mmt_store_check(mmt_store *st, mmt_err *err)
{
    FORWARD_IF_ERROR(quick_check(st, err));
    return exec(st, "SELECT 1 FROM best_view LIMIT 1", err);
}

mmt_status mmt_store_open_snapshot(const char *path, mmt_store **out, mmt_err *err)
{
    *out = NULL;
    RETURN_ERROR_IF(access(path, F_OK) != 0, err, MMT_NOT_FOUND, "%s: no such database", path);
    mmt_store *st = calloc(1, sizeof *st);
    RETURN_ERROR_IF(!st, err, MMT_OUT_OF_MEMORY, "out of memory");
    snprintf(st->path, sizeof st->path, "%s", path);
    sqlite3 *src = NULL;
    mmt_status s = MMT_OK;
    if (open_db(path, 1, &src) != SQLITE_OK ||
        sqlite3_open(":memory:", &st->db) != SQLITE_OK) {
        s = mmt_err_set(err, MMT_DATABASE, "%s: %s", path, src ? sqlite3_errmsg(src) : "cannot open");
    } else {
        /* the backup API reads one consistent snapshot, WAL included */
        sqlite3_busy_timeout(src, BUSY_TIMEOUT_MS);
        sqlite3_backup *b = sqlite3_backup_init(st->db, "main", src, "main");
        int rc = b ? sqlite3_backup_step(b, -1) : SQLITE_ERROR;
        if (b) sqlite3_backup_finish(b);
        /* the backup's own code: the source connection's message says "not an error" */
        if (rc != SQLITE_DONE) s = mmt_err_set(err, MMT_DATABASE, "%s: reading it: %s", path, sqlite_why(rc, sqlite3_errstr(rc)));
    }
    sqlite3_close_v2(src);
    if (s == MMT_OK) s = exec(st, "PRAGMA foreign_keys = ON", err);
    if (s == MMT_OK) s = upgrade(st, 0, err); /* the copy, not the file */
    if (s != MMT_OK) {
        mmt_store_close(st);
        return s;
    }
    *out = st;
    return MMT_OK;
}

void mmt_store_close(mmt_store *st)
{
    if (!st) return;
    sqlite3_close_v2(st->db);
    free(st);
}

/* INSERT OR IGNORE, then the id of the row: a pair of statements over the same key. */
static mmt_status id_of(mmt_store *st, sqlite3_stmt *ins, sqlite3_stmt *sel, int64_t *id, mmt_err *err)
{
    mmt_status s = sqlite3_step(ins) == SQLITE_DONE ? MMT_OK : db_error(st, err, "insert");
    if (s == MMT_OK) {
        if (sqlite3_step(sel) == SQLITE_ROW) *id = sqlite3_column_int64(sel, 0);
        else s = db_error(st, err, "select id");
    }
    sqlite3_finalize(ins);
    sqlite3_finalize(sel);
    return s;
}

mmt_status mmt_store_device(mmt_store *st, const mmt_device_info *d, int64_t *id, mmt_err *err)
{
    char props[4096] = "";
    size_t n = 0;
    for (int i = 0; i < d->n_props && n < sizeof props; i++)
        n += snprintf(props + n, sizeof props - n, "%s%s=%lld", i ? " " : "", d->props[i].name,
                      (long long)d->props[i].value);
    sqlite3_stmt *ins, *sel;
    FORWARD_IF_ERROR(prepare(st,
                             "INSERT INTO device (backend, name, arch, fingerprint, props) VALUES (?, ?, ?, ?, ?) "
                             "ON CONFLICT (fingerprint) DO UPDATE SET props = excluded.props "
                             "WHERE props <> excluded.props",
                             &ins, err));
    if (prepare(st, "SELECT id FROM device WHERE fingerprint = ?", &sel, err) != MMT_OK) {
        sqlite3_finalize(ins);
        return err ? err->status : MMT_DATABASE;
    }
    sqlite3_bind_text(ins, 1, d->backend, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(ins, 2, d->name, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(ins, 3, d->arch, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(ins, 4, d->fingerprint, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(ins, 5, props, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(sel, 1, d->fingerprint, -1, SQLITE_TRANSIENT);
    return id_of(st, ins, sel, id, err);
}

mmt_status mmt_store_template(mmt_store *st, const char *name, const char *source_hash, int64_t *id, mmt_err *err)
{
    sqlite3_stmt *ins, *sel;
    FORWARD_IF_ERROR(prepare(st, "INSERT OR IGNORE INTO template (name, source_hash) VALUES (?, ?)", &ins, err));
    if (prepare(st, "SELECT id FROM template WHERE name = ? AND source_hash = ?", &sel, err) != MMT_OK) {
        sqlite3_finalize(ins);
        return err ? err->status : MMT_DATABASE;
    }
    for (int i = 0; i < 2; i++) {
        sqlite3_stmt *s = i ? sel : ins;
        sqlite3_bind_text(s, 1, name, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(s, 2, source_hash, -1, SQLITE_TRANSIENT);
    }
    return id_of(st, ins, sel, id, err);
}

mmt_status mmt_store_config(mmt_store *st, int64_t template_id, const char *params, int64_t *id, mmt_err *err)
{
    sqlite3_stmt *ins, *sel;
    FORWARD_IF_ERROR(prepare(st, "INSERT OR IGNORE INTO config (template_id, params) VALUES (?, ?)", &ins, err));
    if (prepare(st, "SELECT id FROM config WHERE template_id = ? AND params = ?", &sel, err) != MMT_OK) {
        sqlite3_finalize(ins);
        return err ? err->status : MMT_DATABASE;
    }
    for (int i = 0; i < 2; i++) {
        sqlite3_stmt *s = i ? sel : ins;
        sqlite3_bind_int64(s, 1, template_id);
        sqlite3_bind_text(s, 2, params, -1, SQLITE_TRANSIENT);
    }
    return id_of(st, ins, sel, id, err);
}

/* p's columns (dtype, out_dtype, mode, layout, trans_a, trans_b, m, n, k) as parameters
 * at, at + 1, ... of s. */
static void bind_problem(sqlite3_stmt *s, int at, const mmt_problem *p)
{
    sqlite3_bind_text(s, at, mmt_dtype_name(p->dtype), -1, SQLITE_STATIC);
    sqlite3_bind_text(s, at + 1, mmt_dtype_name(p->out), -1, SQLITE_STATIC);
    sqlite3_bind_text(s, at + 2, mmt_mode_name(p->mode), -1, SQLITE_STATIC);
    sqlite3_bind_text(s, at + 3, mmt_layout_name(p->layout), -1, SQLITE_STATIC);
    sqlite3_bind_int(s, at + 4, p->trans_a != 0);
    sqlite3_bind_int(s, at + 5, p->trans_b != 0);
    sqlite3_bind_int64(s, at + 6, p->m);
    sqlite3_bind_int64(s, at + 7, p->n);
    sqlite3_bind_int64(s, at + 8, p->k);
}

mmt_status mmt_store_problem(mmt_store *st, const mmt_problem *p, int64_t *id, mmt_err *err)
{
    /* a mode that does not fit the types would be a row no lookup ever asks for */
    const char *why = mmt_problem_check(p);
    if (why) {
        char name[128];
        mmt_problem_format(p, name, sizeof name);
        return mmt_err_set(err, MMT_INVALID_ARGUMENT, "%s: problem %s: %s", st->path, name, why);
    }
    sqlite3_stmt *ins, *sel;
    FORWARD_IF_ERROR(prepare(st,
                             "INSERT OR IGNORE INTO problem (dtype, out_dtype, mode, layout, trans_a, trans_b, "
                             "m, n, k) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                             &ins, err));
    if (prepare(st,
                "SELECT id FROM problem WHERE dtype = ? AND out_dtype = ? AND mode = ? AND layout = ? "
                "AND trans_a = ? AND trans_b = ? AND m = ? AND n = ? AND k = ?",
                &sel, err) != MMT_OK) {
        sqlite3_finalize(ins);
        return err ? err->status : MMT_DATABASE;
    }
    bind_problem(ins, 1, p);
    bind_problem(sel, 1, p);
    return id_of(st, ins, sel, id, err);
}

mmt_status mmt_store_session_begin(mmt_store *st, int64_t device_id, const char *command, const char *strategy,
                                   const char *budget, int64_t *id, mmt_err *err)
{
    sqlite3_stmt *s;
    FORWARD_IF_ERROR(prepare(st, "INSERT INTO session (device_id, command, strategy, budget) VALUES (?, ?, ?, ?)",
                             &s, err));
    sqlite3_bind_int64(s, 1, device_id);
    sqlite3_bind_text(s, 2, command ? command : "", -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 3, strategy ? strategy : "", -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 4, budget ? budget : "", -1, SQLITE_TRANSIENT);
    FORWARD_IF_ERROR(step_done(st, s, err));
    *id = sqlite3_last_insert_rowid(st->db);
    return MMT_OK;
}

mmt_status mmt_store_session_end(mmt_store *st, int64_t session_id, const char *outcome, mmt_err *err)
{
    sqlite3_stmt *s;
    FORWARD_IF_ERROR(prepare(st, "UPDATE session SET ended = datetime('now'), outcome = ? WHERE id = ?", &s, err));
    if (outcome) sqlite3_bind_text(s, 1, outcome, -1, SQLITE_TRANSIENT);
    else sqlite3_bind_null(s, 1);
    sqlite3_bind_int64(s, 2, session_id);
    return step_done(st, s, err);
}

static void bind_real_or_null(sqlite3_stmt *s, int i, double v, int present)
{
    if (present && isfinite(v)) sqlite3_bind_double(s, i, v);
    else sqlite3_bind_null(s, i);
}

/* Of a best's row in an upsert: whether its trial was measured busy (store.h). */
#define BEST_BUSY MMT_STORE_BUSY("(SELECT cpu_wait FROM trial WHERE id = best.trial_id)")

/* Inside the trial's transaction: make it the best of its (device, problem, template) if
 * it is faster than the current one (and not busy where the current one is not), if it
 * was measured quiet where the current one was busy, or if the current one belongs to an
 * older source. A best a trial moves is partial until its search ends
 * (mmt_store_best_partial): a run killed part way leaves it marked. */
static mmt_status update_best(mmt_store *st, const mmt_trial_rec *t, int64_t trial_id, mmt_err *err)
{
    sqlite3_stmt *s;
    FORWARD_IF_ERROR(prepare(st,
                             "INSERT INTO best (device_id, problem_id, template_name, template_id, config_id, "
                             "trial_id, time_ms, gflops, partial) "
                             "SELECT ?1, ?2, tp.name, tp.id, ?3, ?4, ?5, ?6, 1 "
                             "FROM config c JOIN template tp ON tp.id = c.template_id WHERE c.id = ?3 "
                             "ON CONFLICT (device_id, problem_id, template_name) DO UPDATE SET "
                             "template_id = excluded.template_id, config_id = excluded.config_id, "
                             "trial_id = excluded.trial_id, time_ms = excluded.time_ms, gflops = excluded.gflops, "
                             "partial = 1 "
                             "WHERE (excluded.time_ms < best.time_ms AND NOT (?7 AND NOT " BEST_BUSY ")) OR "
                             "(NOT ?7 AND " BEST_BUSY ") OR "
                             "(SELECT source_hash FROM template WHERE id = best.template_id) <> "
                             "(SELECT source_hash FROM template WHERE id = excluded.template_id)",
                             &s, err));
    sqlite3_bind_int64(s, 1, t->device_id);
    sqlite3_bind_int64(s, 2, t->problem_id);
    sqlite3_bind_int64(s, 3, t->config_id);
    sqlite3_bind_int64(s, 4, trial_id);
    sqlite3_bind_double(s, 5, t->time_ms_median);
    sqlite3_bind_double(s, 6, t->gflops);
    sqlite3_bind_int(s, 7, t->cpu_wait > MMT_CPU_BUSY);
    return step_done(st, s, err);
}

mmt_status mmt_store_trial_add(mmt_store *st, const mmt_trial_rec *t, int64_t *trial_id, mmt_err *err)
{
    FORWARD_IF_ERROR(exec(st, "BEGIN IMMEDIATE", err));
    sqlite3_stmt *s;
    mmt_status r = prepare(st,
                           "INSERT INTO trial (session_id, device_id, problem_id, config_id, status, "
                           "time_ms_median, time_ms_min, time_ms_max, gflops, rel_error, reps, message, cpu_wait) "
                           "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                           &s, err);
    if (r == MMT_OK) {
        int ok = t->status == MMT_TRIAL_OK;
        if (t->session_id > 0) sqlite3_bind_int64(s, 1, t->session_id);
        else sqlite3_bind_null(s, 1);
        sqlite3_bind_int64(s, 2, t->device_id);
        sqlite3_bind_int64(s, 3, t->problem_id);
        sqlite3_bind_int64(s, 4, t->config_id);
        sqlite3_bind_text(s, 5, mmt_trial_status_name(t->status), -1, SQLITE_STATIC);
        bind_real_or_null(s, 6, t->time_ms_median, ok);
        bind_real_or_null(s, 7, t->time_ms_min, ok);
        bind_real_or_null(s, 8, t->time_ms_max, ok);
        bind_real_or_null(s, 9, t->gflops, ok);
        bind_real_or_null(s, 10, t->rel_error, t->rel_error >= 0);
        if (ok) sqlite3_bind_int(s, 11, t->reps);
        else sqlite3_bind_null(s, 11);
        if (t->message) sqlite3_bind_text(s, 12, t->message, -1, SQLITE_TRANSIENT);
        else sqlite3_bind_null(s, 12);
        bind_real_or_null(s, 13, t->cpu_wait, t->cpu_wait >= 0);
        r = step_done(st, s, err);
    }
    int64_t id = sqlite3_last_insert_rowid(st->db);
    if (r == MMT_OK && t->status == MMT_TRIAL_OK && isfinite(t->time_ms_median) && t->time_ms_median > 0)
        r = update_best(st, t, id, err);
    if (r == MMT_OK) r = exec(st, "COMMIT", err);
    if (r != MMT_OK) {
        exec(st, "ROLLBACK", NULL);
        return r;
    }
    if (trial_id) *trial_id = id;
    return MMT_OK;
}

mmt_status mmt_store_best_set(mmt_store *st, int64_t trial_id, mmt_err *err)
{
    /* update_best's statement without its "only if faster"; a busy trial still leaves a
     * best that was not busy where it is */
    sqlite3_stmt *s;
    FORWARD_IF_ERROR(prepare(st,
                             "INSERT INTO best (device_id, problem_id, template_name, template_id, config_id, "
                             "trial_id, time_ms, gflops, partial) "
                             "SELECT t.device_id, t.problem_id, tp.name, tp.id, t.config_id, t.id, t.time_ms_median, "
                             "t.gflops, 1 FROM trial t JOIN config c ON c.id = t.config_id "
                             "JOIN template tp ON tp.id = c.template_id "
                             "WHERE t.id = ?1 AND t.status = 'ok' AND t.time_ms_median > 0 "
                             "ON CONFLICT (device_id, problem_id, template_name) DO UPDATE SET "
                             "template_id = excluded.template_id, config_id = excluded.config_id, "
                             "trial_id = excluded.trial_id, time_ms = excluded.time_ms, gflops = excluded.gflops, "
                             "partial = 1 "
                             "WHERE NOT (" MMT_STORE_BUSY("(SELECT cpu_wait FROM trial WHERE id = excluded.trial_id)")
                             " AND NOT " BEST_BUSY ")",
                             &s, err));
    sqlite3_bind_int64(s, 1, trial_id);
    FORWARD_IF_ERROR(step_done(st, s, err));
    if (sqlite3_changes(st->db) == 1) return MMT_OK;
    /* kept for a quiet best, or no such trial */
    FORWARD_IF_ERROR(prepare(st, "SELECT 1 FROM trial WHERE id = ? AND status = 'ok' AND time_ms_median > 0", &s, err));
    sqlite3_bind_int64(s, 1, trial_id);
    const int ok = sqlite3_step(s) == SQLITE_ROW;
    sqlite3_finalize(s);
    RETURN_ERROR_IF(!ok, err, MMT_NOT_FOUND, "%s: trial %lld is not an ok trial", st->path, (long long)trial_id);
    return MMT_OK;
}

mmt_status mmt_store_best_partial(mmt_store *st, int64_t device_id, int64_t problem_id, const char *template_name,
                                  int partial, mmt_err *err)
{
    sqlite3_stmt *s;
    FORWARD_IF_ERROR(prepare(st, "UPDATE best SET partial = ? WHERE device_id = ? AND problem_id = ? AND template_name = ?",
                             &s, err));
    sqlite3_bind_int(s, 1, partial != 0);
    sqlite3_bind_int64(s, 2, device_id);
    sqlite3_bind_int64(s, 3, problem_id);
    sqlite3_bind_text(s, 4, template_name, -1, SQLITE_TRANSIENT);
    return step_done(st, s, err);
}

mmt_status mmt_store_baseline_put(mmt_store *st, int64_t device_id, int64_t problem_id, const char *library,
                                  double time_ms, double gflops, int64_t trial_id, mmt_err *err)
{
    sqlite3_stmt *s;
    FORWARD_IF_ERROR(prepare(st,
                             "INSERT OR REPLACE INTO baseline (device_id, problem_id, library, time_ms, gflops, "
                             "trial_id) VALUES (?, ?, ?, ?, ?, ?)",
                             &s, err));
    sqlite3_bind_int64(s, 1, device_id);
    sqlite3_bind_int64(s, 2, problem_id);
    sqlite3_bind_text(s, 3, library, -1, SQLITE_TRANSIENT);
    sqlite3_bind_double(s, 4, time_ms);
    sqlite3_bind_double(s, 5, gflops);
    if (trial_id > 0) sqlite3_bind_int64(s, 6, trial_id);
    else sqlite3_bind_null(s, 6);
    return step_done(st, s, err);
}

mmt_status mmt_store_miss_add(mmt_store *st, const mmt_device_info *dev, const mmt_miss_rec *misses, size_t n,
                              mmt_err *err)
{
    int64_t device_id;
    FORWARD_IF_ERROR(exec(st, "BEGIN IMMEDIATE", err));
    mmt_status r = mmt_store_device(st, dev, &device_id, err);
    sqlite3_stmt *s = NULL;
    if (r == MMT_OK)
        r = prepare(st,
                    "INSERT INTO miss (device_id, problem_id, calls) VALUES (?, ?, ?) "
                    "ON CONFLICT (device_id, problem_id) DO UPDATE SET calls = calls + excluded.calls, "
                    "last_seen = excluded.last_seen",
                    &s, err);
    for (size_t i = 0; r == MMT_OK && i < n; i++) {
        int64_t problem_id;
        r = mmt_store_problem(st, &misses[i].problem, &problem_id, err);
        if (r != MMT_OK) break;
        sqlite3_reset(s);
        sqlite3_bind_int64(s, 1, device_id);
        sqlite3_bind_int64(s, 2, problem_id);
        sqlite3_bind_int64(s, 3, misses[i].calls);
        if (sqlite3_step(s) != SQLITE_DONE) r = db_error(st, err, "miss");
    }
    sqlite3_finalize(s);
    if (r == MMT_OK) r = exec(st, "COMMIT", err);
    if (r != MMT_OK) exec(st, "ROLLBACK", NULL);
    return r;
}

void mmt_store_busy_timeout(mmt_store *st, int ms)
{
    if (st) sqlite3_busy_timeout(st->db, ms);
}

/* store_sql.h: the helpers above for the store's other files */
mmt_status mmt_store_db_error(mmt_store *st, mmt_err *err, const char *what) { return db_error(st, err, what); }
mmt_status mmt_store_exec(mmt_store *st, const char *sql, mmt_err *err) { return exec(st, sql, err); }
mmt_status mmt_store_prepare(mmt_store *st, const char *sql, sqlite3_stmt **out, mmt_err *err)
{
    return prepare(st, sql, out, err);
}
void mmt_store_bind_problem(sqlite3_stmt *s, int at, const mmt_problem *p) { bind_problem(s, at, p); }
