/* autotune.c - background tuning: configuration, the lock per (device, problem), and the
 * detached mmtune process (see autotune.h). */
#define _GNU_SOURCE /* dladdr, NSIG */
#include "autotune.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fsutil.h"
#include "hash.h"

extern char **environ;

static int executable(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISREG(sb.st_mode) && access(path, X_OK) == 0;
}

/* Where an install puts mmtune, from where it puts libmmtuned (CMake's libdir to bindir:
 * "../bin", or "../../bin" from a multiarch lib/x86_64-linux-gnu). */
#ifndef MMT_LIB_TO_BIN
#define MMT_LIB_TO_BIN "../bin"
#endif

/* $MMTUNE_BIN (and only it when set: a named binary that is missing must not be replaced
 * by another one silently), else mmtune beside the object holding this code (the build
 * tree) or where an install puts it from there (MMT_LIB_TO_BIN), else the first mmtune on
 * PATH; "" if none. */
static void find_bin(char *out, size_t size)
{
    char path[PATH_MAX + 16];
    out[0] = '\0';
    const char *env = getenv("MMTUNE_BIN");
    if (env && *env) {
        if (executable(env) && realpath(env, path)) snprintf(out, size, "%s", path);
        return;
    }
    Dl_info info;
    if (dladdr((void *)find_bin, &info) && info.dli_fname && strchr(info.dli_fname, '/')) {
        static const char *const beside[] = {"mmtune", MMT_LIB_TO_BIN "/mmtune"};
        for (int i = 0; i < 2; i++) {
            snprintf(path, sizeof path, "%s", info.dli_fname);
            char *slash = strrchr(path, '/');
            snprintf(slash + 1, sizeof path - (size_t)(slash + 1 - path), "%s", beside[i]);
            char real[PATH_MAX];
            if (executable(path) && realpath(path, real)) {
                snprintf(out, size, "%s", real);
                return;
            }
        }
    }
    const char *dirs = getenv("PATH");
    while (dirs && *dirs) {
        size_t len = strcspn(dirs, ":");
        snprintf(path, sizeof path, "%.*s/mmtune", len ? (int)len : 1, len ? dirs : ".");
        if (executable(path)) {
            snprintf(out, size, "%s", path);
            return;
        }
        dirs += len + (dirs[len] == ':');
    }
}

/* What mmtune's --budget takes: a count, or a positive time in seconds or minutes. */
static int budget_ok(const char *b)
{
    size_t digits = strspn(b, "0123456789");
    if (digits == 0 || digits > 9) return 0;
    if (b[digits] == '\0') return 1;
    return (strcmp(b + digits, "s") == 0 || strcmp(b + digits, "m") == 0) && atoi(b) > 0;
}

mmt_status mmt_autotune_config(mmt_autotune *at, mmt_err *err)
{
    memset(at, 0, sizeof *at);
    const char *mode = getenv("MMTUNE_AUTOTUNE");
    if (!mode || !*mode || strcmp(mode, "off") == 0) return MMT_OK;
    RETURN_ERROR_IF(strcmp(mode, "background") != 0, err, MMT_INVALID_ARGUMENT,
                    "MMTUNE_AUTOTUNE=%.100s: the values are off (the default) and background", mode);
    const char *budget = getenv("MMTUNE_AUTOTUNE_BUDGET");
    if (!budget || !*budget) budget = "60s";
    RETURN_ERROR_IF(!budget_ok(budget), err, MMT_INVALID_ARGUMENT,
                    "MMTUNE_AUTOTUNE_BUDGET=%.100s: a count of candidates or a time (60s, 2m) per problem", budget);
    at->on = 1;
    snprintf(at->budget, sizeof at->budget, "%s", budget);
    find_bin(at->bin, sizeof at->bin);
    static atomic_flag said = ATOMIC_FLAG_INIT; /* once per process: a context opens often */
    const char *named = getenv("MMTUNE_BIN");
    if (!at->bin[0] && !atomic_flag_test_and_set(&said)) {
        if (named && *named)
            fprintf(stderr, "libmmtuned: MMTUNE_AUTOTUNE=background, but MMTUNE_BIN=%.1000s is no executable file: "
                            "untuned shapes are only recorded\n", named);
        else
            fprintf(stderr, "libmmtuned: MMTUNE_AUTOTUNE=background, but no mmtune was found (beside libmmtuned, "
                            "in %s from it, or on PATH; MMTUNE_BIN names one): untuned shapes are only recorded\n",
                    MMT_LIB_TO_BIN);
    }
    return MMT_OK;
}

