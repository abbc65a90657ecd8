/* kernel.h - template + configuration -> compile definitions -> binary. A binary is found
 * in the kernel cache directory (the user's own, fsutil.h), else compiled by the backend
 * and cached there. Never in a database: a database is shared, merged and imported, and
 * carries configurations, sources and figures, never code that would run in the process
 * that reads it. The key hashes the template source, the definitions, the backend, the
 * device's arch and the compiler identity and flags. A file of the cache starts with the
 * SHA-256 of the binary it holds, checked before use: a file damaged under a key is
 * compiled again and replaced, never run. */
#ifndef MMT_KERNEL_H
#define MMT_KERNEL_H

#include <stddef.h>

#include "backend.h"
#include "space.h"

/* The definitions of an instance: the space's params and derived values for this
 * problem, then MMT_DTYPE_F64=0|1, MMT_MODE=<mmt_mode number> and MMT_OUT=<mmt_dtype
 * number of C>, and MMT_ARCH_SPECIFIC=1 for a space that asks for the arch-specific
 * target (backend.h: the backend compiles such an instance for it). Templates that serve
 * one input type per mode read what they need (the tensor-core templates read MMT_MODE and
 * MMT_OUT; SIMT and CPU ignore both). */
mmt_status mmt_kernel_defines(const mmt_space *s, const mmt_config *c, const mmt_space_env *env, char *buf,
                              size_t size, mmt_err *err);

/* The cache key of an instance (64 hex digits); fails only if the digest does. */
mmt_status mmt_kernel_key(const mmt_backend *be, const mmt_device_info *dev, const char *source, const char *defines,
                          char key[65], mmt_err *err);

/* The binary of an instance: cached or compiled. On a compile failure the status is
 * MMT_COMPILE and *log holds the compiler output (malloc'd; also on success if the compiler
 * printed anything). *cached (may be NULL) tells whether it came from the cache. */
mmt_status mmt_kernel_binary(const mmt_backend *be, const mmt_device_info *dev, const char *template_name,
                             const char *source, const char *defines, void **bin, size_t *size, char **log,
                             int *cached, mmt_err *err);

/* mmt_kernel_binary where the cache holds the binary; MMT_NOT_FOUND, compiling nothing,
 * where it does not (a caller that must not wait for a compiler builds it elsewhere). */
mmt_status mmt_kernel_cached(const mmt_backend *be, const mmt_device_info *dev, const char *template_name,
                             const char *source, const char *defines, void **bin, size_t *size, mmt_err *err);

#endif
