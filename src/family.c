/* family.c - spaces with their templates (see family.h). */
#include "family.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "resource.h"

static mmt_status attach_template(mmt_space *space, mmt_family **out, mmt_err *err)
{
    mmt_family *f = calloc(1, sizeof *f);
    if (!f) {
        mmt_space_free(space);
        return mmt_err_set(err, MMT_OUT_OF_MEMORY, "out of memory");
    }
    f->space = space;
    snprintf(f->name, sizeof f->name, "%s", space->template);
    char path[512];
    snprintf(path, sizeof path, "templates/%s", space->template);
    size_t size;
    mmt_err why; /* not err: a message must not be formatted into itself */
    mmt_status st = mmt_resource_read(path, &f->source, &size, &why);
    if (st != MMT_OK) {
        mmt_status r = mmt_err_set(err, st, "%s: template %s: %s", space->file, space->template, why.msg);
        mmt_family_free(f);
        return r;
    }
    st = mmt_sha256_hex(f->source, size, f->source_hash, err);
    if (st != MMT_OK) {
        mmt_family_free(f);
        return st;
    }
    *out = f;
    return MMT_OK;
}

mmt_status mmt_family_load_file(const char *space_file, mmt_family **out, mmt_err *err)
{
    mmt_space *s;
    FORWARD_IF_ERROR(mmt_space_load_file(space_file, &s, err));
    return attach_template(s, out, err);
}

mmt_status mmt_family_find_all(const char *backend, mmt_mode mode, mmt_family_list *out, mmt_err *err)
{
    memset(out, 0, sizeof *out);
    size_t blen = strlen(backend);
    for (const mmt_resource *r = mmt_resources; r->path && out->n < MMT_MAX_FAMILIES; r++) {
        if (strncmp(r->path, "search_spaces/", 14) != 0) continue;
        mmt_space *s;
        mmt_status st = mmt_space_load_text(r->path, (const char *)r->data, r->size, &s, err);
        if (st == MMT_OK && (strncmp(s->template, backend, blen) != 0 || s->template[blen] != '/' ||
                             !(s->modes & (1u << mode)))) {
            mmt_space_free(s);
            continue;
        }
        if (st == MMT_OK) st = attach_template(s, &out->f[out->n], err);
        if (st != MMT_OK) {
            mmt_family_list_free(out);
            return st;
        }
        /* resources come in name order; an arch-specific family moves before the others */
        for (int i = out->n++; i > 0 && out->f[i]->space->arch_specific && !out->f[i - 1]->space->arch_specific; i--) {
            mmt_family *t = out->f[i];
            out->f[i] = out->f[i - 1];
            out->f[i - 1] = t;
        }
    }
    if (out->n) return MMT_OK;
    return mmt_err_set(err, MMT_UNSUPPORTED, "no template serves %s on the %s backend", mmt_mode_name(mode),
                       backend);
}

mmt_status mmt_family_find_template(const char *template_name, mmt_family **out, mmt_err *err)
{
    *out = NULL;
    for (const mmt_resource *r = mmt_resources; r->path; r++) {
        if (strncmp(r->path, "search_spaces/", 14) != 0) continue;
        mmt_space *s;
        FORWARD_IF_ERROR(mmt_space_load_text(r->path, (const char *)r->data, r->size, &s, err));
        if (strcmp(s->template, template_name) == 0) return attach_template(s, out, err);
        mmt_space_free(s);
    }
    return mmt_err_set(err, MMT_NOT_FOUND, "no embedded space has the template %s", template_name);
}

mmt_status mmt_family_list_load_file(const char *space_file, mmt_family_list *out, mmt_err *err)
{
    memset(out, 0, sizeof *out);
    FORWARD_IF_ERROR(mmt_family_load_file(space_file, &out->f[0], err));
    out->n = 1;
    return MMT_OK;
}

void mmt_family_list_free(mmt_family_list *l)
{
    if (!l) return;
    for (int i = 0; i < l->n; i++) mmt_family_free(l->f[i]);
    l->n = 0;
}

void mmt_family_free(mmt_family *f)
{
    if (!f) return;
    mmt_space_free(f->space);
    free(f->source);
    free(f);
}
