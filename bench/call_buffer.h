/* call_buffer.h - operands for the benchmarks that call libmmtuned as an application does
 * (first_call.c, call_cost.c): host memory, or the GPU's. */
#ifndef MMT_BENCH_CALL_BUFFER_H
#define MMT_BENCH_CALL_BUFFER_H

#include <stdio.h>
#include <stdlib.h>

#include "backend.h"

/* bytes of small values, on gpu's device (NULL: in host memory); exits with what failed,
 * after `who`. */
static void *call_buffer(const char *who, const mmt_backend *gpu, const mmt_device_info *dev, size_t bytes)
{
    float *host = malloc(bytes);
    if (!host) {
        fprintf(stderr, "%s: out of memory\n", who);
        exit(1);
    }
    for (size_t i = 0; i < bytes / sizeof(float); i++) host[i] = (float)(i % 7) / 8 - 0.375f;
    if (!gpu) return host;
    void *d = NULL;
    mmt_err err;
    if (gpu->alloc(dev, bytes, &d, &err) != MMT_OK || gpu->copy(d, host, bytes, MMT_H2D, &err) != MMT_OK) {
        fprintf(stderr, "%s: %s\n", who, err.msg);
        exit(1);
    }
    free(host);
    return d;
}

#endif
