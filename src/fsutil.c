/* fsutil.c - file-system helpers (see fsutil.h). */
#include "fsutil.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hash.h"

/* mkdir -p with the given mode for what it creates. */
static mmt_status make_dirs(const char *path, mode_t mode, mmt_err *err)
{
    char buf[4096];
    RETURN_ERROR_IF(strlen(path) >= sizeof buf, err, MMT_INVALID_ARGUMENT, "path too long: %s", path);
    strcpy(buf, path);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(buf, mode) != 0 && errno != EEXIST)
            return mmt_err_set(err, MMT_IO, "cannot create directory %s: %s", buf, strerror(errno));
        *p = '/';
    }
    if (mkdir(buf, mode) != 0 && errno != EEXIST)
        return mmt_err_set(err, MMT_IO, "cannot create directory %s: %s", buf, strerror(errno));
    return MMT_OK;
}

mmt_status mmt_mkdirs(const char *path, mmt_err *err) { return make_dirs(path, 0755, err); }

/* Whether directory st may stand above a private one: another user who can write a
 * directory on the path can put anything below it. Root's and this user's are trusted
 * unless others may write them (group root's members are root's); a world-writable one
 * only with the sticky bit and owned by root (/tmp: nobody can rename or remove what
 * another made there). */
static int trusted_above(const struct stat *st)
{
    if (st->st_uid != 0 && st->st_uid != geteuid()) return 0;
    const int others = (st->st_mode & 002) || ((st->st_mode & 020) && st->st_gid != 0);
    return !others || (st->st_uid == 0 && (st->st_mode & S_ISVTX));
}

/* mmt_private_dir, with the path the checks were made on (symbolic links above it
 * resolved) in resolved (size bytes; may be NULL). */
static mmt_status private_dir(const char *path, char *resolved, size_t size, mmt_err *err)
{
    FORWARD_IF_ERROR(make_dirs(path, 0700, err));
    struct stat st;
    RETURN_ERROR_IF(lstat(path, &st) != 0, err, MMT_IO, "cannot stat %s: %s", path, strerror(errno));
    RETURN_ERROR_IF(!S_ISDIR(st.st_mode), err, MMT_IO, "%s is not a directory (a symbolic link?): refusing it", path);
    char real[PATH_MAX];
    RETURN_ERROR_IF(!realpath(path, real), err, MMT_IO, "cannot resolve %s: %s", path, strerror(errno));
    /* every directory above, from the root down (links resolved: each is checked as it is) */
    for (char *p = real + 1;; p++) {
        if (*p != '/' && *p != '\0') continue;
        const char c = *p;
        *p = '\0';
        int ok = lstat(real, &st) == 0 && S_ISDIR(st.st_mode);
        if (ok && c == '\0') break; /* the directory itself: below */
        ok = ok && trusted_above(&st);
        const int uid = (int)st.st_uid, mode = (int)(st.st_mode & 07777);
        if (!ok) {
            return mmt_err_set(err, MMT_IO,
                               "%s, above %s, belongs to user %d with mode %04o: only root and this user (%d) may "
                               "own a directory above a private one, and others may not write it (unless it is "
                               "root's and sticky, as /tmp): what is there could be planted or swapped",
                               real, path, uid, mode, (int)geteuid());
        }
        *p = c;
    }
    RETURN_ERROR_IF(st.st_uid != geteuid(), err, MMT_IO,
                    "%s belongs to user %d, not to this user (%d): what is there could be planted", path,
                    (int)st.st_uid, (int)geteuid());
    if ((st.st_mode & 077) && chmod(real, 0700) != 0)
        return mmt_err_set(err, MMT_IO, "%s is open to others and cannot be made private: %s", path, strerror(errno));
    if (resolved) snprintf(resolved, size, "%s", real);
    return MMT_OK;
}

mmt_status mmt_private_dir(const char *path, mmt_err *err) { return private_dir(path, NULL, 0, err); }

