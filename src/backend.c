/* backend.c - device names to backends. */
#include <stdlib.h>
#include <string.h>

#include "backend.h"

mmt_status mmt_backend_for_device(const char *device, const mmt_backend **be, int *ordinal, mmt_err *err)
{
    if (strcmp(device, "cpu") == 0) {
        *be = &mmt_backend_cpu;
        *ordinal = 0;
        return MMT_OK;
    }
    const char *num = strncmp(device, "cuda:", 5) == 0 ? device + 5 : device;
    char *end;
    long v = strtol(num, &end, 10);
    RETURN_ERROR_IF(!*num || *end || v < 0 || v > 1024, err, MMT_INVALID_ARGUMENT,
                    "unknown device '%s' (cpu, a GPU number, or cuda:N)", device);
    const mmt_backend *cuda = mmt_backend_cuda(err);
    if (!cuda) return err ? err->status : MMT_UNSUPPORTED;
    RETURN_ERROR_IF(v >= cuda->device_count(), err, MMT_NOT_FOUND, "no GPU %ld (this machine has %d)", v,
                    cuda->device_count());
    *be = cuda;
    *ordinal = (int)v;
    return MMT_OK;
}
