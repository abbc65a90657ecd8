/* from_misses.c - picking the problems of `mmtune --from-misses` (see from_misses.h). */
#include "from_misses.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "family.h"
#include "store.h"

/* The bests of one mode's families, read once. */
typedef struct mode_bests {
    int read, served;
    mmt_best_rec *bests;
    size_t n;
} mode_bests;

/* Appends the bests of fam (a family serving mode) to mb. */
static mmt_status add_bests(mmt_store *st, const mmt_device_info *dev, const mmt_family *fam, mmt_mode mode,
                            mode_bests *mb, mmt_err *err)
{
    mmt_best_rec *b = NULL;
    size_t n = 0;
    mb->served = 1;
    FORWARD_IF_ERROR(
        mmt_store_best_list_complete(st, dev->fingerprint, fam->name, fam->source_hash, mode, &b, &n, err));
    mmt_best_rec *all = n ? realloc(mb->bests, sizeof *all * (mb->n + n)) : mb->bests;
    if (n && !all) {
        free(b);
        return mmt_err_set(err, MMT_OUT_OF_MEMORY, "out of memory");
    }
    if (n) memcpy(all + mb->n, b, sizeof *all * n);
    mb->bests = all;
    mb->n += n;
    free(b);
    return MMT_OK;
}

mmt_status mmt_from_misses_pick(const char *db_path, const mmt_backend *be, const mmt_device_info *dev,
                                const char *space_file, size_t top, mmt_problem **out, size_t *n, size_t *left_out,
                                char *what, size_t what_size, mmt_err *err)
{
    *out = NULL;
    *n = *left_out = 0;
    if (what && what_size) what[0] = '\0';
    mmt_family *space = NULL; /* bad input is found before the database is touched */
    if (space_file) FORWARD_IF_ERROR(mmt_family_load_file(space_file, &space, err));
    mmt_store *st = NULL;
    mmt_status s = access(db_path, F_OK) == 0 ? mmt_store_open(db_path, 0, &st, err) : MMT_OK;
    mmt_miss_rec *misses = NULL;
    size_t n_misses = 0;
    if (s == MMT_OK && st) s = mmt_store_miss_list(st, dev->fingerprint, &misses, &n_misses, err);
    if (s == MMT_OK && n_misses) {
        *out = calloc(top < n_misses ? top : n_misses, sizeof **out);
        if (!*out) s = mmt_err_set(err, MMT_OUT_OF_MEMORY, "out of memory");
    }
    mode_bests modes[MMT_N_MODES] = {{0}};
    size_t used = 0;
    for (size_t i = 0; s == MMT_OK && i < n_misses && *n < top; i++) {
        const mmt_problem *p = &misses[i].problem;
        mode_bests *mb = &modes[p->mode];
        if (!mb->read) { /* a problem is tuned once any of its mode's families has a best for it whose
                          * search ended; a partial one, cut short, is picked again to go on with */
            mb->read = 1;
            mmt_family_list fams = {.n = 0};
            if (space) fams = (mmt_family_list){.f = {space}, .n = space->space->modes & (1u << p->mode) ? 1 : 0};
            else if (mmt_family_find_all(be->name, p->mode, &fams, NULL) != MMT_OK) fams.n = 0;
            for (int f = 0; s == MMT_OK && f < fams.n; f++) s = add_bests(st, dev, fams.f[f], p->mode, mb, err);
            if (!space) mmt_family_list_free(&fams);
        }
        /* lookups compare row-major forms: a best of the column-major problem equal to a
         * recorded row-major one serves it exactly, so the miss is tuned */
        int tuned = !mb->served;
        for (size_t b = 0; !tuned && b < mb->n; b++) tuned = mmt_problem_same_normal_form(&mb->bests[b].problem, p);
        if (tuned) {
            (*left_out)++;
            continue;
        }
        (*out)[(*n)++] = *p;
        if (what && used < what_size) {
            char name[128];
            mmt_problem_format(p, name, sizeof name);
            used += snprintf(what + used, what_size - used, "%s%s (%lld calls)", used ? "; " : "", name,
                             (long long)misses[i].calls);
        }
    }
    for (int m = 0; m < MMT_N_MODES; m++) free(modes[m].bests);
    free(misses);
    mmt_store_close(st);
    mmt_family_free(space);
    if (s != MMT_OK) {
        free(*out);
        *out = NULL;
        *n = 0;
    }
    return s;
}
