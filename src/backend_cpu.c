/* backend_cpu.c - the CPU backend: a template instance is compiled by a `cc` subprocess
 * into a shared object, loaded with dlopen, and called in the calling thread (the
 * template brings its own OpenMP threads). Always available. */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "clock.h"
#include "fsutil.h"
#include "hash.h"

extern char **environ;

#ifndef MMT_C_COMPILER
#define MMT_C_COMPILER "cc"
#endif

/* -march=native: an instance is built for the machine that runs it; the device
 * fingerprint carries the ISA and the compiler, so results never cross machines. */
static const char *const cpu_flags[] = {"-O3", "-march=native", "-fPIC", "-shared", "-fopenmp", "-std=gnu11", NULL};

struct mmt_module {
    void *handle;
    int (*fn)(const mmt_gemm_params *p); /* 0, or non-zero: C was not computed */
    /* the OpenMP runtime the kernel runs on (NULL for a kernel without it) */
    int (*omp_get_max_threads)(void);
    void (*omp_set_num_threads)(int);
};

static const char *compiler_path(void)
{
    const char *cc = getenv("MMTUNE_CC");
    if (!cc || !*cc) cc = getenv("CC");
    return cc && *cc ? cc : MMT_C_COMPILER;
}

static int cpu_device_count(void) { return 1; }

/* Runs argv with stdout (and stderr too where with_stderr, else /dev/null) into log_path;
 * returns the exit status, -1 if it could not start. The compiler runs with Ctrl-C and
 * SIGTERM blocked: sent to the whole process group they are the caller's to act on (the
 * tuner ends the candidate in flight), and a compile they killed would read as the
 * candidate's failure. */
static int run_logged(char *const argv[], const char *log_path, int with_stderr)
{
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, log_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (with_stderr) posix_spawn_file_actions_adddup2(&fa, 1, 2);
    else posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    posix_spawnattr_t at;
    sigset_t blocked;
    posix_spawnattr_init(&at);
    sigemptyset(&blocked);
    sigaddset(&blocked, SIGINT);
    sigaddset(&blocked, SIGTERM);
    posix_spawnattr_setsigmask(&at, &blocked);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK);
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &fa, &at, argv, environ);
    posix_spawnattr_destroy(&at);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) return -1;
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* The compiler's first --version line and the flags: part of every cache key. */
static pthread_once_t compiler_once = PTHREAD_ONCE_INIT;
static char compiler_id[1024];

/* The compiler's version line as last learned, kept in the private kernel cache under the
 * digest of its path: written where it ran (learned), read where it could not. Kernels it
 * built need no compiler to load; a compiler that cannot run now (removed, a process
 * limit) must not change their keys and have every GEMM fail to compile again. */
static int remembered_version(const char *cc, char *version, size_t size, int learned)
{
    char dir[1024], hex[65], path[1200];
    if (mmt_cache_dir(dir, sizeof dir, NULL) != MMT_OK || mmt_sha256_hex(cc, strlen(cc), hex, NULL) != MMT_OK)
        return 0;
    snprintf(path, sizeof path, "%s/compiler-%.16s", dir, hex);
    void *text = NULL;
    size_t n = 0;
    const int had = mmt_file_read_own(path, &text, &n, NULL) == MMT_OK && n > 0 && n < size && !memchr(text, '\n', n);
    int ok = 1;
    if (learned && !(had && strcmp(text, version) == 0)) /* written once a version */
        ok = mmt_file_write_atomic(path, version, strlen(version), NULL) == MMT_OK;
    else if (!learned && had)
        snprintf(version, size, "%s", (const char *)text);
    else if (!learned)
        ok = 0;
    free(text);
    return ok;
}

/* The folders this backend makes under $TMPDIR (else /tmp): mmtune-KIND-PID-XXXXXX. */
static const char *tmp_root(void)
{
    const char *tmpdir = getenv("TMPDIR");
    return tmpdir && *tmpdir ? tmpdir : "/tmp";
}

/* Removes folder name of root, a real directory of this user, and the files in it (none is
 * followed: a link inside is removed as a link). */
static void remove_folder(int root, const char *name)
{
    const int fd = openat(root, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (fd < 0) return;
    DIR *d = fstat(fd, &st) == 0 && st.st_uid == geteuid() ? fdopendir(fd) : NULL;
    if (!d) {
        close(fd);
        return;
    }
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) unlinkat(fd, e->d_name, 0);
    closedir(d);
    unlinkat(root, name, AT_REMOVEDIR);
}

