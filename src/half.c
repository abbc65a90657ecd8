/* half.c - bf16 and f16 conversions (see half.h). Done by hand rather than with GCC's
 * _Float16 or __bf16: both formats go through one routine, rounding never depends on the
 * floating-point environment or on the compiler's support for the types, and the rules
 * are written where the tests can read them. */
#include "half.h"

#include <math.h>

/* A binary format with `ebits` exponent bits and `mbits` stored mantissa bits. */
static uint16_t narrow(double x, int ebits, int mbits)
{
    const int bias = (1 << (ebits - 1)) - 1, emin = 1 - bias, emax = bias;
    const uint16_t sign = signbit(x) ? (uint16_t)(1u << (ebits + mbits)) : 0;
    const uint16_t inf = (uint16_t)(((1u << ebits) - 1) << mbits);
    if (isnan(x)) return sign | inf | (uint16_t)(1u << (mbits - 1)); /* quiet */
    double a = fabs(x);
    if (isinf(a)) return sign | inf;
    if (a == 0) return sign;
    int e;
    frexp(a, &e);
    e -= 1;                      /* a = 1.f * 2^e */
    if (e > emax) return sign | inf;
    const int q = e < emin ? emin - mbits : e - mbits; /* exponent of the last kept bit */
    const double r = ldexp(a, -q);                     /* exact: a power-of-two scaling */
    double n = floor(r);
    const double frac = r - n; /* exact: r has at most 53 significant bits */
    if (frac > 0.5 || (frac == 0.5 && fmod(n, 2.0) != 0)) n += 1; /* nearest, ties to even */
    uint32_t m = (uint32_t)n;
    if (e < emin) return sign | (uint16_t)m; /* subnormal; m == 2^mbits encodes the smallest normal */
    if (m == (2u << mbits)) {                /* rounding carried into the next binade */
        m >>= 1;
        e += 1;
        if (e > emax) return sign | inf;
    }
    return sign | (uint16_t)((uint32_t)(e + bias) << mbits) | (uint16_t)(m - (1u << mbits));
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

uint16_t mmt_bf16_from_double(double x) { return narrow(x, 8, 7); }
uint16_t mmt_f16_from_double(double x) { return narrow(x, 5, 10); }
double mmt_bf16_to_double(uint16_t bits) { return widen(bits, 8, 7); }
double mmt_f16_to_double(uint16_t bits) { return widen(bits, 5, 10); }
