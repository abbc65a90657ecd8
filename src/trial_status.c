/* trial_status.c - the names of trial statuses (store.h), as the database and result rows
 * write them; apart from store.c so what reads rows needs no SQLite. */
#include <string.h>

#include "store.h"

static const char *const status_names[] = {"ok", "compile_error", "launch_error", "wrong_result", "timeout",
                                           "crashed"};

const char *mmt_trial_status_name(mmt_trial_status s)
{
    return (unsigned)s < sizeof status_names / sizeof *status_names ? status_names[s] : "unknown";
}

mmt_trial_status mmt_trial_status_parse(const char *name)
{
    for (size_t i = 0; i < sizeof status_names / sizeof *status_names; i++)
        if (name && strcmp(name, status_names[i]) == 0) return (mmt_trial_status)i;
    return MMT_TRIAL_CRASHED;
}
