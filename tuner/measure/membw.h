/* membw.h - the memory bandwidth of this host's CPU, measured as STREAM does (the triad
 * a = b + s c over arrays much larger than the caches, on every CPU, the best of several
 * passes): for mmtune report's roofline, which nothing recorded can give for a CPU. */
#ifndef MMT_MEMBW_H
#define MMT_MEMBW_H

#include <stddef.h>

#include "device.h"

/* Measures with d's CPUs (its props: cores, l3_bytes); returns GB/s (0: the arrays could
 * not be had) and says in how what was measured and how. */
double mmt_membw_measure(const mmt_device_info *d, char *how, size_t size);

#endif
