/* half.c - bf16, f16 and FP8 conversions (see half.h). Done by hand rather than with GCC's
 * _Float16 or __bf16: every format goes through one rounding routine, rounding never depends on the
 * floating-point environment or on the compiler's support for the types, and the rules
 * are written where the tests can read them. */
#include "half.h"

#include <math.h>

/* The code of a > 0, finite, in a binary format of `ebits` exponent bits, `mbits` stored
 * mantissa bits and largest exponent emax (the format's bias is the IEEE one), without its
 * sign; -1 where it rounds above the largest finite binade. Nearest, ties to even. */
static int32_t round_code(double a, int ebits, int mbits, int emax)
{
    const int bias = (1 << (ebits - 1)) - 1, emin = 1 - bias;
    int e;
    frexp(a, &e);
    e -= 1; /* a = 1.f * 2^e */
    if (e > emax) return -1;
    const int q = e < emin ? emin - mbits : e - mbits; /* exponent of the last kept bit */
    const double r = ldexp(a, -q);                     /* exact: a power-of-two scaling */
    double n = floor(r);
    const double frac = r - n; /* exact: r has at most 53 significant bits */
    if (frac > 0.5 || (frac == 0.5 && fmod(n, 2.0) != 0)) n += 1; /* nearest, ties to even */
    uint32_t m = (uint32_t)n;
    if (e < emin) return (int32_t)m; /* subnormal; m == 2^mbits encodes the smallest normal */
    if (m == (2u << mbits)) {        /* rounding carried into the next binade */
        m >>= 1;
        e += 1;
        if (e > emax) return -1;
    }
    return (int32_t)(((uint32_t)(e + bias) << mbits) | (m - (1u << mbits)));
}

/* An IEEE-style format (infinities and NaNs at the top exponent). */
static uint16_t narrow(double x, int ebits, int mbits)
{
    const uint16_t sign = signbit(x) ? (uint16_t)(1u << (ebits + mbits)) : 0;
    const uint16_t inf = (uint16_t)(((1u << ebits) - 1) << mbits);
    if (isnan(x)) return sign | inf | (uint16_t)(1u << (mbits - 1)); /* quiet */
    const double a = fabs(x);
    if (isinf(a)) return sign | inf;
    if (a == 0) return sign;
    const int32_t code = round_code(a, ebits, mbits, (1 << (ebits - 1)) - 1);
    return sign | (code < 0 ? inf : (uint16_t)code);
}

static double widen(uint16_t bits, int ebits, int mbits)
{
    const int bias = (1 << (ebits - 1)) - 1;
    const int exp = (bits >> mbits) & ((1 << ebits) - 1);
    const uint32_t man = bits & ((1u << mbits) - 1);
    const double s = bits >> (ebits + mbits) ? -1.0 : 1.0;
    if (exp == (1 << ebits) - 1) return man ? copysign(NAN, s) : s * INFINITY;
    if (exp == 0) return s * ldexp((double)man, 1 - bias - mbits);
    return s * ldexp((double)(man | (1u << mbits)), exp - bias - mbits);
}

/* e4m3: the top exponent holds normal values but for its all-ones mantissa, NaN; no
 * infinities, so what rounds past 448 saturates there. */
uint8_t mmt_e4m3_from_double(double x)
{
    const uint8_t sign = signbit(x) ? 0x80 : 0;
    if (isnan(x)) return sign | 0x7F;
    const double a = fabs(x);
    if (a == 0) return sign;
    const int32_t code = isinf(a) ? -1 : round_code(a, 4, 3, 8);
    return sign | (uint8_t)(code < 0 || code > 0x7E ? 0x7E : code);
}

double mmt_e4m3_to_double(uint8_t bits)
{
    const double s = bits >> 7 ? -1.0 : 1.0;
    const int exp = (bits >> 3) & 15, man = bits & 7;
    if (exp == 15 && man == 7) return copysign(NAN, s);
    if (exp == 0) return s * ldexp((double)man, -9);
    return s * ldexp((double)(man | 8), exp - 10);
}

uint8_t mmt_e5m2_from_double(double x) { return (uint8_t)narrow(x, 5, 2); }
double mmt_e5m2_to_double(uint8_t bits) { return widen(bits, 5, 2); }

uint16_t mmt_bf16_from_double(double x) { return narrow(x, 8, 7); }
uint16_t mmt_f16_from_double(double x) { return narrow(x, 5, 10); }
double mmt_bf16_to_double(uint16_t bits) { return widen(bits, 8, 7); }
double mmt_f16_to_double(uint16_t bits) { return widen(bits, 5, 10); }
