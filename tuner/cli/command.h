/* command.h - what mmtune's commands share: the database's path, the device, the plan of
 * problems (checked before anything is written), the vendor's core and the table. */
#ifndef MMT_CLI_COMMAND_H
#define MMT_CLI_COMMAND_H

#include <stddef.h>

#include "backend.h"
#include "family.h"
#include "options.h"
#include "problem.h"
#include "report.h"

/* Everything that can be checked before anything is written: shapes, device, spaces. */
typedef struct mmt_cli_plan {
    mmt_problem *problems;
    unsigned char *host; /* per problem: 1 where its matrices live in host memory; NULL: none do */
    size_t n;
    const mmt_backend *be;
    mmt_device_info dev;
    mmt_family_list families[MMT_N_MODES]; /* per mode: the families that compete, or --space's */
    char picked[1536]; /* --from-misses: the problems picked with their calls, for the session row */
    char drawn[512];   /* bench --unseen: modes whose range held fewer untuned problems than asked */
} mmt_cli_plan;

/* The plan of o's problems (--shapes, --problem, --from-misses or --unseen), their device
 * and the families that compete for each mode: EXIT_OK, or the exit status with the reason
 * on stderr (bad input: nothing is written). */
int mmt_cli_make_plan(const mmt_cli_options *o, mmt_cli_plan *pl);
void mmt_cli_free_plan(mmt_cli_plan *pl);

/* --db, or the default database's path. */
void mmt_cli_db_path(const mmt_cli_options *o, char *buf, size_t size);

/* The backend and description of --device; a device this machine lacks is bad input. */
int mmt_cli_device_of(const char *device, const mmt_backend **be, mmt_device_info *dev);

/* OpenBLAS at its best core type, asked for by the commands that time it on the CPU before
 * anything loaded it (vendor.h); the footer line of that core on dev, or NULL where it was
 * not asked for. */
void mmt_cli_ask_vendor_core(void);
const char *mmt_cli_vendor_core_line(const mmt_device_info *dev, char *buf, size_t size);

/* Adds a vendor label to a "; "-separated list unless it is there. */
void mmt_cli_add_label(char *list, size_t size, const char *label);

/* What every table's intervals and errors are (stats.h, bench.h). */
extern const char mmt_cli_intervals_note[], mmt_cli_errors_note[];

/* The table: on stdout; with --json the JSON document there instead, and the table on
 * stderr unless --quiet. */
void mmt_cli_print_table(const mmt_cli_options *o, const mmt_report_meta *meta, const char *title,
                         const mmt_report_row *rows, size_t n);

/* mmtune bench: libmmtuned as applications call it, against the vendor (bench_cmd.c). */
int mmt_cli_bench(const mmt_cli_options *o);

#endif
