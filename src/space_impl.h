/* space_impl.h - a search space's private state (space.h's mmt_space and what its loading
 * computed once), shared by the file that loads a space (space_load.c) and the one that
 * evaluates it (space.c). */
#ifndef MMT_SPACE_IMPL_H
#define MMT_SPACE_IMPL_H

#include <string.h>

#include "space.h"

/* Slots: params 0..31, derived 32..63, environment 64..127 (problem names, then device.*). */
#define SLOT_DERIVED MMT_SPACE_MAX_PARAMS
#define SLOT_ENV (SLOT_DERIVED + MMT_SPACE_MAX_DERIVED)
#define MAX_ENV 64
#define N_SLOTS (SLOT_ENV + MAX_ENV)
_Static_assert(MMT_SPACE_MAX_PARAMS <= 32, "the params an expression reads are a 32-bit mask");
/* the problem's names (space_load.c) fill the first environment slots */
#define N_PROBLEM 11

/* The public struct first, so an mmt_space * is also a space_impl *. */
typedef struct space_impl {
    mmt_space pub;
    int n_env;
    char env_names[MAX_ENV][64]; /* "M", ..., "device.max_smem_per_block" */
    /* Which environment slots each expression reads (bit per slot) */
    uint64_t derived_mask[MMT_SPACE_MAX_DERIVED], constraint_mask[MMT_SPACE_MAX_CONSTRAINTS],
        prune_mask[MMT_SPACE_MAX_CONSTRAINTS];
    /* Which params each of them reads, directly or through derived values (bit per param):
     * the enumeration evaluates it as soon as those are fixed */
    uint32_t derived_params[MMT_SPACE_MAX_DERIVED], constraint_params[MMT_SPACE_MAX_CONSTRAINTS],
        prune_params[MMT_SPACE_MAX_CONSTRAINTS];
    uint64_t grid_mask[3], block_mask[3], smem_mask, workspace_mask, tma_mask[3][2], tma_packed_mask, tma_tf32_mask;
    uint64_t when_mask[MMT_SPACE_MAX_DEFAULTS], set_mask[MMT_SPACE_MAX_DEFAULTS][MMT_SPACE_MAX_PARAMS];
} space_impl;

static inline int find_param(const mmt_space *s, const char *name, size_t len)
{
    for (int i = 0; i < s->n_params; i++)
        if (strlen(s->params[i].name) == len && memcmp(s->params[i].name, name, len) == 0) return i;
    return -1;
}

static inline int among_values(const mmt_space_param *p, int64_t v)
{
    for (int j = 0; j < p->n_values; j++)
        if (p->values[j] == v) return 1;
    return 0;
}

#endif
