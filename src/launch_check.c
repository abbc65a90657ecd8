/* launch_check.c - a launch against what its instance needs (backend.h): every backend calls
 * it before it runs anything, so a launch the instance was not built for is refused with a
 * status instead of trapping on the device (which ends the application's CUDA context) or
 * computing garbage. */
#include <stdint.h>

#include "backend.h"

static const char *const side[2] = {"A", "B"};

mmt_status mmt_launch_check(const mmt_launch_needs *needs, const mmt_gemm_params *p, const mmt_geometry *g,
                            mmt_err *err)
{
    if (g && g->workspace > 0) {
        RETURN_ERROR_IF(!p->workspace || p->workspace_size < g->workspace, err, MMT_INVALID_ARGUMENT,
                        "the launch has %lld bytes of workspace, its geometry asks for %lld: refused before it ran",
                        (long long)(p->workspace ? p->workspace_size : 0), (long long)g->workspace);
        RETURN_ERROR_IF((uintptr_t)p->workspace % 16, err, MMT_INVALID_ARGUMENT,
                        "the launch's workspace is not 16-byte aligned: refused before it ran");
    }
    if (!needs || needs->version == 0) return MMT_OK; /* the instance states nothing */
    RETURN_ERROR_IF(needs->version != MMT_LAUNCH_NEEDS_VERSION, err, MMT_INVALID_ARGUMENT,
                    "the instance states its needs in version %d, this library reads %d: refused before it ran",
                    needs->version, MMT_LAUNCH_NEEDS_VERSION);
    const int trans[2] = {p->trans_a != 0, p->trans_b != 0}, want_trans[2] = {needs->trans_a, needs->trans_b};
    const int want_align[2] = {needs->align_a, needs->align_b};
    const uintptr_t ptr[2] = {(uintptr_t)p->a, (uintptr_t)p->b};
    const int64_t ld[2] = {p->lda, p->ldb};
    for (int o = 0; o < 2; o++) {
        RETURN_ERROR_IF(want_trans[o] >= 0 && trans[o] != want_trans[o], err, MMT_INVALID_ARGUMENT,
                        "the instance was built for %s %s, the launch's is %s: refused before it ran", side[o],
                        want_trans[o] ? "transposed" : "as stored", trans[o] ? "transposed" : "as stored");
        const int have = mmt_align_bytes(ptr[o], ld[o] * needs->elem_bytes);
        RETURN_ERROR_IF(want_align[o] > 1 && have < want_align[o], err, MMT_INVALID_ARGUMENT,
                        "the instance was built for %s's address and row pitch aligned to %d bytes, the launch's "
                        "are aligned to %d: refused before it ran",
                        side[o], want_align[o], have);
    }
    RETURN_ERROR_IF(needs->max_m > 0 && p->m > needs->max_m, err, MMT_INVALID_ARGUMENT,
                    "the instance computes at most %lld rows, the launch has M = %lld: refused before it ran",
                    (long long)needs->max_m, (long long)p->m);
    RETURN_ERROR_IF(needs->max_n > 0 && p->n > needs->max_n, err, MMT_INVALID_ARGUMENT,
                    "the instance computes at most %lld columns, the launch has N = %lld: refused before it ran",
                    (long long)needs->max_n, (long long)p->n);
    return MMT_OK;
}
