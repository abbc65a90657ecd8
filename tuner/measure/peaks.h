/* peaks.h - a device's ceilings for a roofline: the peak arithmetic rate of a precision
 * mode and the memory bandwidth, derived from the properties its database row records
 * (GPUs: SMs, compute capability, the driver's clocks and bus width; CPUs: logical CPUs,
 * ISA, clock), each with the words that say how it was derived or why it is not known.
 * Pure functions of the row: the same row gives the same figures on any machine. */
#ifndef MMT_PEAKS_H
#define MMT_PEAKS_H

#include "device.h"
#include "problem.h"

typedef struct mmt_peak {
    double value;     /* GFLOP/s or GB/s; 0: not known from the record */
    char source[320]; /* how it was derived, or why it is not known */
} mmt_peak;

mmt_peak mmt_peak_flops(const mmt_device_info *d, mmt_mode mode);
mmt_peak mmt_peak_bandwidth(const mmt_device_info *d);

/* The bytes a GEMM moves at least: A and B read once, C written once. */
double mmt_problem_min_bytes(const mmt_problem *p);

#endif
