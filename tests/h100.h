/* h100.h - an H100 SXM as the CUDA backend probes it, for tests that need the properties of
 * a GPU without one (NVRTC compiles, search spaces evaluated for it). */
#ifndef MMT_TEST_H100_H
#define MMT_TEST_H100_H

#include <stdio.h>
#include <string.h>

#include "device.h"

static void h100(mmt_device_info *d)
{
    memset(d, 0, sizeof *d);
    snprintf(d->backend, sizeof d->backend, "cuda");
    snprintf(d->name, sizeof d->name, "NVIDIA H100 80GB HBM3 (test)");
    snprintf(d->arch, sizeof d->arch, "sm_90");
    mmt_device_set_prop(d, "cc_major", 9);
    mmt_device_set_prop(d, "cc_minor", 0);
    mmt_device_set_prop(d, "max_threads_per_block", 1024);
    mmt_device_set_prop(d, "max_smem_per_block", 232448);
    mmt_device_set_prop(d, "smem_per_sm", 233472);
    mmt_device_set_prop(d, "regs_per_block", 65536);
    mmt_device_set_prop(d, "regs_per_sm", 65536);
    mmt_device_set_prop(d, "max_threads_per_sm", 2048);
    mmt_device_set_prop(d, "sm_count", 132);
    mmt_device_set_prop(d, "warp_size", 32);
    mmt_device_set_prop(d, "l2_bytes", 52428800);
}

#endif
