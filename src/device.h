/* device.h - what a backend reports about a device: identity for the database, and the
 * named integer properties that search-space expressions read as `device.NAME`. */
#ifndef MMT_DEVICE_H
#define MMT_DEVICE_H

#include <stddef.h>
#include <stdint.h>

#define MMT_DEVICE_MAX_PROPS 32

typedef struct mmt_device_prop {
    char name[48]; /* without the "device." prefix: "max_threads_per_block" */
    int64_t value;
} mmt_device_prop;

typedef struct mmt_device_info {
    char backend[16];      /* "cpu", "cuda" */
    int ordinal;           /* GPU index; 0 for the CPU */
    char name[128];        /* "AMD EPYC", "NVIDIA H100 80GB HBM3" */
    char arch[64];         /* "x86_64-avx2", "sm_90" */
    char fingerprint[512]; /* name + arch + compiler/driver versions: results never leak across it */
    int n_props;
    mmt_device_prop props[MMT_DEVICE_MAX_PROPS];
} mmt_device_info;

/* Adds or replaces a property. */
void mmt_device_set_prop(mmt_device_info *d, const char *name, int64_t value);
/* Looks a property up; returns 0 and stores it, or -1 if absent. */
int mmt_device_get_prop(const mmt_device_info *d, const char *name, size_t len, int64_t *value);

/* The host's cores this process may run on (its affinity mask, as libgomp counts them for
 * its threads), at least 1. */
int mmt_usable_cores(void);

#endif
