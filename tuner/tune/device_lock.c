/* device_lock.c - the device lock (see device_lock.h). */
#include "device_lock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "fsutil.h"

void mmt_device_lock_name(const mmt_device_info *dev, char *buf, size_t size)
{
    if (strcmp(dev->backend, "cuda") != 0) {
        snprintf(buf, size, "%s", dev->backend);
        return;
    }
    /* the ordinal-th entry of CUDA_VISIBLE_DEVICES, which names the GPU for every process */
    const char *visible = getenv("CUDA_VISIBLE_DEVICES");
    char entry[128] = "";
    for (int i = 0; visible && *visible; i++) {
        const size_t n = strcspn(visible, ",");
        if (i == dev->ordinal) {
            snprintf(entry, sizeof entry, "%.*s", (int)(n < 100 ? n : 100), visible);
            break;
        }
        visible += n + (visible[n] == ',');
    }
    for (char *c = entry; *c; c++)
        if (*c == '/' || *c == ' ') *c = '_';
    if (entry[0]) snprintf(buf, size, "cuda-%s", entry);
    else snprintf(buf, size, "cuda-%d", dev->ordinal);
}

/* The pid the holder wrote, or 0. */
static long holder(int fd)
{
    char text[32] = "";
    const ssize_t n = pread(fd, text, sizeof text - 1, 0);
    return n > 0 ? strtol(text, NULL, 10) : 0;
}

mmt_status mmt_device_lock(const mmt_device_info *dev, int wait, mmt_err *err)
{
    char dir[4200], name[160], path[4400];
    mmt_user_cache_dir(dir, sizeof dir);
    strncat(dir, "/mmtune/locks", sizeof dir - strlen(dir) - 1);
    mmt_err why;
    if (mmt_private_dir(dir, &why) != MMT_OK) {
        fprintf(stderr, "mmtune: no device lock, so another tune may measure beside this one: %s\n", why.msg);
        return MMT_OK;
    }
    mmt_device_lock_name(dev, name, sizeof name);
    snprintf(path, sizeof path, "%s/%s.lock", dir, name);
    const int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    RETURN_ERROR_IF(fd < 0, err, MMT_IO, "%s: %s", path, strerror(errno));
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        const long pid = holder(fd);
        if (!wait) {
            close(fd);
            return mmt_err_set(err, MMT_UNSUPPORTED, "%s is being measured by another mmtune (pid %ld); not waiting",
                               name, pid);
        }
        fprintf(stderr, "mmtune: waiting for another mmtune (pid %ld) to finish measuring %s\n", pid, name);
        while (flock(fd, LOCK_EX) != 0)
            if (errno != EINTR) {
                const int e = errno;
                close(fd);
                return mmt_err_set(err, MMT_IO, "%s: %s", path, strerror(e));
            }
    }
    char text[32];
    const int n = snprintf(text, sizeof text, "%ld\n", (long)getpid());
    const int said = ftruncate(fd, 0) == 0 && pwrite(fd, text, (size_t)n, 0) == n;
    (void)said; /* where not, a waiter's message lacks the pid: nothing else */
    return MMT_OK; /* fd stays open: the lock ends with the process */
}
