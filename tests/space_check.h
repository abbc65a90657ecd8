/* space_check.h - what the search-space tests share: the full space of tests/data
 * (space_good.yaml, every section present) and a row-major problem of one type and size. */
#ifndef MMT_TEST_SPACE_CHECK_H
#define MMT_TEST_SPACE_CHECK_H

#include "problem.h"

#define GOOD MMT_TEST_DATA "/space_good.yaml"

static mmt_problem problem(mmt_dtype dt, int64_t m, int64_t n, int64_t k)
{
    mmt_problem p = {.dtype = dt, .layout = MMT_ROW_MAJOR, .m = m, .n = n, .k = k};
    return p;
}

#endif
