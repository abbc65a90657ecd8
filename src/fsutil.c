/* fsutil.c - file-system helpers (see fsutil.h). */
#include "fsutil.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

mmt_status mmt_mkdirs(const char *path, mmt_err *err)
{
    char buf[4096];
    RETURN_ERROR_IF(strlen(path) >= sizeof buf, err, MMT_INVALID_ARGUMENT, "path too long: %s", path);
    strcpy(buf, path);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(buf, 0755) != 0 && errno != EEXIST)
            return mmt_err_set(err, MMT_IO, "cannot create directory %s: %s", buf, strerror(errno));
        *p = '/';
    }
    if (mkdir(buf, 0755) != 0 && errno != EEXIST)
        return mmt_err_set(err, MMT_IO, "cannot create directory %s: %s", buf, strerror(errno));
    return MMT_OK;
}

mmt_status mmt_cache_dir(char *buf, size_t size, mmt_err *err)
{
    const char *dir = getenv("MMTUNE_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (dir && *dir) snprintf(buf, size, "%s", dir);
    else if (xdg && *xdg) snprintf(buf, size, "%s/mmtune/kernels", xdg);
    else if (home && *home) snprintf(buf, size, "%s/.cache/mmtune/kernels", home);
    else snprintf(buf, size, "/tmp/mmtune-%d/kernels", (int)getuid());
    return mmt_mkdirs(buf, err);
}

mmt_status mmt_file_read(const char *path, void **data, size_t *size, mmt_err *err)
{
    FILE *f = fopen(path, "rb");
    RETURN_ERROR_IF(!f, err, MMT_IO, "cannot open %s: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fileno(f), &st) != 0) {
        fclose(f);
        return mmt_err_set(err, MMT_IO, "cannot stat %s", path);
    }
    size_t n = (size_t)st.st_size;
    char *buf = malloc(n + 1);
    if (!buf) {
        fclose(f);
        return mmt_err_set(err, MMT_OUT_OF_MEMORY, "out of memory reading %s", path);
    }
    size_t got = fread(buf, 1, n, f);
    fclose(f);
    if (got != n) {
        free(buf);
        return mmt_err_set(err, MMT_IO, "short read of %s", path);
    }
    buf[n] = '\0';
    *data = buf;
    *size = n;
    return MMT_OK;
}

mmt_status mmt_file_write_atomic(const char *path, const void *data, size_t size, mmt_err *err)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.%d.tmp", path, (int)getpid());
    FILE *f = fopen(tmp, "wb");
    RETURN_ERROR_IF(!f, err, MMT_IO, "cannot write %s: %s", tmp, strerror(errno));
    int ok = fwrite(data, 1, size, f) == size;
    ok &= fclose(f) == 0;
    if (!ok || rename(tmp, path) != 0) {
        unlink(tmp);
        return mmt_err_set(err, MMT_IO, "cannot write %s: %s", path, strerror(errno));
    }
    return MMT_OK;
}
