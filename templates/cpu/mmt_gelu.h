/* mmt_gelu.h - GELU's tanh form on the host, in fp32 in arithmetic a compiler vectorizes and
 * in fp64: the CPU template's store (spliced in where included) and src/epilogue.c's pass
 * (which includes it) compute it alike. GELU(x) = 0.5 x (1 + tanh(u)), u = sqrt(2/pi) (x +
 * 0.044715 x^3) = x / (1 + e^(-2 u)): the same value with one exponential (which overflows
 * for large negative x: -0). */
#include <math.h>
#include <stdint.h>
#include <string.h>

static inline double mmt_gelu_f64(double x)
{
    return x / (1 + exp(-1.5957691216057308 * (x + 0.044715 * x * x * x)));
}

/* e^x in fp32 for |x| <= 80 (beyond, e^80 or e^-80, which is all GELU needs: 1 + e^-80 is
 * 1 and x / e^80 as good as 0) within about 2 units in the last place, in arithmetic a
 * compiler vectorizes (libm's expf is a call per element): x = r ln 2 + f ln 2 with r whole,
 * |f| <= 1/2, 2^f by its Taylor series to degree 7 (error 3e-9), 2^r into the exponent
 * field. r comes from the low bits of x log2(e) + 1.5 2^23 (rounded to a whole number
 * there), not from a conversion, which a NaN would make undefined. */
static inline float mmt_exp_f32(float x)
{
    x = x > -80.0f ? x : -80.0f; /* the forms of maxps and minps: a NaN x becomes a number here */
    x = x < 80.0f ? x : 80.0f;  /* within e^-80 and e^80 no result is subnormal (slow to make) */
    const float magic = 12582912.0f, shifted = x * 1.44269504f + magic, r = shifted - magic;
    const float f = (x * 1.44269504f - r) * 0.693147181f;
    float p = 1.98412698e-4f;
    p = p * f + 1.38888889e-3f, p = p * f + 8.33333333e-3f, p = p * f + 4.16666667e-2f;
    p = p * f + 1.66666667e-1f, p = p * f + 0.5f, p = p * f + 1.0f, p = p * f + 1.0f;
    int32_t bits, magic_bits;
    memcpy(&bits, &shifted, sizeof bits), memcpy(&magic_bits, &magic, sizeof magic_bits);
    const int32_t e = (bits - magic_bits + 127) << 23;
    float scale;
    memcpy(&scale, &e, sizeof scale);
    return p * scale;
}

/* a NaN x stays NaN through the dividend */
static inline float mmt_gelu_f32(float x)
{
    return x / (1 + mmt_exp_f32(-1.59576912f * (x + 0.044715f * x * x * x)));
}
