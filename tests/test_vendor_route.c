/* test_vendor_route.c - the vendor family's configuration texts of its routes (vendor.h):
 * each route's text on a GPU names its routine and reads back as that route; texts written
 * before the routes (ROUTINE=<routine> alone) read as the lean plan; on the CPU the routine
 * is OpenBLAS's and a mode without one has no text. No GPU needed. */
#include <stdio.h>
#include <string.h>

#include "backend.h"
#include "check.h"
#include "vendor.h"

int main(void)
{
    mmt_err err;
    const mmt_backend *cuda = mmt_backend_cuda_compiler(&err);
    if (!cuda) {
        printf("skipped: %s\n", err.msg);
        return 77;
    }
    char buf[96];
    static const struct {
        mmt_mode mode;
        mmt_vendor_route route;
        const char *text;
    } cases[] = {
        {MMT_MODE_TF32, MMT_VENDOR_PLAN, "ROUTINE=cublasGemmEx"},
        {MMT_MODE_TF32, MMT_VENDOR_PLAN_WORKSPACE, "ROUTINE=cublasLtMatmul"},
        {MMT_MODE_TF32, MMT_VENDOR_CALL, "ROUTINE=cublasGemmEx,PLAN=0"},
        {MMT_MODE_F32, MMT_VENDOR_CALL, "ROUTINE=cublasSgemm,PLAN=0"},
        {MMT_MODE_F64, MMT_VENDOR_PLAN, "ROUTINE=cublasDgemm"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *text = mmt_vendor_route_params(cuda, cases[i].mode, cases[i].route, buf, sizeof buf);
        CHECK_EQ_STR(text ? text : "(none)", cases[i].text);
        CHECK_EQ_INT(mmt_vendor_route_of(cases[i].text), cases[i].route);
    }
    /* as libmmtuned's entries print it, and as databases before the routes hold it */
    CHECK_EQ_INT(mmt_vendor_route_of("LIBRARY=cuBLAS 13.1.0,ROUTINE=cublasGemmEx,PLAN=0"), MMT_VENDOR_CALL);
    CHECK_EQ_INT(mmt_vendor_route_of("ROUTINE=cublasGemmEx"), MMT_VENDOR_PLAN);
    CHECK_EQ_INT(mmt_vendor_route_of(NULL), MMT_VENDOR_PLAN);

    const char *cpu = mmt_vendor_route_params(&mmt_backend_cpu, MMT_MODE_F64, MMT_VENDOR_PLAN, buf, sizeof buf);
    CHECK_EQ_STR(cpu ? cpu : "(none)", "ROUTINE=cblas_dgemm");
    CHECK(mmt_vendor_route_params(&mmt_backend_cpu, MMT_MODE_BF16, MMT_VENDOR_PLAN, buf, sizeof buf) == NULL);
    return check_result();
}
