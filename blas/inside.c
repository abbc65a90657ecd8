/* inside.c - the calls inside libmmtuned's context (blas.h), so that the exit closes it only
 * once none is: each thread counts its own in a record of its own, which the thread alone
 * writes, so a call costs no locked instruction. A record is a cache line (one count every
 * thread wrote made two threads' 8x8x8 calls up to 2.5 times slower than one thread's);
 * an exited thread's record goes to the next new thread.
 *
 * The ordering: a call stores its count, then reads whether the exit has begun; the exit
 * stores that it has, then reads the counts. Each side's store must come before its read
 * (else both could miss the other). The exit, which runs once, pays for both with
 * membarrier (Linux 4.14 on: a barrier on every running thread of the process), so a
 * call's store and read are plain ones with a compiler barrier between; where membarrier
 * is refused (an older kernel, a sandbox), a call's store is a sequentially consistent one
 * (one locked instruction, half of what a shared count cost). */
#define _GNU_SOURCE
#include <linux/membarrier.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "blas.h"

typedef struct caller {
    _Alignas(64) atomic_int inside; /* this thread's calls inside (a GEMM can call another) */
    atomic_int taken;               /* by a live thread */
    struct caller *next;
} caller;

static _Atomic(caller *) callers; /* every record made, newest first; none is freed */
static __thread caller *mine;
static pthread_key_t key; /* its destructor gives an exiting thread's record back */
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static atomic_int key_made;
static _Alignas(64) atomic_int closing;
static int by_membarrier;

static void give_back(void *c) { atomic_store(&((caller *)c)->taken, 0); }
static void make_key(void) { atomic_store(&key_made, pthread_key_create(&key, give_back) == 0); }

static long membarrier(int cmd) { return syscall(SYS_membarrier, cmd, 0, 0); }

__attribute__((constructor)) static void register_membarrier(void)
{
    by_membarrier = membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0;
}

/* This thread's record: its own, a given-back one, or a new one (NULL: out of memory). */
static caller *my_caller(void)
{
    if (mine) return mine;
    pthread_once(&key_once, make_key);
    caller *c = atomic_load(&callers);
    for (int free_ = 0; c && !atomic_compare_exchange_strong(&c->taken, &free_, 1); free_ = 0) c = c->next;
    if (!c) {
        c = aligned_alloc(64, sizeof *c);
        if (!c) return NULL;
        atomic_init(&c->inside, 0);
        atomic_init(&c->taken, 1);
        c->next = atomic_load(&callers);
        while (!atomic_compare_exchange_weak(&callers, &c->next, c)) {
        }
    }
    pthread_setspecific(key, c);
    return mine = c;
}

int mmtb_inside_enter(void)
{
    caller *c = my_caller();
    if (!c) return 0;
    const int n = atomic_load_explicit(&c->inside, memory_order_relaxed);
    if (by_membarrier) {
        atomic_store_explicit(&c->inside, n + 1, memory_order_relaxed);
        atomic_signal_fence(memory_order_seq_cst);
    } else {
        atomic_store(&c->inside, n + 1);
    }
    if (!atomic_load_explicit(&closing, by_membarrier ? memory_order_relaxed : memory_order_seq_cst)) return 1;
    atomic_store_explicit(&c->inside, n, memory_order_release);
    return 0;
}

void mmtb_inside_leave(void)
{
    atomic_store_explicit(&mine->inside, atomic_load_explicit(&mine->inside, memory_order_relaxed) - 1,
                          memory_order_release);
}

/* Calls inside, summed over the records. */
static int calls_inside(void)
{
    int sum = 0;
    for (caller *c = atomic_load(&callers); c; c = c->next)
        sum += atomic_load_explicit(&c->inside, memory_order_acquire);
    return sum;
}

int mmtb_inside_close(int wait_ms)
{
    atomic_store(&closing, 1);
    if (by_membarrier) membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED);
    for (int i = 0; i < wait_ms && calls_inside() > 0; i++) nanosleep(&(struct timespec){0, 1000000}, NULL);
    /* no thread's exit may run give_back once the library is unloaded */
    if (atomic_exchange(&key_made, 0)) pthread_key_delete(key);
    return calls_inside() == 0;
}

void mmtb_inside_forked(void)
{
    for (caller *c = atomic_load(&callers); c; c = c->next) atomic_store(&c->inside, 0), atomic_store(&c->taken, 0);
    mine = NULL; /* the one thread takes a record again (its own) */
}