/* The folders of earlier processes that were killed mid-compile (kill -9 runs no clean-up):
 * this user's mmtune-KIND-PID-XXXXXX whose process is gone, older than a minute (a pid in
 * use again keeps its folder: only a folder whose pid is free goes). Once a process. */
static void sweep_dead_folders(void)
{
    const int root = open(tmp_root(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = root >= 0 ? fdopendir(dup(root)) : NULL;
    const time_t now = time(NULL);
    for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
        char kind[16], rest[16];
        int pid;
        struct stat st;
        if (sscanf(e->d_name, "mmtune-%15[a-z]-%d-%15s", kind, &pid, rest) != 3 || pid <= 0 || pid == getpid())
            continue;
        if (fstatat(root, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(st.st_mode) ||
            st.st_uid != geteuid() || now - st.st_mtime < 60)
            continue;
        if (kill(pid, 0) != 0 && errno == ESRCH) remove_folder(root, e->d_name);
    }
    if (d) closedir(d);
    if (root >= 0) close(root);
}

/* A new folder of this process's own under $TMPDIR (else /tmp), named
 * mmtune-KIND-PID-XXXXXX: made 0700 by mkdtemp, a name no other process has; the first one
 * a process makes sweeps away those of processes killed before they removed theirs. */
static mmt_status temp_dir(const char *kind, char *dir, size_t size, mmt_err *err)
{
    static pthread_once_t swept = PTHREAD_ONCE_INIT;
    pthread_once(&swept, sweep_dead_folders);
    snprintf(dir, size, "%s/mmtune-%s-%d-XXXXXX", tmp_root(), kind, (int)getpid());
    RETURN_ERROR_IF(!mkdtemp(dir), err, MMT_IO, "cannot create a temporary directory: %s", strerror(errno));
    return MMT_OK;
}

static void make_compiler_id(void)
{
    char version[512], dir[512], log[600];
    int learned = 0;
    snprintf(version, sizeof version, "%s (unknown version)", compiler_path());
    if (temp_dir("ccv", dir, sizeof dir, NULL) == MMT_OK) {
        snprintf(log, sizeof log, "%s/v", dir);
        char *argv[] = {(char *)compiler_path(), "--version", NULL};
        /* stdout alone: whatever else the process says on stderr (a preloaded library
         * at exit, say) must not change the key and the device's fingerprint */
        FILE *f = run_logged(argv, log, 0) == 0 ? fopen(log, "r") : NULL;
        char line[400];
        if (f && fgets(line, sizeof line, f)) {
            line[strcspn(line, "\n")] = '\0';
            snprintf(version, sizeof version, "%s", line);
            learned = 1;
        }
        if (f) fclose(f);
        unlink(log);
        rmdir(dir);
    }
    remembered_version(compiler_path(), version, sizeof version, learned);
    size_t n = snprintf(compiler_id, sizeof compiler_id, "%s |", version);
    for (int i = 0; cpu_flags[i] && n < sizeof compiler_id; i++)
        n += snprintf(compiler_id + n, sizeof compiler_id - n, " %s", cpu_flags[i]);
}

static const char *cpu_compiler_id(const mmt_device_info *dev)
{
    (void)dev;
    pthread_once(&compiler_once, make_compiler_id);
    return compiler_id;
}

static void cpuinfo_model(char *buf, size_t size)
{
    snprintf(buf, size, "x86-64 CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) == 0) {
            char *v = strchr(line, ':');
            if (v) {
                v++;
                while (*v == ' ') v++;
                v[strcspn(v, "\n")] = '\0';
                snprintf(buf, size, "%s", v);
            }
            break;
        }
    }
    fclose(f);
}

/* Cache size of a level from sysfs (glibc's sysconf reports 0 on some CPUs). */
static long cache_bytes(int index)
{
    char path[128], text[64];
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", index);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    long v = 0;
    if (fgets(text, sizeof text, f)) {
        char unit = 0;
        if (sscanf(text, "%ld%c", &v, &unit) >= 1) {
            if (unit == 'K') v *= 1024;
            else if (unit == 'M') v *= 1024 * 1024;
        }
    }
    fclose(f);
    return v;
}

/* The clock in MHz: cpufreq's maximum where the kernel has it, else /proc/cpuinfo's
 * "cpu MHz" (a virtual machine's nominal clock; on a host that scales its clock, the
 * moment's); 0 where neither says. For a report's peak rate, not for tuning. */
static long cpu_mhz(void)
{
    long khz = 0;
    FILE *f = fopen("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", "r");
    if (f) {
        if (fscanf(f, "%ld", &khz) != 1) khz = 0;
        fclose(f);
    }
    if (khz > 0) return khz / 1000;
    double mhz = 0;
    char line[256];
    if ((f = fopen("/proc/cpuinfo", "r"))) {
        while (mhz == 0 && fgets(line, sizeof line, f)) {
            const char *colon = strchr(line, ':');
            if (strncmp(line, "cpu MHz", 7) == 0 && colon) mhz = strtod(colon + 1, NULL);
        }
        fclose(f);
    }
    return (long)(mhz + 0.5);
}

static mmt_status cpu_probe(int ordinal, mmt_device_info *d, mmt_err *err)
{
    RETURN_ERROR_IF(ordinal != 0, err, MMT_INVALID_ARGUMENT, "the CPU backend has one device, not %d", ordinal);
    memset(d, 0, sizeof *d);
    snprintf(d->backend, sizeof d->backend, "cpu");
    cpuinfo_model(d->name, sizeof d->name);
    __builtin_cpu_init();
    int isa = 0;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) isa = 1;
    if (isa && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl")) isa = 2;
    static const char *const isa_names[] = {"x86_64", "x86_64-avx2", "x86_64-avx512"};
    snprintf(d->arch, sizeof d->arch, "%s", isa_names[isa]);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    mmt_device_set_prop(d, "isa", isa);
    mmt_device_set_prop(d, "cores", cores > 0 ? cores : 1);
    mmt_device_set_prop(d, "l1d_bytes", cache_bytes(0) ? cache_bytes(0) : 32768);
    mmt_device_set_prop(d, "l2_bytes", cache_bytes(2) ? cache_bytes(2) : 1 << 20);
    mmt_device_set_prop(d, "l3_bytes", cache_bytes(3) ? cache_bytes(3) : 8 << 20);
    long mhz = cpu_mhz();
    if (mhz > 0) mmt_device_set_prop(d, "mhz", mhz);
    snprintf(d->fingerprint, sizeof d->fingerprint, "cpu|%.120s|%s|cores=%ld|%.250s", d->name, d->arch, cores,
             cpu_compiler_id(d));
    return MMT_OK;
}

static mmt_status cpu_compile(const mmt_device_info *dev, const char *source, const char *defines, void **bin,
                              size_t *size, char **log, mmt_err *err)
{
    (void)dev;
    *bin = NULL;
    *size = 0;
    if (log) *log = NULL;
    char dir[512], src[600], out[600], logp[600];
    FORWARD_IF_ERROR(temp_dir("cc", dir, sizeof dir, err));
    snprintf(src, sizeof src, "%s/kernel.c", dir);
    snprintf(out, sizeof out, "%s/kernel.so", dir);
    snprintf(logp, sizeof logp, "%s/log", dir);
    mmt_status st = mmt_file_write_atomic(src, source, strlen(source), err);

    /* argv: cc, flags, -DNAME=VALUE..., -o out src */
    char *defs = strdup(defines ? defines : "");
    char *argv[256];
    int argc = 0;
    argv[argc++] = (char *)compiler_path();
    for (int i = 0; cpu_flags[i]; i++) argv[argc++] = (char *)cpu_flags[i];
    char *dbuf[200];
    int nd = 0;
    char *save = NULL;
    for (char *tok = strtok_r(defs, " ", &save); tok && nd < 200; tok = strtok_r(NULL, " ", &save)) {
        size_t n = strlen(tok) + 3;
        dbuf[nd] = malloc(n);
        snprintf(dbuf[nd], n, "-D%s", tok);
        argv[argc++] = dbuf[nd++];
    }
    argv[argc++] = "-o";
    argv[argc++] = out;
    argv[argc++] = src;
    argv[argc] = NULL;

    int rc = st == MMT_OK ? run_logged(argv, logp, 1) : -1;
    void *logtext = NULL;
    size_t loglen = 0;
    if (st == MMT_OK && mmt_file_read(logp, &logtext, &loglen, NULL) == MMT_OK && log) *log = logtext;
    else free(logtext);
    if (st != MMT_OK) {
        /* err already set */
    } else if (rc < 0) {
        st = mmt_err_set(err, MMT_COMPILE, "cannot run the C compiler '%s'", compiler_path());
    } else if (rc != 0) {
        st = mmt_err_set(err, MMT_COMPILE, "%s exited with %d: %.3000s", compiler_path(), rc,
                         log && *log ? *log : "");
    } else {
        st = mmt_file_read(out, bin, size, err);
    }
    for (int i = 0; i < nd; i++) free(dbuf[i]);
    free(defs);
    unlink(src);
    unlink(out);
    unlink(logp);
    rmdir(dir);
    return st;
}

static mmt_status cpu_load(const mmt_device_info *dev, const void *bin, size_t size, const char *entry,
                           mmt_module **out, mmt_err *err)
{
    (void)dev;
    /* dlopen needs a file: the cache keeps one per distinct binary, named by its hash. Where
     * the cache cannot be had (refused: a directory above it others may write), a folder of
     * this load's own (mkdtemp: 0700, a name no one else has) holds it until it is loaded. */
    char dir[1024], path[1200], hex[65];
    const int own = mmt_cache_dir(dir, sizeof dir, NULL) != MMT_OK;
    if (own) {
        FORWARD_IF_ERROR(temp_dir("load", dir, sizeof dir, err));
        mmt_status s = mmt_private_dir(dir, err); /* and every folder above it: no one else's */
        if (s != MMT_OK) {
            rmdir(dir);
            return s;
        }
    }
    /* The copy is checked against the binary's digest first: a file planted or damaged
     * under that name is replaced, never run. (Loading it through /proc/self/fd would close
     * the window between check and load, but the loader takes equal names for the same
     * library; the window is in a directory only this user can write: mmt_cache_dir.) */
    mmt_status s = mmt_sha256_hex(bin, size, hex, err);
    snprintf(path, sizeof path, "%s/%s.so", dir, hex);
    if (s == MMT_OK) s = mmt_file_ensure(path, bin, size, hex, err);
    void *h = s == MMT_OK ? dlopen(path, RTLD_NOW | RTLD_LOCAL) : NULL;
    if (own) { /* the mapping stays when the file goes */
        unlink(path);
        rmdir(dir);
    }
    FORWARD_IF_ERROR(s);
    RETURN_ERROR_IF(!h, err, MMT_LOAD, "dlopen %s: %s", path, dlerror());
    void *fn = dlsym(h, entry);
    if (!fn) {
        dlclose(h);
        return mmt_err_set(err, MMT_LOAD, "%s has no entry point %s", path, entry);
    }
    mmt_module *m = malloc(sizeof *m);
    if (!m) {
        dlclose(h);
        return mmt_err_set(err, MMT_OUT_OF_MEMORY, "out of memory");
    }
    m->handle = h;
    *(void **)&m->fn = fn;
    *(void **)&m->omp_get_max_threads = dlsym(h, "omp_get_max_threads");
    *(void **)&m->omp_set_num_threads = dlsym(h, "omp_set_num_threads");
    if (!m->omp_get_max_threads || !m->omp_set_num_threads) m->omp_get_max_threads = NULL;
    *out = m;
    return MMT_OK;
}

/* Idle threads spin: libgomp's for some 300,000 pauses after a parallel region (several ms
 * where a pause is slow), OpenBLAS's for 2^28 cycles after a call. Beside each other in one
 * process they take the cores the other library's next call needs (bench/coresident: either
 * up to 2x slower on 2 cores, 17x on 16). Each runtime reads its setting once, when it
 * loads, so where the application has not chosen one and the runtime is not loaded yet both
 * are bounded: OPENBLAS_THREAD_TIMEOUT 4 (2^4 cycles: its threads sleep at once; with 2^20,
 * libmmtuned's calls ran 2.1-2.2x their time alone on 16 cores, with 2^4 both libraries
 * stayed within 1.13x and OpenBLAS's own calls did not slow), and GOMP_SPINCOUNT 10000 (a
 * fraction of a millisecond), 300 on 4 cores or fewer, where a spinning thread holds a core
 * the other library's next call needs: on 2 cores, 10000 left OpenBLAS's 128^3 calls 8x
 * their time alone beside libmmtuned, 300 1.23x, and libmmtuned's own calls did not slow
 * down to 300 (at 100 its 128^3 calls took 4x as long). BENCHMARKS.md has the figures. In a
 * constructor: before the application's threads, which setenv would race. */
static int loaded(const char *lib)
{
    void *h = dlopen(lib, RTLD_NOW | RTLD_NOLOAD);
    if (h) dlclose(h);
    return h != NULL;
}

__attribute__((constructor)) static void bound_idle_spinning(void)
{
    if (!getenv("OMP_WAIT_POLICY") && !getenv("GOMP_SPINCOUNT") && !loaded("libgomp.so.1"))
        setenv("GOMP_SPINCOUNT", mmt_usable_cores() <= 4 ? "300" : "10000", 0);
    if (!getenv("OPENBLAS_THREAD_TIMEOUT") && !loaded("libopenblas.so.0") && !loaded("libopenblas.so"))
        setenv("OPENBLAS_THREAD_TIMEOUT", "4", 0);
}

/* libgomp ends the process where it cannot create a thread ("Thread creation failed":
 * RLIMIT_AS, RLIMIT_NPROC, a process table full), and a GEMM must not. libgomp keeps a pool
 * of threads for each thread that starts a parallel region, so each calling thread, before
 * its first kernel on more threads than it has seen possible, creates as many plain threads
 * (libgomp's default stack) and joins them; where fewer could be made, its kernels run on
 * those and itself only. */
static _Thread_local int threads_possible = 1, threads_limited; /* limited: never asked again */

static void *idle_thread(void *arg) { return arg; }

static int threads_for(int want)
{
    if (want > threads_possible && !threads_limited) {
        enum { PROBE = 256 }; /* beyond as many made, the rest is taken on trust */
        pthread_t t[PROBE];
        const int ask = want - 1 < PROBE ? want - 1 : PROBE;
        int made = 0;
        while (made < ask && pthread_create(&t[made], NULL, idle_thread, NULL) == 0) made++;
        for (int i = 0; i < made; i++) pthread_join(t[i], NULL);
        threads_limited = made < ask;
        threads_possible = threads_limited ? made + 1 : want;
    }
    return want < threads_possible ? want : threads_possible;
}

static mmt_status cpu_launch(mmt_module *mod, const mmt_gemm_params *p, const mmt_geometry *g, void *stream,
                             mmt_err *err)
{
    (void)stream;
    FORWARD_IF_ERROR(mmt_launch_check(NULL, p, g, err)); /* the workspace; CPU instances state no needs */
    /* the calling thread's OpenMP count, lowered for this call only where threads cannot be
     * had: the application's own setting is put back. A GEMM the kernel runs on one thread
     * asks nothing (a thread's first call would make threads to see whether it can: on 16
     * cores, 15 for each new thread of the application) */
    const double mnk = (double)p->m * (double)p->n * (double)p->k;
    const int want = mod->omp_get_max_threads && mnk > MMT_CPU_ONE_THREAD_MNK ? mod->omp_get_max_threads() : 1,
              can = threads_for(want);
    if (can < want) mod->omp_set_num_threads(can);
    const int failed = mod->fn(p) != 0;
    if (can < want) mod->omp_set_num_threads(want);
    RETURN_ERROR_IF(failed, err, MMT_OUT_OF_MEMORY, "the kernel could not allocate its packing buffers; C is untouched");
    return MMT_OK;
}

static void cpu_unload(mmt_module *mod)
{
    if (!mod) return;
    dlclose(mod->handle);
    free(mod);
}

static mmt_status cpu_alloc(const mmt_device_info *dev, size_t size, void **ptr, mmt_err *err)
{
    (void)dev;
    size_t n = (size + 63) / 64 * 64;
    *ptr = aligned_alloc(64, n ? n : 64);
    RETURN_ERROR_IF(!*ptr, err, MMT_OUT_OF_MEMORY, "cannot allocate %zu bytes", size);
    return MMT_OK;
}

static void cpu_free(void *ptr) { free(ptr); }

static mmt_status cpu_copy(void *dst, const void *src, size_t size, mmt_copy_dir dir, mmt_err *err)
{
    (void)dir;
    (void)err;
    memmove(dst, src, size);
    return MMT_OK;
}

static mmt_status cpu_sync(void *stream, mmt_err *err)
{
    (void)stream;
    (void)err;
    return MMT_OK;
}

static mmt_status cpu_elapsed(mmt_status (*run)(void *user, mmt_err *err), void *user, int reps, void *stream,
                              double *ms, mmt_err *err)
{
    (void)stream;
    double t0 = mmt_now_s();
    for (int i = 0; i < reps; i++) FORWARD_IF_ERROR(run(user, err));
    *ms = 1e3 * (mmt_now_s() - t0) / (reps > 0 ? reps : 1);
    return MMT_OK;
}

const mmt_backend mmt_backend_cpu = {
    .version = MMT_BACKEND_VERSION,
    .name = "cpu",
    .device_count = cpu_device_count,
    .probe = cpu_probe,
    .compile = cpu_compile,
    .compiler_id = cpu_compiler_id,
    .load = cpu_load,
    .launch = cpu_launch,
    .unload = cpu_unload,
    .alloc = cpu_alloc,
    .free = cpu_free,
    .copy = cpu_copy,
    .sync = cpu_sync,
    .elapsed = cpu_elapsed,
};
