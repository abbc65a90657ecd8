/* xfer_row.c - the row form of results: its columns, values read from text, and the
 * checks a row passes before it is stored (see xfer_row.h). */
#include "xfer_row.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "problem.h"
#include "store.h"

#define T MMT_XFER_TEXT
#define I MMT_XFER_INT
#define R MMT_XFER_REAL
const mmt_xfer_col mmt_xfer_cols[MMT_XFER_NCOLS] = {
    {"kind", T},           {"device_backend", T},   {"device_name", T},      {"device_arch", T},
    {"device_fingerprint", T}, {"device_props", T}, {"dtype", T},            {"out_dtype", T},
    {"mode", T},           {"layout", T},           {"trans_a", I},          {"trans_b", I},
    {"m", I},              {"n", I},                {"k", I},                {"template", T},
    {"template_hash", T},  {"params", T},           {"library", T},          {"status", T},
    {"time_ms_median", R}, {"time_ms_min", R},      {"time_ms_max", R},      {"gflops", R},
    {"rel_error", R},      {"reps", I},             {"message", T},          {"created", T},
    {"best", I},           {"partial", I},          {"session_command", T},  {"session_strategy", T},
    {"session_budget", T}, {"session_host", T},     {"session_started", T},  {"session_ended", T},
    {"session_outcome", T}, {"paired_template", T}, {"paired_template_hash", T}, {"paired_params", T},
    {"paired_created", T}, {"paired_time_ms_median", R}, {"cpu_wait", R},
};
#undef T
#undef I
#undef R

int mmt_xfer_col_find(const char *name)
{
    for (int c = 0; c < MMT_XFER_NCOLS; c++)
        if (strcmp(name, mmt_xfer_cols[c].name) == 0) return c;
    return -1;
}

const char *mmt_xfer_value_parse(int col, const char *text, mmt_xfer_value *v)
{
    memset(v, 0, sizeof *v);
    char *end;
    switch (mmt_xfer_cols[col].type) {
    case MMT_XFER_TEXT: v->text = text; return NULL;
    case MMT_XFER_INT:
        errno = 0;
        v->i = strtoll(text, &end, 10);
        return end == text || *end || errno || isspace((unsigned char)*text) ? "not a whole number" : NULL;
    case MMT_XFER_REAL:
        v->r = strtod(text, &end);
        return end == text || *end || !isfinite(v->r) || isspace((unsigned char)*text) ? "not a finite number" : NULL;
    }
    return "unknown column type";
}

/* "YYYY-MM-DD HH:MM:SS", as SQLite's datetime() writes it. */
static int is_time(const char *t)
{
    static const char form[] = "dddd-dd-dd dd:dd:dd";
    for (size_t i = 0; i < sizeof form - 1; i++)
        if (form[i] == 'd' ? !isdigit((unsigned char)t[i]) : t[i] != form[i]) return 0;
    return t[sizeof form - 1] == '\0';
}

static int is_hex64(const char *t)
{
    size_t i = 0;
    while (isxdigit((unsigned char)t[i]) && !isupper((unsigned char)t[i])) i++;
    return i == 64 && t[i] == '\0';
}

static int is_status(const char *t)
{
    for (int i = MMT_TRIAL_OK; i <= MMT_TRIAL_CRASHED; i++)
        if (strcmp(t, mmt_trial_status_name((mmt_trial_status)i)) == 0) return 1;
    return 0;
}

static int is_outcome(const char *t)
{
    static const char *const outcomes[] = {"complete", "partial", "interrupted", "failed"};
    for (size_t i = 0; i < sizeof outcomes / sizeof *outcomes; i++)
        if (strcmp(t, outcomes[i]) == 0) return 1;
    return 0;
}

static const char *missing(int col, char *buf, size_t size)
{
    snprintf(buf, size, "no %s", mmt_xfer_cols[col].name);
    return buf;
}

/* Null, or an empty text. */
static int absent(const mmt_xfer_value *v, int c)
{
    return v[c].null || (mmt_xfer_cols[c].type == MMT_XFER_TEXT && !v[c].text[0]);
}