mmt_status mmt_autotune_lock_path(const char *db_path, const char *fingerprint, const mmt_problem *p, char *buf,
                                  size_t size)
{
    char text[128], hex[65];
    mmt_problem_format(p, text, sizeof text);
    mmt_hash *h = mmt_hash_begin();
    mmt_hash_add_str(h, fingerprint);
    mmt_hash_add_str(h, text);
    FORWARD_IF_ERROR(mmt_hash_end(h, hex, NULL));
    snprintf(buf, size, "%s.autotune/%.16s.lock", db_path, hex);
    return MMT_OK;
}

/* Descriptors from `from` up are closed in the process that execs mmtune, so nothing the
 * application holds open (a listening socket, a pipe) lives on in it. */
static void close_from(int from, long limit)
{
#ifdef SYS_close_range
    if (syscall(SYS_close_range, (unsigned)from, ~0u, 0u) == 0) return;
#endif
    for (long fd = from; fd < limit; fd++) close((int)fd);
}

/* The first child: a new session, then the grandchild that execs mmtune, and exit, so the
 * caller reaps its child at once and the run is adopted by init (or a subreaper). Between
 * fork and exec only async-signal-safe calls: the caller may be multithreaded. */
static void detach_and_exec(const char *bin, char *const argv[], const char *log, int lockfd, long fd_limit)
{
    setsid();
    pid_t g = fork();
    if (g != 0) _exit(g < 0);
    /* signals the application blocked or ignored stay so across exec; mmtune needs the
     * defaults (an ignored SIGCHLD would make waiting for its worker fail) */
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    for (int s = 1; s < NSIG; s++) sigaction(s, &dfl, NULL);
    /* the lock above the standard descriptors first: lockfd may itself be 0, 1 or 2 */
    int lock = fcntl(lockfd, F_DUPFD_CLOEXEC, 10);
    int in = open("/dev/null", O_RDONLY), out = open(log, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW, 0600);
    if (out < 0) out = open("/dev/null", O_WRONLY);
    dup2(in, 0);
    dup2(out, 1);
    dup2(out, 2);
    dup2(lock, 3); /* a dup2 copy does not close on exec: mmtune holds the lock until it exits */
    close_from(4, fd_limit);
    execve(bin, argv, environ);
    _exit(127);
}

mmt_autotune_start_result mmt_autotune_start(const mmt_autotune *at, const char *device, const char *fingerprint,
                                             const char *db_path, const mmt_problem *p)
{
    if (!at->on || !at->bin[0]) return MMT_AUTOTUNE_OFF;
    char dir[PATH_MAX + 16], lock[PATH_MAX + 64], log[PATH_MAX + 32], text[128];
    snprintf(dir, sizeof dir, "%s.autotune", db_path);
    if (mmt_private_dir(dir, NULL) != MMT_OK ||
        mmt_autotune_lock_path(db_path, fingerprint, p, lock, sizeof lock) != MMT_OK)
        return MMT_AUTOTUNE_FAILED;
    snprintf(log, sizeof log, "%s/log", dir);
    int fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) return MMT_AUTOTUNE_FAILED;
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        close(fd);
        return errno == EWOULDBLOCK ? MMT_AUTOTUNE_BUSY : MMT_AUTOTUNE_FAILED;
    }
    /* for a person looking at the directory: what the lock stands for */
    mmt_problem_format(p, text, sizeof text);
    if (ftruncate(fd, 0) == 0) dprintf(fd, "%s\n%s\n", text, fingerprint);

    char *argv[] = {(char *)at->bin, "--device", (char *)device, "--problem", text, "--db", (char *)db_path,
                    "--budget", (char *)at->budget, "--strategy", "random", "--quiet", NULL};
    long limit = sysconf(_SC_OPEN_MAX);
    if (limit < 0 || limit > 65536) limit = 65536;
    pid_t pid = fork();
    if (pid == 0) detach_and_exec(at->bin, argv, log, fd, limit);
    close(fd); /* the lock stays with the run's copy of the descriptor */
    if (pid < 0) return MMT_AUTOTUNE_FAILED;
    int status = 0;
    pid_t r;
    while ((r = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
        ;
    /* ECHILD: the application reaps its children itself (or ignores SIGCHLD); the second
     * fork most likely happened */
    if (r < 0) return errno == ECHILD ? MMT_AUTOTUNE_STARTED : MMT_AUTOTUNE_FAILED;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? MMT_AUTOTUNE_STARTED : MMT_AUTOTUNE_FAILED;
}
