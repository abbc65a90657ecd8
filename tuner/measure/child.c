/* child.c - helper processes of the tuner (see child.h). */
#define _GNU_SOURCE
#include "child.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clock.h"

mmt_status mmt_child_spawn(mmt_child *c, const char *const argv[], mmt_err *err)
{
    *c = MMT_CHILD_NONE;
    signal(SIGPIPE, SIG_IGN);
    int req[2], rep[2];
    RETURN_ERROR_IF(pipe2(req, O_CLOEXEC) != 0, err, MMT_IO, "pipe: %s", strerror(errno));
    if (pipe2(rep, O_CLOEXEC) != 0) {
        close(req[0]), close(req[1]);
        return mmt_err_set(err, MMT_IO, "pipe: %s", strerror(errno));
    }
    const pid_t tuner = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        /* only async-signal-safe calls from here to the exec: the tuner may have threads.
         * A child outlives no tuner (one stopped by a second Ctrl-C, or killed): its work
         * would run on with nobody to read it. */
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != tuner) _exit(127);
        /* fds 3 and 4 for the protocol (the pipes' own may be 3 or 4: moved out of the way
         * first, which also clears close-on-exec); stdout and stderr stay the tuner's */
        int in = fcntl(req[0], F_DUPFD, 5), out = fcntl(rep[1], F_DUPFD, 5);
        if (in < 0 || out < 0 || dup2(in, 3) < 0 || dup2(out, 4) < 0) _exit(127);
        close(in), close(out);
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    close(req[0]);
    close(rep[1]);
    if (pid < 0) {
        close(req[1]), close(rep[0]);
        return mmt_err_set(err, MMT_IO, "fork: %s", strerror(errno));
    }
    *c = (mmt_child){.pid = pid, .to = req[1], .from = rep[0]};
    return MMT_OK;
}

void mmt_child_reap(mmt_child *c, int *status)
{
    *status = 0;
    if (c->pid > 0) {
        kill(c->pid, SIGKILL);
        while (waitpid(c->pid, status, 0) < 0 && errno == EINTR) {
        }
    }
    if (c->to >= 0) close(c->to);
    if (c->from >= 0) close(c->from);
    *c = MMT_CHILD_NONE;
}

void mmt_child_stop(mmt_child *c)
{
    if (c->to >= 0) close(c->to);
    c->to = -1;
    int status;
    for (int i = 0; i < 200 && c->pid > 0 && waitpid(c->pid, &status, WNOHANG) == 0; i++) usleep(10000);
    mmt_child_reap(c, &status);
}

int mmt_child_write_all(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        p += w, n -= (size_t)w;
    }
    return 0;
}

int mmt_child_read_all(int fd, void *buf, size_t n, double timeout_s)
{
    char *p = buf;
    const double t0 = mmt_now_s();
    while (n) {
        if (timeout_s > 0) {
            double left = timeout_s - (mmt_now_s() - t0);
            if (left <= 0) return -2;
            struct pollfd pf = {.fd = fd, .events = POLLIN};
            int r = poll(&pf, 1, (int)(left * 1000) + 1);
            if (r < 0 && errno == EINTR) continue;
            if (r == 0) return -2;
            if (r < 0) return -1;
        }
        ssize_t got = read(fd, p, n);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return -1;
        p += got, n -= (size_t)got;
    }
    return 0;
}
