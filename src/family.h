/* family.h - a template family: a search space with its template's source text and the
 * hash that makes tuning results of an older source stale. */
#ifndef MMT_FAMILY_H
#define MMT_FAMILY_H

#include "space.h"

typedef struct mmt_family {
    mmt_space *space;
    char *source;         /* the template text ($MMTUNE_TEMPLATE_DIR overrides the embedded copy) */
    char source_hash[65];
    char name[64];        /* "cpu/gemm_avx.c": the template's path under templates/ */
} mmt_family;

/* Loads the space in a user's YAML file and its template. */
mmt_status mmt_family_load_file(const char *space_file, mmt_family **out, mmt_err *err);

/* The embedded family serving a precision mode on a backend ("cpu", "cuda"): the first
 * space, in name order, whose template lives under templates/<backend>/ and that lists
 * the mode. */
mmt_status mmt_family_find(const char *backend, mmt_mode mode, mmt_family **out, mmt_err *err);

void mmt_family_free(mmt_family *f);

#endif
