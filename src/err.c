/* err.c - the error record (see err.h) and the public status strings. */
#include "err.h"

#include <stdarg.h>
#include <stdio.h>

mmt_status mmt_err_set(mmt_err *err, mmt_status status, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        err->status = status;
    }
    return status;
}

void mmt_err_clear(mmt_err *err)
{
    if (err) {
        err->status = MMT_OK;
        err->msg[0] = '\0';
    }
}

const char *mmt_status_string(mmt_status status)
{
    switch (status) {
#define MMT_STATUS_CASE_(name, num, msg) case MMT_##name: return msg;
        MMT_STATUS_MAP(MMT_STATUS_CASE_)
#undef MMT_STATUS_CASE_
    }
    return "unknown status";
}

const char *mmt_version_string(void)
{
#define MMT_STR2_(x) #x
#define MMT_STR_(x) MMT_STR2_(x)
    return MMT_STR_(MMT_VERSION_MAJOR) "." MMT_STR_(MMT_VERSION_MINOR) "." MMT_STR_(MMT_VERSION_PATCH);
}
