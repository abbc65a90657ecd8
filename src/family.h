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

/* The families that serve a precision mode on a backend, which compete for each problem. */
#define MMT_MAX_FAMILIES 6
typedef struct mmt_family_list {
    mmt_family *f[MMT_MAX_FAMILIES];
    int n;
} mmt_family_list;

/* Every embedded family serving a precision mode on a backend ("cpu", "cuda"): the spaces
 * whose template lives under templates/<backend>/ and that list the mode, those built for
 * one exact architecture first (such a family exists because it is the faster one where
 * it runs; on other devices its constraints admit nothing), then in name order.
 * MMT_UNSUPPORTED, with an empty list, where there is none. */
mmt_status mmt_family_find_all(const char *backend, mmt_mode mode, mmt_family_list *out, mmt_err *err);

/* The embedded family of a template ("cuda/gemm_mma.cu"). */
mmt_status mmt_family_find_template(const char *template_name, mmt_family **out, mmt_err *err);

/* A list of the one family a user's space file names (mmtune --space). */
mmt_status mmt_family_list_load_file(const char *space_file, mmt_family_list *out, mmt_err *err);

void mmt_family_free(mmt_family *f);
void mmt_family_list_free(mmt_family_list *l); /* the families; the list itself is the caller's */

#endif
