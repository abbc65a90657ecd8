/* from_misses.h - `mmtune --from-misses`: the problems libmmtuned served most often on a
 * device without a tuned entry (the database's miss table), less those tuned since. */
#ifndef MMT_FROM_MISSES_H
#define MMT_FROM_MISSES_H

#include <stddef.h>

#include "backend.h"
#include "problem.h"

/* At most `top` missed problems of dev in the database at db_path, most calls first. A
 * problem is left out when a best exists for it (its row-major form) and the current
 * source of its mode's family (space_file's if given, else the embedded one), or when no
 * such family serves its mode. A missing database has no misses (and is not made). *out is
 * malloc'd; *left_out counts the tuned and unserved misses passed over; what (may be NULL)
 * gets the problems with their calls, for the session row and the log. A space file that
 * does not load is its loader's status (bad input); the database's failures are
 * MMT_DATABASE. */
mmt_status mmt_from_misses_pick(const char *db_path, const mmt_backend *be, const mmt_device_info *dev,
                                const char *space_file, size_t top, mmt_problem **out, size_t *n, size_t *left_out,
                                char *what, size_t what_size, mmt_err *err);

#endif
