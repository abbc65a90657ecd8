/* backend_cuda_compile.c - the CUDA backend's compiling: a template's source and its -D
 * definitions to a cubin by NVRTC, for a device's architecture or a named one (no GPU
 * needed), and the string that names the compiler in cache keys; NVRTC opened with dlopen
 * (backend_cuda.c reads its version and availability through cuda_driver.h). */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_driver.h"

#if !MMT_HAVE_CUDA_HEADERS
/* Built without the CUDA toolkit's headers: no NVRTC. */
mmt_status mmt_cuda_compile_for_arch(const char *arch, const char *source, const char *defines, void **bin,
                                     size_t *size, char **log, mmt_err *err)
{
    (void)arch, (void)source, (void)defines;
    *bin = NULL, *size = 0;
    if (log) *log = NULL;
    return mmt_err_set(err, MMT_UNSUPPORTED, "NVRTC is not available: built without the CUDA headers");
}
#else

#define STR_(x) #x
#define XSTR(x) STR_(x)

/* ---- opening NVRTC ----------------------------------------------------------------------- */

struct mmt_nvrtc mmt_nvrtc;
pthread_once_t mmt_nvrtc_once = PTHREAD_ONCE_INIT;
char mmt_nvrtc_why[512]; /* empty when the library opened */

void mmt_nvrtc_open(void)
{
    static const char *const names[] = {"libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12",
                                        "/usr/local/cuda/lib64/libnvrtc.so", "/usr/local/cuda/lib64/libnvrtc.so.13",
                                        "/usr/local/cuda/lib64/libnvrtc.so.12", NULL};
    mmt_nvrtc.lib = mmt_cuda_open_first(names, mmt_nvrtc_why, sizeof mmt_nvrtc_why);
    if (!mmt_nvrtc.lib) return;
#define LOAD_FN_(field, sym)                                                                      \
    if (!(*(void **)&mmt_nvrtc.field = dlsym(mmt_nvrtc.lib, XSTR(sym)))) {                        \
        snprintf(mmt_nvrtc_why, sizeof mmt_nvrtc_why, "libnvrtc lacks %s (too old?)", XSTR(sym)); \
        goto fail;                                                                                \
    }
    NVRTC_FUNCS(LOAD_FN_)
#undef LOAD_FN_
    if (mmt_nvrtc.Version(&mmt_nvrtc.major, &mmt_nvrtc.minor) != NVRTC_SUCCESS) {
        snprintf(mmt_nvrtc_why, sizeof mmt_nvrtc_why, "nvrtcVersion failed");
        goto fail;
    }
    return;
fail:
    dlclose(mmt_nvrtc.lib);
    mmt_nvrtc.lib = NULL;
}

/* ---- compiling ------------------------------------------------------------------------- */

/* Fixed NVRTC options (besides --gpu-architecture and the -D definitions). No
 * --use_fast_math: results must be IEEE (verification trusts them). */
static const char *const nvrtc_flags[] = {"-std=c++17", "-default-device", "-lineinfo", NULL};

