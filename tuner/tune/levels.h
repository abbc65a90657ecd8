/* levels.h - the levels round of a problem: where its family's space has a levels param
 * (`strassen:`), the classic winner of the final round is measured again side by side with
 * itself under each number of Strassen-Winograd levels the space allows for the problem
 * (same binary, libmmtuned's recursion around it; space.h, strassen.h), every result an
 * ordinary trial verified within the bound for its levels. A level is kept only where it
 * is measured faster: the fastest paired median wins unless others' intervals overlap it,
 * and a tie goes to the fewest levels (the classic configuration's text comes first). The
 * winner's trial is pinned as the problem's best. Under the classic-only policy libmmtuned
 * runs a tuned configuration at 0 levels: that is this round's classic winner. */
#ifndef MMT_LEVELS_H
#define MMT_LEVELS_H

#include "tune.h"

/* Runs the round for r (a family's result for problem_id; env: the problem's normal form)
 * and makes its winner, timed in the round, r's result; r->detail.levels says what happened ("" where the space
 * has no levels or none applies). kept: r is the database's best, kept because nothing new
 * was measured: the round is then skipped where has_trial (called with user) knows a trial
 * of every contender. A round the worker does not survive leaves r as it was. */
mmt_status mmt_levels_round(mmt_tuner *t, const mmt_family *fam, const mmt_space_env *env, int64_t problem_id,
                            int64_t template_id, int kept, int (*has_trial)(const void *user, const char *params),
                            const void *user, mmt_tune_result *r, mmt_err *err);

#endif
