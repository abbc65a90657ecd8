/* vendor_both.h - the CPU tests that run their cases twice with nothing tuned: the vendor
 * library serving where there is one, then the template alone (MMTUNE_VENDOR=off). */
#ifndef MMT_VENDOR_BOTH_H
#define MMT_VENDOR_BOTH_H

#include <stdlib.h>

#include "check.h"
#include "mmtuned.h"

/* cases(ctx, who) on a CPU context of each kind; who says which. */
static inline void with_vendor_and_without(void (*cases)(mmt_ctx *ctx, const char *who))
{
    setenv("MMTUNE_DB", "/nonexistent/mmtune-test.db", 1);
    for (int off = 0; off < 2; off++) {
        if (off) setenv("MMTUNE_VENDOR", "off", 1); /* read when a context opens */
        mmt_ctx *ctx = NULL;
        CHECK_EQ_INT(mmt_open(&ctx, "cpu", NULL), MMT_OK);
        if (!ctx) break;
        cases(ctx, off ? "the template (the vendor off)" : "the vendor where there is one");
        mmt_close(ctx);
    }
    unsetenv("MMTUNE_VENDOR");
}

#endif
