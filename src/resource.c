/* resource.c - embedded templates, spaces and schema, with the MMTUNE_TEMPLATE_DIR
 * override (see resource.h). */
#include "resource.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static mmt_status read_file(const char *path, char **text, size_t *size, mmt_err *err)
{
    FILE *f = fopen(path, "rb");
    RETURN_ERROR_IF(!f, err, MMT_IO, "cannot open %s", path);
    char *buf = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n + 4096 + 1 > cap) {
            cap = cap ? cap * 2 : 65536;
            char *nb = realloc(buf, cap);
            if (!nb) {
                free(buf);
                fclose(f);
                return mmt_err_set(err, MMT_OUT_OF_MEMORY, "out of memory reading %s", path);
            }
            buf = nb;
        }
        size_t got = fread(buf + n, 1, 4096, f);
        n += got;
        if (got < 4096) break;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        return mmt_err_set(err, MMT_IO, "error reading %s", path);
    }
    buf[n] = '\0';
    *text = buf;
    *size = n;
    return MMT_OK;
}

mmt_status mmt_resource_read(const char *path, char **text, size_t *size, mmt_err *err)
{
    const char *dir = getenv("MMTUNE_TEMPLATE_DIR");
    const char *prefix = "templates/";
    if (dir && *dir && strncmp(path, prefix, strlen(prefix)) == 0) {
        char full[4096];
        snprintf(full, sizeof full, "%s/%s", dir, path + strlen(prefix));
        FILE *probe = fopen(full, "rb");
        if (probe) {
            fclose(probe);
            return read_file(full, text, size, err);
        }
    }
    for (const mmt_resource *r = mmt_resources; r->path; r++) {
        if (strcmp(r->path, path) == 0) {
            char *copy = malloc(r->size + 1);
            RETURN_ERROR_IF(!copy, err, MMT_OUT_OF_MEMORY, "out of memory");
            memcpy(copy, r->data, r->size + 1);
            *text = copy;
            *size = r->size;
            return MMT_OK;
        }
    }
    return mmt_err_set(err, MMT_NOT_FOUND, "no embedded resource %s", path);
}
