/* half.h - conversions between host floating point and the 16-bit and 8-bit formats problems
 * store as bit patterns: bf16 (8 exponent bits, 7 mantissa bits: the top half of an f32) and
 * IEEE binary16 (f16: 5 and 10). Rounding is to nearest, ties to even, done once from the
 * double (no double rounding through float); overflow gives infinity, NaN stays NaN (a
 * quiet NaN of the same sign), values below the smallest subnormal round to signed zero.
 * Widening back is exact. The host needs this for inputs, verification and tests; kernels
 * convert on the device. */
#ifndef MMT_HALF_H
#define MMT_HALF_H

#include <stdint.h>

uint16_t mmt_bf16_from_double(double x);
uint16_t mmt_f16_from_double(double x);

/* float widens to double exactly, so these round exactly once too. */
static inline uint16_t mmt_bf16_from_float(float x) { return mmt_bf16_from_double((double)x); }
static inline uint16_t mmt_f16_from_float(float x) { return mmt_f16_from_double((double)x); }

double mmt_bf16_to_double(uint16_t bits);
double mmt_f16_to_double(uint16_t bits);

/* The FP8 formats (OCP 8-bit floating point, as the tensor cores read them): e4m3 (4
 * exponent bits, bias 7, 3 mantissa bits; no infinities: 0x7F and 0xFF are NaN, the largest
 * finite is 448, and a value beyond it saturates there, as the kernels' satfinite
 * conversions do) and e5m2 (5 and 2, IEEE's rules as above: overflow gives infinity).
 * Nearest, ties to even, subnormals kept. */
uint8_t mmt_e4m3_from_double(double x);
uint8_t mmt_e5m2_from_double(double x);
double mmt_e4m3_to_double(uint8_t bits);
double mmt_e5m2_to_double(uint8_t bits);

/* The quiet NaNs the conversions produce for a positive NaN. */
#define MMT_BF16_NAN ((uint16_t)0x7FC0)
#define MMT_F16_NAN ((uint16_t)0x7E00)

#endif
