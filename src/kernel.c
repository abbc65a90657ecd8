/* kernel.c - instantiation and the compile cache (see kernel.h). */
#include "kernel.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsutil.h"
#include "hash.h"

/* The header of a cache file: the SHA-256 of the binary that follows it. */
#define CACHE_MAGIC "mmtune binary sha256="
#define CACHE_HEADER (sizeof CACHE_MAGIC - 1 + 64 + 1)

mmt_status mmt_kernel_defines(const mmt_space *s, const mmt_config *c, const mmt_space_env *env, char *buf,
                              size_t size, mmt_err *err)
{
    FORWARD_IF_ERROR(mmt_space_defines(s, c, env, buf, size, err));
    size_t n = strlen(buf);
    const mmt_problem *p = env->problem;
    int w = snprintf(buf + n, size - n, "%sMMT_DTYPE_F64=%d MMT_MODE=%d MMT_OUT=%d%s", n ? " " : "", p->dtype == MMT_F64,
                     (int)p->mode, (int)p->out, s->arch_specific ? " MMT_ARCH_SPECIFIC=1" : "");
    RETURN_ERROR_IF(w < 0 || (size_t)w >= size - n, err, MMT_INTERNAL, "compile definitions too long");
    return MMT_OK;
}

mmt_status mmt_kernel_key(const mmt_backend *be, const mmt_device_info *dev, const char *source, const char *defines,
                          char key[65], mmt_err *err)
{
    mmt_hash *h = mmt_hash_begin();
    mmt_hash_add_str(h, be->name);
    mmt_hash_add_str(h, dev->arch);
    mmt_hash_add_str(h, be->compiler_id(dev));
    mmt_hash_add_str(h, source);
    mmt_hash_add_str(h, defines);
    return mmt_hash_end(h, key, err);
}

static void cache_path(const char *dir, const char *key, char *buf, size_t size)
{
    snprintf(buf, size, "%s/%s.bin", dir, key);
}

/* The binary of a cache file, if its header's digest is that of what follows. */
static int cache_read(const char *path, void **bin, size_t *size)
{
    void *data;
    size_t n;
    char hex[65];
    if (mmt_file_read_own(path, &data, &n, NULL) != MMT_OK) return 0;
    int ok = n > CACHE_HEADER && memcmp(data, CACHE_MAGIC, sizeof CACHE_MAGIC - 1) == 0 &&
             ((char *)data)[CACHE_HEADER - 1] == '\n' &&
             mmt_sha256_hex((char *)data + CACHE_HEADER, n - CACHE_HEADER, hex, NULL) == MMT_OK &&
             memcmp((char *)data + sizeof CACHE_MAGIC - 1, hex, 64) == 0;
    if (ok && (*bin = malloc(n - CACHE_HEADER)) != NULL) {
        memcpy(*bin, (char *)data + CACHE_HEADER, n - CACHE_HEADER);
        *size = n - CACHE_HEADER;
    }
    free(data);
    return ok && *bin;
}

/* Writes bin to the cache under path, its digest first; a cache that fails to write is no error. */
static void cache_write(const char *path, const void *bin, size_t size)
{
    char hex[65];
    char *data = malloc(CACHE_HEADER + size);
    if (data && mmt_sha256_hex(bin, size, hex, NULL) == MMT_OK) {
        snprintf(data, CACHE_HEADER + 1, "%s%s\n", CACHE_MAGIC, hex);
        memcpy(data + CACHE_HEADER, bin, size);
        mmt_file_write_atomic(path, data, CACHE_HEADER + size, NULL);
    }
    free(data);
}

/* The binary of an instance from the file cache, else (compile) the compiler; MMT_NOT_FOUND
 * where the cache does not hold it and compile is 0. */
static mmt_status find_or_build(const mmt_backend *be, const mmt_device_info *dev, const char *template_name,
                                const char *source, const char *defines, int compile, void **bin, size_t *size,
                                char **log, int *cached, mmt_err *err)
{
    char key[65], dir[1024], path[1200];
    *bin = NULL;
    *size = 0;
    if (log) *log = NULL;
    if (cached) *cached = 1;
    FORWARD_IF_ERROR(mmt_kernel_key(be, dev, source, defines, key, err));

    mmt_err why;
    const int have_dir = mmt_cache_dir(dir, sizeof dir, &why) == MMT_OK;
    static atomic_int said;
    if (!have_dir && atomic_exchange(&said, 1) == 0) /* once a process: every compile is then a new one */
        fprintf(stderr, "mmtune: %.900s: kernels are not cached, each is compiled when first built\n", why.msg);
    if (have_dir) {
        cache_path(dir, key, path, sizeof path);
        if (cache_read(path, bin, size)) return MMT_OK;
    }

    if (cached) *cached = 0;
    RETURN_ERROR_IF(!compile, err, MMT_NOT_FOUND, "%s: the instance is not compiled yet", template_name);
    FORWARD_IF_ERROR(be->compile(dev, source, defines, bin, size, log, err));
    if (have_dir) cache_write(path, *bin, *size);
    return MMT_OK;
}

mmt_status mmt_kernel_binary(const mmt_backend *be, const mmt_device_info *dev, const char *template_name,
                             const char *source, const char *defines, void **bin, size_t *size, char **log,
                             int *cached, mmt_err *err)
{
    return find_or_build(be, dev, template_name, source, defines, 1, bin, size, log, cached, err);
}

mmt_status mmt_kernel_cached(const mmt_backend *be, const mmt_device_info *dev, const char *template_name,
                             const char *source, const char *defines, void **bin, size_t *size, mmt_err *err)
{
    return find_or_build(be, dev, template_name, source, defines, 0, bin, size, NULL, NULL, err);
}
