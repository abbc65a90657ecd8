/* forward.c - every BLAS routine this library does not serve (forwarded.h) goes to the
 * system BLAS. Each is a trampoline that jumps to the system BLAS's routine of the same
 * name, leaving the arguments (registers and stack) as the caller made them, so one piece
 * of code forwards any signature; the first call finds the system BLAS and fills every
 * trampoline's slot. The trampolines are x86-64 code.
 *
 * Which library, in order (the first that opens, has dgemm_ and is not this library):
 *   1. $MMTUNE_BLAS_FORWARD (a path, or a name the dynamic linker looks up), alone;
 *   2. the system's libblas.so.3 link resolved to its file (what Debian's alternatives
 *      select), unless that is this library;
 *   3. libopenblas.so.0;
 *   4. Debian's reference BLAS, <libdir>/blas/libblas.so.3.
 * It is opened by path with RTLD_LOCAL, so its symbols never replace this library's, and
 * a symbol that resolves back into this library counts as missing (no loops). A routine
 * the library lacks aborts with a message naming both when it is first called. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blas.h"
#include "forwarded.h"

#ifndef MMTB_SYSTEM_LIBDIR
#define MMTB_SYSTEM_LIBDIR "/usr/lib/x86_64-linux-gnu"
#endif

#if !defined(__x86_64__)
#error "libmmtuned_blas's forwarding trampolines are x86-64 code"
#endif

/* One slot per forwarded routine: the system BLAS's address, NULL until the first call. */
#define SLOT(name) __attribute__((visibility("hidden"), used)) void *mmtb_slot_##name;
MMTB_FORWARDED(SLOT)
#undef SLOT

static const struct {
    const char *name;
    void **slot;
} slots[] = {
#define ENTRY(name) {#name, &mmtb_slot_##name},
    MMTB_FORWARDED(ENTRY)
#undef ENTRY
};

static pthread_once_t once = PTHREAD_ONCE_INIT;
static void *lib;               /* the system BLAS, NULL if none was found */
static char lib_path[PATH_MAX]; /* its name as opened */
static char tried[1024];        /* what was tried, for the message when none was found */

/* Whether address p lies in this library. */
static int ours(const void *p)
{
    Dl_info mine, theirs;
    return dladdr((const void *)ours, &mine) && dladdr(p, &theirs) && mine.dli_fbase == theirs.dli_fbase;
}

static void note_tried(const char *what, const char *why)
{
    size_t n = strlen(tried);
    snprintf(tried + n, sizeof tried - n, "%s%s (%s)", n ? ", " : "", what, why);
}

static int try_open(const char *path)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        note_tried(path, "does not open");
        return 0;
    }
    void *gemm = dlsym(h, "dgemm_");
    if (!gemm || ours(gemm)) {
        note_tried(path, gemm ? "is this library" : "has no dgemm_");
        dlclose(h);
        return 0;
    }
    lib = h;
    snprintf(lib_path, sizeof lib_path, "%s", path);
    return 1;
}

static void find_system_blas(void)
{
    const char *env = getenv("MMTUNE_BLAS_FORWARD");
    char real[PATH_MAX];
    if (env && *env) try_open(env);
    else if (!(realpath(MMTB_SYSTEM_LIBDIR "/libblas.so.3", real) && try_open(real)) &&
             !try_open("libopenblas.so.0"))
        try_open(MMTB_SYSTEM_LIBDIR "/blas/libblas.so.3");
    for (size_t i = 0; lib && i < sizeof slots / sizeof *slots; i++) {
        void *p = dlsym(lib, slots[i].name);
        *slots[i].slot = p && !ours(p) ? p : NULL;
    }
}

/* Called by the trampolines' slow path with every argument register saved. */
__attribute__((visibility("hidden"), used)) void mmtb_forward_init(void) { pthread_once(&once, find_system_blas); }

const char *mmtb_system_blas(void)
{
    mmtb_forward_init();
    return lib_path;
}

void *mmtb_system_symbol(const char *name)
{
    mmtb_forward_init();
    void *p = lib ? dlsym(lib, name) : NULL;
    return p && !ours(p) ? p : NULL;
}

