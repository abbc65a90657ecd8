/* xfer_row.h - the row form of results, as mmtune export writes them and import reads
 * them: a trial or a vendor baseline with its device, problem, template, configuration and
 * session written out by their natural keys (the device's fingerprint, the template's name
 * and source hash, ...) instead of ids, so a row means the same in any database: an
 * imported result is served only on a device of the same fingerprint, and one of an older
 * template source stays stale. `best` marks the trial that is its (device, problem,
 * template)'s best, `partial` whether the search that chose it was cut short, and
 * session_outcome how its session ended. A baseline row names the trial it was timed
 * beside (the pairing that gives best_view its ratio) by that trial's natural key in its
 * paired_* columns: its template's name and source hash, its configuration, the second it
 * was created and its median (a vendor round's trial of a configuration may share its
 * second with the search's trial of it: the median, a measured double written to the last
 * bit, tells them apart); device and problem are the baseline's own. A file written before
 * partial, session_outcome and paired_* existed lacks those columns: its bests are not
 * partial, its sessions' outcomes unknown and its baselines unpaired (no ratio), as schema
 * 5 reads a version-4 figure; one written before cpu_wait lacks it (not known: not busy). No SQLite here: store_transfer.c stores rows, tuner/rows*.c
 * read and write files of them. */
#ifndef MMT_XFER_ROW_H
#define MMT_XFER_ROW_H

#include <stddef.h>
#include <stdint.h>

typedef enum mmt_xfer_type { MMT_XFER_TEXT, MMT_XFER_INT, MMT_XFER_REAL } mmt_xfer_type;

typedef struct mmt_xfer_col {
    const char *name; /* as CSV headers and JSON keys write it */
    mmt_xfer_type type;
} mmt_xfer_col;

/* The columns of a row, in their order. */
#define MMT_XFER_NCOLS 43
extern const mmt_xfer_col mmt_xfer_cols[MMT_XFER_NCOLS];

/* The columns by place, in mmt_xfer_cols' order (S_: the session's; PAIRED_: a baseline's
 * trial). */
enum {
    MMT_COL_KIND, MMT_COL_BACKEND, MMT_COL_DEVICE, MMT_COL_ARCH, MMT_COL_FINGERPRINT, MMT_COL_PROPS,
    MMT_COL_DTYPE, MMT_COL_OUT, MMT_COL_MODE, MMT_COL_LAYOUT, MMT_COL_TRANS_A, MMT_COL_TRANS_B, MMT_COL_M,
    MMT_COL_N, MMT_COL_K, MMT_COL_TEMPLATE, MMT_COL_HASH, MMT_COL_PARAMS, MMT_COL_LIBRARY, MMT_COL_STATUS,
    MMT_COL_MEDIAN, MMT_COL_MIN, MMT_COL_MAX, MMT_COL_GFLOPS, MMT_COL_REL_ERROR, MMT_COL_REPS, MMT_COL_MESSAGE,
    MMT_COL_CREATED, MMT_COL_BEST, MMT_COL_PARTIAL, MMT_COL_S_COMMAND, MMT_COL_S_STRATEGY, MMT_COL_S_BUDGET,
    MMT_COL_S_HOST, MMT_COL_S_STARTED, MMT_COL_S_ENDED, MMT_COL_S_OUTCOME, MMT_COL_PAIRED_TEMPLATE,
    MMT_COL_PAIRED_HASH, MMT_COL_PAIRED_PARAMS, MMT_COL_PAIRED_CREATED, MMT_COL_PAIRED_MEDIAN, MMT_COL_CPU_WAIT
};

/* One value of a row: null, or the member of the column's type (text is borrowed). */
typedef struct mmt_xfer_value {
    int null;
    const char *text;
    int64_t i;
    double r;
} mmt_xfer_value;

/* The index of a column name, or -1. */
int mmt_xfer_col_find(const char *name);

/* Reads a value of column col from text (a whole integer, a finite number, or any text):
 * NULL, or why it cannot be. */
const char *mmt_xfer_value_parse(int col, const char *text, mmt_xfer_value *v);

/* NULL if a row can be stored, else what is wrong with it ("no template", "best is an ok
 * trial with ...", a problem's mmt_problem_check), in buf or a literal. */
const char *mmt_xfer_row_check(const mmt_xfer_value *row, char *buf, size_t size);

#endif
