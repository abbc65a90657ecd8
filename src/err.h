/* err.h - the error record shared by the library's modules, and the two macros that
 * keep error paths short (after zstd's RETURN_ERROR_IF / FORWARD_IF_ERROR). A module
 * that fails fills the caller's mmt_err with a status and a detailed message and
 * returns the status; the public API copies the message onto the context. */
#ifndef MMT_ERR_H
#define MMT_ERR_H

#include "mmtuned.h"

typedef struct mmt_err {
    mmt_status status;
    char msg[4096];
} mmt_err;

/* Records status and a printf-style message in err (which may be NULL); returns status. */
mmt_status mmt_err_set(mmt_err *err, mmt_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Empties err. */
void mmt_err_clear(mmt_err *err);

#define RETURN_ERROR_IF(cond, err, status, ...)                     \
    do {                                                            \
        if (cond) return mmt_err_set((err), (status), __VA_ARGS__); \
    } while (0)

#define FORWARD_IF_ERROR(expr)                \
    do {                                      \
        mmt_status fwd_st_ = (expr);          \
        if (fwd_st_ != MMT_OK) return fwd_st_; \
    } while (0)

#endif