void mmtb_forward_missing(const char *name)
{
    if (lib)
        fprintf(stderr, "libmmtuned_blas: %s is forwarded to the system BLAS, and %s has no %s\n", name, lib_path,
                name);
    else
        fprintf(stderr,
                "libmmtuned_blas: %s is forwarded to the system BLAS, and none was found (tried %s); set "
                "MMTUNE_BLAS_FORWARD to the path of one\n",
                name, tried);
    abort();
}

/* The slow path: saves the argument registers (integer, vector and %al, the vector count
 * of a variadic call), fills the slots once, restores them and returns to the trampoline. */
__asm__(".text\n"
        ".p2align 4\n"
        "mmtb_forward_slow:\n"
        "    pushq %rbp\n"
        "    movq %rsp, %rbp\n"
        "    subq $192, %rsp\n"
        "    andq $-16, %rsp\n"
        "    movq %rdi, 0(%rsp)\n"
        "    movq %rsi, 8(%rsp)\n"
        "    movq %rdx, 16(%rsp)\n"
        "    movq %rcx, 24(%rsp)\n"
        "    movq %r8, 32(%rsp)\n"
        "    movq %r9, 40(%rsp)\n"
        "    movq %rax, 48(%rsp)\n"
        "    movaps %xmm0, 64(%rsp)\n"
        "    movaps %xmm1, 80(%rsp)\n"
        "    movaps %xmm2, 96(%rsp)\n"
        "    movaps %xmm3, 112(%rsp)\n"
        "    movaps %xmm4, 128(%rsp)\n"
        "    movaps %xmm5, 144(%rsp)\n"
        "    movaps %xmm6, 160(%rsp)\n"
        "    movaps %xmm7, 176(%rsp)\n"
        "    call mmtb_forward_init\n"
        "    movq 0(%rsp), %rdi\n"
        "    movq 8(%rsp), %rsi\n"
        "    movq 16(%rsp), %rdx\n"
        "    movq 24(%rsp), %rcx\n"
        "    movq 32(%rsp), %r8\n"
        "    movq 40(%rsp), %r9\n"
        "    movq 48(%rsp), %rax\n"
        "    movaps 64(%rsp), %xmm0\n"
        "    movaps 80(%rsp), %xmm1\n"
        "    movaps 96(%rsp), %xmm2\n"
        "    movaps 112(%rsp), %xmm3\n"
        "    movaps 128(%rsp), %xmm4\n"
        "    movaps 144(%rsp), %xmm5\n"
        "    movaps 160(%rsp), %xmm6\n"
        "    movaps 176(%rsp), %xmm7\n"
        "    movq %rbp, %rsp\n"
        "    popq %rbp\n"
        "    ret\n");

/* A trampoline: jump through the slot; an empty one takes the slow path once, and if it is
 * still empty the routine is missing (the stack realigned for a call that never returns).
 * %r11 is free at a call: it carries no argument. */
#define TRAMPOLINE(name)                                                 \
    __asm__(".text\n"                                                    \
            ".globl " #name "\n"                                         \
            ".type " #name ", @function\n"                               \
            ".p2align 4\n" #name ":\n"                                   \
            "    movq mmtb_slot_" #name "(%rip), %r11\n"                 \
            "    testq %r11, %r11\n"                                     \
            "    jz .Lslow_" #name "\n"                                  \
            "    jmp *%r11\n"                                            \
            ".Lslow_" #name ":\n"                                        \
            "    call mmtb_forward_slow\n"                               \
            "    movq mmtb_slot_" #name "(%rip), %r11\n"                 \
            "    testq %r11, %r11\n"                                     \
            "    jz .Lmissing_" #name "\n"                               \
            "    jmp *%r11\n"                                            \
            ".Lmissing_" #name ":\n"                                     \
            "    leaq .Lname_" #name "(%rip), %rdi\n"                    \
            "    subq $8, %rsp\n"                                        \
            "    call mmtb_forward_missing\n"                            \
            ".size " #name ", .-" #name "\n"                             \
            ".section .rodata\n"                                         \
            ".Lname_" #name ": .string \"" #name "\"\n"                  \
            ".text\n");
MMTB_FORWARDED(TRAMPOLINE)
#undef TRAMPOLINE
