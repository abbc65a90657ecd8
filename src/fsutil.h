/* fsutil.h - small file-system helpers: directories, whole-file reads and atomic writes,
 * and the kernel cache directory. */
#ifndef MMT_FSUTIL_H
#define MMT_FSUTIL_H

#include <stddef.h>

#include "err.h"

/* mkdir -p; existing directories are fine. */
mmt_status mmt_mkdirs(const char *path, mmt_err *err);

/* The directory compiled kernels are cached in: $MMTUNE_CACHE_DIR, else
 * $XDG_CACHE_HOME/mmtune/kernels, else $HOME/.cache/mmtune/kernels (created). */
mmt_status mmt_cache_dir(char *buf, size_t size, mmt_err *err);

/* Reads a whole file; *data is malloc'd with a NUL after the last byte. */
mmt_status mmt_file_read(const char *path, void **data, size_t *size, mmt_err *err);

/* Writes a file atomically (temporary file in the same directory, then rename), so a
 * reader never sees half a file and concurrent writers of the same bytes are harmless. */
mmt_status mmt_file_write_atomic(const char *path, const void *data, size_t size, mmt_err *err);

#endif
