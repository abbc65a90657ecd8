/* shapes.h - shapes files (DESIGN.md section 4b): the list of problems to tune. A list
 * value of m, n, k, dtype, layout, trans_a or trans_b is a sweep over every combination. */
#ifndef MMT_SHAPES_H
#define MMT_SHAPES_H

#include <stddef.h>

#include "err.h"
#include "problem.h"

/* Loads a shapes file. Unknown keys, bad values and sizes < 1 are errors naming
 * file:line:column. A problem written more than once is kept once, where it first stands.
 * *out is malloc'd (the caller frees it), and so is *host where host is
 * not NULL: (*host)[i] is 1 where problem i has `host: true` (its matrices in host memory:
 * the out-of-core GEMM's knobs are what is tuned, ooc_tuned.h). */
mmt_status mmt_shapes_load_file(const char *path, mmt_problem **out, unsigned char **host, size_t *n, mmt_err *err);
mmt_status mmt_shapes_load_text(const char *name, const char *text, size_t size, mmt_problem **out,
                                unsigned char **host, size_t *n, mmt_err *err);

#endif
