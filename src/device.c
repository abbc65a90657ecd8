/* device.c - device property table, and the cores this process may use (see device.h). */
#define _GNU_SOURCE
#include "device.h"

#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void mmt_device_set_prop(mmt_device_info *d, const char *name, int64_t value)
{
    for (int i = 0; i < d->n_props; i++)
        if (strcmp(d->props[i].name, name) == 0) {
            d->props[i].value = value;
            return;
        }
    if (d->n_props < MMT_DEVICE_MAX_PROPS) {
        snprintf(d->props[d->n_props].name, sizeof d->props[0].name, "%s", name);
        d->props[d->n_props++].value = value;
    }
}

int mmt_device_get_prop(const mmt_device_info *d, const char *name, size_t len, int64_t *value)
{
    for (int i = 0; i < d->n_props; i++)
        if (strlen(d->props[i].name) == len && memcmp(d->props[i].name, name, len) == 0) {
            *value = d->props[i].value;
            return 0;
        }
    return -1;
}

int mmt_usable_cores(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) return CPU_COUNT(&set);
    const long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}
