/* test_vendor_core.c - the vendor at its best on the CPU (vendor.h, mmt_vendor_fair_core):
 * the vector tiers of OpenBLAS's core names; a core forced low through OPENBLAS_CORETYPE is
 * kept (the user asked for it) and said to be below this CPU's best; left to itself,
 * OpenBLAS runs a core of this CPU's tier (raised where it picked a lower one), and the
 * table's line names it with the thread count. Skips where OpenBLAS is not installed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "vendor.h"

int main(void)
{
    CHECK_EQ_INT(mmt_vendor_core_tier("SkylakeX"), 3);
    CHECK_EQ_INT(mmt_vendor_core_tier("COOPERLAKE"), 3);
    CHECK_EQ_INT(mmt_vendor_core_tier("Haswell"), 2);
    CHECK_EQ_INT(mmt_vendor_core_tier("Zen"), 2);
    CHECK_EQ_INT(mmt_vendor_core_tier("Sandybridge"), 1);
    CHECK_EQ_INT(mmt_vendor_core_tier("Prescott"), 0);
    CHECK_EQ_INT(mmt_vendor_core_tier(""), 0);
    CHECK_EQ_INT(mmt_vendor_core_tier(NULL), 0);

    mmt_vendor_core c;
    char line[600];
    setenv("OPENBLAS_CORETYPE", "PRESCOTT", 1);
    mmt_vendor_fair_core(&c);
    if (!c.chosen[0]) {
        printf("OpenBLAS is not installed (or names no core): skipped\n");
        return check_result() ? check_result() : 77;
    }
    CHECK(c.user_set && !c.raised);
    CHECK(strcasecmp(c.chosen, "Prescott") == 0);
    CHECK_EQ_STR(getenv("OPENBLAS_CORETYPE"), "PRESCOTT"); /* the user's setting stays */
    mmt_vendor_core_note(&c, 2, line, sizeof line);
    printf("%s\n", line);
    if (mmt_vendor_core_tier(c.host) > 0) CHECK(strstr(line, "not its best") != NULL);

    unsetenv("OPENBLAS_CORETYPE");
    mmt_vendor_fair_core(&c);
    CHECK(!c.user_set);
    mmt_vendor_core_note(&c, 2, line, sizeof line);
    printf("%s\n", line);
    CHECK(strstr(line, c.chosen) != NULL && strstr(line, "2 thread(s)") != NULL);
    if (c.raised) CHECK_EQ_STR(getenv("OPENBLAS_CORETYPE"), c.host); /* for the tuner's children too */
    else CHECK(getenv("OPENBLAS_CORETYPE") == NULL);
    /* what it runs now is of this CPU's tier, unless OpenBLAS was built for one core only */
    if (!c.raised || strcasecmp(c.first, c.chosen) != 0)
        CHECK(mmt_vendor_core_tier(c.chosen) >= mmt_vendor_core_tier(c.host));
    return check_result();
}
