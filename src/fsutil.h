/* fsutil.h - small file-system helpers: directories (private ones for what is loaded and
 * run), whole-file reads, atomic writes under unique names, checked opens, and the kernel
 * cache directory. */
#ifndef MMT_FSUTIL_H
#define MMT_FSUTIL_H

#include <stddef.h>

#include "err.h"

/* mkdir -p; existing directories are fine. */
mmt_status mmt_mkdirs(const char *path, mmt_err *err);

/* A directory only this user can read and write: made 0700 (missing parents too), or, if
 * it exists, a real directory (no symbolic link) owned by this user, whose group and other
 * permissions are then taken away; and every directory above it (symbolic links resolved)
 * owned by root or this user and writable by nobody else (group root aside), unless root's
 * and sticky (/tmp), as OpenSSH checks the path of a key file. Anything else is refused
 * with MMT_IO and a message that says what is wrong: a directory that others own or can
 * write could hold planted code, or have what lies below it swapped. */
mmt_status mmt_private_dir(const char *path, mmt_err *err);

/* This user's cache directory, always an absolute path: $XDG_CACHE_HOME if absolute, else
 * HOME's .cache (HOME if absolute, else the password database's home of this user), else
 * /tmp/mmtune-UID. Never relative to the working directory, where another user may have
 * planted a database or kernels. */
void mmt_user_cache_dir(char *buf, size_t size);

/* The directory compiled kernels are cached in: $MMTUNE_CACHE_DIR, else mmtune/kernels in
 * the user's cache directory; private (mmt_private_dir), and in buf as checked (symbolic
 * links above it resolved, so no link that someone else may change is followed later). */
mmt_status mmt_cache_dir(char *buf, size_t size, mmt_err *err);

/* Reads a whole file; *data is malloc'd with a NUL after the last byte. */
mmt_status mmt_file_read(const char *path, void **data, size_t *size, mmt_err *err);

/* mmt_file_read of a regular file of this user only, never through a symbolic link: what a
 * private directory holds (code: a file someone else made or links to is not read). */
mmt_status mmt_file_read_own(const char *path, void **data, size_t *size, mmt_err *err);

/* Writes a file atomically: a temporary file of a unique name in the same directory (mode
 * 0600), then a rename, so a reader never sees half a file and writers of the same path,
 * in any process or thread, never write into each other's file. */
mmt_status mmt_file_write_atomic(const char *path, const void *data, size_t size, mmt_err *err);

/* Makes sure path holds exactly data (size bytes whose SHA-256 is hex): a regular file of
 * this user with that digest is left as it is; anything else found there (planted,
 * damaged, half-written) is replaced. */
mmt_status mmt_file_ensure(const char *path, const void *data, size_t size, const char *hex, mmt_err *err);

#endif