void mmt_user_cache_dir(char *buf, size_t size)
{
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (xdg && xdg[0] == '/') {
        snprintf(buf, size, "%s", xdg);
        return;
    }
    if (!home || home[0] != '/') {
        const struct passwd *pw = getpwuid(geteuid());
        home = pw && pw->pw_dir && pw->pw_dir[0] == '/' ? pw->pw_dir : NULL;
    }
    if (home) snprintf(buf, size, "%s/.cache", home);
    else snprintf(buf, size, "/tmp/mmtune-%d", (int)geteuid());
}

mmt_status mmt_cache_dir(char *buf, size_t size, mmt_err *err)
{
    const char *dir = getenv("MMTUNE_CACHE_DIR");
    char base[4096];
    mmt_user_cache_dir(base, sizeof base);
    char path[4200];
    if (dir && *dir) snprintf(path, sizeof path, "%s", dir);
    else snprintf(path, sizeof path, "%s/mmtune/kernels", base);
    return private_dir(path, buf, size, err);
}

/* The whole file path opened with flags; own: only a regular file of this user. */
static mmt_status read_file(const char *path, int flags, int own, void **data, size_t *size, mmt_err *err)
{
    const int fd = open(path, O_RDONLY | O_CLOEXEC | flags);
    RETURN_ERROR_IF(fd < 0, err, MMT_IO, "cannot open %s: %s", path, strerror(errno));
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        close(fd);
        return mmt_err_set(err, MMT_IO, "cannot open %s: %s", path, strerror(errno));
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        fclose(f);
        return mmt_err_set(err, MMT_IO, "cannot stat %s", path);
    }
    if (own && (!S_ISREG(st.st_mode) || st.st_uid != geteuid())) {
        fclose(f);
        return mmt_err_set(err, MMT_IO, "%s is not a regular file of this user: not read", path);
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

mmt_status mmt_file_read(const char *path, void **data, size_t *size, mmt_err *err)
{
    return read_file(path, 0, 0, data, size, err);
}

mmt_status mmt_file_read_own(const char *path, void **data, size_t *size, mmt_err *err)
{
    return read_file(path, O_NOFOLLOW, 1, data, size, err);
}

mmt_status mmt_file_write_atomic(const char *path, const void *data, size_t size, mmt_err *err)
{
    char tmp[4200];
    RETURN_ERROR_IF(snprintf(tmp, sizeof tmp, "%s.XXXXXX", path) >= (int)sizeof tmp, err, MMT_INVALID_ARGUMENT,
                    "path too long: %s", path);
    int fd = mkstemp(tmp); /* a name no other writer has, created 0600 */
    RETURN_ERROR_IF(fd < 0, err, MMT_IO, "cannot write %s: %s", tmp, strerror(errno));
    const char *p = data;
    size_t left = size;
    while (left > 0) {
        ssize_t n = write(fd, p, left);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        p += n, left -= (size_t)n;
    }
    int ok = left == 0;
    ok &= close(fd) == 0;
    if (!ok || rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        return mmt_err_set(err, MMT_IO, "cannot write %s: %s", path, strerror(e));
    }
    return MMT_OK;
}

/* Whether the open file fd is a regular file of this user holding exactly hex's bytes. */
static int holds(int fd, size_t size, const char *hex)
{
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() || (size_t)st.st_size != size)
        return 0;
    char *buf = malloc(size ? size : 1), got[65];
    size_t have = 0;
    while (buf && have < size) {
        ssize_t n = pread(fd, buf + have, size - have, (off_t)have);
        if (n <= 0) break;
        have += (size_t)n;
    }
    int same = buf && have == size && mmt_sha256_hex(buf, size, got, NULL) == MMT_OK && strcmp(got, hex) == 0;
    free(buf);
    return same;
}

mmt_status mmt_file_ensure(const char *path, const void *data, size_t size, const char *hex, mmt_err *err)
{
    for (int attempt = 0; attempt < 2; attempt++) {
        int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC), same = fd >= 0 && holds(fd, size, hex);
        if (fd >= 0) close(fd);
        if (same) return MMT_OK;
        FORWARD_IF_ERROR(mmt_file_write_atomic(path, data, size, err)); /* replaced, never used as found */
    }
    return mmt_err_set(err, MMT_IO, "%s does not hold what was written to it", path);
}