#define NEED(c) \
    if (absent(v, c)) return missing(c, buf, size)
#define FORBID(c, why) \
    if (!v[c].null) return why

/* A baseline's trial: none (a figure timed alone), or its template, source hash,
 * configuration and time of creation, and its median where it has one. */
static const char *check_pairing(const mmt_xfer_value *v, char *buf, size_t size)
{
    int paired = 0;
    for (int c = MMT_COL_PAIRED_TEMPLATE; c <= MMT_COL_PAIRED_MEDIAN; c++) paired |= !v[c].null;
    if (!paired) return NULL;
    NEED(MMT_COL_PAIRED_TEMPLATE);
    NEED(MMT_COL_PAIRED_HASH);
    if (v[MMT_COL_PAIRED_PARAMS].null) return missing(MMT_COL_PAIRED_PARAMS, buf, size);
    NEED(MMT_COL_PAIRED_CREATED);
    if (!is_hex64(v[MMT_COL_PAIRED_HASH].text)) return "paired_template_hash is a SHA-256 in 64 lowercase hex digits";
    if (!is_time(v[MMT_COL_PAIRED_CREATED].text))
        return "paired_created is a time as SQLite writes it (2025-01-31 23:59:00)";
    if (!v[MMT_COL_PAIRED_MEDIAN].null && !(v[MMT_COL_PAIRED_MEDIAN].r > 0)) return "times are > 0";
    return NULL;
}

