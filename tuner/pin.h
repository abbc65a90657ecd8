/* pin.h - makes one trial the best of its (device, problem, template). The store keeps the
 * fastest median on record as the best (store.c update_best, as each trial is added); the
 * final round (final.h) may choose otherwise: a paired median that is not the lowest ever
 * recorded, or a tie broken by configuration text. The store's public API has no call for
 * that, and store.c is being changed for schema version 3 in parallel, so this small
 * function does it on a second connection to the same file, with the store's own table
 * and columns. It belongs in store.c (mmt_store_best_set) once that work has landed. */
#ifndef MMT_PIN_H
#define MMT_PIN_H

#include <stdint.h>

#include "err.h"

/* Points the best row of the trial's (device, problem, template name) at the trial (an
 * ok one) with its template, config, median and GFLOP/s. The busy timeout waits for the
 * store's own connection, which commits every trial at once. */
mmt_status mmt_pin_best(const char *db_path, int64_t trial_id, mmt_err *err);

#endif