mmt_status mmt_cuda_compile_for_arch(const char *arch, const char *source, const char *defines, void **bin,
                                     size_t *size, char **log, mmt_err *err)
{
    *bin = NULL;
    *size = 0;
    if (log) *log = NULL;
    pthread_once(&mmt_nvrtc_once, mmt_nvrtc_open);
    RETURN_ERROR_IF(!mmt_nvrtc.lib, err, MMT_UNSUPPORTED, "NVRTC is not available: %s", mmt_nvrtc_why);

    /* options: --gpu-architecture=ARCH, the fixed flags, -DNAME=VALUE per definition */
    char *defs = strdup(defines ? defines : "");
    size_t ntok = 1;
    for (const char *s = defs ? defs : ""; *s; s++) ntok += *s == ' ';
    const char **opts = calloc(ntok + 16, sizeof *opts);
    char **owned = calloc(ntok + 2, sizeof *owned);
    if (!defs || !opts || !owned) {
        free(defs), free(opts), free(owned);
        return mmt_err_set(err, MMT_OUT_OF_MEMORY, "out of memory");
    }
    int nopt = 0, nown = 0;
    char archopt[96];
    snprintf(archopt, sizeof archopt, "--gpu-architecture=%s", arch);
    opts[nopt++] = archopt;
    for (int i = 0; nvrtc_flags[i]; i++) opts[nopt++] = nvrtc_flags[i];
    const char *verbose = getenv("MMTUNE_PTXAS_VERBOSE"); /* register / spill counts in the log */
    if (verbose && *verbose && strcmp(verbose, "0") != 0) opts[nopt++] = "--ptxas-options=-v";
    char *save = NULL;
    mmt_status st = MMT_OK;
    nvrtcProgram prog = NULL;
    for (char *tok = strtok_r(defs, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
        size_t n = strlen(tok) + 3;
        if (!(owned[nown] = malloc(n))) { /* a definition left out would build another kernel */
            st = mmt_err_set(err, MMT_OUT_OF_MEMORY, "out of memory");
            goto done;
        }
        snprintf(owned[nown], n, "-D%s", tok);
        opts[nopt++] = owned[nown++];
    }

    nvrtcResult rc = mmt_nvrtc.CreateProgram(&prog, source, "mmt_template.cu", 0, NULL, NULL);
    if (rc != NVRTC_SUCCESS) {
        st = mmt_err_set(err, rc == NVRTC_ERROR_OUT_OF_MEMORY ? MMT_OUT_OF_MEMORY : MMT_COMPILE,
                         "nvrtcCreateProgram: %s", mmt_nvrtc.GetErrorString(rc));
        goto done;
    }
    nvrtcResult crc = mmt_nvrtc.CompileProgram(prog, nopt, opts);
    size_t logsize = 0;
    char *text = NULL;
    if (mmt_nvrtc.GetProgramLogSize(prog, &logsize) == NVRTC_SUCCESS && logsize > 1 && (text = malloc(logsize + 1))) {
        if (mmt_nvrtc.GetProgramLog(prog, text) == NVRTC_SUCCESS) text[logsize] = '\0';
        else text[0] = '\0';
    }
    if (crc != NVRTC_SUCCESS) {
        st = mmt_err_set(err, MMT_COMPILE, "nvrtc (%s, %s): %s: %.3500s", arch, defines ? defines : "",
                         mmt_nvrtc.GetErrorString(crc), text ? text : "");
    } else {
        size_t n = 0;
        rc = mmt_nvrtc.GetCUBINSize(prog, &n);
        if (rc != NVRTC_SUCCESS || n == 0) {
            st = mmt_err_set(err, MMT_COMPILE, "nvrtcGetCUBINSize: %s (is %s a real architecture?)",
                             rc != NVRTC_SUCCESS ? mmt_nvrtc.GetErrorString(rc) : "empty cubin", arch);
        } else if (!(*bin = malloc(n))) {
            st = mmt_err_set(err, MMT_OUT_OF_MEMORY, "out of memory");
        } else if ((rc = mmt_nvrtc.GetCUBIN(prog, *bin)) != NVRTC_SUCCESS) {
            free(*bin);
            *bin = NULL;
            st = mmt_err_set(err, MMT_COMPILE, "nvrtcGetCUBIN: %s", mmt_nvrtc.GetErrorString(rc));
        } else {
            *size = n;
        }
    }
    if (log) *log = text;
    else free(text);
done:
    if (prog) mmt_nvrtc.DestroyProgram(&prog);
    for (int i = 0; i < nown; i++) free(owned[i]);
    free(owned);
    free(opts);
    free(defs);
    return st;
}

/* An instance that asks for the arch-specific target (MMT_ARCH_SPECIFIC=1 among its
 * definitions: wgmma, setmaxnreg) is built for sm_XYa, which runs on that exact device only. */
mmt_status mmt_cuda_compile(const mmt_device_info *dev, const char *source, const char *defines, void **bin,
                            size_t *size, char **log, mmt_err *err)
{
    char arch[80];
    const char *at = defines ? strstr(defines, "MMT_ARCH_SPECIFIC=1") : NULL;
    int specific = at && (at == defines || at[-1] == ' ') && (at[19] == '\0' || at[19] == ' ');
    snprintf(arch, sizeof arch, "%s%s", dev->arch, specific ? "a" : "");
    return mmt_cuda_compile_for_arch(arch, source, defines, bin, size, log, err);
}

/* "nvrtc-13.0 sm_90 -std=c++17 ...": one stable string per architecture. */
const char *mmt_cuda_compiler_id(const mmt_device_info *dev)
{
    static struct {
        char arch[64];
        char id[256];
    } ids[16];
    static int n_ids;
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    pthread_once(&mmt_nvrtc_once, mmt_nvrtc_open);
    pthread_mutex_lock(&lock);
    const char *out = NULL;
    for (int i = 0; i < n_ids && !out; i++)
        if (strcmp(ids[i].arch, dev->arch) == 0) out = ids[i].id;
    if (!out) {
        int i = n_ids < 16 ? n_ids++ : 15;
        snprintf(ids[i].arch, sizeof ids[i].arch, "%s", dev->arch);
        size_t n = snprintf(ids[i].id, sizeof ids[i].id, "nvrtc-%d.%d %s", mmt_nvrtc.major, mmt_nvrtc.minor, dev->arch);
        for (int f = 0; nvrtc_flags[f] && n < sizeof ids[i].id; f++)
            n += snprintf(ids[i].id + n, sizeof ids[i].id - n, " %s", nvrtc_flags[f]);
        out = ids[i].id;
    }
    pthread_mutex_unlock(&lock);
    return out;
}

#endif /* MMT_HAVE_CUDA_HEADERS */
