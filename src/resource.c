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

/* One resource as stored: the override file, else the embedded copy. */
static mmt_status read_one(const char *path, char **text, size_t *size, mmt_err *err)
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

/* A template's `#include "NAME"` lines, NAME a template of the same directory, replaced by
 * that file's text: the source compiled, hashed and stored with a binary is then the whole
 * of what the compiler read (NVRTC is given no headers), and the helpers every template
 * needs (the launch parameters, split-K's chain) are written once. One level: an included
 * file includes nothing of ours. */
static mmt_status splice_includes(const char *path, char **text, size_t *size, mmt_err *err)
{
    const char *dir_end = strrchr(path, '/');
    size_t out_cap = *size + 1, out_n = 0;
    char *out = malloc(out_cap);
    RETURN_ERROR_IF(!out, err, MMT_OUT_OF_MEMORY, "out of memory");
    mmt_status st = MMT_OK;
    for (const char *line = *text; *line && st == MMT_OK;) {
        const char *eol = strchr(line, '\n');
        const size_t len = eol ? (size_t)(eol - line) + 1 : strlen(line);
        char name[256];
        const char *piece = line;
        size_t piece_n = len;
        char *included = NULL;
        const char *hash = line + strspn(line, " \t"); /* sscanf's blank would skip newlines too */
        if (*hash == '#' && sscanf(hash, "#include \"%255[^\"]\"", name) == 1 && dir_end) {
            char inc_path[1024];
            snprintf(inc_path, sizeof inc_path, "%.*s/%s", (int)(dir_end - path), path, name);
            mmt_err why;
            if (read_one(inc_path, &included, &piece_n, &why) != MMT_OK) {
                st = mmt_err_set(err, MMT_NOT_FOUND, "%s includes \"%s\": %s", path, name, why.msg);
                break;
            }
            piece = included;
        }
        if (out_n + piece_n + 2 > out_cap) {
            out_cap = (out_n + piece_n + 2) * 2;
            char *grown = realloc(out, out_cap);
            if (!grown) {
                free(included);
                st = mmt_err_set(err, MMT_OUT_OF_MEMORY, "out of memory");
                break;
            }
            out = grown;
        }
        memcpy(out + out_n, piece, piece_n);
        out_n += piece_n;
        if (included && (piece_n == 0 || included[piece_n - 1] != '\n')) out[out_n++] = '\n';
        free(included);
        line += len;
    }
    if (st != MMT_OK) {
        free(out);
        return st;
    }
    free(*text);
    out[out_n] = '\0';
    *text = out;
    *size = out_n;
    return MMT_OK;
}

mmt_status mmt_resource_read(const char *path, char **text, size_t *size, mmt_err *err)
{
    FORWARD_IF_ERROR(read_one(path, text, size, err));
    if (strncmp(path, "templates/", strlen("templates/")) != 0) return MMT_OK;
    mmt_status st = splice_includes(path, text, size, err);
    if (st != MMT_OK) {
        free(*text);
        *text = NULL;
    }
    return st;
}
