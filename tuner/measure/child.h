/* child.h - a helper process of the tuner: the mmtune binary started again (fork + exec)
 * with a hidden subcommand, talking over two pipes that are its fds 3 (requests in) and 4
 * (replies out). The measuring worker (worker.h) and the compile-ahead pool (prebuild.h)
 * are such processes; both ends are the same binary, so fixed structs can cross as bytes. */
#ifndef MMT_CHILD_H
#define MMT_CHILD_H

#include <stddef.h>
#include <sys/types.h>

#include "err.h"

typedef struct mmt_child {
    pid_t pid; /* -1: none running */
    int to, from; /* our ends of the pipes */
} mmt_child;

#define MMT_CHILD_NONE ((mmt_child){.pid = -1, .to = -1, .from = -1})

/* Starts argv[0] with argv. The child is killed when the thread that started it ends (the
 * process, or a pool thread: PR_SET_PDEATHSIG), so none outlives the tuner. A failed exec
 * shows as a child that exits with status 127. Ignores SIGPIPE in the tuner: a dead child
 * shows as a write error, not a dead tuner. */
mmt_status mmt_child_spawn(mmt_child *c, const char *const argv[], mmt_err *err);

/* Kills the child (SIGKILL), waits for it (*status: its wait status, 0 if none ran) and
 * closes the pipes; c is then MMT_CHILD_NONE. */
void mmt_child_reap(mmt_child *c, int *status);

/* Closes the request pipe (EOF: the child exits by itself), gives it 2 s, then reaps it. */
void mmt_child_stop(mmt_child *c);

/* Writes n bytes; 0, or -1 on an error (a dead reader). */
int mmt_child_write_all(int fd, const void *buf, size_t n);

/* Reads n bytes; with a deadline (seconds from now, <= 0: none). Returns 0, -1 on EOF or
 * error, -2 on timeout. */
int mmt_child_read_all(int fd, void *buf, size_t n, double timeout_s);

#endif