const char *mmt_xfer_row_check(const mmt_xfer_value *v, char *buf, size_t size)
{
    const char *kind = v[MMT_COL_KIND].null ? "" : v[MMT_COL_KIND].text;
    int trial = strcmp(kind, "trial") == 0;
    if (!trial && strcmp(kind, "baseline") != 0) return "kind is 'trial' or 'baseline'";
    NEED(MMT_COL_BACKEND);
    NEED(MMT_COL_DEVICE);
    NEED(MMT_COL_ARCH);
    NEED(MMT_COL_FINGERPRINT);
    NEED(MMT_COL_DTYPE);
    NEED(MMT_COL_OUT);
    NEED(MMT_COL_MODE);
    NEED(MMT_COL_LAYOUT);
    NEED(MMT_COL_TRANS_A);
    NEED(MMT_COL_TRANS_B);
    NEED(MMT_COL_M);
    NEED(MMT_COL_N);
    NEED(MMT_COL_K);
    NEED(MMT_COL_CREATED);
    mmt_problem p;
    memset(&p, 0, sizeof p);
    if (mmt_dtype_parse(v[MMT_COL_DTYPE].text, &p.dtype) || mmt_dtype_parse(v[MMT_COL_OUT].text, &p.out))
        return "dtype and out_dtype are f32, f64, bf16 or f16";
    if (mmt_mode_parse(v[MMT_COL_MODE].text, &p.mode)) return "mode is f32, f64, bf16, f16, tf32 or f32x3";
    if (mmt_layout_parse(v[MMT_COL_LAYOUT].text, &p.layout)) return "layout is row or col";
    if ((v[MMT_COL_TRANS_A].i | v[MMT_COL_TRANS_B].i) & ~1LL) return "trans_a and trans_b are 0 or 1";
    if (v[MMT_COL_M].i < 1 || v[MMT_COL_N].i < 1 || v[MMT_COL_K].i < 1) return "m, n and k are at least 1";
    p.trans_a = (int)v[MMT_COL_TRANS_A].i;
    p.trans_b = (int)v[MMT_COL_TRANS_B].i;
    p.m = v[MMT_COL_M].i;
    p.n = v[MMT_COL_N].i;
    p.k = v[MMT_COL_K].i;
    const char *why = mmt_problem_check(&p);
    if (why) return why;
    if (!is_time(v[MMT_COL_CREATED].text)) return "created is a time as SQLite writes it (2025-01-31 23:59:00)";
    for (int c = MMT_COL_MEDIAN; c <= MMT_COL_MAX; c++)
        if (!v[c].null && !(v[c].r > 0)) return "times are > 0";
    if ((!v[MMT_COL_GFLOPS].null && v[MMT_COL_GFLOPS].r < 0) || (!v[MMT_COL_REL_ERROR].null && v[MMT_COL_REL_ERROR].r < 0) ||
        (!v[MMT_COL_REPS].null && v[MMT_COL_REPS].i < 0))
        return "gflops, rel_error and reps are >= 0";
    if (!v[MMT_COL_CPU_WAIT].null && (!trial || v[MMT_COL_CPU_WAIT].r < 0 || v[MMT_COL_CPU_WAIT].r > 1))
        return "cpu_wait is a trial's, between 0 and 1";
    if (!trial) {
        NEED(MMT_COL_LIBRARY);
        NEED(MMT_COL_MEDIAN);
        NEED(MMT_COL_GFLOPS);
        for (int c = MMT_COL_TEMPLATE; c <= MMT_COL_PARAMS; c++)
            FORBID(c, "a baseline row names no template (paired_template names its trial's)");
        for (int c = MMT_COL_STATUS; c <= MMT_COL_S_OUTCOME; c++)
            if (c != MMT_COL_MEDIAN && c != MMT_COL_GFLOPS && c != MMT_COL_CREATED)
                FORBID(c, "a baseline row has only library, time_ms_median, gflops, created and paired_*");
        return check_pairing(v, buf, size);
    }
    NEED(MMT_COL_TEMPLATE);
    NEED(MMT_COL_HASH);
    if (v[MMT_COL_PARAMS].null) return missing(MMT_COL_PARAMS, buf, size);
    NEED(MMT_COL_STATUS);
    FORBID(MMT_COL_LIBRARY, "a trial row names no library");
    for (int c = MMT_COL_PAIRED_TEMPLATE; c <= MMT_COL_PAIRED_MEDIAN; c++)
        FORBID(c, "paired_* are a baseline row's: the trial it was timed beside");
    if (!is_hex64(v[MMT_COL_HASH].text)) return "template_hash is a SHA-256 in 64 lowercase hex digits";
    if (!is_status(v[MMT_COL_STATUS].text))
        return "status is ok, compile_error, launch_error, wrong_result, timeout or crashed";
    if (!v[MMT_COL_BEST].null && (v[MMT_COL_BEST].i & ~1LL)) return "best is 0 or 1";
    if (!v[MMT_COL_BEST].null && v[MMT_COL_BEST].i == 1 &&
        (strcmp(v[MMT_COL_STATUS].text, "ok") != 0 || v[MMT_COL_MEDIAN].null || v[MMT_COL_GFLOPS].null))
        return "best is an ok trial with time_ms_median and gflops";
    if (!v[MMT_COL_PARTIAL].null && ((v[MMT_COL_PARTIAL].i & ~1LL) || v[MMT_COL_BEST].null || v[MMT_COL_BEST].i != 1))
        return "partial is 0 or 1, on a best trial (best 1)";
    int session = 0;
    for (int c = MMT_COL_S_COMMAND; c <= MMT_COL_S_OUTCOME; c++) session |= !v[c].null;
    if (session) {
        NEED(MMT_COL_S_STARTED);
        if (v[MMT_COL_S_COMMAND].null) return missing(MMT_COL_S_COMMAND, buf, size);
        if (!is_time(v[MMT_COL_S_STARTED].text) || (!v[MMT_COL_S_ENDED].null && !is_time(v[MMT_COL_S_ENDED].text)))
            return "session_started and session_ended are times as SQLite writes them (2025-01-31 23:59:00)";
        if (!v[MMT_COL_S_OUTCOME].null && !is_outcome(v[MMT_COL_S_OUTCOME].text))
            return "session_outcome is complete, partial, interrupted or failed";
    }
    return NULL;
}
#undef NEED
#undef FORBID

